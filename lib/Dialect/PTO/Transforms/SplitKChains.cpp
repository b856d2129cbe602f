//===- SplitKChains.cpp - cut cube tasks' K chains into partial sums -----===//

#include "SplitKChains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::pto;

namespace {

/// A cube task's matmul chain (matmul, then matmul_acc on the previous
/// result) and the assemble storing its end.
struct Chain {
  SmallVector<Operation *> steps;
  AssembleOp store;
};

/// The GM view feeding a step's rhs (B) directly, if any.
ViewOp rhsView(Operation *step) {
  Value rhs = isa<MatmulOp>(step) ? cast<MatmulOp>(step).getRhs()
                                  : cast<MatmulAccOp>(step).getRhs();
  auto view = rhs.getDefiningOp<ViewOp>();
  if (!view || !isa<GMTensorType>(view.getSource().getType()) ||
      !view.getResult().hasOneUse())
    return {};
  return view;
}

bool bTrans(Operation *step) {
  return isa<MatmulOp>(step) ? cast<MatmulOp>(step).getBTrans()
                             : cast<MatmulAccOp>(step).getBTrans();
}

std::optional<Chain> chainOf(TaskOp task, unsigned parts) {
  Chain chain;
  for (Operation &op : task.getBody().front().without_terminator()) {
    if (isa<MatmulOp>(op)) {
      if (!chain.steps.empty())
        return std::nullopt;
      chain.steps.push_back(&op);
    } else if (auto acc = dyn_cast<MatmulAccOp>(op)) {
      if (chain.steps.empty() ||
          acc.getAcc() != chain.steps.back()->getResult(0))
        return std::nullopt;
      chain.steps.push_back(&op);
    } else if (auto store = dyn_cast<AssembleOp>(op)) {
      if (chain.store)
        return std::nullopt;
      chain.store = store;
    } else if (!isa<ViewOp>(op) &&
               (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))) {
      return std::nullopt;
    }
  }
  if (chain.steps.size() < 2 || chain.steps.size() % parts || !chain.store ||
      chain.store.getSrc() != chain.steps.back()->getResult(0) ||
      !cast<TileType>(chain.store.getSrc().getType()).getElementType().isF32())
    return std::nullopt;
  for (Operation *step : chain.steps)
    if (!step->getResult(0).hasOneUse())
      return std::nullopt;
  // The steps of later parts get a guard on their B views (`keepSteps`).
  unsigned per = chain.steps.size() / parts;
  for (unsigned i = per; i < chain.steps.size(); ++i)
    if (!rhsView(chain.steps[i]))
      return std::nullopt;
  return chain;
}

/// The valid extents of a view, static ones as attributes.
SmallVector<OpFoldResult> validOf(ViewOp view) {
  SmallVector<OpFoldResult> valid;
  if (std::optional<ArrayRef<int64_t>> statics = view.getStaticValidShape()) {
    unsigned next = 0;
    for (int64_t s : *statics)
      valid.push_back(ShapedType::isDynamic(s)
                          ? OpFoldResult(view.getValidShape()[next++])
                          : OpFoldResult(IntegerAttr::get(
                                IndexType::get(view.getContext()), s)));
  } else {
    for (int64_t s : view.getResult().getType().getShape())
      valid.push_back(IntegerAttr::get(IndexType::get(view.getContext()), s));
  }
  return valid;
}

Value valueOf(OpBuilder &b, Location loc, OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v))
    return arith::ConstantIndexOp::create(b, loc,
                                          cast<IntegerAttr>(attr).getInt());
  return cast<Value>(v);
}

/// Whether the K range starting at `first` (a step of a later part) may be
/// empty: an `i1` that is true when it is not, or null if K is statically
/// non-empty there.
Value nonEmptyK(Operation *first) {
  ViewOp view = rhsView(first);
  OpFoldResult k = validOf(view)[bTrans(first) ? 1 : 0];
  if (auto attr = dyn_cast<Attribute>(k);
      attr && cast<IntegerAttr>(attr).getInt() > 0)
    return {};
  OpBuilder b(view);
  Location loc = view.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                               valueOf(b, loc, k), zero);
}

/// Restricts `view` (a step's B operand) to no valid N columns unless
/// `nonEmpty`: a part whose K range lies past the valid extent then
/// computes and stores nothing (pto-isa's TMATMUL needs k >= 1, and the
/// emitted program skips an empty product, leaving the accumulator as it
/// was). Every step of the part gets the same guard, so that the chain's
/// valid extents agree.
void guardEmptyK(ViewOp view, bool transposed, Value nonEmpty) {
  SmallVector<OpFoldResult> valid = validOf(view);
  unsigned nDim = transposed ? 0 : 1;
  OpBuilder b(view);
  Location loc = view.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  valid[nDim] = arith::SelectOp::create(b, loc, nonEmpty,
                                        valueOf(b, loc, valid[nDim]), zero)
                    .getResult();
  SmallVector<Value> dynamicValid;
  SmallVector<int64_t> staticValid;
  for (OpFoldResult v : valid) {
    if (auto attr = dyn_cast<Attribute>(v)) {
      staticValid.push_back(cast<IntegerAttr>(attr).getInt());
    } else {
      staticValid.push_back(ShapedType::kDynamic);
      dynamicValid.push_back(cast<Value>(v));
    }
  }
  auto guarded =
      ViewOp::create(b, loc, view.getResult().getType(), view.getSource(),
                     view.getOffsets(), view.getStaticOffsetsAttr(),
                     dynamicValid, b.getDenseI64ArrayAttr(staticValid));
  for (NamedAttribute attr : view->getDiscardableAttrs())
    guarded->setAttr(attr.getName(), attr.getValue());
  view.getResult().replaceAllUsesWith(guarded.getResult());
  view.erase();
}

/// Keeps K steps [lo, hi) of a chain in its task; a later part adds its sum
/// to the stored result atomically.
void keepSteps(Chain &chain, unsigned lo, unsigned hi) {
  Value sum = chain.steps[hi - 1]->getResult(0);
  if (lo > 0) {
    OpBuilder builder(chain.store);
    AssembleOp store = chain.store;
    AtomicAddOp::create(builder, store.getLoc(), sum, store.getDst(),
                        store.getOffsets(), store.getStaticOffsetsAttr(),
                        /*vec_tile=*/nullptr);
    store.erase();
    // The first kept step starts a new sum; an empty range adds nothing.
    if (Value nonEmpty = nonEmptyK(chain.steps[lo]))
      for (unsigned i = lo; i < hi; ++i)
        guardEmptyK(rhsView(chain.steps[i]), bTrans(chain.steps[i]), nonEmpty);
    auto acc = cast<MatmulAccOp>(chain.steps[lo]);
    OpBuilder at(acc);
    OperationState state(acc.getLoc(), MatmulOp::getOperationName());
    state.addOperands({acc.getLhs(), acc.getRhs()});
    state.addTypes(acc.getResult().getType());
    state.addAttributes(acc->getAttrs());
    Operation *start = at.create(state);
    acc.getResult().replaceAllUsesWith(start->getResult(0));
    acc.erase();
    chain.steps[lo] = start;
  } else {
    chain.store.getSrcMutable().assign(sum);
  }
  Block &body = chain.steps[lo]->getParentOfType<TaskOp>().getBody().front();
  for (unsigned i = chain.steps.size(); i-- > 0;)
    if (i < lo || i >= hi)
      chain.steps[i]->erase();
  // Views and index arithmetic only the erased steps used.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && op.getNumResults() != 0 &&
        (isa<ViewOp>(op) || isMemoryEffectFree(&op)))
      op.erase();
}

} // namespace

bool mlir::pto::detail::canSplitKChains(ArrayRef<TaskOp> tasks,
                                        unsigned parts) {
  if (parts < 2 || tasks.empty())
    return false;
  for (TaskOp task : tasks)
    if (!chainOf(task, parts))
      return false;
  return true;
}

SmallVector<TaskOp>
mlir::pto::detail::splitKChains(ArrayRef<TaskOp> tasks, unsigned parts,
                                SmallVectorImpl<TaskOp> &later) {
  SmallVector<TaskOp> result;
  for (TaskOp task : tasks) {
    Chain chain = *chainOf(task, parts);
    unsigned per = chain.steps.size() / parts;
    result.push_back(task);
    OpBuilder builder(task->getContext());
    builder.setInsertionPointAfter(task);
    for (unsigned p = 1; p < parts; ++p) {
      IRMapping mapping;
      auto copy = cast<TaskOp>(builder.clone(*task, mapping));
      Chain part;
      for (Operation *step : chain.steps)
        part.steps.push_back(
            mapping.lookup(step->getResult(0)).getDefiningOp());
      part.store = cast<AssembleOp>(mapping.lookup(chain.store.getOperation()));
      keepSteps(part, p * per, (p + 1) * per);
      result.push_back(copy);
      later.push_back(copy);
      builder.setInsertionPointAfter(copy);
    }
    keepSteps(chain, 0, per);
  }
  return result;
}
