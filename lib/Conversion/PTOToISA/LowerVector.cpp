//===- LowerVector.cpp - vector leaves to pto_isa -------------------------===//
//
// Views, unary ops, casts, reductions, full, arange and transpose over ub
// tiles (docs/ISA.md, "Vector leaves"); the elementwise binary ops with
// their scalar, row and column broadcasts are in LowerElementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

void LeafLowering::computeColumnAlignment() {
  // Both sides of a cast need one capacity (TCVT is elementwise between
  // equal capacities): widen to the larger block, through chains of casts.
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk([&](CastOp cast) {
      Value a = cast.getInput(), b = cast.getResult();
      int64_t ea = colAlign.lookup(a), eb = colAlign.lookup(b);
      if (!ea)
        ea = blockElems(cast.getInput().getType().getElementType());
      if (!eb)
        eb = blockElems(cast.getResult().getType().getElementType());
      int64_t m = std::max(ea, eb);
      if (colAlign.lookup(a) != m || colAlign.lookup(b) != m) {
        colAlign[a] = m;
        colAlign[b] = m;
        changed = true;
      }
    });
  }
}

//===----------------------------------------------------------------------===//
// Vector leaves
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::lowerVectorView(ViewOp op) {
  if (!isa<GMTensorType>(op.getSource().getType()))
    return lowerTileView(op);
  Location loc = op.getLoc();
  SmallVector<OpFoldResult> offsets = normalize(getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext()));
  SmallVector<OpFoldResult> explicitValid;
  if (std::optional<ArrayRef<int64_t>> valid = op.getStaticValidShape())
    explicitValid = normalize(
        getMixedValues(*valid, op.getValidShape(), builder.getContext()));
  WindowKey key{op.getSource(), offsets, explicitValid,
                llvm::to_vector(op.getResult().getType().getShape()), false};
  // DT_BOOL is loaded as its bytes and packed into a mask (LowerMask.cpp).
  bool mask = op.getResult().getType().getElementType().isSignlessInteger(1);
  FailureOr<pisa::TileType> type =
      mask ? maskTypeFor(op, op.getResult()) : ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  // In a MIX leaf a window loaded into one AIV's UB is not the other's.
  auto onThisAiv = [&](Value tile) {
    std::optional<int64_t> aiv =
        kind == CoreKind::mix ? pisa::getSubblock(tile) : std::nullopt;
    return !aiv || *aiv == currentSubblock;
  };
  for (auto &[k, tile] : windows)
    if (k == key && tile.getType() == Type(*type) && onThisAiv(tile)) {
      tiles[op.getResult()] = tile;
      replaced.push_back(op);
      return success();
    }
  auto [vr, vc] = validOf(loc, op.getResult());
  FailureOr<pisa::TileType> loaded =
      mask ? maskBytesTypeFor(op, op.getResult(),
                              IntegerType::get(builder.getContext(), 8,
                                               IntegerType::Unsigned))
           : type;
  if (failed(loaded))
    return failure();
  Value tile = alloc(loc, *loaded, vr, vc);
  if (unsigned split = gmRunSplit(op, op.getSource(), op.getResult())) {
    if (failed(lowerGMAccessPerRun(op, op.getSource(), offsets, op.getResult(),
                                   tile, split, /*store=*/false,
                                   /*atomic=*/false)))
      return failure();
  } else {
    FailureOr<Window2D> window =
        window2D(op, op.getSource(), offsets, op.getResult());
    if (failed(window))
      return failure();
    pisa::TLoadOp::create(builder, loc, window->tensor, window->row,
                          window->col, tile, /*transpose=*/false);
  }
  if (mask) {
    FailureOr<Value> packed = maskFromBytes(op, op.getResult(), tile);
    if (failed(packed))
      return failure();
    tile = *packed;
  }
  windows.push_back({key, tile});
  tiles[op.getResult()] = tile;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerUnary(Operation *op, Value input) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  FailureOr<Value> src = lookup(op, input);
  FailureOr<pisa::TileType> type = ubTypeFor(op, result);
  if (failed(src) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  if (isa<TanhOp>(op)) {
    tiles[result] = lowerTanh(loc, *src, *type, vr, vc);
    replaced.push_back(op);
    return success();
  }
  Value dst = alloc(loc, *type, vr, vc);
  // The pto_isa instruction of each unary op (an op of the unary family
  // without one is refused, not lowered to nothing).
  bool lowered =
      TypeSwitch<Operation *, bool>(op)
          .Case([&](ExpOp exp) {
            pisa::TExpOp::create(builder, loc, *src, dst, exp.getPrecision());
            return true;
          })
          .Case([&](AbsOp) {
            pisa::TAbsOp::create(builder, loc, *src, dst);
            return true;
          })
          .Case([&](SqrtOp) {
            pisa::TSqrtOp::create(builder, loc, *src, dst);
            return true;
          })
          .Case([&](RsqrtOp) {
            pisa::TRsqrtOp::create(builder, loc, *src, dst);
            return true;
          })
          .Case([&](ReciprocalOp) {
            pisa::TRecipOp::create(builder, loc, *src, dst);
            return true;
          })
          .Case([&](LogOp log) {
            pisa::TLogOp::create(builder, loc, *src, dst, log.getPrecision());
            return true;
          })
          .Case([&](NegOp) {
            pisa::TNegOp::create(builder, loc, *src, dst);
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!lowered)
    return op->emitOpError()
           << "has no pto_isa instruction in pto-lower-to-isa (add its case "
              "to LeafLowering::lowerUnary)";
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

/// pto-isa has no tanh instruction: tanh(x) = 1 - 2 / (exp(2x) + 1), six
/// vector instructions in f32 (an f16/bf16 source is widened exactly first
/// and the result rounded back, RINT). The form saturates without a
/// comparison: exp(2x) = inf gives 1, exp(2x) = 0 gives -1, NaN stays NaN.
/// Its error is absolute, about 2^-23 near 0 (docs/ISA.md, "tanh").
Value LeafLowering::lowerTanh(Location loc, Value src, pisa::TileType type,
                              Value vr, Value vc) {
  Type f32 = builder.getF32Type();
  bool narrow = !type.getElementType().isF32();
  auto wideType =
      pisa::TileType::get(builder.getContext(), type.getSpace(), type.getRows(),
                          type.getCols(), f32, type.getLayout());
  auto constant = [&](float c) -> Value {
    return arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(c));
  };
  auto next = [&]() { return alloc(loc, wideType, vr, vc); };
  Value x = src;
  if (narrow) {
    x = next();
    pisa::TCvtOp::create(
        builder, loc, src, x,
        CastModeAttr::get(builder.getContext(), CastMode::NONE),
        SaturationModeAttr::get(builder.getContext(), SaturationMode::OFF));
  }
  Value twoX = next();
  pisa::TMulSOp::create(builder, loc, x, constant(2.0f), twoX);
  Value e = next();
  pisa::TExpOp::create(builder, loc, twoX, e, PrecisionType::INTRINSIC);
  Value ePlusOne = next();
  pisa::TAddSOp::create(builder, loc, e, constant(1.0f), ePlusOne);
  Value inverse = next();
  pisa::TRecipOp::create(builder, loc, ePlusOne, inverse);
  Value scaled = next();
  pisa::TMulSOp::create(builder, loc, inverse, constant(-2.0f), scaled);
  Value wide = next();
  pisa::TAddSOp::create(builder, loc, scaled, constant(1.0f), wide);
  if (!narrow)
    return wide;
  Value dst = alloc(loc, type, vr, vc);
  pisa::TCvtOp::create(
      builder, loc, wide, dst,
      CastModeAttr::get(builder.getContext(), CastMode::RINT),
      SaturationModeAttr::get(builder.getContext(), SaturationMode::OFF));
  return dst;
}

LogicalResult LeafLowering::lowerCast(CastOp op) {
  Location loc = op.getLoc();
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, op.getResult());
  Value dst = alloc(loc, *type, vr, vc);
  // Saturation is about integer destinations; a float destination keeps
  // IEEE overflow (inf, NaN), as pto-run does, which is pto-isa's OFF (its ON
  // clamps to the largest finite value).
  bool clamp = op.saturates() &&
               isa<IntegerType>(op.getResult().getType().getElementType());
  pisa::TCvtOp::create(
      builder, loc, *src, dst,
      CastModeAttr::get(op.getContext(), op.getEffectiveMode()),
      SaturationModeAttr::get(op.getContext(), clamp ? SaturationMode::ON
                                                     : SaturationMode::OFF));
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerBitcast(BitcastOp op) {
  // pto-isa's TRESHAPE renames the source's bytes: every element keeps its
  // byte offset, so the two tiles must lay out their rows alike (the same
  // rows, the last dim as the columns, equal bytes per padded row).
  Location loc = op.getLoc();
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  unsigned last = op.getInput().getType().getRank() - 1;
  if (srcType.getSpace() != pisa::MemorySpace::ub)
    return op.emitOpError()
           << "reinterprets a tile held in "
           << pisa::stringifyMemorySpace(srcType.getSpace())
           << "; pto-lower-to-isa renames ub tiles only (TRESHAPE keeps the "
              "buffer): bring the value to ub first (a vector op or a "
              "store and view)";
  if (heldColumnDim(op.getInput()) != last ||
      heldColumnDim(op.getResult()) != last ||
      srcType.getRows() != type->getRows() ||
      srcType.getCols() * srcType.getElementByteSize() !=
          type->getCols() * type->getElementByteSize())
    return op.emitOpError()
           << "reinterprets " << srcType << " as " << *type
           << ", whose rows are laid out differently in ub (rows "
           << srcType.getRows() << " vs " << type->getRows()
           << ", bytes per row "
           << srcType.getCols() * srcType.getElementByteSize() << " vs "
           << type->getCols() * type->getElementByteSize()
           << "); TRESHAPE keeps every byte in place, so the last dim must "
              "be the column dim of both with equal padded row bytes: "
              "reinterpret a 2-D tile whose last dim is not a unit dim";
  auto [vr, vc] = validOf(loc, op.getResult());
  Value dst = alloc(loc, *type, vr, vc);
  pisa::TReshapeOp::create(builder, loc, *src, dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerReduce(Operation *op, Value input, int64_t dim,
                                        bool keepdim, bool isMax) {
  // In the 2-D form of the input ([rows of the leading dims, columns]): a
  // reduction over the column dim is TROWSUM/TROWMAX into a column; one over
  // a leading dim is TCOLSUM/TCOLMAX into a row when it is the only
  // non-unit leading dim (otherwise the rows it sums are strided).
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto inType = cast<pto::TileType>(input.getType());
  auto resType = cast<pto::TileType>(result.getType());
  ArrayRef<int64_t> in = inType.getShape();
  Type elem = resType.getElementType();
  unsigned c = heldColumnDim(input);
  bool rowReduce = dim == c;
  bool otherRowsUnit = true, innerRowsUnit = true;
  for (unsigned d = 0; d < c; ++d) {
    otherRowsUnit &= d == dim || in[d] == 1;
    innerRowsUnit &= d <= dim || in[d] == 1;
  }
  // Over a leading dim after other non-unit ones: one TCOLSUM/TCOLMAX per
  // index of the dims before it when its rows are contiguous, else (other
  // non-unit row dims follow it) the sum of its blocks of rows.
  bool resultKeepsOtherRows =
      heldShape(result) ==
      std::make_pair(heldShape(input).first / in[dim], heldShape(input).second);
  if (!rowReduce && dim < c && !otherRowsUnit && resultKeepsOtherRows)
    return innerRowsUnit ? lowerReducePerLeadingIndex(op, input, dim, isMax)
                         : lowerReduceOverBlocks(op, input, dim, isMax);
  if (!rowReduce && (dim > c || !otherRowsUnit))
    return op->emitOpError()
           << "reduces dim " << dim << " of a " << shapeString(inType)
           << " tile into a " << shapeString(resType)
           << " tile, which pto-lower-to-isa holds as 2-D rows of dims 0.."
           << (c ? c - 1 : 0) << " by columns of dim " << c
           << "; it lowers reductions over the column dim (TROWSUM/TROWMAX) "
              "and over a leading dim (TCOLSUM/TCOLMAX, or the sum of its "
              "blocks of rows) whose result keeps the other rows and the "
              "columns in that 2-D form: reshape to 2-D, or reduce with "
              "keepdim";
  // The 2-D form the result must have: a column of the input's rows (row
  // reduction) or a row of its columns (column reduction). Without keepdim
  // a row reduction's column is transposed into a row when the result is
  // one.
  auto [resRows, resCols] = heldShape(result);
  auto [inRows, inCols] = heldShape(input);
  bool transposeColumn = false;
  if (rowReduce && !(resRows == inRows && resCols == 1)) {
    transposeColumn = resRows == 1 && resCols == inRows;
    if (keepdim || !transposeColumn)
      return op->emitOpError()
             << "reduces the column dim of a " << shapeString(inType)
             << " tile into a " << shapeString(resType)
             << " tile whose 2-D form is [" << resRows << ", " << resCols
             << "], neither the [" << inRows
             << ", 1] column TROWSUM/TROWMAX produce nor a row holding it; "
                "pto-lower-to-isa cannot rearrange it: reduce with keepdim "
                "(the result is held as a column), or reshape to 2-D";
  }
  if (!rowReduce && !(resRows == 1 && resCols == inCols))
    return op->emitOpError()
           << "reduces dim " << dim << " of a " << shapeString(inType)
           << " tile into a " << shapeString(resType)
           << " tile whose 2-D form is [" << resRows << ", " << resCols
           << "], not the [1, " << inCols
           << "] row TCOLSUM/TCOLMAX produce; reshape to 2-D";
  FailureOr<Value> src = lookup(op, input);
  if (failed(src))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  if (!rowReduce) {
    // One row holding each column's result, with the source's column
    // capacity (pto-isa's TCOLSUM/TCOLMAX want equal Cols).
    FailureOr<pisa::TileType> dstType =
        makeTileType(op, pisa::MemorySpace::ub, 1, srcType.getCols(), elem,
                     pisa::TileLayout::nd);
    if (failed(dstType))
      return failure();
    auto [vr, vc] = validOf(loc, result);
    Value dst = alloc(loc, *dstType, vr, vc);
    if (isMax)
      pisa::TColMaxOp::create(builder, loc, *src, dst);
    else
      pisa::TColSumOp::create(builder, loc, *src, dst);
    tiles[result] = dst;
    replaced.push_back(op);
    return success();
  }
  FailureOr<pisa::TileType> dstType =
      makeTileType(op, pisa::MemorySpace::ub, srcType.getRows(),
                   blockElems(elem), elem, pisa::TileLayout::nd);
  if (failed(dstType))
    return failure();
  // The scratch pto-isa's implementation on this target writes (half the
  // source for an A2/A3 float TROWSUM), not a copy of the source's size.
  auto [sr, sc] = validOf(loc, input);
  auto [tmpRows, tmpCols] = pisa::getRowReduceScratchShape(
      platform.arch, elem, srcType.getRows(), srcType.getCols(), !isMax);
  FailureOr<pisa::TileType> tmpType = makeTileType(
      op, pisa::MemorySpace::ub, tmpRows, tmpCols, elem, pisa::TileLayout::nd);
  if (failed(tmpType))
    return failure();
  Value tmp = alloc(loc, *tmpType, constIndex(tmpRows), constIndex(tmpCols));
  Value dst;
  if (!transposeColumn) {
    auto [vr, vc] = validOf(loc, result);
    dst = alloc(loc, *dstType, vr, vc);
  } else {
    dst = alloc(loc, *dstType, sr, constIndex(1));
  }
  if (isMax)
    pisa::TRowMaxOp::create(builder, loc, *src, tmp, dst);
  else
    pisa::TRowSumOp::create(builder, loc, *src, tmp, dst);
  if (transposeColumn) {
    // [R, 1] -> [1, R]: the result's row form.
    FailureOr<pisa::TileType> rowType = ubTypeFor(op, result);
    if (failed(rowType))
      return failure();
    auto [vr, vc] = validOf(loc, result);
    Value scratch = alloc(loc, *rowType, vr, vc);
    Value row = alloc(loc, *rowType, vr, vc);
    pisa::TTransOp::create(builder, loc, dst, scratch, row);
    dst = row;
  }
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerFull(FullOp op) {
  Location loc = op.getLoc();
  Type elem = op.getResult().getType().getElementType();
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  TypedAttr value;
  if (auto ft = dyn_cast<FloatType>(elem))
    value = builder.getFloatAttr(ft, op.getValue().convertToDouble());
  else
    value = builder.getIntegerAttr(
        elem, static_cast<int64_t>(op.getValue().convertToDouble()));
  Value scalar = arith::ConstantOp::create(builder, loc, value);
  auto [vr, vc] = validOf(loc, op.getResult());
  Value dst = alloc(loc, *type, vr, vc);
  pisa::TExpandSOp::create(builder, loc, scalar, dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

// A [N] sequence is held as a [1, N] ub row, TCI's form. TCI counts by
// one from an integer: another step is TCI from 0, converted to f32 for a
// float sequence (exact below 2^24), times step (TMULS) plus start (TADDS).
// i32 is exact; f32 rounds twice where pto-run rounds start + i * step
// once (docs/ISA.md, "arange").
LogicalResult LeafLowering::lowerArange(ArangeOp op) {
  Location loc = op.getLoc();
  Type elem = op.getResult().getType().getElementType();
  double start = op.getStart().convertToDouble(),
         step = op.getStep().convertToDouble();
  if (!elem.isInteger(32) && !elem.isF32())
    return op.emitOpError()
           << "is a " << elem
           << " sequence; pto-lower-to-isa lowers i32 and f32 sequences "
              "(pto-isa's TCI, TMULS, TADDS): build it in f32 and cast it";
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  auto valid = validOf(loc, op.getResult());
  Value vr = valid.first, vc = valid.second;
  Value dst = alloc(loc, *type, vr, vc);
  if (elem.isInteger(32) && step == 1.0) {
    pisa::TCIOp::create(builder, loc, dst,
                        builder.getI64IntegerAttr(static_cast<int64_t>(start)));
    tiles[op.getResult()] = dst;
    replaced.push_back(op);
    return success();
  }
  bool scales = step != 1.0, shifts = start != 0.0;
  // Each step writes a fresh tile but the last, which writes dst.
  auto into = [&](bool last) { return last ? dst : alloc(loc, *type, vr, vc); };
  Value seq;
  if (elem.isInteger(32)) {
    seq = into(false);
  } else {
    seq = alloc(loc,
                pisa::TileType::get(builder.getContext(), type->getSpace(),
                                    type->getRows(), type->getCols(),
                                    builder.getI32Type(), type->getLayout()),
                vr, vc);
  }
  pisa::TCIOp::create(builder, loc, seq, builder.getI64IntegerAttr(0));
  if (elem.isF32()) {
    Value wide = into(!scales && !shifts);
    pisa::TCvtOp::create(
        builder, loc, seq, wide,
        CastModeAttr::get(builder.getContext(), CastMode::NONE),
        SaturationModeAttr::get(builder.getContext(), SaturationMode::OFF));
    seq = wide;
  }
  auto constant = [&](double c) -> Value {
    TypedAttr value =
        elem.isF32() ? TypedAttr(builder.getF32FloatAttr(static_cast<float>(c)))
                     : TypedAttr(builder.getI32IntegerAttr(
                           static_cast<int32_t>(static_cast<int64_t>(c))));
    return arith::ConstantOp::create(builder, loc, value);
  };
  if (scales) {
    Value scaled = into(!shifts);
    pisa::TMulSOp::create(builder, loc, seq, constant(step), scaled);
    seq = scaled;
  }
  if (shifts)
    pisa::TAddSOp::create(builder, loc, seq, constant(start), dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerTranspose(TransposeOp op) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> from = op.getInput().getType().getShape(),
                    to = op.getResult().getType().getShape();
  // Exactly two non-unit dims that swap ([1, 32, 2] -> [1, 2, 32], the
  // interleaved RoPE's transposes): a 2-D transpose of the held forms.
  SmallVector<int64_t> nonUnitFrom, nonUnitTo;
  llvm::copy_if(from, std::back_inserter(nonUnitFrom),
                [](int64_t d) { return d != 1; });
  llvm::copy_if(to, std::back_inserter(nonUnitTo),
                [](int64_t d) { return d != 1; });
  bool swapsTwo =
      from.size() != 2 && nonUnitFrom.size() == 2 && nonUnitTo.size() == 2 &&
      nonUnitFrom[0] == nonUnitTo[1] && nonUnitFrom[1] == nonUnitTo[0] &&
      nonUnitFrom[0] != nonUnitFrom[1] &&
      heldShape(op.getInput()) ==
          std::make_pair(nonUnitFrom[0], nonUnitFrom[1]) &&
      heldShape(op.getResult()) == std::make_pair(nonUnitTo[0], nonUnitTo[1]);
  if (from.size() != 2 && !swapsTwo) {
    // When the non-unit dims keep their order, so do the elements: the
    // collapsed tile is the source's and no data moves (in the default
    // forms: a column-form source is no such alias).
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, from.size()));
    std::swap(perm[op.getDim0()], perm[op.getDim1()]);
    int64_t last = -1;
    for (auto [k, d] : llvm::enumerate(perm)) {
      if (to[k] == 1)
        continue;
      if (d < last)
        return op.emitOpError()
               << "transposes dims " << op.getDim0() << " and " << op.getDim1()
               << " of a " << shapeString(op.getInput().getType())
               << " tile, reordering its non-unit dims; pto-lower-to-isa "
                  "transposes 2-D tiles, and N-D tiles only where the "
                  "non-unit dims keep their order (a unit dim moves)";
      last = d;
    }
    if (heldShape(op.getInput()) != heldShape(op.getResult()))
      return op.emitOpError()
             << "transposes a " << shapeString(op.getInput().getType())
             << " tile held as a column (the result of a row reduction or a "
                "per-row operand); pto-lower-to-isa moves unit dims of N-D "
                "tiles held in their default 2-D form only";
    FailureOr<Value> src = lookup(op, op.getInput());
    if (failed(src))
      return failure();
    tiles[op.getResult()] = *src;
    replaced.push_back(op);
    return success();
  }
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  // The scratch TTRANS transposes into before the copy to dst: dst's shape.
  auto [vr, vc] = validOf(loc, op.getResult());
  Value tmp = alloc(loc, *type, vr, vc);
  Value dst = alloc(loc, *type, vr, vc);
  pisa::TTransOp::create(builder, loc, *src, tmp, dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
