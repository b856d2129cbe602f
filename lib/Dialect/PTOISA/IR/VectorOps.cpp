//===- VectorOps.cpp - pto_isa vector instructions ------------------------===//
//
// Verifiers of the vector instructions: elementwise and scalar ops, row
// and column expansions and reductions, conversions, transposes and
// gathers, all on row-major ub tiles of the element types the vector
// unit supports on the op's architecture.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::ptoisa;
using mlir::ptoisa::detail::expectRowMajorUB;
using mlir::ptoisa::detail::expectSameElement;
using mlir::ptoisa::detail::expectSpace;
using mlir::ptoisa::detail::tileOf;

/// Element types vector arithmetic supports on the op's architecture.
static LogicalResult expectArithmeticType(Operation *op, Value tile,
                                          bool floatOnly = false) {
  Type t = tileOf(tile).getElementType();
  const pto::PlatformInfo &info = pto::getPlatformInfo(pto::getArchFor(op));
  if (t.isF32() || t.isF16() || (t.isBF16() && info.vectorBF16Arithmetic))
    return success();
  if (!floatOnly && (t.isSignlessInteger(32) || t.isSignlessInteger(16)))
    return success();
  return op->emitOpError() << "vector arithmetic on " << info.name
                           << " supports "
                           << (floatOnly ? "f32 and f16"
                                         : "f32, f16, i32 and i16")
                           << ", not " << t
                           << "; convert with pto_isa.tcvt to f32 first";
}

template <typename Op>
static LogicalResult
verifyElementwise(Op op, ArrayRef<std::pair<StringRef, Value>> tiles,
                  bool floatOnly) {
  for (auto [role, tile] : tiles)
    if (failed(expectRowMajorUB(op, role, tile)))
      return failure();
  for (auto [role, tile] : tiles.drop_front())
    if (failed(expectSameElement(op, tiles.front().first, tiles.front().second,
                                 role, tile)))
      return failure();
  return expectArithmeticType(op, tiles.front().second, floatOnly);
}

#define PTOISA_BINARY_VERIFIER(OP)                                             \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwise(                                                  \
        *this,                                                                 \
        {{"lhs", getLhs()}, {"rhs", getRhs()}, {"destination", getDst()}},     \
        /*floatOnly=*/false);                                                  \
  }
PTOISA_BINARY_VERIFIER(TAddOp)
PTOISA_BINARY_VERIFIER(TSubOp)
PTOISA_BINARY_VERIFIER(TMulOp)
PTOISA_BINARY_VERIFIER(TMaxOp)
PTOISA_BINARY_VERIFIER(TMinOp)
#undef PTOISA_BINARY_VERIFIER

LogicalResult TDivOp::verify() {
  return verifyElementwise(
      *this, {{"lhs", getLhs()}, {"rhs", getRhs()}, {"destination", getDst()}},
      /*floatOnly=*/true);
}

template <typename Op> static LogicalResult verifyScalarOp(Op op) {
  if (failed(verifyElementwise(
          op, {{"source", op.getSrc()}, {"destination", op.getDst()}},
          /*floatOnly=*/false)))
    return failure();
  Type element = tileOf(op.getSrc()).getElementType();
  if (op.getScalar().getType() != element)
    return op.emitOpError() << "scalar of type " << op.getScalar().getType()
                            << " must have the tile element type " << element
                            << "; build the scalar as " << element;
  return success();
}

LogicalResult TAddSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TSubSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMulSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TDivSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMaxSOp::verify() { return verifyScalarOp(*this); }
LogicalResult TMinSOp::verify() { return verifyScalarOp(*this); }

#define PTOISA_UNARY_VERIFIER(OP, FLOAT_ONLY)                                  \
  LogicalResult OP::verify() {                                                 \
    return verifyElementwise(                                                  \
        *this, {{"source", getSrc()}, {"destination", getDst()}}, FLOAT_ONLY); \
  }
PTOISA_UNARY_VERIFIER(TExpOp, true)
PTOISA_UNARY_VERIFIER(TSqrtOp, true)
PTOISA_UNARY_VERIFIER(TRsqrtOp, true)
PTOISA_UNARY_VERIFIER(TRecipOp, true)
PTOISA_UNARY_VERIFIER(TLogOp, true)
PTOISA_UNARY_VERIFIER(TAbsOp, false)
PTOISA_UNARY_VERIFIER(TNegOp, false)
#undef PTOISA_UNARY_VERIFIER

LogicalResult TRowExpandOp::verify() {
  if (failed(expectSpace(*this, "source", getSrc(), {MemorySpace::ub})) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  return expectSameElement(*this, "source", getSrc(), "destination", getDst());
}

LogicalResult TCvtOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if (src.getRows() != dst.getRows() || src.getCols() != dst.getCols())
    return emitOpError()
           << "TCVT converts elementwise between equal capacities, got "
           << src.getRows() << "x" << src.getCols() << " and " << dst.getRows()
           << "x" << dst.getCols() << "; allocate both with one capacity";
  return success();
}

LogicalResult TExpandSOp::verify() {
  if (failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  Type element = tileOf(getDst()).getElementType();
  if (getScalar().getType() != element)
    return emitOpError() << "scalar of type " << getScalar().getType()
                         << " must have the tile element type " << element
                         << "; build the scalar as " << element;
  return success();
}

/// A per-row operand: a dn tile with one column, or an nd tile of one
/// 32-byte block per row.
static LogicalResult expectRowValueTile(Operation *op, StringRef role,
                                        Value tile) {
  if (failed(expectSpace(op, role, tile, {MemorySpace::ub})))
    return failure();
  TileType t = tileOf(tile);
  int64_t blockElems = 32 / t.getElementByteSize();
  if ((t.getLayout() == TileLayout::dn && t.getCols() == 1) ||
      (t.getLayout() == TileLayout::nd && t.getCols() == blockElems))
    return success();
  return op->emitOpError() << role << " " << t
                           << " is not a per-row tile: use a dn tile with one "
                              "column or an nd tile with "
                           << blockElems
                           << " columns (one 32-byte block per row)";
}

template <typename Op> static LogicalResult verifyRowReduce(Op op) {
  if (failed(expectRowMajorUB(op, "source", op.getSrc())) ||
      failed(expectRowMajorUB(op, "scratch", op.getTmp())) ||
      failed(expectRowValueTile(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "destination",
                               op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "scratch",
                               op.getTmp())) ||
      failed(expectArithmeticType(op, op.getSrc())))
    return failure();
  TileType src = tileOf(op.getSrc()), tmp = tileOf(op.getTmp());
  constexpr bool isSum = std::is_same_v<Op, TRowSumOp>;
  pto::Arch arch = pto::getArchFor(op);
  auto [needRows, needCols] = getRowReduceScratchShape(
      arch, src.getElementType(), src.getRows(), src.getCols(), isSum);
  if (tmp.getRows() < needRows || tmp.getCols() < needCols)
    return op.emitOpError()
           << "scratch " << tmp.getRows() << "x" << tmp.getCols()
           << " is smaller than the " << needRows << "x" << needCols
           << " that pto-isa's " << (isSum ? "TROWSUM" : "TROWMAX")
           << " writes for a " << src.getRows() << "x" << src.getCols()
           << " source on " << pto::stringifyArch(arch)
           << "; allocate at least " << needRows << "x" << needCols;
  if (tileOf(op.getDst()).getRows() < src.getRows())
    return op.emitOpError()
           << "destination has " << tileOf(op.getDst()).getRows()
           << " rows, fewer than the source's " << src.getRows()
           << "; give it at least the source's rows";
  return success();
}

LogicalResult TRowSumOp::verify() { return verifyRowReduce(*this); }
LogicalResult TRowMaxOp::verify() { return verifyRowReduce(*this); }

LogicalResult TTransOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "scratch", getTmp())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())) ||
      failed(expectSameElement(*this, "source", getSrc(), "destination",
                               getDst())) ||
      failed(expectSameElement(*this, "source", getSrc(), "scratch", getTmp())))
    return failure();
  TileType src = tileOf(getSrc()), tmp = tileOf(getTmp()),
           dst = tileOf(getDst());
  if (src.getElementByteSize() > 4)
    return emitOpError() << "transposes " << src.getElementType()
                         << "; TTRANS moves 1-, 2- and 4-byte elements";
  // dst holds src's rows as columns (the valid columns of src, as dst's
  // rows, are checked against the capacity at run time).
  if (dst.getCols() < src.getRows())
    return emitOpError() << "destination " << dst.getRows() << "x"
                         << dst.getCols() << " cannot hold the transpose of a "
                         << src.getRows() << "x" << src.getCols()
                         << " source: it needs at least " << src.getRows()
                         << " columns";
  if (tmp.getRows() != dst.getRows() || tmp.getCols() != dst.getCols())
    return emitOpError()
           << "scratch must be shaped like the destination (" << dst.getRows()
           << "x" << dst.getCols() << "), got " << tmp.getRows() << "x"
           << tmp.getCols()
           << "; allocate the scratch with the destination's type";
  return success();
}

LogicalResult TReshapeOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  int64_t srcRow = src.getCols() * src.getElementByteSize();
  int64_t dstRow = dst.getCols() * dst.getElementByteSize();
  if (src.getRows() != dst.getRows() || srcRow != dstRow)
    return emitOpError() << "renames the bytes of " << src << " as " << dst
                         << ": TRESHAPE needs the same rows (" << src.getRows()
                         << " vs " << dst.getRows() << ") and bytes per row ("
                         << srcRow << " vs " << dstRow
                         << ") so that every element keeps its place";
  if (src.getElementType().isInteger(1) || dst.getElementType().isInteger(1))
    return emitOpError() << "renames an i1 mask tile; masks are packed bits, "
                            "TRESHAPE renames bytes";
  return success();
}

LogicalResult TGatherMaskOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  // pto-isa moves the bits: a destination of another type of the same width
  // reinterprets them (include/pto/cpu/TGather.hpp, BitCastOrCast), which
  // is how the int32 indices of sorted (value, index) structures come out.
  if (tileOf(getSrc()).getElementByteSize() !=
      tileOf(getDst()).getElementByteSize())
    return emitOpError() << "source (" << tileOf(getSrc()).getElementType()
                         << ") and destination ("
                         << tileOf(getDst()).getElementType()
                         << ") must have the same element width; the mask "
                            "TGATHER moves bits";
  int64_t pattern = getPattern();
  if (pattern < 1 || pattern > 7)
    return emitOpError() << "pattern " << pattern
                         << " is not a MaskPattern; use 1 (P0101) to 7 (P1111)";
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  int64_t bytes = src.getElementByteSize();
  if (bytes != 2 && bytes != 4)
    return emitOpError() << "gathers " << src.getElementType()
                         << "; the mask-pattern TGATHER moves 2- and 4-byte "
                            "elements";
  // Every source row's selection lands in one destination row.
  if (dst.getRows() < src.getRows())
    return emitOpError() << "destination has " << dst.getRows()
                         << " rows for the " << src.getRows()
                         << " rows of the source; give it at least as many";
  return success();
}

template <typename Op> static LogicalResult verifyRowExpandBinary(Op op) {
  if (failed(expectRowMajorUB(op, "full operand", op.getFull())) ||
      failed(expectRowValueTile(op, "row operand", op.getRowval())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "row operand",
                               op.getRowval())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getFull(), /*floatOnly=*/true)))
    return failure();
  return success();
}

LogicalResult TRowExpandSubOp::verify() { return verifyRowExpandBinary(*this); }
LogicalResult TRowExpandMulOp::verify() { return verifyRowExpandBinary(*this); }
LogicalResult TRowExpandDivOp::verify() { return verifyRowExpandBinary(*this); }

LogicalResult TColExpandOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "destination", getDst())))
    return failure();
  return expectSameElement(*this, "source", getSrc(), "destination", getDst());
}

template <typename Op>
static LogicalResult verifyColExpandBinary(Op op, bool floatOnly) {
  if (failed(expectRowMajorUB(op, "full operand", op.getFull())) ||
      failed(expectRowMajorUB(op, "column operand", op.getColval())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "full operand", op.getFull(),
                               "column operand", op.getColval())) ||
      failed(expectSameElement(op, "full operand", op.getFull(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getFull(), floatOnly)))
    return failure();
  return success();
}

LogicalResult TColExpandAddOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandSubOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandMulOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandDivOp::verify() {
  return verifyColExpandBinary(*this, true);
}
LogicalResult TColExpandMaxOp::verify() {
  return verifyColExpandBinary(*this, false);
}
LogicalResult TColExpandMinOp::verify() {
  return verifyColExpandBinary(*this, false);
}

template <typename Op> static LogicalResult verifyColReduce(Op op) {
  if (failed(expectRowMajorUB(op, "source", op.getSrc())) ||
      failed(expectRowMajorUB(op, "destination", op.getDst())) ||
      failed(expectSameElement(op, "source", op.getSrc(), "destination",
                               op.getDst())) ||
      failed(expectArithmeticType(op, op.getSrc())))
    return failure();
  // pto-isa's CPU TCOLSUM static_asserts equal column capacities; the A2/A3
  // versions index both rows with their own strides, so equal is safe.
  TileType src = tileOf(op.getSrc()), dst = tileOf(op.getDst());
  if (src.getCols() != dst.getCols())
    return op.emitOpError() << "destination has " << dst.getCols()
                            << " columns, the source " << src.getCols()
                            << "; a column reduction needs equal column "
                               "capacities";
  return success();
}

LogicalResult TColSumOp::verify() { return verifyColReduce(*this); }
LogicalResult TColMaxOp::verify() { return verifyColReduce(*this); }
