//===- PtoRunMain.cpp - pto-run: run a pto.kernel on host memory ---------===//
//
//   pto-run kernel.mlir [--kernel NAME] --input q=q.npy ... --output dq=dq.npy
//   pto-run kernel.mlir --random SEED --shape q=256x8x64 ... --output-dir DIR
//   pto-run kernel.mlir --input-dir DIR --output-dir OUT   (DIR/NAME.npy, as
//                                          the emitted program's --inputs)
//
// Exit codes: 0 success, 1 the IR does not parse or verify, 2 usage or input
// data error (bad flag, missing or mismatched .npy), 3 kernel fault at run
// time (out-of-bounds access, bad scalar read, ...).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "pto/CostModel/CostModel.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "pto/Interpreter/Interpreter.h"
#include "pto/Interpreter/ShapeOnly.h"
#include "pto/Tools/PtoRunMain.h"
#include "pto/Tools/Version.h"

#include "pto/runtime/checks.hpp"

#include "ArgumentShapes.h"
#include "Progress.h"

#include <chrono>
#include <cmath>
#include <random>
#include <unistd.h>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;
namespace cl = llvm::cl;

// The exit codes emitted programs share (docs/Guarantees.md).
enum ExitCode {
  kOk = pto_check::kOk,
  kBadIR = pto_check::kBadIR,
  kUsage = pto_check::kUsage,
  kFault = pto_check::kFault
};

static cl::OptionCategory category("pto-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernel.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel", cl::desc("pto.kernel to run (default: the only one)"),
               cl::value_desc("NAME"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("Argument data: NAME=FILE.npy (bf16 as uint16); with "
                    "--no-numerics also NAME=shape:AxB...[:DTYPE]"),
           cl::value_desc("NAME=FILE"), cl::cat(category));
static cl::opt<std::string> inputDir(
    "input-dir",
    cl::desc("Read every argument not given by --input from DIR/NAME.npy (the "
             "files an emitted program's --inputs DIR reads); written "
             "arguments without a file start at zero"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> saveInputs(
    "save-inputs",
    cl::desc("Before the run, write every argument's data (given, generated "
             "or zero) to DIR/NAME.npy, for --input-dir or an emitted "
             "program's --inputs"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> progress(
    "progress",
    cl::desc("Report progress on stderr (launches, elapsed, estimate); "
             "default: on when stderr is a terminal"),
    cl::cat(category));
static cl::list<std::string>
    outputs("output",
            cl::desc("Write an argument after the run: NAME=FILE.npy"),
            cl::value_desc("NAME=FILE"), cl::cat(category));
static cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("Write every argument the kernel writes to DIR/NAME.npy"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<uint64_t> randomSeed(
    "random",
    cl::desc("Generate the arguments not given by --input: floats "
             "normal(0,1)*0.1 (rounded to their dtype), outputs zero; "
             "dynamic dims from --shape or, where the kernel fixes them, "
             "from the other arguments"),
    cl::value_desc("SEED"), cl::cat(category));
static cl::list<std::string>
    shapes("shape",
           cl::desc("Shape of a generated or zero argument: NAME=AxBxC "
                    "(for dynamic dims the kernel does not fix)"),
           cl::value_desc("NAME=SHAPE"), cl::cat(category));
static cl::opt<uint64_t> shuffleAtomics(
    "shuffle-atomics",
    cl::desc("Apply atomic_add contributions in a shuffled order (seed)"),
    cl::value_desc("SEED"), cl::cat(category));
static cl::opt<bool> noLegalize(
    "no-legalize",
    cl::desc("Run the IR as parsed, without pto-legalize (to compare the "
             "pass's before and after)"),
    cl::init(false));
static cl::opt<bool> noNumerics(
    "no-numerics",
    cl::desc("Run only what the schedule needs (control flow, scalar reads of "
             "integer tensors, valid extents, launches) and skip tile "
             "arithmetic: the --simulate report is the same, no float tensor "
             "is held; float arguments may be given as shapes "
             "(--input NAME=shape:AxB...) or left out (static, --shape or "
             "inferred shapes); integer arguments still need their values"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> printStats("run-stats",
                                cl::desc("Print run statistics to stderr"),
                                cl::cat(category));

static cl::opt<std::string> simulate(
    "simulate",
    cl::desc("After the run, print the cost model's estimate of the device "
             "time for an architecture: a3 (DAV_2201) or 950 (DAV_3510); "
             "docs/CostModel.md"),
    cl::value_desc("a3|950"), cl::cat(category));
static cl::opt<std::string> traceFile(
    "trace",
    cl::desc("With --simulate: write the modelled schedule as a Chrome trace "
             "(JSON, Perfetto)"),
    cl::value_desc("FILE.json"), cl::cat(category));
static cl::opt<double> simFlops(
    "sim-flops",
    cl::desc("With --simulate: the kernel's FLOP by its own convention (e.g. "
             "SK-16: sum over (b,h) of 10*s1*s2*D); default: matmul FLOP"),
    cl::value_desc("FLOP"), cl::cat(category));
static cl::opt<double> simLaunchOverhead(
    "sim-launch-overhead-us",
    cl::desc("With --simulate: fixed cost per launch (default 1.5 us)"),
    cl::value_desc("US"), cl::init(1.5), cl::cat(category));
static cl::opt<double> simSubmit(
    "sim-submit-us",
    cl::desc("With --simulate: control-AICPU cost per device task (stitch), "
             "default 2 us"),
    cl::value_desc("US"), cl::init(2.0), cl::cat(category));

static cl::opt<unsigned> simSchedMode(
    "sim-sched-mode",
    cl::desc("With --simulate: device_sched_mode of the modelled runtime: 0 "
             "FIFO, 1 L2 affinity, 2 fairness, 3 both (default: the kernel's "
             "pto.device_sched_mode option, else 0)"),
    cl::value_desc("0-3"), cl::init(0), cl::cat(category));
static cl::opt<double> simFairness(
    "sim-fairness-us",
    cl::desc("With --simulate: scheduler cost per dispatch in modes 2 and 3 "
             "(default 0.2 us)"),
    cl::value_desc("US"), cl::init(0.2), cl::cat(category));
static cl::opt<bool> simNoContention(
    "sim-no-contention",
    cl::desc("With --simulate: do not share GM bandwidth over time (each "
             "launch at its per-core rates; whole-run bounds only)"),
    cl::init(false), cl::cat(category));
static cl::opt<double> simL2Bandwidth(
    "sim-l2-tbps",
    cl::desc("With --simulate: the chip's L2 bandwidth in TB/s (default: the "
             "platform's figure; for sensitivity studies)"),
    cl::value_desc("TB/S"), cl::cat(category));
static cl::opt<bool> simNoMerge(
    "sim-no-merge",
    cl::desc("With --simulate: every stitch the interpreter runs is its own "
             "device task (default: stitches flushed only at control-program "
             "views are merged, docs/CostModel.md)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> simGraph(
    "sim-graph",
    cl::desc("With --simulate: the input is a launch graph (JSON, "
             "docs/CostModel.md) to schedule instead of a kernel to run"),
    cl::init(false), cl::cat(category));

static cl::opt<std::string>
    simDump("sim-dump-graph",
            cl::desc("With --simulate: write the observed launch graph (the "
                     "--sim-graph format) to FILE"),
            cl::value_desc("FILE.json"), cl::cat(category));

static int usageError(const Twine &message) {
  llvm::errs() << "pto-run: error: " << message << "\n";
  return kUsage;
}

/// Writes the --trace and --sim-dump-graph files of a finished simulation.
static int writeSimulationFiles(const cost::CostModel &model) {
  for (auto [path, write] :
       {std::pair{&traceFile, &cost::CostModel::writeChromeTrace},
        std::pair{&simDump, &cost::CostModel::writeGraph}}) {
    if (path->empty())
      continue;
    std::error_code ec;
    llvm::raw_fd_ostream os(*path, ec);
    if (ec)
      return usageError("cannot write '" + *path + "': " + ec.message());
    (model.*write)(os);
  }
  return kOk;
}

/// Splits NAME=VALUE; empty parts are errors.
static std::optional<std::pair<StringRef, StringRef>>
splitAssignment(StringRef text) {
  auto [name, value] = text.split('=');
  if (name.empty() || value.empty() || !text.contains('='))
    return std::nullopt;
  return std::make_pair(name, value);
}

static std::string argNames(KernelOp kernel) {
  SmallVector<StringRef> names;
  for (Attribute a : kernel.getArgNames())
    names.push_back(cast<StringAttr>(a).getValue());
  return llvm::join(names, ", ");
}

/// An allocation the up-front size checks did not foresee failed (the
/// machine has less memory than the buffer limit allows): one line and exit
/// 2 instead of LLVM's crash banner.
static void outOfMemory(void *, const char *reason, bool) {
  static const char message[] = "pto-run: error: out of memory (";
  (void)!::write(2, message, sizeof message - 1);
  (void)!::write(2, reason, std::strlen(reason));
  (void)!::write(2, ")\n", 2);
  ::_exit(kUsage);
}

int mlir::pto::ptoRunMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(outOfMemory);
  cl::HideUnrelatedOptions(category);
  registerVersionPrinter();
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "pto-run: execute a pto.kernel on host memory (reference "
          "interpreter)\n",
          &llvm::errs()))
    return kUsage;
  // The cost model (docs/CostModel.md); flags checked before any work.
  std::optional<cost::CostModel> costModel;
  if (simulate.getNumOccurrences()) {
    std::optional<Arch> arch;
    if (simulate == "a3" || simulate == "a2" || simulate == "2201" ||
        simulate == "DAV_2201")
      arch = Arch::DAV_2201;
    else if (simulate == "950" || simulate == "3510" || simulate == "DAV_3510")
      arch = Arch::DAV_3510;
    if (!arch)
      return usageError("--simulate expects a3 or 950, got '" + simulate + "'");
    // Times are finite and >= 0; FLOP and bandwidth finite and > 0.
    struct Number {
      const char *flag;
      double value;
      bool given, positive;
    } numbers[] = {
        {"--sim-launch-overhead-us", simLaunchOverhead, true, false},
        {"--sim-submit-us", simSubmit, true, false},
        {"--sim-fairness-us", simFairness, true, false},
        {"--sim-flops", simFlops, simFlops.getNumOccurrences() > 0, true},
        {"--sim-l2-tbps", simL2Bandwidth,
         simL2Bandwidth.getNumOccurrences() > 0, true}};
    for (const Number &n : numbers)
      if (n.given && (!std::isfinite(n.value) || n.value < 0 ||
                      (n.positive && n.value == 0)))
        return usageError(Twine(n.flag) + " expects a finite number " +
                          (n.positive ? "> 0" : ">= 0") + ", got " +
                          llvm::formatv("{0}", n.value).str());
    cost::CostModelOptions costOptions;
    if (simFlops.getNumOccurrences())
      costOptions.conventionFlops = simFlops;
    costOptions.launchOverheadUs = simLaunchOverhead;
    costOptions.submitUs = simSubmit;
    if (simSchedMode > 3)
      return usageError("--sim-sched-mode expects 0-3");
    costOptions.schedMode = simSchedMode;
    costOptions.fairnessOverheadUs = simFairness;
    costOptions.contention = !simNoContention;
    costOptions.mergeStitches = !simNoMerge;
    if (simL2Bandwidth.getNumOccurrences())
      costOptions.l2BytesPerSec = simL2Bandwidth * 1e12;
    costModel.emplace(*arch, costOptions);
  } else if (traceFile.getNumOccurrences()) {
    return usageError("--trace needs --simulate=a3|950");
  } else if (simGraph) {
    return usageError("--sim-graph needs --simulate=a3|950");
  }
  if (simGraph) {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      return usageError("cannot read '" + inputFile + "'");
    std::string warning;
    if (llvm::Error error =
            costModel->loadGraph((*buffer)->getBuffer(), &warning))
      return usageError(llvm::toString(std::move(error)));
    if (!warning.empty())
      llvm::errs() << "pto-run: warning: " << warning << "\n";
    costModel->finish();
    costModel->printReport(llvm::outs());
    return writeSimulationFiles(*costModel);
  }

  DialectRegistry registry;
  // pto_isa is registered only to recognise ISA-level input and say what
  // to run instead.
  registry.insert<PTODialect, ptoisa::PTOISADialect, arith::ArithDialect,
                  func::FuncDialect, index::IndexDialect, math::MathDialect,
                  scf::SCFDialect, tensor::TensorDialect>();
  MLIRContext context(registry);
  // The message and its location say what is wrong; the op in generic form
  // (sentinels for dynamic sizes) would not help.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);

  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return usageError(errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return kBadIR;
  bool isaLevel = false;
  module->walk([&](Operation *op) {
    if (isa_and_nonnull<ptoisa::PTOISADialect>(op->getDialect()))
      isaLevel = true;
    return isaLevel ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (isaLevel)
    return usageError(
        "'" + inputFile +
        "' is ISA-level IR (pto_isa ops, the output of --pto-ascend-pipeline), "
        "which pto-run cannot interpret; run pto-run on the kernel before "
        "--pto-ascend-pipeline (or on its --pto-tile-graph-pipeline output), "
        "or print this module with `pto-translate --pto-to-cpp` and run the "
        "compiled program (docs/Codegen.md)");
  // What the verifier accepts for PyPTO's sake (bf16 arithmetic on DAV_2201,
  // over-sized reduction tiles, ...) is rewritten as PyPTO does before it
  // runs, with a remark per rewrite (docs/Legalization.md).
  PassManager legalize(&context);
  legalize.addPass(createLegalizePass());
  if (!noLegalize && failed(legalize.run(*module)))
    return kBadIR;

  // Pick the kernel.
  SmallVector<KernelOp> kernels;
  module->walk([&](KernelOp k) { kernels.push_back(k); });
  KernelOp kernel;
  for (KernelOp k : kernels)
    if (kernelName.empty() ? kernels.size() == 1 : k.getSymName() == kernelName)
      kernel = k;
  if (!kernel) {
    SmallVector<StringRef> names;
    for (KernelOp k : kernels)
      names.push_back(k.getSymName());
    if (kernels.empty())
      return usageError("'" + inputFile + "' contains no pto.kernel");
    return usageError((kernelName.empty()
                           ? Twine("several kernels; choose one with --kernel")
                           : "no kernel named '" + kernelName + "'") +
                      " (kernels: " + llvm::join(names, ", ") + ")");
  }

  unsigned numArgs = kernel.getNumArguments();
  auto argIndex = [&](StringRef name) -> std::optional<unsigned> {
    BlockArgument arg = kernel.getArgumentByName(name);
    if (!arg)
      return std::nullopt;
    return arg.getArgNumber();
  };

  // Inputs from files.
  std::vector<std::optional<HostTensor>> data(numArgs);
  for (StringRef spec : inputs) {
    auto assignment = splitAssignment(spec);
    if (!assignment)
      return usageError("--input expects NAME=FILE, got '" + spec + "'");
    std::optional<unsigned> index = argIndex(assignment->first);
    if (!index)
      return usageError("--input names '" + assignment->first +
                        "', which is not an argument of @" +
                        kernel.getSymName() + " (" + argNames(kernel) + ")");
    if (data[*index])
      return usageError("argument '" + assignment->first + "' given twice");
    auto type = cast<GMTensorType>(kernel.getArgumentTypes()[*index]);
    if (isShapeSpec(assignment->second)) {
      if (!noNumerics)
        return usageError("input '" + assignment->first +
                          "' is given as a shape, which only a --no-numerics "
                          "run accepts; add --no-numerics or give a .npy file");
      std::optional<ElementKind> kind = getElementKind(type.getElementType());
      if (!kind)
        return usageError("argument '" + assignment->first +
                          "' has an element type pto-run cannot hold");
      llvm::Expected<HostTensor> tensor =
          parseShapeSpec(assignment->second, *kind);
      if (!tensor)
        return usageError("input '" + assignment->first +
                          "': " + llvm::toString(tensor.takeError()));
      data[*index] = std::move(*tensor);
      continue;
    }
    // Without numerics float data is never read: only the header is.
    llvm::Expected<HostTensor> tensor =
        readNpy(assignment->second,
                noNumerics && isa<FloatType>(type.getElementType()));
    if (tensor)
      tensor = fromArgumentStorage(kernel, *index, std::move(*tensor));
    if (!tensor)
      return usageError("input '" + assignment->first +
                        "': " + llvm::toString(tensor.takeError()));
    data[*index] = std::move(*tensor);
  }

  // Generated inputs.
  llvm::StringMap<SmallVector<int64_t>> givenShapes;
  for (StringRef spec : shapes) {
    auto assignment = splitAssignment(spec);
    SmallVector<StringRef> parts;
    if (assignment)
      assignment->second.split(parts, 'x');
    SmallVector<int64_t> shape;
    for (StringRef p : parts) {
      int64_t d;
      if (p.getAsInteger(10, d) || d < 0)
        return usageError("--shape expects NAME=AxBxC with sizes >= 0, got '" +
                          spec + "'");
      shape.push_back(d);
    }
    if (!assignment || shape.empty())
      return usageError("--shape expects NAME=AxBxC, got '" + spec + "'");
    if (!argIndex(assignment->first))
      return usageError("--shape names '" + assignment->first +
                        "', which is not an argument of @" +
                        kernel.getSymName() + " (" + argNames(kernel) + ")");
    givenShapes[assignment->first] = shape;
  }
  SmallVector<unsigned> written = getWrittenArguments(kernel);
  auto nameOf = [&](unsigned i) {
    return cast<StringAttr>(kernel.getArgNames()[i]).getValue();
  };

  // Arguments not given by --input: DIR/NAME.npy, as an emitted program
  // reads them.
  if (!inputDir.empty()) {
    if (!llvm::sys::fs::is_directory(inputDir))
      return usageError("--input-dir '" + inputDir + "' is not a folder");
    for (unsigned i = 0; i < numArgs; ++i) {
      if (data[i])
        continue;
      SmallString<128> path(inputDir);
      llvm::sys::path::append(path, nameOf(i) + ".npy");
      if (!llvm::sys::fs::exists(path))
        continue;
      bool floatArg = isa<FloatType>(
          cast<GMTensorType>(kernel.getArgumentTypes()[i]).getElementType());
      llvm::Expected<HostTensor> tensor = readNpy(path, noNumerics && floatArg);
      if (tensor)
        tensor = fromArgumentStorage(kernel, i, std::move(*tensor));
      if (!tensor)
        return usageError("input '" + nameOf(i) +
                          "': " + llvm::toString(tensor.takeError()));
      data[i] = std::move(*tensor);
    }
  }

  // Shapes of the arguments still without data: --shape, static, or fixed
  // by the kernel through arguments of known shape (repeated while that
  // fixes more).
  SmallVector<std::optional<SmallVector<int64_t>>> knownShapes(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    auto type = cast<GMTensorType>(kernel.getArgumentTypes()[i]);
    auto given = givenShapes.find(nameOf(i));
    if (data[i])
      knownShapes[i] = SmallVector<int64_t>(data[i]->shape);
    else if (given != givenShapes.end())
      knownShapes[i] = given->second;
    else if (type.hasStaticShape())
      knownShapes[i] = SmallVector<int64_t>(type.getShape());
  }
  auto knownShape = [&](unsigned i) -> const SmallVector<int64_t> * {
    return knownShapes[i] ? &*knownShapes[i] : nullptr;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned i = 0; i < numArgs; ++i)
      if (!knownShapes[i])
        if ((knownShapes[i] = inferArgumentShape(kernel, i, knownShape)))
          changed = true;
  }

  std::mt19937_64 rng(randomSeed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (unsigned i = 0; i < numArgs; ++i) {
    if (data[i])
      continue;
    StringRef name = nameOf(i);
    bool isOutput = llvm::is_contained(written, i);
    // The host zeroes what the kernel writes (SK-16's dQ/dK/dV); only what
    // it reads needs data.
    if (!isOutput && randomSeed.getNumOccurrences() == 0 && !noNumerics) {
      if (!inputDir.empty())
        return usageError("no data for argument '" + name + "': no " + name +
                          ".npy in --input-dir '" + inputDir +
                          "'; give --input " + name +
                          "=FILE.npy, or --random SEED to generate it");
      return usageError("no data for argument '" + name + "': give --input " +
                        name + "=FILE.npy, or --random SEED to generate it");
    }
    auto type = cast<GMTensorType>(kernel.getArgumentTypes()[i]);
    std::optional<ElementKind> kind = getElementKind(type.getElementType());
    if (!kind)
      return usageError("argument '" + name +
                        "' has an element type pto-run "
                        "cannot generate");
    bool isFloat = *kind == ElementKind::BF16 || *kind == ElementKind::F16 ||
                   *kind == ElementKind::F32;
    if (!isOutput && !isFloat && noNumerics)
      return usageError("argument '" + name +
                        "' holds integers (offsets or "
                        "indices) that the schedule may depend on; give "
                        "--input " +
                        name +
                        "=FILE.npy (--no-numerics needs "
                        "the values of integer arguments)");
    if (!isOutput && !isFloat)
      return usageError("argument '" + name +
                        "' holds integers (offsets or "
                        "indices) that cannot be generated meaningfully; give "
                        "--input " +
                        name + "=FILE.npy");
    if (!knownShapes[i])
      return usageError("argument '" + name +
                        "' has dynamic dims the kernel does not fix from the "
                        "other arguments; give --shape " +
                        name + "=AxB... to " +
                        (isOutput ? "zero-initialise" : "generate") + " it" +
                        (noNumerics
                             ? " (or --input " + name.str() + "=shape:AxB...)"
                             : std::string()));
    if (noNumerics) {
      if (!getStorageBytes(*kind, *knownShapes[i]))
        return usageError("argument '" + name +
                          "': the byte size of its shape overflows 64 bits");
      data[i] = HostTensor::makeShapeOnly(*kind, *knownShapes[i]);
      continue;
    }
    llvm::Expected<HostTensor> created =
        HostTensor::create(*kind, *knownShapes[i], "argument '" + name + "'");
    if (!created)
      return usageError(llvm::toString(created.takeError()));
    HostTensor &tensor = *created;
    if (!isOutput)
      for (int64_t j = 0, e = tensor.getNumElements(); j < e; ++j)
        tensor.storeFloat(j, normal(rng) * 0.1f);
    data[i] = std::move(tensor);
  }

  std::vector<HostTensor> args;
  for (auto &tensor : data)
    args.push_back(std::move(*tensor));
  if (llvm::Error error = checkArguments(kernel, args))
    return usageError(llvm::toString(std::move(error)));

  if (noNumerics &&
      (!outputs.empty() || !outputDir.empty() || !saveInputs.empty()))
    return usageError("--no-numerics computes no tensor data, so there is "
                      "nothing for --output / --output-dir / --save-inputs to "
                      "write; drop them or run without --no-numerics");
  if (noNumerics && shuffleAtomics.getNumOccurrences())
    return usageError("--shuffle-atomics changes only the numbers, which "
                      "--no-numerics does not compute");
  // Validate output requests before spending time on the run.
  SmallVector<std::pair<unsigned, std::string>> outputFiles;
  for (StringRef spec : outputs) {
    auto assignment = splitAssignment(spec);
    if (!assignment)
      return usageError("--output expects NAME=FILE, got '" + spec + "'");
    std::optional<unsigned> index = argIndex(assignment->first);
    if (!index)
      return usageError("--output names '" + assignment->first +
                        "', which is not an argument of @" +
                        kernel.getSymName() + " (" + argNames(kernel) + ")");
    outputFiles.push_back({*index, assignment->second.str()});
  }
  // Folders made (or found unwritable) now, not after the run.
  for (auto [flag, dir] : {std::pair{"--output-dir", &outputDir},
                           std::pair{"--save-inputs", &saveInputs}})
    if (!dir->empty())
      if (std::string rule = pto_check::output_folder(*dir); !rule.empty())
        return usageError(Twine(flag) + ": " + rule);
  for (auto &[index, path] : outputFiles)
    if (std::string rule = pto_check::output_file(path); !rule.empty())
      return usageError("--output " + nameOf(index) + ": " + rule);
  for (const std::string *path : {&traceFile.getValue(), &simDump.getValue()})
    if (!path->empty())
      if (std::string rule = pto_check::output_file(*path); !rule.empty())
        return usageError(rule);
  if (!saveInputs.empty())
    for (unsigned i = 0; i < numArgs; ++i) {
      SmallString<128> path(saveInputs);
      llvm::sys::path::append(path, nameOf(i) + ".npy");
      if (llvm::Error error =
              writeNpy(path, toArgumentStorage(kernel, i, args[i])))
        return usageError("--save-inputs '" + nameOf(i) +
                          "': " + llvm::toString(std::move(error)));
    }
  if (!outputDir.empty())
    for (unsigned index : written) {
      SmallString<128> path(outputDir);
      llvm::sys::path::append(
          path,
          cast<StringAttr>(kernel.getArgNames()[index]).getValue() + ".npy");
      outputFiles.push_back({index, std::string(path)});
    }

  RunOptions options;
  if (costModel) {
    options.observer = &*costModel;
    // The kernel's own device_sched_mode unless the flag overrides it.
    if (!simSchedMode.getNumOccurrences())
      if (auto runtime =
              kernel->getAttrOfType<RuntimeOptionsAttr>("runtime_options"))
        if (auto mode = runtime.getDeviceSchedMode())
          costModel->setSchedMode(unsigned(*mode));
  }
  bool terminal = ::isatty(2);
  std::optional<ProgressReporter> progressReporter;
  if (progress.getNumOccurrences() ? progress : terminal) {
    progressReporter.emplace(options.observer, llvm::errs(), terminal);
    options.observer = &*progressReporter;
  }
  options.numerics = !noNumerics;
  options.shuffleAtomics = shuffleAtomics.getNumOccurrences() > 0;
  options.shuffleSeed = shuffleAtomics;
  RunStats stats;
  auto start = std::chrono::steady_clock::now();
  LogicalResult ran = runKernel(kernel, args, options, &stats);
  if (progressReporter)
    progressReporter->finish(succeeded(ran));
  if (failed(ran))
    return kFault;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  for (auto &[index, path] : outputFiles)
    if (llvm::Error error =
            writeNpy(path, toArgumentStorage(kernel, index, args[index])))
      return usageError(
          "output '" +
          cast<StringAttr>(kernel.getArgNames()[index]).getValue() +
          "': " + llvm::toString(std::move(error)));
  if (printStats)
    llvm::errs() << "pto-run: @" << kernel.getSymName() << ": "
                 << stats.loopIterations << " loop iterations, "
                 << stats.opsExecuted << " ops, " << stats.matmulFlops
                 << " matmul FLOP, " << stats.atomicElements
                 << " elements accumulated, " << stats.vectorElements
                 << " vector elements, " << llvm::format("%.3f", seconds)
                 << " s\n";
  if (printStats && stats.stitches)
    llvm::errs() << "pto-run: " << stats.rootInstances << " root instances in "
                 << stats.stitches << " stitches, " << stats.stitchedLaunches
                 << " launches, " << stats.reorderedLaunches
                 << " out of sequential order\n";
  if (costModel) {
    costModel->finish();
    if (costModel->getLaunches().empty())
      llvm::errs()
          << "pto-run: warning: --simulate saw no pto.launch; the "
             "cost model needs outlined IR (--pto-tile-graph-pipeline)\n";
    costModel->printReport(llvm::outs());
    return writeSimulationFiles(*costModel);
  }
  return kOk;
}
