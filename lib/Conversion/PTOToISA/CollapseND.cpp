//===- CollapseND.cpp - N-D tiles as 2-D pto_isa tiles
//----------------------===//
//
// Tiles of rank other than 2 reach pto_isa as 2-D tiles: the dims before the
// last non-unit dim are rows, that dim the columns, unit dims after it drop;
// their GM windows are read through in-place 2-D reshapes of the tensor.
// Rules: docs/ISA.md ("N-D tiles").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

/// Tiles and tensors of rank other than 2 reach views, stores and the
/// shape-preserving vector ops (elementwise on equal shapes, unary, cast,
/// full, a transpose that only moves unit dims), collapsed to 2-D.
/// Reductions, broadcasts and matmuls need rank-2 operands.
LogicalResult LeafLowering::expectLowerableRank(Operation *op) {
  auto rankOf = [](Type t) -> int64_t {
    if (auto tile = dyn_cast<pto::TileType>(t))
      return tile.getRank();
    if (auto tensor = dyn_cast<GMTensorType>(t))
      return tensor.getRank();
    return 2;
  };
  bool allRank2 = llvm::all_of(op->getOperandTypes(),
                               [&](Type t) { return rankOf(t) == 2; }) &&
                  llvm::all_of(op->getResultTypes(),
                               [&](Type t) { return rankOf(t) == 2; });
  if (allRank2)
    return success();
  // A gathermask keeps the leading dims and selects along the last one,
  // which stays the column dim (its result's last dim fills whole ub rows,
  // lowerGatherMask checks, so it is not a unit dim).
  bool shapePreserving = isa<ViewOp, AssembleOp, AtomicAddOp, CastOp, FullOp,
                             TransposeOp, ExpOp, AbsOp, SqrtOp, RsqrtOp,
                             ReciprocalOp, NegOp, GatherMaskOp, IndexPutOp>(op);
  // A reduction of a rank-2 tile without keepdim: its rank-1 result is a
  // [1, N] row (lowerReduce).
  if (isa<SumOp, AmaxOp>(op) &&
      cast<pto::TileType>(op->getOperand(0).getType()).getRank() == 2)
    shapePreserving = true;
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op)) {
    // Equal tile shapes or a scalar; a broadcast between N-D tiles is not
    // collapsed.
    Type resultType = op->getResult(0).getType();
    shapePreserving = llvm::all_of(op->getOperandTypes(), [&](Type t) {
      return !isa<pto::TileType>(t) || t == resultType;
    });
  }
  if (!shapePreserving) {
    for (Type t :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (rankOf(t) != 2)
        return op->emitOpError()
               << "has a rank-" << rankOf(t)
               << " operand or result; pto-lower-to-isa collapses tiles of "
                  "other ranks to 2-D only for views, stores and "
                  "shape-preserving vector ops (elementwise on equal shapes, "
                  "unary, cast, full, a transpose of unit dims, gathermask, "
                  "index_put, reductions of rank-2 tiles without keepdim); "
                  "reshape to 2-D before this op";
  }
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (isa<pto::TileType>(v.getType()) && failed(expectCollapsible(op, v)))
      return failure();
  return success();
}

/// Rows linearise the dims before the column dim: past the first non-unit
/// one of them, every dim must be valid in full, or the valid region is no
/// rectangle in 2-D.
LogicalResult LeafLowering::expectCollapsible(Operation *op, Value ptoTile) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2)
    return success();
  unsigned c = columnDim(shape);
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), ptoTile);
  bool leading = false;
  for (unsigned d = 0; d < c; ++d) {
    if (leading && shape[d] != 1 && getConstantIntValue(valid[d]) != shape[d])
      return op->emitOpError()
             << "has a " << shapeString(cast<pto::TileType>(ptoTile.getType()))
             << " tile whose dim " << d
             << " is not statically valid in full; pto-lower-to-isa collapses "
                "the dims before the last non-unit one into rows only when "
                "every one after the first is whole";
    leading |= shape[d] != 1;
  }
  return success();
}

/// The 2-D window of an N-D GM tensor that a collapsed tile of `tileShape` at
/// `offsets` reads or writes: a reshape of the tensor to [rows of the dims
/// before the column dim, the column dim] and the linearised offsets. The
/// window must be a rectangle in it: the tensor's dims after the column dim
/// are 1, and past the first non-unit tile dim of the rows the tile covers
/// the tensor's dim whole.
FailureOr<LeafLowering::Window2D>
LeafLowering::window2D(Operation *op, Value tensor,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<int64_t> tileShape) {
  auto type = cast<GMTensorType>(tensor.getType());
  ArrayRef<int64_t> dims = type.getShape();
  Location loc = op->getLoc();
  if (dims.size() == 2)
    return Window2D{tensor, materialize(offsets[0]), materialize(offsets[1])};
  unsigned c = columnDim(tileShape);
  for (unsigned d = c + 1; d < dims.size(); ++d)
    if (dims[d] != 1)
      return op->emitOpError()
             << "reads or writes a " << type << " window whose columns (dim "
             << c << ") are strided: the tensor's dim " << d << " is "
             << (ShapedType::isDynamic(dims[d]) ? std::string("dynamic")
                                                : std::to_string(dims[d]))
             << ", not 1; pto-lower-to-isa loads and stores row-major 2-D "
                "windows (reshape the tensor so that the tile's last non-unit "
                "dim is the tensor's innermost)";
  bool leading = false;
  for (unsigned d = 0; d < c; ++d) {
    if (leading && tileShape[d] != dims[d])
      return op->emitOpError()
             << "reads or writes a " << type << " window whose dim " << d
             << " (" << tileShape[d]
             << ") is not the whole tensor dim: its rows are not evenly "
                "strided in GM, so the window is no 2-D rectangle";
    leading |= tileShape[d] != 1;
  }
  Value &reshaped = tensors2D[{tensor, c}];
  if (!reshaped) {
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *def = tensor.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(&func.getBody().front());
    auto size = [&](unsigned d) -> OpFoldResult {
      if (!ShapedType::isDynamic(dims[d]))
        return builder.getIndexAttr(dims[d]);
      return builder.create<DimOp>(loc, tensor, d).getResult();
    };
    OpFoldResult rows = builder.getIndexAttr(1);
    for (unsigned d = 0; d < c; ++d)
      rows = mul(loc, rows, size(d));
    SmallVector<OpFoldResult> shape2D = {rows, size(c)};
    SmallVector<int64_t> staticShape;
    SmallVector<Value> dynamicShape;
    dispatchIndexOpFoldResults(shape2D, dynamicShape, staticShape);
    auto type2D = GMTensorType::get(builder.getContext(), staticShape,
                                    type.getElementType());
    reshaped = builder
                   .create<ReshapeOp>(loc, type2D, tensor, dynamicShape,
                                      builder.getDenseI64ArrayAttr(staticShape),
                                      builder.getUnitAttr())
                   .getResult();
  }
  // row = ((o0 * d1 + o1) * d2 + ...) over the dims before the column dim.
  OpFoldResult row = builder.getIndexAttr(0);
  for (unsigned d = 0; d < c; ++d) {
    OpFoldResult size =
        ShapedType::isDynamic(dims[d])
            ? OpFoldResult(builder.create<DimOp>(loc, tensor, d).getResult())
            : OpFoldResult(builder.getIndexAttr(dims[d]));
    row = mul(loc, row, size);
    std::optional<int64_t> cr = getConstantIntValue(row),
                           co = getConstantIntValue(offsets[d]);
    if (cr && co)
      row = builder.getIndexAttr(*cr + *co);
    else if (cr == 0)
      row = offsets[d];
    else if (co != 0)
      row = builder
                .create<arith::AddIOp>(loc, materialize(row),
                                       materialize(offsets[d]))
                .getResult();
  }
  return Window2D{reshaped, materialize(row), materialize(offsets[c])};
}

} // namespace mlir::pto::lower_to_isa
