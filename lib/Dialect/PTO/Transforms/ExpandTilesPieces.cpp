//===- ExpandTilesPieces.cpp - grids, views and workspaces of the pieces --===//
//
// Part of pto-expand-tiles (ExpandTiles.h): the piece bookkeeping every op
// family shares: the grid of a tile, a piece read from its tile (composed
// into one view of GM where the tile lives there), the workspace a result
// is stored into and the full-window view its consumers read.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::expand_tiles {

SmallVector<Piece> tileGrid(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile) {
  SmallVector<Piece> pieces;
  int64_t rank = shape.size();
  SmallVector<int64_t, 4> idx(rank, 0);
  while (true) {
    Piece piece;
    for (int64_t d = 0; d < rank; ++d) {
      piece.offsets.push_back(idx[d]);
      piece.sizes.push_back(std::min(tile[d], shape[d] - idx[d]));
    }
    pieces.push_back(piece);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      idx[d] += tile[d];
      if (idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return pieces;
  }
}
int64_t gridSize(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile) {
  int64_t count = 1;
  for (auto [size, step] : llvm::zip(shape, tile)) {
    int64_t n = step > 0 ? (size + step - 1) / step : kMaxPieces + 1;
    count = std::min<int64_t>(count * std::min<int64_t>(n, kMaxPieces + 1),
                              kMaxPieces + 1);
  }
  return count;
}

SmallVector<int64_t, 4> vectorTileFor(VecTileAttr attr,
                                      ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> tile(shape.begin(), shape.end());
  if (!attr)
    return tile;
  ArrayRef<int64_t> dims = attr.getDims();
  int64_t offset = int64_t(dims.size()) - int64_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    if (offset + int64_t(d) >= 0)
      tile[d] = std::min(dims[offset + d], shape[d]);
  return tile;
}

bool halveOutermost(SmallVectorImpl<int64_t> &tile) {
  auto it = llvm::find_if(tile, [](int64_t d) { return d > 1; });
  if (it == tile.end() || it == std::prev(tile.end()))
    return false;
  *it = (*it + 1) / 2;
  return true;
}

ViewOp Expander::createView(Location loc, Value source,
                            ArrayRef<OpFoldResult> offsets,
                            ArrayRef<OpFoldResult> valid, TileType type) {
  SmallVector<int64_t> staticOffsets, staticValid;
  SmallVector<Value> dynamicOffsets, dynamicValid;
  dispatchIndexOpFoldResults(offsets, dynamicOffsets, staticOffsets);
  DenseI64ArrayAttr validAttr;
  if (!valid.empty()) {
    dispatchIndexOpFoldResults(valid, dynamicValid, staticValid);
    validAttr = builder.getDenseI64ArrayAttr(staticValid);
  }
  return ViewOp::create(builder, loc, type, source, dynamicOffsets,
                        builder.getDenseI64ArrayAttr(staticOffsets),
                        dynamicValid, validAttr);
}

Value Expander::readPiece(Location loc, Value tile, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes) {
  auto type = cast<TileType>(tile.getType());
  auto pieceType =
      TileType::get(builder.getContext(), sizes, type.getElementType());
  // A view of a GM tensor (a program-level view or the full-window view of
  // a workspace): compose into one view of the tensor. So too through views
  // of that tile when its data is in GM anyway (a kernel tensor, or a
  // matmul result, which the cube writes to GM: IFA's `pypto.view(sij, ...,
  // valid_shape=)`): a piece then loads its own window, not the whole tile
  // it is cut from (two [12, 2048] f32 tiles did not fit UB). A vector
  // result stays a view of the tile: its task may keep it in UB.
  SmallVector<ViewOp> chain;
  for (Value v = tile; auto view = v.getDefiningOp<ViewOp>();
       v = view.getSource()) {
    if (cast<ShapedType>(view.getSource().getType()).getRank() !=
        type.getRank())
      break;
    chain.push_back(view);
    if (!isa<TileType>(view.getSource().getType()))
      break;
  }
  auto inGM = [&](ViewOp root) {
    return chain.size() == 1 ||
           !root.getSource().getDefiningOp<WorkspaceOp>() ||
           cubeResultViews.contains(root);
  };
  if (!chain.empty() && isa<GMTensorType>(chain.back().getSource().getType()) &&
      inGM(chain.back())) {
    SmallVector<OpFoldResult> valid =
        reifier.reify(chain.front().getLoc(), tile);
    // The chain's offsets summed once per tile (and block: like indexOps).
    SmallVector<OpFoldResult> &baseOffsets =
        composedOffsets[{tile, builder.getInsertionBlock()}];
    if (baseOffsets.empty()) {
      baseOffsets.assign(type.getRank(), builder.getIndexAttr(0));
      for (ViewOp view : chain)
        for (auto [d, offset] : llvm::enumerate(
                 getMixedValues(view.getStaticOffsets(), view.getOffsets(),
                                builder.getContext())))
          baseOffsets[d] = addMixed(loc, baseOffsets[d], offset);
    }
    SmallVector<OpFoldResult> pieceOffsets, pieceValid;
    for (size_t d = 0; d < offsets.size(); ++d) {
      pieceOffsets.push_back(add(loc, baseOffsets[d], offsets[d]));
      pieceValid.push_back(clampedSub(loc, valid[d], offsets[d], sizes[d]));
    }
    ViewOp piece = createView(loc, chain.back().getSource(), pieceOffsets,
                              pieceValid, pieceType);
    stamp(piece, chain.front());
    // The views of tiles in between stay, dead: they may fault at run time
    // (a valid extent past their source's), as other dead views do.
    composedViews.insert(chain.back());
    return piece;
  }
  // Whole tile: no view needed.
  if (llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
      ArrayRef<int64_t>(sizes) == type.getShape())
    return tile;
  // Any other tile (loop-carried, scf.if result): a view of the tile; the
  // view rule derives the piece's valid extents at run time.
  SmallVector<OpFoldResult> pieceOffsets;
  for (int64_t o : offsets)
    pieceOffsets.push_back(builder.getIndexAttr(o));
  return createView(loc, tile, pieceOffsets, {}, pieceType);
}

Value Expander::createWorkspace(Operation *op, Value result) {
  auto type = cast<TileType>(result.getType());
  // The valid shape of the whole result, from the operands, before they are
  // rewritten.
  reifier.reify(op->getLoc(), result);
  auto workspace = WorkspaceOp::create(
      builder, op->getLoc(),
      GMTensorType::get(builder.getContext(), type.getShape(),
                        type.getElementType()));
  ++numWorkspaces;
  return workspace;
}

void Expander::finish(Operation *op, Value result, Value workspace,
                      bool eraseOp) {
  auto type = cast<TileType>(result.getType());
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), result);
  SmallVector<OpFoldResult> zeros(type.getRank(), builder.getIndexAttr(0));
  ViewOp whole = createView(op->getLoc(), workspace, zeros, valid, type);
  stamp(whole, op);
  composedViews.insert(whole);
  if (isa<MatmulOp>(op))
    cubeResultViews.insert(whole);
  reifier.remember(whole, valid);
  if (!currentTile.empty())
    pieceTiles[whole] = currentTile;
  currentTile.clear();
  result.replaceAllUsesWith(whole.getResult());
  if (eraseOp)
    toErase.push_back(op);
}

AssembleOp storePiece(OpBuilder &builder, Location loc, Value piece,
                      Value workspace, ArrayRef<int64_t> offsets) {
  return AssembleOp::create(builder, loc, piece, workspace, ValueRange(),
                            builder.getDenseI64ArrayAttr(offsets),
                            VecTileAttr());
}

} // namespace mlir::pto::expand_tiles
