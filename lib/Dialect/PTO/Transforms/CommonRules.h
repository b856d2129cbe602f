//===- CommonRules.h - structural queries and kernel-generic rules -*- C++ -*-===//
//
// Two layers shared by --pto-lint and --pto-check-skeleton:
//
//  * structural queries (StructuralQueries.cpp) that recognise a kernel's
//    shape semantically (which kernel argument a tile views, which loop index
//    drives which offset, what a tile is computed from), never by SSA names,
//    which the parser drops;
//  * the rules (CommonRules.cpp) that hold for any PyPTO kernel (manual masks, static loops,
//    tile configs, tail views, recomputed statistics, scope purity). Each
//    takes the rule id to report under, so the SK-16 checker can report the
//    same finding as "[SK16-R6]" that the linter reports as "[LINT-MASK]".
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_COMMONRULES_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_COMMONRULES_H

#include "IndexForm.h"
#include "RuleReporter.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::pto::check {

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
/// views of tiles, stores into a pto.workspace (to its views), scope results, arith.select and scf.if; matmuls and writes are included
/// but not walked past.
llvm::SetVector<Operation *> collectTileConsumers(ValueRange seeds);
/// The pto.full a tile is a copy of, through casts, views of tiles, scope
/// results and a workspace it was stored into, or null.
FullOp traceConstantTile(Value tile);

//===----------------------------------------------------------------------===//
// Kernel-generic rules
//===----------------------------------------------------------------------===//

/// Manual masks: arith.select or scf.if producing a tile (except branches on
/// pto.is_loop_begin/is_loop_end), and an elementwise op with a pto.full tile
/// operand (a 0/1 mask or fill tile). Errors.
void checkManualMasks(KernelOp kernel, RuleReporter &reporter, StringRef rule);

/// Views that move with a loop of dynamic trip count but carry no explicit
/// valid extent on that dim (or only the full tile size). An error when the
/// offset depends on a pto.read (varlen: the derived extent cannot see the
/// sequence end), a warning otherwise.
void checkTailViews(KernelOp kernel, RuleReporter &reporter, StringRef rule);

/// Tile configs are present, constant and fit: vector ops carry a vec_tile,
/// the vec tile (clamped to the op's shape) fits UB, tile sizes in loop trip
/// counts and offset strides are compile-time constants, and offsets advance
/// by exactly the tile size. Errors.
void checkTileConfigs(KernelOp kernel, RuleReporter &reporter, StringRef rule);

/// Loops other than pto.loop (scf.for, ...) around pto ops, except those in
/// `alreadyReported`. Errors.
void checkStaticLoops(KernelOp kernel, RuleReporter &reporter, StringRef rule,
                      ArrayRef<Operation *> alreadyReported = {});

/// Views of one tensor that repeat each other up to constant offset shifts:
/// a loop level written out by hand.
void checkReplicatedViews(KernelOp kernel, RuleReporter &reporter,
                          StringRef rule, Severity severity);

/// Row statistics recomputed over a score tile although kernel inputs carry
/// them: a pto.amax, or a pto.sum over exp(...) not divided by the input
/// statistic, over a matmul result that is also combined with a [M, 1] view
/// of a kernel argument. Errors.
void checkRecomputedStatistics(KernelOp kernel, RuleReporter &reporter,
                               StringRef rule);

/// Scope purity: on architectures without mixed scopes a scope holds only
/// cube or only vector ops (error; the verifier also rejects this, the rule
/// covers IR built without verification); a pto.reshape in a scope forms its
/// own subgraph and splits the scope (warning).
void checkScopePurity(KernelOp kernel, RuleReporter &reporter, StringRef rule);

} // namespace mlir::pto::check

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_COMMONRULES_H
