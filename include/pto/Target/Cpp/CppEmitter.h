//===- CppEmitter.h - pto + pto_isa to pto-isa C++ --------------*- C++ -*-===//
//
// Prints a compiled module as one C++ translation unit against the pto-isa
// API (docs/AscendTarget.md#pto-isa-api): a `__global__ AICORE` kernel per
// lowered leaf (cube leaves under `__DAV_CUBE__`, vector leaves under
// `__DAV_VEC__`), and, for host builds (`__CPU_SIM`), the root functions
// (execute graphs), the control-flow program of each pto.kernel on the pto-mlir
// runtime (runtime/include/pto/runtime/pto_runtime.hpp) and, with
// `PTO_HOST_MAIN`, a `main` that runs the kernel on .npy files. docs/Codegen.md
// describes the text.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_TARGET_CPP_CPPEMITTER_H
#define PTO_TARGET_CPP_CPPEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pto {

/// Prints `module` as pto-isa C++ to `os`. Fails with a diagnostic naming the
/// op when the module holds something the emitter cannot print (an unlowered
/// leaf, an unplanned tile, a loop-carried value in the control program).
LogicalResult translateToCpp(ModuleOp module, llvm::raw_ostream &os);

/// Registers `--pto-to-cpp` with mlir-translate style drivers.
void registerToCppTranslation();

} // namespace mlir::pto

#endif // PTO_TARGET_CPP_CPPEMITTER_H
