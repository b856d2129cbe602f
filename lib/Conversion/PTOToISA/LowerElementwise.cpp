//===- LowerElementwise.cpp - elementwise vector ops to pto_isa -----------===//
//
// Binary elementwise ops of vector leaves (docs/ISA.md, "Vector leaves"):
// with a scalar, a [1, C] row or an [R, 1] column broadcast against the
// other operand, and operands whose valid extents differ from the
// result's, as pto-isa's instructions require them equal.
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <functional>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

void createBinary(OpBuilder &b, Location loc, BinKind k, Value lhs, Value rhs,
                  Value dst, PrecisionType precision) {
  switch (k) {
  case BinKind::Add:
    pisa::TAddOp::create(b, loc, lhs, rhs, dst);
    return;
  case BinKind::Sub:
    pisa::TSubOp::create(b, loc, lhs, rhs, dst);
    return;
  case BinKind::Mul:
    pisa::TMulOp::create(b, loc, lhs, rhs, dst);
    return;
  case BinKind::Div:
    pisa::TDivOp::create(b, loc, lhs, rhs, dst, precision);
    return;
  case BinKind::Max:
    pisa::TMaxOp::create(b, loc, lhs, rhs, dst);
    return;
  case BinKind::Min:
    pisa::TMinOp::create(b, loc, lhs, rhs, dst);
    return;
  }
}

static void createScalar(OpBuilder &b, Location loc, BinKind k, Value src,
                         Value scalar, Value dst,
                         PrecisionType precision = PrecisionType::INTRINSIC) {
  switch (k) {
  case BinKind::Add:
    pisa::TAddSOp::create(b, loc, src, scalar, dst);
    return;
  case BinKind::Sub:
    pisa::TSubSOp::create(b, loc, src, scalar, dst);
    return;
  case BinKind::Mul:
    pisa::TMulSOp::create(b, loc, src, scalar, dst);
    return;
  case BinKind::Div:
    pisa::TDivSOp::create(b, loc, src, scalar, dst, precision);
    return;
  case BinKind::Max:
    pisa::TMaxSOp::create(b, loc, src, scalar, dst);
    return;
  case BinKind::Min:
    pisa::TMinSOp::create(b, loc, src, scalar, dst);
    return;
  }
}

static void createColExpandBinary(OpBuilder &b, Location loc, BinKind k,
                                  Value full, Value colval, Value dst) {
  switch (k) {
  case BinKind::Add:
    pisa::TColExpandAddOp::create(b, loc, full, colval, dst);
    return;
  case BinKind::Sub:
    pisa::TColExpandSubOp::create(b, loc, full, colval, dst);
    return;
  case BinKind::Mul:
    pisa::TColExpandMulOp::create(b, loc, full, colval, dst);
    return;
  case BinKind::Div:
    pisa::TColExpandDivOp::create(b, loc, full, colval, dst);
    return;
  case BinKind::Max:
    pisa::TColExpandMaxOp::create(b, loc, full, colval, dst);
    return;
  case BinKind::Min:
    pisa::TColExpandMinOp::create(b, loc, full, colval, dst);
    return;
  }
}

/// A [1, C] operand (held in `tile`) with the valid columns of `user`'s
/// result: the column-broadcast instructions take exactly the result's valid
/// columns from it. A row holding more (a fully valid gamma row against a
/// tile whose last dim has a tail) is copied with tmov to the result's count;
/// one holding fewer faults in pto-run before any lowering.
Value LeafLowering::columnsOfResult(Operation *user, Value operand,
                                    Value tile) {
  Location loc = user->getLoc();
  Value have = validOf(loc, operand).second;
  Value want = validOf(loc, user->getResult(0)).second;
  std::optional<int64_t> haveConst = getConstantIntValue(have);
  std::optional<int64_t> wantConst = getConstantIntValue(want);
  if (have == want || (haveConst && wantConst && *haveConst == *wantConst))
    return tile;
  Value row =
      alloc(loc, cast<pisa::TileType>(tile.getType()), constIndex(1), want);
  pisa::TMovOp::create(builder, loc, tile, row);
  return row;
}

/// A full-shaped operand (held in `tile`) with exactly the valid extents of
/// `user`'s result, which pto-isa's elementwise instructions require of
/// their sources. PyPTO's rule gives the result the left operand's valid
/// shape (docs/PyPTOModel.md#elementwise-ops), so the other operand may hold
/// fewer or more valid elements. Where one of the two extents is a constant
/// and they may differ, the operand's region within the result's (its own
/// bytes with smaller valid extents) is copied into a tile with the
/// result's extents, filled first with NaN (0 for integers): the value
/// pto-run gives the elements an operand does not hold. An operand holding
/// at least the result's extents is only renamed. Two run-time counts (SK-16's
/// rows, each clamped by its own tensor) are taken to be equal without a copy,
/// as in rowsOfResult: the emulation faults where they differ, as pto-isa
/// asserts.
Value LeafLowering::atResultValid(Operation *user, Value operand, Value tile) {
  Location loc = user->getLoc();
  auto [haveRows, haveCols] = validOf(loc, operand);
  auto [wantRows, wantCols] = validOf(loc, user->getResult(0));
  // One value, or two equal constants.
  auto same = [](Value a, Value b) {
    std::optional<int64_t> ca = getConstantIntValue(a),
                           cb = getConstantIntValue(b);
    return a == b || (ca && cb && *ca == *cb);
  };
  auto takenEqual = [&](Value a, Value b) {
    return same(a, b) || (!getConstantIntValue(a) && !getConstantIntValue(b));
  };
  if (takenEqual(haveRows, wantRows) && takenEqual(haveCols, wantCols))
    return tile;
  // `a <= b` when provable: equal, constants in order, or `a` a min (a
  // chain of a few, as the view rule clamps) one of whose operands is.
  std::function<bool(Value, Value, unsigned)> atMost = [&](Value a, Value b,
                                                           unsigned depth) {
    std::optional<int64_t> ca = getConstantIntValue(a),
                           cb = getConstantIntValue(b);
    if (same(a, b) || (ca && cb && *ca <= *cb))
      return true;
    auto min = a.getDefiningOp<arith::MinSIOp>();
    return min && depth > 0 &&
           (atMost(min.getLhs(), b, depth - 1) ||
            atMost(min.getRhs(), b, depth - 1));
  };
  auto smaller = [&](Value have, Value want) {
    if (atMost(want, have, 4))
      return want;
    if (atMost(have, want, 4))
      return have;
    return builder.createOrFold<arith::MinSIOp>(loc, have, want);
  };
  auto type = cast<pisa::TileType>(tile.getType());
  Value region = tile;
  Value rows = smaller(haveRows, wantRows);
  Value cols = smaller(haveCols, wantCols);
  // The overlap is a prefix of the operand's rows and columns: the same
  // bytes named with smaller valid extents (TRESHAPE, no copy).
  if (rows != haveRows || cols != haveCols) {
    region = alloc(loc, type, rows, cols);
    pisa::TReshapeOp::create(builder, loc, tile, region);
  }
  // Holding at least the result's extents: the copy is the operand read.
  if (rows == wantRows && cols == wantCols)
    return region;
  Type elem = type.getElementType();
  TypedAttr fill =
      isa<FloatType>(elem)
          ? TypedAttr(builder.getFloatAttr(
                elem,
                APFloat::getQNaN(cast<FloatType>(elem).getFloatSemantics())))
          : TypedAttr(builder.getIntegerAttr(elem, 0));
  Value scalar = arith::ConstantOp::create(builder, loc, fill);
  Value widened = alloc(loc, type, wantRows, wantCols);
  pisa::TExpandSOp::create(builder, loc, scalar, widened);
  pisa::TInsertOp::create(builder, loc, region, widened, 0, 0);
  return widened;
}

/// An [R, 1] operand (held in `tile`) with the valid rows of `user`'s result,
/// and that row count: pto-isa's TROWEXPAND wants its source's valid rows
/// equal to its destination's, and TROWEXPAND{SUB,MUL,DIV} the expanded
/// operand's equal to the result's. A column whose rows are a constant
/// other than the result's (a fully valid per-row operand against a last
/// tile with a row tail) is copied with tmov to the result's count. Two
/// run-time counts (SK-16's m and l columns against S, each clamped by its
/// own tensor) are taken to be equal, as before, without a copy per leaf:
/// the emulation faults where they differ, as pto-isa asserts.
std::pair<Value, Value> LeafLowering::rowsOfResult(Operation *user,
                                                   Value operand, Value tile) {
  Location loc = user->getLoc();
  auto [have, haveCols] = validOf(loc, operand);
  Value want = validOf(loc, user->getResult(0)).first;
  std::optional<int64_t> haveConst = getConstantIntValue(have);
  std::optional<int64_t> wantConst = getConstantIntValue(want);
  if (have == want || !haveConst || (wantConst && *haveConst == *wantConst))
    return {tile, have};
  Value &column = narrowedColumns[{operand, want}];
  if (!column) {
    column = alloc(loc, cast<pisa::TileType>(tile.getType()), want, haveCols);
    pisa::TMovOp::create(builder, loc, tile, column);
  }
  return {column, want};
}

/// `operand` (held in `tile`) expanded to the shape and valid extents of
/// `user`'s result: a [1, C] operand by tcolexpand, an [R, 1] one by
/// trowexpand, a [1, 1] one by both; a full operand as it is.
FailureOr<Value>
LeafLowering::expandToResult(Operation *user, Value operand, Value tile,
                             std::optional<pisa::TileType> expandedType) {
  Location loc = user->getLoc();
  Value result = user->getResult(0);
  FailureOr<std::pair<bool, bool>> broadcast = broadcastOf(user, operand);
  if (failed(broadcast))
    return failure();
  auto [cols, rows] = *broadcast;
  if (!cols && !rows)
    return atResultValid(user, operand, tile);
  // The result's tile, unless the caller gives the expanded operand's own
  // (a compare's operands are not of the i1 result's type).
  FailureOr<pisa::TileType> dstType =
      expandedType ? FailureOr<pisa::TileType>(*expandedType)
                   : ubTypeFor(user, result);
  if (failed(dstType))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  if (cols) {
    // Every row of the result gets row 0; the columns stay the operand's
    // (the result's valid columns, unless the operand is also broadcast
    // along them).
    if (!rows)
      tile = columnsOfResult(user, operand, tile);
    auto srcType = cast<pisa::TileType>(tile.getType());
    FailureOr<pisa::TileType> type =
        rows ? makeTileType(user, pisa::MemorySpace::ub, dstType->getRows(),
                            srcType.getCols(), srcType.getElementType(),
                            pisa::TileLayout::nd)
             : *dstType;
    if (failed(type))
      return failure();
    Value expanded =
        alloc(loc, *type, vr, rows ? validOf(loc, operand).second : vc);
    pisa::TColExpandOp::create(builder, loc, tile, expanded);
    tile = expanded;
  }
  if (rows) {
    if (!cols)
      tile = rowsOfResult(user, operand, tile).first;
    Value expanded = alloc(loc, *dstType, vr, vc);
    pisa::TRowExpandOp::create(builder, loc, tile, expanded);
    tile = expanded;
  }
  return tile;
}

/// The mode-2 operand of trowexpand_{sub,mul,div}: the per-row tile (held in
/// an nd [R, 32/sizeof] tile with one valid column) expanded to one full
/// 32-byte block per row.
FailureOr<Value> LeafLowering::rowBlock(Operation *user, Value rowOperand) {
  // One block per operand and valid row count (a row tail narrows it).
  Location loc = user->getLoc();
  FailureOr<Value> src = lookup(user, rowOperand);
  if (failed(src))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  Type elem = srcType.getElementType();
  FailureOr<pisa::TileType> type =
      makeTileType(user, pisa::MemorySpace::ub, srcType.getRows(),
                   blockElems(elem), elem, pisa::TileLayout::nd);
  if (failed(type))
    return failure();
  auto [column, rows] = rowsOfResult(user, rowOperand, *src);
  if (Value cached = rowBlocks.lookup({rowOperand, rows}))
    return cached;
  Value block = alloc(loc, *type, rows, constIndex(blockElems(elem)));
  pisa::TRowExpandOp::create(builder, loc, column, block);
  rowBlocks[{rowOperand, rows}] = block;
  return block;
}

LogicalResult LeafLowering::lowerBinary(Operation *op, BinKind bin, Value lhs,
                                        Value rhs) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto resultType = cast<pto::TileType>(result.getType());
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(dstType))
    return failure();
  FailureOr<Value> lhsTile = lookup(op, lhs);
  if (failed(lhsTile))
    return failure();
  // A div keeps its precision (pto-isa's DivAlgorithm); the fused
  // column/row-broadcast divs are emitted with the default one, so a
  // HIGH_PRECISION div expands its broadcast operand and uses TDIV.
  PrecisionType precision = PrecisionType::INTRINSIC;
  if (auto div = dyn_cast<DivOp>(op))
    precision = div.getPrecision();
  bool highDiv = precision == PrecisionType::HIGH_PRECISION;

  auto newDst = [&]() {
    auto [vr, vc] = validOf(loc, result);
    Value dst = alloc(loc, *dstType, vr, vc);
    tiles[result] = dst;
    replaced.push_back(op);
    return dst;
  };

  // Tile op scalar. (pto puts a scalar on the right only; a scalar on the
  // left of sub/div cannot be written, so there is no reversed form.)
  if (!isa<pto::TileType>(rhs.getType())) {
    if (rhs.getType() != resultType.getElementType())
      return op->emitOpError() << "scalar of type " << rhs.getType()
                               << " differs from the tile element type "
                               << resultType.getElementType();
    Value dst = newDst();
    createScalar(builder, loc, bin, *lhsTile, rhs, dst, precision);
    return success();
  }
  FailureOr<Value> rhsTile = lookup(op, rhs);
  if (failed(rhsTile))
    return failure();

  // [B, 1, D] over [B, S, D]: one instruction per leading index.
  for (Value operand : {lhs, rhs})
    if (std::optional<unsigned> kept = keptLeadingDims(result, operand))
      return lowerBinaryPerLeadingIndex(op, bin, lhs, rhs, operand == lhs,
                                        *kept, precision);
  // [1, B, D] over [A, B, D]: the operand's rows repeated as blocks.
  for (Value operand : {lhs, rhs})
    if (std::optional<std::pair<unsigned, unsigned>> dims =
            repeatedBlockDims(result, operand))
      return lowerBinaryRepeatedBlocks(op, bin, lhs, rhs, operand == lhs, *dims,
                                       precision);
  // Along the 2-D forms' rows (d = 0: a [1, C] operand) or columns (d = 1:
  // [R, 1]).
  FailureOr<std::pair<bool, bool>> lhsAlong = broadcastOf(op, lhs),
                                   rhsAlong = broadcastOf(op, rhs);
  if (failed(lhsAlong) || failed(rhsAlong))
    return failure();
  auto broadcast = [&](Value v, unsigned d) {
    const std::pair<bool, bool> &along = v == lhs ? *lhsAlong : *rhsAlong;
    return d == 0 ? along.first : along.second;
  };
  bool lhsCol = broadcast(lhs, 0), rhsCol = broadcast(rhs, 0);
  if (lhsCol || rhsCol) {
    // A [1, C] operand over a full one: the column-broadcast instructions
    // (the [1, C] operand second; swapped for the commutative ops).
    bool commutative = bin != BinKind::Sub && bin != BinKind::Div;
    bool fullLhs = !lhsCol && !broadcast(lhs, 1);
    bool fullRhs = !rhsCol && !broadcast(rhs, 1);
    if (!highDiv &&
        ((rhsCol && !broadcast(rhs, 1) && fullLhs) ||
         (commutative && lhsCol && !broadcast(lhs, 1) && fullRhs))) {
      Value full = rhsCol ? *lhsTile : *rhsTile;
      Value colval =
          columnsOfResult(op, rhsCol ? rhs : lhs, rhsCol ? *rhsTile : *lhsTile);
      Value dst = newDst();
      createColExpandBinary(builder, loc, bin, full, colval, dst);
      return success();
    }
    // Otherwise (a [1, C] left operand of sub/div, a [1, 1] operand, or
    // both operands broadcast): expand each to the result's shape, then the
    // plain instruction.
    FailureOr<Value> a = expandToResult(op, lhs, *lhsTile);
    if (failed(a))
      return failure();
    FailureOr<Value> b = expandToResult(op, rhs, *rhsTile);
    if (failed(b))
      return failure();
    Value dst = newDst();
    createBinary(builder, loc, bin, *a, *b, dst, precision);
    return success();
  }
  bool lhsRow = broadcast(lhs, 1), rhsRow = broadcast(rhs, 1);
  if (!lhsRow && !rhsRow) {
    Value a = atResultValid(op, lhs, *lhsTile);
    Value b = atResultValid(op, rhs, *rhsTile);
    Value dst = newDst();
    createBinary(builder, loc, bin, a, b, dst, precision);
    return success();
  }
  // A per-row right operand of sub/mul/div: the row-broadcast instructions
  // (mode 2: one 32-byte block per row).
  if (rhsRow && !highDiv &&
      (bin == BinKind::Sub || bin == BinKind::Mul || bin == BinKind::Div)) {
    FailureOr<Value> block = rowBlock(op, rhs);
    if (failed(block))
      return failure();
    Value dst = newDst();
    if (bin == BinKind::Sub)
      pisa::TRowExpandSubOp::create(builder, loc, *lhsTile, *block, dst);
    else if (bin == BinKind::Mul)
      pisa::TRowExpandMulOp::create(builder, loc, *lhsTile, *block, dst);
    else
      pisa::TRowExpandDivOp::create(builder, loc, *lhsTile, *block, dst);
    return success();
  }
  // Any other row broadcast (add/max/min, or the per-row operand on the
  // left): expand it to the result's shape, then the plain instruction with
  // the operands in their original order (the full one at the result's
  // valid extents).
  Value rowTile =
      rowsOfResult(op, lhsRow ? lhs : rhs, lhsRow ? *lhsTile : *rhsTile).first;
  auto [vr, vc] = validOf(loc, result);
  Value expanded = alloc(loc, *dstType, vr, vc);
  pisa::TRowExpandOp::create(builder, loc, rowTile, expanded);
  Value dst = newDst();
  createBinary(
      builder, loc, bin, lhsRow ? expanded : atResultValid(op, lhs, *lhsTile),
      lhsRow ? atResultValid(op, rhs, *rhsTile) : expanded, dst, precision);
  return success();
}

} // namespace mlir::pto::lower_to_isa
