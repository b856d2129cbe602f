//===- TaskMergeSupport.h - groups, accesses and the merge planner -*- C++
//-*-===//
//
// What pto-l1-reuse (L1Reuse.cpp) and pto-nbuffer-merge (NBufferMerge.cpp)
// share (docs/TileGraph.md): value numbering of index expressions, GM
// access conflicts (GMAccessAnalysis, atomics ordered), the loads of cube
// tasks, isomorphism groups and the greedy planner that merges the tasks of
// one group.
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

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H

#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace mlir::pto::taskmerge {

/// Hashes an interning key (value numbering, load features, signatures).
struct KeyHash {
  size_t operator()(const std::vector<uintptr_t> &key) const {
    return llvm::hash_combine_range(key.begin(), key.end());
  }
};
/// Numbers keys by first insertion: hashed, since the numbers come from
/// insertion order and the table is never iterated.
template <typename T>
using KeyTable = std::unordered_map<std::vector<uintptr_t>, T, KeyHash>;

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

private:
  unsigned intern(std::vector<uintptr_t> key) {
    auto [it, inserted] = table.try_emplace(std::move(key), table.size() + 1);
    return it->second;
  }

  DenseMap<Value, unsigned> memo;
  KeyTable<unsigned> table;
};

/// `statics` with kDynamic entries taken from `dynamic`, numbered.
void appendMixed(ValueNumbering &vn, ArrayRef<int64_t> statics,
                 ValueRange dynamic, std::vector<uintptr_t> &key);

//===----------------------------------------------------------------------===//
// GM accesses and dependencies
//===----------------------------------------------------------------------===//

/// The GM accesses of `root` for moving tasks past each other:
/// GMAccessAnalysis's, with atomic updates ordered like plain writes
/// (reordering two of them would change the rounding of the sum they build).
GMAccessSummary summarize(GMAccessAnalysis &gm, Operation *root);

/// Whether two ops with these summaries may not trade places.
inline bool conflict(const GMAccessSummary &a, const GMAccessSummary &b) {
  return GMAccessAnalysis::dependsOn(a, b);
}

/// The GM accesses of one block's ops, shared by the planners of all its
/// groups: one analysis, so that each offset is normalised once per block
/// rather than once per group, and each op summarized (`summarize`) once
/// until its body changes. Whoever changes a body calls `invalidate` (or,
/// before rewriting ops in it, `forgetBody`), whoever erases an op erases it
/// through `erase`; new ops are summarized when first asked. Other rewrites of
/// the block (ops erased elsewhere) need a fresh BlockAccesses.
class BlockAccesses {
public:
  explicit BlockAccesses(Block &block) : gm(block.getParentOp()) {}

  /// The summary of `op`: valid until `op` is invalidated or erased.
  const GMAccessSummary &summary(Operation *op) {
    std::unique_ptr<GMAccessSummary> &slot = summaries[op];
    if (!slot)
      slot = std::make_unique<GMAccessSummary>(summarize(gm, op));
    return *slot;
  }
  /// `op`'s body changed: its summary is computed again when next asked.
  void invalidate(Operation *op) { summaries.erase(op); }
  /// Forgets what is known about `op` and its nested ops, before they are
  /// rewritten in place or erased (a later op or value at the same address
  /// must not find them).
  void forgetBody(Operation *op) {
    op->walk([&](Operation *nested) { summaries.erase(nested); });
    gm.forget(op);
  }
  /// Erases `op`, forgetting what is known about it and its nested ops.
  void erase(Operation *op) {
    forgetBody(op);
    op->erase();
  }

private:
  GMAccessAnalysis gm;
  DenseMap<Operation *, std::unique_ptr<GMAccessSummary>> summaries;
};

/// The GM accesses of a growing set of ops (a merge target), indexed so
/// that whether an op conflicts with any of them costs no scan of them all
/// (GMAccessIndex).
class AccessIndex {
public:
  void add(const GMAccessSummary &summary) { index.insert(size++, summary); }
  /// Whether an op with `summary` conflicts with an op added.
  bool conflicts(const GMAccessSummary &summary) const {
    return index.dependsOnAny(summary);
  }

private:
  GMAccessIndex index;
  unsigned size = 0;
};

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

bool isLoad(Operation *op);

/// The loads of a task, in program order.
SmallVector<ViewOp> loadsOf(TaskOp task);

int64_t kStep(Operation *op, DenseMap<Operation *, int64_t> &memo);

void classifyUses(Value value, Load &load,
                  DenseMap<Operation *, int64_t> &stepMemo);

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
  KeyTable<unsigned> table;
};

/// A structural signature of a task: equal signatures mean isomorphic bodies
/// (op names, attributes other than static offsets and valid extents, types,
/// use-def structure inside the task; captured values by type only; index
/// constants by type only).
std::vector<uintptr_t> signature(TaskOp task);

//===----------------------------------------------------------------------===//
// The greedy merge of one group
//===----------------------------------------------------------------------===//

struct TaskInfo {
  TaskOp task;
  unsigned node; // position among the block's ops, from the group's first
  SmallVector<Load, 4> loads;
  int64_t lastCapture = -1; // latest block op defining a value it uses
};

/// Per-K-step distinct loads of a (merged) task: step -> key -> bytes.
using Footprint = std::map<int64_t, std::map<uint64_t, int64_t>>;

int64_t footprintBytes(const Footprint &fp);
/// footprintBytes of `base` with `added`'s entries laid over it, without
/// building the merged footprint (the planner asks this of every target it
/// considers for a task).
int64_t mergedFootprintBytes(const Footprint &base, const Footprint &added);

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
  /// Plans `group` (of `accesses`' block, which must not change while the
  /// planner is in use).
  GroupPlanner(BlockAccesses &accesses, ArrayRef<TaskInfo> group,
               int64_t l1Bytes)
      : accesses(accesses), group(group), l1Bytes(l1Bytes) {
    // The ops from the group's first task to its last, numbered as
    // `taskInfos` numbers them (from the earliest task): only units between
    // two members are ever compared.
    unsigned last = 0;
    Operation *first = nullptr;
    for (const TaskInfo &info : group) {
      last = std::max(last, info.node);
      if (info.node == 0)
        first = info.task;
    }
    for (Operation *op = first; op && nodes.size() <= last;
         op = op->getNextNode())
      nodes.push_back(op);
    summaries.assign(nodes.size(), nullptr);
    accessIds.resize(nodes.size());
    byBase.resize(nodes.size());
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
    // A target that a later unit conflicts with can no longer move down to a
    // task past that unit (units only ever move down, except the task being
    // placed, which moves up): it is *up-only*, kept apart from the classes
    // above and checked from the task backwards, where a conflicting unit
    // ends the search (no task may move up across it). Once every later task
    // captures a value defined at or after it, no task can move up to it
    // either and it is dropped. Without this, targets that refuse every task
    // are checked again per task (quadratic when all tasks conflict).
    // `laterCapture[gi]`: the earliest last capture of group[gi..].
    std::vector<int64_t> laterCapture;
    if (firstFit) {
      laterCapture.assign(group.size() + 1,
                          std::numeric_limits<int64_t>::max());
      for (unsigned gi = group.size(); gi-- > 0;)
        laterCapture[gi] =
            std::min(laterCapture[gi + 1], group[gi].lastCapture);
    }
    std::set<unsigned> upOnly; // positions of open up-only targets
    auto open = [&](unsigned pos, Target &target) {
      if (!firstFit || static_cast<int64_t>(target.members.size()) >= n)
        return;
      target.conflictClass = conflictClassOf(units[pos]);
      openByClass[target.conflictClass].insert(pos);
    };
    auto close = [&](unsigned pos, Target &target) {
      if (!firstFit)
        return;
      upOnly.erase(pos);
      auto it = openByClass.find(target.conflictClass);
      if (it == openByClass.end())
        return;
      it->second.erase(pos);
      if (it->second.empty())
        openByClass.erase(it);
    };
    // Made up-only after the task is placed (the cursors below iterate the
    // open sets): the targets of classes that conflict with the task, before
    // the task's unit, and the targets found blocked by a unit between them
    // and the task.
    SmallVector<unsigned> conflicting;
    SmallVector<unsigned> blocked;
    auto demote = [&](unsigned gi, unsigned pos) {
      if (static_cast<int64_t>(pos) > laterCapture[gi + 1])
        upOnly.insert(pos);
    };
    auto closeBlocked = [&](unsigned gi, unsigned placedAt) {
      if (!firstFit)
        return;
      for (unsigned conflictClass : conflicting) {
        auto it = openByClass.find(conflictClass);
        if (it == openByClass.end())
          continue;
        std::set<unsigned> &positions = it->second;
        auto end = positions.lower_bound(placedAt);
        for (auto p = positions.begin(); p != end; ++p)
          demote(gi, *p);
        positions.erase(positions.begin(), end);
        if (positions.empty())
          openByClass.erase(it);
      }
      for (unsigned pos : blocked) {
        auto target = targets.find(pos);
        if (target == targets.end())
          continue;
        auto it = openByClass.find(target->second.conflictClass);
        if (it == openByClass.end() || !it->second.erase(pos))
          continue; // full, or already up-only
        if (it->second.empty())
          openByClass.erase(it);
        demote(gi, pos);
      }
      int64_t captured = laterCapture[gi + 1];
      if (captured >= std::numeric_limits<unsigned>::max())
        upOnly.clear();
      else if (captured >= 0)
        upOnly.erase(upOnly.begin(),
                     upOnly.upper_bound(static_cast<unsigned>(captured)));
      conflicting.clear();
      blocked.clear();
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
        // A slot's rectangle was checked against L1 in its members' order,
        // where a streamed block is live during its run only
        // (OperandStationary.h); all of them at once may not fit.
        if (!bySlot &&
            mergedFootprintBytes(target.footprint, mine.footprint) > l1Bytes)
          return;
        // The target moves down to the task; failing that, the task moves up
        // to the target.
        bool movesUp = false;
        if (firstFit ? target.accesses.conflicts(summary(here))
                     : conflictsWith(units[pos], units[here]))
          return;
        if (conflictsBetween(units[pos], pos, here, units)) {
          if (firstFit)
            blocked.push_back(pos);
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
                  ->second.accesses.conflicts(summary(here))) {
            conflicting.push_back(conflictClass);
            continue;
          }
          cursors.push_back({0, positions.begin()});
          classes.push_back(&positions);
          next.push({*positions.begin(), cursors.size() - 1});
        }
        // The up-only targets the task may move up to: back from the task
        // to the first unit it conflicts with, or to its last capture.
        std::set<unsigned> upCandidates;
        if (!upOnly.empty()) {
          int64_t lowest =
              std::max<int64_t>(*upOnly.begin(), info.lastCapture + 1);
          for (int64_t k = static_cast<int64_t>(here) - 1; k >= lowest; --k) {
            auto target = targets.find(k);
            if (target != targets.end()
                    ? target->second.accesses.conflicts(summary(here))
                    : conflictsWith(units[k], units[here]))
              break;
            if (upOnly.count(k))
              upCandidates.insert(k);
          }
        }
        if (!upCandidates.empty()) {
          cursors.push_back({0, upCandidates.begin()});
          classes.push_back(&upCandidates);
          next.push({*upCandidates.begin(), cursors.size() - 1});
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
        // The task's accesses are filed where it ends up: here, or in the
        // target it joins (below).
        if (firstFit)
          mine.accesses.add(summary(here));
        auto [it, inserted] = targets.emplace(here, std::move(mine));
        open(here, it->second);
        if (bySlot)
          openBySlot[slots[gi]] = here;
        closeBlocked(gi, here);
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
      closeBlocked(gi, to);
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
  const GMAccessSummary &summary(unsigned node) {
    const GMAccessSummary *&known = summaries[node];
    if (!known)
      known = &accesses.summary(nodes[node]);
    return *known;
  }

  bool conflicts(unsigned a, unsigned b) {
    auto key = std::make_pair(std::min(a, b), std::max(a, b));
    if (auto it = conflictMemo.find(key); it != conflictMemo.end())
      return it->second;
    const AccessesByBase &ba = accessesByBase(a), &bb = accessesByBase(b);
    bool c = ba.anything || bb.anything
                 ? conflict(summary(a), summary(b))
                 : sameBaseConflict(summary(a), ba, summary(b), bb);
    conflictMemo[key] = c;
    return c;
  }

  /// A node's GM accesses sorted by base, unless it has unknown effects or
  /// an access of untraced storage (`anything`: compared the plain way).
  struct AccessesByBase {
    struct Entry {
      const void *base;
      bool read; // a plain read: never ordered against another
      unsigned index;
    };
    // By base, then the accesses that are not plain reads first.
    SmallVector<Entry, 8> entries;
    bool anything = false;
  };
  const AccessesByBase &accessesByBase(unsigned node) {
    std::optional<AccessesByBase> &sorted = byBase[node];
    if (sorted)
      return *sorted;
    sorted.emplace();
    const GMAccessSummary &s = summary(node);
    sorted->anything = s.unknown;
    for (auto [i, access] : llvm::enumerate(s.accesses)) {
      if (!access.storage)
        sorted->anything = true;
      sorted->entries.push_back({access.base.getAsOpaquePointer(),
                                 access.kind == GMAccess::kRead,
                                 static_cast<unsigned>(i)});
    }
    std::stable_sort(sorted->entries.begin(), sorted->entries.end(),
                     [](const auto &x, const auto &y) {
                       if (x.base != y.base)
                         return std::less<const void *>()(x.base, y.base);
                       return x.read < y.read;
                     });
    return *sorted;
  }
  /// GMAccessAnalysis::dependsOn(a, b) for summaries of known storages
  /// only: accesses of distinct storages never overlap, so only those of a
  /// common base are compared, pair by pair, but for pairs of plain reads
  /// (never ordered: GMAccessAnalysis::mustOrder).
  static bool sameBaseConflict(const GMAccessSummary &a,
                               const AccessesByBase &ba,
                               const GMAccessSummary &b,
                               const AccessesByBase &bb) {
    std::less<const void *> before;
    auto x = ba.entries.begin(), y = bb.entries.begin();
    while (x != ba.entries.end() && y != bb.entries.end()) {
      if (before(x->base, y->base)) {
        ++x;
        continue;
      }
      if (before(y->base, x->base)) {
        ++y;
        continue;
      }
      const void *base = x->base;
      auto xEnd = x, yEnd = y;
      while (xEnd != ba.entries.end() && xEnd->base == base)
        ++xEnd;
      while (yEnd != bb.entries.end() && yEnd->base == base)
        ++yEnd;
      for (auto i = x; i != xEnd; ++i)
        for (auto j = y; j != yEnd; ++j) {
          // The rest of `b`'s accesses of the base are plain reads too.
          if (i->read && j->read)
            break;
          const GMAccess &p = a.accesses[i->index], &q = b.accesses[j->index];
          if (GMAccessAnalysis::mustOrder(p.kind, q.kind) &&
              GMAccessAnalysis::mayOverlap(p, q))
            return true;
        }
      x = xEnd;
      y = yEnd;
    }
    return false;
  }

  /// A number equal for units whose GM accesses (and barrier) are the same
  /// sets, which therefore conflict with the same units; a fresh number for
  /// units with many accesses (not worth comparing).
  unsigned conflictClassOf(ArrayRef<unsigned> unit) {
    constexpr size_t kMaxAccesses = 64;
    ClassKey key;
    for (unsigned node : unit) {
      key.first |= summary(node).unknown;
      ArrayRef<unsigned> ids = accessIdsOf(node);
      if (key.second.size() + ids.size() > kMaxAccesses)
        return (1u << 31) + uniqueClasses++;
      key.second.append(ids.begin(), ids.end());
    }
    llvm::sort(key.second);
    key.second.erase(std::unique(key.second.begin(), key.second.end()),
                     key.second.end());
    return classes.try_emplace(std::move(key), classes.size() + 1)
        .first->second;
  }

  /// Per GM access of `node`'s summary, a number equal for accesses with
  /// equal compared values (base, tensor, kind, per dim unknown / symbolic /
  /// lo / size): a target's class is then a set of numbers, not of tuples
  /// rebuilt each time the target grows.
  ArrayRef<unsigned> accessIdsOf(unsigned node) {
    std::optional<SmallVector<unsigned, 4>> &ids = accessIds[node];
    if (ids)
      return *ids;
    ids.emplace();
    for (const GMAccess &a : summary(node).accesses) {
      AccessKey access{a.base.getAsOpaquePointer(),
                       a.tensor.getAsOpaquePointer(),
                       a.kind,
                       {}};
      for (const GMAccess::Range &d : a.dims)
        std::get<3>(access).emplace_back(
            d.unknown, d.symbolic.getAsOpaquePointer(), d.lo, d.size);
      ids->push_back(
          accessKeys.try_emplace(std::move(access), accessKeys.size())
              .first->second);
    }
    return *ids;
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

  BlockAccesses &accesses;
  ArrayRef<TaskInfo> group;
  int64_t l1Bytes;
  std::vector<Operation *> nodes;
  // Only the units compared are summarized (by the block's BlockAccesses):
  // per node, once looked up.
  std::vector<const GMAccessSummary *> summaries;
  std::vector<std::optional<AccessesByBase>> byBase;
  DenseMap<std::pair<unsigned, unsigned>, bool> conflictMemo;
  // A GM access as compared values (base, tensor, kind, per dim unknown /
  // symbolic / lo / size), numbered; per node, its accesses' numbers.
  using AccessKey =
      std::tuple<const void *, const void *, unsigned,
                 std::vector<std::tuple<bool, const void *, int64_t, int64_t>>>;
  std::map<AccessKey, unsigned> accessKeys;
  std::vector<std::optional<SmallVector<unsigned, 4>>> accessIds;
  // A unit's access numbers, sorted and unique, and whether it has unknown
  // effects.
  using ClassKey = std::pair<bool, SmallVector<unsigned, 8>>;
  std::map<ClassKey, unsigned> classes;
  unsigned uniqueClasses = 0;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

int64_t loadBytes(ViewOp view);

int64_t cubeLoadBytes(Operation *root);

struct GroupSetting {
  std::optional<int64_t> count; // nullopt: automatic
  int64_t side = kSettingNoSide;
};

/// One merge setting of the kernel's pass_options (null without one), e.g.
/// `mergeSetting(kernel, &PassOptionsAttr::getVecNbufferSetting)`.
MergeSettingAttr mergeSetting(KernelOp kernel,
                              MergeSettingAttr (PassOptionsAttr::*get)() const);

/// The setting's value for group `group`: its key, else key -1; none (the
/// automatic choice) without a setting or either key.
GroupSetting lookupSetting(MergeSettingAttr setting, int64_t group);

unsigned sideMaskOf(int64_t side);

StringRef sideName(int64_t side);

/// The blocks holding tasks of `kind`, in walk order.
llvm::SetVector<Block *> blocksWithTasks(KernelOp kernel, CoreKind kind);

/// The block's tasks of `kind` that `filter` accepts, by isomorphism group
/// in order of first appearance.
SmallVector<SmallVector<TaskOp>> groupsOf(Block &block, CoreKind kind,
                                          function_ref<bool(TaskOp)> filter);

/// Positions and latest captured block value of `tasks` (loads not filled).
SmallVector<TaskInfo, 8> taskInfos(Block &block, ArrayRef<TaskOp> tasks);

/// `taskInfos` with each cube task's loads (feature, bytes, sides, K steps).
SmallVector<TaskInfo, 8> cubeTaskInfos(ValueNumbering &vn, Block &block,
                                       ArrayRef<TaskOp> tasks);

/// Moves the bodies of a plan target's members into its host task, in
/// program order, and erases the other members (through `accesses`, which
/// forgets the host's summary too); returns the merged body.
Block &mergeMembers(BlockAccesses &accesses, ArrayRef<TaskInfo> infos,
                    ArrayRef<unsigned> members, unsigned hostIndex);

/// N-buffering: merges the group `n` at a time, sharing nothing, while the
/// loads `infos` carry fit `capacity` per K step. Returns the tasks left and
/// the tasks merged into another.
std::pair<unsigned, unsigned> mergeUnshared(BlockAccesses &accesses,
                                            ArrayRef<TaskInfo> infos, int64_t n,
                                            int64_t capacity);

} // namespace mlir::pto::taskmerge

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_TASKMERGESUPPORT_H
