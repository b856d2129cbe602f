/*===- pto-c/Compiler.h - C API: parse, verify, run pipelines ----*- C -*-===*\
|*                                                                            *|
|* Everything else (printing, walking, attributes) is MLIR's own C API        *|
|* (mlir-c/IR.h), which libPTO-C exports as well.                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PTO_C_COMPILER_H
#define PTO_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the pto passes and pipelines (pto-tile-graph-pipeline) and
 * canonicalize, cse, inline and symbol-dce with the global pass registry, so
 * pipelines can name them. Idempotent. */
MLIR_CAPI_EXPORTED void ptoRegisterAllPasses(void);

/* Parses and verifies `source`; `bufferName` is the file name diagnostics
 * show (e.g. "kernel.mlir"). Returns a null module (mlirModuleIsNull) on
 * failure; the errors go to the context's diagnostic handlers (see
 * pto-c/Diagnostics.h). */
MLIR_CAPI_EXPORTED MlirModule ptoModuleParse(MlirContext context,
                                             MlirStringRef source,
                                             MlirStringRef bufferName);

/* Verifies `op` and everything nested; failures are reported as diagnostics. */
MLIR_CAPI_EXPORTED MlirLogicalResult ptoOperationVerify(MlirOperation op);

/* Runs a textual pass pipeline on `op`: anchored
 * ("builtin.module(pto-check-skeleton{skeleton=sk16})") or a bare pass list
 * ("canonicalize,cse"), anchored on op's name; registered pipelines may be
 * named. Syntax errors and pass failures are reported as diagnostics. */
MLIR_CAPI_EXPORTED MlirLogicalResult ptoRunPassPipeline(MlirOperation op,
                                                        MlirStringRef pipeline);

#ifdef __cplusplus
}
#endif

#endif /* PTO_C_COMPILER_H */
