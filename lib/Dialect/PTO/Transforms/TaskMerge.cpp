//===- TaskMerge.cpp - merge isomorphic tasks: L1 reuse, n-buffering -----===//
//
// Two of PyPTO's merge passes on the partitioned tile graph
// (docs/TileGraph.md), sharing the isomorphism groups and the greedy planner:
//
//  - pto-l1-reuse: L1CopyInReuseMerge (docs/PyPTOModel.md#l1-reuse):
//    phase 1, cube tasks of one isomorphism group that copy identical GM
//    blocks into L1 are merged, and the duplicate copy-ins of each merged
//    task removed; phase 2 (CubeNBuffer, `cube_nbuffer_setting`), N
//    isomorphic cube tasks that fit L1 together are merged;
//  - pto-nbuffer-merge: NBufferMerge (docs/PyPTOModel.md#merging-passes, `vec_nbuffer_setting`):
//    N isomorphic vector tasks become one bigger task.
//
// Definitions used throughout:
//  - a *load* (GM->L1 copy-in) is a `pto.view` of a `!pto.tensor` inside a
//    cube task; its *feature* is (source, offsets, explicit valid extents,
//    tile type), index values compared by value numbering (equal constants,
//    equal pure expressions of equal values); identical loads have equal
//    features;
//  - a load's *side* is A when it feeds the lhs of matmul / matmul_acc, B
//    when it feeds the rhs (through tile views), "other" otherwise;
//  - a load's *K steps* are the positions of the matmuls it feeds in their
//    accumulation chains (matmul = 0, each matmul_acc one more);
//  - *isomorphism groups*: tasks of one block and kind whose bodies are
//    equal up to offsets and valid extents, numbered by first appearance.
//
//===----------------------------------------------------------------------===//

#include "BoxIndex.h"
#include "OperandStationary.h"
#include "SplitKChains.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <vector>

namespace mlir::pto {
#define GEN_PASS_DEF_L1REUSEPASS
#define GEN_PASS_DEF_NBUFFERMERGEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

// Side codes stored in MergeSettingAttr::getSides() (PTOAttrs.cpp).
constexpr int64_t kSettingNoSide = 0, kSettingLeft = 1, kSettingRight = 2,
                  kSettingAuto = 3;

// Side bits of a load.
constexpr unsigned kSideA = 1, kSideB = 2, kSideOther = 4;
constexpr unsigned kAllSides = kSideA | kSideB | kSideOther;

// The K step of loads that feed no matmul: held during every step.
constexpr int64_t kEveryStep = -1;

//===----------------------------------------------------------------------===//
// Value numbering of index expressions
//===----------------------------------------------------------------------===//

/// Numbers values so that equal numbers mean equal run-time values: equal
/// integer constants, and equal pure, region-free ops (name, attributes,
/// result) of equally numbered operands. Anything else (block arguments,
/// `pto.read`, workspaces) is numbered by identity. Ids start at 1.
class ValueNumbering {
public:
  unsigned get(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    unsigned id;
    Operation *def = v.getDefiningOp();
    APInt cst;
    if (def && v.getType().isIntOrIndex() &&
        matchPattern(v, m_ConstantInt(&cst))) {
      id = constant(cst.getSExtValue());
    } else if (def && def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
      std::vector<uintptr_t> key = {
          1, reinterpret_cast<uintptr_t>(def->getName().getAsOpaquePointer()),
          reinterpret_cast<uintptr_t>(
              def->getAttrDictionary().getAsOpaquePointer()),
          cast<OpResult>(v).getResultNumber(),
          reinterpret_cast<uintptr_t>(v.getType().getAsOpaquePointer())};
      for (Value operand : def->getOperands())
        key.push_back(get(operand));
      id = intern(std::move(key));
    } else {
      id = intern({2, reinterpret_cast<uintptr_t>(v.getAsOpaquePointer())});
    }
    memo[v] = id;
    return id;
  }

  unsigned constant(int64_t c) {
    return intern({0, static_cast<uintptr_t>(c)});
  }

  /// `base + c` with `base` = 0 for a constant.
  struct Affine {
    unsigned base;
    int64_t c;
  };
  Affine affine(Value v) {
    APInt cst;
    if (matchPattern(v, m_ConstantInt(&cst)))
      return {0, cst.getSExtValue()};
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      Affine l = affine(add.getLhs()), r = affine(add.getRhs());
      if (l.base == 0)
        return {r.base, l.c + r.c};
      if (r.base == 0)
        return {l.base, l.c + r.c};
    }
    if (auto sub = v.getDefiningOp<arith::SubIOp>()) {
      Affine l = affine(sub.getLhs()), r = affine(sub.getRhs());
      if (r.base == 0)
        return {l.base, l.c - r.c};
    }
    return {get(v), 0};
  }

private:
  unsigned intern(std::vector<uintptr_t> key) {
    auto [it, inserted] = table.try_emplace(std::move(key), table.size() + 1);
    return it->second;
  }

  DenseMap<Value, unsigned> memo;
  std::map<std::vector<uintptr_t>, unsigned> table;
};

/// `statics` with kDynamic entries taken from `dynamic`, numbered.
void appendMixed(ValueNumbering &vn, ArrayRef<int64_t> statics,
                 ValueRange dynamic, std::vector<uintptr_t> &key) {
  unsigned next = 0;
  for (int64_t s : statics)
    key.push_back(ShapedType::isDynamic(s) ? vn.get(dynamic[next++])
                                           : vn.constant(s));
}

//===----------------------------------------------------------------------===//
// GM accesses and dependencies
//===----------------------------------------------------------------------===//

struct DimRange {
  unsigned base; // value number of the dynamic part, 0 if static
  int64_t lo, size;
};

/// A read or write of a GM region: `dims` empty means the whole tensor.
struct Access {
  unsigned root;   // the aliasing class (tensor seen through reshapes)
  unsigned tensor; // the tensor value the offsets refer to
  bool write;
  SmallVector<DimRange, 2> dims;
};

struct AccessSummary {
  SmallVector<Access, 8> accesses;
  bool barrier = false; // an effect this pass does not understand
};

bool overlap(const Access &a, const Access &b) {
  if (a.root != b.root)
    return false;
  if (a.tensor != b.tensor || a.dims.empty() || b.dims.empty() ||
      a.dims.size() != b.dims.size())
    return true;
  for (auto [x, y] : llvm::zip(a.dims, b.dims))
    if (x.base == y.base && (x.lo + x.size <= y.lo || y.lo + y.size <= x.lo))
      return false; // disjoint in this dim
  return true;
}

bool conflict(const AccessSummary &a, const AccessSummary &b) {
  if (a.barrier || b.barrier)
    return true;
  for (const Access &x : a.accesses)
    for (const Access &y : b.accesses)
      if ((x.write || y.write) && overlap(x, y))
        return true;
  return false;
}

/// The GM accesses of a growing set of ops (a merge target), indexed so that
/// whether an op conflicts with any of them costs no scan of them all:
/// accesses of one tensor with the same symbolic base per dim are compared
/// through a grid of their boxes, the others (other bases, other aliases of
/// the root, whole tensors) one by one, as `overlap` does.
class AccessIndex {
public:
  void add(const AccessSummary &summary) {
    barrier |= summary.barrier;
    for (const Access &a : summary.accesses) {
      Bucket &bucket = buckets[a.root][keyOf(a)];
      bucket.entries[a.write].push_back(a);
      if (!a.dims.empty())
        bucket.boxes[a.write].insert(0, boxOf(a));
    }
  }

  /// Whether an op with `summary` conflicts with an op added (the index
  /// must hold at least one op): `conflict` against each.
  bool conflicts(const AccessSummary &summary) const {
    if (barrier || summary.barrier)
      return true;
    for (const Access &y : summary.accesses) {
      auto root = buckets.find(y.root);
      if (root == buckets.end())
        continue;
      std::vector<int64_t> key = keyOf(y);
      for (const auto &[bucketKey, bucket] : root->second)
        for (bool write : {true, false}) {
          // A conflict needs a write on one side.
          if ((!write && !y.write) || bucket.entries[write].empty())
            continue;
          if (bucketKey == key && !y.dims.empty()) {
            bool found = false;
            bucket.boxes[write].forEachOverlap(boxOf(y),
                                               [&](unsigned) { found = true; });
            if (found)
              return true;
            continue;
          }
          for (const Access &x : bucket.entries[write])
            if (overlap(x, y))
              return true;
        }
    }
    return false;
  }

private:
  struct Bucket {
    SmallVector<Access, 1> entries[2]; // by write
    pto::detail::BoxIndex boxes[2];
  };

  /// Accesses with equal keys compare in every dim: same tensor, rank and
  /// base per dim.
  static std::vector<int64_t> keyOf(const Access &a) {
    std::vector<int64_t> key = {a.tensor, static_cast<int64_t>(a.dims.size())};
    for (const DimRange &d : a.dims)
      key.push_back(d.base);
    return key;
  }
  static pto::detail::Box boxOf(const Access &a) {
    pto::detail::Box box;
    for (const DimRange &d : a.dims) {
      box.first.push_back(d.lo);
      box.second.push_back(d.size);
    }
    return box;
  }

  bool barrier = false;
  std::map<unsigned, std::map<std::vector<int64_t>, Bucket>> buckets;
};

Access regionAccess(ValueNumbering &vn, Value tensor, ArrayRef<int64_t> offsets,
                    ValueRange dynOffsets, ArrayRef<int64_t> shape,
                    bool write) {
  Access access{vn.get(getAliasedTensor(tensor)), vn.get(tensor), write, {}};
  unsigned next = 0;
  for (auto [off, size] : llvm::zip(offsets, shape)) {
    ValueNumbering::Affine a = ShapedType::isDynamic(off)
                                   ? vn.affine(dynOffsets[next++])
                                   : ValueNumbering::Affine{0, off};
    access.dims.push_back({a.base, a.c, size});
  }
  return access;
}

AccessSummary summarize(ValueNumbering &vn, Operation *root) {
  AccessSummary summary;
  root->walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op)) {
      if (isa<GMTensorType>(view.getSource().getType()))
        summary.accesses.push_back(regionAccess(
            vn, view.getSource(), view.getStaticOffsets(), view.getOffsets(),
            view.getResult().getType().getShape(), /*write=*/false));
      return;
    }
    if (auto read = dyn_cast<ReadOp>(op)) {
      Value t = read.getTensor();
      summary.accesses.push_back(
          {vn.get(getAliasedTensor(t)), vn.get(t), /*write=*/false, {}});
      return;
    }
    if (isa<AssembleOp, AtomicAddOp>(op)) {
      auto src = cast<TypedValue<TileType>>(op->getOperand(0));
      Value dst = op->getOperand(1);
      ArrayRef<int64_t> offsets =
          isa<AssembleOp>(op) ? cast<AssembleOp>(op).getStaticOffsets()
                              : cast<AtomicAddOp>(op).getStaticOffsets();
      ValueRange dyn = isa<AssembleOp>(op) ? cast<AssembleOp>(op).getOffsets()
                                           : cast<AtomicAddOp>(op).getOffsets();
      summary.accesses.push_back(regionAccess(
          vn, dst, offsets, dyn, src.getType().getShape(), /*write=*/true));
      return;
    }
    if (isa<WorkspaceOp>(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return; // an allocation; or nested ops are visited by the walk
    if (!isMemoryEffectFree(op))
      summary.barrier = true;
  });
  return summary;
}

//===----------------------------------------------------------------------===//
// Tasks, loads, isomorphism
//===----------------------------------------------------------------------===//

struct Load {
  ViewOp view;
  unsigned feature;
  int64_t bytes;
  unsigned sides = 0;
  SmallVector<int64_t, 2> steps; // K steps it feeds (kEveryStep: none)
};

bool isLoad(Operation *op) {
  auto view = dyn_cast<ViewOp>(op);
  return view && isa<GMTensorType>(view.getSource().getType());
}

/// The loads of a task, in program order.
SmallVector<ViewOp> loadsOf(TaskOp task) {
  SmallVector<ViewOp> loads;
  task.getBody().walk([&](ViewOp view) {
    if (isLoad(view))
      loads.push_back(view);
  });
  return loads;
}

int64_t kStep(Operation *op, DenseMap<Operation *, int64_t> &memo) {
  if (auto it = memo.find(op); it != memo.end())
    return it->second;
  int64_t step = 0;
  if (auto acc = dyn_cast<MatmulAccOp>(op))
    if (Operation *def = acc.getAcc().getDefiningOp();
        def && isa<MatmulOp, MatmulAccOp>(def))
      step = kStep(def, memo) + 1;
  return memo[op] = step;
}

void classifyUses(Value value, Load &load,
                  DenseMap<Operation *, int64_t> &stepMemo) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    unsigned n = use.getOperandNumber();
    if (auto mm = dyn_cast<MatmulOp>(user)) {
      load.sides |=
          n == mm.getLhsMutable().getOperandNumber() ? kSideA : kSideB;
      load.steps.push_back(kStep(user, stepMemo));
    } else if (auto mm = dyn_cast<MatmulAccOp>(user)) {
      if (n == mm.getAccMutable().getOperandNumber()) {
        load.sides |= kSideOther;
        load.steps.push_back(kEveryStep);
        continue;
      }
      load.sides |=
          n == mm.getLhsMutable().getOperandNumber() ? kSideA : kSideB;
      load.steps.push_back(kStep(user, stepMemo));
    } else if (auto view = dyn_cast<ViewOp>(user)) {
      classifyUses(view.getResult(), load, stepMemo);
    } else {
      load.sides |= kSideOther;
      load.steps.push_back(kEveryStep);
    }
  }
}

/// Features of loads: (source, offsets, explicit valid extents, tile type).
class FeatureTable {
public:
  explicit FeatureTable(ValueNumbering &vn) : vn(vn) {}
  unsigned get(ViewOp view) {
    std::vector<uintptr_t> key = {vn.get(view.getSource())};
    appendMixed(vn, view.getStaticOffsets(), view.getOffsets(), key);
    if (std::optional<ArrayRef<int64_t>> valid = view.getStaticValidShape()) {
      key.push_back(1);
      appendMixed(vn, *valid, view.getValidShape(), key);
    } else {
      key.push_back(0);
    }
    key.push_back(reinterpret_cast<uintptr_t>(
        view.getResult().getType().getAsOpaquePointer()));
    auto [it, inserted] = table.try_emplace(std::move(key), table.size() + 1);
    return it->second;
  }

private:
  ValueNumbering &vn;
  std::map<std::vector<uintptr_t>, unsigned> table;
};

/// A structural signature of a task: equal signatures mean isomorphic bodies
/// (op names, attributes other than static offsets and valid extents, types,
/// use-def structure inside the task; captured values by type only; index
/// constants by type only).
std::vector<uintptr_t> signature(TaskOp task) {
  auto ptr = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  std::vector<uintptr_t> sig = {
      ptr(task->getAttrDictionary().getAsOpaquePointer()),
      task.getNumResults()};
  DenseMap<Value, unsigned> local;
  auto define = [&](Value v) {
    local.try_emplace(v, local.size());
    sig.push_back(ptr(v.getType().getAsOpaquePointer()));
  };
  MLIRContext *ctx = task.getContext();
  StringAttr staticOffsets = StringAttr::get(ctx, "static_offsets");
  StringAttr staticValid = StringAttr::get(ctx, "static_valid_shape");
  task.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    sig.push_back(ptr(op->getName().getAsOpaquePointer()));
    // Index constants are offsets too (index arithmetic copied into tasks).
    bool indexConstant =
        isa<arith::ConstantOp>(op) && op->getResult(0).getType().isIndex();
    NamedAttrList attrs;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != staticOffsets && attr.getName() != staticValid &&
          !indexConstant)
        attrs.push_back(attr);
    sig.push_back(ptr(attrs.getDictionary(ctx).getAsOpaquePointer()));
    // Which dims are static is structure; their values are parameters.
    if (auto view = dyn_cast<ViewOp>(op)) {
      for (int64_t off : view.getStaticOffsets())
        sig.push_back(ShapedType::isDynamic(off));
      if (auto valid = view.getStaticValidShape())
        for (int64_t v : *valid)
          sig.push_back(ShapedType::isDynamic(v));
    }
    sig.push_back(op->getNumOperands());
    for (Value operand : op->getOperands()) {
      auto it = local.find(operand);
      if (it != local.end()) {
        sig.push_back(1);
        sig.push_back(it->second);
      } else {
        sig.push_back(2);
        sig.push_back(ptr(operand.getType().getAsOpaquePointer()));
      }
    }
    sig.push_back(op->getNumResults());
    for (Value result : op->getResults())
      define(result);
    sig.push_back(op->getNumRegions());
    for (Region &region : op->getRegions()) {
      sig.push_back(region.getBlocks().size());
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          define(arg);
    }
  });
  return sig;
}

//===----------------------------------------------------------------------===//
// The greedy merge of one group
//===----------------------------------------------------------------------===//

struct TaskInfo {
  TaskOp task;
  unsigned node; // index among the block's ops
  SmallVector<Load, 4> loads;
  int64_t lastCapture = -1; // latest block op defining a value it uses
};

/// Per-K-step distinct loads of a (merged) task: step -> key -> bytes.
using Footprint = std::map<int64_t, std::map<uint64_t, int64_t>>;

int64_t footprintBytes(const Footprint &fp) {
  int64_t every = 0, worst = 0;
  if (auto it = fp.find(kEveryStep); it != fp.end())
    for (auto &[key, bytes] : it->second)
      every += bytes;
  for (auto &[step, loads] : fp) {
    if (step == kEveryStep)
      continue;
    int64_t total = 0;
    for (auto &[key, bytes] : loads)
      total += bytes;
    worst = std::max(worst, total);
  }
  return every + worst;
}

struct Plan {
  /// Member indices into the group, in program order, and which member's
  /// position the merged task takes.
  SmallVector<SmallVector<unsigned, 4>> targets;
  SmallVector<unsigned> hosts;
  int64_t savedBytes = 0;
  unsigned tasksAfter = 0;
  unsigned largest = 0; // largest target
};

class GroupPlanner {
public:
  GroupPlanner(ValueNumbering &vn, Block &block, ArrayRef<TaskInfo> group,
               int64_t l1Bytes)
      : vn(vn), group(group), l1Bytes(l1Bytes) {
    for (Operation &op : block)
      nodes.push_back(&op);
    summaries.resize(nodes.size());
  }

  /// Greedy merge with count `n`, sharing on `sideMask` loads, keeping at
  /// least `minTasks` tasks. With `requireSharing` a task joins the target
  /// it shares the most load bytes with (at least one load); without, the
  /// earliest target it may join (n-buffering: bigger tasks, no sharing).
  /// With `slots` (one per group member: operand-stationary rectangles), a
  /// task joins the open target of its slot if it may, sharing or not.
  Plan plan(int64_t n, unsigned sideMask, unsigned minTasks,
            bool requireSharing = true, ArrayRef<unsigned> slots = {}) {
    struct Target {
      SmallVector<unsigned, 4> members; // group indices
      unsigned host;                    // the member whose position it holds
      DenseSet<unsigned> features;      // allowed-side features
      Footprint footprint;
      unsigned conflictClass = 0; // first fit: see `open` below
      AccessIndex accesses;       // first fit: its members' GM accesses
    };
    // Units in block order: the original node indices a node's position
    // holds (empty once moved into a later merged task).
    std::vector<SmallVector<unsigned, 4>> units(nodes.size());
    for (unsigned i = 0; i < nodes.size(); ++i)
      units[i] = {i};
    std::map<unsigned, Target> targets; // node index of its position -> target
    Plan result;
    unsigned tasks = group.size();
    uint64_t uniqueKey = uint64_t(1) << 40;

    // First fit (without `requireSharing`) takes the earliest target that
    // may take the task. Scanning every target per task is quadratic when
    // most refuse (e.g. tasks that all write one region conflict with each
    // other and never merge), so the targets that are not full yet are kept
    // by conflict class: whether a target's unit conflicts with a task
    // depends only on its set of GM accesses, so one check per class skips
    // every target of a conflicting class.
    bool bySlot = !slots.empty();
    bool firstFit = !requireSharing && !bySlot;
    DenseMap<unsigned, std::set<unsigned>> openByClass; // class -> positions
    DenseMap<unsigned, unsigned> openBySlot;            // slot -> position
    auto open = [&](unsigned pos, Target &target) {
      if (!firstFit || static_cast<int64_t>(target.members.size()) >= n)
        return;
      target.conflictClass = conflictClassOf(units[pos]);
      openByClass[target.conflictClass].insert(pos);
    };
    auto close = [&](unsigned pos, Target &target) {
      if (!firstFit)
        return;
      auto it = openByClass.find(target.conflictClass);
      if (it == openByClass.end())
        return;
      it->second.erase(pos);
      if (it->second.empty())
        openByClass.erase(it);
    };

    for (unsigned gi = 0; gi < group.size(); ++gi) {
      const TaskInfo &info = group[gi];
      Target mine;
      mine.members = {gi};
      mine.host = gi;
      for (const Load &load : info.loads) {
        bool allowed = load.sides & sideMask;
        uint64_t key = allowed ? load.feature : uniqueKey++;
        if (allowed)
          mine.features.insert(load.feature);
        for (int64_t step : load.steps)
          mine.footprint[step][key] = load.bytes;
        if (load.steps.empty())
          mine.footprint[kEveryStep][key] = load.bytes;
      }
      unsigned here = info.node;
      if (firstFit)
        mine.accesses.add(summary(here));
      // A task yielding values stays where it is, alone.
      if (info.task->getNumResults() != 0)
        continue;
      std::optional<unsigned> best;
      bool bestMovesUp = false;
      int64_t bestShared = 0;
      bool mayMerge = tasks > minTasks && n > 1;
      // Whether the task may join the target at `pos`, and how.
      auto consider = [&](unsigned pos, Target &target) {
        int64_t shared = 0;
        for (const Load &load : info.loads)
          if ((load.sides & sideMask) && target.features.contains(load.feature))
            shared += load.bytes;
        if (requireSharing && !bySlot && shared <= bestShared)
          return;
        Footprint merged = target.footprint;
        for (auto &[step, loads] : mine.footprint)
          for (auto &[key, bytes] : loads)
            merged[step][key] = bytes;
        if (footprintBytes(merged) > l1Bytes)
          return;
        // The target moves down to the task; failing that, the task moves up
        // to the target.
        bool movesUp = false;
        if (firstFit ? target.accesses.conflicts(summary(here))
                     : conflictsWith(units[pos], units[here]))
          return;
        if (conflictsBetween(units[pos], pos, here, units)) {
          if (info.lastCapture >= static_cast<int64_t>(pos) ||
              conflictsBetween(units[here], pos, here, units))
            return;
          movesUp = true;
        }
        best = pos;
        bestMovesUp = movesUp;
        bestShared = shared;
      };
      if (mayMerge && firstFit) {
        // The open targets of the classes that do not conflict with the
        // task, in position order, until one takes it.
        using Cursor = std::pair<unsigned, std::set<unsigned>::const_iterator>;
        SmallVector<const std::set<unsigned> *> classes;
        std::priority_queue<std::pair<unsigned, unsigned>,
                            std::vector<std::pair<unsigned, unsigned>>,
                            std::greater<>>
            next; // (position, index into `cursors`)
        SmallVector<Cursor> cursors;
        for (auto &[conflictClass, positions] : openByClass) {
          if (targets.find(*positions.begin())
                  ->second.accesses.conflicts(summary(here)))
            continue;
          cursors.push_back({0, positions.begin()});
          classes.push_back(&positions);
          next.push({*positions.begin(), cursors.size() - 1});
        }
        while (!best && !next.empty()) {
          auto [pos, c] = next.top();
          next.pop();
          consider(pos, targets.find(pos)->second);
          auto &it = cursors[c].second;
          if (++it != classes[c]->end())
            next.push({*it, c});
        }
      } else if (mayMerge && bySlot) {
        if (auto it = openBySlot.find(slots[gi]); it != openBySlot.end()) {
          Target &target = targets.find(it->second)->second;
          if (static_cast<int64_t>(target.members.size()) < n)
            consider(it->second, target);
        }
      } else if (mayMerge) {
        for (auto &[pos, target] : targets)
          if (static_cast<int64_t>(target.members.size()) < n)
            consider(pos, target);
      }
      if (!best) {
        auto [it, inserted] = targets.emplace(here, std::move(mine));
        open(here, it->second);
        if (bySlot)
          openBySlot[slots[gi]] = here;
        continue;
      }
      close(*best, targets[*best]);
      Target target = std::move(targets[*best]);
      targets.erase(*best);
      target.members.push_back(gi);
      if (firstFit)
        target.accesses.add(summary(here));
      for (unsigned f : mine.features)
        target.features.insert(f);
      for (auto &[step, loads] : mine.footprint)
        for (auto &[key, bytes] : loads)
          target.footprint[step][key] = bytes;
      unsigned from = bestMovesUp ? here : *best;
      unsigned to = bestMovesUp ? *best : here;
      SmallVector<unsigned, 4> moved = std::move(units[from]);
      units[from].clear();
      if (bestMovesUp) {
        units[to].append(moved.begin(), moved.end());
      } else {
        units[to].insert(units[to].begin(), moved.begin(), moved.end());
        target.host = gi;
      }
      auto [placed, inserted] = targets.emplace(to, std::move(target));
      open(to, placed->second);
      if (bySlot)
        openBySlot[slots[gi]] = to;
      result.savedBytes += bestShared;
      --tasks;
    }
    for (auto &[pos, target] : targets) {
      result.largest =
          std::max<unsigned>(result.largest, target.members.size());
      result.targets.push_back(std::move(target.members));
      result.hosts.push_back(target.host);
    }
    result.tasksAfter = tasks;
    return result;
  }

private:
  const AccessSummary &summary(unsigned node) {
    if (!summaries[node])
      summaries[node] = summarize(vn, nodes[node]);
    return *summaries[node];
  }

  bool conflicts(unsigned a, unsigned b) {
    auto key = std::make_pair(std::min(a, b), std::max(a, b));
    if (auto it = conflictMemo.find(key); it != conflictMemo.end())
      return it->second;
    bool c = conflict(summary(a), summary(b));
    conflictMemo[key] = c;
    return c;
  }

  /// A number equal for units whose GM accesses (and barrier) are the same
  /// sets, which therefore conflict with the same units; a fresh number for
  /// units with many accesses (not worth comparing).
  unsigned conflictClassOf(ArrayRef<unsigned> unit) {
    constexpr size_t kMaxAccesses = 64;
    std::vector<std::vector<int64_t>> accesses;
    bool barrier = false;
    for (unsigned node : unit) {
      const AccessSummary &s = summary(node);
      barrier |= s.barrier;
      for (const Access &a : s.accesses) {
        if (accesses.size() >= kMaxAccesses)
          return (1u << 31) + uniqueClasses++;
        std::vector<int64_t> key = {a.root, a.tensor, a.write,
                                    static_cast<int64_t>(a.dims.size())};
        for (const DimRange &d : a.dims) {
          key.push_back(d.base);
          key.push_back(d.lo);
          key.push_back(d.size);
        }
        accesses.push_back(std::move(key));
      }
    }
    llvm::sort(accesses);
    accesses.erase(std::unique(accesses.begin(), accesses.end()),
                   accesses.end());
    std::vector<int64_t> key = {barrier};
    for (std::vector<int64_t> &a : accesses)
      key.insert(key.end(), a.begin(), a.end());
    return classes.try_emplace(std::move(key), classes.size() + 1)
        .first->second;
  }

  /// Whether two units (original node indices) touch a common GM region,
  /// one of them writing.
  bool conflictsWith(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
    for (unsigned x : a)
      for (unsigned y : b)
        if (conflicts(x, y))
          return true;
    return false;
  }

  /// Whether `members` conflict with a unit strictly between positions
  /// `from` and `to`: moving them across it could change what is read.
  bool conflictsBetween(ArrayRef<unsigned> members, unsigned from, unsigned to,
                        const std::vector<SmallVector<unsigned, 4>> &units) {
    for (unsigned k = from + 1; k < to; ++k)
      if (conflictsWith(members, units[k]))
        return true;
    return false;
  }

  ValueNumbering &vn;
  ArrayRef<TaskInfo> group;
  int64_t l1Bytes;
  std::vector<Operation *> nodes;
  std::vector<std::optional<AccessSummary>> summaries;
  DenseMap<std::pair<unsigned, unsigned>, bool> conflictMemo;
  std::map<std::vector<int64_t>, unsigned> classes;
  unsigned uniqueClasses = 0;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

int64_t loadBytes(ViewOp view) {
  return view.getResult().getType().getByteSize();
}

int64_t cubeLoadBytes(Operation *root) {
  int64_t bytes = 0;
  root->walk([&](TaskOp task) {
    if (task.getKind() == CoreKind::cube)
      for (ViewOp view : loadsOf(task))
        bytes += loadBytes(view);
  });
  return bytes;
}

struct GroupSetting {
  std::optional<int64_t> count; // nullopt: automatic
  int64_t side = kSettingNoSide;
};

/// One merge setting of the kernel's pass_options (null without one), e.g.
/// `mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting)`.
MergeSettingAttr mergeSetting(KernelOp kernel,
                              MergeSettingAttr (PassOptionsAttr::*get)() const) {
  PassOptionsAttr options = kernel.getPassOptionsAttr();
  return options ? (options.*get)() : MergeSettingAttr();
}

/// The setting's value for group `group`: its key, else key -1; none (the
/// automatic choice) without a setting or either key.
GroupSetting lookupSetting(MergeSettingAttr setting, int64_t group) {
  GroupSetting result;
  if (!setting)
    return result;
  result.count = setting.getCountFor(group);
  if (!result.count)
    return result;
  ArrayRef<int64_t> keys = setting.getKeys();
  const auto *it = llvm::find(keys, group);
  if (it == keys.end())
    it = llvm::find(keys, -1);
  if (it != keys.end())
    result.side = setting.getSides()[it - keys.begin()];
  return result;
}

unsigned sideMaskOf(int64_t side) {
  if (side == kSettingLeft)
    return kSideA;
  if (side == kSettingRight)
    return kSideB;
  return kAllSides;
}

StringRef sideName(int64_t side) {
  switch (side) {
  case kSettingLeft:
    return "left";
  case kSettingRight:
    return "right";
  case kSettingNoSide:
    return "";
  default:
    return "auto";
  }
}

/// The blocks holding tasks of `kind`, in walk order.
llvm::SetVector<Block *> blocksWithTasks(KernelOp kernel, CoreKind kind) {
  llvm::SetVector<Block *> blocks;
  kernel.walk([&](TaskOp task) {
    if (task.getKind() == kind)
      blocks.insert(task->getBlock());
  });
  return blocks;
}

/// The block's tasks of `kind` that `filter` accepts, by isomorphism group
/// in order of first appearance.
SmallVector<SmallVector<TaskOp>>
groupsOf(Block &block, CoreKind kind, function_ref<bool(TaskOp)> filter) {
  std::map<std::vector<uintptr_t>, unsigned> ids;
  SmallVector<SmallVector<TaskOp>> groups;
  for (Operation &op : block) {
    auto task = dyn_cast<TaskOp>(op);
    if (!task || task.getKind() != kind || !filter(task))
      continue;
    auto [it, inserted] = ids.try_emplace(signature(task), groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(task);
  }
  return groups;
}

/// Positions and latest captured block value of `tasks` (loads not filled).
SmallVector<TaskInfo, 8> taskInfos(Block &block, ArrayRef<TaskOp> tasks) {
  DenseMap<Operation *, unsigned> nodeIndex;
  for (auto [i, op] : llvm::enumerate(block))
    nodeIndex[&op] = i;
  SmallVector<TaskInfo, 8> infos;
  for (TaskOp task : tasks) {
    TaskInfo info{task, nodeIndex.lookup(task), {}};
    task.getBody().walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || task->isAncestor(def))
          continue;
        if (Operation *inBlock = block.findAncestorOpInBlock(*def))
          info.lastCapture =
              std::max<int64_t>(info.lastCapture, nodeIndex.lookup(inBlock));
      }
    });
    infos.push_back(std::move(info));
  }
  return infos;
}

/// `taskInfos` with each cube task's loads (feature, bytes, sides, K steps).
SmallVector<TaskInfo, 8> cubeTaskInfos(ValueNumbering &vn, Block &block,
                                       ArrayRef<TaskOp> tasks) {
  FeatureTable features(vn);
  SmallVector<TaskInfo, 8> infos = taskInfos(block, tasks);
  DenseMap<Operation *, int64_t> stepMemo;
  for (TaskInfo &info : infos) {
    for (ViewOp view : loadsOf(info.task)) {
      Load load{view, features.get(view), loadBytes(view), 0, {}};
      classifyUses(view.getResult(), load, stepMemo);
      if (load.steps.empty()) {
        load.sides |= kSideOther;
        load.steps.push_back(kEveryStep);
      }
      info.loads.push_back(std::move(load));
    }
  }
  return infos;
}

/// Whether GM tensor `tensor` is a workspace (a round trip served by L2)
/// rather than a kernel tensor (docs/CostModel.md, per-launch time).
bool isWorkspace(Value tensor) {
  return getAliasedTensor(tensor).getDefiningOp<WorkspaceOp>() != nullptr;
}

/// The cycles of a cube task's pipes other than MTE2, at the platform's
/// rates over static tile shapes.
struct ComputeCycles {
  double m = 0.0, mte1 = 0.0; // matmuls, L1 -> L0A/B
  double fix = 0.0;           // L0C -> GM
};

ComputeCycles computeCycles(TaskOp task, const PlatformInfo &platform) {
  const PlatformInfo::PerfInfo &perf = platform.perf;
  double m = 0.0, mte1 = 0.0, fix = 0.0;
  auto bytesOf = [](Type t) {
    return std::max<int64_t>(1, getElementTypeOrSelf(t).getIntOrFloatBitWidth() / 8);
  };
  auto matmul = [&](Value lhs, Value rhs, Value result, bool aTrans) {
    auto lhsType = cast<TileType>(lhs.getType());
    auto resType = cast<TileType>(result.getType());
    int64_t rows = resType.getShape()[0], cols = resType.getShape()[1];
    int64_t k = lhsType.getShape()[aTrans ? 0 : 1];
    int64_t lhsBytes = bytesOf(lhsType), rhsBytes = bytesOf(rhs.getType());
    double rate = perf.cubeFlopsPerCycle;
    if (std::max(lhsBytes, rhsBytes) >= 4)
      rate *= perf.cubeFp32Factor;
    m += 2.0 * double(rows) * double(cols) * double(k) / rate;
    mte1 += double(rows * k * lhsBytes) / perf.l1ToL0ABytesPerCycle +
            double(k * cols * rhsBytes) / perf.l1ToL0BBytesPerCycle;
  };
  task.getBody().walk([&](Operation *op) {
    if (auto mm = dyn_cast<MatmulOp>(op))
      matmul(mm.getLhs(), mm.getRhs(), mm.getResult(), mm.getATrans());
    else if (auto mm = dyn_cast<MatmulAccOp>(op))
      matmul(mm.getLhs(), mm.getRhs(), mm.getResult(), mm.getATrans());
    else if (isa<AssembleOp, AtomicAddOp>(op)) {
      auto src = cast<TileType>(op->getOperand(0).getType());
      fix += double(src.getByteSize()) /
             (isWorkspace(op->getOperand(1)) ? perf.aicRates.l2Write
                                             : perf.aicRates.ddrWrite);
    }
  });
  return {m, mte1, fix};
}

/// The operand-stationary planning problem of a group of cube tasks, each
/// cut into `parts` equal ranges of its K steps (1: whole tasks; more: the
/// tasks `splitKChains` would make, in its order): each (part of a) task's
/// A-side and B-side copy-ins form its A and B block (equal blocks: equal
/// features in the same order). None if a copy-in feeds both sides, no
/// matmul or steps of two parts, a task lacks a side, or the chains do not
/// cut into `parts`.
std::optional<pto::detail::StationaryProblem>
stationaryProblem(ArrayRef<TaskInfo> infos, const PlatformInfo &platform,
                  unsigned parts = 1) {
  pto::detail::StationaryProblem problem;
  problem.l1Bytes = platform.l1Bytes;
  std::map<std::vector<unsigned>, unsigned> blockIds[2];
  for (const TaskInfo &info : infos) {
    int64_t steps = 0;
    for (const Load &load : info.loads)
      for (int64_t step : load.steps)
        steps = std::max(steps, step + 1);
    if (steps == 0 || steps % parts)
      return std::nullopt;
    int64_t perPart = steps / parts;
    for (unsigned part = 0; part < parts; ++part) {
      std::vector<unsigned> keys[2];
      pto::detail::StationaryBlock blocks[2];
      std::map<int64_t, int64_t> stepBytes[2];
      for (const Load &load : info.loads) {
        if (load.sides != kSideA && load.sides != kSideB)
          return std::nullopt;
        int64_t first = load.steps.front() / perPart;
        for (int64_t step : load.steps)
          if (step == kEveryStep || step / perPart != first)
            return std::nullopt;
        if (first != part)
          continue;
        unsigned side = load.sides == kSideA ? 0 : 1;
        keys[side].push_back(load.feature);
        blocks[side].bytes += load.bytes;
        for (int64_t step : load.steps)
          stepBytes[side][step] += load.bytes;
        blocks[side].loadCycles +=
            double(load.bytes) / (isWorkspace(ViewOp(load.view).getSource())
                                      ? platform.perf.aicRates.l2Read
                                      : platform.perf.aicRates.ddrRead);
      }
      unsigned ids[2];
      for (unsigned side : {0u, 1u}) {
        if (keys[side].empty())
          return std::nullopt;
        for (auto &[step, bytes] : stepBytes[side])
          blocks[side].stepBytes = std::max(blocks[side].stepBytes, bytes);
        // A part's block is another block than the same loads' whole task.
        keys[side].push_back(~0u - part);
        auto &table = side == 0 ? problem.aBlocks : problem.bBlocks;
        auto [it, inserted] =
            blockIds[side].try_emplace(std::move(keys[side]), table.size());
        if (inserted)
          table.push_back(blocks[side]);
        ids[side] = it->second;
      }
      problem.tasks.push_back({ids[0], ids[1]});
    }
    // Each part stores a whole partial result.
    ComputeCycles c = computeCycles(info.task, platform);
    problem.pieceCycles = std::max(
        {problem.pieceCycles, c.m / parts, c.mte1 / parts, c.fix});
  }
  return problem;
}

/// Moves the bodies of a plan target's members into its host task, in
/// program order, and erases the other members; returns the merged body.
Block &mergeMembers(ArrayRef<TaskInfo> infos, ArrayRef<unsigned> members,
                    unsigned hostIndex) {
  TaskOp host = infos[hostIndex].task;
  Block &body = host.getBody().front();
  Operation *hostFirst = &body.front();
  bool afterHost = false;
  for (unsigned m : members) {
    if (m == hostIndex) {
      afterHost = true;
      continue;
    }
    TaskOp task = infos[m].task;
    for (Operation &op : llvm::make_early_inc_range(
             task.getBody().front().without_terminator()))
      op.moveBefore(afterHost ? body.getTerminator() : hostFirst);
    task.erase();
  }
  return body;
}

/// N-buffering: merges the group `n` at a time, sharing nothing, while the
/// loads `infos` carry fit `capacity` per K step. Returns the tasks left and
/// the tasks merged into another.
std::pair<unsigned, unsigned> mergeUnshared(ValueNumbering &vn, Block &block,
                                            ArrayRef<TaskInfo> infos,
                                            int64_t n, int64_t capacity) {
  GroupPlanner planner(vn, block, infos, capacity);
  Plan plan = planner.plan(n, /*sideMask=*/0, /*minTasks=*/1,
                           /*requireSharing=*/false);
  unsigned merged = 0;
  for (auto [targetIndex, members] : llvm::enumerate(plan.targets))
    if (members.size() > 1) {
      mergeMembers(infos, members, plan.hosts[targetIndex]);
      merged += members.size() - 1;
    }
  return {plan.tasksAfter, merged};
}

struct L1ReusePass : public pto::impl::L1ReusePassBase<L1ReusePass> {
  using Base::Base;
  L1ReusePass(const L1ReusePass &other) : Base(other) {}

  // Declared here rather than in Passes.td for now (docs/TileGraph.md,
  // "Operand-stationary cube tasks"): `-pto-l1-reuse=stationary=true`.
  Option<bool> stationary{
      *this, "stationary",
      llvm::cl::desc("Operand-stationary cube tasks: cut each group into "
                     "rectangles of tasks sharing A and B blocks, the extent "
                     "chosen from L1 and the pipe balance (overrides "
                     "cube_l1_reuse_setting where it applies)"),
      llvm::cl::init(false)};

  void runOnOperation() override {
    getOperation()->walk([&](KernelOp kernel) { runOnKernel(kernel); });
  }

  void runOnKernel(KernelOp kernel) {
    const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
    int64_t before = cubeLoadBytes(kernel);
    llvm::SetVector<Block *> blocks = blocksWithTasks(kernel, CoreKind::cube);
    for (Block *block : blocks)
      runOnBlock(kernel, *block, platform);
    int64_t after = cubeLoadBytes(kernel);
    numBytesBefore += before;
    numBytesAfter += after;
    if (report) {
      double saved =
          before ? 100.0 * double(before - after) / double(before) : 0.0;
      emitRemark(kernel.getLoc())
          << "pto-l1-reuse @" << kernel.getSymName()
          << ": GM->L1 bytes per block instance: before " << before
          << ", after " << after << " (saved " << llvm::formatv("{0:F1}", saved)
          << "%)";
    }
  }

  void runOnBlock(KernelOp kernel, Block &block, const PlatformInfo &platform) {
    SmallVector<SmallVector<TaskOp>> groups =
        groupsOf(block, CoreKind::cube,
                 [](TaskOp task) { return !loadsOf(task).empty(); });
    for (auto [groupId, tasks] : llvm::enumerate(groups)) {
      GroupSetting setting = lookupSetting(mergeSetting(kernel, &PassOptionsAttr::getCubeL1ReuseSetting), groupId);
      Location loc = tasks.front().getLoc();
      std::string family = tasks.front().getFamily().str();
      if (!stationary && setting.count && *setting.count <= 1) {
        if (report)
          emitRemark(loc) << "pto-l1-reuse: group " << groupId << " ("
                          << tasks.size() << " x \"" << family
                          << "\"): merge count 1 (cube_l1_reuse_setting), "
                             "not merged";
        continue;
      }

      // Operand-stationary: K chains whose blocks do not fit L1 whole are
      // cut into partial sums first if that shortens the group.
      SmallVector<TaskOp> groupTasks(tasks.begin(), tasks.end());
      unsigned splitParts = 1;
      if (stationary)
        splitParts = chooseSplit(block, groupTasks, platform);
      if (splitParts > 1) {
        SmallVector<TaskOp> later;
        groupTasks = pto::detail::splitKChains(groupTasks, splitParts, later);
        sinkLaterParts(block, groupTasks, later);
      }

      // Task infos against the block as it is now.
      ValueNumbering vn;
      SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, groupTasks);
      GroupPlanner planner(vn, block, infos, platform.l1Bytes);

      // Operand-stationary rectangles replace the setting's count where
      // they shorten the group (docs/TileGraph.md).
      std::optional<pto::detail::StationaryPlan> stationaryPlan;
      if (stationary)
        if (auto problem = stationaryProblem(infos, platform))
          stationaryPlan = pto::detail::planStationary(*problem);
      if (!stationaryPlan && setting.count && *setting.count <= 1) {
        if (report)
          emitRemark(loc) << "pto-l1-reuse: group " << groupId << " ("
                          << tasks.size() << " x \"" << family
                          << "\"): merge count 1 (cube_l1_reuse_setting), "
                             "not merged, no operand-stationary extent";
        continue;
      }
      // Which copy-ins may be shared: the setting's side; for "auto" and in
      // automatic mode, whichever of both / A only / B only removes the most
      // bytes (in that order on ties).
      SmallVector<unsigned, 3> masks = {sideMaskOf(setting.side)};
      if (!setting.count || setting.side == kSettingAuto)
        masks = {kAllSides, kSideA, kSideB};
      unsigned mask = masks.front();
      Plan chosen;
      int64_t count = 1;
      unsigned minTasks = 1;
      auto consider = [&](Plan p, int64_t n, unsigned m) {
        bool better = p.savedBytes > chosen.savedBytes ||
                      (p.savedBytes == chosen.savedBytes && p.savedBytes > 0 &&
                       n < count);
        if (better) {
          chosen = std::move(p);
          count = n;
          mask = m;
        }
      };
      if (stationaryPlan) {
        count = stationaryPlan->a * stationaryPlan->b;
        mask = kAllSides;
        chosen = planner.plan(count, mask, minTasks, /*requireSharing=*/false,
                              stationaryPlan->slotOf);
      } else if (setting.count) {
        count = *setting.count;
        chosen = planner.plan(count, mask, minTasks);
        for (unsigned m : ArrayRef(masks).drop_front())
          consider(planner.plan(count, m, minTasks), count, m);
      } else {
        // Automatic: the N that removes the most bytes while the group keeps
        // min(size, 2 x cube cores) tasks (every core gets two, so loads
        // overlap compute) and no merged task exceeds one core's share of
        // the group (size / cube cores tasks); the smallest such N.
        int64_t size = groupTasks.size();
        minTasks = std::min<int64_t>(size, 2 * platform.cubeCores);
        int64_t maxCount = std::max<int64_t>(1, size / platform.cubeCores);
        chosen = planner.plan(1, mask, minTasks);
        for (unsigned m : masks)
          for (int64_t n = 2; n <= maxCount; ++n) {
            Plan p = planner.plan(n, m, minTasks);
            bool saturated = p.largest < n; // larger counts plan the same
            consider(std::move(p), n, m);
            if (saturated)
              break;
          }
      }

      unsigned merged = 0, removed = 0;
      int64_t removedBytes = 0;
      for (auto [targetIndex, members] : llvm::enumerate(chosen.targets)) {
        if (members.size() < 2)
          continue;
        Block &body = mergeMembers(infos, members, chosen.hosts[targetIndex]);
        merged += members.size() - 1;
        // Remove duplicate loads: the first identical load stays.
        DenseMap<Operation *, const Load *> loadOf;
        for (unsigned m : members)
          for (const Load &load : infos[m].loads)
            loadOf[load.view] = &load;
        DenseMap<unsigned, ViewOp> first;
        for (Operation &op : llvm::make_early_inc_range(body)) {
          const Load *load = loadOf.lookup(&op);
          if (!load || !(load->sides & mask))
            continue;
          auto [it, inserted] = first.try_emplace(load->feature, load->view);
          if (inserted)
            continue;
          op.getResult(0).replaceAllUsesWith(it->second.getResult());
          removedBytes += load->bytes;
          op.erase();
          ++removed;
        }
        // Index arithmetic only the removed copies used.
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
          if (isMemoryEffectFree(&op) && isOpTriviallyDead(&op))
            op.erase();
      }
      numTasksMerged += merged;
      numLoadsRemoved += removed;

      if (report) {
        InFlightDiagnostic diag = emitRemark(loc);
        diag << "pto-l1-reuse: group " << groupId << " (" << tasks.size()
             << " x \"" << family << "\"): merge count " << count;
        StringRef shared = mask == kSideA   ? "A blocks"
                           : mask == kSideB ? "B blocks"
                                            : "A and B blocks";
        if (stationaryPlan && splitParts > 1)
          diag << " (K chains cut in " << splitParts << " partial sums)";
        if (stationaryPlan)
          diag << " (operand-stationary: " << stationaryPlan->a << " A x "
               << stationaryPlan->b << " B blocks per task, largest L1 "
               << "footprint " << stationaryPlan->largestFootprint
               << " B, copy-ins "
               << llvm::formatv("{0:F0}", stationaryPlan->loadCycles)
               << " of " << llvm::formatv("{0:F0}", stationaryPlan->pieceCycles)
               << " compute/store cycles)";
        else if (setting.count)
          diag << " (cube_l1_reuse_setting)";
        else
          diag << " (automatic, keeping >= " << minTasks << " tasks"
               << (count > 1 ? ", sharing " + shared.str() : "") << ")";
        if (StringRef side = sideName(setting.side); !side.empty())
          diag << ", sides " << side;
        if (setting.count && setting.side == kSettingAuto)
          diag << " (" << shared << ")";
        diag << ", " << chosen.tasksAfter << " tasks after, " << removed
             << " loads removed (" << removedBytes << " B)";
      }
    }
    runCubeNBuffer(kernel, block, platform);
  }

  /// The number of K parts to cut the group's chains into (1: none): the
  /// first of 2, 4, 8 at which the cut tasks have an operand-stationary
  /// plan shorter than the whole tasks' best (docs/TileGraph.md).
  unsigned chooseSplit(Block &block, ArrayRef<TaskOp> tasks,
                       const PlatformInfo &platform) {
    ValueNumbering vn;
    SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, tasks);
    std::optional<pto::detail::StationaryProblem> whole =
        stationaryProblem(infos, platform);
    if (!whole)
      return 1;
    double best = pto::detail::stationaryCycles(*whole);
    if (auto plan = pto::detail::planStationary(*whole))
      best = std::min(best, plan->cycles);
    for (unsigned parts : {2u, 4u, 8u}) {
      std::optional<pto::detail::StationaryProblem> cut =
          stationaryProblem(infos, platform, parts);
      if (!cut)
        continue;
      std::optional<pto::detail::StationaryPlan> plan =
          pto::detail::planStationary(*cut);
      if (plan && plan->cycles < best &&
          pto::detail::canSplitKChains(tasks, parts))
        return parts;
    }
    return 1;
  }

  /// After a K split: moves the later parts and the tasks reading what the
  /// group stores below the group's last task, where they do not conflict
  /// with what they pass, so that the first parts (plain stores) can merge
  /// across the pieces in between; then puts `tasks` back in program order.
  void sinkLaterParts(Block &block, SmallVectorImpl<TaskOp> &tasks,
                      ArrayRef<TaskOp> later) {
    llvm::sort(tasks, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
    TaskOp last = tasks.back();
    llvm::DenseSet<Operation *> group;
    for (TaskOp task : tasks)
      group.insert(task);
    llvm::SetVector<Operation *> movable;
    for (TaskOp task : later)
      if (task != last)
        movable.insert(task);
    for (TaskOp task : tasks)
      task.walk([&](Operation *op) {
        if (!isa<AssembleOp, AtomicAddOp>(op))
          return;
        for (Operation *user : op->getOperand(1).getUsers())
          if (Operation *owner = block.findAncestorOpInBlock(*user))
            if (isa<TaskOp>(owner) && !group.contains(owner) &&
                owner->isBeforeInBlock(last) &&
                tasks.front()->isBeforeInBlock(owner))
              movable.insert(owner);
      });
    SmallVector<TaskOp> ordered;
    for (Operation *op : movable)
      ordered.push_back(cast<TaskOp>(op));
    llvm::sort(ordered, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
    sinkBelow(block, ordered, last);
    llvm::sort(tasks, [](TaskOp a, TaskOp b) {
      return a->isBeforeInBlock(b.getOperation());
    });
  }

  /// Moves the tasks `movable` (program order, all before `last`) right
  /// after `last`, keeping their order, each one that does not conflict
  /// with an op it would pass (GM regions; docs/TileGraph.md): so that the
  /// cut tasks of a group are not kept apart by the readers of their
  /// partial sums. One backward sweep with an index of the passed ops'
  /// accesses (near-linear).
  void sinkBelow(Block &block, ArrayRef<TaskOp> movable, TaskOp last) {
    llvm::DenseSet<Operation *> isMovable;
    for (TaskOp task : movable)
      isMovable.insert(task);
    ValueNumbering vn;
    AccessIndex passed;
    bool any = false;
    SmallVector<Operation *> moving; // reverse program order
    for (Operation *op = last.getOperation(); op; op = op->getPrevNode()) {
      if (op == last.getOperation() || !isMovable.contains(op)) {
        if (isMovable.empty())
          break;
        passed.add(summarize(vn, op));
        any = true;
        continue;
      }
      isMovable.erase(op);
      if (op->getNumResults() == 0 &&
          (!any || !passed.conflicts(summarize(vn, op)))) {
        moving.push_back(op);
      } else {
        passed.add(summarize(vn, op));
        any = true;
      }
    }
    Operation *after = last.getOperation();
    for (Operation *op : llvm::reverse(moving)) {
      op->moveAfter(after);
      after = op;
    }
  }

  /// Phase 2, PyPTO's CubeNBuffer (`cube_nbuffer_setting`, off without a
  /// value): N isomorphic cube tasks of the groups left by phase 1 become
  /// one, sharing nothing, while their copy-ins fit L1 per K step.
  void runCubeNBuffer(KernelOp kernel, Block &block,
                      const PlatformInfo &platform) {
    MergeSettingAttr setting =
        mergeSetting(kernel, &PassOptionsAttr::getCubeNbufferSetting);
    if (!setting)
      return;
    SmallVector<SmallVector<TaskOp>> groups =
        groupsOf(block, CoreKind::cube,
                 [](TaskOp task) { return !loadsOf(task).empty(); });
    for (auto [groupId, tasks] : llvm::enumerate(groups)) {
      std::optional<int64_t> count = setting.getCountFor(groupId);
      if (!count)
        continue;
      TaskOp first = tasks.front();
      Location loc = first.getLoc();
      std::string family = first.getFamily().str();
      unsigned tasksAfter = tasks.size();
      if (*count > 1) {
        ValueNumbering vn;
        SmallVector<TaskInfo, 8> infos = cubeTaskInfos(vn, block, tasks);
        auto [left, merged] =
            mergeUnshared(vn, block, infos, *count, platform.l1Bytes);
        tasksAfter = left;
        numTasksMerged += merged;
      }
      if (report)
        emitRemark(loc) << "pto-l1-reuse: n-buffer group " << groupId << " ("
                        << tasks.size() << " x \"" << family
                        << "\"): merge count " << *count
                        << " (cube_nbuffer_setting), " << tasksAfter
                        << " tasks after";
    }
  }
};

struct NBufferMergePass
    : public pto::impl::NBufferMergePassBase<NBufferMergePass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](KernelOp kernel) { runOnKernel(kernel); });
  }

  void runOnKernel(KernelOp kernel) {
    const PlatformInfo &platform = getPlatformInfo(kernel.getArchOrDefault());
    MergeSettingAttr setting =
        mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting);
    llvm::SetVector<Block *> blocks =
        blocksWithTasks(kernel, CoreKind::vector);
    uint64_t before = 0, after = 0;
    for (Block *block : blocks) {
      SmallVector<SmallVector<TaskOp>> groups =
          groupsOf(*block, CoreKind::vector, [](TaskOp) { return true; });
      for (auto [groupId, tasks] : llvm::enumerate(groups)) {
        before += tasks.size();
        after += mergeGroup(tasks, lookupSetting(setting, groupId).count,
                            groupId, platform);
      }
    }
    numTasksBefore += before;
    numTasksAfter += after;
    if (report && !blocks.empty())
      emitRemark(kernel.getLoc())
          << "pto-nbuffer-merge @" << kernel.getSymName()
          << ": vector tasks per block instance: before " << before
          << ", after " << after;
  }

  /// Merges one group with the setting's count (automatic without one);
  /// returns the number of tasks left.
  unsigned mergeGroup(ArrayRef<TaskOp> tasks, std::optional<int64_t> count,
                      unsigned groupId, const PlatformInfo &platform) {
    TaskOp first = tasks.front();
    Location loc = first.getLoc();
    std::string family = first.getFamily().str();
    Block &block = *first->getBlock();
    // Automatic (PyPTO: "by vector core count"): as many per task as leaves
    // every vector core a task of the group, i.e. floor(size / AIV cores).
    int64_t size = tasks.size();
    int64_t n = count ? *count
                      : std::max<int64_t>(1, size / platform.vectorCores);
    unsigned tasksAfter = tasks.size();
    if (n > 1) {
      // Vector tasks carry no loads: no capacity bound (each member's pieces
      // fit UB on their own, pto-expand-tiles).
      ValueNumbering vn;
      tasksAfter = mergeUnshared(vn, block, taskInfos(block, tasks), n,
                                 std::numeric_limits<int64_t>::max())
                       .first;
    }
    if (report) {
      InFlightDiagnostic diag = emitRemark(loc);
      diag << "pto-nbuffer-merge: group " << groupId << " (" << size
           << " x \"" << family << "\"): merge count " << n;
      if (count)
        diag << " (vec_nbuffer_setting)";
      else
        diag << " (automatic: " << platform.vectorCores << " vector cores)";
      diag << ", " << tasksAfter << " tasks after";
    }
    return tasksAfter;
  }
};

} // namespace
