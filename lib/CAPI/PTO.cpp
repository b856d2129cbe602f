//===- PTO.cpp - the pto-mlir C API ---------------------------------------===//

#include "pto-c/PTO.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Embedding/Embedding.h"

#include <deque>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(PTO, pto, mlir::pto::PTODialect)

void ptoRegisterAllDialects(MlirDialectRegistry registry) {
  pto::registerAllDialects(*unwrap(registry));
}

MlirContext ptoContextCreate(void) {
  DialectRegistry registry;
  pto::registerAllDialects(registry);
  auto *context = new MLIRContext(registry);
  context->loadAllAvailableDialects();
  return wrap(context);
}

void ptoRegisterAllPasses(void) { pto::registerAllPasses(); }

MlirModule ptoModuleParse(MlirContext context, MlirStringRef source,
                          MlirStringRef bufferName) {
  ParserConfig config(unwrap(context));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      unwrap(source), config, unwrap(bufferName));
  if (!module)
    return MlirModule{nullptr};
  return MlirModule{module.release().getOperation()};
}

MlirLogicalResult ptoOperationVerify(MlirOperation op) {
  return wrap(verify(unwrap(op)));
}

MlirLogicalResult ptoRunPassPipeline(MlirOperation op, MlirStringRef pipeline) {
  return wrap(pto::runPassPipeline(unwrap(op), unwrap(pipeline)));
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

namespace {
/// A collector plus the strings handed out through MlirStringRef.
struct CollectorImpl {
  explicit CollectorImpl(MLIRContext *context) : collector(context) {}
  struct Strings {
    std::string location, formatted;
  };
  pto::DiagnosticCollector collector;
  std::deque<Strings> strings; // one per diagnostic, filled on demand

  const pto::CollectedDiagnostic *get(intptr_t index) {
    const auto &diags = collector.getDiagnostics();
    if (index < 0 || static_cast<size_t>(index) >= diags.size())
      return nullptr;
    while (strings.size() < diags.size())
      strings.push_back({diags[strings.size()].getLocationString(),
                         diags[strings.size()].format()});
    return &diags[index];
  }
};
} // namespace

static CollectorImpl *unwrapCollector(PtoDiagnosticCollector collector) {
  return static_cast<CollectorImpl *>(collector.ptr);
}

PtoDiagnosticCollector ptoDiagnosticCollectorCreate(MlirContext context) {
  return PtoDiagnosticCollector{new CollectorImpl(unwrap(context))};
}

void ptoDiagnosticCollectorDestroy(PtoDiagnosticCollector collector) {
  delete unwrapCollector(collector);
}

intptr_t
ptoDiagnosticCollectorGetNumDiagnostics(PtoDiagnosticCollector collector) {
  return unwrapCollector(collector)->collector.getDiagnostics().size();
}

intptr_t ptoDiagnosticCollectorGetNumErrors(PtoDiagnosticCollector collector) {
  return unwrapCollector(collector)->collector.getNumErrors();
}

MlirDiagnosticSeverity
ptoDiagnosticCollectorGetSeverity(PtoDiagnosticCollector collector,
                                  intptr_t index) {
  const pto::CollectedDiagnostic *diag = unwrapCollector(collector)->get(index);
  if (!diag)
    return MlirDiagnosticError;
  switch (diag->severity) {
  case DiagnosticSeverity::Error:
    return MlirDiagnosticError;
  case DiagnosticSeverity::Warning:
    return MlirDiagnosticWarning;
  case DiagnosticSeverity::Note:
    return MlirDiagnosticNote;
  case DiagnosticSeverity::Remark:
    return MlirDiagnosticRemark;
  }
  return MlirDiagnosticError;
}

MlirStringRef ptoDiagnosticCollectorGetMessage(PtoDiagnosticCollector collector,
                                               intptr_t index) {
  const pto::CollectedDiagnostic *diag = unwrapCollector(collector)->get(index);
  return diag ? wrap(StringRef(diag->message)) : mlirStringRefCreate(nullptr, 0);
}

MlirStringRef
ptoDiagnosticCollectorGetLocation(PtoDiagnosticCollector collector,
                                  intptr_t index) {
  CollectorImpl *impl = unwrapCollector(collector);
  if (!impl->get(index))
    return mlirStringRefCreate(nullptr, 0);
  return wrap(StringRef(impl->strings[index].location));
}

MlirStringRef
ptoDiagnosticCollectorGetFormatted(PtoDiagnosticCollector collector,
                                   intptr_t index) {
  CollectorImpl *impl = unwrapCollector(collector);
  if (!impl->get(index))
    return mlirStringRefCreate(nullptr, 0);
  return wrap(StringRef(impl->strings[index].formatted));
}

void ptoDiagnosticCollectorClear(PtoDiagnosticCollector collector) {
  CollectorImpl *impl = unwrapCollector(collector);
  impl->collector.clear();
  impl->strings.clear();
}
