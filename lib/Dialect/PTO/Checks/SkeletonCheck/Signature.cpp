//===- Signature.cpp - the SK-16 signature and structure ------------------===//
//
// Finds the twelve SK-16 arguments by name (docs/SK16.md#signature) and
// recognises the products and the four loop levels semantically (see
// SkeletonCheck.cpp for how).
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

void mlir::pto::check::sk16::buildModel(Sk16Model &model) {
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

bool Sk16Checker::checkSignature() {
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
