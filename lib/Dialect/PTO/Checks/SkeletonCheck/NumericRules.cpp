//===- NumericRules.cpp - SK-16 rules R6, R7, R9, R11 ---------------------===//
//
// What the vector code computes: no manual masks, the softmax scale as a
// multiplication, div precision, bf16 matmul operands.
//
//===----------------------------------------------------------------------===//

#include "SkeletonCheckInternals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;
using namespace mlir::pto::check::sk16;

//===--------------------------------------------------------------------===//
// R6: "No manual masks. Tails are expressed only through view(...,
// valid_shape=...)."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR6NoMasks() {
  checkManualMasks(kernel(), reporter, "SK16-R6");
  checkTailViews(kernel(), reporter, "SK16-R6");
  checkMaskInputs();
}

/// A tile of a kernel argument outside the SK-16 signature combined with
/// the scores (S or dP, through any vector ops, casts and views): a mask
/// passed in as a tensor. [1, 1] tiles are scalars, which R7 judges.
void Sk16Checker::checkMaskInputs() {
  SmallVector<Value> products;
  for (MatmulOp mm : llvm::concat<MatmulOp>(model.qk, model.dov))
    products.push_back(mm.getResult());
  if (products.empty())
    return;
  llvm::SetVector<Operation *> fromScores = collectTileConsumers(products);
  for (Operation *op : fromScores) {
    if (!isa<ElementwiseBinaryOpInterface>(op))
      continue;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<TileType>(operand.getType());
      if (!type || type.getNumElements() == 1 ||
          fromScores.contains(operand.getDefiningOp()))
        continue;
      ViewOp input;
      for (Operation *producer : collectTileProducers(operand))
        if (auto view = dyn_cast<ViewOp>(producer))
          if (BlockArgument arg = getViewedArgument(view.getResult()))
            if (!llvm::is_contained(signatureNames, getArgumentName(arg)))
              input = view;
      if (!input)
        continue;
      error("SK16-R6", op->getLoc(),
            "'" + op->getName().getStringRef() +
                "' combines the scores with a tile of tensor " +
                quoted(getViewedArgument(input.getResult())) +
                ", which is no SK-16 input: a manual mask passed in as a "
                "tensor",
            "drop the mask tensor and express the tail through the views' "
            "valid shape; SK-16 has no attention mask "
            "(docs/SK16.md#signature)")
          .note(input.getLoc(), "the mask tile is viewed here");
      break;
    }
  }
}

//===--------------------------------------------------------------------===//
// R7: "scale is a compile-time Python float, never a runtime tensor."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR7Scale() {
  static constexpr StringLiteral fix =
      "fold scale = 1/sqrt(D) into an arith.constant ... : f32 and "
      "multiply by that scalar (a compile-time Python float)";
  // The tiles SK-16 scales: S, and the dQ and dK products.
  llvm::SetVector<Value> scaled;
  for (MatmulOp mm : model.qk)
    scaled.insert(mm.getResult());
  for (MatmulOp mm : model.c2)
    if (model.c2Role(mm) != "dV = Pᵀ·dO")
      scaled.insert(mm.getResult());
  // Multiplies by one run-time scalar are reported once, at the first.
  // Multiplying or dividing by a run-time scalar is the same violation.
  llvm::MapVector<Value, SmallVector<Operation *>> runtimeScalars;
  kernel().walk([&](Operation *mul) {
    if (!isa<MulOp, DivOp>(mul))
      return;
    Value lhs = mul->getOperand(0), rhs = mul->getOperand(1);
    if (!isa<TileType>(rhs.getType())) {
      if (Value source = findRuntimeSource(rhs))
        runtimeScalars[source].push_back(mul);
      return;
    }
    SmallVector<std::pair<Value, Value>> pairs = {{lhs, rhs}};
    if (isa<MulOp>(mul))
      pairs.push_back({rhs, lhs});
    for (auto [tile, factor] : pairs) {
      // S reaches the multiply directly or through casts and views.
      MatmulOp product;
      for (Value v = tile; v && !product;) {
        if (scaled.contains(v))
          product = v.getDefiningOp<MatmulOp>();
        else if (auto cast = v.getDefiningOp<CastOp>())
          v = cast->getOperand(0);
        else if (auto view = v.getDefiningOp<ViewOp>();
                 view && isa<TileType>(view.getSource().getType()))
          v = view.getSource();
        else
          v = Value();
      }
      if (!product)
        continue;
      std::string what = "a tile";
      if (BlockArgument arg = getViewedArgument(factor))
        what = "a tile of tensor " + quoted(arg);
      else if (Operation *def = factor.getDefiningOp())
        what = ("a tile computed by '" + def->getName().getStringRef() + "'")
                   .str();
      error("SK16-R7", mul->getLoc(),
            "the " + model.matmulRole(product) + " result is " +
                (isa<DivOp>(mul) ? "divided" : "scaled") + " by " + what +
                " instead of a compile-time scalar: a run-time tensor "
                "costs an extra vector pass per multiply",
            fix);
      return;
    }
  });
  for (auto &[source, muls] : runtimeScalars) {
    OperationName kind = muls.front()->getName();
    StringRef name = kind.getStringRef();
    bool sameKind = llvm::all_of(
        muls, [&](Operation *op) { return op->getName() == kind; });
    std::string more = muls.size() > 1
                           ? " (and of " + std::to_string(muls.size() - 1) +
                                 " more " +
                                 (sameKind ? (name + " ops").str()
                                           : std::string("scaling ops")) +
                                 ")"
                           : std::string();
    error("SK16-R7", muls.front()->getLoc(),
          "the scalar of this " + name + more + " is a run-time value (" +
              describeRuntimeSource(source) + ")",
          fix)
        .note(getSourceLoc(source), "the run-time value comes from here");
  }
}

//===--------------------------------------------------------------------===//
// R9: "div uses PrecisionType.INTRINSIC."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR9DivPrecision() {
  kernel().walk([&](DivOp div) {
    if (div.getPrecision() == PrecisionType::INTRINSIC)
      return;
    StringRef arch = stringifyArch(model.platform->arch);
    static constexpr StringLiteral fix =
        "set precision = #pto.precision<INTRINSIC> (pto.div defaults to "
        "HIGH_PRECISION, like pypto.div)";
    if (!model.platform->supportsHighPrecision)
      error("SK16-R9", div.getLoc(),
            ("pto.div uses HIGH_PRECISION, which " + arch + " does not support")
                .str(),
            fix);
    else
      warning("SK16-R9", div.getLoc(),
              "pto.div uses HIGH_PRECISION; SK-16 divides with INTRINSIC "
              "(recommended value: INTRINSIC): its numerics and tolerance "
              "are set for the hardware divide, and HIGH_PRECISION does not "
              "port back to DAV_2201",
              fix);
  });
}

//===--------------------------------------------------------------------===//
// R11: "dS and P are cast to BF16 before C2." FP16 is accepted in place of
// BF16 (the same kernel in the other 16-bit format: full cube rate, and the
// variant pto-isa's CPU simulator runs, docs/SK16.md#fp16-variant).
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR11Bf16Operands() {
  auto fromProduct = [&](Value operand, ArrayRef<MatmulOp> products) {
    for (Operation *producer : collectTileProducers(operand))
      if (auto mm = dyn_cast<MatmulOp>(producer))
        if (llvm::is_contained(products, mm))
          return true;
    return false;
  };
  // Names an operand for the message: P or dS when computed from the
  // scores, else the input it views (possibly through casts).
  auto describeOperand = [&](Value operand) -> std::string {
    if (fromProduct(operand, model.dov))
      return "dS";
    if (fromProduct(operand, model.qk))
      return "P";
    if (BlockArgument arg = getViewedArgument(operand))
      return "the view of " + quoted(arg);
    for (Operation *producer : collectTileProducers(operand))
      if (auto view = dyn_cast<ViewOp>(producer))
        if (BlockArgument arg = getViewedArgument(view.getResult()))
          return quoted(arg) + " (widened)";
    return "an operand";
  };
  kernel().walk([&](MatmulOp mm) {
    SmallVector<std::string> wide;
    for (Value operand : {mm.getLhs(), mm.getRhs()}) {
      Type element = cast<TileType>(operand.getType()).getElementType();
      if (element.isBF16() || element.isF16())
        continue;
      std::string type;
      llvm::raw_string_ostream os(type);
      os << element;
      wide.push_back(describeOperand(operand) + " in " + type);
    }
    if (wide.empty())
      return;
    error("SK16-R11", mm.getLoc(),
          "the matmul " + model.matmulRole(mm) +
              " does not take BF16 (or FP16) cube operands: " +
              llvm::join(wide, ", "),
          "cast P and dS to bf16 (pto.cast, RINT) at the end of V1 and feed "
          "the BF16 views of q, k, v and do directly (or FP16 throughout); "
          "16-bit operands run at full cube rate and match the golden");
  });
  // The rounding of the two casts (docs/SK16.md#scale-and-rounding: RINT, ties
  // to even).
  for (MatmulOp mm : model.c2)
    for (Value operand : {mm.getLhs(), mm.getRhs()}) {
      for (Operation *producer : collectTileProducers(operand)) {
        auto cast = dyn_cast<CastOp>(producer);
        Type rounded =
            cast ? cast.getResult().getType().getElementType() : Type();
        if (!cast || !(rounded.isBF16() || rounded.isF16()))
          continue;
        CastMode mode = cast.getEffectiveMode();
        if (mode != CastMode::RINT)
          warning("SK16-R11", cast.getLoc(),
                  ("the cast to " + formatType(rounded) + " feeding " +
                   model.c2Role(mm) + " rounds with " +
                   stringifyCastMode(mode) +
                   "; SK-16 and its golden round to nearest even "
                   "(recommended value: RINT)")
                      .str(),
                  "set mode = #pto.round_mode<RINT> or drop the mode (RINT "
                  "is the default of f32 -> bf16 and f32 -> f16)");
        break;
      }
    }
}
