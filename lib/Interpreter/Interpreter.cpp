//===- Interpreter.cpp - reference interpreter for pto kernels ------------===//
//
// Tiles hold only their valid region, densely (row-major over the valid
// extents): ops never read padding (docs/PyPTOModel.md#views-and-valid-shape), so padding need not
// exist, and a 2048-row tile over a 320-row sequence costs 320 rows of work.
//
//===----------------------------------------------------------------------===//

#include "pto/Interpreter/Interpreter.h"
#include "pto/runtime/checks.hpp"
#include "pto/Interpreter/Numerics.h"
#include "pto/Interpreter/ShapeOnly.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <variant>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;

namespace {

//===----------------------------------------------------------------------===//
// Run-time values
//===----------------------------------------------------------------------===//

/// The GM tensor a control-program tile was viewed from, and the number of
/// launches run before the view (the tile holds what they wrote).
struct TileProvenance {
  const HostTensor *source;
  uint64_t snapshot;
};

/// A tile: its type, valid extents and the dense data of the valid region.
/// Float element types only; bf16/f16 values are held rounded, in f32.
/// Without numerics (RunOptions::numerics false) `data` is null.
struct TileValue {
  TileType type;
  SmallVector<int64_t, 4> valid;
  std::shared_ptr<std::vector<float>> data;
  // For performance models (set only with an observer, outside leaves):
  // where a pto.view tile (or a view of one) came from in GM.
  const TileProvenance *gm = nullptr;

  int64_t numValid() const {
    int64_t n = 1;
    for (int64_t v : valid)
      n *= v;
    return n;
  }
};

/// A GM tensor: an argument's storage seen through a (reshaped) shape.
struct TensorRef {
  HostTensor *storage = nullptr;
  SmallVector<int64_t, 4> shape;
  StringRef name; // kernel argument name, for messages
};

using RuntimeValue =
    std::variant<std::monostate, int64_t, double, TileValue, TensorRef>;

std::string rangeStr(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string listStr(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Rounds `x` to the element type of a tile (f32: unchanged).
inline float roundTo(Type elementType, float x) {
  if (elementType.isBF16())
    return bf16ToFloat(floatToBF16(x, CastMode::RINT));
  if (elementType.isF16())
    return roundToF16(x, CastMode::RINT);
  return x;
}

struct PendingAtomic {
  TileValue src;
  SmallVector<int64_t, 4> offsets;
  SmallVector<int64_t, 4> dstShape;
};

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

class Interpreter;

/// SSA values to run-time values. Values get a dense slot on first
/// assignment: the hash map stays compact (16-byte entries) while the
/// run-time values, large variants, live in a vector. Tile graphs have
/// hundreds of thousands of values per kernel. operator[] may grow the
/// vector: never assign it a reference obtained from this environment
/// (`env[a] = env.at(b)`); copy into a local first.
class Environment {
public:
  RuntimeValue &operator[](Value v) {
    auto [it, inserted] = slots.try_emplace(v, values.size());
    if (inserted)
      values.emplace_back();
    return values[it->second];
  }
  const RuntimeValue &at(Value v) const {
    auto it = slots.find(v);
    assert(it != slots.end() && "value used before it was computed");
    return values[it->second];
  }
  const RuntimeValue *lookup(Value v) const {
    auto it = slots.find(v);
    return it == slots.end() ? nullptr : &values[it->second];
  }

private:
  llvm::DenseMap<Value, unsigned> slots;
  std::vector<RuntimeValue> values;
};

/// Evaluates valid-shape rules on run-time integers.
class RuntimeAlgebra : public ValidShapeAlgebra {
public:
  explicit RuntimeAlgebra(Interpreter &interp) : interp(interp) {}
  FailureOr<Extent> index(Value v) override;
  FailureOr<SmallVector<Extent>> validShapeOf(Value shaped) override;
  Extent min(Extent a, Extent b) override {
    return std::min(a.getConstant(), b.getConstant());
  }
  Extent max(Extent a, Extent b) override {
    return std::max(a.getConstant(), b.getConstant());
  }
  Extent sub(Extent a, Extent b) override {
    // Saturating: hostile offsets (e.g. wrapped to near INT64_MIN) must not
    // overflow here; the view reports them as faults afterwards (found by
    // UBSan on test_wrapped_offset_is_a_fault).
    int64_t result;
    if (llvm::SubOverflow(a.getConstant(), b.getConstant(), result))
      result = b.getConstant() < 0 ? std::numeric_limits<int64_t>::max()
                                   : std::numeric_limits<int64_t>::min();
    return result;
  }
  Extent ceilDiv(Extent a, int64_t divisor) override {
    return llvm::divideCeil(a.getConstant(), divisor);
  }

private:
  Interpreter &interp;
};

class Interpreter {
public:
  Interpreter(const RunOptions &options, RunStats &stats)
      : options(options), stats(stats), rng(options.shuffleSeed) {}

  LogicalResult run(KernelOp kernel, MutableArrayRef<HostTensor> args);

  // Accessors for RuntimeAlgebra.
  const RuntimeValue *lookup(Value v) const {
    return env.lookup(v);
  }

private:
  // Control flow.
  LogicalResult execBlock(Block &block, ArrayRef<RuntimeValue> blockArgs,
                          SmallVectorImpl<RuntimeValue> *yielded);
  LogicalResult execOp(Operation *op);
  LogicalResult execLoop(LoopOp loop);
  /// A pto.scope or pto.task: runs its single block, binds the yields.
  LogicalResult execYieldingRegion(Operation *op);
  LogicalResult execIf(scf::IfOp ifOp);

  // Scalars and tensors.
  LogicalResult execArith(Operation *op);
  LogicalResult execRead(ReadOp op);
  LogicalResult execCheckView(CheckViewOp op);
  LogicalResult execReshape(ReshapeOp op);
  // Tiles.
  LogicalResult execView(ViewOp op);
  LogicalResult execMatmul(Operation *op, Value acc, Value lhs, Value rhs,
                           bool aTrans, bool bTrans);
  LogicalResult execWorkspace(WorkspaceOp op);
  LogicalResult execCall(Operation *call, FlatSymbolRefAttr callee,
                         ValueRange args);
  // Root calls and launches; stitched execution (see "Stitching" below).
  LogicalResult execLaunch(LaunchOp launch);
  LogicalResult execRootCall(RootCallOp call);
  bool isStitchSafe(Operation *op);
  LogicalResult flushStitch();
  ArrayRef<uint8_t> leafAccesses(Operation *leaf);
  LogicalResult execBinary(Operation *op, Value lhs, Value rhs);
  LogicalResult execUnary(Operation *op, Value input);
  LogicalResult execReduce(Operation *op, Value input, int64_t dim,
                           bool isAmax);
  LogicalResult execCast(CastOp op);
  LogicalResult execFull(FullOp op);
  LogicalResult execTranspose(TransposeOp op);
  LogicalResult execGatherMask(GatherMaskOp op);
  LogicalResult execStore(Operation *op, Value src, Value dst,
                          ArrayRef<int64_t> staticOffsets,
                          ValueRange dynamicOffsets, bool atomic);

  // Helpers.
  int64_t getInt(Value v) const { return std::get<int64_t>(env.at(v)); }
  double getFloat(Value v) const { return std::get<double>(env.at(v)); }
  const TileValue &getTile(Value v) const {
    return std::get<TileValue>(env.at(v));
  }
  const TensorRef &getTensor(Value v) const {
    return std::get<TensorRef>(env.at(v));
  }
  SmallVector<int64_t, 4> mixedValues(ArrayRef<int64_t> statics,
                                      ValueRange dynamics) const;
  FailureOr<SmallVector<int64_t, 4>> inferValid(Operation *op,
                                                unsigned resultIndex = 0);
  TileValue newTile(Value result, ArrayRef<int64_t> valid) const;
  /// Rounds a computed tile to its element type (bf16/f16 results are held
  /// rounded, in f32) and binds it to `result`.
  void bindRounded(Value result, TileValue tile);
  void flushAtomics(HostTensor *storage);

  const RunOptions &options;
  RunStats &stats;
  std::mt19937_64 rng;
  Environment env;
  llvm::DenseMap<HostTensor *, std::vector<PendingAtomic>> pendingAtomics;
  // One buffer per workspace op, reused by every instance: a workspace's
  // contents are undefined until written, so no clearing is needed. While
  // root instances are buffered for a stitch, each buffered instance's
  // workspaces get their own buffers: the key's second half is the
  // instance's slot in the stitch (0 outside stitches).
  llvm::DenseMap<std::pair<Operation *, unsigned>, std::unique_ptr<HostTensor>>
      workspaces;

  // Stitching: root calls carrying a stitch plan are buffered (their
  // launches recorded with argument values) and run together.
  struct RecordedLaunch {
    Operation *leaf;
    SmallVector<RuntimeValue> args;
    SmallVector<unsigned> deps; // launch indices within the instance
    // GM tensors the leaf touches, with kStitchRead/Write/Atomic bits.
    SmallVector<std::pair<HostTensor *, uint8_t>, 4> accesses;
    std::vector<std::pair<const HostTensor *, uint64_t>> tileReads;
  };
  struct RootInstance {
    SmallVector<RecordedLaunch, 0> launches;
    uint64_t id = 0; // for the ExecutionObserver
  };
  std::vector<RootInstance> stitchBuffer;
  int64_t stitchLimit = std::numeric_limits<int64_t>::max();
  uint64_t stitchWorkspaceBytes = 0; // of the buffered instances
  std::optional<unsigned> recordingSlot; // the instance being recorded
  bool inStitchFlush = false;
  llvm::DenseSet<HostTensor *> stitchWritten;
  llvm::DenseMap<Operation *, SmallVector<uint8_t>> leafAccessCache;
  // ExecutionObserver bookkeeping (only used when options.observer is set).
  ExecutionObserver *observer() const { return options.observer; }
  uint64_t nextLaunchId = 0, nextInstanceId = 0, currentInstance = 0;
  int64_t nextStitchId = 0;
  // Provenance of control-program tiles (observer only; stable addresses).
  std::deque<TileProvenance> provenances;
  llvm::DenseMap<Operation *, bool> insideLeaf;
  bool isInsideLeaf(Operation *op) {
    Operation *fn = op->getParentOfType<FunctionOpInterface>();
    auto [it, inserted] = insideLeaf.try_emplace(fn, false);
    if (inserted)
      it->second = fn && fn->hasAttr("pto.leaf");
    return it->second;
  }
  llvm::DenseMap<Value, uint64_t> tokenIds; // unstitched launches
};

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

SmallVector<int64_t, 4>
Interpreter::mixedValues(ArrayRef<int64_t> statics, ValueRange dynamics) const {
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
  FailureOr<SmallVector<Extent>> extents = iface.inferValidShape(algebra, index);
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
  Region &region = getInt(ifOp.getCondition()) ? ifOp.getThenRegion()
                                               : ifOp.getElseRegion();
  SmallVector<RuntimeValue> yielded;
  if (!region.empty() &&
      failed(execBlock(region.front(), {}, &yielded)))
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
        auto loop = cast<LoopOp>(
            cast<BlockArgument>(predicate.getIndex()).getOwner()->getParentOp());
        env[predicate.getResult()] = int64_t(
            getInt(predicate.getIndex()) == getInt(loop.getLowerBound()));
        return success();
      })
      .Case([&](IsLoopEndOp predicate) {
        auto loop = cast<LoopOp>(
            cast<BlockArgument>(predicate.getIndex()).getOwner()->getParentOp());
        // iv + step >= ub, without overflow (iv < ub inside the loop).
        env[predicate.getResult()] = int64_t(
            uint64_t(getInt(loop.getUpperBound())) -
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
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>([&](auto binary) {
        return execBinary(binary, binary.getLhs(), binary.getRhs());
      })
      .Case<ExpOp, NegOp, AbsOp, SqrtOp, RsqrtOp, ReciprocalOp>(
          [&](auto unary) { return execUnary(unary, unary.getInput()); })
      .Case([&](SumOp sum) {
        return execReduce(sum, sum.getInput(), sum.getDim(), false);
      })
      .Case([&](AmaxOp amax) {
        return execReduce(amax, amax.getInput(), amax.getDim(), true);
      })
      .Case([&](CastOp cast) { return execCast(cast); })
      .Case([&](FullOp full) { return execFull(full); })
      .Case([&](TransposeOp transpose) { return execTranspose(transpose); })
      .Case([&](GatherMaskOp gather) { return execGatherMask(gather); })
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
      .Default([&](Operation *other) -> LogicalResult {
        if (other->getDialect() &&
            other->getDialect()->getNamespace() == "arith")
          return execArith(other);
        return other->emitError()
               << "pto-run cannot execute '" << other->getName()
               << "'; supported: the pto dialect, arith on scalars, scf.if";
      });
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execArith(Operation *op) {
  auto fault = [&](const Twine &message) -> LogicalResult {
    return op->emitError() << "pto-run: " << message;
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = constant.getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      env[constant.getResult()] =
          i.getType().isIndex() ? i.getInt() : i.getValue().getSExtValue();
      return success();
    }
    if (auto f = dyn_cast<FloatAttr>(value)) {
      double d = f.getValueAsDouble();
      // f32 scalars (like scale) are rounded once to FP32.
      env[constant.getResult()] =
          f.getType().isF32() ? double(float(d)) : d;
      return success();
    }
    return fault("only scalar integer and float constants are supported");
  }
  if (op->getNumResults() != 1 ||
      // Scalar types by TypeID (a ShapedType check is an interface lookup,
      // a measurable cost on the ~10^6 index ops of a tile graph).
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        return isa<IntegerType, IndexType, FloatType>(t);
      }))
    return fault("'" + op->getName().getStringRef() +
                 "' is supported on scalars only");
  Value result = op->getResult(0);
  auto intOperand = [&](unsigned i) { return getInt(op->getOperand(i)); };
  auto floatOperand = [&](unsigned i) { return getFloat(op->getOperand(i)); };
  auto setFloat = [&](double d) {
    env[result] = result.getType().isF32() ? double(float(d)) : d;
    return success();
  };
  // An integer result: wrapped to the result's width and sign-extended
  // (index is 64-bit).
  auto setInt = [&](uint64_t bits) {
    unsigned width = 64;
    if (auto intType = dyn_cast<IntegerType>(result.getType()))
      width = intType.getWidth();
    if (width > 0 && width < 64) {
      unsigned shift = 64 - width;
      bits = uint64_t(int64_t(bits << shift) >> shift);
    }
    env[result] = int64_t(bits);
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // arith's integer arithmetic wraps around (two's complement) at the
      // result's width; computed in uint64 so that the host has no UB.
      .Case([&](arith::AddIOp) {
        return setInt(uint64_t(intOperand(0)) + uint64_t(intOperand(1)));
      })
      .Case([&](arith::SubIOp) {
        return setInt(uint64_t(intOperand(0)) - uint64_t(intOperand(1)));
      })
      .Case([&](arith::MulIOp) {
        return setInt(uint64_t(intOperand(0)) * uint64_t(intOperand(1)));
      })
      .Case<arith::DivSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
            arith::RemSIOp>([&](auto div) -> LogicalResult {
        int64_t a = intOperand(0), b = intOperand(1);
        std::string rule = pto_check::integer_division(a, b);
        if (!rule.empty())
          return fault(rule);
        int64_t q = a / b, r = a % b;
        using Op = decltype(div);
        if constexpr (std::is_same_v<Op, arith::CeilDivSIOp>)
          q += (r != 0 && ((r > 0) == (b > 0))) ? 1 : 0;
        if constexpr (std::is_same_v<Op, arith::FloorDivSIOp>)
          q -= (r != 0 && ((r < 0) != (b < 0))) ? 1 : 0;
        env[result] = std::is_same_v<Op, arith::RemSIOp> ? r : q;
        return success();
      })
      .Case([&](arith::MinSIOp) {
        env[result] = std::min(intOperand(0), intOperand(1));
        return success();
      })
      .Case([&](arith::MaxSIOp) {
        env[result] = std::max(intOperand(0), intOperand(1));
        return success();
      })
      .Case([&](arith::CmpIOp cmp) {
        int64_t a = intOperand(0), b = intOperand(1);
        bool r = false;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq: r = a == b; break;
        case arith::CmpIPredicate::ne: r = a != b; break;
        case arith::CmpIPredicate::slt: r = a < b; break;
        case arith::CmpIPredicate::sle: r = a <= b; break;
        case arith::CmpIPredicate::sgt: r = a > b; break;
        case arith::CmpIPredicate::sge: r = a >= b; break;
        case arith::CmpIPredicate::ult: r = uint64_t(a) < uint64_t(b); break;
        case arith::CmpIPredicate::ule: r = uint64_t(a) <= uint64_t(b); break;
        case arith::CmpIPredicate::ugt: r = uint64_t(a) > uint64_t(b); break;
        case arith::CmpIPredicate::uge: r = uint64_t(a) >= uint64_t(b); break;
        }
        env[result] = int64_t(r);
        return success();
      })
      .Case([&](arith::SelectOp select) {
        // A copy first: env[result] may grow the value vector and move
        // what env.at() refers to (heap-use-after-free found by ASan).
        RuntimeValue chosen = env.at(intOperand(0) ? select.getTrueValue()
                                                   : select.getFalseValue());
        env[result] = std::move(chosen);
        return success();
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>([&](auto) {
        return setInt(uint64_t(intOperand(0)));
      })
      .Case([&](arith::AndIOp) {
        env[result] = intOperand(0) & intOperand(1);
        return success();
      })
      .Case([&](arith::OrIOp) {
        env[result] = intOperand(0) | intOperand(1);
        return success();
      })
      .Case([&](arith::XOrIOp) {
        env[result] = intOperand(0) ^ intOperand(1);
        return success();
      })
      .Case([&](arith::AddFOp) { return setFloat(floatOperand(0) + floatOperand(1)); })
      .Case([&](arith::SubFOp) { return setFloat(floatOperand(0) - floatOperand(1)); })
      .Case([&](arith::MulFOp) { return setFloat(floatOperand(0) * floatOperand(1)); })
      .Case([&](arith::DivFOp) { return setFloat(floatOperand(0) / floatOperand(1)); })
      .Case([&](arith::NegFOp) { return setFloat(-floatOperand(0)); })
      .Case([&](arith::SIToFPOp) { return setFloat(double(intOperand(0))); })
      .Case([&](arith::ExtFOp) { return setFloat(floatOperand(0)); })
      .Default([&](Operation *other) -> LogicalResult {
        return fault("cannot execute '" + other->getName().getStringRef() +
                     "'");
      });
}

LogicalResult Interpreter::execCheckView(CheckViewOp op) {
  const TensorRef &tensor = getTensor(op.getTensor());
  SmallVector<int64_t, 4> offsets, valid;
  for (Value v : op.getOffsets())
    offsets.push_back(getInt(v));
  for (Value v : op.getValidShape())
    valid.push_back(getInt(v));
  std::string name = tensor.name.str();
  std::string rule = pto_check::view(
      "tensor", name.c_str(), tensor.shape.data(), offsets.data(),
      valid.empty() ? nullptr : valid.data(), offsets.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  return success();
}

LogicalResult Interpreter::execRead(ReadOp op) {
  const TensorRef &tensor = getTensor(op.getTensor());
  if (tensor.storage->shapeOnly)
    return op.emitError()
           << "pto-run: pto.read of '" << tensor.name
           << "' needs its values, which a --no-numerics run does not "
              "have (the tensor was given as a shape, or the kernel wrote "
              "it); give --input "
           << tensor.name << "=FILE.npy, or run without --no-numerics";
  flushAtomics(tensor.storage);
  SmallVector<int64_t, 4> strides = rowMajorStrides(tensor.shape);
  SmallVector<int64_t, 4> index;
  for (Value i : op.getIndices())
    index.push_back(getInt(i));
  std::string name = tensor.name.str();
  std::string rule = pto_check::scalar_read(name.c_str(), index.data(),
                                            tensor.shape.data(), index.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  int64_t linear = 0;
  for (auto [i, stride] : llvm::zip(index, strides))
    linear += i * stride;
  env[op.getResult()] = tensor.storage->loadInt(linear);
  return success();
}

LogicalResult Interpreter::execReshape(ReshapeOp op) {
  const TensorRef &source = getTensor(op.getSource());
  SmallVector<int64_t, 4> shape =
      mixedValues(op.getStaticShape(), op.getShape());
  // The tensor's own extents: its storage may have been reshaped before.
  std::string name = source.name.str();
  std::string rule = pto_check::reshape(
      name.c_str(),
      std::vector<int64_t>(source.shape.begin(), source.shape.end()),
      std::vector<int64_t>(shape.begin(), shape.end()));
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;
  TensorRef result = source;
  result.shape = shape;
  env[op.getResult()] = result;
  return success();
}

//===----------------------------------------------------------------------===//
// Views and stores
//===----------------------------------------------------------------------===//

/// Calls `f(srcLinear, dstLinear, count)` for each innermost contiguous run of
/// a `valid`-sized block; `srcStrides`/`dstStrides` are per-dim strides.
template <typename F>
void forEachRow(ArrayRef<int64_t> valid, ArrayRef<int64_t> srcStrides,
                int64_t srcBase, ArrayRef<int64_t> dstStrides, int64_t dstBase,
                F &&f) {
  int64_t rank = valid.size();
  for (int64_t v : valid)
    if (v == 0)
      return;
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t inner = valid[rank - 1];
  while (true) {
    int64_t s = srcBase, d = dstBase;
    for (int64_t k = 0; k + 1 < rank; ++k) {
      s += idx[k] * srcStrides[k];
      d += idx[k] * dstStrides[k];
    }
    f(s, d, inner);
    int64_t k = rank - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < valid[k])
        break;
      idx[k] = 0;
    }
    if (k < 0)
      return;
  }
}

LogicalResult Interpreter::execView(ViewOp op) {
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  SmallVector<int64_t, 4> offsets =
      mixedValues(op.getStaticOffsets(), op.getOffsets());
  SmallVector<int64_t, 4> explicitValid;
  if (auto staticValid = op.getStaticValidShape())
    explicitValid = mixedValues(*staticValid, op.getValidShape());

  // The parent's extents: a tensor's dims, or a tile's valid extents.
  SmallVector<int64_t, 4> parent;
  StringRef what;
  std::string parentName;
  if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
    parent = tensor->shape;
    what = "tensor";
    parentName = tensor->name.str();
    flushAtomics(tensor->storage);
  } else {
    parent = getTile(op.getSource()).valid;
    what = "the valid region of tile";
    parentName = "source";
  }
  std::string rule = pto_check::view(
      what.str().c_str(), parentName.c_str(), parent.data(), offsets.data(),
      explicitValid.empty() ? nullptr : explicitValid.data(), offsets.size());
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;

  TileValue tile = newTile(op.getResult(), *valid);
  float *out = tile.data ? tile.data->data() : nullptr;
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(tile.valid);
  if (!options.numerics) {
    if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
      if (observer())
        observer()->gmRead(op, tensor->storage, tensor->name == "workspace",
                           uint64_t(tile.numValid()) *
                               getByteSize(tensor->storage->kind));
    } else {
      tile.gm = getTile(op.getSource()).gm;
    }
  } else if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(tensor->shape);
    // Every offset is inside its dim when the view has valid elements (an
    // empty view may sit anywhere, and reads nothing).
    int64_t base = 0;
    if (tile.numValid() > 0)
      for (auto [o, s] : llvm::zip(offsets, srcStrides))
        base += o * s;
    const HostTensor &storage = *tensor->storage;
    if (observer())
      observer()->gmRead(op, &storage, tensor->name == "workspace",
                         uint64_t(tile.numValid()) * getByteSize(storage.kind));
    forEachRow(tile.valid, srcStrides, base, dstStrides, 0,
               [&](int64_t s, int64_t d, int64_t n) {
                 if (storage.kind == ElementKind::BF16) {
                   auto *src = reinterpret_cast<const uint16_t *>(
                       storage.bytes.data());
                   for (int64_t i = 0; i < n; ++i)
                     out[d + i] = bf16ToFloat(src[s + i]);
                 } else if (storage.kind == ElementKind::F32) {
                   std::memcpy(out + d, storage.bytes.data() + 4 * s, 4 * n);
                 } else {
                   for (int64_t i = 0; i < n; ++i)
                     out[d + i] = storage.loadFloat(s + i);
                 }
               });
  } else {
    const TileValue &source = getTile(op.getSource());
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(source.valid);
    int64_t base = 0;
    for (auto [o, s] : llvm::zip(offsets, srcStrides))
      base += o * s;
    const float *in = source.data->data();
    forEachRow(tile.valid, srcStrides, base, dstStrides, 0,
               [&](int64_t s, int64_t d, int64_t n) {
                 std::memcpy(out + d, in + s, sizeof(float) * n);
               });
    tile.gm = source.gm;
  }
  if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource())))
    if (observer() && !isInsideLeaf(op))
      tile.gm = &provenances.emplace_back(
          TileProvenance{tensor->storage, nextLaunchId});
  env[op.getResult()] = std::move(tile);
  return success();
}

LogicalResult Interpreter::execStore(Operation *op, Value srcValue,
                                     Value dstValue,
                                     ArrayRef<int64_t> staticOffsets,
                                     ValueRange dynamicOffsets, bool atomic) {
  const TileValue &src = getTile(srcValue);
  const TensorRef &dst = getTensor(dstValue);
  SmallVector<int64_t, 4> offsets = mixedValues(staticOffsets, dynamicOffsets);
  StringRef opName = atomic ? "atomic_add" : "assemble";
  // An empty valid region writes nothing, wherever it points (tail pieces
  // of an expanded tile can lie past the end of the tensor).
  if (src.numValid() == 0)
    return success();
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    if (offset < 0 || offset + src.valid[d] > dst.shape[d])
      return op->emitError()
             << "pto-run: " << opName << " writes "
             << rangeStr(offset, offset + src.valid[d]) << " of dim " << d
             << " of '" << dst.name << "', which has " << dst.shape[d]
             << " (offsets " << listStr(offsets) << ", valid extents "
             << listStr(src.valid) << ", tensor shape " << listStr(dst.shape)
             << ")";
  }
  if (observer())
    observer()->gmWrite(op, dst.storage, dst.name == "workspace",
                        uint64_t(src.numValid()) *
                            getByteSize(dst.storage->kind),
                        atomic);
  if (!options.numerics) {
    if (atomic)
      stats.atomicElements += src.numValid();
    // Its values are now unknown: a later scalar read of it is a fault, not
    // a read of stale values.
    if (!dst.storage->shapeOnly) {
      std::vector<uint8_t>().swap(dst.storage->bytes);
      dst.storage->shapeOnly = true;
    }
    return success();
  }
  if (atomic && options.shuffleAtomics) {
    pendingAtomics[dst.storage].push_back({src, offsets, dst.shape});
    return success();
  }
  if (!atomic)
    flushAtomics(dst.storage);
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(dst.shape);
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(src.valid);
  int64_t base = 0;
  for (auto [o, s] : llvm::zip(offsets, dstStrides))
    base += o * s;
  HostTensor &storage = *dst.storage;
  const float *in = src.data->data();
  if (atomic)
    stats.atomicElements += src.numValid();
  forEachRow(src.valid, srcStrides, 0, dstStrides, base,
             [&](int64_t s, int64_t d, int64_t n) {
               if (storage.kind == ElementKind::F32) {
                 float *out = reinterpret_cast<float *>(storage.bytes.data());
                 for (int64_t i = 0; i < n; ++i)
                   out[d + i] = atomic ? out[d + i] + in[s + i] : in[s + i];
                 return;
               }
               for (int64_t i = 0; i < n; ++i)
                 storage.storeFloat(d + i, atomic ? storage.loadFloat(d + i) +
                                                        in[s + i]
                                                  : in[s + i]);
             });
  return success();
}

void Interpreter::flushAtomics(HostTensor *storage) {
  auto it = pendingAtomics.find(storage);
  if (it == pendingAtomics.end() || it->second.empty())
    return;
  std::vector<PendingAtomic> pending = std::move(it->second);
  pendingAtomics.erase(it);
  std::shuffle(pending.begin(), pending.end(), rng);
  for (const PendingAtomic &atomic : pending) {
    SmallVector<int64_t, 4> dstStrides = rowMajorStrides(atomic.dstShape);
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(atomic.src.valid);
    int64_t base = 0;
    for (auto [o, s] : llvm::zip(atomic.offsets, dstStrides))
      base += o * s;
    const float *in = atomic.src.data->data();
    stats.atomicElements += atomic.src.numValid();
    forEachRow(atomic.src.valid, srcStrides, 0, dstStrides, base,
               [&](int64_t s, int64_t d, int64_t n) {
                 for (int64_t i = 0; i < n; ++i)
                   storage->storeFloat(d + i,
                                       storage->loadFloat(d + i) + in[s + i]);
               });
  }
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execMatmul(Operation *op, Value accValue,
                                      Value lhsValue, Value rhsValue,
                                      bool aTrans, bool bTrans) {
  const TileValue &a = getTile(lhsValue);
  const TileValue &b = getTile(rhsValue);
  int64_t m = aTrans ? a.valid[1] : a.valid[0];
  int64_t kA = aTrans ? a.valid[0] : a.valid[1];
  int64_t kB = bTrans ? b.valid[1] : b.valid[0];
  int64_t n = bTrans ? b.valid[0] : b.valid[1];
  if (kA != kB)
    return op->emitError() << "pto-run: matmul contracts " << kA
                           << " valid elements of the left operand (valid "
                           << listStr(a.valid) << ") with " << kB
                           << " of the right operand (valid "
                           << listStr(b.valid)
                           << "); the valid K extents must be equal";
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue c = newTile(op->getResult(0), *valid);
  float beta = 0.0f;
  if (accValue) {
    const TileValue &acc = getTile(accValue);
    if (acc.valid[0] != m || acc.valid[1] != n)
      return op->emitError()
             << "pto-run: matmul_acc adds a [" << m << ", " << n
             << "] product to an accumulator with valid extents "
             << listStr(acc.valid);
    if (c.data)
      std::copy(acc.data->begin(), acc.data->end(), c.data->begin());
    beta = 1.0f;
  }
  if (m > 0 && n > 0 && kA > 0) {
    // Row-major compact operands: the leading dim is the valid column count.
    if (c.data)
      cblas_sgemm(CblasRowMajor, aTrans ? CblasTrans : CblasNoTrans,
                  bTrans ? CblasTrans : CblasNoTrans, m, n, kA, 1.0f,
                  a.data->data(), std::max<int64_t>(1, a.valid[1]),
                  b.data->data(), std::max<int64_t>(1, b.valid[1]), beta,
                  c.data->data(), std::max<int64_t>(1, n));
    stats.matmulFlops += 2 * uint64_t(m) * uint64_t(n) * uint64_t(kA);
    if (observer())
      observer()->matmul(op, m, n, kA);
  }
  bindRounded(op->getResult(0), std::move(c));
  return success();
}

LogicalResult Interpreter::execWorkspace(WorkspaceOp op) {
  std::unique_ptr<HostTensor> &buffer =
      workspaces[{op.getOperation(), recordingSlot.value_or(0)}];
  GMTensorType type = op.getResult().getType();
  if (!buffer) {
    std::optional<ElementKind> kind = getElementKind(type.getElementType());
    if (!kind)
      return op.emitError() << "pto-run: cannot hold a workspace of "
                            << type.getElementType();
    buffer = options.numerics
                 ? std::make_unique<HostTensor>(*kind, type.getShape())
                 : std::make_unique<HostTensor>(
                       HostTensor::makeShapeOnly(*kind, type.getShape()));
  }
  if (recordingSlot)
    stitchWorkspaceBytes += buffer->getStorageSize();
  TensorRef ref;
  ref.storage = buffer.get();
  ref.shape.assign(type.getShape().begin(), type.getShape().end());
  ref.name = "workspace";
  env[op.getResult()] = ref;
  return success();
}

LogicalResult Interpreter::execCall(Operation *call, FlatSymbolRefAttr callee,
                                    ValueRange args) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
      call, callee.getAttr());
  if (!fn || fn.isExternal())
    return call->emitError() << "pto-run: cannot find the body of " << callee;
  SmallVector<RuntimeValue> values;
  for (Value arg : args)
    values.push_back(env.at(arg));
  return execBlock(fn.getFunctionBody().front(), values, nullptr);
}

//===----------------------------------------------------------------------===//
// Stitching
//===----------------------------------------------------------------------===//
//
// A root call with a `stitch` plan does not run at once: its body runs in
// recording mode (workspaces get the instance's own buffers, launches are
// recorded with their argument values) and the instance joins the stitch
// buffer. The buffer runs when it holds `depth` instances (the smallest depth
// of the buffered calls), before any control-program op that could observe
// or affect the buffered work, and at the end of the kernel. Its launches run
// round-robin across the instances: each round issues, per instance in
// order, the instance's first launch whose dependencies are done. That is a
// different valid order than one instance after the other: within an
// instance the token deps order the launches; across instances a launch
// waits for the earlier instances' launches touching the same GM tensor
// (conservatively the whole tensor), unless both only read or both only
// add atomically (docs/PyPTOModel.md#dependencies-inside-a-stitch).

enum : uint8_t { kStitchRead = 1, kStitchWrite = 2, kStitchAtomic = 4 };

/// Per leaf argument, how the leaf accesses it (kStitch* bits).
ArrayRef<uint8_t> Interpreter::leafAccesses(Operation *leaf) {
  auto it = leafAccessCache.find(leaf);
  if (it != leafAccessCache.end())
    return it->second;
  auto fn = cast<FunctionOpInterface>(leaf);
  Block &body = fn.getFunctionBody().front();
  SmallVector<uint8_t> bits(body.getNumArguments(), 0);
  auto mark = [&](Value tensor, uint8_t kind) {
    tensor = getAliasedTensor(tensor);
    if (auto arg = dyn_cast<BlockArgument>(tensor))
      if (arg.getOwner() == &body)
        bits[arg.getArgNumber()] |= kind;
  };
  fn.getFunctionBody().walk([&](Operation *op) {
    if (auto view = dyn_cast<ViewOp>(op))
      mark(view.getSource(), kStitchRead);
    else if (auto read = dyn_cast<ReadOp>(op))
      mark(read.getTensor(), kStitchRead);
    else if (auto store = dyn_cast<AssembleOp>(op))
      mark(store.getDst(), kStitchWrite);
    else if (auto store = dyn_cast<AtomicAddOp>(op))
      mark(store.getDst(), kStitchAtomic);
    else if (!isa<DimOp, ReshapeOp>(op))
      for (Value operand : op->getOperands())
        if (isa<GMTensorType>(operand.getType()))
          mark(operand, kStitchRead | kStitchWrite);
  });
  return leafAccessCache[leaf] = std::move(bits);
}

LogicalResult Interpreter::execLaunch(LaunchOp launch) {
  if (!recordingSlot) {
    env[launch.getToken()] = std::monostate();
    auto leaf = SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
        launch, launch.getCalleeAttr());
    if (!observer() || !leaf)
      return execCall(launch, launch.getCalleeAttr(), launch.getArgs());
    LaunchEvent event;
    event.leaf = leaf;
    event.id = nextLaunchId++;
    event.instance = currentInstance;
    for (Value dep : launch.getDeps())
      event.deps.push_back(tokenIds.lookup(dep));
    ArrayRef<uint8_t> bits = leafAccesses(leaf);
    for (auto [i, arg] : llvm::enumerate(launch.getArgs()))
      if (auto *tensor = std::get_if<TensorRef>(&env.at(arg))) {
        if (i < bits.size() && bits[i])
          event.accesses.push_back({tensor->storage, bits[i]});
      } else if (auto *tile = std::get_if<TileValue>(&env.at(arg))) {
        // A tile viewed from GM: the launch reads that tensor's contents as
        // of the view.
        if (tile->gm)
          event.tileReads.push_back({tile->gm->source, tile->gm->snapshot});
      }
    tokenIds[launch.getToken()] = event.id;
    observer()->launchBegin(event);
    LogicalResult result =
        execCall(launch, launch.getCalleeAttr(), launch.getArgs());
    observer()->launchEnd();
    return result;
  }
  auto fn = SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
      launch, launch.getCalleeAttr());
  if (!fn || fn.isExternal())
    return launch.emitError() << "pto-run: cannot find the body of "
                              << launch.getCalleeAttr();
  RootInstance &instance = stitchBuffer[*recordingSlot];
  RecordedLaunch record;
  record.leaf = fn;
  for (Value arg : launch.getArgs())
    record.args.push_back(env.at(arg));
  for (Value dep : launch.getDeps())
    record.deps.push_back(unsigned(std::get<int64_t>(env.at(dep))));
  ArrayRef<uint8_t> bits = leafAccesses(fn);
  for (auto [i, value] : llvm::enumerate(record.args)) {
    // For performance models: a tile viewed from GM (the interpreter holds
    // its data already; the stitched order need not wait for anything).
    if (auto *tile = std::get_if<TileValue>(&value); tile && tile->gm)
      record.tileReads.push_back({tile->gm->source, tile->gm->snapshot});
    auto *tensor = std::get_if<TensorRef>(&value);
    if (!tensor || i >= bits.size() || !bits[i])
      continue;
    auto it = llvm::find_if(record.accesses, [&](auto &access) {
      return access.first == tensor->storage;
    });
    if (it == record.accesses.end())
      record.accesses.push_back({tensor->storage, bits[i]});
    else
      it->second |= bits[i];
    if (bits[i] & (kStitchWrite | kStitchAtomic))
      stitchWritten.insert(tensor->storage);
  }
  env[launch.getToken()] = int64_t(instance.launches.size());
  instance.launches.push_back(std::move(record));
  return success();
}

LogicalResult Interpreter::execRootCall(RootCallOp call) {
  StitchPlanAttr plan = call.getStitchAttr();
  if (!plan || recordingSlot || inStitchFlush) {
    if (!recordingSlot && !inStitchFlush)
      currentInstance = nextInstanceId++;
    return execCall(call, call.getCalleeAttr(), call.getArgs());
  }
  recordingSlot = stitchBuffer.size();
  stitchBuffer.emplace_back();
  stitchBuffer.back().id = nextInstanceId++;
  LogicalResult recorded = execCall(call, call.getCalleeAttr(), call.getArgs());
  recordingSlot.reset();
  if (failed(recorded))
    return failure();
  ++stats.rootInstances;
  stitchLimit = std::min(stitchLimit, plan.getDepth());
  if (int64_t(stitchBuffer.size()) >= stitchLimit ||
      stitchWorkspaceBytes >= options.maxStitchWorkspaceBytes)
    return flushStitch();
  return success();
}

/// Ops of the control program that cannot interact with buffered instances:
/// index arithmetic, loop bookkeeping, more stitched root calls, scalar reads
/// of tensors the buffered launches do not write, view checks (they read
/// shapes, never data). A loop with
/// `submit_before_loop` is a forced submission point.
bool Interpreter::isStitchSafe(Operation *op) {
  if (auto loop = dyn_cast<LoopOp>(op))
    return !loop.getSubmitBeforeLoop();
  if (auto call = dyn_cast<RootCallOp>(op))
    return bool(call.getStitchAttr());
  if (auto read = dyn_cast<ReadOp>(op))
    return !stitchWritten.contains(getTensor(read.getTensor()).storage);
  if (isa<scf::IfOp, IsLoopBeginOp, IsLoopEndOp, DimOp, ReshapeOp,
          WorkspaceOp, CheckViewOp>(op))
    return true;
  return op->getDialect() && op->getDialect()->getNamespace() == "arith";
}

LogicalResult Interpreter::flushStitch() {
  if (stitchBuffer.empty())
    return success();
  std::vector<RootInstance> instances = std::move(stitchBuffer);
  stitchBuffer.clear();
  stitchWritten.clear();
  stitchLimit = std::numeric_limits<int64_t>::max();
  stitchWorkspaceBytes = 0;
  inStitchFlush = true;
  llvm::scope_exit done([&] { inStitchFlush = false; });

  // Launches not yet run, per tensor and access kind, counted per instance.
  constexpr unsigned kinds[] = {kStitchRead, kStitchWrite, kStitchAtomic};
  llvm::DenseMap<HostTensor *, std::array<std::map<unsigned, unsigned>, 3>>
      pending;
  size_t total = 0;
  for (auto [i, instance] : llvm::enumerate(instances))
    for (RecordedLaunch &launch : instance.launches) {
      ++total;
      for (auto [storage, bits] : launch.accesses)
        for (unsigned k = 0; k < 3; ++k)
          if (bits & kinds[k])
            ++pending[storage][k][i];
    }
  // Whether a launch of an instance before `i` still pending conflicts.
  auto blocked = [&](unsigned i, const RecordedLaunch &launch) {
    for (auto [storage, bits] : launch.accesses) {
      auto &byKind = pending[storage];
      auto earlier = [&](unsigned k) {
        return !byKind[k].empty() && byKind[k].begin()->first < i;
      };
      bool read = earlier(0), write = earlier(1), atomic = earlier(2);
      if ((bits & kStitchWrite) && (read || write || atomic))
        return true;
      if ((bits & kStitchRead) && (write || atomic))
        return true;
      if ((bits & kStitchAtomic) && (read || write))
        return true;
    }
    return false;
  };

  SmallVector<llvm::BitVector> finished;
  for (RootInstance &instance : instances)
    finished.emplace_back(instance.launches.size());
  // Observer ids of the executed launches, per instance.
  SmallVector<SmallVector<uint64_t>> launchIds(instances.size());
  int64_t stitchId = nextStitchId++;
  if (observer()) {
    for (auto [i, instance] : llvm::enumerate(instances))
      launchIds[i].resize(instance.launches.size());
    observer()->stitchBegin(stitchId, instances.size(), total);
  }
  size_t executed = 0, sequential = 0;
  SmallVector<size_t> sequentialBase;
  for (RootInstance &instance : instances) {
    sequentialBase.push_back(sequential);
    sequential += instance.launches.size();
  }
  // Per instance, its first launch not yet run: the scan for the next
  // launch starts there (rescanning the finished prefix every round made
  // the stitch quadratic in its launches per instance).
  SmallVector<size_t> firstPending(instances.size(), 0);
  while (executed < total) {
    bool progress = false;
    for (unsigned i = 0; i < instances.size(); ++i) {
      const llvm::BitVector &own = finished[i];
      size_t &first = firstPending[i];
      while (first < own.size() && own.test(first))
        ++first;
      for (size_t l = first, e = instances[i].launches.size(); l < e; ++l) {
        RecordedLaunch &launch = instances[i].launches[l];
        if (own.test(l) ||
            llvm::any_of(launch.deps,
                         [&](unsigned d) { return !own.test(d); }) ||
            blocked(i, launch))
          continue;
        auto fn = cast<FunctionOpInterface>(launch.leaf);
        if (observer()) {
          LaunchEvent event;
          event.leaf = launch.leaf;
          event.id = launchIds[i][l] = nextLaunchId++;
          event.instance = instances[i].id;
          event.stitch = stitchId;
          for (unsigned d : launch.deps)
            event.deps.push_back(launchIds[i][d]);
          for (auto [storage, bits] : launch.accesses)
            event.accesses.push_back({storage, bits});
          event.tileReads.assign(launch.tileReads.begin(),
                                 launch.tileReads.end());
          observer()->launchBegin(event);
        }
        if (failed(execBlock(fn.getFunctionBody().front(), launch.args,
                             nullptr)))
          return failure();
        if (observer())
          observer()->launchEnd();
        finished[i].set(l);
        for (auto [storage, bits] : launch.accesses)
          for (unsigned k = 0; k < 3; ++k)
            if (bits & kinds[k]) {
              auto &counts = pending[storage][k];
              auto it = counts.find(i);
              if (--it->second == 0)
                counts.erase(it);
            }
        if (sequentialBase[i] + l != executed)
          ++stats.reorderedLaunches;
        ++executed;
        ++stats.stitchedLaunches;
        progress = true;
        break;
      }
    }
    // The first pending launch in instance order always has its
    // dependencies done, so every round makes progress.
    assert(progress && "stitched launches deadlocked");
    if (!progress)
      return failure();
  }
  ++stats.stitches;
  return success();
}

template <typename F>
void elementwise(ArrayRef<int64_t> valid, ArrayRef<int64_t> lhsStrides,
                 const float *lhs, ArrayRef<int64_t> rhsStrides,
                 const float *rhs, float *out, F f) {
  // Pad to rank 4 so that one loop nest serves every rank.
  int64_t rank = valid.size();
  int64_t v[4] = {1, 1, 1, 1}, ls[4] = {0, 0, 0, 0}, rs[4] = {0, 0, 0, 0};
  for (int64_t d = 0; d < rank; ++d) {
    v[4 - rank + d] = valid[d];
    ls[4 - rank + d] = lhsStrides[d];
    rs[4 - rank + d] = rhsStrides[d];
  }
  int64_t o = 0;
  for (int64_t i0 = 0; i0 < v[0]; ++i0)
    for (int64_t i1 = 0; i1 < v[1]; ++i1)
      for (int64_t i2 = 0; i2 < v[2]; ++i2) {
        const float *l = lhs + i0 * ls[0] + i1 * ls[1] + i2 * ls[2];
        const float *r = rhs + i0 * rs[0] + i1 * rs[1] + i2 * rs[2];
        float *dst = out + o;
        if (ls[3] == 1 && rs[3] == 1) {
          for (int64_t i3 = 0; i3 < v[3]; ++i3)
            dst[i3] = f(l[i3], r[i3]);
        } else if (ls[3] == 1 && rs[3] == 0) {
          float scalar = *r;
          for (int64_t i3 = 0; i3 < v[3]; ++i3)
            dst[i3] = f(l[i3], scalar);
        } else {
          for (int64_t i3 = 0; i3 < v[3]; ++i3)
            dst[i3] = f(l[i3 * ls[3]], r[i3 * rs[3]]);
        }
        o += v[3];
      }
}

LogicalResult Interpreter::execBinary(Operation *op, Value lhsValue,
                                      Value rhsValue) {
  const TileValue &lhs = getTile(lhsValue);
  Value result = op->getResult(0);
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  auto resultType = cast<TileType>(result.getType());
  int64_t rank = resultType.getRank();

  // Per-operand strides over the result's valid index space: 0 along a
  // broadcast dim. Non-broadcast dims must agree in valid extent.
  auto stridesFor = [&](const TileValue &operand, StringRef side,
                        SmallVectorImpl<int64_t> &strides) -> LogicalResult {
    SmallVector<int64_t, 4> compact = rowMajorStrides(operand.valid);
    for (int64_t d = 0; d < rank; ++d) {
      bool broadcast = operand.type.getDimSize(d) == 1 &&
                       resultType.getDimSize(d) != 1;
      if (broadcast) {
        if (operand.valid[d] != 1 && (*valid)[d] > 0)
          return op->emitError()
                 << "pto-run: the " << side << " operand broadcasts dim " << d
                 << " but has valid extent " << operand.valid[d]
                 << " there; a broadcast operand needs 1 valid element";
        strides.push_back(0);
        continue;
      }
      if (operand.valid[d] != (*valid)[d])
        return op->emitError()
               << "pto-run: operands have different valid extents in dim " << d
               << " (" << side << " operand: " << operand.valid[d]
               << ", result: " << (*valid)[d]
               << "); elementwise ops need matching valid shapes, valid "
               << listStr(operand.valid) << " vs " << listStr(*valid);
      strides.push_back(compact[d]);
    }
    return success();
  };

  SmallVector<int64_t, 4> lhsStrides, rhsStrides;
  if (failed(stridesFor(lhs, "left", lhsStrides)))
    return failure();
  float scalar = 0;
  const float *rhsData = &scalar;
  if (isa<TileType>(rhsValue.getType())) {
    const TileValue &rhs = getTile(rhsValue);
    if (failed(stridesFor(rhs, "right", rhsStrides)))
      return failure();
    rhsData = rhs.data ? rhs.data->data() : nullptr;
  } else {
    scalar = float(getFloat(rhsValue));
    rhsStrides.assign(rank, 0);
  }
  TileValue out = newTile(result, *valid);
  stats.vectorElements += out.numValid();
  if (observer())
    observer()->vectorOp(op, out.numValid());
  if (!out.data) {
    env[result] = std::move(out);
    return success();
  }
  const float *l = lhs.data->data();
  float *o = out.data->data();
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](AddOp) {
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return a + b; });
      })
      .Case([&](SubOp) {
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return a - b; });
      })
      .Case([&](MulOp) {
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return a * b; });
      })
      .Case([&](DivOp) {
        // INTRINSIC and HIGH_PRECISION both use the correctly rounded host
        // divide; the hardware's intrinsic differs in the last bits.
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return a / b; });
      })
      .Case([&](MaxOp) {
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return std::fmax(a, b); });
      })
      .Case([&](MinOp) {
        elementwise(*valid, lhsStrides, l, rhsStrides, rhsData, o,
                    [](float a, float b) { return std::fmin(a, b); });
      });
  bindRounded(result, std::move(out));
  return success();
}

LogicalResult Interpreter::execUnary(Operation *op, Value inputValue) {
  const TileValue &input = getTile(inputValue);
  TileValue out = newTile(op->getResult(0), input.valid);
  int64_t n = input.numValid();
  stats.vectorElements += n;
  if (observer())
    observer()->vectorOp(op, n);
  if (!out.data) {
    env[op->getResult(0)] = std::move(out);
    return success();
  }
  const float *in = input.data->data();
  float *o = out.data->data();
  auto apply = [&](auto f) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = f(in[i]);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ExpOp) { apply([](float x) { return std::exp(x); }); })
      .Case([&](NegOp) { apply([](float x) { return -x; }); })
      .Case([&](AbsOp) { apply([](float x) { return std::fabs(x); }); })
      .Case([&](SqrtOp) { apply([](float x) { return std::sqrt(x); }); })
      .Case([&](RsqrtOp) {
        apply([](float x) { return 1.0f / std::sqrt(x); });
      })
      .Case([&](ReciprocalOp) { apply([](float x) { return 1.0f / x; }); });
  bindRounded(op->getResult(0), std::move(out));
  return success();
}

LogicalResult Interpreter::execReduce(Operation *op, Value inputValue,
                                      int64_t dim, bool isAmax) {
  const TileValue &input = getTile(inputValue);
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue out = newTile(op->getResult(0), *valid);
  stats.vectorElements += input.numValid();
  if (observer())
    observer()->vectorOp(op, input.numValid());
  if (!out.data) {
    env[op->getResult(0)] = std::move(out);
    return success();
  }
  // outer x reduced x inner decomposition of the input's valid region.
  int64_t outer = 1, inner = 1, reduced = input.valid[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= input.valid[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(input.valid.size()); ++d)
    inner *= input.valid[d];
  // Over an empty valid extent sum gives 0 and amax -inf (their identities).
  const float *in = input.data->data();
  float *o = out.data->data();
  for (int64_t i = 0; i < outer; ++i)
    for (int64_t j = 0; j < inner; ++j) {
      float acc = isAmax ? -INFINITY : 0.0f;
      for (int64_t r = 0; r < reduced; ++r) {
        float x = in[(i * reduced + r) * inner + j];
        acc = isAmax ? std::fmax(acc, x) : acc + x;
      }
      o[i * inner + j] = acc;
    }
  bindRounded(op->getResult(0), std::move(out));
  return success();
}

LogicalResult Interpreter::execCast(CastOp op) {
  const TileValue &input = getTile(op.getInput());
  Type to = op.getResult().getType().getElementType();
  CastMode mode = op.getEffectiveMode();
  TileValue out = newTile(op.getResult(), input.valid);
  int64_t n = input.numValid();
  stats.vectorElements += n;
  if (observer())
    observer()->vectorOp(op, n);
  if (!out.data) {
    if (!to.isBF16() && !to.isF16() && !to.isF32())
      return op.emitError() << "pto-run: casts to " << to
                            << " are not supported; the interpreter executes "
                               "float tiles (bf16, f16, f32) only";
    env[op.getResult()] = std::move(out);
    return success();
  }
  const float *in = input.data->data();
  float *o = out.data->data();
  if (to.isBF16()) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = bf16ToFloat(floatToBF16(in[i], mode));
  } else if (to.isF16()) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = roundToF16(in[i], mode);
  } else if (to.isF32()) {
    bool widening = !op.getInput().getType().getElementType().isF32();
    for (int64_t i = 0; i < n; ++i)
      o[i] = widening ? in[i] : roundToIntegral(in[i], mode);
  } else {
    return op.emitError() << "pto-run: casts to " << to
                          << " are not supported; the interpreter executes "
                             "float tiles (bf16, f16, f32) only";
  }
  env[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Interpreter::execFull(FullOp op) {
  TileType type = op.getResult().getType();
  TileValue tile = newTile(op.getResult(), type.getShape());
  float value = roundTo(type.getElementType(),
                        float(op.getValue().convertToDouble()));
  if (tile.data)
    std::fill(tile.data->begin(), tile.data->end(), value);
  env[op.getResult()] = std::move(tile);
  return success();
}

LogicalResult Interpreter::execTranspose(TransposeOp op) {
  const TileValue &input = getTile(op.getInput());
  int64_t dim0 = op.getDim0(), dim1 = op.getDim1();
  SmallVector<int64_t, 4> valid(input.valid);
  std::swap(valid[dim0], valid[dim1]);
  TileValue out = newTile(op.getResult(), valid);
  int64_t n = input.numValid(), rank = valid.size();
  stats.vectorElements += n;
  // TTRANS on A2/A3 is two passes over the data: scatter_vnchwconv into the
  // scratch tile, then a ub -> ub copy (pto-isa a2a3/TTrans.hpp).
  if (observer())
    observer()->vectorOp(op, 2 * n);
  if (!out.data) {
    env[op.getResult()] = std::move(out);
    return success();
  }
  // Row-major strides of the output's valid region, walked in input order:
  // input element (.., i, .., j, ..) lands at output (.., j, .., i, ..).
  SmallVector<int64_t, 4> outStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    outStride[d] = outStride[d + 1] * valid[d + 1];
  std::swap(outStride[dim0], outStride[dim1]);
  const float *in = input.data->data();
  float *o = out.data->data();
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    o[at] = in[i];
    for (int64_t d = rank - 1; d >= 0; --d) {
      at += outStride[d];
      if (++idx[d] < input.valid[d])
        break;
      at -= outStride[d] * idx[d];
      idx[d] = 0;
    }
  }
  env[op.getResult()] = std::move(out);
  return success();
}

LogicalResult Interpreter::execGatherMask(GatherMaskOp op) {
  const TileValue &input = getTile(op.getInput());
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue out = newTile(op.getResult(), *valid);
  stats.vectorElements += input.numValid();
  // One pass over the source (vreducev2 reads every valid element).
  if (observer())
    observer()->vectorOp(op, input.numValid());
  int64_t stride = op.getStride(), phase = op.getPhase();
  int64_t inCols = input.valid.back(), outCols = out.valid.back();
  int64_t rows = outCols == 0 ? 0 : out.numValid() / outCols;
  const float *in = input.data->data();
  float *o = out.data->data();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < outCols; ++c)
      o[r * outCols + c] = in[r * inCols + phase + c * stride];
  env[op.getResult()] = std::move(out);
  return success();
}

/// The kernel argument a GM tensor value aliases (through reshapes), if any.
std::optional<unsigned> argumentOf(KernelOp kernel, Value tensor) {
  tensor = getAliasedTensor(tensor);
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    if (arg.getOwner()->getParentOp() == kernel.getOperation())
      return arg.getArgNumber();
  return std::nullopt;
}

} // namespace

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
      kernel, [&](Value tensor) { return argumentOf(kernel, tensor); },
      written, 0);
  return SmallVector<unsigned>(written.begin(), written.end());
}

llvm::Error interp::checkArguments(KernelOp kernel,
                                   ArrayRef<HostTensor> args) {
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
                   " (.npy dtype " + getNumpyDescr(*kind) + ") but the data is " +
                   getKindName(arg.kind) + " (" + getNumpyDescr(arg.kind) + ")");
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
                       "start at 0, but " + name + "[0] = " + Twine(value));
        if (j > 0 && value < arg.loadInt(j - 1))
          return error("argument '" + name +
                       "' holds cumulative offsets (pto.cumulative) and must "
                       "not decrease, but " + name + "[" + Twine(j) + "] = " +
                       Twine(value) + " < " + name + "[" + Twine(j - 1) +
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
