//===- pto-fuzz.cpp - libFuzzer harness over the pto toolchain ------------===//
//
// Feeds arbitrary bytes through the stages a kernel goes through, each on its
// own copy of the parsed module:
//
//   parse + verify -> print/re-parse round trip -> checker (sk16 skeleton,
//   lint) -> full pipeline (--pto-tile-graph-pipeline, verified after each
//   pass) + pto-report -> emission
//
// A stage may reject its input with diagnostics (that is the defined
// behaviour for hostile IR); it must never crash, hang, trip a sanitizer or
// produce IR that does not verify or does not parse back. Invariant
// violations call abort() so that libFuzzer records the input.
//
// Adding a stage (e.g. emission once `pto-translate --pto-to-cpp` exists) is
// one entry in `kStages` below: a function taking the verified module (a
// private copy) and returning failure() to stop the later stages.
//
// Built in two flavours (tools/pto-fuzz/CMakeLists.txt):
//  - pto-fuzz: libFuzzer's main, in the sanitizer build (PTO_SANITIZE=ON
//    with libFuzzer available); `make fuzz` / `make fuzz-ci`.
//  - pto-fuzz-replay: the same stages over files named on the command line
//    (every build); lit runs it over the seed corpus and the regression
//    inputs in test/Fuzz/.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include "pto/Embedding/Embedding.h"
#include "pto/Target/Cpp/CppEmitter.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// Inputs larger than this are not interesting (and slow to parse).
constexpr size_t kMaxInputBytes = 64 * 1024;

[[noreturn]] void invariantViolated(StringRef stage, StringRef what,
                                    StringRef ir) {
  llvm::errs() << "pto-fuzz: invariant violated in stage '" << stage
               << "': " << what << "\n";
  if (!ir.empty())
    llvm::errs() << "--- IR ---\n" << ir << "\n--- end IR ---\n";
  std::abort();
}

std::string print(Operation *op, bool generic = false) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  op->print(os, flags);
  return text;
}

/// Stage: the verified module prints and parses back (pretty and generic).
LogicalResult roundTrip(ModuleOp module) {
  for (bool generic : {false, true}) {
    std::string text = print(module, generic);
    OwningOpRef<ModuleOp> reparsed =
        parseSourceString<ModuleOp>(text, module.getContext());
    if (!reparsed)
      invariantViolated(generic ? "round-trip (generic)" : "round-trip",
                        "a verified module does not parse back", text);
  }
  return success();
}

/// Stage: the checkers. Rule violations are diagnostics, never crashes.
LogicalResult checkers(ModuleOp module) {
  (void)pto::runPassPipeline(
      module, "builtin.module(pto-check-skeleton{skeleton=sk16})");
  (void)pto::runPassPipeline(module, "builtin.module(pto-lint)");
  return success();
}

/// Stage: the full tile-graph pipeline (verified after each pass by the pass
/// manager), its report, and the result must print and parse back.
LogicalResult pipeline(ModuleOp module) {
  if (failed(pto::runPassPipeline(module,
                                  "builtin.module(pto-tile-graph-pipeline)")))
    return failure();
  if (failed(verify(module)))
    invariantViolated("pipeline",
                      "the pipeline succeeded on IR that then "
                      "does not verify",
                      print(module, true));
  (void)pto::runPassPipeline(module, "builtin.module(pto-report)");
  std::string text = print(module);
  if (!parseSourceString<ModuleOp>(text, module.getContext()))
    invariantViolated("pipeline", "the pipeline's output does not parse back",
                      text);
  return success();
}

/// Stage: code generation. The Ascend pipeline (tile graph, lowering to
/// pto_isa, memory planning, sync insertion) and the C++ printer either
/// reject the module with diagnostics or produce text; the synchronised ISA
/// must also pass the independent sync checker.
LogicalResult emission(ModuleOp module) {
  if (failed(
          pto::runPassPipeline(module, "builtin.module(pto-ascend-pipeline)")))
    return failure();
  if (failed(
          pto::runPassPipeline(module, "builtin.module(pto-isa-verify-sync)")))
    invariantViolated("emission",
                      "pto-isa-insert-sync produced IR its checker "
                      "rejects",
                      print(module, true));
  std::string cpp;
  llvm::raw_string_ostream os(cpp);
  (void)pto::translateToCpp(module, os);
  return success();
}

struct Stage {
  const char *name;
  LogicalResult (*run)(ModuleOp);
};
const Stage kStages[] = {
    {"round-trip", roundTrip},
    {"checkers", checkers},
    {"pipeline", pipeline},
    {"emission", emission},
};

struct Harness {
  DialectRegistry registry;
  Harness() {
    pto::registerAllDialects(registry);
    pto::registerAllPasses();
  }
};

Harness &harness() {
  static Harness h;
  return h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1; // not added to the corpus
  Harness &h = harness();
  // A fresh context per input: uniqued attributes and types do not pile up
  // across inputs, and every run sees the same state.
  MLIRContext context(h.registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects(false);
  // Swallow the diagnostics (hostile inputs produce plenty).
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  // MLIR's lexer reads the buffer up to a terminating NUL: libFuzzer's data
  // has none, so parse a NUL-terminated copy (as every file buffer is).
  std::string source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return 0;
  for (const Stage &stage : kStages) {
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
    if (failed(stage.run(*copy)))
      break;
  }
  return 0;
}

#ifdef PTO_FUZZ_REPLAY
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

// pto-fuzz-replay FILE...: runs each file through the stages (as libFuzzer
// would) and prints one line per file; exit 0 when none crashed.
int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc < 2) {
    llvm::errs() << "usage: pto-fuzz-replay FILE...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    auto buffer = llvm::MemoryBuffer::getFile(argv[i]);
    if (!buffer) {
      llvm::errs() << "pto-fuzz-replay: cannot read " << argv[i] << "\n";
      return 2;
    }
    StringRef bytes = (*buffer)->getBuffer();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
    llvm::outs() << "ok " << argv[i] << "\n";
  }
  return 0;
}
#endif
