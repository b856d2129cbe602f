/*===- pto-c/PTO.h - the pto-mlir C API ---------------------------*- C -*-===*\
|*                                                                            *|
|* Link libPTO-C (CMake: PTO::PTOCAPI). It contains MLIR's C API for the IR,  *|
|* passes and diagnostics (mlir-c/IR.h, mlir-c/Pass.h, ...) over Debian's     *|
|* libMLIR.so, plus the pto entry points below.                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PTO_C_PTO_H
#define PTO_C_PTO_H

#include "pto-c/Compiler.h"
#include "pto-c/Diagnostics.h"
#include "pto-c/Dialects.h"

#endif /* PTO_C_PTO_H */
