//===- PTOInterfaces.td - pto op interfaces ----------------*- tablegen -*-===//
#ifndef PTO_INTERFACES_TD
#define PTO_INTERFACES_TD

include "mlir/IR/OpBase.td"

def PTO_ValidShapeInferenceOpInterface
    : OpInterface<"ValidShapeInferenceOpInterface"> {
  let cppNamespace = "::mlir::pto";
  let description = [{
    Reifies the valid extents (PyPTO's `valid_shape`) of a tile result from
    the op's operands. Each op states its rule once, against an abstract
    `ValidShapeAlgebra`: the IR algebra (`reifyValidShape`) builds `arith` ops
    for passes, the interpreter's algebra evaluates the same rule on run-time
    integers. So passes and the interpreter can never disagree on a rule.

    Rules: view `min(max(parentValid - offset, 0), viewShape)` (intersected
    with an explicit valid shape); matmul `[valid M of op(A), valid N of
    op(B)]`; elementwise: the valid extent of the operand that is not
    broadcast along a dim; reductions: 1 along the reduced dim with keepdim;
    cast and unary ops: the operand's; transpose: the operand's with
    the two dims exchanged; gathermask: the operand's, with the last dim's
    count of selected elements `ceildiv(max(valid - phase, 0), stride)`;
    topk: the operand's, with the last dim `min(valid, k)`.
  }];
  let methods = [
    InterfaceMethod<
      "Computes the valid extents of tile result `resultIndex` with `algebra`.",
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::pto::Extent>>",
      "inferValidShape",
      (ins "::mlir::pto::ValidShapeAlgebra &":$algebra,
           "unsigned":$resultIndex)>
  ];
}

// Marks ops that run on the cube core (AIC).
def PTO_CubeOpTrait : NativeOpTrait<"CubeOpTrait"> {
  let cppNamespace = "::mlir::pto";
}
// Marks ops that run on a vector core (AIV).
def PTO_VectorOpTrait : NativeOpTrait<"VectorOpTrait"> {
  let cppNamespace = "::mlir::pto";
}

#endif // PTO_INTERFACES_TD
