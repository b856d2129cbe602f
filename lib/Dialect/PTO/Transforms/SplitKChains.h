//===- SplitKChains.h - cut cube tasks' K chains into partial sums -*- C++ -*-===//
//
// Part of `pto-l1-reuse`'s operand-stationary mode (docs/TileGraph.md): a
// cube task that accumulates one output block over a long K chain and
// stores it into a workspace is cut into `parts` tasks over equal K ranges,
// each storing its partial sum into a workspace of its own; the vector tasks
// that read the block and only scale it into `pto.atomic_add`s read every
// partial and add each. The parts then share operand blocks per K range,
// which the whole chain could not keep in L1.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto::detail {

/// Whether every task of `tasks` (cube tasks of one block) can be cut into
/// `parts`: its body is views, index arithmetic and one matmul chain whose
/// length `parts` divides, stored by one `pto.assemble` into a workspace of
/// the block; every workspace they store into is stored only by them and
/// read only by `pto.view`s in vector tasks whose uses are multiplications
/// by values not read from it ending in `pto.atomic_add`s (so that adding
/// the partials one by one is the same sum, up to FP32 rounding).
bool canSplitKChains(ArrayRef<TaskOp> tasks, unsigned parts);

/// Cuts them (canSplitKChains must hold); returns the new tasks in program
/// order, the parts of each task adjacent and in K order, and appends the
/// tasks reading the partial sums to `readers` (program order).
SmallVector<TaskOp> splitKChains(ArrayRef<TaskOp> tasks, unsigned parts,
                                 SmallVectorImpl<TaskOp> &readers);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H
