//===- SkeletonCheck.cpp - SK-16 conformance checker ----------------------===//
//
// --pto-check-skeleton=sk16: one check per SK-16 coding rule (docs/SK16.md#coding-rules,
// R1..R14) plus docs/SK16.md#cross-attention-reshape. The kernel's structure is recognised
// semantically, never by SSA names (the parser drops them):
//
//  * arguments by their Python names (`arg_names`): q, k, v, o, do, l_input,
//    m_input, dq, dk, dv, actual_q, actual_kv (docs/SK16.md#signature);
//  * Q·Kᵀ is the matmul of a view of q and a view of k (through in-place
//    reshapes), dP the matmul of views of do and v, and the C2 matmuls the
//    others that consume tiles computed from S or dP;
//  * the four loop levels are the loops whose indices feed the view offsets:
//    batch reaches the q rows through `actual_q[b]`, head the q columns, s1
//    the q rows and s2 the k rows;
//  * V1 is what the C2 operands are computed from, V2 what consumes the C2
//    results.
//
//===----------------------------------------------------------------------===//

#include "CommonRules.h"
#include "RuleReporter.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace mlir::pto {
#define GEN_PASS_DEF_CHECKSKELETONPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;

namespace {

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

/// The pair of kernel arguments a matmul multiplies views of.
static std::pair<BlockArgument, BlockArgument> viewedOperands(MatmulOp mm) {
  return {getViewedArgument(mm.getLhs()), getViewedArgument(mm.getRhs())};
}

static bool multiplies(MatmulOp mm, BlockArgument a, BlockArgument b) {
  auto [lhs, rhs] = viewedOperands(mm);
  return a && b && ((lhs == a && rhs == b) || (lhs == b && rhs == a));
}

/// The first view of `arg`, or the operand of `mm` viewing it.
static ViewOp findView(Sk16Model &model, MatmulOp mm, BlockArgument arg) {
  if (mm)
    for (Value operand : {mm.getLhs(), mm.getRhs()})
      if (getViewedArgument(operand) == arg)
        return getViewOf(operand);
  ViewOp found;
  model.kernel.walk([&](ViewOp view) {
    if (!found && getViewedArgument(view.getResult()) == arg)
      found = view;
  });
  return found;
}

/// The loop owning the first loop index in `ivs`.
static Operation *firstLoop(const llvm::SetVector<Value> &ivs) {
  return ivs.empty() ? nullptr : getInductionVarOwner(ivs.front());
}

static void buildModel(Sk16Model &model) {
  KernelOp kernel = model.kernel;
  model.q = kernel.getArgumentByName("q");
  model.k = kernel.getArgumentByName("k");
  model.v = kernel.getArgumentByName("v");
  model.o = kernel.getArgumentByName("o");
  model.dO = kernel.getArgumentByName("do");
  model.l = kernel.getArgumentByName("l_input");
  model.m = kernel.getArgumentByName("m_input");
  model.dq = kernel.getArgumentByName("dq");
  model.dk = kernel.getArgumentByName("dk");
  model.dv = kernel.getArgumentByName("dv");
  model.actualQ = kernel.getArgumentByName("actual_q");
  model.actualKV = kernel.getArgumentByName("actual_kv");

  SmallVector<MatmulOp> others;
  kernel.walk([&](MatmulOp mm) {
    if (multiplies(mm, model.q, model.k))
      model.qk.push_back(mm);
    else if (multiplies(mm, model.dO, model.v))
      model.dov.push_back(mm);
    else
      others.push_back(mm);
  });
  for (MatmulOp mm : others) {
    bool fromScores = false;
    for (Value operand : {mm.getLhs(), mm.getRhs()})
      for (Operation *producer : collectTileProducers(operand))
        if (auto src = dyn_cast<MatmulOp>(producer))
          fromScores |= llvm::is_contained(model.qk, src) ||
                        llvm::is_contained(model.dov, src);
    if (fromScores)
      model.c2.push_back(mm);
  }

  MatmulOp first = model.qk.empty() ? MatmulOp() : model.qk.front();
  if (first)
    model.bodyLoop = first->getParentOfType<LoopOp>();
  ViewOp qView = findView(model, first, model.q);
  ViewOp kView = findView(model, first, model.k);
  if (qView) {
    SmallVector<MixedIndex> offsets =
        getMixed(qView.getStaticOffsets(), qView.getOffsets());
    model.batch.view = model.s1.view = model.head.view = qView;
    if (offsets.size() == 2) {
      if (offsets[0].value) {
        IndexDeps rows = collectIndexDeps(offsets[0].value);
        // The batch index reaches the rows through q_start = actual_q[b].
        bool readsActualQ = llvm::any_of(rows.reads, [&](Operation *read) {
          return getRootArgument(cast<ReadOp>(read).getTensor()) ==
                 model.actualQ;
        });
        if (readsActualQ)
          model.batch.loop = firstLoop(rows.viaRead);
        model.s1.loop = firstLoop(rows.direct);
      }
      if (offsets[1].value)
        model.head.loop = firstLoop(collectIndexDeps(offsets[1].value).direct);
    }
  }
  if (kView) {
    model.s2.view = kView;
    SmallVector<MixedIndex> offsets =
        getMixed(kView.getStaticOffsets(), kView.getOffsets());
    if (!offsets.empty() && offsets[0].value)
      model.s2.loop = firstLoop(collectIndexDeps(offsets[0].value).direct);
  }
}

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

class Sk16Checker {
public:
  Sk16Checker(KernelOp kernel, RuleReporter &reporter) : reporter(reporter) {
    model.kernel = kernel;
    model.platform = &getPlatformInfo(kernel.getArchOrDefault());
  }

  void run() {
    if (!checkSignature())
      return;
    buildModel(model);
    checkR1SinglePass();
    checkR2OneQK();
    checkR3Statistics();
    checkR4LoopLevels();
    checkR5AtomicOutputs();
    checkR6NoMasks();
    checkR7Scale();
    checkR8TileConfigs();
    checkR9DivPrecision();
    checkR10Reshapes();
    checkR11Bf16Operands();
    checkR12Scopes();
    checkR13CombineAxis();
    checkR14Options();
    checkP81KVTotal();
  }

private:
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

  //===--------------------------------------------------------------------===//
  // docs/SK16.md#signature: the 12 tensors, in order.
  //===--------------------------------------------------------------------===//
  static constexpr StringLiteral signatureNames[] = {
      "q",       "k",  "v",  "o",  "do",       "l_input",
      "m_input", "dq", "dk", "dv", "actual_q", "actual_kv"};

  bool checkSignature() {
    SmallVector<std::string> missing;
    for (StringRef name : signatureNames)
      if (!kernel().getArgumentByName(name))
        missing.push_back(("'" + name + "'").str());
    if (missing.empty())
      return true;
    error("SK16-SIG", kernel().getLoc(),
          "@" + kernel().getSymName() + " lacks the SK-16 argument" +
              (missing.size() > 1 ? "s " : " ") + llvm::join(missing, ", ") +
              "; the rules find q, k, v, o, do, l_input, m_input, dq, dk, dv, "
              "actual_q and actual_kv by name (docs/SK16.md#signature)",
          "name the kernel arguments after the SK-16 Python parameters, or "
          "check a non-SK-16 kernel with --pto-lint");
    return false;
  }

  //===--------------------------------------------------------------------===//
  // R1: "Single pass. S, P, dP, dS and all three gradients are produced
  // inside the same s2-tile loop."
  //===--------------------------------------------------------------------===//
  void checkR1SinglePass() {
    static constexpr StringLiteral fix =
        "single pass: compute S, dP, P, dS and the dQ, dK and dV updates in "
        "one s2 loop nested in one s1 loop (docs/SK16.md#loop-nest-and-views); a second sweep costs "
        "2x the KV traffic plus extra Q·Kᵀ work";
    // A second loop sweeping the same tiles: views of one tensor at the same
    // columns (the same head) whose rows advance with different loops.
    // Copies at other columns are replicated heads, which R4 reports.
    llvm::SetVector<Operation *> secondSweeps;
    auto checkSide = [&](StringRef side, auto isSide, Operation *primary) {
      llvm::MapVector<std::string, llvm::MapVector<Operation *, ViewOp>,
                      std::map<std::string, unsigned>>
          sweeps;
      kernel().walk([&](ViewOp view) {
        BlockArgument arg = getViewedArgument(view.getResult());
        if (!isSide(arg))
          return;
        SmallVector<MixedIndex> offsets =
            getMixed(view.getStaticOffsets(), view.getOffsets());
        if (offsets.empty() || !offsets[0].value)
          return;
        auto &loops = sweeps[(getArgumentName(arg) + getColumnKey(view)).str()];
        for (Value iv : collectIndexDeps(offsets[0].value).direct)
          loops.insert({getInductionVarOwner(iv), view});
      });
      for (auto &[key, loops] : sweeps) {
        if (loops.size() < 2)
          continue;
        // The first sweep is the one computing Q·Kᵀ when there is one.
        Operation *first = loops.count(primary) ? primary : loops.front().first;
        for (auto &[loop, view] : loops) {
          if (loop == first || !secondSweeps.insert(loop))
            continue;
          error("SK16-R1", loop->getLoc(),
                describeLoop(loop) + " sweeps the " + side +
                    " tiles a second time (it moves the view of " +
                    quoted(getViewedArgument(view.getResult())) + ")",
                fix)
              .note(first->getLoc(), "the first sweep over the " + side +
                                         " tiles is " + describeLoop(first));
        }
      }
    };
    checkSide(
        "K/V", [&](BlockArgument arg) { return model.isKVSide(arg); },
        model.s2.loop);
    checkSide(
        "Q/O/dO", [&](BlockArgument arg) { return model.isQSide(arg); },
        model.s1.loop);

    // Everything after S lives in a loop computing Q·Kᵀ. Ops inside a
    // flagged second sweep are already explained by it.
    if (model.qk.empty())
      return;
    auto explained = [&](Operation *op) {
      for (MatmulOp qk : model.qk)
        if (auto loop = qk->getParentOfType<LoopOp>();
            loop && loop->isProperAncestor(op))
          return true;
      return llvm::any_of(secondSweeps, [&](Operation *loop) {
        return loop->isProperAncestor(op);
      });
    };
    for (MatmulOp mm : llvm::concat<MatmulOp>(model.dov, model.c2))
      if (!explained(mm))
        error("SK16-R1", mm.getLoc(),
              "the matmul " + model.matmulRole(mm) +
                  " runs outside the s2 loop computing Q·Kᵀ",
              fix)
            .note(model.qk.front().getLoc(), "Q·Kᵀ is computed here");
    kernel().walk([&](Operation *op) {
      if (!isa<AtomicAddOp, AssembleOp>(op))
        return;
      BlockArgument dst = getRootArgument(op->getOperand(1));
      // In-kernel zeroing (a pto.full source) is R5's finding.
      if (!model.isGradient(dst) || explained(op) ||
          traceConstantTile(op->getOperand(0)))
        return;
      error("SK16-R1", op->getLoc(),
            quoted(dst) + " is written outside the s2 loop computing Q·Kᵀ", fix)
          .note(model.qk.front().getLoc(), "Q·Kᵀ is computed here");
    });
  }

  //===--------------------------------------------------------------------===//
  // R2: "One QKᵀ per (s1, s2) block pair."
  //===--------------------------------------------------------------------===//
  void checkR2OneQK() {
    if (model.qk.empty()) {
      error("SK16-R2", kernel().getLoc(),
            "no Q·Kᵀ: no pto.matmul multiplies a view of 'q' with a view of "
            "'k'",
            "compute S = pto.matmul %q_i, %k_j {b_trans} once per (s1, s2) "
            "tile pair, with q_i and k_j views of the reshaped q and k");
      return;
    }
    MatmulOp first = model.qk.front();
    // Same operands: views of q and k at the same columns (the same head).
    // Products for other heads are replicated head levels, which R4 reports.
    auto columns = [](MatmulOp mm) {
      return getColumnKey(getViewOf(mm.getLhs())) + "/" +
             getColumnKey(getViewOf(mm.getRhs()));
    };
    for (MatmulOp extra : llvm::drop_begin(model.qk)) {
      if (columns(extra) != columns(first))
        continue;
      error("SK16-R2", extra.getLoc(),
            "a second Q·Kᵀ (a product of views of 'q' and 'k' again): the "
            "dominant cube work is repeated",
            "reuse S of the first product; SK-16 computes one Q·Kᵀ per "
            "(s1, s2) block pair")
          .note(first.getLoc(), "the first Q·Kᵀ is here");
    }
    // A loop between the s2 level and Q·Kᵀ repeats it within a block pair.
    if (model.s2.loop && model.bodyLoop &&
        model.bodyLoop.getOperation() != model.s2.loop &&
        model.s2.loop->isProperAncestor(model.bodyLoop))
      error("SK16-R2", first.getLoc(),
            "Q·Kᵀ runs in " + describeLoop(model.bodyLoop) + " inside the s2 " +
                describeLoop(model.s2.loop) +
                ", so it is repeated within one block pair",
            "compute Q·Kᵀ directly in the s2 loop body")
          .note(model.bodyLoop.getLoc(), "the inner loop is here");
  }

  //===--------------------------------------------------------------------===//
  // R3: "Consume l and m from the inputs; never recompute them in the kernel."
  //===--------------------------------------------------------------------===//
  void checkR3Statistics() {
    checkRecomputedStatistics(kernel(), reporter, "SK16-R3");
    if (model.qk.empty())
      return;
    // Each input statistic must be broadcast against the scores (S - m,
    // E / l): a view of it used next to a tile computed from Q·Kᵀ.
    SmallVector<Value> products;
    for (MatmulOp mm : model.qk)
      products.push_back(mm.getResult());
    llvm::SetVector<Operation *> scores = collectTileConsumers(products);
    for (auto [statArg, what, formula] :
         {std::tuple{model.m, "row maximum m", "X = scale·S - m"},
          std::tuple{model.l, "softmax denominator l", "P = exp(X) / l"}}) {
      BlockArgument arg = statArg;
      bool used = false;
      ViewOp anyView;
      kernel().walk([&](ViewOp view) {
        if (getViewedArgument(view.getResult()) != arg)
          return;
        anyView = view;
        for (Operation *user : view->getUsers())
          used |= scores.contains(user);
      });
      if (used)
        continue;
      Location loc = anyView ? anyView.getLoc() : arg.getLoc();
      error("SK16-R3", loc,
            quoted(arg) + ", the forward " + what +
                ", is not applied to the scores of Q·Kᵀ",
            Twine("view it per Q tile as [s1_tile, 1] and use it: ") + formula +
                " (docs/SK16.md#m-and-l)")
          .note(model.qk.front().getLoc(), "Q·Kᵀ is computed here");
    }
  }

  //===--------------------------------------------------------------------===//
  // R4: "All four loops (batch, head, s1, s2) are pypto.loop with
  // name/idx_name; no Python for unrolling."
  //===--------------------------------------------------------------------===//
  void checkR4LoopLevels() {
    auto fixFor = [](StringRef level) -> std::string {
      if (level == "batch")
        return "loop over the batch with pto.loop \"LOOP_b_calc\" %b_idx = 0 "
               "to B and offset the rows by q_start = actual_q[b_idx]";
      if (level == "head")
        return "loop over the heads with pto.loop \"LOOP_n_calc\" %n_idx = 0 "
               "to N and offset the columns by n_idx·D";
      if (level == "s1")
        return "loop over the Q tiles with pto.loop \"LOOP_s1_dq\" %s1_idx = "
               "0 to ceil(s1 / s1_tile) and offset the rows by "
               "s1_idx·s1_tile";
      return "loop over the K/V tiles with pto.loop \"LOOP_s2_dq\" %s2_idx = "
             "0 to ceil(s2 / s2_tile) and offset the rows by s2_idx·s2_tile";
    };
    SmallVector<Level *> levels = {&model.batch, &model.head, &model.s1,
                                   &model.s2};
    SmallVector<Operation *> staticLevels;
    for (Level *level : levels) {
      if (!level->view)
        continue; // no view of q or k at all: R2 reports the missing Q·Kᵀ
      BlockArgument arg = getViewedArgument(level->view.getResult());
      if (!level->loop) {
        std::string how = level->name == "batch"
                              ? "reads no actual_q entry at a loop index"
                              : "depends on no loop index";
        std::string message = "the " + level->name.str() +
                              " level is missing or statically replicated: "
                              "the " +
                              level->offsetDim.str() +
                              " offset of the view of " + quoted(arg) + " " +
                              how;
        RuleDiagnostic &d = error("SK16-R4", level->view.getLoc(), message,
                                  fixFor(level->name));
        // Point at the copies of a replicated view.
        kernel().walk([&](ViewOp other) {
          if (other != level->view &&
              getViewedArgument(other.getResult()) == arg &&
              other.getType() == level->view.getType())
            d.note(other.getLoc(),
                   "another copy of the view of " + quoted(arg) + " is here");
        });
        continue;
      }
      if (isa<LoopOp>(level->loop))
        continue;
      staticLevels.push_back(level->loop);
      error("SK16-R4", level->loop->getLoc(),
            "the " + level->name + " level is " + describeLoop(level->loop) +
                ", not a pto.loop: PyPTO unrolls a Python loop when "
                "tracing, replicating the body per iteration",
            fixFor(level->name));
    }
    // One loop per level.
    for (unsigned i = 0; i < levels.size(); ++i)
      for (unsigned j = i + 1; j < levels.size(); ++j)
        if (levels[i]->loop && levels[i]->loop == levels[j]->loop)
          error("SK16-R4", levels[i]->loop->getLoc(),
                describeLoop(levels[i]->loop) + " drives both the " +
                    levels[i]->name + " and the " + levels[j]->name + " level",
                "give each of batch, head, s1 and s2 its own pto.loop");
    checkStaticLoops(kernel(), reporter, "SK16-R4", staticLevels);
  }

  //===--------------------------------------------------------------------===//
  // R5: "Write dQ, dK and dV with atomic_add straight to GM, into outputs
  // zeroed by the host; no in-kernel zeroing or assemble."
  //===--------------------------------------------------------------------===//
  void checkR5AtomicOutputs() {
    for (BlockArgument out : {model.dq, model.dk, model.dv}) {
      bool written = false;
      kernel().walk([&](Operation *op) {
        if (auto view = dyn_cast<ViewOp>(op)) {
          if (getViewedArgument(view.getResult()) == out)
            error("SK16-R5", op->getLoc(),
                  "the kernel reads the output " + quoted(out) +
                      " back (a read-modify-write of partial gradients)",
                  "accumulate with pto.atomic_add into the host-zeroed "
                  "output; never read it in the kernel");
          return;
        }
        if (!isa<AtomicAddOp, AssembleOp>(op) ||
            getRootArgument(op->getOperand(1)) != out)
          return;
        written = true;
        if (FullOp full = traceConstantTile(op->getOperand(0))) {
          error("SK16-R5", op->getLoc(),
                "in-kernel initialisation of " + quoted(out) + ": '" +
                    op->getName().getStringRef() +
                    "' writes the constant tile of pto.full " +
                    formatConstant(full.getValueAttr().getValueAsDouble()),
                "drop it: the host zeroes " + quoted(out) +
                    " (torch.zeros) and the kernel only atomic_adds into it")
              .note(full.getLoc(), "the constant tile is built here");
          return;
        }
        if (isa<AssembleOp>(op)) {
          error("SK16-R5", op->getLoc(),
                "pto.assemble overwrites " + quoted(out) +
                    ": the partial gradients of the other tiles are lost",
                "write with pto.atomic_add, which accumulates the "
                "contributions of every tile into the host-zeroed output");
          return;
        }
      });
      if (!written)
        error("SK16-R5", out.getLoc(),
              "the output " + quoted(out) +
                  " is never written with pto.atomic_add",
              "accumulate each tile's contribution with pto.atomic_add "
              "%tile, %" +
                  getArgumentName(out) + "[row, h_ofs] in scope 2");
    }
  }

  //===--------------------------------------------------------------------===//
  // R6: "No manual masks. Tails are expressed only through view(...,
  // valid_shape=...)."
  //===--------------------------------------------------------------------===//
  void checkR6NoMasks() {
    checkManualMasks(kernel(), reporter, "SK16-R6");
    checkTailViews(kernel(), reporter, "SK16-R6");
    checkMaskInputs();
  }

  /// A tile of a kernel argument outside the SK-16 signature combined with
  /// the scores (S or dP, through any vector ops, casts and views): a mask
  /// passed in as a tensor. [1, 1] tiles are scalars, which R7 judges.
  void checkMaskInputs() {
    SmallVector<Value> products;
    for (MatmulOp mm : llvm::concat<MatmulOp>(model.qk, model.dov))
      products.push_back(mm.getResult());
    if (products.empty())
      return;
    llvm::SetVector<Operation *> fromScores = collectTileConsumers(products);
    for (Operation *op : fromScores) {
      if (!isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op))
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
  void checkR7Scale() {
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
  // R8: "Tile configurations are compile-time constants."
  //===--------------------------------------------------------------------===//
  void checkR8TileConfigs() { checkTileConfigs(kernel(), reporter, "SK16-R8"); }

  //===--------------------------------------------------------------------===//
  // R9: "div uses PrecisionType.INTRINSIC."
  //===--------------------------------------------------------------------===//
  void checkR9DivPrecision() {
    kernel().walk([&](DivOp div) {
      if (div.getPrecision() == PrecisionType::INTRINSIC)
        return;
      StringRef arch = stringifyArch(model.platform->arch);
      static constexpr StringLiteral fix =
          "set precision = #pto.precision<INTRINSIC> (pto.div defaults to "
          "HIGH_PRECISION, like pypto.div)";
      if (!model.platform->supportsHighPrecision)
        error(
            "SK16-R9", div.getLoc(),
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
  // R10: "3-D→2-D reshape(..., inplace=True) at kernel entry."
  //===--------------------------------------------------------------------===//
  void checkR10Reshapes() {
    for (BlockArgument arg :
         {model.q, model.k, model.v, model.o, model.dO, model.l, model.m}) {
      auto type = cast<GMTensorType>(arg.getType());
      if (type.getRank() != 3)
        continue;
      int64_t merged = ShapedType::isDynamic(type.getDimSize(1)) ||
                               ShapedType::isDynamic(type.getDimSize(2))
                           ? ShapedType::kDynamic
                           : type.getDimSize(1) * type.getDimSize(2);
      std::string want = merged == ShapedType::kDynamic
                             ? std::string("[total, N·D]")
                             : "[total, " + std::to_string(merged) + "]";
      // Follow chains of reshapes: an in-place reshape done in steps is
      // judged by the alias the kernel uses (a reshape whose users are only
      // further reshapes is an intermediate step).
      SmallVector<Value> worklist = {arg};
      while (!worklist.empty()) {
        Value tensor = worklist.pop_back_val();
        for (Operation *user : tensor.getUsers()) {
          if (isa<DimOp>(user))
            continue;
          auto reshape = dyn_cast<ReshapeOp>(user);
          if (!reshape) {
            if (tensor != arg)
              continue; // a use of an alias, judged at its reshape
            error("SK16-R10", user->getLoc(),
                  ("'" + user->getName().getStringRef() + "' uses the 3-D " +
                   quoted(arg) + " directly")
                      .str(),
                  "reshape " + quoted(arg) + " in place to " + want +
                      " at kernel entry and use the 2-D alias");
            continue;
          }
          checkReshape(reshape, arg, merged, want);
          bool intermediate =
              !reshape->use_empty() &&
              llvm::all_of(reshape->getUsers(),
                           llvm::IsaPred<ReshapeOp, DimOp>);
          if (intermediate)
            worklist.push_back(reshape.getResult());
          else
            checkReshapeShape(reshape, arg, merged, want);
        }
      }
    }
  }

  /// The reshape is in place and at kernel entry.
  void checkReshape(ReshapeOp reshape, BlockArgument arg, int64_t merged,
                    const std::string &want) {
    if (!reshape.getInplace())
      error("SK16-R10", reshape.getLoc(),
            "the reshape of " + quoted(arg) + " copies (no 'inplace')",
            "add 'inplace': the 2-D alias is zero copy");
    if (reshape->getParentOp() != kernel().getOperation()) {
      Operation *loop = reshape->getParentOfType<LoopOp>();
      RuleDiagnostic &d = error(
          "SK16-R10", reshape.getLoc(),
          "the reshape of " + quoted(arg) +
              " is not at kernel entry: it runs in every iteration of "
              "its enclosing loop",
          "hoist the in-place reshape to the kernel entry, before the "
          "batch loop");
      if (loop)
        d.note(loop->getLoc(), "the enclosing " + describeLoop(loop) + " is here");
    }
  }

  /// The alias the kernel uses is [total, N·D].
  void checkReshapeShape(ReshapeOp reshape, BlockArgument arg, int64_t merged,
                         const std::string &want) {
    GMTensorType result = reshape.getResult().getType();
    if (result.getRank() == 2 &&
        (merged == ShapedType::kDynamic || result.getDimSize(1) == merged))
      return;
    std::string got;
    llvm::raw_string_ostream os(got);
    os << result;
    error("SK16-R10", reshape.getLoc(),
          "reshapes " + quoted(arg) + " to " + got +
              "; the per-head column slicing needs " + want,
          "reshape to " + want +
              " (heads interleaved along the "
              "columns, head h at columns [h·D, (h+1)·D))");
  }

  //===--------------------------------------------------------------------===//
  // R11: "dS and P are cast to BF16 before C2." FP16 is accepted in place of
  // BF16 (the same kernel in the other 16-bit format: full cube rate, and the
  // variant pto-isa's CPU simulator runs, docs/SK16.md#fp16-variant).
  //===--------------------------------------------------------------------===//
  void checkR11Bf16Operands() {
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
    // The rounding of the two casts (docs/SK16.md#scale-and-rounding: RINT, ties to even).
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
                     model.c2Role(mm) +
                     " rounds with " + stringifyCastMode(mode) +
                     "; SK-16 and its golden round to nearest even "
                     "(recommended value: RINT)")
                        .str(),
                    "set mode = #pto.round_mode<RINT> or drop the mode (RINT "
                    "is the default of f32 -> bf16 and f32 -> f16)");
          break;
        }
      }
  }

  //===--------------------------------------------------------------------===//
  // R12: "sg_set_scope=1 around V1 and 2 around V2, reset to −1 after each.
  // On A2/A3 ... the scopes must not enclose any matmul."
  //===--------------------------------------------------------------------===//
  void checkR12Scopes() {
    llvm::SetVector<Operation *> v1, v2;
    SmallVector<Value> c2Results;
    for (MatmulOp mm : model.c2) {
      for (Value operand : {mm.getLhs(), mm.getRhs()})
        for (Operation *op : collectTileProducers(operand))
          if (isVectorOp(op))
            v1.insert(op);
      c2Results.push_back(mm.getResult());
    }
    for (Operation *op : collectTileConsumers(c2Results))
      if (isVectorOp(op))
        v2.insert(op);

    // Program order, so "the first op" of a stage is the first in the text.
    DenseMap<Operation *, unsigned> order;
    kernel().walk([&](Operation *op) { order[op] = order.size(); });
    auto byOrder = [&](Operation *a, Operation *b) {
      return order.lookup(a) < order.lookup(b);
    };
    auto moreOps = [](StringRef stage, size_t n) -> std::string {
      return n > 1 ? " and " + std::to_string(n - 1) + " more " + stage.str() +
                         " ops"
                   : std::string();
    };

    // One finding per stage and place: the stage outside any scope, or
    // (part of) it in a scope of the wrong id.
    auto checkStage = [&](StringRef stage, llvm::SetVector<Operation *> &ops,
                          int64_t id, int64_t otherId) {
      SmallVector<Operation *> sorted(ops.begin(), ops.end());
      llvm::sort(sorted, byOrder);
      SmallVector<Operation *> unscoped;
      // Ops in a scope of the wrong id, by scope (a region, or the id of
      // stamped ops on IR after pto-flatten-scopes).
      llvm::MapVector<std::pair<Operation *, int64_t>, SmallVector<Operation *>>
          wrongScope;
      for (Operation *op : sorted) {
        ScopeOp region;
        ScopeAttr scope = getScopeOf(op, &region);
        if (!scope)
          unscoped.push_back(op);
        else if (scope.getId() != id)
          wrongScope[{region, scope.getId()}].push_back(op);
      }
      StringRef otherStage = otherId == 1 ? "V1" : "V2";
      for (auto &[key, inScope] : wrongScope) {
        auto [region, got] = key;
        std::string what = "the " + stage.str() + " op '" +
                           inScope.front()->getName().getStringRef().str() +
                           "'" + moreOps(stage, inScope.size()) + " " +
                           (inScope.size() > 1 ? "are" : "is") + " in scope " +
                           std::to_string(got);
        RuleDiagnostic &d =
            got == otherId
                ? error("SK16-R12", inScope.front()->getLoc(),
                        what + ": scope " + std::to_string(got) +
                            " is not closed after " + otherStage,
                        "close scope " + std::to_string(otherId) + " after " +
                            otherStage + " (sg_set_scope=-1) and put " + stage +
                            " in its own pto.scope #pto.scope<id = " +
                            std::to_string(id) + ">")
                : error("SK16-R12", inScope.front()->getLoc(),
                        what + "; SK-16 puts " + stage + " in scope " +
                            std::to_string(id),
                        "use pto.scope #pto.scope<id = " + std::to_string(id) +
                            "> for " + stage);
        if (region)
          d.note(region->getLoc(), "the scope is here");
      }
      if (!unscoped.empty())
        error("SK16-R12", unscoped.front()->getLoc(),
              "the " + stage + " op '" +
                  unscoped.front()->getName().getStringRef() + "'" +
                  moreOps(stage, unscoped.size()) +
                  (unscoped.size() > 1 ? " are" : " is") +
                  " outside any scope: without sg_set_scope=" +
                  std::to_string(id) + " the " + stage +
                  " chain splits into small vector subgraphs",
              "wrap the " + stage + " chain in pto.scope #pto.scope<id = " +
                  std::to_string(id) + "> { ... }");
    };
    // docs/SK16.md#the-950-variant: on architectures with mixed scopes the
    // whole body may sit in one cube+vector MIX scope; V1 and V2 then share
    // the scope of Q·Kᵀ.
    bool oneMixScope = false;
    if (model.platform->mixedScopes && !model.qk.empty()) {
      ScopeOp qkRegion;
      if (ScopeAttr qkScope = getScopeOf(model.qk.front(), &qkRegion))
        oneMixScope = llvm::all_of(
            llvm::concat<Operation *const>(v1, v2), [&](Operation *op) {
              ScopeOp region;
              ScopeAttr scope = getScopeOf(op, &region);
              return scope && scope.getId() == qkScope.getId() &&
                     region == qkRegion;
            });
    }
    if (!oneMixScope) {
      checkStage("V1", v1, 1, 2);
      checkStage("V2", v2, 2, 1);
    }

    if (model.platform->mixedScopes)
      return;
    llvm::MapVector<std::pair<Operation *, int64_t>, SmallVector<MatmulOp>>
        cubeInScope;
    kernel().walk([&](MatmulOp mm) {
      ScopeOp region;
      if (ScopeAttr scope = getScopeOf(mm, &region))
        cubeInScope[{region, scope.getId()}].push_back(mm);
    });
    for (auto &[key, matmuls] : cubeInScope) {
      auto [region, id] = key;
      std::string more =
          matmuls.size() > 1
              ? " (and " + std::to_string(matmuls.size() - 1) + " more matmuls)"
              : std::string();
      RuleDiagnostic &d = error(
          "SK16-R12", matmuls.front().getLoc(),
          "the matmul " + model.matmulRole(matmuls.front()) + more +
              " is inside scope " + std::to_string(id) + ": on " +
              stringifyArch(model.platform->arch).str() +
              " SK-16's scopes hold the vector stages only and the C stages "
              "run unscoped",
          "move the matmuls out of the scope");
      if (region)
        d.note(region->getLoc(), "the scope is here");
    }
  }

  //===--------------------------------------------------------------------===//
  // R13: "combine_axis=True as the first statement of the body."
  //===--------------------------------------------------------------------===//
  void checkR13CombineAxis() {
    static constexpr StringLiteral fix =
        "set combine_axis = true in the kernel attributes "
        "(set_operation_options(combine_axis=True) as the first statement)";
    std::optional<bool> combine = kernel().getCombineAxis();
    if (!combine)
      warning("SK16-R13", kernel().getLoc(),
              "combine_axis is not set (PyPTO's default is unsettled: the doc "
              "says false, the framework config true); SK-16 sets it "
              "(recommended value: true) so the [M, 1] broadcasts of m, l "
              "and Dvec are inlined with brcb",
              fix);
    else if (!*combine)
      error("SK16-R13", kernel().getLoc(),
            "combine_axis = false materialises the [M, 1] broadcasts of m, l "
            "and Dvec as full [s1_tile, s2_tile] tiles",
            fix);
  }

  //===--------------------------------------------------------------------===//
  // R14: "Mandated options: stitch_function_max_num=512, device_sched_mode=3,
  // ready_on_host_tensors=["actual_q","actual_kv"], a platform-measured
  // max_workspace_kb (A3: 25 170 624), and cube_l1_reuse_setting={-1:1, 0:4}."
  // The 950 variant's options (docs/SK16.md#the-950-variant) are recommended on DAV_3510.
  //===--------------------------------------------------------------------===//
  struct MergeEntry {
    int64_t key, count;
  };

  static std::string formatMerge(MergeSettingAttr attr) {
    if (!attr)
      return "not set";
    std::string s = "{";
    for (size_t i = 0; i < attr.getKeys().size(); ++i) {
      if (i)
        s += ", ";
      s += std::to_string(attr.getKeys()[i]) + " : " +
           std::to_string(attr.getCounts()[i]);
      // MergeSettingAttr's side codes: 1 left, 2 right, 3 auto.
      static constexpr StringLiteral sides[] = {"", "left", "right", "auto"};
      int64_t side = attr.getSides()[i];
      if (side > 0 && side < 4)
        s += " (\"" + sides[side].str() + "\" side)";
    }
    return s + "}";
  }

  /// Whether `attr` holds exactly the entries of `want`, in any order.
  static bool mergeEquals(MergeSettingAttr attr, ArrayRef<MergeEntry> want) {
    if (!attr || attr.getKeys().size() != want.size())
      return false;
    for (MergeEntry entry : want) {
      auto it = llvm::find(attr.getKeys(), entry.key);
      if (it == attr.getKeys().end())
        return false;
      size_t i = it - attr.getKeys().begin();
      if (attr.getCounts()[i] != entry.count || attr.getSides()[i] != 0)
        return false;
    }
    return true;
  }

  static std::string formatWant(ArrayRef<MergeEntry> want) {
    std::string s = "{";
    for (auto [i, entry] : llvm::enumerate(want))
      s += (i ? ", " : "") + std::to_string(entry.key) + " : " +
           std::to_string(entry.count);
    return s + "}";
  }

  void checkR14Options() {
    bool a3 = model.platform->arch == Arch::DAV_2201;
    StringRef variant = a3 ? "the A3 kernel (DAV_2201)" : "the 950 kernel";
    RuntimeOptionsAttr runtime = kernel().getRuntimeOptionsAttr();
    PassOptionsAttr passes = kernel().getPassOptionsAttr();
    Location loc = kernel().getLoc();

    auto checkInt = [&](StringRef name, std::optional<int64_t> got,
                        int64_t want, StringRef why) {
      if (got && *got == want)
        return;
      std::string gotText =
          got ? "is " + std::to_string(*got) : std::string("is not set");
      warning("SK16-R14", loc,
              "runtime option " + name + " " + gotText + "; " + variant +
                  " uses " + std::to_string(want) +
                  " (recommended value: " + std::to_string(want) + "): " + why,
              "set runtime_options = #pto.runtime_options<" + name + " = " +
                  std::to_string(want) + ", ...>");
    };
    auto checkMerge = [&](StringRef name, MergeSettingAttr got,
                          ArrayRef<MergeEntry> want, StringRef why) {
      if (mergeEquals(got, want))
        return;
      warning("SK16-R14", loc,
              "pass option " + name + " is " + formatMerge(got) + "; " +
                  variant + " uses " + formatWant(want) +
                  " (recommended value: " + formatWant(want) + "): " + why,
              "set pass_options = #pto.pass_options<" + name + " = " +
                  formatWant(want) + ">");
    };

    auto get = [&](auto getter) -> std::optional<int64_t> {
      if (!runtime)
        return std::nullopt;
      return getter(runtime);
    };
    checkInt("stitch_function_max_num", get([](RuntimeOptionsAttr r) {
               return r.getStitchFunctionMaxNum();
             }),
             a3 ? 512 : 513,
             "single-pass gradient subgraphs are big and a smaller stitch "
             "fragments them");
    checkInt("device_sched_mode",
             get([](RuntimeOptionsAttr r) { return r.getDeviceSchedMode(); }),
             a3 ? 3 : 1,
             a3 ? "L2-affinity plus fairness schedules the many parallel "
                  "matmuls"
                : "L2-affinity scheduling");
    if (a3)
      checkInt("max_workspace_kb",
               get([](RuntimeOptionsAttr r) { return r.getMaxWorkspaceKb(); }),
               25170624,
               "the A3-measured workspace enables memory-driven stitching");

    // ready_on_host_tensors must list the control tensors.
    SmallVector<std::string> missing;
    ArrayAttr ready = runtime ? runtime.getReadyOnHostTensors() : ArrayAttr();
    for (StringRef name : {"actual_q", "actual_kv"})
      if (!ready || !llvm::any_of(ready, [&](Attribute a) {
            return cast<StringAttr>(a).getValue() == name;
          }))
        missing.push_back(("'" + name + "'").str());
    if (!missing.empty())
      warning("SK16-R14", loc,
              "runtime option ready_on_host_tensors lacks " +
                  llvm::join(missing, " and ") + "; " + variant +
                  " lists both (recommended value: [\"actual_q\", "
                  "\"actual_kv\"]): their values steer the loops, and host "
                  "readiness removes dispatch-wait bubbles",
              "set runtime_options = #pto.runtime_options<"
              "ready_on_host_tensors = [\"actual_q\", \"actual_kv\"], ...>");

    MergeSettingAttr l1Reuse =
        passes ? passes.getCubeL1ReuseSetting() : MergeSettingAttr();
    if (a3) {
      checkMerge("cube_l1_reuse_setting", l1Reuse, {{-1, 1}, {0, 4}},
                 "reuses cube L1 loads of group 0 four at a time across "
                 "C1/C2 and leaves the others unmerged");
    } else {
      checkMerge("cube_l1_reuse_setting", l1Reuse, {{-1, 16}},
                 "merges the 950's cube subgraphs 16 at a time");
      checkMerge("vec_nbuffer_setting",
                 passes ? passes.getVecNbufferSetting() : MergeSettingAttr(),
                 {{-2, 1}, {-1, 16}},
                 "manual multi-input merging, 16 vector subgraphs per group");
    }
  }

  //===--------------------------------------------------------------------===//
  // docs/SK16.md#cross-attention-reshape: the reference kernels reshape k
  // and v with total = q.shape[0], wrong for cross-attention.
  //===--------------------------------------------------------------------===//
  void checkP81KVTotal() {
    // The tensors with total_q rows and those with total_kv rows (inputs and
    // outputs alike).
    auto qRows = [&](BlockArgument arg) {
      return model.isQSide(arg) || (arg && arg == model.dq);
    };
    auto kvRows = [&](BlockArgument arg) {
      return model.isKVSide(arg) || (arg && (arg == model.dk || arg == model.dv));
    };
    kernel().walk([&](ReshapeOp reshape) {
      BlockArgument arg = getRootArgument(reshape.getSource());
      bool kvSide = kvRows(arg), qSide = qRows(arg);
      if (!kvSide && !qSide)
        return;
      SmallVector<MixedIndex> shape =
          getMixed(reshape.getStaticShape(), reshape.getShape());
      if (shape.empty() || !shape.front().value)
        return;
      // The row count by value: any pto.dim it is computed from (through
      // arithmetic, not through a pto.read's indices).
      DimOp wrong;
      SmallVector<Value> worklist = {shape.front().value};
      DenseSet<Value> visited;
      while (!worklist.empty() && !wrong) {
        Value v = worklist.pop_back_val();
        if (!visited.insert(v).second)
          continue;
        Operation *def = v.getDefiningOp();
        if (!def || isa<ReadOp>(def) || def->getNumRegions())
          continue;
        if (auto dim = dyn_cast<DimOp>(def)) {
          BlockArgument from = getRootArgument(dim.getSource());
          if (dim.getDim() == 0 && from && (kvSide ? qRows(from) : kvRows(from)))
            wrong = dim;
          continue;
        }
        for (Value operand : def->getOperands())
          if (operand.getType().isIntOrIndex())
            worklist.push_back(operand);
      }
      if (!wrong)
        return;
      BlockArgument from = getRootArgument(wrong.getSource());
      // An error, not a warning: the kernel computes wrong gradients on
      // every cross-attention call its signature allows.
      error("SK16-P8.1", reshape.getLoc(),
              "the reshape of " + quoted(arg) + " takes its row count from " +
                  quoted(from) + ": wrong for cross attention, where " +
                  (kvSide ? "total_kv != total_q" : "total_q != total_kv") +
                  " (docs/SK16.md#cross-attention-reshape)",
              "reshape " + quoted(arg) + " with the " +
                  (kvSide ? "K/V" : "Q") + "-side total, pto.dim %" +
                  getArgumentName(kvSide ? model.k : model.q) + ", 0")
          .note(wrong.getLoc(),
                "the row count for " + quoted(arg) + " is taken here");
    });
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct CheckSkeletonPass
    : public pto::impl::CheckSkeletonPassBase<CheckSkeletonPass> {
  using CheckSkeletonPassBase::CheckSkeletonPassBase;

  /// `--pto-check-skeleton=sk16`: a leading bare word names the skeleton.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(
            expandPositionalOption(options, "skeleton"), errorHandler)))
      return failure();
    if (skeleton != "sk16")
      return errorHandler("pto-check-skeleton: unknown skeleton '" + skeleton +
                          "'; known skeletons: sk16");
    return success();
  }

  void runOnOperation() override {
    RuleReporter reporter;
    getOperation().walk(
        [&](KernelOp kernel) { Sk16Checker(kernel, reporter).run(); });
    reporter.emit();
    if (!json.empty()) {
      std::string errorMessage;
      if (failed(reporter.writeJSON(json, errorMessage))) {
        getOperation().emitError() << "pto-check-skeleton: cannot write '"
                                   << json << "': " << errorMessage;
        return signalPassFailure();
      }
    }
    markAllAnalysesPreserved();
    if (reporter.hasErrors())
      signalPassFailure();
  }
};

} // namespace
