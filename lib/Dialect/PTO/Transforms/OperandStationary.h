//===- OperandStationary.h - extents of operand-stationary cube tasks -*- C++
//-*-===//
//
// The planning half of `pto-l1-reuse`'s operand-stationary mode
// (docs/TileGraph.md#operand-stationary-cube-tasks), on plain data so that it
// is independent of the IR: the cube tasks of one isomorphism group, each
// described by the A (left) and B (right) operand block it copies into L1,
// are cut into rectangles of a x b tasks that share their blocks, so that
// each rectangle loads a blocks of A and b blocks of B once, while its
// blocks fit L1: a block shared by every task of the rectangle stays
// resident while the other side streams through two buffers of one K step
// (a x 1 or 1 x b); with several blocks on both sides, the side whose blocks
// the members (in program order) take in runs streams whole blocks through
// two buffers past the other side's resident ones, else every block of the
// rectangle is resident. The extent is the one with the least group time
// (`groupCycles`): the cube cores' throughput over the rectangles (each the
// slower of its copy-ins and its other pipes, plus the per-launch cost)
// against the latency of one instance of the group, which fewer, longer
// tasks and chained K parts lengthen; on equal times, the fewer copy-ins.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::pto::detail {

/// One operand block (all the copy-ins of one side of one task, every K step).
struct StationaryBlock {
  int64_t bytes = 0;       // L1 bytes
  int64_t stepBytes = 0;   // L1 bytes of its largest K step
  double loadCycles = 0.0; // MTE2 cycles to copy it in
};

struct StationaryProblem {
  /// Per task (in program order): its A block and its B block (indices).
  SmallVector<std::pair<unsigned, unsigned>> tasks;
  /// Per task (or empty: all 0): 0, or 1 for a later K part of a cut chain,
  /// which waits for the chain's first part (docs/TileGraph.md).
  SmallVector<unsigned> stage;
  SmallVector<StationaryBlock> aBlocks, bBlocks;
  /// The slowest of one task's pipes other than MTE2 (M, MTE1, FIX), cycles.
  double pieceCycles = 0.0;
  int64_t l1Bytes = 0;
  /// Candidate extents go up to this many blocks per side.
  unsigned maxExtent = 16;
  /// The fixed cost of one launch (the cost model's, in cycles), the cube
  /// cores, and how many instances of the group at least run at once (the
  /// static trip counts of the parallel loops around it).
  double launchCycles = 0.0;
  unsigned cores = 1;
  double instances = 1.0;
  /// Per instance, the cycles of the block's other cube tasks, which the
  /// cores run beside a group whose instances run in turn (MIX tasks,
  /// MixExchange.h): its latency hides behind that work too. 0: none.
  double overlapCycles = 0.0;
  /// Rectangles take every ceil(columns / b)-th B block of their component
  /// instead of a run of b consecutive ones (MIX tasks whose instances run
  /// in turn, docs/TileGraph.md#on-chip-exchanges): the same rectangles'
  /// sizes and copy-ins for whole blocks, but a block whose valid extent
  /// covers only its first columns spreads them over several tasks.
  bool interleaveColumns = false;
};

struct StationaryPlan {
  unsigned a = 1, b = 1;        // blocks per side of a rectangle
  SmallVector<unsigned> slotOf; // per task: its rectangle
  unsigned rectangles = 0;
  double loadCycles = 0.0;  // MTE2 of all rectangles
  double pieceCycles = 0.0; // other pipes of all tasks
  double cycles = 0.0;      // groupCycles of the rectangles
  int64_t largestFootprint = 0;
};

/// The time per instance of a group cut into merged tasks of the given
/// times (cycles: the slower of a task's copy-ins and its other pipes;
/// double buffering overlaps them) and stages: the larger of the cores'
/// throughput, sum(time + launch) / cores, and one instance's latency
/// (per stage, the greedy longest-first schedule of its tasks on the
/// cores; the stages one after another) over the instances that share the
/// cores. With `overlapCycles`, the throughput term also counts that work
/// (and the result leaves it out again, so group times stay comparable).
/// O(tasks log tasks).
double groupCycles(const StationaryProblem &problem, ArrayRef<double> times,
                   ArrayRef<unsigned> stages);

/// The group time of the tasks merged into the given slots (one per task;
/// equal slots: one merged task), each copying the distinct blocks of its
/// members once on the sides in `shareA` / `shareB` (else once per member).
double slotsCycles(const StationaryProblem &problem, ArrayRef<unsigned> slotOf,
                   bool shareA = true, bool shareB = true);

/// Relative slack under which two group times count as equal (rounding).
constexpr double kSameCycles = 1e-9;

/// Whether `plan` is preferred to `best`: the shorter group time; on equal
/// times the fewer copy-in cycles (MTE2), then the fewest tasks per
/// rectangle.
bool isBetterPlan(const StationaryPlan &plan, const StationaryPlan &best);

/// The extent whose rectangles all fit L1 and is best by `isBetterPlan`. None
/// if no extent of at least two tasks is shorter than `baseline` (the cycles of
/// what the group would be otherwise). Rectangles are cut per connected
/// component of the task/block graph (e.g. S = Q K^T and dP = dO V^T form two),
/// rows and columns numbered in order of first appearance. Cost: O(maxExtent^2
/// x tasks log tasks).
std::optional<StationaryPlan> planStationary(const StationaryProblem &problem,
                                             double baseline);

/// The group time of the tasks unmerged.
double stationaryCycles(const StationaryProblem &problem);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H
