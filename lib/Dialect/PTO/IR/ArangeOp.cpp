//===- ArangeOp.cpp - pto.arange verifier ---------------------------------===//
//
// PyPTO's arange: a 1-D tile of an arithmetic sequence. The verifier names
// the offending value, the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::shapeStr;

/// `0.5`, `32767`: the bounds as PyPTO code writes them.
static std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

LogicalResult ArangeOp::verify() {
  TileType type = getResult().getType();
  if (type.getRank() != 1)
    return emitOpError() << "result " << type
                         << " must be a rank-1 tile (PyPTO's arange is 1-D); "
                            "reshape the result afterwards";
  double start = getStart().convertToDouble(),
         step = getStep().convertToDouble();
  if (!std::isfinite(start) || !std::isfinite(step) || std::fabs(step) <= 1e-8)
    return emitOpError() << "start " << number(start) << " and step "
                         << number(step)
                         << " must be finite and |step| > 1e-8 (PyPTO's "
                            "rule); give a non-zero step";
  Type elem = type.getElementType();
  if (auto intType = dyn_cast<IntegerType>(elem)) {
    if (intType.getWidth() != 16 && intType.getWidth() != 32)
      return emitOpError() << "result element type " << elem
                           << " is not one PyPTO's arange produces (i16, "
                              "i32, f16, bf16, f32)";
    double last = start + step * double(type.getShape()[0] - 1);
    double lo = intType.getWidth() == 16 ? -32768.0 : -2147483648.0;
    double hi = intType.getWidth() == 16 ? 32767.0 : 2147483647.0;
    if (std::trunc(start) != start || std::trunc(step) != step)
      return emitOpError() << "start " << number(start) << " and step "
                           << number(step)
                           << " must be integers for an integer result " << elem
                           << "; use a float result type";
    if (start < lo || start > hi || last < lo || last > hi)
      return emitOpError() << "the sequence " << number(start) << " .. "
                           << number(last) << " leaves the range of " << elem
                           << "; use a wider or float result type";
  } else if (!isa<FloatType>(elem)) {
    return emitOpError() << "result element type " << elem
                         << " is not an integer or float type";
  }
  if (VecTileAttr vecTile = getVecTileAttr())
    if (vecTile.getDims().size() != 1)
      return emitOpError() << "vector tile " << shapeStr(vecTile.getDims())
                           << " must have one dim for a 1-D arange (PyPTO: "
                              "set_vec_tile_shapes(t))";
  return success();
}
