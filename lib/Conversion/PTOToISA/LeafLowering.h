//===- LeafLowering.h - pto-lower-to-isa, shared by its parts ---*- C++ -*-===//
//
// The leaf rewriter of pto-lower-to-isa. Its parts live in one file per
// concern: LowerToISA.cpp (helpers, stores, the driver and the pass),
// LowerVector.cpp (vector ops), LowerElementwise.cpp (binary elementwise
// ops and their broadcasts), LowerCube.cpp (matmul chains),
// LowerTileView.cpp (views of tiles), CollapseND.cpp (tiles of rank other
// than 2), LowerPerLeadingIndex.cpp (N-D ops as one instruction per
// leading index), LowerMask.cpp (DT_BOOL masks) and SplitTransfers.cpp
// (long GM <-> UB transfers in chunks).
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_CONVERSION_PTOTOISA_LEAFLOWERING_H
#define PTO_LIB_CONVERSION_PTOTOISA_LEAFLOWERING_H

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/IR/PTOInterfaces.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::pto::lower_to_isa {

namespace pisa = mlir::ptoisa;

enum class BinKind { Add, Sub, Mul, Div, Max, Min };

inline int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// The most rows one GM <-> UB transfer moves on A2/A3 (a 12-bit burst
/// count; SplitTransfers.cpp).
constexpr int64_t kMaxUbTransferRows = 4095;

/// The pto_isa instruction of `k` on equal shapes (LowerElementwise.cpp).
void createBinary(OpBuilder &b, Location loc, BinKind k, Value lhs, Value rhs,
                  Value dst,
                  PrecisionType precision = PrecisionType::INTRINSIC);

/// Elements per 32-byte block of `t`.
inline int64_t blockElems(Type t) {
  return 32 / std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// How a tile of rank other than 2 is held in a 2-D pto_isa tile: the dims
/// before the last non-unit dim are linearised into rows, that dim is the
/// columns and the unit dims after it are dropped ([64, 16, 1] -> [64, 16],
/// [64, 1, 16] -> [64, 16], [N] -> [1, N]). Rank-2 tiles stay as they are.
inline unsigned columnDim(ArrayRef<int64_t> shape) {
  if (shape.size() == 2)
    return 1;
  for (unsigned d = shape.size(); d-- > 0;)
    if (shape[d] != 1)
      return d;
  return shape.empty() ? 0 : shape.size() - 1;
}

inline std::string shapeString(pto::TileType t) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(t.getShape()))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// Records every op the builder (and the reifier through it) inserts, so the
/// index arithmetic the lowering reified but did not use can be removed, and
/// the ops the lowering erased. An op created at the address of an erased
/// one is a new op: it leaves `erased` and takes its place at the end of
/// `ops`, so what the cleanups keep does not depend on where malloc puts
/// ops (it did: a constant that reused an erased op's address was skipped).
struct InsertedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (erased.erase(op))
      ops.remove(op);
    ops.insert(op);
  }
  llvm::SetVector<Operation *> ops;
  llvm::SmallPtrSet<Operation *, 32> erased;
};

/// Identity of a GM window as a pto.view states it: the same source, offsets,
/// shape and explicit valid extents name the same bytes with the same valid
/// region. `transpose` distinguishes the L1 images of a DN load.
struct WindowKey {
  Value source;
  SmallVector<OpFoldResult> offsets, valid;
  SmallVector<int64_t> shape;
  bool transpose;
  bool operator==(const WindowKey &o) const {
    return source == o.source && offsets == o.offsets && valid == o.valid &&
           shape == o.shape && transpose == o.transpose;
  }
};

class LeafLowering {
public:
  LeafLowering(func::FuncOp func, CoreKind kind)
      : func(func), kind(kind),
        platform(pto::getPlatformInfo(pto::getArchFor(func))),
        builder(func.getContext()), reifier(builder) {
    builder.setListener(&inserted);
  }

  LogicalResult run();
  /// MIX leaves: the GM tensor arguments that are on-chip exchanges at every
  /// launch (pto-mix-exchange's `pto.on_chip` workspaces).
  void setOnChipArguments(llvm::SmallDenseSet<unsigned> args) {
    onChipArgs = std::move(args);
  }
  /// MIX leaves: the exchange store whose piece holds each exchange view
  /// at every launch (pairExchangeViews).
  void setExchangePairing(DenseMap<Operation *, Operation *> pairing) {
    exchangeStoreOf = std::move(pairing);
  }
  /// MIX leaves: the AIV (0 or 1) running each op of the vector part
  /// (assignSubblocks); the UB tiles lowering an op are that AIV's.
  void setSubblocks(DenseMap<Operation *, unsigned> assignment) {
    subblockOf = std::move(assignment);
  }

private:
  // Types and values.
  FailureOr<pisa::TileType> makeTileType(Operation *op, pisa::MemorySpace space,
                                         int64_t rows, int64_t cols, Type elem,
                                         pisa::TileLayout layout);
  FailureOr<pisa::TileType> ubTypeFor(Operation *op, Value ptoTile);
  Value constIndex(int64_t c);
  Value materialize(OpFoldResult ofr);
  std::pair<Value, Value> validOf(Location loc, Value ptoTile);
  Value alloc(Location loc, pisa::TileType type, Value rows, Value cols);
  SmallVector<OpFoldResult> normalize(ArrayRef<OpFoldResult> values);
  FailureOr<Value> lookup(Operation *user, Value ptoTile);
  LogicalResult expectLowerableRank(Operation *op);
  LogicalResult expectCollapsible(Operation *op, Value ptoTile,
                                  bool evenIfRowLocal = false);
  OpFoldResult mul(Location loc, OpFoldResult a, OpFoldResult b);
  struct Window2D {
    Value tensor;
    Value row, col;
  };
  FailureOr<Window2D> window2D(Operation *op, Value tensor,
                               ArrayRef<OpFoldResult> offsets, Value ptoTile);
  FailureOr<Window2D> window2D(Operation *op, Value tensor,
                               ArrayRef<OpFoldResult> offsets,
                               ArrayRef<int64_t> tileShape, unsigned c);
  unsigned gmRunSplit(Operation *op, Value tensor, Value ptoTile);
  bool isRowLocal(Operation *op);
  LogicalResult lowerGMAccessPerRun(Operation *op, Value tensor,
                                    ArrayRef<OpFoldResult> offsets,
                                    Value ptoTile, Value ubTile, unsigned split,
                                    bool store, bool atomic);
  LogicalResult assignColumnForms();
  Value formRoot(Value v);
  unsigned heldColumnDim(Value ptoTile);
  std::pair<int64_t, int64_t> heldShape(Value ptoTile);
  FailureOr<std::pair<bool, bool>> broadcastOf(Operation *user, Value operand);
  void computeColumnAlignment();

  // Vector leaves.
  LogicalResult lowerVectorView(ViewOp op);
  LogicalResult lowerTileView(ViewOp op);
  LogicalResult lowerUnalignedColumnView(ViewOp op, Value src, Value dst,
                                         int64_t rows, int64_t cols,
                                         int64_t row, Value rowOffset,
                                         int64_t col);
  Value rowsAtIndex(Location loc, int64_t o, OpFoldResult count, Value extent);
  struct LeadingReduction {
    ArrayRef<int64_t> shape; // the pto input's shape
    unsigned columnDim;
    int64_t outer; // indices of the dims before the reduced one
    Value src;
    pisa::TileType srcType, dstType;
  };
  FailureOr<LeadingReduction> leadingReduction(Operation *op, Value input,
                                               int64_t dim);
  OpFoldResult validProduct(Location loc, ArrayRef<OpFoldResult> valid,
                            unsigned from, unsigned to);
  LogicalResult lowerReducePerLeadingIndex(Operation *op, Value input,
                                           int64_t dim, bool isMax);
  LogicalResult lowerReduceOverBlocks(Operation *op, Value input, int64_t dim,
                                      bool isMax);
  std::optional<unsigned> keptLeadingDims(Value result, Value operand);
  std::optional<std::pair<unsigned, unsigned>> repeatedBlockDims(Value result,
                                                                 Value operand);
  LogicalResult lowerBinaryRepeatedBlocks(Operation *op, BinKind bin, Value lhs,
                                          Value rhs, bool broadcastLhs,
                                          std::pair<unsigned, unsigned> dims,
                                          PrecisionType precision);
  LogicalResult lowerBinaryPerLeadingIndex(Operation *op, BinKind bin,
                                           Value lhs, Value rhs,
                                           bool broadcastLhs, unsigned kept,
                                           PrecisionType precision);
  LogicalResult lowerTileViewPerRun(ViewOp op, int64_t runs, int64_t runRows,
                                    OpFoldResult count, OpFoldResult runValid,
                                    llvm::function_ref<int64_t(int64_t)> rowOf,
                                    int64_t col, Value rowOffset,
                                    Value colOffset);
  LogicalResult lowerBinary(Operation *op, BinKind bin, Value lhs, Value rhs);
  LogicalResult lowerUnary(Operation *op, Value input);
  Value lowerTanh(Location loc, Value src, pisa::TileType type, Value vr,
                  Value vc);
  LogicalResult lowerCast(CastOp op);
  LogicalResult lowerBitcast(BitcastOp op);
  LogicalResult lowerReduce(Operation *op, Value input, int64_t dim,
                            bool keepdim, bool isMax);
  LogicalResult lowerFull(FullOp op);
  LogicalResult lowerArange(ArangeOp op);
  LogicalResult lowerTranspose(TransposeOp op);
  LogicalResult lowerGatherMask(GatherMaskOp op);
  LogicalResult lowerTopK(TopKOp op);
  LogicalResult lowerIndexPut(IndexPutOp op);
  // DT_BOOL masks (LowerMask.cpp).
  FailureOr<pisa::TileType> maskTypeFor(Operation *op, Value ptoTile);
  std::pair<Value, Value> maskValidOf(Location loc, Value ptoTile);
  FailureOr<Value> expandMask(WhereOp op, Value mask);
  FailureOr<Value> selectScratch(Operation *op);
  FailureOr<Value> numbersFromMask(Operation *op, Value mask,
                                   pisa::TileType type, Value vr, Value vc);
  LogicalResult lowerCompare(CompareOp op);
  LogicalResult lowerWhere(WhereOp op);
  LogicalResult expectNoMaskInGM(Operation *op);
  FailureOr<pisa::TileType> maskBytesTypeFor(Operation *op, Value ptoTile,
                                             Type elem);
  FailureOr<Value> maskFromBytes(Operation *op, Value ptoTile, Value bytes);
  FailureOr<Value> bytesFromMask(Operation *op, Value ptoTile, Value mask);
  FailureOr<Value> rowBlock(Operation *user, Value rowOperand);
  FailureOr<Value>
  expandToResult(Operation *user, Value operand, Value tile,
                 std::optional<pisa::TileType> dstType = std::nullopt);
  Value columnsOfResult(Operation *user, Value operand, Value tile);
  Value atResultValid(Operation *user, Value operand, Value tile);
  std::pair<Value, Value> rowsOfResult(Operation *user, Value operand,
                                       Value tile);

  // Cube leaves.
  LogicalResult lowerMatmul(Operation *op, Value acc, Value lhs, Value rhs,
                            bool aTrans, bool bTrans);
  FailureOr<Value> loadOperand(Operation *user, Value view, bool left,
                               bool trans);
  FailureOr<Value> accImage(Operation *user, Value operand, bool left,
                            bool trans);
  FailureOr<Value> extractOperand(Location loc, Operation *user, Value l1,
                                  bool left);
  /// L0C double buffering: accumulators over half of L0C in row halves.
  /// Erased ops are added to `erased` (they may be in `inserted`).
  void splitAccumulatorRows(llvm::SmallPtrSetImpl<Operation *> &erased);
  /// GM <-> UB transfers of more than kMaxUbTransferRows rows as chunks
  /// (SplitTransfers.cpp).
  void splitLongTransfers(llvm::SmallPtrSetImpl<Operation *> &erased);

  // MIX leaves (LowerMix.cpp).
  bool isOnChip(Value tensor);
  bool feedsOnlyMatmuls(ViewOp op);
  LogicalResult lowerExchangeStore(AssembleOp op);
  LogicalResult lowerExchangeView(ViewOp op);
  void sinkExchangeStores();
  LogicalResult assignRingSlots();

  // Both.
  LogicalResult lowerStore(Operation *op, Value src, Value dst,
                           ArrayRef<int64_t> staticOffsets,
                           ValueRange dynamicOffsets, bool atomic);

  func::FuncOp func;
  CoreKind kind;
  const PlatformInfo &platform;
  OpBuilder builder;
  InsertedOps inserted;
  ValidShapeReifier reifier;

  /// The pto_isa tile holding each lowered pto tile value.
  DenseMap<Value, Value> tiles;
  /// Column alignment (elements) of each ub tile: 32 bytes, widened so that
  /// both sides of a tcvt get equal capacities.
  DenseMap<Value, int64_t> colAlign;
  /// Loaded windows (deduplicated): ub tiles or l1 images.
  SmallVector<std::pair<WindowKey, Value>> windows;
  /// L0 copies of L1 images: (l1 tile, is left) -> l0a/l0b tile, and the
  /// bytes of the copies kept for reuse, per side.
  DenseMap<std::pair<Value, int>, Value> l0Copies;
  /// L1 images of matmul results (moved L0C -> L1) that feed later matmuls.
  DenseMap<Value, Value> accImages;
  int64_t l0CopyBytes[2] = {0, 0};
  /// Mode-2 row blocks of per-row operands, per valid row count.
  DenseMap<std::pair<Value, Value>, Value> rowBlocks;
  /// Per-row operands copied (tmov) to a result's valid rows, per count.
  DenseMap<std::pair<Value, Value>, Value> narrowedColumns;
  DenseMap<int64_t, Value> constants;
  SmallVector<Operation *> replaced;
  /// Column forms (CollapseND.cpp): union-find parents over tile values and,
  /// per root, the dim held as the columns and the op that chose it.
  DenseMap<Value, Value> formParent;
  DenseMap<Value, std::pair<unsigned, Operation *>> columnForms;
  /// 2-D reshapes of N-D GM tensors: (tensor, first column dim, column dim)
  /// -> reshape.
  DenseMap<std::tuple<Value, unsigned, unsigned>, Value> tensors2D;
  /// MIX leaves: on-chip exchange arguments, the store holding each
  /// exchange view, and the accumulator (l0c) each lowered store left in
  /// L0C for the views to take their windows from.
  llvm::SmallDenseSet<unsigned> onChipArgs;
  DenseMap<Operation *, Operation *> exchangeStoreOf;
  DenseMap<Operation *, Value> storedAccumulator;
  /// MIX leaves: the AIV of each vector op, and that of the op being
  /// lowered (its UB allocs are tagged with it).
  DenseMap<Operation *, unsigned> subblockOf;
  unsigned currentSubblock = 0;
};

/// MIX leaves: for each view of an on-chip exchange (an argument in
/// `onChipArgs`), the store of `leaf` whose piece holds the view's window at
/// every one of `launches` (offsets evaluated with each launch's constant
/// arguments; with no launch, the leaf's constants). An error names a view
/// no store holds, or held by different stores at different launches.
FailureOr<DenseMap<Operation *, Operation *>>
pairExchangeViews(func::FuncOp leaf,
                  const llvm::SmallDenseSet<unsigned> &onChipArgs,
                  ArrayRef<LaunchOp> launches);

/// MIX leaves: divides the vector part of `leaf` between AIV 0 and AIV 1.
/// Ops connected through tiles, or through GM windows that overlap at some
/// launch with one of them writing, form one group that runs on one AIV;
/// the groups go, in leaf order, to the AIV with less work so far
/// (elements). The result maps each vector op to its AIV.
DenseMap<Operation *, unsigned>
assignSubblocks(func::FuncOp leaf,
                const llvm::SmallDenseSet<unsigned> &onChipArgs,
                ArrayRef<LaunchOp> launches);

/// Whether `leaf` still holds pto tiles (a lowered leaf holds none: the
/// lowering is a no-op on its own output).
bool holdsTiles(func::FuncOp leaf);

/// Per argument of a leaf, the constant every launch passes for it
/// (IntegerAttr), or UnitAttr where the launches differ or pass no
/// constant; empty for a leaf that is never launched.
using LaunchConstants = SmallVector<Attribute>;

/// The launch constants of each leaf in `launches` (callee -> its launches).
llvm::StringMap<LaunchConstants>
launchConstants(const llvm::StringMap<SmallVector<LaunchOp>> &launches);

/// pto-outline shares one leaf between launches, so even constant window
/// offsets arrive as index arguments: replaces inside `leaf` each used index
/// argument that every launch passes as the same constant (`constants`) by
/// that constant, before lowering. Sub-tile windows become static
/// (TEXTRACT/TINSERT), inner dims of N-D tiles provably whole, and a fully
/// valid per-row operand's rows a constant the result's row tail is
/// compared with (docs/ISA.md).
void useConstantArguments(func::FuncOp leaf, ArrayRef<Attribute> constants);

/// The discardable attribute on which `pto-lower-to-isa{defer-leaves}` hands
/// a leaf's launch constants to `pto-lower-leaf-to-isa` (an ArrayAttr of
/// LaunchConstants); the leaf lowering removes it.
constexpr llvm::StringLiteral kLaunchConstantsAttrName = "pto.launch_constants";

} // namespace mlir::pto::lower_to_isa

#endif // PTO_LIB_CONVERSION_PTOTOISA_LEAFLOWERING_H
