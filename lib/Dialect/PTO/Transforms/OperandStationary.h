//===- OperandStationary.h - extents of operand-stationary cube tasks -*- C++ -*-===//
//
// The planning half of `pto-l1-reuse`'s operand-stationary mode
// (docs/TileGraph.md#operand-stationary-cube-tasks), on plain data so that it
// is independent of the IR: the cube tasks of one isomorphism group, each
// described by the A (left) and B (right) operand block it copies into L1,
// are cut into rectangles of a x b tasks that share their blocks, so that
// each rectangle loads a blocks of A and b blocks of B once. The extent is
// the smallest rectangle whose copy-ins (MTE2) take no longer than the
// pieces' other pipes (M, MTE1, FIX), while its blocks fit L1: a block
// shared by every task of the rectangle stays resident while the other
// side streams through two buffers of one K step (a x 1 or 1 x b), else
// every block of the rectangle is resident.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H

#include "mlir/Support/LLVM.h"
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
  SmallVector<StationaryBlock> aBlocks, bBlocks;
  /// The slowest of one task's pipes other than MTE2 (M, MTE1, FIX), cycles.
  double pieceCycles = 0.0;
  int64_t l1Bytes = 0;
  /// Candidate extents go up to this many blocks per side.
  unsigned maxExtent = 16;
};

struct StationaryPlan {
  unsigned a = 1, b = 1;        // blocks per side of a rectangle
  SmallVector<unsigned> slotOf; // per task: its rectangle
  unsigned rectangles = 0;
  double loadCycles = 0.0;  // MTE2 of all rectangles
  double pieceCycles = 0.0; // other pipes of all tasks
  double cycles = 0.0;      // sum over rectangles of max(MTE2, other pipes)
  int64_t largestFootprint = 0;
};

/// The extent whose rectangles all fit L1 and take the least time in all
/// (per rectangle the slower of its copy-ins and its pieces' other pipes:
/// double buffering overlaps them); on ties the fewest tasks per rectangle
/// (the most parallel), then the least MTE2. So once a rectangle's copy-ins
/// are hidden behind its work, it grows no further. None if no extent of at
/// least two tasks shortens the group's time.
/// Rectangles are cut per connected component of the task/block graph (e.g.
/// S = Q K^T and dP = dO V^T form two), rows and columns numbered in order
/// of first appearance. Cost: O(maxExtent^2 x tasks).
std::optional<StationaryPlan> planStationary(const StationaryProblem &problem);

/// The time of the tasks unmerged: the sum over tasks of the slower of
/// their copy-ins and their other pipes.
double stationaryCycles(const StationaryProblem &problem);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_OPERANDSTATIONARY_H
