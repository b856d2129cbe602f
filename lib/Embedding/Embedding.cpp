//===- Embedding.cpp - pto-mlir as a library for other compilers ----------===//

#include "pto/Embedding/Embedding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "pto/Conversion/Passes.h"
#include "pto/Dialect/PTO/Checks/Passes.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "pto/Dialect/PTOISA/Transforms/Passes.h"
#include "pto/Pipelines/AscendPipeline.h"

#include <mutex>

using namespace mlir;

void mlir::pto::registerAllDialects(DialectRegistry &registry) {
  registry.insert<PTODialect, ptoisa::PTOISADialect, arith::ArithDialect,
                  func::FuncDialect, index::IndexDialect, math::MathDialect,
                  scf::SCFDialect, tensor::TensorDialect>();
}

void mlir::pto::registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerCanonicalizerPass();
    registerCSEPass();
    registerInlinerPass();
    registerSymbolDCEPass();
    registerPTOPasses();
    registerPTOCheckPasses();
    registerPTOConversionPasses();
    ptoisa::registerPTOISAPasses();
    registerTileGraphPipeline();
    registerAscendPipeline();
  });
}

/// `dialect.op(...)` or `any(...)`: the pipeline names its anchor op.
static bool isAnchored(StringRef pipeline) {
  size_t paren = pipeline.find('(');
  if (paren == StringRef::npos)
    return false;
  StringRef head = pipeline.take_front(paren).rtrim();
  if (head == "any")
    return true;
  // An op name: identifier characters with at least one dot, and no option
  // braces or pass separators before the parenthesis.
  return head.contains('.') && llvm::all_of(head, [](char c) {
           return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
         });
}

LogicalResult mlir::pto::runPassPipeline(Operation *op, StringRef pipeline) {
  MLIRContext *context = op->getContext();
  StringRef anchor = op->getName().getStringRef();
  std::string text = pipeline.trim().str();
  if (!isAnchored(text))
    text = (anchor + "(" + text + ")").str();

  std::string errorText;
  llvm::raw_string_ostream errorStream(errorText);
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, errorStream);
  if (failed(parsed))
    return emitError(UnknownLoc::get(context))
           << "invalid pass pipeline '" << pipeline
           << "': " << StringRef(errorText).trim();
  StringRef parsedAnchor = parsed->getOpAnchorName();
  if (parsedAnchor != anchor &&
      parsedAnchor != OpPassManager::getAnyOpAnchorName())
    return emitError(UnknownLoc::get(context))
           << "pass pipeline '" << pipeline << "' is anchored on '"
           << parsedAnchor << "' but runs on a '" << anchor
           << "' op; nest it, e.g. '" << anchor << "(" << pipeline << ")'";
  PassManager pm(context, anchor);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);

  // Count the errors the passes report, without consuming them, so that a
  // pass failing silently still produces a message.
  unsigned numErrors = 0;
  DiagnosticEngine &engine = context->getDiagEngine();
  DiagnosticEngine::HandlerID counter =
      engine.registerHandler([&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          ++numErrors;
        return failure(); // pass it on
      });
  LogicalResult result = pm.run(op);
  engine.eraseHandler(counter);
  if (failed(result) && numErrors == 0)
    return emitError(op->getLoc())
           << "pass pipeline '" << pipeline << "' failed";
  return result;
}

StringRef mlir::pto::stringifySeverity(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

std::string mlir::pto::CollectedDiagnostic::getLocationString() const {
  if (file.empty())
    return "";
  return (file + ":" + Twine(line) + ":" + Twine(column)).str();
}

std::string mlir::pto::CollectedDiagnostic::format() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string where = getLocationString();
  if (!where.empty())
    os << where << ": ";
  os << stringifySeverity(severity) << ": " << message;
  for (const CollectedDiagnostic &note : notes)
    os << "\n" << note.format();
  return text;
}

mlir::pto::CollectedDiagnostic
mlir::pto::collectDiagnostic(const Diagnostic &diagnostic) {
  CollectedDiagnostic result;
  result.severity = diagnostic.getSeverity();
  result.message = diagnostic.str();
  diagnostic.getLocation()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColRange>(loc)) {
      result.file = file.getFilename().str();
      result.line = file.getStartLine();
      result.column = file.getStartColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  for (const Diagnostic &note : diagnostic.getNotes())
    result.notes.push_back(collectDiagnostic(note));
  return result;
}

mlir::pto::DiagnosticCollector::DiagnosticCollector(MLIRContext *context)
    : context(context) {
  handlerID = context->getDiagEngine().registerHandler([this](Diagnostic &d) {
    diagnostics.push_back(collectDiagnostic(d));
    return success();
  });
}

mlir::pto::DiagnosticCollector::~DiagnosticCollector() {
  context->getDiagEngine().eraseHandler(handlerID);
}

std::vector<mlir::pto::CollectedDiagnostic>
mlir::pto::DiagnosticCollector::take() {
  std::vector<CollectedDiagnostic> result = std::move(diagnostics);
  diagnostics.clear();
  return result;
}

size_t mlir::pto::DiagnosticCollector::getNumErrors() const {
  return llvm::count_if(diagnostics, [](const CollectedDiagnostic &d) {
    return d.severity == DiagnosticSeverity::Error;
  });
}
