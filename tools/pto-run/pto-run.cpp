//===- pto-run.cpp - run a pto.kernel on host memory ----------------------===//
//
// The driver lives in lib/Tools/PtoRun (mlir::pto::ptoRunMain).
//
//===----------------------------------------------------------------------===//

#include "pto/Tools/PtoRunMain.h"

int main(int argc, char **argv) { return mlir::pto::ptoRunMain(argc, argv); }
