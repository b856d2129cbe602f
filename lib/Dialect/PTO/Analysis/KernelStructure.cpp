//===- KernelStructure.cpp - what a pto kernel is, by value ---------------===//
//
// The structural queries of KernelStructure.h: names, index expressions (by
// value, IndexForm.h) and tile dataflow.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Analysis/KernelStructure.h"
#include "pto/Dialect/PTO/Analysis/IndexForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace mlir;
using namespace mlir::pto;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

BlockArgument mlir::pto::getRootArgument(Value tensor) {
  tensor = getAliasedTensor(tensor);
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (arg && isa<KernelOp>(arg.getOwner()->getParentOp()))
    return arg;
  return {};
}

StringRef mlir::pto::getArgumentName(BlockArgument arg) {
  auto kernel = cast<KernelOp>(arg.getOwner()->getParentOp());
  return cast<StringAttr>(kernel.getArgNames()[arg.getArgNumber()]).getValue();
}

ViewOp mlir::pto::getViewOf(Value tile) { return tile.getDefiningOp<ViewOp>(); }

BlockArgument mlir::pto::getViewedArgument(Value tile) {
  while (ViewOp view = getViewOf(tile)) {
    Value source = view.getSource();
    if (isa<GMTensorType>(source.getType()))
      return getRootArgument(source);
    tile = source;
  }
  return {};
}

std::string mlir::pto::quoted(BlockArgument arg) {
  return ("'" + getArgumentName(arg) + "'").str();
}

std::string mlir::pto::formatType(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string mlir::pto::formatShape(ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

ScopeAttr mlir::pto::getScopeOf(Operation *op, ScopeOp *region) {
  if (auto scope = op->getParentOfType<ScopeOp>()) {
    if (region)
      *region = scope;
    return scope.getScope();
  }
  if (region)
    *region = ScopeOp();
  return op->getAttrOfType<ScopeAttr>(kScopeStampAttrName);
}

std::string mlir::pto::formatConstant(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

std::string mlir::pto::describeOp(Operation *op) {
  if (auto view = dyn_cast<ViewOp>(op))
    if (BlockArgument arg = getViewedArgument(view.getResult()))
      return "the view of " + quoted(arg);
  return ("'" + op->getName().getStringRef() + "'").str();
}

//===----------------------------------------------------------------------===//
// Index expressions
//===----------------------------------------------------------------------===//

Operation *mlir::pto::getInductionVarOwner(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return nullptr;
  Operation *parent = arg.getOwner()->getParentOp();
  if (auto loop = dyn_cast_or_null<LoopOp>(parent))
    return arg.getArgNumber() == 0 ? parent : nullptr;
  if (auto loopLike = dyn_cast_or_null<LoopLikeOpInterface>(parent))
    if (std::optional<Value> iv = loopLike.getSingleInductionVar())
      return *iv == v ? parent : nullptr;
  return nullptr;
}

std::string mlir::pto::describeLoop(Operation *loop) {
  if (auto ptoLoop = dyn_cast<LoopOp>(loop))
    return ("loop '" + ptoLoop.getName() + "'").str();
  return ("'" + loop->getName().getStringRef() + "'").str();
}

static void
collectIndexDepsImpl(Value v, bool viaRead, IndexDeps &deps,
                     DenseSet<std::pair<Value, unsigned>> &visited) {
  if (!visited.insert({v, unsigned(viaRead)}).second)
    return;
  if (getInductionVarOwner(v)) {
    (viaRead ? deps.viaRead : deps.direct).insert(v);
    return;
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions())
    return;
  if (auto read = dyn_cast<ReadOp>(def)) {
    deps.reads.insert(read);
    for (Value index : read.getIndices())
      collectIndexDepsImpl(index, /*viaRead=*/true, deps, visited);
    return;
  }
  for (Value operand : def->getOperands())
    if (operand.getType().isIntOrIndex())
      collectIndexDepsImpl(operand, viaRead, deps, visited);
}

IndexDeps mlir::pto::collectIndexDeps(Value index) {
  IndexDeps deps;
  DenseSet<std::pair<Value, unsigned>> visited;
  collectIndexDepsImpl(index, /*viaRead=*/false, deps, visited);
  return deps;
}

static Value findRuntimeSourceImpl(Value v, DenseSet<Value> &visited) {
  if (!visited.insert(v).second)
    return {};
  if (matchPattern(v, m_Constant()))
    return {};
  // Tiles and tensors are data, never compile-time values.
  if (isa<TileType, GMTensorType>(v.getType()) || isa<BlockArgument>(v))
    return v;
  Operation *def = v.getDefiningOp();
  if (auto dim = dyn_cast<DimOp>(def)) {
    int64_t size = dim.getSource().getType().getDimSize(dim.getDim());
    return ShapedType::isDynamic(size) ? v : Value();
  }
  // pto.read and anything else with effects or regions is a run-time value;
  // pure arithmetic is as constant as its operands.
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return v;
  for (Value operand : def->getOperands())
    if (Value source = findRuntimeSourceImpl(operand, visited))
      return source;
  return {};
}

Value mlir::pto::findRuntimeSource(Value v) {
  DenseSet<Value> visited;
  return findRuntimeSourceImpl(v, visited);
}

std::string mlir::pto::describeRuntimeSource(Value source) {
  if (Operation *loop = getInductionVarOwner(source))
    return "the index of " + describeLoop(loop);
  if (auto arg = dyn_cast<BlockArgument>(source)) {
    if (isa<KernelOp>(arg.getOwner()->getParentOp()))
      return "kernel argument " + quoted(arg);
    return "a block argument";
  }
  Operation *def = source.getDefiningOp();
  if (auto read = dyn_cast<ReadOp>(def)) {
    if (BlockArgument arg = getRootArgument(read.getTensor()))
      return "a value read from tensor " + quoted(arg) + " (pto.read)";
    return "a value read from a tensor (pto.read)";
  }
  if (auto dim = dyn_cast<DimOp>(def)) {
    std::string what =
        "the run-time size of dim " + std::to_string(dim.getDim());
    if (BlockArgument arg = getRootArgument(dim.getSource()))
      what += " of " + quoted(arg);
    return what;
  }
  if (auto view = dyn_cast<ViewOp>(def))
    if (BlockArgument arg = getViewedArgument(view.getResult()))
      return "a tile viewed from tensor " + quoted(arg);
  return ("the result of '" + def->getName().getStringRef() + "'").str();
}

Location mlir::pto::getSourceLoc(Value source) {
  if (Operation *loop = getInductionVarOwner(source))
    return loop->getLoc();
  if (Operation *def = source.getDefiningOp())
    return def->getLoc();
  return cast<BlockArgument>(source).getLoc();
}

static void collectAddends(Value v, SmallVectorImpl<Value> &terms) {
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    collectAddends(add.getLhs(), terms);
    collectAddends(add.getRhs(), terms);
    return;
  }
  terms.push_back(v);
}

SmallVector<StrideTerm> mlir::pto::getStrideTerms(Value offset) {
  SmallVector<Value> addends;
  collectAddends(offset, addends);
  SmallVector<StrideTerm> terms;
  for (Value term : addends) {
    if (getInductionVarOwner(term)) {
      terms.push_back({term, Value(), nullptr});
      continue;
    }
    if (auto mul = term.getDefiningOp<arith::MulIOp>()) {
      if (getInductionVarOwner(mul.getLhs()))
        terms.push_back({mul.getLhs(), mul.getRhs(), mul});
      else if (getInductionVarOwner(mul.getRhs()))
        terms.push_back({mul.getRhs(), mul.getLhs(), mul});
    }
  }
  return terms;
}

SmallVector<IndexPoly> mlir::pto::getAbsoluteOffsets(ViewOp view,
                                                     IndexForms &forms) {
  SmallVector<IndexPoly> total;
  for (ViewOp v = view; v; v = getViewOf(v.getSource())) {
    SmallVector<MixedIndex> offsets =
        getMixed(v.getStaticOffsets(), v.getOffsets());
    if (total.empty())
      total.resize(offsets.size());
    if (offsets.size() != total.size())
      break; // a rank-changing view: keep what is known
    for (auto [sum, offset] : llvm::zip(total, offsets))
      sum = sum + (offset.value ? forms.get(offset.value)
                                : IndexPoly::constant(offset.constant));
  }
  return total;
}

std::string mlir::pto::getColumnKey(ViewOp view) {
  // Columns compare by value: loops over the same range are the same index
  // (a second nest with its own loop names covers the same heads).
  IndexForms forms(/*loopsByRange=*/true);
  std::string key;
  // A named local: drop_begin only refers to its range (a temporary would
  // die before the loop body).
  SmallVector<IndexPoly> offsets = getAbsoluteOffsets(view, forms);
  for (const IndexPoly &offset : llvm::drop_begin(offsets))
    key += "|" + offset.str();
  return key;
}

SmallVector<MixedIndex> mlir::pto::getMixed(ArrayRef<int64_t> statics,
                                            ValueRange values) {
  SmallVector<MixedIndex> mixed;
  unsigned next = 0;
  for (int64_t s : statics) {
    if (ShapedType::isDynamic(s))
      mixed.push_back({values[next++], 0});
    else
      mixed.push_back({Value(), s});
  }
  return mixed;
}

std::optional<SmallVector<MixedIndex>>
mlir::pto::getExplicitValidShape(ViewOp view) {
  std::optional<ArrayRef<int64_t>> statics = view.getStaticValidShape();
  if (!statics)
    return std::nullopt;
  return getMixed(*statics, view.getValidShape());
}

//===----------------------------------------------------------------------===//
// Tile dataflow
//===----------------------------------------------------------------------===//

/// The pto.assemble / pto.atomic_add ops writing into a workspace (directly
/// or through reshapes of it), and the views reading it.
static void collectWorkspaceAccesses(Value tensor,
                                     SmallVectorImpl<Operation *> &writers,
                                     SmallVectorImpl<ViewOp> &readers) {
  for (OpOperand &use : tensor.getUses()) {
    Operation *user = use.getOwner();
    if (auto reshape = dyn_cast<ReshapeOp>(user))
      collectWorkspaceAccesses(reshape.getResult(), writers, readers);
    else if (isa<AssembleOp, AtomicAddOp>(user) && use.getOperandNumber() == 1)
      writers.push_back(user);
    else if (auto view = dyn_cast<ViewOp>(user))
      readers.push_back(view);
  }
}

/// The workspace a GM tensor aliases, or null.
static WorkspaceOp getWorkspace(Value tensor) {
  return getAliasedTensor(tensor).getDefiningOp<WorkspaceOp>();
}

llvm::SetVector<Operation *> mlir::pto::collectTileProducers(Value tile) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist{tile};
  DenseSet<Value> visited;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!visited.insert(v).second)
      continue;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      continue; // a loop-carried value or a kernel argument
    Operation *def = result.getOwner();
    if (auto scope = dyn_cast<ScopeOp>(def)) {
      auto yield = cast<YieldOp>(scope.getBody().front().getTerminator());
      worklist.push_back(yield.getValues()[result.getResultNumber()]);
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      ops.insert(def);
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty())
          worklist.push_back(region->front().getTerminator()->getOperand(
              result.getResultNumber()));
      continue;
    }
    ops.insert(def);
    // A view of a tile (not of a GM tensor) is the same data; a view of a
    // workspace reads the tiles written into it.
    if (auto view = dyn_cast<ViewOp>(def)) {
      if (isa<TileType>(view.getSource().getType())) {
        worklist.push_back(view.getSource());
        continue;
      }
      if (WorkspaceOp workspace = getWorkspace(view.getSource())) {
        SmallVector<Operation *> writers;
        SmallVector<ViewOp> readers;
        collectWorkspaceAccesses(workspace.getResult(), writers, readers);
        for (Operation *writer : writers)
          worklist.push_back(writer->getOperand(0));
        continue;
      }
    }
    if (isa<ViewOp, MatmulOp, FullOp>(def))
      continue;
    if (isVectorOp(def) || isa<arith::SelectOp>(def))
      for (Value operand : def->getOperands())
        if (isa<TileType>(operand.getType()))
          worklist.push_back(operand);
  }
  return ops;
}

llvm::SetVector<Operation *> mlir::pto::collectTileConsumers(ValueRange seeds) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist(seeds.begin(), seeds.end());
  DenseSet<Value> visited;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!visited.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<YieldOp, scf::YieldOp>(user)) {
        Operation *parent = user->getParentOp();
        if (isa<ScopeOp, scf::IfOp>(parent))
          worklist.push_back(parent->getResult(use.getOperandNumber()));
        continue;
      }
      ops.insert(user);
      if (isa<MatmulOp>(user))
        continue;
      // A tile stored into a workspace reaches whatever views it back.
      if (isa<AssembleOp, AtomicAddOp>(user) && use.getOperandNumber() == 0)
        if (WorkspaceOp workspace = getWorkspace(user->getOperand(1))) {
          SmallVector<Operation *> writers;
          SmallVector<ViewOp> readers;
          collectWorkspaceAccesses(workspace.getResult(), writers, readers);
          for (ViewOp reader : readers)
            worklist.push_back(reader.getResult());
          continue;
        }
      if (isVectorOp(user) || isa<arith::SelectOp, ViewOp>(user))
        for (Value result : user->getResults())
          if (isa<TileType>(result.getType()))
            worklist.push_back(result);
    }
  }
  return ops;
}

FullOp mlir::pto::traceConstantTile(Value tile) {
  // Bounded: a workspace written with a view of itself would cycle.
  for (unsigned steps = 0; tile && steps < 64; ++steps) {
    if (auto full = tile.getDefiningOp<FullOp>())
      return full;
    if (auto cast = tile.getDefiningOp<CastOp>()) {
      tile = cast->getOperand(0);
      continue;
    }
    if (auto view = tile.getDefiningOp<ViewOp>();
        view && isa<TileType>(view.getSource().getType())) {
      tile = view.getSource();
      continue;
    }
    if (auto scope = tile.getDefiningOp<ScopeOp>()) {
      auto yield = cast<YieldOp>(scope.getBody().front().getTerminator());
      tile = yield.getValues()[cast<OpResult>(tile).getResultNumber()];
      continue;
    }
    // A workspace holding only one written tile holds that tile.
    if (auto view = tile.getDefiningOp<ViewOp>())
      if (WorkspaceOp workspace = getWorkspace(view.getSource())) {
        SmallVector<Operation *> writers;
        SmallVector<ViewOp> readers;
        collectWorkspaceAccesses(workspace.getResult(), writers, readers);
        if (writers.size() == 1) {
          tile = writers.front()->getOperand(0);
          continue;
        }
      }
    break;
  }
  return {};
}
