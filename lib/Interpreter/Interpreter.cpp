//===- Interpreter.cpp - reference interpreter for pto kernels ------------===//
//
// Tiles hold only their valid region, densely (row-major over the valid
// extents): ops never read padding (docs/PyPTOModel.md#views-and-valid-shape),
// so padding need not exist, and a 2048-row tile over a 320-row sequence costs
// 320 rows of work.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;
using namespace mlir::pto::interp::detail;

namespace mlir::pto::interp::detail {

FailureOr<Extent> RuntimeAlgebra::index(Value v) {
  const RuntimeValue *value = interp.lookup(v);
  if (!value || !std::holds_alternative<int64_t>(*value))
    return failure();
  return Extent(std::get<int64_t>(*value));
}

FailureOr<SmallVector<Extent>> RuntimeAlgebra::validShapeOf(Value shaped) {
  const RuntimeValue *value = interp.lookup(shaped);
  if (!value)
    return failure();
  SmallVector<Extent> extents;
  if (auto *tile = std::get_if<TileValue>(value)) {
    for (int64_t v : tile->valid)
      extents.push_back(Extent(v));
    return extents;
  }
  if (auto *tensor = std::get_if<TensorRef>(value)) {
    for (int64_t d : tensor->shape)
      extents.push_back(Extent(d));
    return extents;
  }
  return failure();
}

SmallVector<int64_t, 4> Interpreter::mixedValues(ArrayRef<int64_t> statics,
                                                 ValueRange dynamics) const {
  SmallVector<int64_t, 4> values;
  unsigned next = 0;
  for (int64_t s : statics)
    values.push_back(ShapedType::isDynamic(s) ? getInt(dynamics[next++]) : s);
  return values;
}

FailureOr<SmallVector<int64_t, 4>> Interpreter::inferValid(Operation *op,
                                                           unsigned index) {
  RuntimeAlgebra algebra(*this);
  auto iface = cast<ValidShapeInferenceOpInterface>(op);
  FailureOr<SmallVector<Extent>> extents =
      iface.inferValidShape(algebra, index);
  if (failed(extents))
    return op->emitError("pto-run: cannot evaluate the valid shape of this op");
  SmallVector<int64_t, 4> valid;
  for (const Extent &e : *extents)
    valid.push_back(e.getConstant());
  return valid;
}

TileValue Interpreter::newTile(Value result, ArrayRef<int64_t> valid) const {
  TileValue tile{cast<TileType>(result.getType()),
                 SmallVector<int64_t, 4>(valid.begin(), valid.end()), nullptr};
  if (options.numerics)
    tile.data = std::make_shared<std::vector<float>>(tile.numValid());
  return tile;
}

void Interpreter::bindRounded(Value result, TileValue tile) {
  Type elementType = tile.type.getElementType();
  if (tile.data && !elementType.isF32())
    for (float &x : *tile.data)
      x = roundTo(elementType, x);
  env[result] = std::move(tile);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::run(KernelOp kernel,
                               MutableArrayRef<HostTensor> args) {
  Block &entry = kernel.getBody().front();
  SmallVector<RuntimeValue> blockArgs;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    TensorRef ref;
    ref.storage = &args[i];
    ref.shape.assign(args[i].shape.begin(), args[i].shape.end());
    ref.name = cast<StringAttr>(kernel.getArgNames()[i]).getValue();
    blockArgs.push_back(ref);
  }
  if (failed(execBlock(entry, blockArgs, nullptr)) || failed(flushStitch()))
    return failure();
  for (HostTensor &arg : args)
    flushAtomics(&arg);
  return success();
}

LogicalResult Interpreter::execBlock(Block &block,
                                     ArrayRef<RuntimeValue> blockArgs,
                                     SmallVectorImpl<RuntimeValue> *yielded) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), blockArgs))
    env[arg] = value;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yielded) {
        yielded->clear();
        for (Value v : op.getOperands())
          yielded->push_back(env.at(v));
      }
      return success();
    }
    if (failed(execOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::execLoop(LoopOp loop) {
  int64_t lb = getInt(loop.getLowerBound()), ub = getInt(loop.getUpperBound());
  int64_t step = getInt(loop.getStep());
  std::string loopName = loop.getName().str();
  std::string rule = pto_check::loop_step(loopName.c_str(), step);
  if (!rule.empty())
    return loop.emitError() << "pto-run: " << rule;
  SmallVector<RuntimeValue> carried;
  for (Value init : loop.getInitArgs())
    carried.push_back(env.at(init));
  SmallVector<RuntimeValue> blockArgs, yielded;
  // The last iteration is the one whose next value would reach ub; stepping
  // past INT64_MAX is never computed (no host overflow near the int64 limit).
  for (int64_t iv = lb; iv < ub;) {
    ++stats.loopIterations;
    if (observer())
      observer()->loopIteration(loop, iv, lb, ub);
    blockArgs.clear();
    blockArgs.push_back(iv);
    blockArgs.append(carried.begin(), carried.end());
    if (failed(execBlock(loop.getBody().front(), blockArgs, &yielded)))
      return failure();
    carried.assign(yielded.begin(), yielded.end());
    if (uint64_t(ub) - uint64_t(iv) <= uint64_t(step))
      break;
    iv += step;
  }
  for (auto [result, value] : llvm::zip(loop.getResults(), carried))
    env[result] = value;
  return success();
}

LogicalResult Interpreter::execYieldingRegion(Operation *op) {
  SmallVector<RuntimeValue> yielded;
  if (failed(execBlock(op->getRegion(0).front(), {}, &yielded)))
    return failure();
  for (auto [result, value] : llvm::zip(op->getResults(), yielded))
    env[result] = value;
  return success();
}

LogicalResult Interpreter::execIf(scf::IfOp ifOp) {
  Region &region =
      getInt(ifOp.getCondition()) ? ifOp.getThenRegion() : ifOp.getElseRegion();
  SmallVector<RuntimeValue> yielded;
  if (!region.empty() && failed(execBlock(region.front(), {}, &yielded)))
    return failure();
  for (auto [result, value] : llvm::zip(ifOp.getResults(), yielded))
    env[result] = value;
  return success();
}

LogicalResult Interpreter::execOp(Operation *op) {
  // Buffered root instances run before anything they might interact with.
  if (!stitchBuffer.empty() && !recordingSlot && !inStitchFlush &&
      !isStitchSafe(op)) {
    if (observer())
      observer()->stitchFlushAt(op);
    if (failed(flushStitch()))
      return failure();
  }
  ++stats.opsExecuted;
  if (!options.numerics && !hasShapeOnlySemantics(op))
    return op->emitError()
           << "pto-run --no-numerics has no shape-only rule for '"
           << op->getName()
           << "' (its effect on valid extents and the schedule); run "
              "without --no-numerics";
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](LoopOp loop) { return execLoop(loop); })
      .Case<ScopeOp, TaskOp>(
          [&](Operation *region) { return execYieldingRegion(region); })
      .Case([&](scf::IfOp ifOp) { return execIf(ifOp); })
      .Case([&](IsLoopBeginOp predicate) {
        auto loop = cast<LoopOp>(cast<BlockArgument>(predicate.getIndex())
                                     .getOwner()
                                     ->getParentOp());
        env[predicate.getResult()] = int64_t(getInt(predicate.getIndex()) ==
                                             getInt(loop.getLowerBound()));
        return success();
      })
      .Case([&](IsLoopEndOp predicate) {
        auto loop = cast<LoopOp>(cast<BlockArgument>(predicate.getIndex())
                                     .getOwner()
                                     ->getParentOp());
        // iv + step >= ub, without overflow (iv < ub inside the loop).
        env[predicate.getResult()] =
            int64_t(uint64_t(getInt(loop.getUpperBound())) -
                        uint64_t(getInt(predicate.getIndex())) <=
                    uint64_t(getInt(loop.getStep())));
        return success();
      })
      .Case([&](ValidDimOp dim) {
        // Copies first: env[] may move what getTile/getTensor refer to.
        int64_t extent = getTile(dim.getSource()).valid[dim.getDim()];
        env[dim.getResult()] = extent;
        return success();
      })
      .Case([&](DimOp dim) {
        int64_t size = getTensor(dim.getSource()).shape[dim.getDim()];
        env[dim.getResult()] = size;
        return success();
      })
      .Case([&](ReadOp read) { return execRead(read); })
      .Case([&](CheckViewOp check) { return execCheckView(check); })
      .Case([&](CheckTileViewOp check) { return execCheckTileView(check); })
      .Case([&](ReshapeOp reshape) { return execReshape(reshape); })
      .Case([&](ViewOp view) { return execView(view); })
      .Case([&](MatmulOp matmul) {
        return execMatmul(matmul, Value(), matmul.getLhs(), matmul.getRhs(),
                          matmul.getATrans(), matmul.getBTrans());
      })
      .Case([&](MatmulAccOp matmul) {
        return execMatmul(matmul, matmul.getAcc(), matmul.getLhs(),
                          matmul.getRhs(), matmul.getATrans(),
                          matmul.getBTrans());
      })
      .Case([&](WorkspaceOp workspace) { return execWorkspace(workspace); })
      .Case([&](LaunchOp launch) { return execLaunch(launch); })
      .Case([&](RootCallOp call) { return execRootCall(call); })
      .Case([&](ElementwiseBinaryOpInterface binary) {
        return execBinary(binary, binary.getLhs(), binary.getRhs());
      })
      .Case([&](ElementwiseUnaryOpInterface unary) {
        return execUnary(unary, unary.getInput());
      })
      .Case([&](SumOp sum) {
        return execReduce(sum, sum.getInput(), sum.getDim(), false);
      })
      .Case([&](AmaxOp amax) {
        return execReduce(amax, amax.getInput(), amax.getDim(), true);
      })
      .Case([&](CastOp cast) { return execCast(cast); })
      .Case([&](FullOp full) { return execFull(full); })
      .Case([&](ArangeOp arange) { return execArange(arange); })
      .Case([&](TransposeOp transpose) { return execTranspose(transpose); })
      .Case([&](GatherMaskOp gather) { return execGatherMask(gather); })
      .Case([&](BitcastOp bitcast) { return execBitcast(bitcast); })
      .Case([&](TopKOp topk) { return execTopK(topk); })
      .Case([&](CompareOp compare) { return execCompare(compare); })
      .Case([&](WhereOp where) { return execWhere(where); })
      .Case([&](AtomicAddOp atomic) {
        return execStore(atomic, atomic.getSrc(), atomic.getDst(),
                         atomic.getStaticOffsets(), atomic.getOffsets(),
                         /*atomic=*/true);
      })
      .Case([&](AssembleOp assemble) {
        return execStore(assemble, assemble.getSrc(), assemble.getDst(),
                         assemble.getStaticOffsets(), assemble.getOffsets(),
                         /*atomic=*/false);
      })
      .Case([&](IndexPutOp put) { return execIndexPut(put); })
      .Default([&](Operation *other) -> LogicalResult {
        if (other->getDialect() &&
            other->getDialect()->getNamespace() == "arith")
          return execArith(other);
        return other->emitError()
               << "pto-run cannot execute '" << other->getName()
               << "'; supported: the pto dialect, arith on scalars, scf.if";
      });
}

} // namespace mlir::pto::interp::detail

/// The kernel argument a GM tensor value aliases (through reshapes), if any.
static std::optional<unsigned> argumentOf(KernelOp kernel, Value tensor) {
  tensor = getAliasedTensor(tensor);
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    if (arg.getOwner()->getParentOp() == kernel.getOperation())
      return arg.getArgNumber();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Adds to `written` the kernel arguments that stores in `scope` write;
/// `argOf` maps a tensor of `scope` to a kernel argument. Follows root calls
/// and launches into their callees (outlined IR).
static void collectWrittenArguments(
    Operation *scope, function_ref<std::optional<unsigned>(Value)> argOf,
    llvm::SmallSetVector<unsigned, 4> &written, unsigned depth) {
  scope->walk([&](Operation *op) {
    Value dst;
    if (auto atomic = dyn_cast<AtomicAddOp>(op))
      dst = atomic.getDst();
    else if (auto assemble = dyn_cast<AssembleOp>(op))
      dst = assemble.getDst();
    else if (auto put = dyn_cast<IndexPutOp>(op))
      dst = put.getDst();
    if (dst)
      if (std::optional<unsigned> arg = argOf(dst))
        written.insert(*arg);
    OperandRange args = op->getOperands();
    FlatSymbolRefAttr callee = getCalleeAndArgs(op, args);
    if (!callee || depth > 4)
      return;
    auto fn = SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
        op, callee.getAttr());
    if (!fn || fn.isExternal())
      return;
    Block *entry = &fn.getFunctionBody().front();
    auto calleeArgOf = [&](Value tensor) -> std::optional<unsigned> {
      tensor = getAliasedTensor(tensor);
      auto arg = dyn_cast<BlockArgument>(tensor);
      if (!arg || arg.getOwner() != entry || arg.getArgNumber() >= args.size())
        return std::nullopt;
      return argOf(args[arg.getArgNumber()]);
    };
    collectWrittenArguments(fn, calleeArgOf, written, depth + 1);
  });
}

SmallVector<unsigned> interp::getWrittenArguments(KernelOp kernel) {
  llvm::SmallSetVector<unsigned, 4> written;
  collectWrittenArguments(
      kernel, [&](Value tensor) { return argumentOf(kernel, tensor); }, written,
      0);
  return SmallVector<unsigned>(written.begin(), written.end());
}

int64_t interp::getNZFractalCols(KernelOp kernel, unsigned i) {
  auto layout = kernel.getArgAttrOfType<StringAttr>(i, kLayoutAttrName);
  if (!layout || layout.getValue() != kLayoutNZ)
    return 0;
  return pto::getNZFractalCols(
      cast<GMTensorType>(kernel.getArgumentTypes()[i]).getElementByteSize());
}

llvm::Expected<HostTensor>
interp::fromArgumentStorage(KernelOp kernel, unsigned i, HostTensor data) {
  int64_t c0 = getNZFractalCols(kernel, i);
  if (!c0)
    return std::move(data);
  return fromNZStorage(
      data, c0,
      "argument '" + cast<StringAttr>(kernel.getArgNames()[i]).getValue() +
          "'");
}

HostTensor interp::toArgumentStorage(KernelOp kernel, unsigned i,
                                     HostTensor tensor) {
  int64_t c0 = getNZFractalCols(kernel, i);
  return c0 ? toNZStorage(tensor, c0) : std::move(tensor);
}

llvm::Error interp::checkArguments(KernelOp kernel, ArrayRef<HostTensor> args) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  ArrayRef<Type> types = kernel.getArgumentTypes();
  if (args.size() != types.size())
    return error("kernel @" + kernel.getSymName() + " takes " +
                 Twine(types.size()) + " tensors, got " + Twine(args.size()));
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensorType = cast<GMTensorType>(type);
    StringRef name = cast<StringAttr>(kernel.getArgNames()[i]).getValue();
    const HostTensor &arg = args[i];
    std::optional<ElementKind> kind =
        getElementKind(tensorType.getElementType());
    if (!kind) {
      std::string typeName;
      llvm::raw_string_ostream os(typeName);
      os << tensorType.getElementType();
      return error("argument '" + name + "' has element type " + typeName +
                   ", which pto-run cannot hold");
    }
    if (arg.kind != *kind)
      return error("argument '" + name + "' is " + getKindName(*kind) +
                   " (.npy dtype " + getNumpyDescr(*kind) +
                   ") but the data is " + getKindName(arg.kind) + " (" +
                   getNumpyDescr(arg.kind) + ")");
    if (static_cast<int64_t>(arg.shape.size()) != tensorType.getRank())
      return error("argument '" + name + "' has rank " +
                   Twine(tensorType.getRank()) + " but the data has shape " +
                   arg.shapeString());
    for (auto [d, size] : llvm::enumerate(tensorType.getShape()))
      if (!ShapedType::isDynamic(size) && size != arg.shape[d])
        return error("argument '" + name + "' needs " + Twine(size) +
                     " in dim " + Twine(d) + " but the data has shape " +
                     arg.shapeString());
    // The cumulative-offsets contract of SK-16's actual_q / actual_kv.
    // (A shape-only tensor has no values to check; a scalar read of it is a
    // fault at run time.)
    if (kernel.getArgAttrOfType<UnitAttr>(i, "pto.cumulative") &&
        !arg.shapeOnly) {
      if (arg.getNumElements() == 0)
        return error("argument '" + name +
                     "' holds cumulative offsets (pto.cumulative) and must "
                     "start at 0, but it is empty (a batch of B sequences "
                     "has B + 1 offsets)");
      for (int64_t j = 0; j < arg.getNumElements(); ++j) {
        int64_t value = arg.loadInt(j);
        if (j == 0 && value != 0)
          return error("argument '" + name +
                       "' holds cumulative offsets (pto.cumulative) and must "
                       "start at 0, but " +
                       name + "[0] = " + Twine(value));
        if (j > 0 && value < arg.loadInt(j - 1))
          return error("argument '" + name +
                       "' holds cumulative offsets (pto.cumulative) and must "
                       "not decrease, but " +
                       name + "[" + Twine(j) + "] = " + Twine(value) + " < " +
                       name + "[" + Twine(j - 1) +
                       "] = " + Twine(arg.loadInt(j - 1)));
      }
    }
  }
  return llvm::Error::success();
}

interp::ExecutionObserver::~ExecutionObserver() = default;

/// Every tile and workspace the run may allocate has a static shape (a tile
/// holds at most its static shape): refuse, before running, any that is over
/// the per-buffer limit, at the op that makes it.
static LogicalResult checkBufferSizes(KernelOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  Operation *root = module ? module.getOperation() : kernel.getOperation();
  WalkResult walk = root->walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      ArrayRef<int64_t> shape;
      Type elementType;
      if (auto tile = dyn_cast<TileType>(result.getType())) {
        shape = tile.getShape();
        elementType = tile.getElementType();
      } else if (auto ws = dyn_cast<WorkspaceOp>(op)) {
        shape = ws.getResult().getType().getShape();
        elementType = ws.getResult().getType().getElementType();
      } else {
        continue;
      }
      std::optional<ElementKind> kind = getElementKind(elementType);
      if (!kind)
        continue; // reported when (if) the op runs
      std::optional<uint64_t> bytes = getStorageBytes(*kind, shape);
      if (!bytes || *bytes > kMaxHostTensorBytes) {
        InFlightDiagnostic diag = op->emitError()
                                  << "pto-run: " << result.getType();
        if (bytes)
          diag << " needs " << *bytes << " bytes, more than";
        else
          diag << " overflows 64-bit sizes; the limit is";
        diag << " pto-run's " << (kMaxHostTensorBytes >> 30)
             << " GiB per buffer";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult interp::runKernel(KernelOp kernel,
                                MutableArrayRef<HostTensor> args,
                                const RunOptions &options, RunStats *stats) {
  if (failed(checkBufferSizes(kernel)))
    return failure();
  RunStats localStats;
  Interpreter interpreter(options, stats ? *stats : localStats);
  return interpreter.run(kernel, args);
}
