//===- CommonRules.h - rules that hold for any pto kernel -------*- C++ -*-===//
//
// The rules shared by --pto-lint and --pto-check-skeleton (manual masks,
// static loops, tile configs, tail views, recomputed statistics, scope
// purity). Each takes the rule id to report under, so the SK-16 checker
// reports as "[SK16-R6]" what the linter reports as "[LINT-MASK]".
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTO_CHECKS_COMMONRULES_H
#define PTO_LIB_DIALECT_PTO_CHECKS_COMMONRULES_H

#include "RuleReporter.h"
#include "pto/Dialect/PTO/Analysis/KernelStructure.h"

namespace mlir::pto::check {

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

#endif // PTO_LIB_DIALECT_PTO_CHECKS_COMMONRULES_H
