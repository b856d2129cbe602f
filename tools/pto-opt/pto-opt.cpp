//===- pto-opt.cpp - the pto optimizer driver -----------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "pto/Conversion/Passes.h"
#include "pto/Dialect/PTO/Checks/Passes.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "pto/Dialect/PTOISA/Transforms/Passes.h"
#include "pto/Pipelines/AscendPipeline.h"
#include "pto/Tools/DiagnosticDefaults.h"
#include "pto/Tools/HeapDefaults.h"
#include "pto/Tools/Version.h"

#include "TestPasses.h"

int main(int argc, char **argv) {
  mlir::pto::setHeapDefaults();
  mlir::DialectRegistry registry;
  registry.insert<mlir::pto::PTODialect, mlir::ptoisa::PTOISADialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::index::IndexDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  mlir::pto::registerPTOPasses();
  mlir::pto::registerPTOCheckPasses();
  mlir::pto::test::registerPTOTestPasses();
  mlir::pto::registerPTOConversionPasses();
  mlir::ptoisa::registerPTOISAPasses();
  mlir::pto::registerTileGraphPipeline();
  mlir::pto::registerAscendPipeline();
  mlir::pto::registerVersionPrinter();
  mlir::pto::setDiagnosticDefaults();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "pto-opt: the pto-mlir optimizer\n", registry));
}
