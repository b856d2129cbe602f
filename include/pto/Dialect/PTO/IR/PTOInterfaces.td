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

//===----------------------------------------------------------------------===//
// Op families. A pass or the interpreter that treats every member of a family
// alike asks for the family, never for a list of ops: a new op joins by
// carrying the trait or interface on its ODS def (docs/Architecture.md,
// "Where a new thing goes").
//===----------------------------------------------------------------------===//

// Elementwise tile ops: result element i is a function of the operands'
// elements at i only (a size-1 dim of a tile operand broadcast along the
// result, a scalar operand used at every i): the binary and unary
// arithmetic, cast, compare, where. pto-expand-tiles splits them piece by
// piece, pto-lower-to-isa holds a chain of them in one 2-D form.
def PTO_ElementwiseOpTrait : NativeOpTrait<"ElementwiseOpTrait"> {
  let cppNamespace = "::mlir::pto";
}

// Reductions over one dim of the valid region (`input`, `dim`, `keepdim`):
// pto-legalize re-tiles them under the reduction tile limit.
def PTO_ReductionOpTrait : NativeOpTrait<"ReductionOpTrait"> {
  let cppNamespace = "::mlir::pto";
}

def PTO_ElementwiseBinaryOpInterface
    : OpInterface<"ElementwiseBinaryOpInterface"> {
  let cppNamespace = "::mlir::pto";
  let description = [{
    Elementwise arithmetic of a tile and a tile (broadcast along size-1 dims)
    or a scalar: `result[i] = evaluate(lhs[i], rhs[i])`. The same operand
    rules (verifier, pto-legalize's bf16 widening, the lint's broadcast
    rules, N-D collapsing) hold for every member. `evaluate` is the op's
    value on f32 elements, the interpreter's semantics (results of a
    narrower element type are rounded after it).
  }];
  let methods = [
    InterfaceMethod<"The left operand (a tile).", "::mlir::Value", "getLhs">,
    InterfaceMethod<"The right operand (a tile or a scalar).", "::mlir::Value",
                    "getRhs">,
    StaticInterfaceMethod<"The result for one pair of f32 elements.", "float",
                          "evaluate", (ins "float":$lhs, "float":$rhs)>,
    InterfaceMethod<[{
        `out[i] = evaluate(lhs[i * lhsStride], rhs[i * rhsStride])` for
        `0 <= i < n`: one call per row, so the interpreter's loop over
        elements is the op's own, inlined.
      }], "void", "evaluateRow",
      (ins "const float *":$lhs, "int64_t":$lhsStride, "const float *":$rhs,
           "int64_t":$rhsStride, "float *":$out, "int64_t":$n),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        ::mlir::pto::mapElementwiseRow(
            [](float a, float b) { return ConcreteOp::evaluate(a, b); }, lhs,
            lhsStride, rhs, rhsStride, out, n);
      }]>
  ];
}

def PTO_ElementwiseUnaryOpInterface
    : OpInterface<"ElementwiseUnaryOpInterface"> {
  let cppNamespace = "::mlir::pto";
  let description = [{
    Elementwise arithmetic of one tile: `result[i] = evaluate(input[i])`,
    the result of the input's shape and element type. `evaluate` is the op's
    value on an f32 element, the interpreter's semantics.
  }];
  let methods = [
    InterfaceMethod<"The operand.", "::mlir::Value", "getInput">,
    StaticInterfaceMethod<"The result for one f32 element.", "float",
                          "evaluate", (ins "float":$input)>,
    InterfaceMethod<"`out[i] = evaluate(in[i])` for `0 <= i < n`.", "void",
      "evaluateRow", (ins "const float *":$in, "float *":$out, "int64_t":$n),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        for (int64_t i = 0; i < n; ++i)
          out[i] = ConcreteOp::evaluate(in[i]);
      }]>
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
