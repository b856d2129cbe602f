//===- UniqueIndexArithmetic.h - one op per value, expanded ---*- C++ -*-===//
//
// Part of `pto-expand-tiles` (docs/TileGraph.md): expansion builds the offset
// and valid-extent arithmetic of every piece afresh (an `arith.constant` per
// offset, `max(valid - offset, 0)` per piece and operand), most of it equal
// to arithmetic an earlier piece already built. Every later pass and every
// verifier run would walk the copies; they are folded here into one op per
// value, as CSE would.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_UNIQUEINDEXARITHMETIC_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_UNIQUEINDEXARITHMETIC_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::pto::detail {

/// Replaces each `arith.constant` under `root`, and each memory-effect-free
/// arith op in `built`, by an equal op (same name, attributes, operands and
/// result types) that dominates it, earlier in its block or in an enclosing
/// one (not across ops isolated from above), and erases it. One walk in
/// program order: an op's operands are already the kept ones when it is
/// looked up. `built` may hold ops erased since; only live ops are read.
void uniqueIndexArithmetic(Operation *root,
                           const llvm::DenseSet<Operation *> &built);

} // namespace mlir::pto::detail

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_UNIQUEINDEXARITHMETIC_H
