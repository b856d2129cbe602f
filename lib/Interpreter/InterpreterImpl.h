//===- InterpreterImpl.h - pto-run interpreter internals
//--------------------===//
//
// Private to lib/Interpreter: the run-time values, the environment and the
// Interpreter class. Its member functions are defined one op family per
// file: Interpreter.cpp (control flow, entry points), ExecScalars.cpp,
// ExecMemory.cpp, ExecTileOps.cpp and Stitching.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_INTERPRETER_INTERPRETERIMPL_H
#define PTO_LIB_INTERPRETER_INTERPRETERIMPL_H

#include "pto/Interpreter/Interpreter.h"
#include "pto/Interpreter/Numerics.h"
#include "pto/Interpreter/ShapeOnly.h"
#include "pto/runtime/checks.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
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

namespace mlir::pto::interp::detail {

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::interp;

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

inline std::string rangeStr(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

inline std::string listStr(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

inline SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
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

/// 1 where `a <mode> b` holds (IEEE), else 0 (ExecMask.cpp).
float applyCompare(CompareOp op, float a, float b);
/// An elementwise operand read over the result's valid extents (NaN beyond
/// its own valid extent along the dims it does not broadcast).
TileValue readBeyondValid(const TileValue &operand, ArrayRef<int64_t> valid,
                          TileType resultType);

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
  Extent mul(Extent a, int64_t factor) override {
    return a.getConstant() * factor;
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
  const RuntimeValue *lookup(Value v) const { return env.lookup(v); }

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
  LogicalResult execCheckTileView(CheckTileViewOp op);
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
  LogicalResult execArange(ArangeOp op);
  LogicalResult execTranspose(TransposeOp op);
  LogicalResult execGatherMask(GatherMaskOp op);
  LogicalResult execBitcast(BitcastOp op);
  LogicalResult execTopK(TopKOp op);
  LogicalResult execCompare(CompareOp op);
  LogicalResult execWhere(WhereOp op);
  LogicalResult execStore(Operation *op, Value src, Value dst,
                          ArrayRef<int64_t> staticOffsets,
                          ValueRange dynamicOffsets, bool atomic);
  LogicalResult execIndexPut(IndexPutOp op);

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
  uint64_t stitchWorkspaceBytes = 0;     // of the buffered instances
  std::optional<unsigned> recordingSlot; // the instance being recorded
  bool inStitchFlush = false;
  llvm::DenseSet<HostTensor *> stitchWritten;
  llvm::DenseMap<Operation *, SmallVector<uint8_t>> leafAccessCache;
  /// The callee of every executed launch and call: one symbol table per
  /// module, not a scan of the module per execution.
  SymbolTableCollection symbolTables;
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

} // namespace mlir::pto::interp::detail

#endif // PTO_LIB_INTERPRETER_INTERPRETERIMPL_H
