//===- Passes.td - conversions between pto levels ----------*- tablegen -*-===//
#ifndef PTO_CONVERSION_PASSES_TD
#define PTO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToISAPass : Pass<"pto-lower-to-isa", "::mlir::ModuleOp"> {
  let summary = "Lowers tile-graph leaf functions to pto_isa instructions";
  let description = [{
    TODO(lower-to-isa): describe.
  }];
  let dependentDialects = ["::mlir::ptoisa::PTOISADialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // PTO_CONVERSION_PASSES_TD
