//===- SyncOps.cpp - pto_isa flags and cross-core synchronisation ---------===//
//
// Verifiers of set_flag / wait_flag between pipes and of the intra-block
// flags between the AIC and the AIVs of a MIX block.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::ptoisa;

template <typename Op> static LogicalResult verifyFlag(Op op) {
  if (op.getSrc() == Pipe::ALL || op.getDst() == Pipe::ALL)
    return op.emitOpError() << "flags connect two real pipes; use "
                               "pto_isa.pipe_barrier ALL for a full barrier";
  if (op.getSrc() == op.getDst())
    return op.emitOpError() << "a flag from " << stringifyPipe(op.getSrc())
                            << " to itself orders nothing; use "
                               "pto_isa.pipe_barrier "
                            << stringifyPipe(op.getSrc());
  return success();
}

LogicalResult SetFlagOp::verify() { return verifyFlag(*this); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this); }

/// The core kind of the leaf holding `op` (`pto.leaf`), if any.
static std::optional<pto::CoreKind> leafKindOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto kind =
      func ? func->getAttrOfType<pto::CoreKindAttr>("pto.leaf") : nullptr;
  if (!kind)
    return std::nullopt;
  return kind.getValue();
}

/// The AIV part of a split MIX leaf: a vector leaf linked to its AIC.
static bool isMixAiv(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return leafKindOf(op) == pto::CoreKind::vector &&
         func->hasAttr(kMixAicAttrName);
}

/// An AIV addresses its own flags 0..15 only (the AIC's 16..31 are AIV 1's).
static LogicalResult expectAivFlag(Operation *op, int64_t id) {
  if (id < 16)
    return success();
  return op->emitOpError() << "uses flag " << id
                           << " on an AIV, which has flags 0..15 (the AIC "
                              "addresses AIV 1's as 16..31)";
}

LogicalResult SetIntraBlockOp::verify() {
  // The AIV signals a freed ring slot to its AIC.
  if (isMixAiv(*this))
    return expectAivFlag(*this, getId());
  if (leafKindOf(*this) != pto::CoreKind::mix)
    return emitOpError() << "signals between the cores of a MIX block; it "
                            "belongs in the AIC part of a MIX leaf (pto.leaf "
                            "= #pto.core<mix>) or its AIV part, which "
                            "pto-isa-split-mix forms";
  if (getPipe() == Pipe::V)
    return emitOpError() << "is issued by the AIC, which has no V pipe; set "
                            "it on the pipe of the instruction it follows "
                            "(FIX after an L0C -> UB tmov)";
  return success();
}

LogicalResult WaitIntraBlockOp::verify() {
  // The AIC waits for a ring slot its AIV freed; the AIV for a move.
  if (isMixAiv(*this))
    return expectAivFlag(*this, getId());
  if (leafKindOf(*this) == pto::CoreKind::mix)
    return success();
  return emitOpError() << "waits for another core of a MIX block; it belongs "
                          "in the vector part of a MIX leaf (a vector leaf "
                          "with '"
                       << kMixAicAttrName
                       << "') or its AIC part, which pto-isa-split-mix forms";
}
