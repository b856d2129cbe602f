//===- MixExchange.h - what pto-mix-exchange does to other plans -*- C++
//-*-===//
//
// `pto-l1-reuse` chooses a cube group's task extent from how many instances
// of its block run at once (docs/TileGraph.md#operand-stationary-cube-tasks).
// When `pto-mix-exchange` will merge those cube tasks with the vector tasks
// that read their results, the MIX tasks also take the vector tasks'
// accesses, so they wait wherever the vector tasks wait.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_MIXEXCHANGE_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_MIXEXCHANGE_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto::detail {

/// The workspaces defined outside `block` that the vector tasks of `block`
/// reading a workspace stored by `cubeTasks` access. Such a workspace is one
/// buffer rewritten by every iteration of the loops around it, so MIX tasks
/// holding those readers run one iteration of these loops at a time (the
/// next write waits for their reads), not side by side. Empty if the
/// kernel's platform has no L0C -> UB path.
SmallVector<Operation *> mixReaderOuterWorkspaces(Block &block,
                                                  ArrayRef<TaskOp> cubeTasks);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_MIXEXCHANGE_H
