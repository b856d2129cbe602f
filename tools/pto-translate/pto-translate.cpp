//===- pto-translate.cpp - pto translations (pto-isa C++) -----------------===//

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "pto/Target/Cpp/CppEmitter.h"
#include "pto/Tools/DiagnosticDefaults.h"
#include "pto/Tools/HeapDefaults.h"
#include "pto/Tools/Version.h"

int main(int argc, char **argv) {
  mlir::pto::setHeapDefaults();
  mlir::pto::registerToCppTranslation();
  mlir::pto::registerVersionPrinter();
  mlir::pto::setDiagnosticDefaults();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "pto-translate: pto-mlir translations\n"))
             ? 1
             : 0;
}
