//===- MatmulOps.cpp - pto_isa TMATMUL and TMATMUL_ACC --------------------===//
//
// Verifiers of the cube instructions: operands in L0A / L0B, the
// accumulator in L0C, and the shapes and element types pto-isa asserts.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::ptoisa;
using mlir::ptoisa::detail::expectSameElement;
using mlir::ptoisa::detail::expectSpace;
using mlir::ptoisa::detail::tileOf;

template <typename MatmulOp> static LogicalResult verifyMatmul(MatmulOp op) {
  if (failed(
          expectSpace(op, "left operand", op.getLhs(), {MemorySpace::l0a})) ||
      failed(
          expectSpace(op, "right operand", op.getRhs(), {MemorySpace::l0b})) ||
      failed(expectSpace(op, "accumulator", op.getAcc(), {MemorySpace::l0c})))
    return failure();
  TileType a = tileOf(op.getLhs()), b = tileOf(op.getRhs()),
           c = tileOf(op.getAcc());
  if (a.getRows() != c.getRows() || a.getCols() != b.getRows() ||
      b.getCols() != c.getCols())
    return op.emitOpError()
           << "capacities must chain as (m x k) . (k x n) -> (m x n), got "
           << a.getRows() << "x" << a.getCols() << " . " << b.getRows() << "x"
           << b.getCols() << " -> " << c.getRows() << "x" << c.getCols()
           << "; allocate the operands with matching capacities";
  Type ta = a.getElementType(), tb = b.getElementType(),
       tc = c.getElementType();
  bool ok =
      ta == tb && ((tc.isF32() && (ta.isBF16() || ta.isF16() || ta.isF32())) ||
                   (tc.isSignlessInteger(32) && ta.isSignlessInteger(8)));
  if (!ok)
    return op.emitOpError()
           << "(acc, lhs, rhs) = (" << tc << ", " << ta << ", " << tb
           << ") is not a cube dtype triple; supported: (f32, "
              "bf16, bf16), (f32, f16, f16), (f32, f32, f32), "
              "(i32, i8, i8)";
  return success();
}

LogicalResult TMatmulOp::verify() { return verifyMatmul(*this); }
LogicalResult TMatmulAccOp::verify() { return verifyMatmul(*this); }
