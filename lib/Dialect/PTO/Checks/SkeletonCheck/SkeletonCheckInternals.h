//===- SkeletonCheckInternals.h - the SK-16 checker's parts -----*- C++ -*-===//
//
// Shared by the files of --pto-check-skeleton=sk16: the recognised SK-16
// structure (Sk16Model: signature arguments, products, loop levels; built in
// Signature.cpp) and the checker whose rule families live in LoopRules.cpp
// (R1-R5: the loop nest and its sweeps), NumericRules.cpp (R6, R7, R9, R11:
// masks, scale, precision, operand types) and ConfigRules.cpp (R8, R10, R12,
// R13, R14, P8.1: tile configs, reshapes, scopes, options); the pass that
// sequences them and reports is SkeletonCheck.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_DIALECT_PTO_CHECKS_SKELETONCHECK_SKELETONCHECKINTERNALS_H
#define PTO_LIB_DIALECT_PTO_CHECKS_SKELETONCHECK_SKELETONCHECKINTERNALS_H

#include "../CommonRules.h"
#include "../RuleReporter.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include <string>

namespace mlir::pto::check::sk16 {

//===----------------------------------------------------------------------===//
// The recognised SK-16 structure
//===----------------------------------------------------------------------===//

/// A loop level of the four-deep nest: the loop (null when no loop index
/// reaches the offset) and the view whose offset it was read from.
struct Level {
  StringRef name;      // "batch", "head", "s1", "s2"
  StringRef offsetDim; // "row", "column"
  ViewOp view;
  Operation *loop = nullptr;
};

struct Sk16Model {
  KernelOp kernel;
  const PlatformInfo *platform;
  // docs/SK16.md#signature arguments.
  BlockArgument q, k, v, o, dO, l, m, dq, dk, dv, actualQ, actualKV;
  // Products, in program order.
  SmallVector<MatmulOp> qk;  // S = Q·Kᵀ (or Sᵀ): a q view times a k view
  SmallVector<MatmulOp> dov; // dP = dO·Vᵀ
  SmallVector<MatmulOp> c2;  // dV, dQ, dK: consume tiles computed from S/dP
  // Loop levels, derived from the views of the first Q·Kᵀ.
  Level batch{"batch", "row", {}, nullptr}, head{"head", "column", {}, nullptr},
      s1{"s1", "row", {}, nullptr}, s2{"s2", "row", {}, nullptr};
  // The innermost pto.loop around the first Q·Kᵀ.
  LoopOp bodyLoop;

  bool isQSide(BlockArgument arg) const {
    return arg && (arg == q || arg == o || arg == dO || arg == l || arg == m);
  }
  bool isKVSide(BlockArgument arg) const {
    return arg && (arg == k || arg == v);
  }
  bool isGradient(BlockArgument arg) const {
    return arg && (arg == dq || arg == dk || arg == dv);
  }

  /// "dV = Pᵀ·dO", "dQ = dS·K", "dK = dSᵀ·Q" for a C2 matmul, by the input
  /// it multiplies.
  std::string c2Role(MatmulOp matmul) const {
    // The operand not computed from the scores is (a cast of) a view of the
    // input that names the product.
    for (Value operand : {matmul.getLhs(), matmul.getRhs()}) {
      llvm::SetVector<Operation *> producers = collectTileProducers(operand);
      if (llvm::any_of(producers, llvm::IsaPred<MatmulOp>))
        continue;
      for (Operation *producer : producers) {
        auto view = dyn_cast<ViewOp>(producer);
        BlockArgument arg =
            view ? getViewedArgument(view.getResult()) : BlockArgument();
        if (arg && arg == dO)
          return "dV = Pᵀ·dO";
        if (arg && arg == k)
          return "dQ = dS·K";
        if (arg && arg == q)
          return "dK = dSᵀ·Q";
      }
    }
    return "C2 product";
  }
  std::string matmulRole(MatmulOp matmul) const {
    if (llvm::is_contained(qk, matmul))
      return "Q·Kᵀ";
    if (llvm::is_contained(dov, matmul))
      return "dP = dO·Vᵀ";
    return c2Role(matmul);
  }
};

/// Recognises the SK-16 structure of `model.kernel` (its signature arguments
/// already found): the products and the four loop levels.
void buildModel(Sk16Model &model);

/// One check per SK-16 coding rule over one kernel; findings go to the
/// reporter.
class Sk16Checker {
public:
  Sk16Checker(KernelOp kernel, RuleReporter &reporter) : reporter(reporter) {
    model.kernel = kernel;
    model.platform = &getPlatformInfo(kernel.getArchOrDefault());
  }

  /// Runs every rule; none when the signature is not SK-16's.
  void run();

  /// docs/SK16.md#signature: the 12 tensors, in order.
  static constexpr StringLiteral signatureNames[] = {
      "q",       "k",  "v",  "o",  "do",       "l_input",
      "m_input", "dq", "dk", "dv", "actual_q", "actual_kv"};

private:
  // Signature.cpp
  bool checkSignature();

  // LoopRules.cpp
  void checkR1SinglePass();
  void checkR2OneQK();
  void checkR3Statistics();
  void checkR4LoopLevels();
  void checkR5AtomicOutputs();

  // NumericRules.cpp
  void checkR6NoMasks();
  /// A tile of a kernel argument outside the SK-16 signature combined with
  /// the scores (S or dP, through any vector ops, casts and views): a mask
  /// passed in as a tensor. [1, 1] tiles are scalars, which R7 judges.
  void checkMaskInputs();
  void checkR7Scale();
  void checkR9DivPrecision();
  void checkR11Bf16Operands();

  // ConfigRules.cpp
  void checkR8TileConfigs();
  void checkR10Reshapes();
  /// The reshape is in place and at kernel entry.
  void checkReshape(ReshapeOp reshape, BlockArgument arg, int64_t merged,
                    const std::string &want);
  /// The alias the kernel uses is [total, N·D].
  void checkReshapeShape(ReshapeOp reshape, BlockArgument arg, int64_t merged,
                         const std::string &want);
  void checkR12Scopes();
  void checkR13CombineAxis();
  void checkR14Options();
  void checkP81KVTotal();

  Sk16Model model;
  RuleReporter &reporter;

  KernelOp kernel() { return model.kernel; }

  RuleDiagnostic &error(StringRef rule, Location loc, const Twine &message,
                        const Twine &fix) {
    return reporter.error(rule, loc, message, fix);
  }
  RuleDiagnostic &warning(StringRef rule, Location loc, const Twine &message,
                          const Twine &fix) {
    return reporter.warning(rule, loc, message, fix);
  }
};

} // namespace mlir::pto::check::sk16

#endif // PTO_LIB_DIALECT_PTO_CHECKS_SKELETONCHECK_SKELETONCHECKINTERNALS_H
