//===- Passes.td - pto passes ------------------------------*- tablegen -*-===//
#ifndef PTO_TRANSFORMS_PASSES_TD
#define PTO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestValidShapePass : Pass<"pto-test-valid-shape"> {
  let summary = "Reifies the valid shape of every tile value (test pass)";
  let description = [{
    For every op producing a `!pto.tile`, reifies the valid extents of each
    tile result through `ValidShapeInferenceOpInterface`, materialising the
    `arith` ops right after the op, and emits a remark spelling the extents
    symbolically (`min(max(a_s1 - 0, 0), 2048)` style: kernel arguments and
    loop indices by name, other values by their defining op). Lets lit tests
    pin down every valid-shape rule.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SummaryPass : Pass<"pto-summary", "::mlir::ModuleOp"> {
  let summary = "Prints what each pto.kernel contains";
  let description = [{
    A read-only report, one block per `pto.kernel`: architecture and options,
    arguments, the loop nest (names and index names), views (and how many
    carry a valid shape), matmuls with their cube tiles, vector ops, casts by
    dtype pair, scopes with their op counts and core kind, scalar reads and
    atomic adds with their destinations. The IR is left unchanged. Written to
    stdout, or to the file given by `output`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the summary ('-' = stdout)">
  ];
}

#endif // PTO_TRANSFORMS_PASSES_TD
