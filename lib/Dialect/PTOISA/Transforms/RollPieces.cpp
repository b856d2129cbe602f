//===- RollPieces.cpp - repeated piece sequences as scf.for ---------------===//
//
// pto-expand-tiles cuts an op into pieces and pto-lower-to-isa lowers every
// piece into the same instruction sequence, so a leaf is straight-line code
// holding K copies of one group of ops that differ only in scalars (GM
// offsets, valid extents, which leaf argument carries them). This pass finds
// such runs in a block and replaces each by one `scf.for %i = 0 to K` whose
// body is the first group:
//
//   * candidate periods are the distances between consecutive ops of equal
//     signature (name, attributes, result types); for each, one linear scan
//     finds the stretches where op n and op n + period have equal
//     signatures. A stretch is tried at a few phases from its start and from
//     its end, each also one group later (a first piece that loads tiles the
//     others reuse is longer and ends like them). The largest candidate (ops
//     saved) that passes the exact check is rolled, and the search repeats on
//     the block, then on the new loop bodies (a piece grid gives nested
//     loops);
//   * the exact check compares group j with group 0 op by op: the same op
//     (name, attributes, properties, result types), and per operand either
//     the value defined at the same place of its own group, or the same
//     value from before the run, or (scalars only: index, integer, float) a
//     value from before the run that differs per group. No value of the run
//     may be used after it, nor a group's value by a later group, and the
//     tiles the groups read from before the run plus one group's peak must
//     fit each buffer (those stay live across the whole loop);
//   * a scalar that differs per group becomes `c0 + %i * step` when the
//     groups use integer constants in arithmetic progression, otherwise an
//     element of a `tensor.from_elements` built before the loop
//     (`tensor.extract` in the body; the C++ emitter prints a local array);
//   * groups holding L0C accumulators of at most half of L0C are rolled two
//     per iteration (an odd last group stays after the loop; fewer than four
//     stay straight-line): pto-isa-plan-memory then gives the two halves of
//     the body two L0C offsets, and the FIX store of one overlaps the M of
//     the other, also across iterations (ping-pong on the iteration
//     parity). The halves are rolled further each on its own.
//
// Each iteration runs exactly the ops of one group in their order, so the
// instructions, their operands and their order are those of the unrolled
// code. Run before pto-isa-plan-memory (a body tile gets one offset for all
// iterations) and pto-isa-insert-sync (which synchronises the loop, with
// loop-carried flags primed before it and drained after it).
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <map>
#include <set>

namespace mlir::ptoisa {
#define GEN_PASS_DEF_ROLLPIECESPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;

namespace {

/// Candidate periods tried per block: the most frequent distances between
/// equal signatures. Bounds the search at O(ops x kMaxPeriods).
constexpr size_t kMaxPeriods = 48;
/// Phases tried per stretch from its start, and as many from its end.
constexpr size_t kMaxPhases = 4;

/// `count` groups of `period` ops starting at op `start` of the block. A
/// paired run's groups are two of the original groups each (`period` is
/// twice theirs).
struct Run {
  size_t start = 0, period = 0, count = 0;
  bool paired = false;
  size_t saved() const { return count < 2 ? 0 : period * (count - 1); }
};

/// A loop made by the roller; `secondHalf` is the first op of a paired
/// loop's second group in the body.
struct RolledLoop {
  scf::ForOp loop;
  Operation *secondHalf = nullptr;
};

/// Operand `operand` of op `offset` of each group: a scalar from before the
/// run that differs per group (values[j] is group j's).
struct VaryingOperand {
  size_t offset;
  unsigned operand;
  SmallVector<Value> values;
};

static bool isScalar(Type type) {
  return type.isIndex() || isa<IntegerType, FloatType>(type);
}

/// Rolls the ops of `block` strictly between `after` and `before` (null:
/// the block's start, its terminator).
class BlockRoller {
public:
  BlockRoller(Block &block, unsigned minSaved, pto::Arch arch,
              Operation *after = nullptr, Operation *before = nullptr)
      : block(block), minSaved(minSaved), arch(arch),
        l0cBytes(getSpaceCapacity(arch, MemorySpace::l0c)), after(after),
        before(before) {}

  /// Rolls runs until none is left; returns the loops created.
  SmallVector<RolledLoop> run();

private:
  void collect();
  llvm::hash_code signature(Operation *op) const;
  /// Index of the op of the block holding `value`'s definition, or -1 when
  /// it is defined outside the block (or is a block argument).
  int64_t definingIndex(Value value) const;
  /// The largest number of leading groups of `run` (at least 1) that match
  /// group 0; fills `varying` for them.
  size_t matchingGroups(const Run &run,
                        SmallVectorImpl<VaryingOperand> &varying) const;
  bool usedOutside(const Run &run) const;
  bool worthRolling(const Run &run) const;
  /// Whether a group of `run` holds L0C tiles of at most half of L0C.
  bool holdsHalfL0C(const Run &run) const;
  /// Whether the loop of `run` may fit on chip (see the definition).
  bool fitsOnChip(const Run &run) const;
  std::optional<std::pair<Run, SmallVector<VaryingOperand>>> findBest();
  RolledLoop roll(const Run &run, ArrayRef<VaryingOperand> varying);

  Block &block;
  unsigned minSaved;
  pto::Arch arch;
  int64_t l0cBytes;
  Operation *after, *before;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, size_t> index;
  SmallVector<llvm::hash_code> hashes;
};

} // namespace

void BlockRoller::collect() {
  ops.clear();
  index.clear();
  hashes.clear();
  auto it = after ? std::next(after->getIterator()) : block.begin();
  auto end = before ? before->getIterator() : block.without_terminator().end();
  for (Operation &op : llvm::make_range(it, end)) {
    index[&op] = ops.size();
    ops.push_back(&op);
    hashes.push_back(signature(&op));
  }
}

llvm::hash_code BlockRoller::signature(Operation *op) const {
  // Region ops, terminators and ops with successors never repeat.
  if (op->getNumRegions() || op->getNumSuccessors() ||
      op->hasTrait<OpTrait::IsTerminator>())
    return llvm::hash_value(op);
  return OperationEquivalence::computeHash(
      op, OperationEquivalence::ignoreHashValue,
      OperationEquivalence::ignoreHashValue,
      OperationEquivalence::IgnoreLocations);
}

int64_t BlockRoller::definingIndex(Value value) const {
  Operation *def = value.getDefiningOp();
  if (!def)
    return -1;
  auto it = index.find(def);
  return it == index.end() ? -1 : static_cast<int64_t>(it->second);
}

/// Two definitions outside the run that compute the same value: the same
/// side-effect-free op (e.g. a constant or `pto.dim`) on the same operands.
static bool sameComputation(Value a, Value b) {
  Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
  if (!da || !db || da->getNumRegions() || !isMemoryEffectFree(da) ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  return OperationEquivalence::isEquivalentTo(
      da, db, OperationEquivalence::exactValueMatch,
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

static bool sameOp(Operation *a, Operation *b) {
  return a->getName() == b->getName() &&
         a->getRawDictionaryAttrs() == b->getRawDictionaryAttrs() &&
         a->getPropertiesAsAttribute() == b->getPropertiesAsAttribute() &&
         a->getResultTypes() == b->getResultTypes() &&
         a->getNumOperands() == b->getNumOperands() &&
         a->getNumRegions() == 0 && b->getNumRegions() == 0 &&
         a->getNumSuccessors() == 0 && b->getNumSuccessors() == 0;
}

size_t
BlockRoller::matchingGroups(const Run &run,
                            SmallVectorImpl<VaryingOperand> &varying) const {
  const int64_t begin = run.start, end = run.start + run.period * run.count;
  // Varying operands by (offset, operand); values filled per group.
  llvm::MapVector<std::pair<size_t, unsigned>, SmallVector<Value>> slots;
  size_t groups = 1;
  for (; groups < run.count; ++groups) {
    const int64_t base = run.start + groups * run.period;
    SmallVector<std::tuple<size_t, unsigned, Value, Value>> found;
    bool ok = true;
    for (size_t r = 0; ok && r < run.period; ++r) {
      Operation *a = ops[run.start + r], *b = ops[base + r];
      if (!sameOp(a, b)) {
        ok = false;
        break;
      }
      for (unsigned i = 0; i < a->getNumOperands(); ++i) {
        Value va = a->getOperand(i), vb = b->getOperand(i);
        int64_t ia = definingIndex(va), ib = definingIndex(vb);
        bool aInside = ia >= begin && ia < end,
             bInside = ib >= begin && ib < end;
        if (aInside || bInside) {
          // Defined inside the run: at the same place of each one's group.
          if (!aInside || !bInside ||
              ia - begin >= static_cast<int64_t>(run.period) ||
              ib - base != ia - begin ||
              cast<OpResult>(va).getResultNumber() !=
                  cast<OpResult>(vb).getResultNumber()) {
            ok = false;
            break;
          }
          continue;
        }
        if (va == vb || sameComputation(va, vb))
          continue;
        if (!isScalar(va.getType()) || va.getType() != vb.getType()) {
          ok = false;
          break;
        }
        found.emplace_back(r, i, va, vb);
      }
    }
    if (!ok)
      break;
    for (auto [r, i, va, vb] : found) {
      auto &values = slots[{r, i}];
      // A slot first seen in this group was invariant in the earlier ones.
      while (values.size() < groups)
        values.push_back(va);
      values.push_back(vb);
    }
    // Slots seen before but invariant in this group.
    for (auto &[key, values] : slots)
      if (values.size() == groups)
        values.push_back(ops[run.start + key.first]->getOperand(key.second));
  }
  varying.clear();
  for (auto &[key, values] : slots) {
    values.resize(groups);
    varying.push_back({key.first, key.second, values});
  }
  return groups;
}

bool BlockRoller::usedOutside(const Run &run) const {
  size_t begin = run.start, end = run.start + run.period * run.count;
  for (size_t n = begin; n < end; ++n)
    for (Value result : ops[n]->getResults())
      for (Operation *user : result.getUsers()) {
        Operation *anchor = block.findAncestorOpInBlock(*user);
        if (!anchor)
          return true;
        auto it = index.find(anchor);
        if (it == index.end() || it->second < begin || it->second >= end)
          return true;
      }
  return false;
}

bool BlockRoller::worthRolling(const Run &run) const {
  if (run.count < 2 || run.saved() < minSaved)
    return false;
  // Only groups that hold instructions: index arithmetic alone stays.
  for (size_t r = 0; r < run.period; ++r)
    if (isa_and_nonnull<PTOISADialect>(ops[run.start + r]->getDialect()))
      return true;
  return false;
}

bool BlockRoller::fitsOnChip(const Run &run) const {
  // A tile the body reads from before the run is live across the whole
  // loop: pto-isa-plan-memory cannot drop and reload it between iterations
  // as it may in straight-line code (ReloadSplit). Those bytes plus the
  // peak of the body's own tiles (first to last use in group 0; one ending
  // where another starts may give it its bytes) are a lower
  // bound of what the loop needs per space; a run past a capacity stays
  // straight-line.
  const size_t begin = run.start, end = run.start + run.period;
  std::map<MemorySpace, int64_t> outer;
  std::map<MemorySpace, std::vector<std::pair<size_t, int64_t>>> events;
  DenseSet<Value> seenOuter;
  DenseMap<Value, std::pair<size_t, size_t>> bodyUses;
  for (size_t n = begin; n < end; ++n)
    for (Value operand : ops[n]->getOperands()) {
      auto alloc = operand.getDefiningOp<AllocTileOp>();
      if (!alloc)
        continue;
      int64_t def = definingIndex(operand);
      if (def >= static_cast<int64_t>(begin) && def < static_cast<int64_t>(end))
        bodyUses.try_emplace(operand, n, n).first->second.second = n;
      else if (seenOuter.insert(operand).second)
        outer[alloc.getTileType().getSpace()] +=
            alloc.getTileType().getByteSize();
    }
  for (auto &[value, uses] : bodyUses) {
    auto type = value.getDefiningOp<AllocTileOp>().getTileType();
    auto &list = events[type.getSpace()];
    list.push_back({2 * uses.first + 1, type.getByteSize()});
    list.push_back({2 * uses.second + 1, -type.getByteSize()});
  }
  std::set<MemorySpace> spaces;
  for (auto &[space, bytes] : outer)
    spaces.insert(space);
  for (auto &[space, list] : events)
    spaces.insert(space);
  for (MemorySpace space : spaces) {
    int64_t live = 0, peak = 0;
    auto &list = events[space];
    llvm::sort(list);
    for (auto [point, delta] : list)
      peak = std::max(peak, live += delta);
    if (outer[space] + peak > getSpaceCapacity(arch, space))
      return false;
  }
  return true;
}

bool BlockRoller::holdsHalfL0C(const Run &run) const {
  int64_t bytes = 0;
  for (size_t r = 0; r < run.period; ++r)
    if (auto alloc = dyn_cast<AllocTileOp>(ops[run.start + r]))
      if (alloc.getTileType().getSpace() == MemorySpace::l0c)
        bytes += alloc.getTileType().getByteSize();
  return bytes > 0 && 2 * bytes <= l0cBytes;
}

std::optional<std::pair<Run, SmallVector<VaryingOperand>>>
BlockRoller::findBest() {
  collect();
  size_t n = ops.size();
  if (n < 2)
    return std::nullopt;
  // Distances between consecutive ops of equal signature.
  DenseMap<unsigned, size_t> lastSeen;
  DenseMap<size_t, size_t> distanceCount;
  for (size_t i = 0; i < n; ++i) {
    unsigned key = static_cast<unsigned>(static_cast<size_t>(hashes[i]));
    auto [it, inserted] = lastSeen.try_emplace(key, i);
    if (!inserted) {
      if (hashes[it->second] == hashes[i])
        ++distanceCount[i - it->second];
      it->second = i;
    }
  }
  SmallVector<std::pair<size_t, size_t>> periods(distanceCount.begin(),
                                                 distanceCount.end());
  llvm::sort(periods, [](auto a, auto b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (periods.size() > kMaxPeriods)
    periods.resize(kMaxPeriods);

  // Stretches per period: [a, b) with hashes[i] == hashes[i + p].
  SmallVector<Run> candidates;
  for (auto [p, count] : periods) {
    if (count < 1 || p * 2 > n)
      continue;
    size_t i = 0;
    while (i + p < n) {
      if (hashes[i] != hashes[i + p]) {
        ++i;
        continue;
      }
      size_t a = i;
      while (i + p < n && hashes[i] == hashes[i + p])
        ++i;
      size_t length = i - a; // matching positions
      if (length < p)
        continue;
      // Phases from the stretch's start and phases whose last group ends
      // where the stretch does, each also one group later. A first piece
      // that loads tiles the later ones reuse is longer than they are but
      // may end like them, so the stretch starts inside it or one period
      // before the second piece: the groups begin at the end phase or one
      // group after the stretch's start.
      auto add = [&, period = p](size_t phase) {
        for (size_t start : {phase, phase + period})
          if (start + period <= length)
            candidates.push_back(
                {a + start, period, (length - start) / period + 1});
      };
      size_t endPhase = length % p;
      for (size_t k = 0; k < kMaxPhases && k < p; ++k) {
        add(k);
        size_t fromEnd = (endPhase + p - k) % p;
        if (fromEnd >= kMaxPhases)
          add(fromEnd);
      }
    }
  }
  llvm::stable_sort(candidates, [](const Run &a, const Run &b) {
    return a.saved() > b.saved();
  });

  std::optional<std::pair<Run, SmallVector<VaryingOperand>>> best;
  for (const Run &candidate : candidates) {
    if (best && candidate.saved() <= best->first.saved())
      break; // sorted: no later candidate saves more
    Run run = candidate;
    SmallVector<VaryingOperand> varying;
    run.count = matchingGroups(run, varying);
    // Values leaving the run: drop trailing groups until none does.
    while (run.count >= 2 && usedOutside(run)) {
      --run.count;
      matchingGroups(run, varying);
    }
    if (!worthRolling(run) || usedOutside(run) || !fitsOnChip(run))
      continue;
    // Two groups per iteration where both accumulators fit L0C at once (a
    // loop of one accumulator would reuse its bytes every iteration).
    if (holdsHalfL0C(run)) {
      if (run.count < 4)
        continue;
      Run paired{run.start, 2 * run.period, run.count / 2, /*paired=*/true};
      if (matchingGroups(paired, varying) != paired.count ||
          !worthRolling(paired) || usedOutside(paired) || !fitsOnChip(paired))
        continue;
      run = paired;
    }
    if (!best || run.saved() > best->first.saved())
      best = std::make_pair(run, std::move(varying));
  }
  return best;
}

/// `values` as integer constants in arithmetic progression: (first, step).
static std::optional<std::pair<APInt, APInt>>
progression(ArrayRef<Value> values) {
  SmallVector<APInt> ints;
  for (Value v : values) {
    APInt c;
    auto constant = v.getDefiningOp<arith::ConstantOp>();
    auto attr = constant ? dyn_cast<IntegerAttr>(constant.getValue()) : nullptr;
    if (!attr)
      return std::nullopt;
    ints.push_back(attr.getValue());
  }
  APInt step = ints[1] - ints[0];
  for (size_t j = 2; j < ints.size(); ++j)
    if (ints[j] - ints[j - 1] != step)
      return std::nullopt;
  return std::make_pair(ints[0], step);
}

RolledLoop BlockRoller::roll(const Run &run, ArrayRef<VaryingOperand> varying) {
  Operation *first = ops[run.start];
  Location loc = first->getLoc();
  OpBuilder b(first);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, run.count);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);

  // Per distinct value list: how the body gets it.
  struct Source {
    std::optional<std::pair<APInt, APInt>> affine;
    Value table; // tensor.from_elements
    Value base, stride;
  };
  std::map<SmallVector<Value>, Source,
           bool (*)(const SmallVector<Value> &, const SmallVector<Value> &)>
      sources([](const SmallVector<Value> &x, const SmallVector<Value> &y) {
        return std::lexicographical_compare(
            x.begin(), x.end(), y.begin(), y.end(), [](Value p, Value q) {
              return p.getAsOpaquePointer() < q.getAsOpaquePointer();
            });
      });
  for (const VaryingOperand &v : varying) {
    auto [it, inserted] = sources.try_emplace(v.values);
    if (!inserted)
      continue;
    Source &source = it->second;
    Type type = v.values.front().getType();
    source.affine = type.isIntOrIndex() ? progression(v.values) : std::nullopt;
    if (source.affine) {
      source.base = arith::ConstantOp::create(
          b, loc, type, b.getIntegerAttr(type, source.affine->first));
      source.stride = arith::ConstantOp::create(
          b, loc, type, b.getIntegerAttr(type, source.affine->second));
    } else {
      source.table = tensor::FromElementsOp::create(
          b, loc,
          RankedTensorType::get({static_cast<int64_t>(run.count)}, type),
          v.values);
    }
  }

  auto loop = scf::ForOp::create(b, loc, lower, upper, step);
  b.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  DenseMap<const SmallVector<Value> *, Value> bodyValue;
  auto valueFor = [&](const VaryingOperand &v) -> Value {
    auto it = sources.find(v.values);
    Source &source = it->second;
    auto cached = bodyValue.find(&it->first);
    if (cached != bodyValue.end())
      return cached->second;
    Value result;
    if (source.affine) {
      Type type = source.base.getType();
      Value i =
          type.isIndex() ? iv : arith::IndexCastOp::create(b, loc, type, iv);
      // Folded where the base is 0 or the step 1.
      Value scaled = b.createOrFold<arith::MulIOp>(loc, i, source.stride);
      result = b.createOrFold<arith::AddIOp>(loc, source.base, scaled);
    } else {
      result = tensor::ExtractOp::create(b, loc, source.table, ValueRange{iv});
    }
    bodyValue[&it->first] = result;
    return result;
  };
  // Materialise every varying value at the top of the body.
  DenseMap<std::pair<size_t, unsigned>, Value> operandValue;
  for (const VaryingOperand &v : varying)
    operandValue[{v.offset, v.operand}] = valueFor(v);

  IRMapping mapping;
  Operation *secondHalf = nullptr;
  for (size_t r = 0; r < run.period; ++r) {
    Operation *clone = b.clone(*ops[run.start + r], mapping);
    if (run.paired && r == run.period / 2)
      secondHalf = clone;
    for (unsigned i = 0; i < clone->getNumOperands(); ++i) {
      auto it = operandValue.find({r, i});
      if (it != operandValue.end())
        clone->setOperand(i, it->second);
    }
  }
  for (size_t n = run.start + run.period * run.count; n-- > run.start;)
    ops[n]->erase();
  for (auto &[values, source] : sources)
    for (Value constant : {source.base, source.stride})
      if (constant && constant.use_empty())
        constant.getDefiningOp()->erase();
  return {loop, secondHalf};
}

SmallVector<RolledLoop> BlockRoller::run() {
  SmallVector<RolledLoop> loops;
  while (auto best = findBest())
    loops.push_back(roll(best->first, best->second));
  return loops;
}

/// Rolls the range of `block` between `after` and `before`, then the new
/// loop bodies: a paired body as its two halves, each on its own, so that no
/// loop joins them again.
static void rollRange(Block &block, unsigned minSaved, pto::Arch arch,
                      Operation *after, Operation *before) {
  for (RolledLoop rolled :
       BlockRoller(block, minSaved, arch, after, before).run()) {
    Block &body = *rolled.loop.getBody();
    if (!rolled.secondHalf) {
      rollRange(body, minSaved, arch, nullptr, nullptr);
      continue;
    }
    rollRange(body, minSaved, arch, nullptr, rolled.secondHalf);
    rollRange(body, minSaved, arch, rolled.secondHalf->getPrevNode(), nullptr);
  }
}

namespace {
struct RollPiecesPass
    : public ptoisa::impl::RollPiecesPassBase<RollPiecesPass> {
  using RollPiecesPassBase::RollPiecesPassBase;
  void runOnOperation() override {
    getOperation()->walk<WalkOrder::PreOrder>([&](FunctionOpInterface func) {
      bool holdsInstructions = false;
      func->walk([&](Operation *op) {
        if (isa_and_nonnull<PTOISADialect>(op->getDialect()))
          holdsInstructions = true;
      });
      if (!holdsInstructions || func.isExternal())
        return WalkResult::skip();
      // A MIX leaf stays straight-line: pto-isa-split-mix gives each
      // L0C -> UB move its own UB tile and intra-block flag, which a loop
      // body would reuse across iterations.
      if (auto kind = func->getAttrOfType<pto::CoreKindAttr>("pto.leaf");
          kind && kind.getValue() == pto::CoreKind::mix)
        return WalkResult::skip();
      pto::Arch arch = pto::getArchFor(func);
      for (Block &block : func.getFunctionBody())
        rollRange(block, minSavedOps, arch, nullptr, nullptr);
      return WalkResult::skip();
    });
  }
};
} // namespace
