//===- LowerMix.cpp - MIX leaves to pto_isa (DAV_3510) --------------------===//
//
// A MIX leaf (pto-mix-exchange) holds the cube part of its tasks and the
// vector part that reads the cube results. A cube result stored into an
// on-chip exchange (`pto.on_chip` workspace) stays in L0C; each vector view
// of it is a TEXTRACT of the view's window from the accumulator into a UB
// tile of AIV 0 (pto-isa A5 TExtractAccToVec through the fixpipe,
// SingleModeVec0), issued by the AIC. Every other op lowers as in a cube or
// a vector leaf. The moved tiles share a few UB ring slots, reused once the
// AIV has read them; pto-isa-plan-memory places each slot once and
// pto-isa-split-mix separates the two parts and adds the intra-block flags
// (docs/ISA.md, "MIX leaves").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "pto/Support/BoxIndex.h"
#include "pto/Support/UnionFind.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace {

/// The value of an index offset at `launch` (null: the leaf alone):
/// a constant, a leaf argument the launch passes as a constant, or the
/// sum / difference / product of such.
std::optional<int64_t> evaluate(OpFoldResult ofr, LaunchOp launch,
                                unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return c;
  auto value = dyn_cast<Value>(ofr);
  if (!value || depth > 8)
    return std::nullopt;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (!launch || !arg.getOwner()->isEntryBlock() ||
        arg.getArgNumber() >= launch.getArgs().size())
      return std::nullopt;
    APInt c;
    if (matchPattern(launch.getArgs()[arg.getArgNumber()], m_ConstantInt(&c)))
      return c.getSExtValue();
    return std::nullopt;
  }
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<int64_t> a = evaluate(def->getOperand(0), launch, depth + 1);
  std::optional<int64_t> b = evaluate(def->getOperand(1), launch, depth + 1);
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *a + *b;
  if (isa<arith::SubIOp>(def))
    return *a - *b;
  return *a * *b;
}

SmallVector<OpFoldResult> offsetsOf(ViewOp op) {
  return getMixedValues(op.getStaticOffsets(), op.getOffsets(),
                        op.getContext());
}
SmallVector<OpFoldResult> offsetsOf(AssembleOp op) {
  return getMixedValues(op.getStaticOffsets(), op.getOffsets(),
                        op.getContext());
}

/// Where `view`'s window starts in `store`'s piece, dim by dim, at `launch`:
/// none when an offset is unknown there, `false` when the piece does not
/// hold the window.
std::optional<bool> holds(AssembleOp store, ViewOp view, LaunchOp launch) {
  SmallVector<OpFoldResult> at = offsetsOf(view), from = offsetsOf(store);
  ArrayRef<int64_t> shape = view.getResult().getType().getShape();
  ArrayRef<int64_t> piece =
      cast<pto::TileType>(store.getSrc().getType()).getShape();
  if (at.size() != from.size() || shape.size() != piece.size())
    return false;
  for (size_t d = 0; d < at.size(); ++d) {
    int64_t delta;
    if (at[d] == from[d]) {
      delta = 0;
    } else {
      std::optional<int64_t> a = evaluate(at[d], launch),
                             b = evaluate(from[d], launch);
      if (!a || !b)
        return std::nullopt;
      delta = *a - *b;
    }
    if (delta < 0 || delta + shape[d] > piece[d])
      return false;
  }
  return true;
}

/// The offsets of `op` at `launch`, all dims; none if one is unknown there.
template <typename OpT>
std::optional<SmallVector<int64_t, 2>> evaluateAll(OpT op, LaunchOp launch) {
  SmallVector<int64_t, 2> values;
  for (OpFoldResult ofr : offsetsOf(op)) {
    std::optional<int64_t> v = evaluate(ofr, launch);
    if (!v)
      return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

/// The stores of one exchange seen so far, their pieces at the first
/// launch filed in a `BoxIndex`, so that a view checks only the stores whose
/// piece overlaps its window there instead of every store (near-linear
/// pairing). Stores whose offsets are unknown at that launch are only
/// listed: they never hold a window there (the diagnostic scans them).
struct ExchangeStores {
  SmallVector<AssembleOp> all; // program order
  pto::detail::BoxIndex pieces;

  void add(AssembleOp store, LaunchOp launch) {
    all.push_back(store);
    std::optional<SmallVector<int64_t, 2>> at = evaluateAll(store, launch);
    ArrayRef<int64_t> piece =
        cast<pto::TileType>(store.getSrc().getType()).getShape();
    if (at && at->size() == piece.size())
      pieces.insert(all.size() - 1,
                    {SmallVector<int64_t>(at->begin(), at->end()),
                     SmallVector<int64_t>(piece.begin(), piece.end())});
  }

  /// The stores that may hold `view`'s window at `launch` (program order);
  /// all of them when its offsets are unknown there.
  SmallVector<AssembleOp> candidates(ViewOp view, LaunchOp launch) {
    std::optional<SmallVector<int64_t, 2>> at = evaluateAll(view, launch);
    ArrayRef<int64_t> shape = view.getResult().getType().getShape();
    if (!at || at->size() != shape.size())
      return all;
    SmallVector<unsigned> found;
    pieces.forEachOverlap({SmallVector<int64_t>(at->begin(), at->end()),
                           SmallVector<int64_t>(shape.begin(), shape.end())},
                          [&](unsigned i) { found.push_back(i); });
    llvm::sort(found);
    found.erase(llvm::unique(found), found.end());
    SmallVector<AssembleOp> stores;
    for (unsigned i : found)
      stores.push_back(all[i]);
    return stores;
  }
};

bool isExchange(Value tensor, const llvm::SmallDenseSet<unsigned> &onChip,
                Block &entry) {
  auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor));
  return arg && arg.getOwner() == &entry && onChip.contains(arg.getArgNumber());
}

} // namespace

namespace mlir::pto::lower_to_isa {

FailureOr<DenseMap<Operation *, Operation *>>
pairExchangeViews(func::FuncOp leaf,
                  const llvm::SmallDenseSet<unsigned> &onChipArgs,
                  ArrayRef<LaunchOp> launches) {
  DenseMap<Operation *, Operation *> pairing;
  if (onChipArgs.empty() || !leaf.getBody().hasOneBlock())
    return pairing;
  Block &entry = leaf.getBody().front();
  SmallVector<LaunchOp> at(launches);
  if (at.empty())
    at.push_back(LaunchOp()); // the leaf's own constants
  // Stores seen so far, per exchange tensor.
  DenseMap<Value, ExchangeStores> stores;
  for (Operation &op : entry) {
    if (auto store = dyn_cast<AssembleOp>(op);
        store && isExchange(store.getDst(), onChipArgs, entry)) {
      stores[getAliasedTensor(store.getDst())].add(store, at.front());
      continue;
    }
    auto view = dyn_cast<ViewOp>(op);
    if (!view || !isExchange(view.getSource(), onChipArgs, entry))
      continue;
    ExchangeStores &exchange = stores[getAliasedTensor(view.getSource())];
    // The first launch chooses the piece (the last earlier store holding
    // the window, among those whose pieces overlap it); every other launch
    // must agree (one check each).
    AssembleOp chosen;
    for (auto [i, launch] : llvm::enumerate(at)) {
      if (!chosen) {
        bool unknown = false;
        SmallVector<AssembleOp> candidates = exchange.candidates(view, launch);
        for (AssembleOp store : candidates) {
          std::optional<bool> h = holds(store, view, launch);
          unknown |= !h.has_value();
          if (h.value_or(false))
            chosen = store;
        }
        if (!chosen) {
          // The diagnostic says whether an offset was unknown: every store.
          for (AssembleOp store : exchange.all)
            unknown |= !holds(store, view, launch).has_value();
          return view.emitOpError()
                 << "views an on-chip exchange at "
                 << (unknown ? "an offset not known at launch "
                             : "a window that no earlier accumulator of this "
                               "MIX leaf stored at launch ")
                 << i
                 << (unknown ? " (neither a constant there nor the stored "
                               "piece's own offset)"
                             : "")
                 << "; the vector part reads only windows of what its cube "
                    "part left in L0C: compile with mix-exchange=false";
        }
        continue;
      }
      std::optional<bool> h = holds(chosen, view, launch);
      if (!h.value_or(false))
        return view.emitOpError()
               << "views an on-chip exchange whose window lies in a "
                  "different stored piece at launch "
               << i
               << " than at launch 0 (pto-outline shares this leaf between "
                  "tasks with different piece layouts); compile with "
                  "mix-exchange=false";
    }
    pairing[view] = chosen;
  }
  return pairing;
}

} // namespace mlir::pto::lower_to_isa

namespace {

/// A GM access of a vector op: the tensor (leaf value), whether it writes,
/// and its window (offsets, sizes); no offsets: the whole tensor.
struct GMAccess {
  unsigned op;
  Value tensor;
  bool write;
  SmallVector<OpFoldResult> offsets;
  SmallVector<int64_t> sizes;
};

int64_t elementsOf(Operation *op) {
  int64_t most = 1;
  auto count = [&](Type type) {
    if (auto tile = dyn_cast<pto::TileType>(type))
      most = std::max(most, tile.getNumElements());
  };
  for (Type type : op->getOperandTypes())
    count(type);
  for (Type type : op->getResultTypes())
    count(type);
  return most;
}

} // namespace

namespace mlir::pto::lower_to_isa {

DenseMap<Operation *, unsigned>
assignSubblocks(func::FuncOp leaf,
                const llvm::SmallDenseSet<unsigned> &onChipArgs,
                ArrayRef<LaunchOp> launches) {
  DenseMap<Operation *, unsigned> result;
  if (!leaf.getBody().hasOneBlock())
    return result;
  Block &entry = leaf.getBody().front();
  // The vector part: ops on tiles other than the cube's (matmuls, the views
  // loaded only at a matmul, the stores left in L0C).
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> index;
  for (Operation &op : entry) {
    bool touchesTiles =
        llvm::any_of(op.getOperandTypes(), llvm::IsaPred<pto::TileType>) ||
        llvm::any_of(op.getResultTypes(), llvm::IsaPred<pto::TileType>);
    if (!touchesTiles || isa<MatmulOp, MatmulAccOp>(op))
      continue;
    if (auto view = dyn_cast<ViewOp>(op);
        view && !view->use_empty() &&
        llvm::all_of(view->getUsers(), llvm::IsaPred<MatmulOp, MatmulAccOp>))
      continue;
    if (auto store = dyn_cast<AssembleOp>(op);
        store && isExchange(store.getDst(), onChipArgs, entry))
      continue;
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  // The vector ops (by index) that must run on one AIV.
  UnionFind groups(ops.size());
  // Through tiles: a vector op and the vector op defining its operand.
  SmallVector<GMAccess> accesses;
  for (auto [i, op] : llvm::enumerate(ops)) {
    for (Value operand : op->getOperands()) {
      if (!isa<pto::TileType>(operand.getType()))
        continue;
      if (Operation *def = operand.getDefiningOp())
        if (auto it = index.find(def); it != index.end())
          groups.unite(i, it->second);
    }
    // Through GM: the windows each op reads or writes (exchanges are not
    // in GM).
    if (auto view = dyn_cast<ViewOp>(op)) {
      if (!isExchange(view.getSource(), onChipArgs, entry))
        accesses.push_back(
            {static_cast<unsigned>(i), getAliasedTensor(view.getSource()),
             false, offsetsOf(view),
             SmallVector<int64_t>(view.getResult().getType().getShape())});
      continue;
    }
    if (auto store = dyn_cast<AssembleOp>(op)) {
      accesses.push_back(
          {static_cast<unsigned>(i), getAliasedTensor(store.getDst()), true,
           offsetsOf(store),
           SmallVector<int64_t>(
               cast<pto::TileType>(store.getSrc().getType()).getShape())});
      continue;
    }
    // Any other GM operand (atomic_add, index_put, ...): the whole tensor,
    // as a write.
    for (Value operand : op->getOperands())
      if (isa<pto::GMTensorType>(operand.getType()))
        accesses.push_back({static_cast<unsigned>(i),
                            getAliasedTensor(operand),
                            true,
                            {},
                            {}});
  }
  llvm::DenseSet<Value> written;
  for (const GMAccess &access : accesses)
    if (access.write)
      written.insert(access.tensor);
  SmallVector<LaunchOp> at(launches);
  if (at.empty())
    at.push_back(LaunchOp()); // the leaf's own constants
  if (!written.empty()) {
    for (LaunchOp launch : at) {
      // The buffer each tensor is at this launch: two arguments passed the
      // same tensor are one.
      auto bufferOf = [&](Value tensor) -> Value {
        auto arg = dyn_cast<BlockArgument>(tensor);
        if (launch && arg && arg.getOwner() == &entry &&
            arg.getArgNumber() < launch.getArgs().size())
          return launch.getArgs()[arg.getArgNumber()];
        return tensor;
      };
      llvm::DenseSet<Value> writtenBuffers;
      for (Value tensor : written)
        writtenBuffers.insert(bufferOf(tensor));
      // Per buffer: the windows, and the first op accessing it whole.
      DenseMap<Value, pto::detail::BoxIndex> boxes;
      DenseMap<Value, SmallVector<std::pair<unsigned, pto::detail::Box>>>
          writes;
      DenseMap<Value, SmallVector<unsigned>> everyAccess;
      DenseMap<Value, bool> whole;
      for (const GMAccess &access : accesses) {
        Value buffer = bufferOf(access.tensor);
        if (!writtenBuffers.contains(buffer))
          continue;
        everyAccess[buffer].push_back(access.op);
        std::optional<SmallVector<int64_t>> offsets;
        if (!access.offsets.empty() &&
            access.offsets.size() == access.sizes.size()) {
          offsets.emplace();
          for (OpFoldResult ofr : access.offsets) {
            std::optional<int64_t> v = evaluate(ofr, launch);
            if (!v) {
              offsets.reset();
              break;
            }
            offsets->push_back(*v);
          }
        }
        if (!offsets) {
          whole[buffer] = true;
          continue;
        }
        pto::detail::Box box{*offsets, access.sizes};
        boxes[buffer].insert(access.op, box);
        if (access.write)
          writes[buffer].push_back({access.op, box});
      }
      for (auto &[buffer, ops] : everyAccess) {
        // A window not known here: every op on the buffer is one group.
        if (whole.lookup(buffer)) {
          for (unsigned op : ops)
            groups.unite(op, ops.front());
          continue;
        }
        for (auto &[op, box] : writes[buffer])
          boxes[buffer].forEachOverlap(
              box, [&, op = op](unsigned other) { groups.unite(op, other); });
      }
    }
  }
  // The groups, in leaf order, to the AIV with less work so far.
  DenseMap<unsigned, int64_t> work;
  for (auto [i, op] : llvm::enumerate(ops))
    work[groups.find(i)] += elementsOf(op);
  DenseMap<unsigned, unsigned> aivOf;
  int64_t load[2] = {0, 0};
  for (unsigned i = 0; i < ops.size(); ++i) {
    unsigned group = groups.find(i);
    auto [it, fresh] = aivOf.try_emplace(group, 0);
    if (fresh) {
      it->second = load[1] < load[0] ? 1 : 0;
      load[it->second] += work[group];
    }
    result[ops[i]] = it->second;
  }
  return result;
}

bool LeafLowering::isOnChip(Value tensor) {
  return isExchange(tensor, onChipArgs, func.getBody().front());
}

bool LeafLowering::feedsOnlyMatmuls(ViewOp op) {
  return !op->use_empty() &&
         llvm::all_of(op->getUsers(), llvm::IsaPred<MatmulOp, MatmulAccOp>);
}

/// Each exchange store, with the matmul chain that computes it, moves down
/// to just before the first view reading it: the AIC then produces the
/// pieces in the order the AIV reads them, so a few accumulators and a few
/// UB ring slots are live at a time instead of all of them. Not for a chain
/// whose operands come from a GM tensor the leaf writes (its loads happen
/// at the matmul).
void LeafLowering::sinkExchangeStores() {
  Block &body = func.getBody().front();
  DenseMap<Operation *, unsigned> position;
  llvm::DenseSet<Value> written;
  for (auto [i, op] : llvm::enumerate(body)) {
    position[&op] = i;
    if (auto store = dyn_cast<AssembleOp>(op);
        store && !isOnChip(store.getDst()))
      written.insert(getAliasedTensor(store.getDst()));
    else if (auto atomic = dyn_cast<AtomicAddOp>(op))
      written.insert(getAliasedTensor(atomic.getDst()));
  }
  DenseMap<Operation *, Operation *> firstReader;
  for (auto [view, store] : exchangeStoreOf) {
    Operation *&first = firstReader[store];
    if (!first || position[view] < position[first])
      first = view;
  }
  // In program order, not the map's (pointer) order: the output must not
  // depend on where the ops were allocated.
  SmallVector<std::pair<Operation *, Operation *>> sinks(firstReader.begin(),
                                                         firstReader.end());
  llvm::sort(sinks, [&](const auto &a, const auto &b) {
    return position[a.first] < position[b.first];
  });
  for (auto [storeOp, first] : sinks) {
    auto store = cast<AssembleOp>(storeOp);
    // The chain: the stored value's matmul and the matmul_acc steps before
    // it, each used only by the next.
    SmallVector<Operation *> chain{store};
    Value value = store.getSrc();
    bool movable = true;
    while (Operation *def = value.getDefiningOp()) {
      if (!isa<MatmulOp, MatmulAccOp>(def) || !value.hasOneUse() ||
          def->getBlock() != &body)
        break;
      chain.push_back(def);
      for (Value operand : def->getOperands())
        if (auto view = operand.getDefiningOp<ViewOp>())
          movable &= !written.contains(getAliasedTensor(view.getSource()));
      auto acc = dyn_cast<MatmulAccOp>(def);
      if (!acc)
        break;
      value = acc.getAcc();
    }
    if (!movable)
      continue;
    for (Operation *op : llvm::reverse(chain))
      op->moveBefore(first);
  }
}

/// The accumulator stays in L0C: the views of the piece take their windows
/// from it.
LogicalResult LeafLowering::lowerExchangeStore(AssembleOp op) {
  FailureOr<Value> acc = lookup(op, op.getSrc());
  if (failed(acc))
    return failure();
  auto accType = cast<pisa::TileType>(acc->getType());
  if (accType.getSpace() != pisa::MemorySpace::l0c)
    return op.emitOpError() << "stores a " << accType
                            << " into an on-chip exchange; only accumulators "
                               "(l0c) move to UB";
  storedAccumulator[op] = *acc;
  replaced.push_back(op);
  return success();
}

/// A vector view of an exchange: the AIC's TEXTRACT of its window from the
/// accumulator of the stored piece that holds it (pairExchangeViews), at
/// the window's offset in the piece (a run-time value where the shared
/// leaf's offsets differ between launches).
LogicalResult LeafLowering::lowerExchangeView(ViewOp op) {
  if (op->use_empty()) {
    replaced.push_back(op);
    return success();
  }
  ArrayRef<int64_t> shape = op.getResult().getType().getShape();
  if (shape.size() != 2)
    return op.emitOpError() << "views a rank-" << shape.size()
                            << " on-chip exchange; the L0C -> UB move hands "
                               "over 2-D accumulator windows";
  Operation *storeOp = exchangeStoreOf.lookup(op);
  Value acc = storeOp ? storedAccumulator.lookup(storeOp) : Value();
  if (!acc)
    return op.emitOpError()
           << "views an on-chip exchange that no earlier accumulator of this "
              "MIX leaf stored; the vector part reads only what its cube "
              "part left in L0C";
  auto store = cast<AssembleOp>(storeOp);
  SmallVector<OpFoldResult> at = normalize(offsetsOf(op)),
                            from = normalize(offsetsOf(store));
  Location loc = op.getLoc();
  int64_t index[2] = {0, 0};
  Value runtime[2];
  for (int d = 0; d < 2; ++d) {
    if (at[d] == from[d])
      continue;
    std::optional<int64_t> a = getConstantIntValue(at[d]),
                           b = getConstantIntValue(from[d]);
    if (a && b) {
      index[d] = *a - *b;
      continue;
    }
    runtime[d] = arith::SubIOp::create(builder, loc, materialize(at[d]),
                                       materialize(from[d]));
  }
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, op.getResult());
  Value tile = alloc(loc, *type, vr, vc);
  auto extract = pisa::TExtractOp::create(builder, loc, acc, tile, index[0],
                                          index[1], runtime[0], runtime[1]);
  (void)extract;
  tiles[op.getResult()] = tile;
  replaced.push_back(op);
  return success();
}

/// The moved tiles (TEXTRACT l0c -> ub) share ring slots, one ring per AIV
/// (each has its own UB and flags): move j takes a slot of its AIV's ring
/// whose previous tile that AIV last read before move j in the leaf's
/// order (so the leaf's own order is a schedule in which every slot-free
/// wait follows its set: no deadlock), else a new slot while the ring
/// stays within half of UB and the flags (one "filled" and one "free" per
/// slot, 16 per AIV) last. Marks each tile's alloc_tile with its slot for
/// pto-isa-plan-memory and pto-isa-split-mix.
LogicalResult LeafLowering::assignRingSlots() {
  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  SmallVector<pisa::TExtractOp> moves;
  int64_t slotBytes = 0;
  for (Operation &op : body)
    if (auto extract = dyn_cast<pisa::TExtractOp>(op);
        extract &&
        cast<pisa::TileType>(extract.getSrc().getType()).getSpace() ==
            pisa::MemorySpace::l0c) {
      moves.push_back(extract);
      slotBytes = std::max(
          slotBytes,
          cast<pisa::TileType>(extract.getDst().getType()).getByteSize());
    }
  if (moves.empty())
    return success();
  int64_t ub =
      pisa::getSpaceCapacity(pto::getArchFor(func), pisa::MemorySpace::ub);
  constexpr int64_t kMaxSlots = 8; // 2 flags each, 16 per AIV
  int64_t maxSlots = std::clamp<int64_t>(
      ub / 2 / std::max<int64_t>(slotBytes, 1), 1, kMaxSlots);
  // Per AIV, per slot: its current tile's last read.
  SmallVector<int64_t> lastRead[2];
  Builder b(func.getContext());
  for (pisa::TExtractOp move : moves) {
    pisa::AllocTileOp alloc = pisa::getAlloc(move.getDst());
    unsigned aiv = pisa::getSubblock(move.getDst()) == 1 ? 1 : 0;
    SmallVector<int64_t> &ring = lastRead[aiv];
    int64_t at = position[move], last = at;
    for (Operation *user : move.getDst().getUsers())
      if (Operation *top = body.findAncestorOpInBlock(*user);
          top && top != move)
        last = std::max(last, position[top]);
    // A new slot while the ring may grow (the AIC runs that many moves
    // ahead), else the free slot read longest ago.
    int64_t slot = -1;
    if (static_cast<int64_t>(ring.size()) < maxSlots) {
      slot = ring.size();
      ring.push_back(0);
    }
    if (slot < 0)
      for (auto [s, end] : llvm::enumerate(ring))
        if (end < at && (slot < 0 || end < ring[slot]))
          slot = s;
    if (slot < 0) {
      return move.emitOpError()
             << "needs a UB ring slot while AIV " << aiv << " still reads all "
             << maxSlots << " (" << slotBytes
             << " B each, half of UB and at most " << kMaxSlots
             << "): the vector part holds too many moved windows at once; "
                "use smaller vector pieces (v_tile) or leave mix-exchange "
                "off";
    }
    ring[slot] = last;
    alloc->setAttr(pisa::kRingSlotAttrName, b.getI64IntegerAttr(slot));
  }
  return success();
}

} // namespace mlir::pto::lower_to_isa
