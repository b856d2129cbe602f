//===- DiagnosticDefaults.h - how the tools print diagnostics -*- C++ -*-===//
#ifndef PTO_TOOLS_DIAGNOSTICDEFAULTS_H
#define PTO_TOOLS_DIAGNOSTICDEFAULTS_H

namespace mlir::pto {

/// Call before the tool parses its command line. Errors no longer carry
/// MLIR's "see current operation" note (the op in generic form, with
/// sentinels such as -9223372036854775808 for dynamic sizes); the message
/// and its location say what is wrong. `--mlir-print-op-on-diagnostic`
/// brings the note back.
void setDiagnosticDefaults();

} // namespace mlir::pto

#endif // PTO_TOOLS_DIAGNOSTICDEFAULTS_H
