//===- Passes.td - pto_isa passes --------------------------*- tablegen -*-===//
#ifndef PTOISA_TRANSFORMS_PASSES_TD
#define PTOISA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanMemoryPass : Pass<"pto-isa-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Places every pto_isa tile in its on-chip buffer (TASSIGN offsets)";
  let description = [{
    TODO(plan-memory): describe.
  }];
}

def InsertSyncPass : Pass<"pto-isa-insert-sync", "::mlir::ModuleOp"> {
  let summary = "Inserts set_flag/wait_flag and pipe barriers for every hazard";
  let description = [{
    TODO(insert-sync): describe.
  }];
}

#endif // PTOISA_TRANSFORMS_PASSES_TD
