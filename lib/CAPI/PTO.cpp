//===- PTO.cpp - the pto-mlir C API ---------------------------------------===//

#include "pto-c/PTO.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Embedding/Embedding.h"
#include "pto/Interpreter/Interpreter.h"
#include "pto/Target/Cpp/CppEmitter.h"
#include "pto/runtime/checks.hpp"

#include <cstring>

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
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(bufferName));
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

MlirLogicalResult ptoTranslateModuleToCpp(MlirOperation module,
                                          MlirStringCallback callback,
                                          void *userData) {
  auto moduleOp = dyn_cast<ModuleOp>(unwrap(module));
  if (!moduleOp)
    return wrap(unwrap(module)->emitError()
                << "pto-to-cpp translates a builtin.module");
  mlir::detail::CallbackOstream stream(callback, userData);
  LogicalResult result = pto::translateToCpp(moduleOp, stream);
  stream.flush();
  return wrap(result);
}

int ptoRunKernel(MlirOperation module, MlirStringRef kernelName,
                 intptr_t numArgs, const PtoTensor *args) {
  using namespace pto::interp;
  Operation *root = unwrap(module);
  StringRef name = unwrap(kernelName);
  SmallVector<pto::KernelOp> kernels;
  root->walk([&](pto::KernelOp kernel) {
    if (name.empty() || kernel.getSymName() == name)
      kernels.push_back(kernel);
  });
  if (kernels.size() != 1) {
    root->emitError() << (name.empty() ? "ptoRunKernel: the module does not "
                                         "hold exactly one pto.kernel; name "
                                         "the kernel to run"
                                       : "ptoRunKernel: no pto.kernel named '" +
                                             name.str() + "'");
    return pto_check::kUsage;
  }
  pto::KernelOp kernel = kernels.front();
  if (numArgs != intptr_t(kernel.getNumArguments())) {
    kernel.emitError() << "ptoRunKernel: @" << kernel.getSymName() << " takes "
                       << kernel.getNumArguments() << " arguments, got "
                       << numArgs;
    return pto_check::kUsage;
  }
  std::vector<HostTensor> tensors;
  for (intptr_t i = 0; i < numArgs; ++i) {
    auto type = dyn_cast<pto::GMTensorType>(kernel.getArgumentTypes()[i]);
    std::optional<ElementKind> kind =
        type ? getElementKind(type.getElementType()) : std::nullopt;
    StringRef argName = cast<StringAttr>(kernel.getArgNames()[i]).getValue();
    if (!kind || !args[i].data || args[i].rank < 0 ||
        (args[i].rank > 0 && !args[i].shape)) {
      kernel.emitError() << "ptoRunKernel: argument '" << argName << "' "
                         << (!kind ? "has a type the interpreter cannot hold"
                                   : "needs data and a shape");
      return pto_check::kUsage;
    }
    SmallVector<int64_t> shape(args[i].shape, args[i].shape + args[i].rank);
    llvm::Expected<HostTensor> tensor =
        HostTensor::create(*kind, shape, "argument '" + argName + "'");
    if (!tensor) {
      kernel.emitError() << "ptoRunKernel: "
                         << llvm::toString(tensor.takeError());
      return pto_check::kUsage;
    }
    std::memcpy(tensor->bytes.data(), args[i].data, tensor->bytes.size());
    // An NZ argument's buffer is its NZ storage (Interpreter.h).
    tensor = fromArgumentStorage(kernel, i, std::move(*tensor));
    if (!tensor) {
      kernel.emitError() << "ptoRunKernel: "
                         << llvm::toString(tensor.takeError());
      return pto_check::kUsage;
    }
    tensors.push_back(std::move(*tensor));
  }
  if (llvm::Error error = checkArguments(kernel, tensors)) {
    kernel.emitError() << "ptoRunKernel: " << llvm::toString(std::move(error));
    return pto_check::kUsage;
  }
  if (failed(runKernel(kernel, tensors)))
    return pto_check::kFault;
  for (unsigned index : getWrittenArguments(kernel)) {
    tensors[index] =
        toArgumentStorage(kernel, index, std::move(tensors[index]));
    std::memcpy(args[index].data, tensors[index].bytes.data(),
                tensors[index].bytes.size());
  }
  return pto_check::kOk;
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
  return diag ? wrap(StringRef(diag->message))
              : mlirStringRefCreate(nullptr, 0);
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
