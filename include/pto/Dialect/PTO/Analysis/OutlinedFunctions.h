//===- OutlinedFunctions.h - what pto-outline knows of its functions -*- C++
//-*-===//
//
// pto-outline builds the leaf and root functions and has each in cache right
// then: it records what the passes after it would otherwise walk every root
// and leaf of the module again, cold, to learn (docs/CompileTime.md): the GM
// workspace one call allocates (pto-plan-stitch) and whether a body holds
// symbol references (pto-merge-leaf-arguments).
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_ANALYSIS_OUTLINEDFUNCTIONS_H
#define PTO_DIALECT_PTO_ANALYSIS_OUTLINEDFUNCTIONS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::pto {

/// The GM bytes `workspace` takes, rounded up to the runtime's 32 KiB
/// alignment; 0 for an on-chip exchange (pto-mix-exchange), which never
/// reaches GM.
int64_t alignedWorkspaceBytes(WorkspaceOp workspace);

/// What one call of an outlined function allocates and issues.
struct OutlinedFunctionSummary {
  /// Aligned GM bytes of its pto.workspace ops, plus for a root those of
  /// the leaves it launches, once per launch.
  int64_t workspaceBytes = 0;
  /// How many workspaces that is.
  int64_t numWorkspaces = 0;
  /// The pto.launch ops in it (a root's call tasks).
  int64_t launches = 0;
  /// No op in its body holds a symbol reference, so a search for symbol
  /// uses need not walk the body.
  bool bodyFreeOfSymbolRefs = false;
};

/// The summary of `func` from its body alone: its own workspaces and
/// launches (not the workspaces of the leaves it launches) and whether the
/// body holds symbol references.
OutlinedFunctionSummary
summarizeBody(Operation *func, llvm::DenseMap<Attribute, bool> &symbolRefMemo);

/// Whether some attribute of `op` (inherent or discardable) holds a
/// SymbolRefAttr. Attributes are uniqued: `memo` keeps the answer per
/// distinct attribute, so each is searched once.
bool holdsSymbolRef(Operation *op, llvm::DenseMap<Attribute, bool> &memo);

/// Summaries per outlined function, a module analysis. It starts empty (a
/// function without an entry is the reader's to walk), so building it costs
/// nothing; pto-outline fills it and preserves it, and any pass that does
/// not preserve it drops it, so an entry never outlives a change to its
/// function.
class OutlinedFunctionAnalysis {
public:
  explicit OutlinedFunctionAnalysis(Operation *) {}

  void record(Operation *func, const OutlinedFunctionSummary &summary) {
    summaries[func] = summary;
  }
  const OutlinedFunctionSummary *lookup(Operation *func) const {
    auto it = summaries.find(func);
    return it == summaries.end() ? nullptr : &it->second;
  }

private:
  llvm::DenseMap<Operation *, OutlinedFunctionSummary> summaries;
};

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_ANALYSIS_OUTLINEDFUNCTIONS_H
