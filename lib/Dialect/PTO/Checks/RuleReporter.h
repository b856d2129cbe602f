//===- RuleReporter.h - rule diagnostics for the pto checkers ---*- C++ -*-===//
//
// The conformance checker (--pto-check-skeleton) and the linter (--pto-lint)
// report rule violations through one RuleReporter so every diagnostic has the
// same shape:
//
//   error: [SK16-R9] <what is wrong, naming the op or value>; fix: <the fix>
//   note: <the related op>
//
// and the same records can be written as JSON for editors and CI.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTO_CHECKS_RULEREPORTER_H
#define PTO_LIB_DIALECT_PTO_CHECKS_RULEREPORTER_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include <deque>
#include <map>
#include <string>
#include <tuple>

namespace mlir::pto::check {

enum class Severity { Error, Warning };

llvm::StringRef stringifySeverity(Severity severity);

struct RuleNote {
  Location loc;
  std::string message;
};

/// One rule violation: where, what, and how to fix it, plus notes at the
/// related ops (the first Q·Kᵀ when flagging a second one, ...).
struct RuleDiagnostic {
  std::string rule;
  Severity severity;
  Location loc;
  std::string message;
  std::string fix;
  SmallVector<RuleNote, 2> notes;

  RuleDiagnostic &note(Location noteLoc, const Twine &text) {
    notes.push_back({noteLoc, text.str()});
    return *this;
  }
};

/// Collects rule diagnostics, then emits them through the MLIR diagnostic
/// engine (so -verify-diagnostics works) and optionally as JSON.
class RuleReporter {
public:
  RuleDiagnostic &report(StringRef rule, Severity severity, Location loc,
                         const Twine &message, const Twine &fix);
  RuleDiagnostic &error(StringRef rule, Location loc, const Twine &message,
                        const Twine &fix) {
    return report(rule, Severity::Error, loc, message, fix);
  }
  RuleDiagnostic &warning(StringRef rule, Location loc, const Twine &message,
                          const Twine &fix) {
    return report(rule, Severity::Warning, loc, message, fix);
  }

  bool hasErrors() const;
  bool empty() const { return diagnostics.empty(); }

  /// Emits every diagnostic, in report order, as
  /// "[RULE] message; fix: fix" with its notes attached.
  void emit() const;

  /// Writes the diagnostics as a JSON array of
  /// {rule, severity, file, line, column, message, fix, notes} to `path`
  /// ('-' is stdout). Fails with `errorMessage` if the file cannot be opened.
  LogicalResult writeJSON(StringRef path, std::string &errorMessage) const;

private:
  // A deque keeps references returned by report() valid.
  std::deque<RuleDiagnostic> diagnostics;
  // The findings reported so far, by (rule, location, message), so that a
  // repeated finding is found without a scan.
  std::map<std::tuple<std::string, const void *, std::string>, RuleDiagnostic *>
      reported;
};

/// Parses a pass option string where a leading bare word (no '=') names the
/// `positional` option, so that `--pto-check-skeleton=sk16` means
/// `--pto-check-skeleton=skeleton=sk16`. Returns the rewritten string.
std::string expandPositionalOption(StringRef options, StringRef positional);

} // namespace mlir::pto::check

#endif // PTO_LIB_DIALECT_PTO_CHECKS_RULEREPORTER_H
