//===- ExpandTilesVector.cpp - the expansion of each vector op family -----===//
//
// Part of pto-expand-tiles (ExpandTiles.h): elementwise ops, reductions,
// generators, per-input-piece ops (transpose, gather_mask, bitcast, topk)
// and stores, each cut into the pieces of its vector tile.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::expand_tiles {

/// A pto.compare whose only users are the wheres it is the condition of:
/// its mask is recomputed in each where piece rather than stored, so it stays
/// on chip (packed in ub) from the compare to the select, as on the hardware.
bool Expander::isFusedMask(CompareOp op) {
  Value mask = op.getResult();
  return !mask.use_empty() && llvm::all_of(mask.getUses(), [&](OpOperand &use) {
    auto where = dyn_cast<WhereOp>(use.getOwner());
    return where && use.getOperandNumber() == 0 &&
           where->getBlock() == op->getBlock();
  });
}

/// The piece of `operand` that the piece (`offsets`, `sizes`) of a result of
/// type `resultType` reads: along a size-1 dim of the operand that the result
/// broadcasts, its single row/column; a scalar as it is; a fused compare's
/// mask computed here from its operands' pieces.
Value Expander::operandPiece(Location loc, Value operand, TileType resultType,
                             ArrayRef<int64_t> pieceOffsets,
                             ArrayRef<int64_t> pieceSizes) {
  auto operandType = dyn_cast<TileType>(operand.getType());
  if (!operandType)
    return operand;
  SmallVector<int64_t, 4> offsets(pieceOffsets), sizes(pieceSizes);
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    if (operandType.getDimSize(d) == 1 && resultType.getDimSize(d) != 1) {
      offsets[d] = 0;
      sizes[d] = 1;
    }
  Operation *compare = operand.getDefiningOp();
  if (!compare || !fusedCompares.contains(compare))
    return readPiece(loc, operand, offsets, sizes);
  OperationState state(compare->getLoc(), compare->getName());
  for (Value input : compare->getOperands())
    state.addOperands(operandPiece(loc, input, operandType, offsets, sizes));
  state.addTypes(
      TileType::get(builder.getContext(), sizes, operandType.getElementType()));
  state.addAttributes(compare->getAttrDictionary().getValue());
  Operation *piece = builder.create(state);
  stamp(piece, compare);
  ++numVectorPieces;
  return piece->getResult(0);
}

LogicalResult Expander::expandElementwise(Operation *op) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto resultType = cast<TileType>(result.getType());
  auto vecTile = op->getAttrOfType<VecTileAttr>("vec_tile");
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, resultType.getShape());
  fitInUnifiedBuffer(op, tile);
  currentTile = tile;
  if (failed(reserveGrid(op, resultType.getShape(), tile)))
    return failure();
  // The op's attributes as one dictionary, built once for all its pieces.
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(resultType.getShape(), tile)) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(
          operandPiece(loc, operand, resultType, piece.offsets, piece.sizes));
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addTypes(TileType::get(builder.getContext(), piece.sizes,
                                 resultType.getElementType()));
    state.addAttributes(attrs.getValue());
    Operation *pieceOp = builder.create(state);
    ++numVectorPieces;
    stamp(storePiece(builder, loc, pieceOp->getResult(0), workspace,
                     piece.offsets),
          op);
  }
  finish(op, result, workspace);
  return success();
}

LogicalResult Expander::expandReduce(Operation *op, Value input, int64_t dim,
                                     bool keepdim, VecTileAttr vecTile,
                                     bool isAmax) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto inputType = cast<TileType>(input.getType());
  auto resultType = cast<TileType>(result.getType());
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, inputType.getShape());
  // Pieces of the input grid that share their non-reduced offsets combine.
  llvm::MapVector<SmallVector<int64_t, 4>, Value> partials;
  if (failed(reserveGrid(op, inputType.getShape(), tile)))
    return failure();
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(inputType.getShape(), tile)) {
    Value in = readPiece(loc, input, piece.offsets, piece.sizes);
    // The partial result's piece: the reduced dim becomes 1 or disappears.
    SmallVector<int64_t, 4> outSizes(piece.sizes), outOffsets(piece.offsets);
    if (keepdim) {
      outSizes[dim] = 1;
      outOffsets[dim] = 0;
    } else {
      outSizes.erase(outSizes.begin() + dim);
      outOffsets.erase(outOffsets.begin() + dim);
    }
    auto partialType = TileType::get(builder.getContext(), outSizes,
                                     resultType.getElementType());
    OperationState state(loc, op->getName());
    state.addOperands(in);
    state.addTypes(partialType);
    state.addAttributes(attrs.getValue());
    Operation *partial = builder.create(state);
    ++numVectorPieces;
    Value &acc = partials[outOffsets];
    if (!acc) {
      acc = partial->getResult(0);
      continue;
    }
    // Partial results along the reduced dim combine in order of the pieces.
    Operation *combine =
        isAmax ? MaxOp::create(builder, loc, partialType, acc,
                               partial->getResult(0), VecTileAttr())
                     .getOperation()
               : AddOp::create(builder, loc, partialType, acc,
                               partial->getResult(0), VecTileAttr())
                     .getOperation();
    stamp(combine, op);
    ++numVectorPieces;
    acc = combine->getResult(0);
  }
  for (auto &[offsets, value] : partials)
    stamp(storePiece(builder, loc, value, workspace, offsets), op);
  finish(op, result, workspace);
  return success();
}

// An op with no tile operand (full, arange): one piece op per vector tile,
// built by `buildPiece` with the piece's type, each stored into a workspace.
LogicalResult Expander::expandGenerator(
    Operation *op, Value result, VecTileAttr vecTile,
    function_ref<Operation *(const Piece &, TileType)> buildPiece) {
  Location loc = op->getLoc();
  auto resultType = cast<TileType>(result.getType());
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, resultType.getShape());
  if (failed(reserveGrid(op, resultType.getShape(), tile)))
    return failure();
  for (const Piece &piece : tileGrid(resultType.getShape(), tile)) {
    Operation *pieceOp =
        buildPiece(piece, TileType::get(builder.getContext(), piece.sizes,
                                        resultType.getElementType()));
    stamp(pieceOp, op);
    ++numVectorPieces;
    stamp(storePiece(builder, loc, pieceOp->getResult(0), workspace,
                     piece.offsets),
          op);
  }
  finish(op, result, workspace);
  return success();
}

LogicalResult Expander::expandFull(FullOp op) {
  return expandGenerator(op, op.getResult(), op.getVecTileAttr(),
                         [&](const Piece &, TileType type) {
                           return FullOp::create(builder, op.getLoc(), type,
                                                 op.getValueAttr(),
                                                 op.getVecTileAttr());
                         });
}

// A piece at offset o is the sequence from start + o * step.
LogicalResult Expander::expandArange(ArangeOp op) {
  double start = op.getStart().convertToDouble(),
         step = op.getStep().convertToDouble();
  return expandGenerator(
      op, op.getResult(), op.getVecTileAttr(),
      [&](const Piece &piece, TileType type) {
        return ArangeOp::create(
            builder, op.getLoc(), type,
            builder.getF64FloatAttr(
                start + step * static_cast<double>(piece.offsets[0])),
            op.getStepAttr(), op.getVecTileAttr());
      });
}

LogicalResult Expander::expandPerInputPiece(
    Operation *op, Value input, ArrayRef<Value> results, VecTileAttr vecTile,
    function_ref<void(SmallVectorImpl<int64_t> &, SmallVectorImpl<int64_t> &)>
        mapBox,
    function_ref<Operation *(Value, ArrayRef<TileType>)> buildPiece) {
  Location loc = op->getLoc();
  auto inputType = cast<TileType>(input.getType());
  SmallVector<Value> workspaces;
  for (Value result : results)
    workspaces.push_back(createWorkspace(op, result));
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, inputType.getShape());
  fitInUnifiedBuffer(op, tile);
  if (failed(reserveGrid(op, inputType.getShape(), tile)))
    return failure();
  SmallVector<TileType> pieceTypes;
  for (const Piece &piece : tileGrid(inputType.getShape(), tile)) {
    Value in = readPiece(loc, input, piece.offsets, piece.sizes);
    SmallVector<int64_t, 4> outOffsets(piece.offsets), outSizes(piece.sizes);
    mapBox(outOffsets, outSizes);
    pieceTypes.clear();
    for (Value result : results)
      pieceTypes.push_back(
          TileType::get(builder.getContext(), outSizes,
                        cast<TileType>(result.getType()).getElementType()));
    Operation *pieceOp = buildPiece(in, pieceTypes);
    stamp(pieceOp, op);
    ++numVectorPieces;
    for (auto [pieceResult, workspace] :
         llvm::zip(pieceOp->getResults(), workspaces))
      stamp(storePiece(builder, loc, pieceResult, workspace, outOffsets), op);
  }
  for (auto [i, result] : llvm::enumerate(results)) {
    SmallVector<int64_t, 4> tileOrigin(tile.size(), 0);
    currentTile = tile;
    mapBox(tileOrigin, currentTile);
    finish(op, result, workspaces[i], /*eraseOp=*/i + 1 == results.size());
  }
  return success();
}

LogicalResult Expander::expandTranspose(TransposeOp op) {
  // The vector tile governs the input (as for reductions); each input piece
  // is transposed on its own and lands at the swapped offsets.
  int64_t dim0 = op.getDim0(), dim1 = op.getDim1();
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        std::swap(offsets[dim0], offsets[dim1]);
        std::swap(sizes[dim0], sizes[dim1]);
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return TransposeOp::create(builder, op.getLoc(), pieceTypes[0], piece,
                                   op.getDim0Attr(), op.getDim1Attr(),
                                   op.getVecTileAttr());
      });
}

LogicalResult Expander::expandGatherMask(GatherMaskOp op) {
  // The vector tile governs the input; a split of its last dim is a whole
  // number of 32-byte blocks (the verifier's rule), so a multiple of the
  // stride, and fitting into UB halves outer dims only: each input piece
  // gathers on its own and lands at its last-dim offset divided by the
  // stride.
  int64_t stride = op.getStride();
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() /= stride;
        sizes.back() /= stride;
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return GatherMaskOp::create(builder, op.getLoc(), pieceTypes[0], piece,
                                    op.getPatternModeAttr(),
                                    op.getVecTileAttr());
      });
}

LogicalResult Expander::expandBitcast(BitcastOp op) {
  // The vector tile governs the input; each input piece is read as the
  // other type on its own and lands at its last-dim offset scaled by the
  // element sizes (a split of the last dim is 32-byte aligned, so it holds
  // whole result elements).
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() = op.scaleLast(offsets.back());
        sizes.back() = op.scaleLast(sizes.back());
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return BitcastOp::create(builder, op.getLoc(), pieceTypes[0], piece,
                                 op.getVecTileAttr());
      });
}

LogicalResult Expander::expandTopK(TopKOp op) {
  // The vector tile governs the input and cuts its leading dims only: a row
  // is ranked in one piece, so each piece's top k are the rows' top k and
  // land at the piece's leading offsets. (PyPTO also splits the row and
  // merges the pieces' candidates; that merge is not built here yet.)
  TileType inputType = op.getInput().getType();
  SmallVector<int64_t, 4> tile =
      tileFor(op, op.getVecTileAttr(), inputType.getShape());
  int64_t row = inputType.getShape().back();
  if (tile.back() < row)
    return op.emitOpError()
           << "vector tile last dim " << tile.back() << " splits rows of "
           << row << " elements; pto-expand-tiles ranks each topk row in one "
           << "piece (merging the pieces' top k is not supported yet): set "
           << "the vector tile's last dim to " << row;
  int64_t k = op.getK();
  return expandPerInputPiece(
      op, op.getInput(), {op.getValues(), op.getIndices()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() = 0;
        sizes.back() = k;
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return TopKOp::create(builder, op.getLoc(), pieceTypes[0],
                              pieceTypes[1], piece, op.getKAttr(),
                              op.getLargestAttr(), op.getVecTileAttr());
      });
}

LogicalResult Expander::expandStore(Operation *op, Value src, Value dst,
                                    ArrayRef<int64_t> staticOffsets,
                                    ValueRange dynamicOffsets,
                                    VecTileAttr vecTile) {
  Location loc = op->getLoc();
  auto srcType = cast<TileType>(src.getType());
  SmallVector<OpFoldResult> base =
      getMixedValues(staticOffsets, dynamicOffsets, builder.getContext());
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, srcType.getShape());
  // Store along the pieces the source was computed in (e.g. re-tiled to fit
  // UB), so that partitioning can forward them without a workspace.
  auto produced = pieceTiles.find(src);
  if (produced != pieceTiles.end())
    tile = produced->second;
  if (failed(reserveGrid(op, srcType.getShape(), tile)))
    return failure();
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(srcType.getShape(), tile)) {
    Value in = readPiece(loc, src, piece.offsets, piece.sizes);
    SmallVector<OpFoldResult> offsets;
    for (size_t d = 0; d < base.size(); ++d)
      offsets.push_back(add(loc, base[d], piece.offsets[d]));
    SmallVector<int64_t> staticPieceOffsets;
    SmallVector<Value> dynamicPieceOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicPieceOffsets,
                               staticPieceOffsets);
    OperationState state(loc, op->getName());
    state.addOperands(in);
    state.addOperands(dst);
    state.addOperands(dynamicPieceOffsets);
    state.addAttributes(attrs.getValue());
    state.attributes.set("static_offsets",
                         builder.getDenseI64ArrayAttr(staticPieceOffsets));
    builder.create(state);
    ++numVectorPieces;
  }
  toErase.push_back(op);
  return success();
}

/// An indexed write cut by its vector tile (PyPTO's 1-D `[rows]` tile, or
/// `[rows, cols]`): each piece writes its source rows with the matching
/// slice of the index tile, at its column offset; the rows stay indexed.
LogicalResult Expander::expandIndexPut(IndexPutOp op) {
  Location loc = op.getLoc();
  TileType srcType = op.getSrc().getType();
  VecTileAttr vecTile = op.getVecTileAttr();
  SmallVector<int64_t, 4> tile;
  if (vecTile && vecTile.getDims().size() == 2)
    tile = tileFor(op, vecTile, srcType.getShape());
  else
    tile.assign(op.getPieceShape());
  auto produced = pieceTiles.find(op.getSrc());
  if (produced != pieceTiles.end())
    tile = produced->second;
  if (failed(reserveGrid(op, srcType.getShape(), tile)))
    return failure();
  SmallVector<OpFoldResult> base = getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext());
  for (const Piece &piece : tileGrid(srcType.getShape(), tile)) {
    Value in = readPiece(loc, op.getSrc(), piece.offsets, piece.sizes);
    Value indices =
        readPiece(loc, op.getIndices(), {piece.offsets[0]}, {piece.sizes[0]});
    SmallVector<OpFoldResult> offsets{base[0],
                                      add(loc, base[1], piece.offsets[1])};
    SmallVector<int64_t> staticPieceOffsets;
    SmallVector<Value> dynamicPieceOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicPieceOffsets,
                               staticPieceOffsets);
    OperationState state(loc, op->getName());
    state.addOperands({in, op.getDst(), indices});
    state.addOperands(dynamicPieceOffsets);
    state.addAttributes(op->getAttrDictionary().getValue());
    state.attributes.set("static_offsets",
                         builder.getDenseI64ArrayAttr(staticPieceOffsets));
    builder.create(state);
    ++numVectorPieces;
  }
  toErase.push_back(op);
  return success();
}

} // namespace mlir::pto::expand_tiles
