//===- ExpandTiles.h - shared by the parts of pto-expand-tiles --*- C++ -*-===//
//
// pto-expand-tiles is split by concern: the pass driver and the op dispatch
// (ExpandTiles.cpp), the checks of program-level views
// (ExpandTilesViewChecks.cpp), the piece bookkeeping: grids, views,
// workspaces (ExpandTilesPieces.cpp), the matmul expansion
// (ExpandTilesMatmul.cpp), the vector tiles of scoped tasks
// (ExpandTilesVectorTiles.cpp) and the expansion of each vector op family
// (ExpandTilesVector.cpp). The Expander's state is shared by all of them.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTO_TRANSFORMS_EXPANDTILES_H
#define PTO_LIB_DIALECT_PTO_TRANSFORMS_EXPANDTILES_H

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <tuple>

namespace mlir::pto::expand_tiles {

/// One piece of a tile grid: static offsets and sizes.
struct Piece {
  SmallVector<int64_t, 4> offsets;
  SmallVector<int64_t, 4> sizes;
};

/// The most pieces the pass creates for one kernel (over all its ops; a
/// module of many kernels gets the budget per kernel). Hostile or mistaken
/// tile configs (a [16, 16] vector tile on a 65536 x 65536 tile) would
/// otherwise create billions of ops; the pass stops with an error at the op
/// instead (docs/Guarantees.md).
constexpr int64_t kMaxPieces = int64_t(1) << 18;

/// The grid of `tile`-sized pieces covering `shape` (static tails get the
/// remaining size).
SmallVector<Piece> tileGrid(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile);

/// Pieces of a grid of `tile`-sized pieces over `shape`, saturating at
/// kMaxPieces + 1.
int64_t gridSize(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile);

/// The vector tile governing an op of `shape`: its trailing dims, clamped to
/// the shape; the whole shape when the op carries none, and whole leading
/// dims where the vec_tile has fewer dims than the value (an operand of
/// another rank than the op's result).
SmallVector<int64_t, 4> vectorTileFor(VecTileAttr attr,
                                      ArrayRef<int64_t> shape);

/// Halves the outermost dim of `tile` that is > 1 and not the last (the
/// aligned last dim stays whole); false when none is left.
bool halveOutermost(SmallVectorImpl<int64_t> &tile);

/// Stores `piece` into `workspace` at static `offsets`.
AssembleOp storePiece(OpBuilder &builder, Location loc, Value piece,
                      Value workspace, ArrayRef<int64_t> offsets);

/// The pieces clamp their valid extents to the tensor (the view rule); each
/// program-level view's own offsets and explicit extents are checked where
/// it stood, as pto-run checks them (pto.check_view). Views of tiles are
/// checked right before the view (pto.check_tile_view).
void insertViewChecks(KernelOp kernel);

class Expander {
public:
  using Statistic = ::mlir::Pass::Statistic;
  Expander(Operation *root, Statistic &matmulPieces, Statistic &vectorPieces,
           Statistic &workspaces, Statistic &retiled)
      : root(root), builder(root->getContext(), &recorder), reifier(builder),
        scopeStampName(
            StringAttr::get(root->getContext(), kScopeStampAttrName)),
        numMatmulPieces(matmulPieces), numVectorPieces(vectorPieces),
        numWorkspaces(workspaces), numRetiled(retiled) {}

  LogicalResult run();

  /// The ops expansion built (some erased since).
  const llvm::DenseSet<Operation *> &built() const { return recorder.built; }

private:
  LogicalResult expand(Operation *op);
  LogicalResult expandMatmul(MatmulOp op);
  LogicalResult expandElementwise(Operation *op);
  bool isFusedMask(CompareOp op);
  Value operandPiece(Location loc, Value operand, TileType resultType,
                     ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes);
  void fitInUnifiedBuffer(Operation *op, SmallVectorImpl<int64_t> &tile);
  /// The vector tile of `op` for a value of `shape`: its vec_tile, with the
  /// halvings its scope needs (planScopeTiles).
  SmallVector<int64_t, 4> tileFor(Operation *op, VecTileAttr attr,
                                  ArrayRef<int64_t> shape);
  void planScopeTiles(ArrayRef<Operation *> ops);
  LogicalResult expandReduce(Operation *op, Value input, int64_t dim,
                             bool keepdim, VecTileAttr vecTile, bool isAmax);
  LogicalResult expandGenerator(
      Operation *op, Value result, VecTileAttr vecTile,
      function_ref<Operation *(const Piece &, TileType)> buildPiece);
  LogicalResult expandFull(FullOp op);
  LogicalResult expandArange(ArangeOp op);
  LogicalResult expandTranspose(TransposeOp op);
  LogicalResult expandGatherMask(GatherMaskOp op);
  LogicalResult expandBitcast(BitcastOp op);
  LogicalResult expandTopK(TopKOp op);
  /// An op whose output piece depends on one input piece: the vector tile
  /// cuts `input`; `mapBox` maps an input piece's offsets and sizes to its
  /// output piece's (and the input tile to the result's); `buildPiece`
  /// creates the op on one input piece (with one result per entry of
  /// `results`, all of the piece's shape).
  LogicalResult expandPerInputPiece(
      Operation *op, Value input, ArrayRef<Value> results, VecTileAttr vecTile,
      function_ref<void(SmallVectorImpl<int64_t> &, SmallVectorImpl<int64_t> &)>
          mapBox,
      function_ref<Operation *(Value, ArrayRef<TileType>)> buildPiece);
  LogicalResult expandStore(Operation *op, Value src, Value dst,
                            ArrayRef<int64_t> staticOffsets,
                            ValueRange dynamicOffsets, VecTileAttr vecTile);
  LogicalResult expandIndexPut(IndexPutOp op);

  /// Reads the piece of `tile` at static `offsets` with static `sizes`.
  Value readPiece(Location loc, Value tile, ArrayRef<int64_t> offsets,
                  ArrayRef<int64_t> sizes);
  /// Allocates the workspace of `result` and records its valid shape.
  Value createWorkspace(Operation *op, Value result);
  /// Replaces `result` by a full-window view of `workspace` (and erases
  /// `op` once the pass is done, unless `eraseOp` is false: a later result
  /// of the same op is still to be finished).
  void finish(Operation *op, Value result, Value workspace,
              bool eraseOp = true);
  void stamp(Operation *created, Operation *original) {
    // A dialect attribute, never inherent: no lookup among the properties.
    if (Attribute scope = original->getDiscardableAttr(scopeStampName))
      created->setDiscardableAttr(scopeStampName, scope);
  }
  Value indexValue(Location loc, OpFoldResult ofr) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      return arith::ConstantIndexOp::create(builder, loc,
                                            cast<IntegerAttr>(attr).getInt());
    return cast<Value>(ofr);
  }
  /// a + c folded when `a` is a constant.
  OpFoldResult add(Location loc, OpFoldResult a, int64_t c) {
    if (auto attr = dyn_cast<Attribute>(a))
      return builder.getIndexAttr(cast<IntegerAttr>(attr).getInt() + c);
    if (c == 0)
      return a;
    return indexOp<arith::AddIOp>(loc, cast<Value>(a), indexConstant(loc, c));
  }
  /// a + b folded when either is a constant.
  OpFoldResult addMixed(Location loc, OpFoldResult a, OpFoldResult b) {
    if (auto attr = dyn_cast<Attribute>(b))
      return add(loc, a, cast<IntegerAttr>(attr).getInt());
    if (auto attr = dyn_cast<Attribute>(a))
      return add(loc, b, cast<IntegerAttr>(attr).getInt());
    return indexOp<arith::AddIOp>(loc, cast<Value>(a), cast<Value>(b));
  }
  /// max(v - c, 0) folded when `v` is a constant (then also capped at
  /// `size`: a static valid extent may not exceed the view's shape).
  OpFoldResult clampedSub(Location loc, OpFoldResult v, int64_t c,
                          int64_t size) {
    if (auto attr = dyn_cast<Attribute>(v))
      return builder.getIndexAttr(std::min<int64_t>(
          std::max<int64_t>(cast<IntegerAttr>(attr).getInt() - c, 0), size));
    if (c == 0)
      return v;
    Value diff =
        indexOp<arith::SubIOp>(loc, cast<Value>(v), indexConstant(loc, c));
    return indexOp<arith::MaxSIOp>(loc, diff, indexConstant(loc, 0));
  }
  /// The index arithmetic of the pieces, built once per value in the block
  /// of the insertion point (the pieces of one tile share their offsets'
  /// and extents' arithmetic): what uniqueIndexArithmetic would keep of the
  /// copies built per piece, without building and erasing the copies.
  /// Entries stay valid while the insertion point moves forward in program
  /// order (Expander::run's pre-order); a jump back clears them.
  Value indexConstant(Location loc, int64_t c) {
    return reuseOrBuild(
        loc,
        {nullptr, reinterpret_cast<const void *>(c), nullptr,
         builder.getInsertionBlock()},
        [&] { return arith::ConstantIndexOp::create(builder, loc, c); });
  }
  template <typename OpTy> Value indexOp(Location loc, Value a, Value b) {
    return reuseOrBuild(loc,
                        {TypeID::get<OpTy>().getAsOpaquePointer(),
                         a.getAsOpaquePointer(), b.getAsOpaquePointer(),
                         builder.getInsertionBlock()},
                        [&] { return OpTy::create(builder, loc, a, b); });
  }
  using IndexOpKey =
      std::tuple<const void *, const void *, const void *, Block *>;
  Value reuseOrBuild(Location loc, IndexOpKey key,
                     function_ref<Operation *()> build) {
    Operation *&op = indexOps[key];
    if (!op) {
      op = build();
    } else if (isa<UnknownLoc>(op->getLoc()) && !isa<UnknownLoc>(loc)) {
      // As uniqueIndexArithmetic keeps the first copy's place and the
      // first known location.
      op->setLoc(loc);
    }
    return op->getResult(0);
  }
  ViewOp createView(Location loc, Value source, ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> valid, TileType type);
  void foldValidDims();

  struct Recorder : OpBuilder::Listener {
    llvm::DenseSet<Operation *> built;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      built.insert(op);
    }
  };

  Operation *root;
  Recorder recorder;
  OpBuilder builder;
  ValidShapeReifier reifier;
  /// The scope stamp's name, uniqued once (stamp runs per piece).
  StringAttr scopeStampName;
  Statistic &numMatmulPieces;
  Statistic &numVectorPieces;
  Statistic &numWorkspaces;
  Statistic &numRetiled;
  SmallVector<Operation *> toErase;
  llvm::DenseMap<IndexOpKey, Operation *> indexOps;
  /// Per tile read piecewise and block, the offsets of its GM view chain
  /// (readPiece); cleared with indexOps.
  llvm::DenseMap<std::pair<Value, Block *>, SmallVector<OpFoldResult>>
      composedOffsets;
  /// The insertion point jumped forward out of Expander::run's order (to a
  /// matmul's assemble): the next op's arithmetic may not reuse what was
  /// built there.
  bool indexOpsAhead = false;
  // Compares expanded inside their wheres (isFusedMask).
  llvm::SetVector<Operation *> fusedCompares;
  // Stores a matmul's pieces took over (expandMatmul): not expanded again.
  llvm::DenseSet<Operation *> storedByMatmul;
  // Views of GM read piecewise (and so possibly dead after expansion).
  llvm::SetVector<Operation *> composedViews;
  /// The full-window views of the workspaces holding matmul results.
  llvm::DenseSet<Operation *> cubeResultViews;
  // The piece tile of each expanded elementwise result (its full-window view).
  llvm::DenseMap<Value, SmallVector<int64_t, 4>> pieceTiles;
  SmallVector<int64_t, 4> currentTile;
  /// Halvings of the vector tile shared by the ops of one scoped task.
  llvm::DenseMap<Operation *, unsigned> opHalvings;
  int64_t piecesLeft = kMaxPieces;
  /// The kernel (top-level op under the pass's root) the budget is for.
  Operation *budgetOwner = nullptr;

  /// Takes `count` pieces from the budget, or reports the op.
  LogicalResult reservePieces(Operation *op, int64_t count) {
    if (count <= piecesLeft) {
      piecesLeft -= count;
      return success();
    }
    return op->emitOpError()
           << "would expand into " << (count > kMaxPieces ? "more than " : "")
           << std::min(count, kMaxPieces) << " pieces, over pto-expand-tiles' "
           << "limit of " << kMaxPieces << " pieces per kernel ("
           << kMaxPieces - piecesLeft << " already used); use a larger "
           << "cube_tile / vec_tile for this tile shape";
  }
  LogicalResult reserveGrid(Operation *op, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> tile) {
    return reservePieces(op, gridSize(shape, tile));
  }
};

} // namespace mlir::pto::expand_tiles

#endif // PTO_LIB_DIALECT_PTO_TRANSFORMS_EXPANDTILES_H
