//===- RuleReporter.cpp - rule diagnostics for the pto checkers -----------===//

#include "RuleReporter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pto::check;

StringRef mlir::pto::check::stringifySeverity(Severity severity) {
  return severity == Severity::Error ? "error" : "warning";
}

RuleDiagnostic &RuleReporter::report(StringRef rule, Severity severity,
                                     Location loc, const Twine &message,
                                     const Twine &fix) {
  std::string text = message.str(), fixText = fix.str();
  // Several checks may reach the same op through different paths (e.g. two
  // views sharing one offset computation); report each finding once.
  auto [it, inserted] = reported.try_emplace(
      std::make_tuple(rule.str(), loc.getAsOpaquePointer(), text), nullptr);
  if (!inserted)
    return *it->second;
  diagnostics.push_back(RuleDiagnostic{
      rule.str(), severity, loc, std::move(text), std::move(fixText), {}});
  it->second = &diagnostics.back();
  return diagnostics.back();
}

bool RuleReporter::hasErrors() const {
  return llvm::any_of(diagnostics, [](const RuleDiagnostic &d) {
    return d.severity == Severity::Error;
  });
}

void RuleReporter::emit() const {
  for (const RuleDiagnostic &d : diagnostics) {
    InFlightDiagnostic diag = d.severity == Severity::Error
                                  ? mlir::emitError(d.loc)
                                  : mlir::emitWarning(d.loc);
    diag << '[' << d.rule << "] " << d.message << "; fix: " << d.fix;
    for (const RuleNote &note : d.notes)
      diag.attachNote(note.loc) << note.message;
  }
}

/// File, line and column of `loc` (looking through name, call-site and fused
/// locations); empty file and 0:0 when the location has none.
static void writeLocation(llvm::json::OStream &json, Location loc) {
  StringRef file;
  unsigned line = 0, column = 0;
  if (auto range = loc->findInstanceOf<FileLineColRange>()) {
    file = range.getFilename().getValue();
    line = range.getStartLine();
    column = range.getStartColumn();
  }
  json.attribute("file", file);
  json.attribute("line", line);
  json.attribute("column", column);
}

LogicalResult RuleReporter::writeJSON(StringRef path,
                                      std::string &errorMessage) const {
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(path, &errorMessage);
  if (!file)
    return failure();
  {
    llvm::json::OStream json(file->os(), /*IndentSize=*/2);
    json.array([&] {
      for (const RuleDiagnostic &d : diagnostics) {
        json.object([&] {
          json.attribute("rule", d.rule);
          json.attribute("severity", stringifySeverity(d.severity));
          writeLocation(json, d.loc);
          json.attribute("message", d.message);
          json.attribute("fix", d.fix);
          json.attributeArray("notes", [&] {
            for (const RuleNote &note : d.notes)
              json.object([&] {
                writeLocation(json, note.loc);
                json.attribute("message", note.message);
              });
          });
        });
      }
    });
  }
  file->os() << '\n';
  file->keep();
  return success();
}

std::string mlir::pto::check::expandPositionalOption(StringRef options,
                                                     StringRef positional) {
  StringRef trimmed = options.ltrim();
  StringRef first = trimmed.take_until([](char c) { return c == ' '; });
  // `key=value`, `key={...}` and `key="..."` are ordinary options.
  if (first.empty() || first.contains('=') || first.contains('{') ||
      first.contains('"'))
    return options.str();
  return (positional + "=" + trimmed).str();
}
