//===- SplitKChains.h - cut cube tasks' K chains into partial sums -*- C++
//-*-===//
//
// Part of `pto-l1-reuse`'s operand-stationary mode (docs/TileGraph.md): a
// cube task that accumulates one output block over a long K chain is cut
// into `parts` tasks over equal K ranges; the first stores its partial sum
// as before, the others add theirs atomically (the fixpipe's atomic store),
// ordered after it by their common GM region. The parts then share operand
// blocks per K range, which the whole chain could not keep in L1.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto::detail {

/// Whether every task of `tasks` (cube tasks of one block) can be cut into
/// `parts`: its body is views, index arithmetic and one matmul chain whose
/// length `parts` divides, stored by one `pto.assemble` of an FP32 tile, and
/// the first step of each later part reads its B operand through a view of
/// its own.
bool canSplitKChains(ArrayRef<TaskOp> tasks, unsigned parts);

/// Cuts them (canSplitKChains must hold): each task keeps the first K range
/// and its store; a copy per later range follows it, starting a new sum and
/// adding it to the stored block with `pto.atomic_add` (its B view guarded
/// so that an empty K range adds nothing). Returns the tasks in program
/// order, the parts of each task adjacent and in K order, and appends the
/// later parts to `later`.
SmallVector<TaskOp> splitKChains(ArrayRef<TaskOp> tasks, unsigned parts,
                                 SmallVectorImpl<TaskOp> &later);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_SPLITKCHAINS_H
