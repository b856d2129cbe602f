//===- Embedding.h - pto-mlir as a library for other compilers -*- C++ -*-===//
//
// The entry points a compiler embedding pto-mlir needs, in one place: register
// the dialects a pto kernel uses and the pto passes, run a textual pass
// pipeline on an operation, and collect diagnostics with their source
// locations instead of printing them. pto-lsp-server, the C API
// (include/pto-c) and the Python bindings (python/pto_mlir) are thin layers
// over these functions; an out-of-tree tool uses them through the installed
// CMake package (`find_package(PTO)`, target `PTO::PTOEmbedding`).
//
//===----------------------------------------------------------------------===//
#ifndef PTO_EMBEDDING_EMBEDDING_H
#define PTO_EMBEDDING_EMBEDDING_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::pto {

/// Inserts `pto`, `pto_isa` and the upstream dialects pto kernels use (arith,
/// func, index, math, scf) into `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers the pto passes and pipelines (pto-tile-graph-pipeline,
/// pto-ascend-pipeline), the pto_isa passes and the
/// upstream passes pto-opt offers (canonicalize, cse, inline, symbol-dce) with
/// the global pass registry, so textual pipelines can name them. Safe to call
/// more than once (but not together with the individual registrations).
void registerAllPasses();

/// Runs `pipeline` on `op`. `pipeline` is either anchored
/// (`builtin.module(canonicalize,pto-summary)`) or a bare pass list
/// (`canonicalize,cse`), which is anchored on `op`'s name; registered
/// pipelines may be named. Pipeline syntax errors and pass failures are
/// reported as diagnostics on `op`'s context. The IR is verified after each
/// pass.
LogicalResult runPassPipeline(Operation *op, StringRef pipeline);

/// One diagnostic as reported: severity, where, what, and its notes.
struct CollectedDiagnostic {
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  /// The first file:line:col found in the location (through name, call-site
  /// and fused locations); empty file and zero line/column if there is none.
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
  std::vector<CollectedDiagnostic> notes;

  /// "file:line:col" or "" without a file location.
  std::string getLocationString() const;
  /// "file:line:col: error: message", then one indented line per note.
  std::string format() const;
};

/// "error", "warning", "note" or "remark".
StringRef stringifySeverity(DiagnosticSeverity severity);

/// Collects every diagnostic emitted in `context` while it is alive (they are
/// not printed). Handlers registered later take precedence, as usual.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context);
  ~DiagnosticCollector();
  DiagnosticCollector(const DiagnosticCollector &) = delete;
  DiagnosticCollector &operator=(const DiagnosticCollector &) = delete;

  const std::vector<CollectedDiagnostic> &getDiagnostics() const {
    return diagnostics;
  }
  /// Moves the collected diagnostics out, leaving the collector empty.
  std::vector<CollectedDiagnostic> take();
  size_t getNumErrors() const;
  void clear() { diagnostics.clear(); }

private:
  MLIRContext *context;
  DiagnosticEngine::HandlerID handlerID;
  std::vector<CollectedDiagnostic> diagnostics;
};

/// Converts one MLIR diagnostic (with its notes).
CollectedDiagnostic collectDiagnostic(const Diagnostic &diagnostic);

} // namespace mlir::pto

#endif // PTO_EMBEDDING_EMBEDDING_H
