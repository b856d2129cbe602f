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

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::pto::detail {

/// Per block of cube tasks: which loops around it the MIX tasks formed
/// from a group of them would run in turn. A vector task reading a
/// workspace the cube tasks store matmul results into joins their MIX task;
/// if it also accesses a workspace defined outside the block (one buffer,
/// rewritten by every iteration of the loops around both the block and a
/// write to it; SK-16's Dvec), the next iteration's write waits for the MIX
/// task's read. Each task and workspace is looked at once per query: the
/// caches, keyed by op and value addresses, are emptied when a query
/// starts, so that the block may change between queries.
class MixSerialisation {
public:
  explicit MixSerialisation(Block &block);
  /// The innermost loop around the block whose iterations MIX tasks of
  /// `cubeTasks` run in turn (so do those of every loop around it); null if
  /// none, or if the kernel's platform has no L0C -> UB path.
  Operation *serialisedLoop(ArrayRef<TaskOp> cubeTasks);
  /// Whether a cube task of the block stores matmul results into a
  /// workspace that pto-mix-exchange may keep on chip (every access a store
  /// in a cube task or a view in a vector task of the block, at static
  /// offsets; the per-piece and UB checks left out) and whose MIX tasks run
  /// their instances at once (no loop from `serialisedLoop`): MIX tasks
  /// that hold two AIVs beside the ones whose instances run in turn.
  /// Computed once per block, on the IR as it is at the first call.
  bool hasParallelExchange();

private:
  /// Empties the caches; every public query starts with it.
  void startQuery();
  Operation *ofStored(Value workspace);
  Operation *ofReader(Operation *reader);
  Operation *ofOuterWorkspace(Operation *workspace);

  Block &block;
  bool enabled = false;
  std::optional<bool> parallelExchange;
  llvm::DenseMap<Value, Operation *> storedCache;
  llvm::DenseMap<Operation *, Operation *> readerCache, outerCache;
};

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_MIXEXCHANGE_H
