//===- PTOModule.cpp - pto_mlir._pto: in-process bindings -----------------===//
//
// pybind11 bindings over the project's C++ libraries (no subprocesses):
// parse, verify, print, run textual pass pipelines (the checkers included),
// run kernels in the reference interpreter on NumPy buffers, and compare
// programs structurally. Every entry point returns the diagnostics it caused;
// python/pto_mlir/ir.py turns failures into Python exceptions.
//
// Translation to C++ (pto-translate --pto-to-cpp) is not part of the project
// yet; when it is, `Module.emit_cpp` belongs next to `Module.to_string` below,
// calling the translation library's entry point on `module->getOperation()`
// with the same diagnostic collection.
//
//===----------------------------------------------------------------------===//

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Embedding/Embedding.h"
#include "pto/Embedding/StructuralEquivalence.h"
#include "pto/Interpreter/Interpreter.h"
#include "pto/Target/Cpp/CppEmitter.h"

#include <cstring>
#include <memory>
#include <optional>

namespace py = pybind11;
using namespace mlir;

namespace {

py::dict toPython(const pto::CollectedDiagnostic &diag) {
  py::dict d;
  d["severity"] = pto::stringifySeverity(diag.severity).str();
  d["file"] = diag.file;
  d["line"] = diag.line;
  d["column"] = diag.column;
  d["message"] = diag.message;
  d["formatted"] = diag.format();
  py::list notes;
  for (const pto::CollectedDiagnostic &note : diag.notes)
    notes.append(toPython(note));
  d["notes"] = notes;
  return d;
}

py::list toPython(const std::vector<pto::CollectedDiagnostic> &diags) {
  py::list list;
  for (const pto::CollectedDiagnostic &diag : diags)
    list.append(toPython(diag));
  return list;
}

/// An MLIRContext with every dialect a pto kernel uses, shared by the modules
/// parsed in it (they keep it alive).
struct BoundContext {
  explicit BoundContext(bool printOpOnDiagnostic) {
    DialectRegistry registry;
    pto::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    context->printOpOnDiagnostic(printOpOnDiagnostic);
  }
  std::unique_ptr<MLIRContext> context;
};

struct BoundModule {
  BoundModule(std::shared_ptr<BoundContext> ctx, OwningOpRef<ModuleOp> module)
      : ctx(std::move(ctx)), module(std::move(module)) {}
  // Declared first: destroyed after the module.
  std::shared_ptr<BoundContext> ctx;
  OwningOpRef<ModuleOp> module;

  MLIRContext *getContext() { return ctx->context.get(); }

  pto::KernelOp findKernel(const std::string &name) {
    pto::KernelOp found;
    int count = 0;
    module->walk([&](pto::KernelOp kernel) {
      ++count;
      if (name.empty() || kernel.getSymName() == name)
        found = kernel;
    });
    if (name.empty() && count != 1)
      return {};
    return found;
  }
};

py::tuple parse(std::shared_ptr<BoundContext> ctx, const std::string &text,
                const std::string &bufferName) {
  pto::DiagnosticCollector collector(ctx->context.get());
  ParserConfig config(ctx->context.get());
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, bufferName);
  py::object result = py::none();
  if (module)
    result = py::cast(std::make_shared<BoundModule>(ctx, std::move(module)));
  return py::make_tuple(result, toPython(collector.take()));
}

py::tuple verifyModule(BoundModule &self) {
  pto::DiagnosticCollector collector(self.getContext());
  bool ok = succeeded(verify(self.module->getOperation()));
  return py::make_tuple(ok, toPython(collector.take()));
}

py::tuple runPipeline(BoundModule &self, const std::string &pipeline) {
  pto::DiagnosticCollector collector(self.getContext());
  bool ok;
  {
    py::gil_scoped_release release;
    ok = succeeded(pto::runPassPipeline(self.module->getOperation(), pipeline));
  }
  return py::make_tuple(ok, toPython(collector.take()));
}

py::tuple emitCpp(BoundModule &self) {
  pto::DiagnosticCollector collector(self.getContext());
  std::string text;
  bool ok;
  {
    py::gil_scoped_release release;
    llvm::raw_string_ostream os(text);
    ok = succeeded(pto::translateToCpp(*self.module, os));
  }
  return py::make_tuple(ok, text, toPython(collector.take()));
}

std::string printModule(BoundModule &self, bool generic, bool debugInfo) {
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  if (debugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  std::string text;
  llvm::raw_string_ostream os(text);
  self.module->print(os, flags);
  return text;
}

std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

py::list kernels(BoundModule &self) {
  py::list result;
  self.module->walk([&](pto::KernelOp kernel) {
    py::dict info;
    info["name"] = kernel.getSymName().str();
    info["arch"] = pto::stringifyArch(kernel.getArchOrDefault()).str();
    SmallVector<unsigned> written = pto::interp::getWrittenArguments(kernel);
    py::list args;
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
      py::dict arg;
      arg["name"] = cast<StringAttr>(kernel.getArgNames()[i]).getValue().str();
      Type type = kernel.getArgumentTypes()[i];
      arg["type"] = typeToString(type);
      if (auto tensor = dyn_cast<pto::GMTensorType>(type)) {
        py::list shape;
        for (int64_t dim : tensor.getShape())
          shape.append(ShapedType::isDynamic(dim) ? py::object(py::none())
                                                  : py::object(py::int_(dim)));
        arg["shape"] = shape;
        arg["element_type"] = typeToString(tensor.getElementType());
        std::optional<pto::interp::ElementKind> kind =
            pto::interp::getElementKind(tensor.getElementType());
        arg["numpy_dtype"] =
            kind ? py::object(py::str(pto::interp::getNumpyDescr(*kind).str()))
                 : py::object(py::none());
      }
      arg["cumulative"] = bool(kernel.getArgAttr(i, "pto.cumulative"));
      arg["nz_fractal_cols"] = pto::interp::getNZFractalCols(kernel, i);
      arg["written"] = llvm::is_contained(written, i);
      args.append(arg);
    }
    info["args"] = args;
    result.append(info);
  });
  return result;
}

/// Runs a kernel on C-contiguous NumPy arrays (one per argument, in order,
/// dtypes already checked by the Python layer). Arguments the kernel writes
/// are updated in place. Returns (status, message, diagnostics, stats) with
/// status "ok", "input" (argument error) or "fault" (run-time fault).
py::tuple runKernel(BoundModule &self, const std::string &kernelName,
                    std::vector<py::array> arrays,
                    std::optional<uint64_t> shuffleSeed) {
  using namespace pto::interp;
  auto fail = [](const char *status, const std::string &message,
                 py::list diags = py::list()) {
    return py::make_tuple(status, message, diags, py::dict());
  };
  pto::KernelOp kernel = self.findKernel(kernelName);
  if (!kernel)
    return fail("input", kernelName.empty()
                             ? "the module does not hold exactly one "
                               "pto.kernel: name the kernel to run"
                             : "no pto.kernel named '" + kernelName + "'");
  if (arrays.size() != kernel.getNumArguments())
    return fail("input", "kernel @" + kernel.getSymName().str() + " takes " +
                             std::to_string(kernel.getNumArguments()) +
                             " arguments, got " +
                             std::to_string(arrays.size()));

  std::vector<HostTensor> tensors;
  for (unsigned i = 0; i < arrays.size(); ++i) {
    std::string argName =
        cast<StringAttr>(kernel.getArgNames()[i]).getValue().str();
    auto type = dyn_cast<pto::GMTensorType>(kernel.getArgumentTypes()[i]);
    std::optional<ElementKind> kind =
        type ? getElementKind(type.getElementType()) : std::nullopt;
    if (!kind)
      return fail("input", "argument '" + argName +
                               "' has a type the interpreter cannot hold");
    py::array &array = arrays[i];
    if (!(array.flags() & py::array::c_style) ||
        array.itemsize() != getByteSize(*kind))
      return fail("input", "argument '" + argName +
                               "' must be a C-contiguous array of " +
                               getNumpyDescr(*kind).str());
    SmallVector<int64_t> shape(array.shape(), array.shape() + array.ndim());
    HostTensor tensor(*kind, shape);
    std::memcpy(tensor.bytes.data(), array.data(), tensor.bytes.size());
    // An NZ argument's array is its NZ storage (Interpreter.h).
    llvm::Expected<HostTensor> data =
        fromArgumentStorage(kernel, i, std::move(tensor));
    if (!data)
      return fail("input", llvm::toString(data.takeError()));
    tensors.push_back(std::move(*data));
  }
  if (llvm::Error error = checkArguments(kernel, tensors))
    return fail("input", llvm::toString(std::move(error)));

  RunOptions options;
  options.shuffleAtomics = shuffleSeed.has_value();
  options.shuffleSeed = shuffleSeed.value_or(0);
  RunStats stats;
  pto::DiagnosticCollector collector(self.getContext());
  bool ok;
  {
    py::gil_scoped_release release;
    ok = succeeded(pto::interp::runKernel(kernel, tensors, options, &stats));
  }
  if (!ok)
    return fail("fault", "", toPython(collector.take()));
  for (unsigned index : getWrittenArguments(kernel)) {
    py::array &array = arrays[index];
    if (!array.writeable())
      return fail(
          "input",
          "argument '" +
              cast<StringAttr>(kernel.getArgNames()[index]).getValue().str() +
              "' is written by the kernel but its array is "
              "read-only");
    tensors[index] =
        toArgumentStorage(kernel, index, std::move(tensors[index]));
    std::memcpy(array.mutable_data(), tensors[index].bytes.data(),
                tensors[index].bytes.size());
  }
  py::dict statsDict;
  statsDict["ops_executed"] = stats.opsExecuted;
  statsDict["loop_iterations"] = stats.loopIterations;
  statsDict["matmul_flops"] = stats.matmulFlops;
  statsDict["atomic_elements"] = stats.atomicElements;
  return py::make_tuple("ok", "", toPython(collector.take()), statsDict);
}

py::tuple structurallyEqual(BoundModule &lhs, BoundModule &rhs) {
  if (lhs.getContext() != rhs.getContext())
    throw py::value_error(
        "structural comparison needs both modules in one Context");
  std::string difference;
  bool equal = pto::areStructurallyEquivalent(
      lhs.module->getOperation(), rhs.module->getOperation(), &difference);
  return py::make_tuple(equal, difference);
}

std::shared_ptr<BoundModule> cloneModule(BoundModule &self) {
  return std::make_shared<BoundModule>(
      self.ctx, OwningOpRef<ModuleOp>(self.module->clone()));
}

/// The capacities of an architecture (`DAV_2201`, `DAV_3510`) that a tile
/// search derives its candidates from (pto-tune); Platform.h is the one
/// place that spells them.
py::dict platformInfo(const std::string &archName) {
  std::optional<pto::Arch> arch = pto::symbolizeArch(archName);
  if (!arch)
    throw py::value_error("unknown architecture '" + archName +
                          "'; known: DAV_2201 (A2/A3), DAV_3510 (950)");
  const pto::PlatformInfo &p = pto::getPlatformInfo(*arch);
  py::dict d;
  d["name"] = p.name.str();
  d["l1_bytes"] = p.l1Bytes;
  d["l0a_bytes"] = p.l0aBytes;
  d["l0b_bytes"] = p.l0bBytes;
  d["l0c_bytes"] = p.l0cBytes;
  d["ub_bytes"] = p.ubBytes;
  d["buffer_align_bytes"] = p.bufferAlignBytes;
  d["reduce_tile_max_bytes"] = p.reduceTileMaxBytes;
  d["cube_cores"] = p.cubeCores;
  d["vector_cores"] = p.vectorCores;
  d["clock_ghz"] = p.clockGHz;
  return d;
}

} // namespace

PYBIND11_MODULE(_pto, m) {
  m.doc() = "pto-mlir in-process bindings (see pto_mlir.ir for the Python API)";
  pto::registerAllPasses();

  py::class_<BoundContext, std::shared_ptr<BoundContext>>(m, "Context")
      .def(py::init<bool>(), py::arg("print_op_on_diagnostic") = false);

  py::class_<BoundModule, std::shared_ptr<BoundModule>>(m, "Module")
      .def("verify", &verifyModule)
      .def("run_pipeline", &runPipeline, py::arg("pipeline"))
      .def("emit_cpp", &emitCpp)
      .def("to_string", &printModule, py::arg("generic") = false,
           py::arg("debug_info") = false)
      .def("kernels", &kernels)
      .def("run", &runKernel, py::arg("kernel"), py::arg("arrays"),
           py::arg("shuffle_seed") = py::none())
      .def("clone", &cloneModule)
      .def_property_readonly("context",
                             [](BoundModule &self) { return self.ctx; });

  m.def("parse", &parse, py::arg("context"), py::arg("text"),
        py::arg("buffer_name"));
  m.def("structurally_equal", &structurallyEqual, py::arg("lhs"),
        py::arg("rhs"));
  m.def("platform_info", &platformInfo, py::arg("arch"));
}
