//===- ReloadSplit.h - reload GM-backed tiles instead of keeping them -----===//
//
// Part of pto-isa-plan-memory (docs/ISA.md, "Memory planning"): when the
// tiles of one space do not fit, the live ranges of tiles that hold a copy
// of unchanged GM are split, so such a tile is dropped between two reads and
// loaded again before the later one.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_DIALECT_PTOISA_TRANSFORMS_RELOADSPLIT_H
#define PTO_DIALECT_PTOISA_TRANSFORMS_RELOADSPLIT_H

#include "pto/Dialect/PTOISA/IR/PTOISA.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::ptoisa {

/// Pre-order number of each op of `func`'s body and the last number inside
/// its regions: the positions pto-isa-plan-memory's live ranges count in.
DenseMap<Operation *, std::pair<int64_t, int64_t>>
numberOpsInPreOrder(FunctionOpInterface func);

/// Splits the live ranges of `space` tiles of `func` that one `tload` in the
/// function's body fills from a GM tensor the function does not write and
/// that are only read afterwards, so that the bytes live at once (tiles
/// rounded up to `align`) stay within `capacity`: between two reads of such
/// a tile it may be dropped and is loaded again (a clone of its alloc and
/// tload) right before the later read. The tiles dropped are chosen as
/// Belady's rule does, the one read again furthest ahead first, which
/// minimises the reloads for the given order. Returns the number of reloads
/// inserted; 0 (and no change) when no split brings the live bytes within
/// the capacity.
int64_t splitLiveRangesByReload(FunctionOpInterface func, MemorySpace space,
                                int64_t capacity, int64_t align);

} // namespace mlir::ptoisa

#endif // PTO_DIALECT_PTOISA_TRANSFORMS_RELOADSPLIT_H
