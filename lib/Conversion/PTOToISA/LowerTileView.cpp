//===- LowerTileView.cpp - views of tiles to pto_isa ----------------------===//
//
// A pto.view of a tile inside a vector leaf: a TEXTRACT (ub -> ub) copy of
// the sub-tile, when the view is a rectangle of the source's 2-D form
// (docs/ISA.md, "Views of tiles").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// The view's elements must sit in the source's 2-D form as one rectangle
/// starting at a static [row, column] (the same dim held as the columns;
/// past the first non-unit leading dim of the view, it covers the source's
/// dim whole), or as evenly spaced runs of such rows (x[:, k, :] of a
/// [B, S, D] tile: one TEXTRACT + TINSERT per run). pto-isa's ub -> ub
/// TEXTRACT starts the window on a 32-byte column boundary.
LogicalResult LeafLowering::lowerTileView(ViewOp op) {
  Value source = op.getSource(), result = op.getResult();
  auto srcType = cast<pto::TileType>(source.getType());
  auto resType = cast<pto::TileType>(result.getType());
  ArrayRef<int64_t> from = srcType.getShape(), to = resType.getShape();
  SmallVector<OpFoldResult> offsets = normalize(getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext()));
  // Static offsets, 0 where the offset is a run-time value.
  SmallVector<int64_t> start;
  SmallVector<unsigned> runtimeDims;
  for (auto [d, ofr] : llvm::enumerate(offsets)) {
    std::optional<int64_t> c = getConstantIntValue(ofr);
    if (!c)
      runtimeDims.push_back(d);
    start.push_back(c.value_or(0));
  }
  unsigned cs = heldColumnDim(source), cv = heldColumnDim(result);
  auto runtimeOffsetError = [&](unsigned d) {
    return op.emitOpError()
           << "views a " << shapeString(srcType)
           << " tile at a run-time offset in dim " << d
           << ", after its column dim " << cs
           << "; pto-lower-to-isa copies sub-tiles of tiles (TEXTRACT) at "
              "run-time offsets in the row dims and the column dim only: view "
              "the GM tensor at that offset instead";
  };
  // A run-time column goes to TEXTRACT's column operand; the row dims'
  // run-time offsets to its row operand.
  Value runtimeCol;
  for (unsigned d : runtimeDims) {
    if (d == cs) {
      runtimeCol = materialize(offsets[d]);
      continue;
    }
    if (d > cs)
      return runtimeOffsetError(d);
  }
  llvm::erase(runtimeDims, cs);
  if (from.size() != to.size() || cs != cv)
    return op.emitOpError()
           << "views a " << shapeString(srcType) << " tile as a "
           << shapeString(resType)
           << " tile whose last non-unit dim differs from the source's; "
              "pto-lower-to-isa copies sub-tiles that keep the source's "
              "columns (TEXTRACT): reshape the result instead";
  // The view's rows are contiguous in the source's 2-D form from dim
  // `split` on: past the first non-unit one of dims split..cs-1, the view
  // covers the source's dims whole. Dims before `split` index runs of
  // contiguous rows (x[:, k, :] of [B, S, D]: B runs of one row).
  auto contiguousFrom = [&](unsigned k) {
    bool leading = false;
    for (unsigned d = k; d < cs; ++d) {
      if (leading && to[d] != from[d])
        return false;
      leading |= to[d] != 1;
    }
    return true;
  };
  unsigned split = 0;
  while (!contiguousFrom(split))
    ++split;
  // The source row where run `o` (row-major over the view's dims
  // 0..split-1) starts.
  auto rowOfRun = [&](int64_t o) {
    SmallVector<int64_t> index(cs, 0);
    for (unsigned d = split; d-- > 0;) {
      index[d] = o % to[d];
      o /= to[d];
    }
    int64_t row = 0;
    for (unsigned d = 0; d < cs; ++d)
      row = row * from[d] + start[d] + index[d];
    return row;
  };
  int64_t col = start[cs];
  Type elem = resType.getElementType();
  Location loc = op.getLoc();
  int64_t runs = 1, runRows = 1;
  for (unsigned d = 0; d < cs; ++d)
    (d < split ? runs : runRows) *= to[d];
  bool unaligned = col % blockElems(elem) != 0;
  if (unaligned && runs > 1)
    return op.emitOpError()
           << "views a " << shapeString(srcType) << " tile from column " << col
           << " as " << runs
           << " runs of rows; pto-isa's ub -> ub TEXTRACT starts on a 32-byte "
           << "boundary (a multiple of " << blockElems(elem) << " elements of "
           << elem
           << ") and pto-lower-to-isa moves an unaligned column start only "
              "for a view that is one rectangle: start the view there, or "
              "view the GM tensor instead";
  // The run-time part of the first row: offset * (rows per index of d).
  // The rows are linear in the offsets, so it is the same for every run.
  OpFoldResult runtimeRow = builder.getIndexAttr(0);
  for (unsigned d : runtimeDims) {
    OpFoldResult term = offsets[d];
    for (unsigned e = d + 1; e < cs; ++e)
      term = mul(loc, term, builder.getIndexAttr(from[e]));
    runtimeRow = isConstantIntValue(runtimeRow, 0)
                     ? term
                     : OpFoldResult(arith::AddIOp::create(
                                        builder, loc, materialize(runtimeRow),
                                        materialize(term))
                                        .getResult());
  }
  Value rowOffset = runtimeDims.empty() ? Value() : materialize(runtimeRow);
  if (runs > 1) {
    // One TEXTRACT + TINSERT per run; the valid runs are a prefix (past the
    // first non-unit dim every leading dim is whole: expectCollapsible).
    SmallVector<OpFoldResult> valid = reifier.reify(loc, result);
    OpFoldResult count = builder.getIndexAttr(1),
                 runValid = builder.getIndexAttr(1);
    for (unsigned d = 0; d < cs; ++d) {
      OpFoldResult &factor = d < split ? count : runValid;
      factor = mul(loc, factor, valid[d]);
    }
    return lowerTileViewPerRun(op, runs, runRows, count, runValid, rowOfRun,
                               col, rowOffset, runtimeCol);
  }
  FailureOr<Value> src = lookup(op, source);
  FailureOr<pisa::TileType> type = ubTypeFor(op, result);
  if (failed(src) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *type, vr, vc);
  if (unaligned) {
    if (failed(lowerUnalignedColumnView(op, *src, dst, runRows, to[cs],
                                        rowOfRun(0), rowOffset, col)))
      return failure();
  } else {
    pisa::TExtractOp::create(builder, loc, *src, dst, rowOfRun(0), col,
                             rowOffset, runtimeCol);
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// A view of `rows` x `cols` elements of `src` from row `row` (+
/// `rowOffset`) and from a static column `col` off a 32-byte boundary, into
/// `dst`. pto-isa's ub -> ub
/// TEXTRACT cannot start there, but a row can start anywhere: the rows are
/// transposed (TTRANS) so that the view's columns become rows, those rows
/// copied out (TEXTRACT at row `col`) and transposed back (TTRANS). Rows
/// other than the source's whole valid rows are copied out first
/// (TEXTRACT at column 0). Three or four V instructions where an aligned
/// view is one (docs/ISA.md, "Views of tiles").
LogicalResult LeafLowering::lowerUnalignedColumnView(ViewOp op, Value src,
                                                     Value dst, int64_t rows,
                                                     int64_t cols, int64_t row,
                                                     Value rowOffset,
                                                     int64_t col) {
  Location loc = op.getLoc();
  auto srcType = cast<pisa::TileType>(src.getType());
  auto dstType = cast<pisa::TileType>(dst.getType());
  Type elem = srcType.getElementType();
  int64_t align = blockElems(elem);
  auto allocOp = dst.getDefiningOp<pisa::AllocTileOp>();
  Value vr = allocOp.getValidRows(), vc = allocOp.getValidCols();
  Value srcCols = validOf(loc, op.getSource()).second;
  // The view's rows with all the source's columns.
  Value rowsTile = src;
  if (row != 0 || rowOffset || rows != srcType.getRows()) {
    FailureOr<pisa::TileType> type =
        makeTileType(op, pisa::MemorySpace::ub, rows, srcType.getCols(), elem,
                     pisa::TileLayout::nd);
    if (failed(type))
      return failure();
    rowsTile = alloc(loc, *type, vr, srcCols);
    pisa::TExtractOp::create(builder, loc, src, rowsTile, row, 0, rowOffset,
                             Value());
  }
  FailureOr<pisa::TileType> transposedType =
      makeTileType(op, pisa::MemorySpace::ub, srcType.getCols(),
                   roundUp(rows, align), elem, pisa::TileLayout::nd);
  FailureOr<pisa::TileType> windowType =
      makeTileType(op, pisa::MemorySpace::ub, cols, roundUp(rows, align), elem,
                   pisa::TileLayout::nd);
  if (failed(transposedType) || failed(windowType))
    return failure();
  Value transposed = alloc(loc, *transposedType, srcCols, vr);
  Value scratch = alloc(loc, *transposedType, srcCols, vr);
  pisa::TTransOp::create(builder, loc, rowsTile, scratch, transposed);
  Value window = alloc(loc, *windowType, vc, vr);
  pisa::TExtractOp::create(builder, loc, transposed, window, col, 0);
  Value back = alloc(loc, dstType, vr, vc);
  pisa::TTransOp::create(builder, loc, window, back, dst);
  return success();
}

} // namespace mlir::pto::lower_to_isa
