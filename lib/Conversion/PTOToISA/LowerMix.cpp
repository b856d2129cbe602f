//===- LowerMix.cpp - MIX leaves to pto_isa (DAV_3510) --------------------===//
//
// A MIX leaf (pto-mix-exchange) holds the cube part of its tasks and the
// vector part that reads the cube results. A cube result stored into an
// on-chip exchange (`pto.on_chip` workspace) is moved L0C -> UB with `tmov`
// (pto-isa A5 TMOV Acc -> Vec, the fixpipe, SingleModeVec0) into a UB tile
// of AIV 0, and the vector views of it are TEXTRACT copies of that tile;
// every other op lowers as in a cube or a vector leaf. pto-isa-split-mix
// later separates the two parts and adds the intra-block flags
// (docs/ISA.md, "MIX leaves").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// The offsets of a store or view of an exchange as constants (pto-outline
/// passes them as arguments that useConstantArguments folded), or none.
static std::optional<SmallVector<int64_t>>
constantOffsets(ArrayRef<OpFoldResult> offsets) {
  SmallVector<int64_t> result;
  for (OpFoldResult ofr : offsets) {
    std::optional<int64_t> c = getConstantIntValue(ofr);
    if (!c)
      return std::nullopt;
    result.push_back(*c);
  }
  return result;
}

bool LeafLowering::isOnChip(Value tensor) {
  auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor));
  return arg && arg.getOwner() == &func.getBody().front() &&
         onChipArgs.contains(arg.getArgNumber());
}

bool LeafLowering::feedsOnlyMatmuls(ViewOp op) {
  return !op->use_empty() &&
         llvm::all_of(op->getUsers(), llvm::IsaPred<MatmulOp, MatmulAccOp>);
}

/// The accumulator moves whole into a UB tile of its own capacity (TMOV
/// needs equal capacities) and the workspace's element type (the fixpipe
/// converts), valid over the accumulator's valid region.
LogicalResult LeafLowering::lowerExchangeStore(AssembleOp op) {
  std::optional<SmallVector<int64_t>> at = constantOffsets(normalize(
      getMixedValues(op.getStaticOffsets(), op.getOffsets(), op.getContext())));
  if (!at)
    return op.emitOpError()
           << "stores into an on-chip exchange at an offset that is not the "
              "same constant at every launch of this leaf (pto-outline "
              "shares it between tasks); the vector part finds the moved "
              "piece it views by static offsets: compile with "
              "mix-exchange=false, or with blocks whose MIX tasks are not "
              "shared";
  FailureOr<Value> acc = lookup(op, op.getSrc());
  if (failed(acc))
    return failure();
  auto accType = cast<pisa::TileType>(acc->getType());
  if (accType.getSpace() != pisa::MemorySpace::l0c)
    return op.emitOpError() << "stores a " << accType
                            << " into an on-chip exchange; only accumulators "
                               "(l0c) move to UB";
  pisa::AllocTileOp accAlloc = pisa::getAlloc(*acc);
  if (!accAlloc)
    return op.emitOpError() << "stores an accumulator without an alloc_tile";
  Type elem = cast<GMTensorType>(op.getDst().getType()).getElementType();
  FailureOr<pisa::TileType> ubType =
      makeTileType(op, pisa::MemorySpace::ub, accType.getRows(),
                   accType.getCols(), elem, pisa::TileLayout::nd);
  if (failed(ubType))
    return failure();
  Location loc = op.getLoc();
  Value ub =
      alloc(loc, *ubType, accAlloc.getValidRows(), accAlloc.getValidCols());
  builder.create<pisa::TMovOp>(loc, *acc, ub);
  exchangePieces.push_back(
      {getAliasedTensor(op.getDst()), *at,
       llvm::to_vector(cast<pto::TileType>(op.getSrc().getType()).getShape()),
       ub});
  replaced.push_back(op);
  return success();
}

/// A vector view of an exchange: a TEXTRACT of its window from the UB tile
/// of the stored piece that holds it (pto-mix-exchange checked that one
/// piece does).
LogicalResult LeafLowering::lowerExchangeView(ViewOp op) {
  std::optional<SmallVector<int64_t>> offsets = constantOffsets(normalize(
      getMixedValues(op.getStaticOffsets(), op.getOffsets(), op.getContext())));
  if (!offsets)
    return op.emitOpError()
           << "views an on-chip exchange at an offset that is not the same "
              "constant at every launch of this leaf (pto-outline shares it "
              "between tasks); the vector part finds the moved piece it views "
              "by static offsets: compile with mix-exchange=false, or with "
              "blocks whose MIX tasks are not shared";
  ArrayRef<int64_t> at = *offsets;
  ArrayRef<int64_t> shape = op.getResult().getType().getShape();
  if (at.size() != 2)
    return op.emitOpError() << "views a rank-" << at.size()
                            << " on-chip exchange; the L0C -> UB move hands "
                               "over 2-D accumulator tiles";
  Value tensor = getAliasedTensor(op.getSource());
  const ExchangePiece *piece = nullptr;
  for (const ExchangePiece &p : exchangePieces)
    if (p.tensor == tensor && p.offsets.size() == 2 && p.offsets[0] <= at[0] &&
        at[0] + shape[0] <= p.offsets[0] + p.shape[0] &&
        p.offsets[1] <= at[1] && at[1] + shape[1] <= p.offsets[1] + p.shape[1])
      piece = &p;
  if (!piece)
    return op.emitOpError()
           << "views an on-chip exchange at [" << at[0] << ", " << at[1]
           << "] that no earlier accumulator of this MIX leaf stored; the "
              "vector part reads only what its cube part moved to UB";
  int64_t row = at[0] - piece->offsets[0], col = at[1] - piece->offsets[1];
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  Location loc = op.getLoc();
  auto [vr, vc] = validOf(loc, op.getResult());
  Value tile = alloc(loc, *type, vr, vc);
  builder.create<pisa::TExtractOp>(loc, piece->ub, tile, row, col);
  tiles[op.getResult()] = tile;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
