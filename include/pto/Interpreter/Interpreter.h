//===- Interpreter.h - reference interpreter for pto kernels ----*- C++ -*-===//
//
// Executes a pto.kernel on host memory with the semantics of
// shared/reference/pypto-model.md: bit-exact BF16 rounding, FP32 arithmetic,
// FP32 accumulation of BF16 matmuls (through BLAS), computation restricted to
// valid regions, atomic accumulation into GM. Valid extents come from the same
// ValidShapeInferenceOpInterface rules the passes use.
//
// Faults (out-of-bounds accesses, scalar reads out of range, decreasing
// cumulative offsets, mismatched valid extents, ...) are reported as MLIR
// errors at the faulting op and make runKernel fail.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_INTERPRETER_INTERPRETER_H
#define PTO_INTERPRETER_INTERPRETER_H

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Interpreter/HostTensor.h"

#include "llvm/Support/Error.h"

namespace mlir::pto::interp {

struct RunOptions {
  /// Apply the contributions of atomic_add to each tensor in a shuffled order
  /// (seeded) instead of program order, to exercise the tolerance; pending
  /// contributions are flushed before the tensor is read and at the end.
  bool shuffleAtomics = false;
  uint64_t shuffleSeed = 0;
  /// Stitched root calls: a stitch runs early (before `depth` instances)
  /// once its instances' own workspaces reach this many bytes, bounding the
  /// interpreter's memory (a smaller stitch is a valid order too).
  uint64_t maxStitchWorkspaceBytes = uint64_t(1) << 30;
};

struct RunStats {
  uint64_t opsExecuted = 0;
  uint64_t loopIterations = 0;
  uint64_t matmulFlops = 0;     // 2*M*N*K over valid extents
  uint64_t atomicElements = 0;  // elements accumulated into GM
  // Stitched execution of root calls with a stitch plan.
  uint64_t rootInstances = 0;     // root instances buffered for stitches
  uint64_t stitches = 0;          // stitches (device tasks) run
  uint64_t stitchedLaunches = 0;  // launches run inside stitches
  uint64_t reorderedLaunches = 0; // ... at a position other than sequential
  uint64_t vectorElements = 0;  // valid elements read by elementwise, unary,
                                // reduce and cast ops
};

/// Checks that `args` match the kernel signature: count, element types,
/// ranks, static dims, and the `pto.cumulative` contract (non-decreasing
/// 1-D offsets starting at 0). The message names the argument and numbers.
llvm::Error checkArguments(KernelOp kernel, ArrayRef<HostTensor> args);

/// Indices of the kernel arguments written by atomic_add or assemble
/// (through in-place reshapes): the kernel's outputs.
SmallVector<unsigned> getWrittenArguments(KernelOp kernel);

/// Runs `kernel` on `args` (one per kernel argument, in order); written
/// arguments are updated in place. Call checkArguments first.
LogicalResult runKernel(KernelOp kernel, MutableArrayRef<HostTensor> args,
                        const RunOptions &options = {},
                        RunStats *stats = nullptr);

} // namespace mlir::pto::interp

#endif // PTO_INTERPRETER_INTERPRETER_H
