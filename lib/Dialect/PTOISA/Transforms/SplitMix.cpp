//===- SplitMix.cpp - a MIX leaf into its AIC and AIV parts ---------------===//
//
// A lowered MIX leaf (DAV_3510) holds cube instructions, vector instructions
// and the L0C -> UB moves between them. The AIC runs the cube part and the
// moves; AIV 0 runs the vector part. The leaf keeps the AIC's code, a new
// vector leaf gets the AIV's, and one intra-block flag per move orders the
// AIV's first read of the moved tile after the move (docs/ISA.md,
// "MIX leaves").
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

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

bool isMoveToUB(Operation *op) {
  auto move = dyn_cast<TMovOp>(op);
  return move &&
         cast<TileType>(move.getSrc().getType()).getSpace() ==
             MemorySpace::l0c &&
         cast<TileType>(move.getDst().getType()).getSpace() == MemorySpace::ub;
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
    module.walk([&](func::FuncOp func) {
      auto kind = func->getAttrOfType<pto::CoreKindAttr>("pto.leaf");
      if (kind && kind.getValue() == pto::CoreKind::mix &&
          !func->hasAttr(kMixAivAttrName) && !func.isExternal())
        mixLeaves.push_back(func);
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
  SmallVector<TMovOp> moves;
  llvm::DenseSet<Value> reads[2], writes[2];
  for (Operation &op : body) {
    Part part = partOf(&op);
    if (part == Part::Both)
      return op.emitOpError()
             << "holds both cube and vector instructions; a MIX leaf's AIC "
                "and AIV parts must be separate ops (pto-isa-roll-pieces "
                "leaves MIX leaves straight-line)";
    if (isMoveToUB(&op))
      moves.push_back(cast<TMovOp>(op));
    bool nestedMove = false;
    if (op.getNumRegions() != 0)
      op.walk([&](Operation *inner) { nestedMove |= isMoveToUB(inner); });
    if (nestedMove)
      return op.emitOpError()
             << "holds an L0C -> UB tmov; each move needs its own UB tile "
                "and intra-block flag, so moves must be at the top level";
    if (part == Part::Cube || part == Part::Vector) {
      int k = part == Part::Cube ? 0 : 1;
      op.walk(
          [&](Operation *inner) { gmAccesses(inner, reads[k], writes[k]); });
    }
  }
  // The AIC never waits for the AIV, and GM is not ordered between them.
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
  if (moves.size() > static_cast<size_t>(kIntraBlockFlags))
    return moves[kIntraBlockFlags].emitOpError()
           << "is L0C -> UB move " << kIntraBlockFlags + 1 << " of "
           << moves.size() << " in this MIX leaf; each move has its own "
           << "intra-block flag and AIV 0 has " << kIntraBlockFlags
           << ": use fewer, larger cube pieces per MIX task (cube_tile) or "
              "leave mix-exchange off";

  // The AIV part: a copy of the leaf without the cube part.
  IRMapping mapping;
  auto aiv = cast<func::FuncOp>(leaf->clone(mapping));
  aiv.setSymName((leaf.getSymName() + "_aiv").str());
  symbols.insert(aiv, std::next(Block::iterator(leaf)));
  MLIRContext *ctx = leaf.getContext();
  aiv->setAttr("pto.leaf", pto::CoreKindAttr::get(ctx, pto::CoreKind::vector));
  aiv->setAttr(kMixAicAttrName, FlatSymbolRefAttr::get(leaf.getSymNameAttr()));
  leaf->setAttr(kMixAivAttrName, FlatSymbolRefAttr::get(aiv.getSymNameAttr()));

  Block &aivBody = aiv.getBody().front();
  erasePart(aivBody, Part::Cube);
  // Wait for move k right before the first op of the AIV reading its tile
  // (or at the end: every set is consumed).
  for (auto [k, move] : llvm::enumerate(moves)) {
    Value tile = mapping.lookup(move.getDst());
    Operation *first = aivBody.getTerminator();
    for (Operation *user : tile.getUsers())
      if (Operation *top = aivBody.findAncestorOpInBlock(*user))
        if (top->isBeforeInBlock(first))
          first = top;
    OpBuilder(first).create<WaitIntraBlockOp>(move.getLoc(), Pipe::S, k);
  }
  eraseDead(aivBody);

  erasePart(body, Part::Vector);
  eraseDead(body);
  for (auto [k, move] : llvm::enumerate(moves)) {
    OpBuilder builder(move);
    builder.setInsertionPointAfter(move);
    builder.create<SetIntraBlockOp>(move.getLoc(), Pipe::FIX, k);
  }
  return success();
}

} // namespace
