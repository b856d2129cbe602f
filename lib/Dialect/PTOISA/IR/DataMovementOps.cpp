//===- DataMovementOps.cpp - pto_isa loads, stores and moves --------------===//
//
// Verifiers of TLOAD, TSTORE, TEXTRACT, TMOV, TINSERT and MSCATTER: the
// memory spaces each moves between on each architecture, and the shapes
// and alignments pto-isa asserts.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::ptoisa;
using mlir::ptoisa::detail::expectRowMajorUB;
using mlir::ptoisa::detail::expectSameElement;
using mlir::ptoisa::detail::expectSpace;
using mlir::ptoisa::detail::tileOf;

static bool isOneOf(Type t, ArrayRef<Type> types) {
  return llvm::is_contained(types, t);
}

/// Whether GM elements of `gm` move to or from tile elements of `tile`
/// unchanged: equal types, or DT_BOOL (i1, one byte of 0 or 1 per element in
/// GM, as PyPTO and NumPy hold it) as its bytes (ui8).
static bool sameBytes(Type gm, Type tile) {
  return gm == tile || (gm.isSignlessInteger(1) && tile.isUnsignedInteger(8));
}

LogicalResult TLoadOp::verify() {
  auto src = cast<pto::GMTensorType>(getSrc().getType());
  TileType dst = tileOf(getDst());
  if (src.getRank() != 2)
    return emitOpError() << "source " << src
                         << " must be 2-D; reshape the GM tensor first";
  if (!sameBytes(src.getElementType(), dst.getElementType()))
    return emitOpError() << "source element type " << src.getElementType()
                         << " differs from the tile's " << dst.getElementType()
                         << "; TLOAD does not convert (load, then tcvt)";
  if (failed(expectSpace(*this, "destination", getDst(),
                         {MemorySpace::ub, MemorySpace::l1})))
    return failure();
  if (getTranspose()) {
    if (dst.getSpace() != MemorySpace::l1 || dst.getLayout() != TileLayout::zn)
      return emitOpError()
             << "a transposing load (DN -> ZN) writes a zn l1 tile, "
                "not "
             << dst
             << "; declare the destination as "
                "!pto_isa.tile<l1, ..., zn>";
  } else if (dst.getLayout() != TileType::getDefaultLayout(dst.getSpace())) {
    return emitOpError()
           << "a plain load writes an nd ub tile or an nz l1 tile, "
              "not "
           << dst << "; use `transpose` for a zn tile";
  }
  int64_t maxRows = dst.getSpace() == MemorySpace::ub ? 4095 : 16384;
  int64_t rows = getTranspose() ? dst.getCols() : dst.getRows();
  if (rows > maxRows)
    return emitOpError() << "a TLOAD into "
                         << stringifyMemorySpace(dst.getSpace())
                         << " moves at most " << maxRows
                         << " rows, the tile has " << rows
                         << "; split the tile";
  return success();
}

LogicalResult TStoreOp::verify() {
  auto dst = cast<pto::GMTensorType>(getDst().getType());
  TileType src = tileOf(getSrc());
  if (dst.getRank() != 2)
    return emitOpError() << "destination " << dst
                         << " must be 2-D; reshape the GM tensor first";
  if (failed(expectSpace(*this, "source", getSrc(),
                         {MemorySpace::ub, MemorySpace::l1, MemorySpace::l0c})))
    return failure();
  Type from = src.getElementType(), to = dst.getElementType();
  Builder b(getContext());
  if (src.getSpace() == MemorySpace::l0c) {
    bool ok = (from.isF32() && isOneOf(to, {b.getF32Type(), b.getF16Type(),
                                            b.getBF16Type()})) ||
              (from.isSignlessInteger(32) && to == from);
    if (!ok)
      return emitOpError()
             << "the fixpipe stores an f32 accumulator as f32, f16 "
                "or bf16 (i32 as i32), not "
             << from << " as " << to
             << "; store into a tensor of a supported type";
    if (src.getCols() > 4095)
      return emitOpError()
             << "an Acc store moves at most 4095 columns, the tile "
                "has "
             << src.getCols() << "; split the store";
  } else if (!sameBytes(to, from)) {
    return emitOpError()
           << "storing a " << stringifyMemorySpace(src.getSpace())
           << " tile of " << from << " into a tensor of " << to
           << " needs equal element types; convert with tcvt first";
  }
  if (src.getSpace() == MemorySpace::l1 &&
      pto::getArchFor(*this) != pto::Arch::DAV_2201)
    return emitOpError() << pto::getPlatformInfo(pto::getArchFor(*this)).name
                         << " has no L1 -> GM path; store from ub or l0c";
  // Atomic add into GM supports f32, f16, bf16, i32, i16 and i8: every
  // element type a store can write (the rules above), so no check here.
  return success();
}

Pipe TStoreOp::getPipe() {
  return tileOf(getSrc()).getSpace() == MemorySpace::l0c ? Pipe::FIX
                                                         : Pipe::MTE3;
}

/// TEXTRACT / TINSERT between ub tiles start on a 32-byte column boundary.
static LogicalResult verifyColumnAligned(Operation *op, TileType tile,
                                         int64_t col, StringRef instruction) {
  int64_t bytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  if ((col * bytes) % 32 == 0)
    return success();
  return op->emitOpError() << "index_col " << col << " is " << col * bytes
                           << " bytes into the row; pto-isa's ub -> ub "
                           << instruction << " starts on a 32-byte boundary";
}

/// The `inner` tile at [row, col] of the `outer` one lies inside it (the
/// window a TEXTRACT reads, the place a TINSERT writes); `innerOperand` names
/// the operand to shrink when it does not.
static LogicalResult verifySubTileFits(Operation *op, TileType inner,
                                       StringRef innerName,
                                       StringRef innerOperand, TileType outer,
                                       StringRef outerName, int64_t row,
                                       int64_t col) {
  if (row >= 0 && col >= 0 && row + inner.getRows() <= outer.getRows() &&
      col + inner.getCols() <= outer.getCols())
    return success();
  return op->emitOpError() << "the " << inner.getRows() << "x"
                           << inner.getCols() << " " << innerName << " at ["
                           << row << ", " << col << "] does not fit the "
                           << outer.getRows() << "x" << outer.getCols() << " "
                           << outerName
                           << " tile; move the window (index_row, index_col) "
                              "or shrink the "
                           << innerOperand;
}

LogicalResult TExtractOp::verify() {
  // l1 -> l0a/l0b (cube operands), ub -> ub (a sub-tile) or, on DAV_3510,
  // l0c -> ub (an accumulator window through the fixpipe, MIX leaves).
  MemorySpace from = tileOf(getSrc()).getSpace();
  bool vec = from == MemorySpace::ub;
  bool l0cToUb = from == MemorySpace::l0c;
  SmallVector<MemorySpace, 2> dstSpaces;
  if (vec || l0cToUb)
    dstSpaces = {MemorySpace::ub};
  else
    dstSpaces = {MemorySpace::l0a, MemorySpace::l0b};
  if (failed(
          expectSpace(*this, "source", getSrc(),
                      {MemorySpace::l1, MemorySpace::ub, MemorySpace::l0c})) ||
      failed(expectSpace(*this, "destination", getDst(), dstSpaces)) ||
      (!l0cToUb && failed(expectSameElement(*this, "source", getSrc(),
                                            "destination", getDst()))))
    return failure();
  if (l0cToUb) {
    const pto::PlatformInfo &info =
        pto::getPlatformInfo(pto::getArchFor(*this));
    if (!info.hasL0CToUB)
      return emitOpError() << "there is no l0c -> ub path on " << info.name
                           << "; go through GM (tstore, then tload)";
  }
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if ((getRowOffset() || getColOffset()) && !vec && !l0cToUb)
    return emitOpError() << "a run-time row or column offset is for ub -> ub "
                            "copies; an L1 -> L0 extraction starts at static "
                            "indices";
  if (vec && failed(verifyColumnAligned(*this, src, getIndexCol(), "TEXTRACT")))
    return failure();
  return verifySubTileFits(*this, dst, "window", "destination", src, "source",
                           getIndexRow(), getIndexCol());
}

LogicalResult TMovOp::verify() {
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  MemorySpace from = src.getSpace(), to = dst.getSpace();
  bool l0cToUb = from == MemorySpace::l0c && to == MemorySpace::ub;
  bool path = (from == MemorySpace::l1 &&
               (to == MemorySpace::l0a || to == MemorySpace::l0b)) ||
              (from == MemorySpace::ub && to == MemorySpace::ub) ||
              (from == MemorySpace::l0c && to == MemorySpace::l1) || l0cToUb;
  const pto::PlatformInfo &info = pto::getPlatformInfo(pto::getArchFor(*this));
  if (!path || (l0cToUb && !info.hasL0CToUB))
    return emitOpError() << "there is no " << stringifyMemorySpace(from)
                         << " -> " << stringifyMemorySpace(to) << " path on "
                         << info.name << "; go through GM (tstore, then tload)";
  if (src.getRows() != dst.getRows() || src.getCols() != dst.getCols())
    return emitOpError() << "TMOV needs equal capacities, got " << src.getRows()
                         << "x" << src.getCols() << " and " << dst.getRows()
                         << "x" << dst.getCols()
                         << "; allocate both with one capacity";
  if (from != MemorySpace::l0c)
    return expectSameElement(*this, "source", getSrc(), "destination",
                             getDst());
  return success();
}

LogicalResult TInsertOp::verify() {
  if (failed(expectSpace(*this, "source", getSrc(), {MemorySpace::ub})) ||
      failed(expectSpace(*this, "destination", getDst(), {MemorySpace::ub})) ||
      failed(expectSameElement(*this, "source", getSrc(), "destination",
                               getDst())))
    return failure();
  TileType src = tileOf(getSrc()), dst = tileOf(getDst());
  if (failed(verifySubTileFits(*this, src, "source", "source", dst,
                               "destination", getIndexRow(), getIndexCol())))
    return failure();
  return verifyColumnAligned(*this, src, getIndexCol(), "TINSERT");
}

Pipe TExtractOp::getPipe() {
  switch (tileOf(getSrc()).getSpace()) {
  case MemorySpace::ub:
    return Pipe::V;
  case MemorySpace::l0c:
    return Pipe::FIX;
  default:
    return Pipe::MTE1;
  }
}

Pipe TMovOp::getPipe() {
  switch (tileOf(getSrc()).getSpace()) {
  case MemorySpace::l1:
    return Pipe::MTE1;
  case MemorySpace::ub:
    return Pipe::V;
  default:
    return Pipe::FIX;
  }
}

LogicalResult MScatterOp::verify() {
  if (failed(expectRowMajorUB(*this, "source", getSrc())) ||
      failed(expectRowMajorUB(*this, "indices", getIndices())))
    return failure();
  auto dst = cast<pto::GMTensorType>(getDst().getType());
  TileType src = tileOf(getSrc()), indices = tileOf(getIndices());
  if (dst.getRank() != 2)
    return emitOpError() << "destination " << dst
                         << " must be 2-D; reshape the GM tensor first";
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "scatters " << src.getElementType()
                         << " rows into a tensor of " << dst.getElementType()
                         << "; MSCATTER needs equal element types (tcvt first)";
  if (!indices.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices are " << indices.getElementType()
                         << "; the A2/A3 MSCATTER takes i32 indices";
  // Row mode: one index per source row, in a [1, N] row (pto-isa A2/A3).
  if (indices.getRows() != 1 || indices.getCols() < src.getRows())
    return emitOpError() << "index tile " << indices
                         << " must be one row of at least " << src.getRows()
                         << " indices (one per source row)";
  return success();
}
