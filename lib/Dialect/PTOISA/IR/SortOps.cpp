//===- SortOps.cpp - pto_isa sort instructions ----------------------------===//
//
// Verifiers of TCI, TSORT32 and TMRGSORT: the operand rules pto-isa states
// (include/pto/npu/a2a3/TSort32.hpp, TMrgSort.hpp, include/pto/cpu/TCI.hpp).
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/IR/PTOISA.h"

using namespace mlir;
using namespace mlir::ptoisa;

static TileType sortTile(Value v) { return cast<TileType>(v.getType()); }

/// A row-major ub tile, as every sort instruction takes.
static LogicalResult expectVecTile(Operation *op, StringRef role, Value v) {
  TileType t = sortTile(v);
  if (t.getSpace() == MemorySpace::ub && t.getLayout() == TileLayout::nd)
    return success();
  return op->emitOpError() << role << " must be a row-major (nd) ub tile, not "
                           << t << "; sort in ub";
}

static LogicalResult expectOneRow(Operation *op, StringRef role, Value v) {
  if (sortTile(v).getRows() == 1)
    return success();
  return op->emitOpError() << role << " has " << sortTile(v).getRows()
                           << " rows; pto-isa takes one-row tiles here: "
                              "extract the row first";
}

LogicalResult TCIOp::verify() {
  if (failed(expectVecTile(*this, "destination", getDst())) ||
      failed(expectOneRow(*this, "destination", getDst())))
    return failure();
  Type element = sortTile(getDst()).getElementType();
  if (!element.isInteger(32))
    return emitOpError() << "fills " << element
                         << "; the index row is a 32-bit integer tile (ui32 "
                            "for TSORT32)";
  return success();
}

LogicalResult TSort32Op::verify() {
  for (auto [role, v] : {std::pair<StringRef, Value>{"source", getSrc()},
                         {"index row", getIdx()},
                         {"scratch", getTmp()},
                         {"destination", getDst()}})
    if (failed(expectVecTile(*this, role, v)))
      return failure();
  TileType src = sortTile(getSrc()), dst = sortTile(getDst());
  if (!src.getElementType().isF32() ||
      dst.getElementType() != src.getElementType())
    return emitOpError() << "sorts " << src.getElementType() << " into "
                         << dst.getElementType()
                         << "; this lowering sorts f32 into f32 structures";
  if (!sortTile(getIdx()).getElementType().isUnsignedInteger(32))
    return emitOpError() << "index row is "
                         << sortTile(getIdx()).getElementType()
                         << "; TSORT32 takes uint32 indices (ui32)";
  // One index row for every row (the A2/A3 form steps it by 0) or one per
  // row of the source (what pto-isa's CPU back end requires).
  if (sortTile(getIdx()).getRows() != 1 &&
      sortTile(getIdx()).getRows() != src.getRows())
    return emitOpError() << "index tile has " << sortTile(getIdx()).getRows()
                         << " rows for a source of " << src.getRows()
                         << "; give it one row or one per source row";
  // Each element becomes an 8-byte structure: two f32 per element.
  if (dst.getRows() < src.getRows() || dst.getCols() < 2 * src.getCols())
    return emitOpError() << "destination " << dst << " cannot hold the "
                         << src.getRows() << " x " << src.getCols()
                         << " (value, index) structures of the source (two "
                            "f32 each): give it at least "
                         << src.getRows() << " x " << 2 * src.getCols();
  return success();
}

LogicalResult TMrgSortOp::verify() {
  size_t lists = getSrcs().size();
  if (lists < 2 || lists > 4)
    return emitOpError() << "merges " << lists
                         << " lists; TMRGSORT's list form merges 2 to 4";
  for (Value v : getSrcs())
    if (failed(expectVecTile(*this, "source", v)) ||
        failed(expectOneRow(*this, "source", v)))
      return failure();
  if (failed(expectVecTile(*this, "scratch", getTmp())) ||
      failed(expectOneRow(*this, "scratch", getTmp())) ||
      failed(expectVecTile(*this, "destination", getDst())) ||
      failed(expectOneRow(*this, "destination", getDst())))
    return failure();
  Type element = sortTile(getDst()).getElementType();
  if (!element.isF32())
    return emitOpError() << "merges " << element
                         << " structures; this lowering merges f32 ones";
  SmallVector<Value, 5> operands(getSrcs());
  operands.push_back(getTmp());
  for (Value v : operands)
    if (sortTile(v).getElementType() != element)
      return emitOpError() << "mixes " << sortTile(v).getElementType()
                           << " and " << element
                           << " tiles; all are one element type";
  return success();
}
