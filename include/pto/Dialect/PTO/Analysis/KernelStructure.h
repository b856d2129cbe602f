//===- KernelStructure.h - what a pto kernel is, by value -------*- C++ -*-===//
//
// Structural queries over one pto.kernel, shared by the checkers and the
// passes: which kernel argument a tile views, which loop index drives which
// offset (by value, IndexForm.h), what a tile is computed from. They never
// read SSA names, which the parser drops.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_ANALYSIS_KERNELSTRUCTURE_H
#define PTO_DIALECT_PTO_ANALYSIS_KERNELSTRUCTURE_H

#include "pto/Dialect/PTO/Analysis/IndexForm.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::pto {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// The kernel argument a GM tensor aliases through reshapes, or null.
BlockArgument getRootArgument(Value tensor);
/// The Python name of kernel argument `arg` (its SSA name in the source).
StringRef getArgumentName(BlockArgument arg);
/// The kernel argument a tile is a view of (through views of views), or null.
BlockArgument getViewedArgument(Value tile);
/// The view op producing `tile`, or null.
ViewOp getViewOf(Value tile);
/// "'q'" for a kernel argument.
std::string quoted(BlockArgument arg);
/// "the view of 'q'" for views of kernel arguments, else "'op.name'".
std::string describeOp(Operation *op);
/// A type as printed; a shape as "[2048, 128]".
std::string formatType(Type type);
std::string formatShape(ArrayRef<int64_t> shape);
/// A fill value as written: "0", "1", "-inf".
std::string formatConstant(double value);

/// The sg_set_scope `op` is recorded under: its enclosing pto.scope region
/// (returned in `region`), or on IR after pto-flatten-scopes the
/// `pto.scope` stamp on the op itself; null when it has none.
ScopeAttr getScopeOf(Operation *op, ScopeOp *region = nullptr);

//===----------------------------------------------------------------------===//
// Index expressions
//===----------------------------------------------------------------------===//

/// The loop owning induction variable `v` (a pto.loop, or any other
/// LoopLikeOpInterface op such as scf.for), or null if `v` is no loop index.
Operation *getInductionVarOwner(Value v);
/// "loop 'LOOP_s1_dq'" or "scf.for".
std::string describeLoop(Operation *loop);

/// The loop indices an index value depends on: `direct` through arithmetic,
/// `viaRead` only through the indices of a pto.read (as the batch index
/// reaches `q_start = actual_q[b]`); `reads` are the pto.read ops crossed.
struct IndexDeps {
  llvm::SetVector<Value> direct;
  llvm::SetVector<Value> viaRead;
  llvm::SetVector<Operation *> reads;
};
IndexDeps collectIndexDeps(Value index);

/// The value that makes `v` a run-time quantity (a block argument, a pto.read,
/// the size of a dynamic dim, a tile, ...), or null when `v` folds to a
/// compile-time constant (constants, static dims and pure arithmetic on them).
Value findRuntimeSource(Value v);
/// "a value read from tensor 'cfg' (pto.read)", "the index of loop 'L'", ...
std::string describeRuntimeSource(Value source);
/// The location to point a note at for a run-time source.
Location getSourceLoc(Value source);

/// One `idx * stride` (or bare `idx`, stride null) term of an offset sum.
struct StrideTerm {
  Value iv;
  Value stride;
  Operation *mulOp;
};
/// The loop-index terms of an offset written as a sum (arith.addi) of terms.
SmallVector<StrideTerm> getStrideTerms(Value offset);

/// The offsets of a view in the GM tensor it finally views, by value: a
/// view of a tile adds its offsets to those of the tile's own view.
SmallVector<IndexPoly> getAbsoluteOffsets(ViewOp view, IndexForms &forms);
/// The value key (IndexForm.h) of the offsets of a view past dim 0 (its
/// columns, in the GM tensor it finally views): views of one tensor with
/// equal keys cover the same columns, e.g. the same head, however the
/// offsets are written.
std::string getColumnKey(ViewOp view);

/// Entry `i` of a mixed static/dynamic list: a Value, or a constant when the
/// Value is null.
struct MixedIndex {
  Value value;
  int64_t constant = 0;
};
SmallVector<MixedIndex> getMixed(ArrayRef<int64_t> statics, ValueRange values);
/// The explicit valid shape of a view, if it has one.
std::optional<SmallVector<MixedIndex>> getExplicitValidShape(ViewOp view);

//===----------------------------------------------------------------------===//
// Tile dataflow
//===----------------------------------------------------------------------===//

/// Every op `tile` is computed from, walking backwards through vector ops,
/// views of tiles, views of a pto.workspace (to the tiles stored into it),
/// scope results, arith.select and scf.if; the walk stops at (and includes)
/// views of kernel tensors, matmuls and pto.full.
llvm::SetVector<Operation *> collectTileProducers(Value tile);
/// Every op computing from `seeds`, walking forwards through vector ops,
/// views of tiles, stores into a pto.workspace (to its views), scope results,
/// arith.select and scf.if; matmuls and writes are included but not walked
/// past.
llvm::SetVector<Operation *> collectTileConsumers(ValueRange seeds);
/// The pto.full a tile is a copy of, through casts, views of tiles, scope
/// results and a workspace it was stored into, or null.
FullOp traceConstantTile(Value tile);

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_ANALYSIS_KERNELSTRUCTURE_H
