//===- PtoRunMain.h - the pto-run tool as a library entry point -*- C++ -*-===//
//
// pto-run's command line and driver live in the PTOToolPtoRun library so
// that the tool's main stays a one-liner (as mlir-opt's MlirOptMain) and
// other drivers can reuse it.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_TOOLS_PTORUNMAIN_H
#define PTO_TOOLS_PTORUNMAIN_H

namespace mlir::pto {

/// Parses pto-run's command line and runs it; returns the process exit
/// code (0 success, 1 bad IR, 2 usage or data error, 3 kernel fault;
/// docs/Guarantees.md).
int ptoRunMain(int argc, char **argv);

} // namespace mlir::pto

#endif // PTO_TOOLS_PTORUNMAIN_H
