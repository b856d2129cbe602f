//===- pto-translate.cpp - pto translations (pto-isa C++) -----------------===//

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "pto/Target/Cpp/CppEmitter.h"

int main(int argc, char **argv) {
  mlir::pto::registerToCppTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "pto-translate: pto-mlir translations\n")) ? 1 : 0;
}
