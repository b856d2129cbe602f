//===- ArgumentShapes.cpp - shapes pto-run infers for generated data ------===//

#include "ArgumentShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pto;

namespace {
using KnownShape = llvm::function_ref<const SmallVector<int64_t> *(unsigned)>;

/// Evaluates an index computed before any data is read: constants, pto.dim
/// of arguments of known shape, and +, -, *, / over them (overflow: unknown).
struct SizeEvaluator {
  KernelOp kernel;
  KnownShape known;

  std::optional<int64_t> eval(Value value, unsigned depth = 0) {
    Operation *def = value.getDefiningOp();
    if (!def || depth > 64)
      return std::nullopt;
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
        return attr.getInt();
      return std::nullopt;
    }
    if (auto dim = dyn_cast<DimOp>(def)) {
      auto arg = dyn_cast<BlockArgument>(dim.getSource());
      if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation())
        return std::nullopt;
      const SmallVector<int64_t> *shape = known(arg.getArgNumber());
      int64_t d = dim.getDim();
      if (!shape || d < 0 || d >= int64_t(shape->size()))
        return std::nullopt;
      return (*shape)[d];
    }
    if (def->getNumOperands() != 2)
      return std::nullopt;
    std::optional<int64_t> a = eval(def->getOperand(0), depth + 1);
    std::optional<int64_t> b = eval(def->getOperand(1), depth + 1);
    if (!a || !b)
      return std::nullopt;
    int64_t r;
    if (isa<arith::AddIOp>(def))
      return llvm::AddOverflow(*a, *b, r) ? std::nullopt : std::optional(r);
    if (isa<arith::SubIOp>(def))
      return llvm::SubOverflow(*a, *b, r) ? std::nullopt : std::optional(r);
    if (isa<arith::MulIOp>(def))
      return llvm::MulOverflow(*a, *b, r) ? std::nullopt : std::optional(r);
    if (*b <= 0 || *a < 0)
      return std::nullopt;
    if (isa<arith::DivSIOp, arith::FloorDivSIOp>(def))
      return *a / *b;
    if (isa<arith::CeilDivSIOp>(def))
      return llvm::divideCeil(uint64_t(*a), uint64_t(*b));
    return std::nullopt;
  }
};
} // namespace

/// The kernel argument a GM tensor value is, through the tile graph: a leaf
/// argument is what every launch of the leaf passes, a root argument what
/// every root call passes (null when they disagree or it is not an argument).
class KernelArgumentResolver {
public:
  explicit KernelArgumentResolver(KernelOp kernel) : kernel(kernel) {
    Operation *scope = kernel->getParentOfType<ModuleOp>();
    if (!scope)
      return;
    scope->walk([&](Operation *op) {
      if (auto launch = dyn_cast<LaunchOp>(op))
        callers[launch.getCalleeAttr().getAttr()].push_back(
            {op, launch.getArgs()});
      else if (auto call = dyn_cast<RootCallOp>(op))
        callers[call.getCalleeAttr().getAttr()].push_back({op, call.getArgs()});
    });
  }

  BlockArgument resolve(Value value, unsigned depth = 0) {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || depth > 4)
      return {};
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel.getOperation())
      return arg;
    auto func = dyn_cast<func::FuncOp>(owner);
    if (!func || !arg.getOwner()->isEntryBlock())
      return {};
    auto it = callers.find(func.getSymNameAttr());
    if (it == callers.end() || it->second.empty())
      return {};
    BlockArgument common;
    for (auto &[call, operands] : it->second) {
      if (arg.getArgNumber() >= operands.size())
        return {};
      BlockArgument resolved = resolve(operands[arg.getArgNumber()], depth + 1);
      if (!resolved || (common && common != resolved))
        return {};
      common = resolved;
    }
    return common;
  }

private:
  KernelOp kernel;
  llvm::DenseMap<StringAttr, SmallVector<std::pair<Operation *, ValueRange>>>
      callers;
};

/// Rule 1: an argument stored (assemble, atomic_add) at exactly the offsets
/// where another argument of the same shape type is viewed (the same SSA
/// offsets, e.g. `y[i*16, 0]` and `x[i*16, 0]`, in the kernel or in a leaf
/// of its tile graph) covers that argument's extent: it gets its shape.
static std::optional<SmallVector<int64_t>>
shapeOfMirroredArgument(KernelOp kernel, BlockArgument arg, KnownShape known) {
  auto type = cast<GMTensorType>(arg.getType());
  KernelArgumentResolver resolver(kernel);
  Operation *scope = kernel->getParentOfType<ModuleOp>();
  if (!scope)
    scope = kernel;
  std::optional<SmallVector<int64_t>> found;
  scope->walk([&](Operation *op) {
    Value dst;
    ValueRange offsets;
    ArrayRef<int64_t> staticOffsets;
    if (auto store = dyn_cast<AssembleOp>(op)) {
      dst = store.getDst();
      offsets = store.getOffsets();
      staticOffsets = store.getStaticOffsets();
    } else if (auto store = dyn_cast<AtomicAddOp>(op)) {
      dst = store.getDst();
      offsets = store.getOffsets();
      staticOffsets = store.getStaticOffsets();
    } else {
      return WalkResult::advance();
    }
    if (offsets.empty() || resolver.resolve(dst) != arg)
      return WalkResult::advance();
    for (Operation *user : offsets.front().getUsers()) {
      auto view = dyn_cast<ViewOp>(user);
      if (!view || !llvm::equal(view.getOffsets(), offsets) ||
          view.getStaticOffsets() != staticOffsets)
        continue;
      BlockArgument source = resolver.resolve(view.getSource());
      if (!source || source == arg)
        continue;
      auto sourceType = cast<GMTensorType>(source.getType());
      const SmallVector<int64_t> *shape = known(source.getArgNumber());
      if (!shape || sourceType.getShape() != type.getShape())
        continue;
      found = *shape;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::optional<SmallVector<int64_t>>
mlir::pto::inferArgumentShape(KernelOp kernel, unsigned index,
                              KnownShape known) {
  BlockArgument arg = kernel.getBody().front().getArgument(index);
  if (auto mirrored = shapeOfMirroredArgument(kernel, arg, known))
    return mirrored;
  auto type = cast<GMTensorType>(arg.getType());
  ArrayRef<int64_t> shape = type.getShape();
  if (llvm::count_if(shape, ShapedType::isDynamic) != 1)
    return std::nullopt;
  SizeEvaluator evaluator{kernel, known};
  for (Operation *user : arg.getUsers()) {
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!reshape || reshape.getSource() != arg)
      continue;
    // The product of the new sizes is the argument's element count.
    int64_t total = 1;
    bool ok = true;
    auto dynamicSizes = reshape.getShape().begin();
    for (int64_t size : reshape.getStaticShape()) {
      std::optional<int64_t> value = ShapedType::isDynamic(size)
                                         ? evaluator.eval(*dynamicSizes++)
                                         : std::optional(size);
      if (!value || *value < 0 || llvm::MulOverflow(total, *value, total)) {
        ok = false;
        break;
      }
    }
    int64_t staticProduct = 1;
    for (int64_t size : shape)
      if (!ShapedType::isDynamic(size))
        staticProduct *= size;
    if (!ok || staticProduct == 0 || total % staticProduct != 0)
      continue;
    SmallVector<int64_t> inferred(shape);
    for (int64_t &size : inferred)
      if (ShapedType::isDynamic(size))
        size = total / staticProduct;
    return inferred;
  }
  return std::nullopt;
}
