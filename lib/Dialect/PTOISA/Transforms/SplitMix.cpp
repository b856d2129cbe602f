//===- SplitMix.cpp - a MIX leaf into its AIC and AIV parts ---------------===//
//
// A lowered MIX leaf (DAV_3510) holds cube instructions, vector instructions
// and the L0C -> UB moves between them. The AIC runs the cube part and the
// moves; AIV 0 and AIV 1 run the vector part, divided by pto-lower-to-isa
// (each UB tile's pto_isa.subblock). The leaf keeps the AIC's code, a new
// vector leaf per AIV gets that AIV's. The moved tiles sit in UB ring slots:
// per slot a "filled" flag orders the AIV's first read of a moved tile after
// the move, and a "free" flag orders the next move into the slot after the
// AIV's last read of it, as pto-isa's TPUSH / TPOP ring FIFOs do
// (docs/ISA.md, "MIX leaves").
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

#include "pto/Support/UnionFind.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::ptoisa {
#define GEN_PASS_DEF_SPLITMIXPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;

namespace {

constexpr int kIntraBlockFlags = 16;

enum class Part { None = 0, Cube = 1, Vector = 2, Both = 3 };

Part join(Part a, Part b) {
  return static_cast<Part>(static_cast<int>(a) | static_cast<int>(b));
}

/// An L0C -> UB move (a whole accumulator with tmov, a window with
/// textract): the AIC writes the AIV's UB.
bool isMoveToUB(Operation *op) {
  Value src, dst;
  if (auto move = dyn_cast<TMovOp>(op))
    src = move.getSrc(), dst = move.getDst();
  else if (auto extract = dyn_cast<TExtractOp>(op))
    src = extract.getSrc(), dst = extract.getDst();
  else
    return false;
  return cast<TileType>(src.getType()).getSpace() == MemorySpace::l0c &&
         cast<TileType>(dst.getType()).getSpace() == MemorySpace::ub;
}

Value movedTile(Operation *move) {
  if (auto tmov = dyn_cast<TMovOp>(move))
    return tmov.getDst();
  return cast<TExtractOp>(move).getDst();
}

/// The pipe an instruction runs on (the AIV's last read of a ring slot
/// frees it there); the scalar unit for anything else.
Pipe pipeOf(Operation *op) {
  Pipe pipe = Pipe::S;
  op->walk([&](PipeOpInterface inner) { pipe = inner.getPipe(); });
  return pipe;
}

/// Which core runs `op`: an instruction touching L1/L0 tiles (and an
/// L0C -> UB move) is the AIC's, one touching only UB tiles the AIV's; a
/// region op runs where its instructions do. Tiles, index arithmetic and
/// the terminator belong to neither (they go where they are used).
Part partOf(Operation *op) {
  if (op->getNumRegions() != 0) {
    Part part = Part::None;
    op->walk([&](Operation *inner) {
      if (inner != op && inner->getNumRegions() == 0)
        part = join(part, partOf(inner));
    });
    return part;
  }
  if (!isa<PTOISADialect>(op->getDialect()) || isa<AllocTileOp>(op))
    return Part::None;
  if (isMoveToUB(op) || isa<SetIntraBlockOp>(op))
    return Part::Cube;
  if (isa<WaitIntraBlockOp>(op))
    return Part::Vector;
  Part part = Part::None;
  for (Value operand : op->getOperands())
    if (auto tile = dyn_cast<TileType>(operand.getType()))
      part = join(part, tile.getSpace() == MemorySpace::ub ? Part::Vector
                                                           : Part::Cube);
  return part;
}

/// GM tensors `op` (an instruction) reads and writes, after looking
/// through in-place reshapes.
void gmAccesses(Operation *op, llvm::DenseSet<Value> &reads,
                llvm::DenseSet<Value> &writes) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (auto &effect : list) {
    Value value = effect.getValue();
    if (!value || !isa<pto::GMTensorType>(value.getType()))
      continue;
    Value tensor = pto::getAliasedTensor(value);
    if (isa<MemoryEffects::Write>(effect.getEffect()))
      writes.insert(tensor);
    else if (isa<MemoryEffects::Read>(effect.getEffect()))
      reads.insert(tensor);
  }
}

/// Erases the ops of `body` that run on `drop`'s core.
void erasePart(Block &body, Part drop) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (partOf(&op) == drop)
      op.erase();
}

/// Erases what no instruction needs any more (tiles, index arithmetic),
/// users before definitions.
void eraseDead(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() &&
        op.getNumRegions() == 0 &&
        (isa<AllocTileOp>(op) || isMemoryEffectFree(&op)))
      op.erase();
}

struct SplitMixPass : public ptoisa::impl::SplitMixPassBase<SplitMixPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> mixLeaves;
    // Leaves are functions: their bodies are not walked (the bulk of a
    // module of many kernels, which holds no MIX leaf off DAV_3510).
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto func = dyn_cast<func::FuncOp>(op);
      if (!func)
        return isa<FunctionOpInterface>(op) ? WalkResult::skip()
                                            : WalkResult::advance();
      auto kind = func->getAttrOfType<pto::CoreKindAttr>("pto.leaf");
      if (kind && kind.getValue() == pto::CoreKind::mix &&
          !func->hasAttr(kMixAivAttrName) && !func.isExternal())
        mixLeaves.push_back(func);
      return WalkResult::skip();
    });
    // Nothing to split: the module keeps its analyses and skips the pass
    // manager's verifier run.
    if (mixLeaves.empty())
      return markAllAnalysesPreserved();
    for (func::FuncOp leaf : mixLeaves)
      if (failed(split(leaf, symbols)))
        return signalPassFailure();
  }

  LogicalResult split(func::FuncOp leaf, SymbolTable &symbols);
};

LogicalResult SplitMixPass::split(func::FuncOp leaf, SymbolTable &symbols) {
  if (!leaf.getBody().hasOneBlock())
    return leaf.emitOpError() << "has more than one block; pto-isa-split-mix "
                                 "splits straight-line MIX leaves";
  Block &body = leaf.getBody().front();
  SmallVector<Operation *> moves;
  llvm::DenseSet<Value> reads[2], writes[2];
  for (Operation &op : body) {
    Part part = partOf(&op);
    if (part == Part::Both)
      return op.emitOpError()
             << "holds both cube and vector instructions; a MIX leaf's AIC "
                "and AIV parts must be separate ops (pto-isa-roll-pieces "
                "leaves MIX leaves straight-line)";
    if (isMoveToUB(&op))
      moves.push_back(&op);
    bool nestedMove = false;
    if (op.getNumRegions() != 0)
      op.walk([&](Operation *inner) { nestedMove |= isMoveToUB(inner); });
    if (nestedMove)
      return op.emitOpError()
             << "holds an L0C -> UB move; each move fills a ring slot with "
                "its own flags, so moves must be at the top level";
    if (part == Part::Cube || part == Part::Vector) {
      int k = part == Part::Cube ? 0 : 1;
      op.walk(
          [&](Operation *inner) { gmAccesses(inner, reads[k], writes[k]); });
    }
  }
  // Only the moves are ordered between the AIC and the AIV, not GM.
  for (int k = 0; k < 2; ++k)
    for (Value tensor : writes[k])
      if (reads[1 - k].contains(tensor) || writes[1 - k].contains(tensor))
        return leaf.emitOpError()
               << "has a " << (k == 0 ? "cube" : "vector")
               << " instruction writing a GM tensor that its "
               << (k == 0 ? "vector" : "cube")
               << " part also accesses; within a MIX leaf only L0C -> UB "
                  "moves are ordered between the AIC and the AIV: keep such "
                  "exchanges in separate tasks (the workspace is not "
                  "pto.on_chip)";
  // Which AIV runs each top-level vector op: the one whose UB its tiles are
  // in (pto-lower-to-isa's pto_isa.subblock). Ops sharing a tile run on one
  // AIV; a group with no marked tile runs on AIV 0.
  SmallVector<Operation *> vectorOps;
  for (Operation &op : body)
    if (partOf(&op) == Part::Vector)
      vectorOps.push_back(&op);
  DenseMap<Operation *, unsigned> subblockOf;
  {
    DenseMap<Value, unsigned> groupOfTile;
    SmallVector<Value> tilesInOrder;         // first use first: deterministic
    pto::UnionFind groups(vectorOps.size()); // vector ops sharing a tile
    for (auto [i, op] : llvm::enumerate(vectorOps)) {
      op->walk([&, i = i](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          auto tile = dyn_cast<TileType>(operand.getType());
          if (!tile || tile.getSpace() != MemorySpace::ub)
            continue;
          auto [it, fresh] = groupOfTile.try_emplace(operand, i);
          if (fresh)
            tilesInOrder.push_back(operand);
          else
            groups.unite(i, it->second);
        }
      });
    }
    DenseMap<unsigned, std::pair<int64_t, Value>> marked; // group -> AIV
    for (Value tile : tilesInOrder) {
      unsigned op = groupOfTile.lookup(tile);
      std::optional<int64_t> mark = getSubblock(tile);
      if (!mark)
        continue;
      AllocTileOp alloc = getAlloc(tile);
      if (*mark != 0 && *mark != 1)
        return alloc.emitOpError()
               << "is marked for AIV " << *mark << " (" << kSubblockAttrName
               << "); a MIX block has AIV 0 and AIV 1";
      auto [it, fresh] =
          marked.try_emplace(groups.find(op), std::make_pair(*mark, tile));
      if (!fresh && it->second.first != *mark)
        return alloc.emitOpError()
               << "is a tile of AIV " << *mark
               << " used together with a tile of AIV " << it->second.first
               << " by the same vector instructions; an AIV reads only its "
                  "own UB: mark tiles used together with one "
               << kSubblockAttrName;
    }
    for (auto [i, op] : llvm::enumerate(vectorOps))
      subblockOf[op] = marked.lookup(groups.find(i)).first;
  }
  // The AIV of each move: the one whose UB its tile is in.
  SmallVector<unsigned> aivOf;
  for (Operation *move : moves) {
    unsigned aiv = getSubblock(movedTile(move)) == 1 ? 1 : 0;
    if (aiv == 1 && isa<TMovOp>(move))
      return move->emitOpError()
             << "moves a whole accumulator into AIV 1's UB; the L0C -> UB "
                "TMOV is emitted SingleModeVec0: move windows (textract) "
                "into AIV 1";
    aivOf.push_back(aiv);
  }
  bool twoAivs = llvm::is_contained(aivOf, 1u) ||
                 llvm::any_of(subblockOf, [](auto e) { return e.second; });

  // The ring slot of each move (pto-lower-to-isa's pto_isa.ring_slot), per
  // AIV; a move without one has a slot of its own.
  SmallVector<int64_t> slotOf;
  int64_t numSlots[2] = {0, 0};
  int64_t movesTo[2] = {0, 0};
  bool ring[2] = {false, false};
  for (auto [k, move] : llvm::enumerate(moves)) {
    unsigned aiv = aivOf[k];
    AllocTileOp alloc = getAlloc(movedTile(move));
    auto slot = alloc ? alloc->getAttrOfType<IntegerAttr>(kRingSlotAttrName)
                      : IntegerAttr();
    ring[aiv] |= static_cast<bool>(slot);
    slotOf.push_back(slot ? slot.getInt() : numSlots[aiv]);
    numSlots[aiv] = std::max(numSlots[aiv], slotOf.back() + 1);
    ++movesTo[aiv];
  }
  // Per AIV: one "filled" flag per slot (0..numSlots-1) and, when slots are
  // reused, one "free" flag (numSlots + slot): each AIV has 16.
  for (unsigned aiv = 0; aiv < 2; ++aiv) {
    int64_t flagsNeeded = numSlots[aiv] < movesTo[aiv] || ring[aiv]
                              ? 2 * numSlots[aiv]
                              : numSlots[aiv];
    if (flagsNeeded <= kIntraBlockFlags)
      continue;
    SmallVector<Operation *> mine;
    for (auto [k, move] : llvm::enumerate(moves))
      if (aivOf[k] == aiv)
        mine.push_back(move);
    Operation *culprit =
        mine[std::min<size_t>(kIntraBlockFlags, mine.size() - 1)];
    return culprit->emitOpError()
           << "is L0C -> UB move " << kIntraBlockFlags + 1 << " of "
           << mine.size() << " into AIV " << aiv << " in this MIX leaf, in "
           << numSlots[aiv] << " UB slots needing " << flagsNeeded
           << " intra-block flags; AIV " << aiv << " has " << kIntraBlockFlags
           << ": use fewer, larger cube pieces per MIX task (cube_tile) or "
              "leave mix-exchange off";
  }

  // A refill of a slot follows, in the leaf's order, every read of the
  // slot's previous tile: then that order is a schedule of the parts in
  // which each wait follows its set, and they cannot deadlock.
  DenseMap<std::pair<unsigned, int64_t>, Operation *> lastMoveInto;
  for (auto [k, move] : llvm::enumerate(moves)) {
    if (Operation *previous = lastMoveInto.lookup({aivOf[k], slotOf[k]}))
      for (Operation *user : movedTile(previous).getUsers())
        if (Operation *top = body.findAncestorOpInBlock(*user);
            top && top != previous && !top->isBeforeInBlock(move))
          return move->emitOpError()
                 << "refills UB ring slot " << slotOf[k] << " of AIV "
                 << aivOf[k]
                 << " before the AIV's last read of the slot's previous tile; "
                    "the AIC would wait for the slot to be freed while the "
                    "AIV waits for this move (deadlock): give tiles read "
                    "together different slots (pto_isa.ring_slot)";
    lastMoveInto[{aivOf[k], slotOf[k]}] = move;
  }

  // Whether move k's slot is filled again later (its tile must be freed).
  SmallVector<bool> refilled(moves.size(), false);
  {
    llvm::DenseSet<std::pair<unsigned, int64_t>> seen;
    for (size_t k = moves.size(); k-- > 0;)
      refilled[k] = !seen.insert({aivOf[k], slotOf[k]}).second;
  }

  // The AIV parts: copies of the leaf without the cube part and without the
  // other AIV's vector instructions. AIV 1's part exists only when it has
  // work.
  MLIRContext *ctx = leaf.getContext();
  func::FuncOp parts[2];
  for (unsigned aiv = 0; aiv < (twoAivs ? 2u : 1u); ++aiv) {
    IRMapping mapping;
    auto part = cast<func::FuncOp>(leaf->clone(mapping));
    part.setSymName((leaf.getSymName() + (aiv == 0 ? "_aiv" : "_aiv1")).str());
    // AIV 1's part is printed before AIV 0's, which calls it.
    symbols.insert(part, std::next(Block::iterator(leaf)));
    part->removeAttr(kMixAivAttrName);
    part->removeAttr(kMixAiv1AttrName);
    part->setAttr("pto.leaf",
                  pto::CoreKindAttr::get(ctx, pto::CoreKind::vector));
    part->setAttr(kMixAicAttrName,
                  FlatSymbolRefAttr::get(leaf.getSymNameAttr()));
    leaf->setAttr(aiv == 0 ? kMixAivAttrName : kMixAiv1AttrName,
                  FlatSymbolRefAttr::get(part.getSymNameAttr()));
    parts[aiv] = part;
    Block &partBody = part.getBody().front();
    // The other AIV's instructions (the clone keeps the leaf's op order).
    SmallVector<Operation *> others;
    for (auto [original, copy] : llvm::zip(body, partBody)) {
      auto it = subblockOf.find(&original);
      if (it == subblockOf.end() || it->second == aiv)
        continue;
      if (!copy.use_empty())
        return original.emitOpError()
               << "runs on AIV " << it->second
               << " but a result of it is used by AIV " << aiv
               << "'s instructions; only tiles and GM connect the parts";
      others.push_back(&copy);
    }
    for (Operation *op : llvm::reverse(others))
      op->erase();
    erasePart(partBody, Part::Cube);
    // Wait for move k right before the first op of the AIV reading its
    // tile (or at the end: every set is consumed); after the last op
    // reading it, free the slot when the AIC fills it again.
    for (auto [k, move] : llvm::enumerate(moves)) {
      if (aivOf[k] != aiv)
        continue;
      Value tile = mapping.lookup(movedTile(move));
      Operation *first = partBody.getTerminator(), *last = nullptr;
      for (Operation *user : tile.getUsers())
        if (Operation *top = partBody.findAncestorOpInBlock(*user)) {
          if (top->isBeforeInBlock(first))
            first = top;
          if (!last || last->isBeforeInBlock(top))
            last = top;
        }
      OpBuilder waitBuilder(first);
      WaitIntraBlockOp::create(waitBuilder, move->getLoc(), Pipe::S, slotOf[k]);
      if (!refilled[k])
        continue;
      OpBuilder builder(ctx);
      if (last)
        builder.setInsertionPointAfter(last);
      else
        builder.setInsertionPoint(first);
      SetIntraBlockOp::create(builder, move->getLoc(),
                              last ? pipeOf(last) : Pipe::S,
                              numSlots[aiv] + slotOf[k]);
    }
    eraseDead(partBody);
  }

  erasePart(body, Part::Vector);
  eraseDead(body);
  // The AIC addresses AIV 1's flags as id + 16 (pto-isa A5 TSync.hpp).
  llvm::DenseSet<std::pair<unsigned, int64_t>> filled;
  for (auto [k, move] : llvm::enumerate(moves)) {
    unsigned aiv = aivOf[k];
    int64_t base = aiv * kIntraBlockFlags;
    OpBuilder builder(move);
    if (!filled.insert({aiv, slotOf[k]}).second)
      WaitIntraBlockOp::create(builder, move->getLoc(), Pipe::FIX,
                               base + numSlots[aiv] + slotOf[k]);
    builder.setInsertionPointAfter(move);
    SetIntraBlockOp::create(builder, move->getLoc(), Pipe::FIX,
                            base + slotOf[k]);
  }
  return success();
}

} // namespace
