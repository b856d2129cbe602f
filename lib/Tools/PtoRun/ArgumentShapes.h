//===- ArgumentShapes.h - shapes pto-run infers for generated data -*- C++
//-*-===//
#ifndef PTO_TOOLS_PTORUN_ARGUMENTSHAPES_H
#define PTO_TOOLS_PTORUN_ARGUMENTSHAPES_H

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::pto {

/// The shape of kernel argument `index` as the kernel fixes it from other
/// arguments, or nullopt. `known(i)` is argument i's shape when known (data
/// given, --shape, or fully static), else null.
///
/// Rules: (1) an argument stored at exactly the offsets (the same SSA
/// values) where another argument of the same shape type is viewed takes
/// that argument's shape (a row softmax's y from x); (2) `pto.reshape %arg
/// [sizes]` with sizes computed from constants and `pto.dim` of arguments of
/// known shape fixes the product of %arg's dims; with a single dynamic dim
/// that fixes the dim (e.g. SK-16's `pto.reshape %o [%total_q, 1024]` with
/// %total_q = pto.dim %q, 0).
std::optional<SmallVector<int64_t>> inferArgumentShape(
    KernelOp kernel, unsigned index,
    llvm::function_ref<const SmallVector<int64_t> *(unsigned)> known);

} // namespace mlir::pto

#endif // PTO_TOOLS_PTORUN_ARGUMENTSHAPES_H
