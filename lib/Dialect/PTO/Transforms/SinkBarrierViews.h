//===- SinkBarrierViews.h - control-program views moved down ---*- C++ -*-===//
//
// Part of `pto-partition` (docs/TileGraph.md): a segment of a block, the ops
// that may share tasks, ends at every view of a tile read by something other
// than a task (a full-window view of a workspace that a loop yields, e.g.
// SK-01's row maximum m_ij). pto-expand-tiles leaves such a view right after
// the pieces it reads, so it cuts one chain of vector work into two tasks,
// two launches each paying dispatch, although nothing after it changes what
// it reads.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_SINKBARRIERVIEWS_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_SINKBARRIERVIEWS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto::detail {

/// Moves each view of `block` for which `isBarrier` holds down to just
/// before the end of its run of ops (the next op with regions, or the
/// terminator), when no op before that reads it or may write what it reads
/// (any op other than a view taking its source workspace as an operand);
/// otherwise it stays. Only views of tiles (immutable SSA values) and of
/// `pto.workspace`s that nothing aliases (every user a view, store, atomic
/// add or index put) move. Values do not change: the view reads the same
/// data at its new place. One sweep over the block; returns the number of
/// views moved.
unsigned sinkBarrierViews(Block &block,
                          llvm::function_ref<bool(Operation &)> isBarrier);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_SINKBARRIERVIEWS_H
