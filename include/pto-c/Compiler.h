/*===- pto-c/Compiler.h - C API: parse, verify, pipelines, C++, run -*- C
-*-===*\
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

/* Prints `module`, compiled by pto-ascend-pipeline, as pto-isa C++ (what
 * `pto-translate --pto-to-cpp` prints: kernels, control program and, under
 * PTO_HOST_MAIN, a host main), in chunks to `callback`. A module not at ISA
 * level fails with a diagnostic naming the pipeline to run. */
MLIR_CAPI_EXPORTED MlirLogicalResult ptoTranslateModuleToCpp(
    MlirOperation module, MlirStringCallback callback, void *userData);

/* One kernel argument for ptoRunKernel: `rank` dims at `shape`, the elements
 * at `data` in row-major order, in the kernel's element type (bf16 as its
 * 16-bit patterns, f32 as float, i32 as int32_t, ...). */
typedef struct PtoTensor {
  void *data;
  intptr_t rank;
  const int64_t *shape;
} PtoTensor;

/* Runs pto.kernel `kernelName` of `module` (empty: the module's only kernel)
 * in the reference interpreter (pto-run's engine, docs/Interpreter.md) on
 * `args`, one per kernel argument in order; the arguments the kernel writes
 * are updated in place. Returns pto-run's exit codes: 0 success, 2 the
 * arguments do not fit the kernel, 3 a fault while running; the reason is a
 * diagnostic on the module's context (see pto-c/Diagnostics.h). */
MLIR_CAPI_EXPORTED int ptoRunKernel(MlirOperation module,
                                    MlirStringRef kernelName, intptr_t numArgs,
                                    const PtoTensor *args);

#ifdef __cplusplus
}
#endif

#endif /* PTO_C_COMPILER_H */
