//===- ExpandTiles.cpp - program-level tiles to hardware-sized tiles ------===//
//
// PyPTO's ExpandFunction (docs/PyPTOModel.md#tiling-expansion) as an MLIR pass.
// Each tile op becomes one op per piece of its tile config; every program-level
// result is stored piecewise into a pto.workspace and read back piecewise by
// its consumers. Pieces are addressed at static offsets, and carry explicit
// valid extents `max(valid - offset, 0)` computed from the reified valid shape,
// so the dynamic valid shapes of the program flow through unchanged. The
// pieces' index arithmetic is then one op per value (UniqueIndexArithmetic.h).
//
//===----------------------------------------------------------------------===//

#include "UniqueIndexArithmetic.h"
#include "pto/Dialect/PTO/Transforms/Passes.h"
#include "pto/Support/UnionFind.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::pto {
#define GEN_PASS_DEF_EXPANDTILESPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// One piece of a tile grid: static offsets and sizes.
struct Piece {
  SmallVector<int64_t, 4> offsets;
  SmallVector<int64_t, 4> sizes;
};

/// The grid of `tile`-sized pieces covering `shape` (static tails get the
/// remaining size).
SmallVector<Piece> tileGrid(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile) {
  SmallVector<Piece> pieces;
  int64_t rank = shape.size();
  SmallVector<int64_t, 4> idx(rank, 0);
  while (true) {
    Piece piece;
    for (int64_t d = 0; d < rank; ++d) {
      piece.offsets.push_back(idx[d]);
      piece.sizes.push_back(std::min(tile[d], shape[d] - idx[d]));
    }
    pieces.push_back(piece);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      idx[d] += tile[d];
      if (idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return pieces;
  }
}

/// The most pieces the pass creates for one kernel (over all its ops; a
/// module of many kernels gets the budget per kernel). Hostile or mistaken
/// tile configs (a [16, 16] vector tile on a 65536 x 65536 tile) would
/// otherwise create billions of ops; the pass stops with an error at the op
/// instead (docs/Guarantees.md).
constexpr int64_t kMaxPieces = int64_t(1) << 18;

/// Pieces of a grid of `tile`-sized pieces over `shape`, saturating at
/// kMaxPieces + 1.
int64_t gridSize(ArrayRef<int64_t> shape, ArrayRef<int64_t> tile) {
  int64_t count = 1;
  for (auto [size, step] : llvm::zip(shape, tile)) {
    int64_t n = step > 0 ? (size + step - 1) / step : kMaxPieces + 1;
    count = std::min<int64_t>(count * std::min<int64_t>(n, kMaxPieces + 1),
                              kMaxPieces + 1);
  }
  return count;
}

/// The vector tile governing an op of `shape`: its trailing dims, clamped to
/// the shape; the whole shape when the op carries none, and whole leading
/// dims where the vec_tile has fewer dims than the value (an operand of
/// another rank than the op's result).
SmallVector<int64_t, 4> vectorTileFor(VecTileAttr attr,
                                      ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> tile(shape.begin(), shape.end());
  if (!attr)
    return tile;
  ArrayRef<int64_t> dims = attr.getDims();
  int64_t offset = int64_t(dims.size()) - int64_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    if (offset + int64_t(d) >= 0)
      tile[d] = std::min(dims[offset + d], shape[d]);
  return tile;
}

/// Halves the outermost dim of `tile` that is > 1 and not the last (the
/// aligned last dim stays whole); false when none is left.
bool halveOutermost(SmallVectorImpl<int64_t> &tile) {
  auto it = llvm::find_if(tile, [](int64_t d) { return d > 1; });
  if (it == tile.end() || it == std::prev(tile.end()))
    return false;
  *it = (*it + 1) / 2;
  return true;
}

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
      return builder.create<arith::ConstantIndexOp>(
          loc, cast<IntegerAttr>(attr).getInt());
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
        [&] { return builder.create<arith::ConstantIndexOp>(loc, c); });
  }
  template <typename OpTy> Value indexOp(Location loc, Value a, Value b) {
    return reuseOrBuild(loc,
                        {TypeID::get<OpTy>().getAsOpaquePointer(),
                         a.getAsOpaquePointer(), b.getAsOpaquePointer(),
                         builder.getInsertionBlock()},
                        [&] { return builder.create<OpTy>(loc, a, b); });
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

LogicalResult Expander::run() {
  foldValidDims();
  SmallVector<Operation *> ops;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto compare = dyn_cast<CompareOp>(op); compare && isFusedMask(compare))
      fusedCompares.insert(op);
    else if (isa<MatmulOp>(op) || isVectorOp(op))
      ops.push_back(op);
  });
  planScopeTiles(ops);
  for (Operation *op : ops) {
    if (storedByMatmul.contains(op))
      continue;
    Operation *owner = op;
    while (owner->getParentOp() && owner->getParentOp() != root)
      owner = owner->getParentOp();
    if (owner != budgetOwner) {
      budgetOwner = owner;
      piecesLeft = kMaxPieces;
    }
    if (failed(expand(op)))
      return failure();
  }
  for (Operation *op : llvm::reverse(toErase))
    op->erase();
  // Their wheres, expanded, read pieces recomputed from the operands.
  for (Operation *compare : llvm::reverse(fusedCompares))
    compare->erase();
  // Views nothing reads any more: the originals of expanded operands and the
  // full-window views of workspaces. Other dead views are left alone (they
  // may still fault at run time, and are not this pass's business).
  for (Operation *view : composedViews)
    if (view->use_empty())
      view->erase();
  return success();
}

LogicalResult Expander::expand(Operation *op) {
  builder.setInsertionPoint(op);
  if (indexOpsAhead) {
    indexOps.clear();
    composedOffsets.clear();
    indexOpsAhead = false;
  }
  if (isElementwiseOp(op))
    return expandElementwise(op);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](MatmulOp matmul) { return expandMatmul(matmul); })
      .Case([&](SumOp sum) {
        return expandReduce(sum, sum.getInput(), sum.getDim(), sum.getKeepdim(),
                            sum.getVecTileAttr(), false);
      })
      .Case([&](AmaxOp amax) {
        return expandReduce(amax, amax.getInput(), amax.getDim(),
                            amax.getKeepdim(), amax.getVecTileAttr(), true);
      })
      .Case([&](FullOp full) { return expandFull(full); })
      .Case([&](ArangeOp arange) { return expandArange(arange); })
      .Case([&](TransposeOp transpose) { return expandTranspose(transpose); })
      .Case([&](GatherMaskOp gather) { return expandGatherMask(gather); })
      .Case([&](BitcastOp bitcast) { return expandBitcast(bitcast); })
      .Case([&](TopKOp topk) { return expandTopK(topk); })
      .Case([&](AtomicAddOp store) {
        return expandStore(store, store.getSrc(), store.getDst(),
                           store.getStaticOffsets(), store.getOffsets(),
                           store.getVecTileAttr());
      })
      .Case([&](AssembleOp store) {
        return expandStore(store, store.getSrc(), store.getDst(),
                           store.getStaticOffsets(), store.getOffsets(),
                           store.getVecTileAttr());
      })
      .Case([&](IndexPutOp put) { return expandIndexPut(put); })
      .Default([](Operation *other) {
        return other->emitOpError()
               << "has no rule in pto-expand-tiles for splitting it into "
                  "pieces; a vector op outside the elementwise family "
                  "needs its own case in Expander::expand";
      });
}

/// A pto.valid_dim of a tile whose producer states a valid-shape rule (the
/// front end reads a tile's valid extents this way to carry them through a
/// reshape) becomes that rule's extent, built right after the tile's
/// definition, so nothing uses the tile once its producer is expanded.
void Expander::foldValidDims() {
  SmallVector<ValidDimOp> validDims;
  root->walk([&](ValidDimOp op) { validDims.push_back(op); });
  for (ValidDimOp op : validDims) {
    Value source = op.getSource();
    auto result = dyn_cast<OpResult>(source);
    if (!result || !isa<ValidShapeInferenceOpInterface>(result.getOwner()))
      continue;
    builder.setInsertionPointAfterValue(source);
    OpFoldResult extent = reifier.reify(op.getLoc(), source)[op.getDim()];
    Value value = getValueOrCreateConstantIndexOp(builder, op.getLoc(), extent);
    if (value.getDefiningOp() == op.getOperation())
      continue;
    op.replaceAllUsesWith(value);
    op.erase();
  }
}

ViewOp Expander::createView(Location loc, Value source,
                            ArrayRef<OpFoldResult> offsets,
                            ArrayRef<OpFoldResult> valid, TileType type) {
  SmallVector<int64_t> staticOffsets, staticValid;
  SmallVector<Value> dynamicOffsets, dynamicValid;
  dispatchIndexOpFoldResults(offsets, dynamicOffsets, staticOffsets);
  DenseI64ArrayAttr validAttr;
  if (!valid.empty()) {
    dispatchIndexOpFoldResults(valid, dynamicValid, staticValid);
    validAttr = builder.getDenseI64ArrayAttr(staticValid);
  }
  return builder.create<ViewOp>(loc, type, source, dynamicOffsets,
                                builder.getDenseI64ArrayAttr(staticOffsets),
                                dynamicValid, validAttr);
}

/// A view of a tile whose offsets or explicit valid extents may leave the
/// tile's valid region: a check right before it, against the tile's valid
/// extents reified there (pto.check_tile_view). Its pieces compose the view
/// into their loads with extents clamped to the source, and the view dies,
/// so without the check compiled code would read less where pto-run
/// faults.
static Operation *insertTileViewCheck(ViewOp view) {
  std::optional<ArrayRef<int64_t>> staticValid = view.getStaticValidShape();
  bool offsetsNonNegative =
      view.getOffsets().empty() &&
      llvm::all_of(view.getStaticOffsets(), [](int64_t o) { return o >= 0; });
  // Without explicit extents the view rule clamps: only offsets can fail.
  if (offsetsNonNegative && !staticValid)
    return nullptr;
  // A tile whose valid extents are read with pto.valid_dim (loop-carried,
  // an scf.if result) is not composed into loads: its views stay, and are
  // checked where they run. Nothing is left behind for it.
  struct Recorder : OpBuilder::Listener {
    SmallVector<Operation *> created;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      created.push_back(op);
    }
  } recorder;
  OpBuilder b(view, &recorder);
  SmallVector<OpFoldResult> source =
      reifyValidShape(b, view.getLoc(), view.getSource());
  if (llvm::any_of(recorder.created, llvm::IsaPred<ValidDimOp>)) {
    for (Operation *op : llvm::reverse(recorder.created))
      op->erase();
    return nullptr;
  }
  if (offsetsNonNegative && view.getValidShape().empty()) {
    bool inside = true;
    for (auto [d, extent] : llvm::enumerate(*staticValid)) {
      std::optional<int64_t> sourceExtent = getConstantIntValue(source[d]);
      inside &= extent >= 0 &&
                (extent == 0 ||
                 (sourceExtent &&
                  extent <= *sourceExtent - view.getStaticOffsets()[d]));
    }
    if (inside)
      return nullptr;
  }
  DenseMap<int64_t, Value> constants;
  auto values = [&](ArrayRef<OpFoldResult> mixed) {
    SmallVector<Value> result;
    for (OpFoldResult ofr : mixed) {
      std::optional<int64_t> constant = getConstantIntValue(ofr);
      if (!constant) {
        result.push_back(cast<Value>(ofr));
        continue;
      }
      Value &value = constants[*constant];
      if (!value)
        value = b.create<arith::ConstantIndexOp>(view.getLoc(), *constant);
      result.push_back(value);
    }
    return result;
  };
  SmallVector<Value> offsets = values(getMixedValues(
      view.getStaticOffsets(), view.getOffsets(), view.getContext()));
  SmallVector<Value> valid;
  if (staticValid)
    valid = values(
        getMixedValues(*staticValid, view.getValidShape(), view.getContext()));
  return b.create<CheckTileViewOp>(view.getLoc(), offsets, valid,
                                   values(source));
}

/// The pieces clamp their valid extents to the tensor (the view rule); each
/// program-level view's own offsets and explicit extents are checked where
/// it stood, as pto-run checks them (pto.check_view): placed as early as its
/// operands allow (not between the compute ops that become tasks), after
/// the checks of earlier views (the order pto-run reports them in).
/// Workspaces are sized by this pass and need no check. Views of tiles are
/// checked right before the view (insertTileViewCheck).
static void insertViewChecks(KernelOp kernel) {
  DenseMap<Block *, Operation *> lastCheck;
  kernel.walk([&](ViewOp view) {
    if (isa<TileType>(view.getSource().getType())) {
      if (Operation *check = insertTileViewCheck(view))
        lastCheck[view->getBlock()] = check;
      return;
    }
    auto tensorType = dyn_cast<GMTensorType>(view.getSource().getType());
    if (!tensorType || view.getSource().getDefiningOp<WorkspaceOp>())
      return;
    // Nothing to check at run time when the view is inside the tensor
    // statically.
    bool staticallyInside =
        view.getOffsets().empty() && view.getValidShape().empty();
    for (auto [d, offset] : llvm::enumerate(view.getStaticOffsets())) {
      staticallyInside &= !ShapedType::isDynamic(offset) && offset >= 0;
      if (!staticallyInside)
        break;
      if (auto staticValid = view.getStaticValidShape()) {
        int64_t extent = (*staticValid)[d], size = tensorType.getShape()[d];
        staticallyInside &=
            extent >= 0 && (extent == 0 || (!ShapedType::isDynamic(size) &&
                                            extent <= size - offset));
      }
    }
    if (staticallyInside)
      return;
    Block *block = view->getBlock();
    Operation *after = lastCheck.lookup(block);
    SmallVector<Value> operands(view.getOffsets());
    llvm::append_range(operands, view.getValidShape());
    operands.push_back(view.getSource());
    for (Value v : operands)
      if (Operation *def = v.getDefiningOp())
        if (def->getBlock() == block && (!after || after->isBeforeInBlock(def)))
          after = def;
    OpBuilder b(view->getContext());
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(block);
    auto values = [&](ArrayRef<int64_t> statics, ValueRange dynamics) {
      SmallVector<Value> result;
      for (OpFoldResult ofr :
           getMixedValues(statics, dynamics, view.getContext())) {
        if (auto value = dyn_cast<Value>(ofr))
          result.push_back(value);
        else
          result.push_back(b.create<arith::ConstantIndexOp>(
              view.getLoc(), *getConstantIntValue(ofr)));
      }
      return result;
    };
    SmallVector<Value> offsets =
        values(view.getStaticOffsets(), view.getOffsets());
    SmallVector<Value> valid;
    if (auto staticValid = view.getStaticValidShape())
      valid = values(*staticValid, view.getValidShape());
    lastCheck[block] =
        b.create<CheckViewOp>(view.getLoc(), view.getSource(), offsets, valid);
  });
}

Value Expander::readPiece(Location loc, Value tile, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes) {
  auto type = cast<TileType>(tile.getType());
  auto pieceType =
      TileType::get(builder.getContext(), sizes, type.getElementType());
  // A view of a GM tensor (a program-level view or the full-window view of
  // a workspace): compose into one view of the tensor. So too through views
  // of that tile when its data is in GM anyway (a kernel tensor, or a
  // matmul result, which the cube writes to GM: IFA's `pypto.view(sij, ...,
  // valid_shape=)`): a piece then loads its own window, not the whole tile
  // it is cut from (two [12, 2048] f32 tiles did not fit UB). A vector
  // result stays a view of the tile: its task may keep it in UB.
  SmallVector<ViewOp> chain;
  for (Value v = tile; auto view = v.getDefiningOp<ViewOp>();
       v = view.getSource()) {
    if (cast<ShapedType>(view.getSource().getType()).getRank() !=
        type.getRank())
      break;
    chain.push_back(view);
    if (!isa<TileType>(view.getSource().getType()))
      break;
  }
  auto inGM = [&](ViewOp root) {
    return chain.size() == 1 ||
           !root.getSource().getDefiningOp<WorkspaceOp>() ||
           cubeResultViews.contains(root);
  };
  if (!chain.empty() && isa<GMTensorType>(chain.back().getSource().getType()) &&
      inGM(chain.back())) {
    SmallVector<OpFoldResult> valid =
        reifier.reify(chain.front().getLoc(), tile);
    // The chain's offsets summed once per tile (and block: like indexOps).
    SmallVector<OpFoldResult> &baseOffsets =
        composedOffsets[{tile, builder.getInsertionBlock()}];
    if (baseOffsets.empty()) {
      baseOffsets.assign(type.getRank(), builder.getIndexAttr(0));
      for (ViewOp view : chain)
        for (auto [d, offset] : llvm::enumerate(
                 getMixedValues(view.getStaticOffsets(), view.getOffsets(),
                                builder.getContext())))
          baseOffsets[d] = addMixed(loc, baseOffsets[d], offset);
    }
    SmallVector<OpFoldResult> pieceOffsets, pieceValid;
    for (size_t d = 0; d < offsets.size(); ++d) {
      pieceOffsets.push_back(add(loc, baseOffsets[d], offsets[d]));
      pieceValid.push_back(clampedSub(loc, valid[d], offsets[d], sizes[d]));
    }
    ViewOp piece = createView(loc, chain.back().getSource(), pieceOffsets,
                              pieceValid, pieceType);
    stamp(piece, chain.front());
    // The views of tiles in between stay, dead: they may fault at run time
    // (a valid extent past their source's), as other dead views do.
    composedViews.insert(chain.back());
    return piece;
  }
  // Whole tile: no view needed.
  if (llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
      ArrayRef<int64_t>(sizes) == type.getShape())
    return tile;
  // Any other tile (loop-carried, scf.if result): a view of the tile; the
  // view rule derives the piece's valid extents at run time.
  SmallVector<OpFoldResult> pieceOffsets;
  for (int64_t o : offsets)
    pieceOffsets.push_back(builder.getIndexAttr(o));
  return createView(loc, tile, pieceOffsets, {}, pieceType);
}

Value Expander::createWorkspace(Operation *op, Value result) {
  auto type = cast<TileType>(result.getType());
  // The valid shape of the whole result, from the operands, before they are
  // rewritten.
  reifier.reify(op->getLoc(), result);
  auto workspace = builder.create<WorkspaceOp>(
      op->getLoc(), GMTensorType::get(builder.getContext(), type.getShape(),
                                      type.getElementType()));
  ++numWorkspaces;
  return workspace;
}

void Expander::finish(Operation *op, Value result, Value workspace,
                      bool eraseOp) {
  auto type = cast<TileType>(result.getType());
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), result);
  SmallVector<OpFoldResult> zeros(type.getRank(), builder.getIndexAttr(0));
  ViewOp whole = createView(op->getLoc(), workspace, zeros, valid, type);
  stamp(whole, op);
  composedViews.insert(whole);
  if (isa<MatmulOp>(op))
    cubeResultViews.insert(whole);
  reifier.remember(whole, valid);
  if (!currentTile.empty())
    pieceTiles[whole] = currentTile;
  currentTile.clear();
  result.replaceAllUsesWith(whole.getResult());
  if (eraseOp)
    toErase.push_back(op);
}

/// Stores `piece` into `workspace` at static `offsets`.
static AssembleOp storePiece(OpBuilder &builder, Location loc, Value piece,
                             Value workspace, ArrayRef<int64_t> offsets) {
  return builder.create<AssembleOp>(loc, piece, workspace, ValueRange(),
                                    builder.getDenseI64ArrayAttr(offsets),
                                    VecTileAttr());
}

/// The plain `pto.assemble` that is the only use of a matmul's result, in
/// the matmul's block: the output blocks are stored there directly (the
/// fixpipe writes L0C to GM), with no workspace and no copy task.
static AssembleOp soleAssembleOf(MatmulOp op) {
  Value result = op.getResult();
  if (!result.hasOneUse())
    return {};
  auto store = dyn_cast<AssembleOp>(*result.getUsers().begin());
  if (!store || store.getSrc() != result ||
      store->getBlock() != op->getBlock() ||
      store.getStaticOffsets().size() != 2)
    return {};
  return store;
}

LogicalResult Expander::expandMatmul(MatmulOp op) {
  Location loc = op.getLoc();
  TileType resultType = op.getResult().getType();
  AssembleOp direct = soleAssembleOf(op);
  Value workspace = direct ? Value() : createWorkspace(op, op.getResult());
  SmallVector<std::tuple<Value, int64_t, int64_t>> blocks;
  CubeTileAttr tile = op.getCubeTile();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  TileType lhsType = op.getLhs().getType();
  int64_t k = op.getATrans() ? lhsType.getDimSize(0) : lhsType.getDimSize(1);
  int64_t mStep = tile.getML0(), nStep = tile.getNL0(), kStep = tile.getKL0();
  Type outType = resultType.getElementType();
  Type accType = isa<IntegerType>(lhsType.getElementType())
                     ? Type(builder.getI32Type())
                     : Type(builder.getF32Type());
  if (failed(reservePieces(op, gridSize({m, n, k}, {mStep, nStep, kStep}))))
    return failure();
  // Output blocks n then m, as PyPTO walks them; each block steps through K.
  for (int64_t ni = 0; ni < n; ni += nStep) {
    for (int64_t mi = 0; mi < m; mi += mStep) {
      int64_t ms = std::min(mStep, m - mi), ns = std::min(nStep, n - ni);
      Value acc;
      for (int64_t kk = 0; kk < k; kk += kStep) {
        int64_t ks = std::min(kStep, k - kk);
        bool last = kk + kStep >= k;
        Value a = op.getATrans()
                      ? readPiece(loc, op.getLhs(), {kk, mi}, {ks, ms})
                      : readPiece(loc, op.getLhs(), {mi, kk}, {ms, ks});
        Value b = op.getBTrans()
                      ? readPiece(loc, op.getRhs(), {ni, kk}, {ns, ks})
                      : readPiece(loc, op.getRhs(), {kk, ni}, {ks, ns});
        auto stepType = TileType::get(builder.getContext(), {ms, ns},
                                      last ? outType : accType);
        Operation *step;
        if (!acc)
          step =
              builder.create<MatmulOp>(loc, stepType, a, b, op.getATransAttr(),
                                       op.getBTransAttr(), tile);
        else
          step = builder.create<MatmulAccOp>(loc, stepType, acc, a, b,
                                             op.getATransAttr(),
                                             op.getBTransAttr(), tile);
        stamp(step, op);
        ++numMatmulPieces;
        acc = step->getResult(0);
      }
      if (direct)
        blocks.push_back({acc, mi, ni});
      else
        stamp(storePiece(builder, loc, acc, workspace, {mi, ni}), op);
    }
  }
  if (!direct) {
    finish(op, op.getResult(), workspace);
    return success();
  }
  // Each output block goes where the assemble put it, at the assemble's
  // place in program order, with the block's valid extents.
  builder.setInsertionPoint(direct);
  indexOps.clear();
  composedOffsets.clear();
  indexOpsAhead = true;
  SmallVector<OpFoldResult> base = getMixedValues(
      direct.getStaticOffsets(), direct.getOffsets(), builder.getContext());
  for (auto [acc, mi, ni] : blocks) {
    SmallVector<OpFoldResult> offsets = {add(loc, base[0], mi),
                                         add(loc, base[1], ni)};
    SmallVector<int64_t> staticOffsets;
    SmallVector<Value> dynamicOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicOffsets, staticOffsets);
    stamp(builder.create<AssembleOp>(
              direct.getLoc(), acc, direct.getDst(), dynamicOffsets,
              builder.getDenseI64ArrayAttr(staticOffsets), VecTileAttr()),
          op);
  }
  currentTile.clear();
  storedByMatmul.insert(direct);
  toErase.push_back(op);
  toErase.push_back(direct);
  return success();
}

SmallVector<int64_t, 4> Expander::tileFor(Operation *op, VecTileAttr attr,
                                          ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> tile = vectorTileFor(attr, shape);
  for (unsigned i = 0, e = opHalvings.lookup(op); i < e; ++i)
    if (!halveOutermost(tile))
      break;
  return tile;
}

void Expander::planScopeTiles(ArrayRef<Operation *> ops) {
  // The vector ops of one scope become one task (or a few), whose leaf keeps
  // the pieces of several values in UB at once: after pto-lower-to-isa and
  // buffer reuse, a piece is live from its first to its last use among the
  // scope's ops (SK-16's V1 at the A3 config: P, dP - Dvec and dS, three
  // [64, 256] f32 pieces, 192 KiB > UB). Estimate that peak per scope at
  // program level and halve the vector tile of all the task's ops (so their
  // pieces still line up) until it fits UB less the implicit scratch.
  // A task is a scope's ops connected by data edges within one block
  // (pto-partition): estimate and halve per such group. Unscoped vector ops
  // connected by data edges form one task too (pto-partition merges them
  // along data edges; pto-schedule-pieces then runs it piece by piece, so
  // the same per-piece estimate applies): fused_swiglu_bwd_b_kernel's
  // SwiGLU chain keeps six [128, 128] f32 pieces live, 384 KiB.
  SmallVector<Operation *> scoped;
  llvm::DenseMap<Operation *, unsigned> scopedIndex;
  for (Operation *op : ops)
    if (!isa<MatmulOp>(op)) {
      scopedIndex[op] = scoped.size();
      scoped.push_back(op);
    }
  UnionFind groups(scoped.size());
  for (auto [i, op] : llvm::enumerate(scoped))
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (def->getBlock() == op->getBlock() &&
            def->getAttr(kScopeStampAttrName) ==
                op->getAttr(kScopeStampAttrName))
          if (auto it = scopedIndex.find(def); it != scopedIndex.end())
            groups.unite(it->second, i);
  llvm::MapVector<unsigned, SmallVector<Operation *>> tasks;
  for (auto [i, op] : llvm::enumerate(scoped))
    tasks[groups.find(i)].push_back(op);
  // A tile with no GM home (a loop-carried iter_arg or a region's result,
  // seen through views of tiles) reaches a task as a tile argument, which
  // pto-lower-to-isa does not lower: UB does not bind such an unscoped
  // task (SK-01's online-softmax update), so its tile stays as written.
  auto hasNoGMHome = [](Value value) {
    while (auto view = value.getDefiningOp<ViewOp>()) {
      if (!isa<TileType>(view.getSource().getType()))
        return false;
      value = view.getSource();
    }
    if (isa<BlockArgument>(value))
      return true;
    return value.getDefiningOp()->getNumRegions() != 0;
  };
  auto passedTiles = [&](ArrayRef<Operation *> taskOps) {
    return llvm::any_of(taskOps, [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value v) {
        return isa<TileType>(v.getType()) && hasNoGMHome(v);
      });
    });
  };
  for (auto &[leader, groupOps] : tasks) {
    // Of an unscoped task, only the ops that state a vec_tile are planned
    // here; the others keep their own rules (a store follows its source's
    // pieces).
    SmallVector<Operation *> scopeOps(groupOps);
    if (!groupOps.front()->getAttr(kScopeStampAttrName)) {
      if (passedTiles(groupOps))
        continue;
      llvm::erase_if(scopeOps,
                     [](Operation *op) { return !op->getAttr("vec_tile"); });
      if (scopeOps.empty())
        continue;
    }
    const PlatformInfo &platform =
        getPlatformInfo(getArchFor(scopeOps.front()));
    int64_t budget = platform.ubBytes - platform.ubImplicitScratchBytes;
    auto pieceBytes = [&](Operation *op, Value v, unsigned halvings) {
      auto type = cast<TileType>(v.getType());
      SmallVector<int64_t, 4> tile = vectorTileFor(
          op->getAttrOfType<VecTileAttr>("vec_tile"), type.getShape());
      for (unsigned i = 0; i < halvings; ++i)
        if (!halveOutermost(tile))
          break;
      int64_t rows = 1;
      for (int64_t d : ArrayRef<int64_t>(tile).drop_back())
        rows *= d;
      // A ub tile row is a whole number of 32-byte blocks.
      int64_t rowBytes =
          (tile.back() * type.getElementByteSize() + 31) / 32 * 32;
      return rows * rowBytes;
    };
    auto peakBytes = [&](unsigned halvings) {
      // Live interval of each tile value over the scope's ops, and the
      // scratch an op needs for itself (a reduction's tmp).
      llvm::MapVector<Value, std::pair<size_t, size_t>> live;
      llvm::DenseMap<Value, int64_t> bytes;
      SmallVector<int64_t> extra(scopeOps.size(), 0);
      for (auto [i, op] : llvm::enumerate(scopeOps)) {
        for (Value v :
             llvm::concat<Value>(op->getOperands(), op->getResults())) {
          if (!isa<TileType>(v.getType()))
            continue;
          auto [it, inserted] = live.insert({v, {i, i}});
          if (!inserted)
            it->second.second = i;
          bytes[v] = std::max(bytes.lookup(v), pieceBytes(op, v, halvings));
        }
        if (isReductionOp(op))
          extra[i] = pieceBytes(op, op->getOperand(0), halvings);
      }
      // One sweep over the intervals' ends (linear in the group's size).
      SmallVector<int64_t> delta(scopeOps.size() + 1, 0);
      for (auto &[v, range] : live) {
        delta[range.first] += bytes[v];
        delta[range.second + 1] -= bytes[v];
      }
      int64_t peak = 0, total = 0;
      for (size_t i = 0; i < scopeOps.size(); ++i) {
        total += delta[i];
        peak = std::max(peak, total + extra[i]);
      }
      return peak;
    };
    unsigned halvings = 0;
    while (peakBytes(halvings) > budget && halvings < 16 &&
           peakBytes(halvings + 1) < peakBytes(halvings))
      ++halvings;
    if (halvings)
      for (Operation *op : scopeOps)
        opHalvings[op] = halvings;
  }
}

void Expander::fitInUnifiedBuffer(Operation *op,
                                  SmallVectorImpl<int64_t> &tile) {
  // One piece keeps its operands and its result in UB at once. A vector tile
  // whose working set does not fit (SK-16's v_tile_d = [256, 256] clamps to
  // [256, 128] f32: 128 KiB in + 128 KiB out > 192 KiB,
  // docs/SK16.md#tiles-and-options) is halved along its outermost splittable
  // dim, as PyPTO must re-tile too.
  const PlatformInfo &platform = getPlatformInfo(getArchFor(op));
  auto workingSet = [&]() {
    int64_t elements = 1;
    for (int64_t d : tile)
      elements *= d;
    int64_t bytes = 0;
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto tileType = dyn_cast<TileType>(type))
        bytes += elements * tileType.getElementByteSize();
    return bytes;
  };
  int64_t before = workingSet();
  while (workingSet() > platform.ubBytes)
    if (!halveOutermost(tile))
      break; // only the aligned last dim is left: keep it whole
  if (workingSet() != before)
    ++numRetiled;
}

/// A pto.compare whose only users are the wheres it is the condition of:
/// its mask is recomputed in each where piece rather than stored, so it stays
/// on chip (packed in ub) from the compare to the select, as on the hardware.
bool Expander::isFusedMask(CompareOp op) {
  Value mask = op.getResult();
  return !mask.use_empty() && llvm::all_of(mask.getUses(), [&](OpOperand &use) {
    auto where = dyn_cast<WhereOp>(use.getOwner());
    return where && use.getOperandNumber() == 0 &&
           where->getBlock() == op->getBlock();
  });
}

/// The piece of `operand` that the piece (`offsets`, `sizes`) of a result of
/// type `resultType` reads: along a size-1 dim of the operand that the result
/// broadcasts, its single row/column; a scalar as it is; a fused compare's
/// mask computed here from its operands' pieces.
Value Expander::operandPiece(Location loc, Value operand, TileType resultType,
                             ArrayRef<int64_t> pieceOffsets,
                             ArrayRef<int64_t> pieceSizes) {
  auto operandType = dyn_cast<TileType>(operand.getType());
  if (!operandType)
    return operand;
  SmallVector<int64_t, 4> offsets(pieceOffsets), sizes(pieceSizes);
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    if (operandType.getDimSize(d) == 1 && resultType.getDimSize(d) != 1) {
      offsets[d] = 0;
      sizes[d] = 1;
    }
  Operation *compare = operand.getDefiningOp();
  if (!compare || !fusedCompares.contains(compare))
    return readPiece(loc, operand, offsets, sizes);
  OperationState state(compare->getLoc(), compare->getName());
  for (Value input : compare->getOperands())
    state.addOperands(operandPiece(loc, input, operandType, offsets, sizes));
  state.addTypes(
      TileType::get(builder.getContext(), sizes, operandType.getElementType()));
  state.addAttributes(compare->getAttrDictionary().getValue());
  Operation *piece = builder.create(state);
  stamp(piece, compare);
  ++numVectorPieces;
  return piece->getResult(0);
}

LogicalResult Expander::expandElementwise(Operation *op) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto resultType = cast<TileType>(result.getType());
  auto vecTile = op->getAttrOfType<VecTileAttr>("vec_tile");
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, resultType.getShape());
  fitInUnifiedBuffer(op, tile);
  currentTile = tile;
  if (failed(reserveGrid(op, resultType.getShape(), tile)))
    return failure();
  // The op's attributes as one dictionary, built once for all its pieces.
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(resultType.getShape(), tile)) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(
          operandPiece(loc, operand, resultType, piece.offsets, piece.sizes));
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addTypes(TileType::get(builder.getContext(), piece.sizes,
                                 resultType.getElementType()));
    state.addAttributes(attrs.getValue());
    Operation *pieceOp = builder.create(state);
    ++numVectorPieces;
    stamp(storePiece(builder, loc, pieceOp->getResult(0), workspace,
                     piece.offsets),
          op);
  }
  finish(op, result, workspace);
  return success();
}

LogicalResult Expander::expandReduce(Operation *op, Value input, int64_t dim,
                                     bool keepdim, VecTileAttr vecTile,
                                     bool isAmax) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto inputType = cast<TileType>(input.getType());
  auto resultType = cast<TileType>(result.getType());
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, inputType.getShape());
  // Pieces of the input grid that share their non-reduced offsets combine.
  llvm::MapVector<SmallVector<int64_t, 4>, Value> partials;
  if (failed(reserveGrid(op, inputType.getShape(), tile)))
    return failure();
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(inputType.getShape(), tile)) {
    Value in = readPiece(loc, input, piece.offsets, piece.sizes);
    // The partial result's piece: the reduced dim becomes 1 or disappears.
    SmallVector<int64_t, 4> outSizes(piece.sizes), outOffsets(piece.offsets);
    if (keepdim) {
      outSizes[dim] = 1;
      outOffsets[dim] = 0;
    } else {
      outSizes.erase(outSizes.begin() + dim);
      outOffsets.erase(outOffsets.begin() + dim);
    }
    auto partialType = TileType::get(builder.getContext(), outSizes,
                                     resultType.getElementType());
    OperationState state(loc, op->getName());
    state.addOperands(in);
    state.addTypes(partialType);
    state.addAttributes(attrs.getValue());
    Operation *partial = builder.create(state);
    ++numVectorPieces;
    Value &acc = partials[outOffsets];
    if (!acc) {
      acc = partial->getResult(0);
      continue;
    }
    // Partial results along the reduced dim combine in order of the pieces.
    Operation *combine =
        isAmax ? builder
                     .create<MaxOp>(loc, partialType, acc,
                                    partial->getResult(0), VecTileAttr())
                     .getOperation()
               : builder
                     .create<AddOp>(loc, partialType, acc,
                                    partial->getResult(0), VecTileAttr())
                     .getOperation();
    stamp(combine, op);
    ++numVectorPieces;
    acc = combine->getResult(0);
  }
  for (auto &[offsets, value] : partials)
    stamp(storePiece(builder, loc, value, workspace, offsets), op);
  finish(op, result, workspace);
  return success();
}

// An op with no tile operand (full, arange): one piece op per vector tile,
// built by `buildPiece` with the piece's type, each stored into a workspace.
LogicalResult Expander::expandGenerator(
    Operation *op, Value result, VecTileAttr vecTile,
    function_ref<Operation *(const Piece &, TileType)> buildPiece) {
  Location loc = op->getLoc();
  auto resultType = cast<TileType>(result.getType());
  Value workspace = createWorkspace(op, result);
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, resultType.getShape());
  if (failed(reserveGrid(op, resultType.getShape(), tile)))
    return failure();
  for (const Piece &piece : tileGrid(resultType.getShape(), tile)) {
    Operation *pieceOp =
        buildPiece(piece, TileType::get(builder.getContext(), piece.sizes,
                                        resultType.getElementType()));
    stamp(pieceOp, op);
    ++numVectorPieces;
    stamp(storePiece(builder, loc, pieceOp->getResult(0), workspace,
                     piece.offsets),
          op);
  }
  finish(op, result, workspace);
  return success();
}

LogicalResult Expander::expandFull(FullOp op) {
  return expandGenerator(op, op.getResult(), op.getVecTileAttr(),
                         [&](const Piece &, TileType type) {
                           return builder.create<FullOp>(op.getLoc(), type,
                                                         op.getValueAttr(),
                                                         op.getVecTileAttr());
                         });
}

// A piece at offset o is the sequence from start + o * step.
LogicalResult Expander::expandArange(ArangeOp op) {
  double start = op.getStart().convertToDouble(),
         step = op.getStep().convertToDouble();
  return expandGenerator(
      op, op.getResult(), op.getVecTileAttr(),
      [&](const Piece &piece, TileType type) {
        return builder.create<ArangeOp>(
            op.getLoc(), type,
            builder.getF64FloatAttr(
                start + step * static_cast<double>(piece.offsets[0])),
            op.getStepAttr(), op.getVecTileAttr());
      });
}

LogicalResult Expander::expandPerInputPiece(
    Operation *op, Value input, ArrayRef<Value> results, VecTileAttr vecTile,
    function_ref<void(SmallVectorImpl<int64_t> &, SmallVectorImpl<int64_t> &)>
        mapBox,
    function_ref<Operation *(Value, ArrayRef<TileType>)> buildPiece) {
  Location loc = op->getLoc();
  auto inputType = cast<TileType>(input.getType());
  SmallVector<Value> workspaces;
  for (Value result : results)
    workspaces.push_back(createWorkspace(op, result));
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, inputType.getShape());
  fitInUnifiedBuffer(op, tile);
  if (failed(reserveGrid(op, inputType.getShape(), tile)))
    return failure();
  SmallVector<TileType> pieceTypes;
  for (const Piece &piece : tileGrid(inputType.getShape(), tile)) {
    Value in = readPiece(loc, input, piece.offsets, piece.sizes);
    SmallVector<int64_t, 4> outOffsets(piece.offsets), outSizes(piece.sizes);
    mapBox(outOffsets, outSizes);
    pieceTypes.clear();
    for (Value result : results)
      pieceTypes.push_back(
          TileType::get(builder.getContext(), outSizes,
                        cast<TileType>(result.getType()).getElementType()));
    Operation *pieceOp = buildPiece(in, pieceTypes);
    stamp(pieceOp, op);
    ++numVectorPieces;
    for (auto [pieceResult, workspace] :
         llvm::zip(pieceOp->getResults(), workspaces))
      stamp(storePiece(builder, loc, pieceResult, workspace, outOffsets), op);
  }
  for (auto [i, result] : llvm::enumerate(results)) {
    SmallVector<int64_t, 4> tileOrigin(tile.size(), 0);
    currentTile = tile;
    mapBox(tileOrigin, currentTile);
    finish(op, result, workspaces[i], /*eraseOp=*/i + 1 == results.size());
  }
  return success();
}

LogicalResult Expander::expandTranspose(TransposeOp op) {
  // The vector tile governs the input (as for reductions); each input piece
  // is transposed on its own and lands at the swapped offsets.
  int64_t dim0 = op.getDim0(), dim1 = op.getDim1();
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        std::swap(offsets[dim0], offsets[dim1]);
        std::swap(sizes[dim0], sizes[dim1]);
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return builder.create<TransposeOp>(op.getLoc(), pieceTypes[0], piece,
                                           op.getDim0Attr(), op.getDim1Attr(),
                                           op.getVecTileAttr());
      });
}

LogicalResult Expander::expandGatherMask(GatherMaskOp op) {
  // The vector tile governs the input; a split of its last dim is a whole
  // number of 32-byte blocks (the verifier's rule), so a multiple of the
  // stride, and fitting into UB halves outer dims only: each input piece
  // gathers on its own and lands at its last-dim offset divided by the
  // stride.
  int64_t stride = op.getStride();
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() /= stride;
        sizes.back() /= stride;
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return builder.create<GatherMaskOp>(op.getLoc(), pieceTypes[0], piece,
                                            op.getPatternModeAttr(),
                                            op.getVecTileAttr());
      });
}

LogicalResult Expander::expandBitcast(BitcastOp op) {
  // The vector tile governs the input; each input piece is read as the
  // other type on its own and lands at its last-dim offset scaled by the
  // element sizes (a split of the last dim is 32-byte aligned, so it holds
  // whole result elements).
  return expandPerInputPiece(
      op, op.getInput(), {op.getResult()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() = op.scaleLast(offsets.back());
        sizes.back() = op.scaleLast(sizes.back());
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return builder.create<BitcastOp>(op.getLoc(), pieceTypes[0], piece,
                                         op.getVecTileAttr());
      });
}

LogicalResult Expander::expandTopK(TopKOp op) {
  // The vector tile governs the input and cuts its leading dims only: a row
  // is ranked in one piece, so each piece's top k are the rows' top k and
  // land at the piece's leading offsets. (PyPTO also splits the row and
  // merges the pieces' candidates; that merge is not built here yet.)
  TileType inputType = op.getInput().getType();
  SmallVector<int64_t, 4> tile =
      tileFor(op, op.getVecTileAttr(), inputType.getShape());
  int64_t row = inputType.getShape().back();
  if (tile.back() < row)
    return op.emitOpError()
           << "vector tile last dim " << tile.back() << " splits rows of "
           << row << " elements; pto-expand-tiles ranks each topk row in one "
           << "piece (merging the pieces' top k is not supported yet): set "
           << "the vector tile's last dim to " << row;
  int64_t k = op.getK();
  return expandPerInputPiece(
      op, op.getInput(), {op.getValues(), op.getIndices()}, op.getVecTileAttr(),
      [&](SmallVectorImpl<int64_t> &offsets, SmallVectorImpl<int64_t> &sizes) {
        offsets.back() = 0;
        sizes.back() = k;
      },
      [&](Value piece, ArrayRef<TileType> pieceTypes) -> Operation * {
        return builder.create<TopKOp>(op.getLoc(), pieceTypes[0], pieceTypes[1],
                                      piece, op.getKAttr(), op.getLargestAttr(),
                                      op.getVecTileAttr());
      });
}

LogicalResult Expander::expandStore(Operation *op, Value src, Value dst,
                                    ArrayRef<int64_t> staticOffsets,
                                    ValueRange dynamicOffsets,
                                    VecTileAttr vecTile) {
  Location loc = op->getLoc();
  auto srcType = cast<TileType>(src.getType());
  SmallVector<OpFoldResult> base =
      getMixedValues(staticOffsets, dynamicOffsets, builder.getContext());
  SmallVector<int64_t, 4> tile = tileFor(op, vecTile, srcType.getShape());
  // Store along the pieces the source was computed in (e.g. re-tiled to fit
  // UB), so that partitioning can forward them without a workspace.
  auto produced = pieceTiles.find(src);
  if (produced != pieceTiles.end())
    tile = produced->second;
  if (failed(reserveGrid(op, srcType.getShape(), tile)))
    return failure();
  DictionaryAttr attrs = op->getAttrDictionary();
  for (const Piece &piece : tileGrid(srcType.getShape(), tile)) {
    Value in = readPiece(loc, src, piece.offsets, piece.sizes);
    SmallVector<OpFoldResult> offsets;
    for (size_t d = 0; d < base.size(); ++d)
      offsets.push_back(add(loc, base[d], piece.offsets[d]));
    SmallVector<int64_t> staticPieceOffsets;
    SmallVector<Value> dynamicPieceOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicPieceOffsets,
                               staticPieceOffsets);
    OperationState state(loc, op->getName());
    state.addOperands(in);
    state.addOperands(dst);
    state.addOperands(dynamicPieceOffsets);
    state.addAttributes(attrs.getValue());
    state.attributes.set("static_offsets",
                         builder.getDenseI64ArrayAttr(staticPieceOffsets));
    builder.create(state);
    ++numVectorPieces;
  }
  toErase.push_back(op);
  return success();
}

/// An indexed write cut by its vector tile (PyPTO's 1-D `[rows]` tile, or
/// `[rows, cols]`): each piece writes its source rows with the matching
/// slice of the index tile, at its column offset; the rows stay indexed.
LogicalResult Expander::expandIndexPut(IndexPutOp op) {
  Location loc = op.getLoc();
  TileType srcType = op.getSrc().getType();
  VecTileAttr vecTile = op.getVecTileAttr();
  SmallVector<int64_t, 4> tile;
  if (vecTile && vecTile.getDims().size() == 2)
    tile = tileFor(op, vecTile, srcType.getShape());
  else
    tile.assign(op.getPieceShape());
  auto produced = pieceTiles.find(op.getSrc());
  if (produced != pieceTiles.end())
    tile = produced->second;
  if (failed(reserveGrid(op, srcType.getShape(), tile)))
    return failure();
  SmallVector<OpFoldResult> base = getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext());
  for (const Piece &piece : tileGrid(srcType.getShape(), tile)) {
    Value in = readPiece(loc, op.getSrc(), piece.offsets, piece.sizes);
    Value indices =
        readPiece(loc, op.getIndices(), {piece.offsets[0]}, {piece.sizes[0]});
    SmallVector<OpFoldResult> offsets{base[0],
                                      add(loc, base[1], piece.offsets[1])};
    SmallVector<int64_t> staticPieceOffsets;
    SmallVector<Value> dynamicPieceOffsets;
    dispatchIndexOpFoldResults(offsets, dynamicPieceOffsets,
                               staticPieceOffsets);
    OperationState state(loc, op->getName());
    state.addOperands({in, op.getDst(), indices});
    state.addOperands(dynamicPieceOffsets);
    state.addAttributes(op->getAttrDictionary().getValue());
    state.attributes.set("static_offsets",
                         builder.getDenseI64ArrayAttr(staticPieceOffsets));
    builder.create(state);
    ++numVectorPieces;
  }
  toErase.push_back(op);
  return success();
}

struct ExpandTilesPass
    : public pto::impl::ExpandTilesPassBase<ExpandTilesPass> {
  void runOnOperation() override {
    WalkResult scopes = getOperation()->walk([&](ScopeOp scope) {
      scope.emitError() << "pto-expand-tiles expects scopes as stamps: run "
                           "pto-flatten-scopes first";
      return WalkResult::interrupt();
    });
    if (scopes.wasInterrupted())
      return signalPassFailure();
    getOperation()->walk([](KernelOp kernel) { insertViewChecks(kernel); });
    Expander expander(getOperation(), numMatmulPieces, numVectorPieces,
                      numWorkspaces, numRetiled);
    if (failed(expander.run()))
      return signalPassFailure();
    pto::detail::uniqueIndexArithmetic(getOperation(), expander.built());
  }
};

} // namespace
