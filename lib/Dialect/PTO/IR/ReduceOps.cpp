//===- ReduceOps.cpp - pto.sum and pto.amax -------------------------------===//
//
// Reductions along one dim: the dim, keepdim, the result shape and the
// dtypes of the vector unit. Verifiers name the offending value, the rule and
// the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::archName;
using mlir::pto::detail::isSignlessInt;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduce(Operation *op, TileType input,
                                  TileType result, int64_t dim, bool keepdim,
                                  VecTileAttr vecTile, bool isAmax) {
  if (dim < 0 || dim >= input.getRank())
    return op->emitOpError()
           << "reduces dim " << dim << " of a rank-" << input.getRank()
           << " tile; use a dim in [0, " << input.getRank() << ")";
  SmallVector<int64_t> expected(input.getShape());
  if (keepdim) {
    expected[dim] = 1;
  } else {
    if (input.getRank() == 1)
      return op->emitOpError() << "would produce a rank-0 tile; add 'keepdim'";
    expected.erase(expected.begin() + dim);
  }
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return op->emitOpError() << "result type " << result << " must have shape "
                             << shapeStr(expected) << " and element type "
                             << input.getElementType();
  Type t = input.getElementType();
  Arch arch = getArchFor(op);
  bool ok = t.isF32() || t.isBF16() || isSignlessInt(t, 32) ||
            isSignlessInt(t, 16) ||
            (isAmax &&
             (t.isF16() || (arch == Arch::DAV_3510 && isSignlessInt(t, 8))));
  if (!ok)
    return op->emitOpError()
           << "does not support " << t << " on " << archName(arch)
           << (isAmax ? "; amax takes f16, bf16, f32, i16 "
                        "or i32"
                      : "; sum takes f32, bf16, i16 or i32");
  if (failed(verifyVecTile(op, vecTile, input)))
    return failure();
  if (vecTile) {
    // A tile larger than the tensor is clamped per dim
    // (docs/PyPTOModel.md#vector-tile-shapes).
    const PlatformInfo &platform = getPlatformInfo(arch);
    ArrayRef<int64_t> dims = vecTile.getDims();
    SmallVector<int64_t> clamped;
    int64_t elements = 1;
    for (int64_t d = 0; d < input.getRank(); ++d) {
      clamped.push_back(std::min(dims[dims.size() - input.getRank() + d],
                                 input.getDimSize(d)));
      elements *= clamped.back();
    }
    int64_t bytes = elements * input.getElementByteSize();
    std::string clampNote;
    if (ArrayRef<int64_t>(clamped) != dims.take_back(input.getRank()))
      clampNote = " (clamped to " + shapeStr(clamped) + ")";
    // Over the limit with outer dims to halve: pto-legalize re-tiles. Over
    // it with the last dim alone: PyPTO rejects it too (pypto.amax / sum
    // docs: TileShape <= 64 KB, the last dim whole and 32-byte aligned).
    int64_t rowBytes = clamped.back() * input.getElementByteSize();
    if (bytes > platform.reduceTileMaxBytes &&
        rowBytes > platform.reduceTileMaxBytes)
      return op->emitOpError()
             << "vector tile " << shapeStr(vecTile.getDims()) << clampNote
             << " of " << t << " has a last dim of " << rowBytes
             << " B alone, over the " << platform.reduceTileMaxBytes << " B ("
             << platform.reduceTileMaxBytes / 1024
             << " KiB) reduction tile limit of " << archName(arch)
             << "; PyPTO rejects this too (TileShape <= 64 KB): reduce a "
                "narrower tile";
  }
  return success();
}

LogicalResult SumOp::verify() {
  return verifyReduce(*this, getInput().getType(), getResult().getType(),
                      getDim(), getKeepdim(), getVecTileAttr(), false);
}
LogicalResult AmaxOp::verify() {
  return verifyReduce(*this, getInput().getType(), getResult().getType(),
                      getDim(), getKeepdim(), getVecTileAttr(), true);
}
