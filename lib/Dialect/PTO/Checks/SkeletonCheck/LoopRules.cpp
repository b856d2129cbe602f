//===- LoopRules.cpp - SK-16 rules R1-R5 ----------------------------------===//
//
// The loop nest and its sweeps: a single pass, one Q·Kᵀ per block pair,
// statistics read not recomputed, the four loop levels, atomic outputs.
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
// R1: "Single pass. S, P, dP, dS and all three gradients are produced
// inside the same s2-tile loop."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR1SinglePass() {
  static constexpr StringLiteral fix =
      "single pass: compute S, dP, P, dS and the dQ, dK and dV updates in "
      "one s2 loop nested in one s1 loop (docs/SK16.md#loop-nest-and-views); a "
      "second sweep costs "
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
void Sk16Checker::checkR2OneQK() {
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
void Sk16Checker::checkR3Statistics() {
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
void Sk16Checker::checkR4LoopLevels() {
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
                            level->offsetDim.str() + " offset of the view of " +
                            quoted(arg) + " " + how;
      RuleDiagnostic &d =
          error("SK16-R4", level->view.getLoc(), message, fixFor(level->name));
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
void Sk16Checker::checkR5AtomicOutputs() {
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
