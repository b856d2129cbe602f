//===- Interpreter.h - reference interpreter for pto kernels ----*- C++ -*-===//
//
// Executes a pto.kernel on host memory with the semantics of
// docs/PyPTOModel.md: bit-exact BF16 rounding, FP32 arithmetic,
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

/// One executed pto.launch, as seen by an ExecutionObserver (lib/CostModel).
struct LaunchEvent {
  Operation *leaf = nullptr; // the leaf function
  uint64_t id = 0;           // launches of the run, numbered in run order
  uint64_t instance = 0;     // root call instances of the run, numbered
  int64_t stitch = -1;       // stitches of the run, numbered; -1: unstitched
  SmallVector<uint64_t, 4> deps; // ids of the launches its token deps name
  // GM tensors (host storage identity) its leaf's arguments name: bits
  // 1 read, 2 write, 4 atomic add (the interpreter's whole-tensor conflict
  // granularity), 8 also touched by ops that report no GMBox (scalar reads,
  // ops other than view / assemble / atomic_add).
  SmallVector<std::pair<const HostTensor *, uint8_t>, 4> accesses;
  // Tile arguments the control program viewed from GM: the tensor and the
  // number of launches run before the view (the tile holds what they wrote).
  // The runtime would read the tensor; the interpreter copied it already.
  SmallVector<std::pair<const HostTensor *, uint64_t>, 2> tileReads;
};

/// The box of a GM tensor one access touches: offsets and valid extents in
/// the shape the tensor is viewed with (a reshape views the same storage
/// with another shape). An empty `shape`: the box is not known (the access
/// may touch any element, e.g. index_put's rows come from index values).
struct GMBox {
  ArrayRef<int64_t> shape, offsets, sizes;
};

/// Additive hooks for performance models: the interpreter calls them while it
/// runs, with run-time valid extents. Ops outside launches are reported too
/// (between launchEnd and the next launchBegin).
class ExecutionObserver {
public:
  virtual ~ExecutionObserver();
  virtual void stitchBegin(int64_t stitch, uint64_t instances,
                           uint64_t launches) {}
  /// The buffered stitch is about to run because the control program
  /// reached `op` (not called for other submission points: stitch depth,
  /// workspace budget, end of the kernel).
  virtual void stitchFlushAt(Operation *op) {}
  /// A pto.loop of the control program starts iteration `iv` of [lb, ub)
  /// (progress reports).
  virtual void loopIteration(Operation *loop, int64_t iv, int64_t lb,
                             int64_t ub) {}
  virtual void launchBegin(const LaunchEvent &launch) {}
  virtual void launchEnd() {}
  /// pto.view of a GM tensor (`workspace`: a pto.workspace buffer):
  /// `bytes` valid bytes read from `box`.
  virtual void gmRead(Operation *op, const HostTensor *tensor, bool workspace,
                      uint64_t bytes, GMBox box) {}
  /// assemble / atomic_add into a GM tensor: `bytes` valid bytes written to
  /// `box`.
  virtual void gmWrite(Operation *op, const HostTensor *tensor, bool workspace,
                       uint64_t bytes, bool atomic, GMBox box) {}
  /// pto.view (`write` false) or assemble (`write` true) of a workspace
  /// marked `pto.on_chip` (docs/TileGraph.md, "On-chip exchanges"): a MIX
  /// task's cube result handed to its vector cores through L0C -> UB, never
  /// in GM; `bytes` valid bytes moved. gmRead / gmWrite are not called.
  virtual void onChipMove(Operation *op, uint64_t bytes, bool write) {}
  /// matmul / matmul_acc over valid extents M x N x K.
  virtual void matmul(Operation *op, int64_t m, int64_t n, int64_t k) {}
  /// Elementwise, unary, reduce or cast op reading `elements` valid elements.
  virtual void vectorOp(Operation *op, uint64_t elements) {}
};

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
  /// Optional hooks (not owned); null: no observation, no overhead.
  ExecutionObserver *observer = nullptr;
  /// false: run only what the schedule needs (control flow, scalar reads of
  /// integer tensors, valid extents, launches, the observer's hooks with the
  /// same numbers) and skip tile arithmetic: tiles and workspaces hold no
  /// data, float arguments may be shape-only (ShapeOnly.h). A scalar read of
  /// a shape-only tensor is a fault naming the argument.
  bool numerics = true;
};

struct RunStats {
  uint64_t opsExecuted = 0;
  uint64_t loopIterations = 0;
  uint64_t matmulFlops = 0;    // 2*M*N*K over valid extents
  uint64_t atomicElements = 0; // elements accumulated into GM
  // Stitched execution of root calls with a stitch plan.
  uint64_t rootInstances = 0;     // root instances buffered for stitches
  uint64_t stitches = 0;          // stitches (device tasks) run
  uint64_t stitchedLaunches = 0;  // launches run inside stitches
  uint64_t reorderedLaunches = 0; // ... at a position other than sequential
  uint64_t vectorElements = 0;    // valid elements read by elementwise, unary,
                                  // reduce and cast ops
};

/// Checks that `args` match the kernel signature: count, element types,
/// ranks, static dims, and the `pto.cumulative` contract (non-decreasing
/// 1-D offsets starting at 0). The message names the argument and numbers.
llvm::Error checkArguments(KernelOp kernel, ArrayRef<HostTensor> args);

/// C0 (columns of one fractal) of kernel argument `i` when it is NZ
/// (`pto.layout = "nz"`), else 0. An NZ argument's data outside the run (a
/// .npy file, a caller's buffer) is its NZ storage: fromNZStorage gives the
/// matrix the run works on, toNZStorage the storage written back.
int64_t getNZFractalCols(KernelOp kernel, unsigned i);
/// Argument `i`'s data as given from outside the run (its NZ storage when it
/// is NZ) -> the tensor the run works on; an error naming the argument when
/// NZ storage is not of the NZ form.
llvm::Expected<HostTensor> fromArgumentStorage(KernelOp kernel, unsigned i,
                                               HostTensor data);
/// The run's tensor of argument `i` -> its data outside the run (inverse of
/// fromArgumentStorage).
HostTensor toArgumentStorage(KernelOp kernel, unsigned i, HostTensor tensor);

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
