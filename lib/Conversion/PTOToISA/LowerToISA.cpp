//===- LowerToISA.cpp - tile-graph leaves to pto_isa ----------------------===//
//
// Rewrites the body of every leaf function (`pto.leaf = #pto.core<...>`) into
// pto_isa instructions over explicitly allocated on-chip tiles. The rules are
// in the pass description (include/pto/Conversion/Passes.td) and docs/ISA.md
// ("Lowering").
//
// Valid extents: every destination tile gets the valid extents of the pto
// value it holds, reified with ValidShapeReifier (shared arith, in program
// order), so instructions compute exactly over the region pto-run computes.
//
//===----------------------------------------------------------------------===//

#include "pto/Conversion/Passes.h"
#include "pto/Dialect/PTO/IR/Platform.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LOWERTOISAPASS
#include "pto/Conversion/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
namespace pisa = mlir::ptoisa;

namespace {

enum class BinKind { Add, Sub, Mul, Div, Max, Min };

static int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// Elements per 32-byte block of `t`.
static int64_t blockElems(Type t) {
  return 32 / std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// How a tile of rank other than 2 is held in a 2-D pto_isa tile: the dims
/// before the last non-unit dim are linearised into rows, that dim is the
/// columns and the unit dims after it are dropped ([64, 16, 1] -> [64, 16],
/// [64, 1, 16] -> [64, 16], [N] -> [1, N]). Rank-2 tiles stay as they are.
static unsigned columnDim(ArrayRef<int64_t> shape) {
  if (shape.size() == 2)
    return 1;
  for (unsigned d = shape.size(); d-- > 0;)
    if (shape[d] != 1)
      return d;
  return shape.empty() ? 0 : shape.size() - 1;
}

static std::pair<int64_t, int64_t> collapsedShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return {1, 1};
  unsigned c = columnDim(shape);
  int64_t rows = 1;
  for (unsigned d = 0; d < c; ++d)
    rows *= shape[d];
  return {rows, shape[c]};
}

static std::string shapeString(pto::TileType t) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(t.getShape()))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// Records every op the builder (and the reifier through it) inserts, so the
/// index arithmetic the lowering reified but did not use can be removed.
struct InsertedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    ops.insert(op);
  }
  llvm::SetVector<Operation *> ops;
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
  LogicalResult expectCollapsible(Operation *op, Value ptoTile);
  OpFoldResult mul(Location loc, OpFoldResult a, OpFoldResult b);
  struct Window2D {
    Value tensor;
    Value row, col;
  };
  FailureOr<Window2D> window2D(Operation *op, Value tensor,
                               ArrayRef<OpFoldResult> offsets,
                               ArrayRef<int64_t> tileShape);
  void computeColumnAlignment();

  // Vector leaves.
  LogicalResult lowerVectorView(ViewOp op);
  LogicalResult lowerBinary(Operation *op, BinKind bin, Value lhs, Value rhs);
  LogicalResult lowerUnary(Operation *op, Value input);
  LogicalResult lowerCast(CastOp op);
  LogicalResult lowerReduce(Operation *op, Value input, int64_t dim,
                            bool keepdim, bool isMax);
  LogicalResult lowerFull(FullOp op);
  LogicalResult lowerTranspose(TransposeOp op);
  LogicalResult lowerGatherMask(GatherMaskOp op);
  FailureOr<Value> rowBlock(Operation *user, Value rowOperand);
  FailureOr<Value> expandToResult(Operation *user, Value operand, Value tile);

  // Cube leaves.
  LogicalResult lowerMatmul(Operation *op, Value acc, Value lhs, Value rhs,
                            bool aTrans, bool bTrans);
  FailureOr<Value> loadOperand(Operation *user, Value view, bool left,
                               bool trans);

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
  int64_t l0CopyBytes[2] = {0, 0};
  /// Mode-2 row blocks of per-row operands.
  DenseMap<Value, Value> rowBlocks;
  DenseMap<int64_t, Value> constants;
  SmallVector<Operation *> replaced;
  /// 2-D reshapes of N-D GM tensors: (tensor, column dim) -> reshape.
  DenseMap<std::pair<Value, unsigned>, Value> tensors2D;
};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<pisa::TileType>
LeafLowering::makeTileType(Operation *op, pisa::MemorySpace space, int64_t rows,
                           int64_t cols, Type elem, pisa::TileLayout layout) {
  auto type = pisa::TileType::getChecked(
      [&] { return op->emitOpError() << "cannot be lowered: "; },
      builder.getContext(), space, rows, cols, elem, layout);
  if (!type)
    return failure();
  return type;
}

FailureOr<pisa::TileType> LeafLowering::ubTypeFor(Operation *op, Value ptoTile) {
  auto type = cast<pto::TileType>(ptoTile.getType());
  Type elem = type.getElementType();
  int64_t align = colAlign.lookup(ptoTile);
  if (!align)
    align = blockElems(elem);
  auto [rows, cols] = collapsedShape(type.getShape());
  return makeTileType(op, pisa::MemorySpace::ub, rows, roundUp(cols, align),
                      elem, pisa::TileLayout::nd);
}

Value LeafLowering::constIndex(int64_t c) {
  Value &v = constants[c];
  if (!v) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&func.getBody().front());
    v = builder.create<arith::ConstantIndexOp>(func.getLoc(), c);
  }
  return v;
}

Value LeafLowering::materialize(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return constIndex(cast<IntegerAttr>(attr).getInt());
  return cast<Value>(ofr);
}

OpFoldResult LeafLowering::mul(Location loc, OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a), cb = getConstantIntValue(b);
  if (ca && cb)
    return builder.getIndexAttr(*ca * *cb);
  if (ca == 1)
    return b;
  if (cb == 1)
    return a;
  return builder.create<arith::MulIOp>(loc, materialize(a), materialize(b))
      .getResult();
}

std::pair<Value, Value> LeafLowering::validOf(Location loc, Value ptoTile) {
  SmallVector<OpFoldResult> valid = reifier.reify(loc, ptoTile);
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2)
    return {materialize(valid[0]), materialize(valid[1])};
  // Collapsed extents (expectCollapsible checked that they are a rectangle);
  // a unit dim's valid extent (0 or 1) scales its group.
  unsigned c = columnDim(shape);
  OpFoldResult rows = builder.getIndexAttr(1),
               cols = valid.empty() ? builder.getIndexAttr(1) : valid[c];
  for (unsigned d = 0; d < valid.size(); ++d) {
    if (d < c)
      rows = mul(loc, rows, valid[d]);
    else if (d > c)
      cols = mul(loc, cols, valid[d]);
  }
  return {materialize(rows), materialize(cols)};
}

Value LeafLowering::alloc(Location loc, pisa::TileType type, Value rows,
                          Value cols) {
  return builder.create<pisa::AllocTileOp>(loc, type, rows, cols,
                                          /*offset=*/IntegerAttr());
}

SmallVector<OpFoldResult>
LeafLowering::normalize(ArrayRef<OpFoldResult> values) {
  SmallVector<OpFoldResult> result;
  for (OpFoldResult ofr : values) {
    if (auto v = dyn_cast<Value>(ofr)) {
      APInt c;
      if (matchPattern(v, m_ConstantInt(&c))) {
        result.push_back(builder.getIndexAttr(c.getSExtValue()));
        continue;
      }
    }
    if (auto attr = dyn_cast<Attribute>(ofr)) {
      result.push_back(builder.getIndexAttr(cast<IntegerAttr>(attr).getInt()));
      continue;
    }
    result.push_back(ofr);
  }
  return result;
}

FailureOr<Value> LeafLowering::lookup(Operation *user, Value ptoTile) {
  if (Value t = tiles.lookup(ptoTile))
    return t;
  if (isa<BlockArgument>(ptoTile))
    return user->emitOpError()
           << "reads a tile argument of the leaf; pto-lower-to-isa lowers "
              "leaves whose tiles are all views of GM tensors or results of "
              "ops in the leaf";
  if (kind == CoreKind::cube && ptoTile.getDefiningOp<ViewOp>())
    return user->emitOpError()
           << "uses a view directly; in a cube leaf views feed only matmul "
              "operands (GM -> L1 -> L0), and only matmul results (L0C) are "
              "stored";
  return user->emitOpError() << "reads a tile that pto-lower-to-isa could not "
                                "lower (produced by '"
                             << ptoTile.getDefiningOp()->getName() << "')";
}

/// Tiles and tensors of rank other than 2 reach views, stores and the
/// shape-preserving vector ops (elementwise on equal shapes, unary, cast,
/// full, a transpose that only moves unit dims), collapsed to 2-D.
/// Reductions, broadcasts and matmuls need rank-2 operands.
LogicalResult LeafLowering::expectLowerableRank(Operation *op) {
  auto rankOf = [](Type t) -> int64_t {
    if (auto tile = dyn_cast<pto::TileType>(t))
      return tile.getRank();
    if (auto tensor = dyn_cast<GMTensorType>(t))
      return tensor.getRank();
    return 2;
  };
  bool allRank2 = llvm::all_of(op->getOperandTypes(), [&](Type t) { return rankOf(t) == 2; }) &&
                  llvm::all_of(op->getResultTypes(), [&](Type t) { return rankOf(t) == 2; });
  if (allRank2)
    return success();
  // A gathermask keeps the leading dims and selects along the last one,
  // which stays the column dim (its result's last dim fills whole ub rows,
  // lowerGatherMask checks, so it is not a unit dim).
  bool shapePreserving =
      isa<ViewOp, AssembleOp, AtomicAddOp, CastOp, FullOp, TransposeOp, ExpOp,
          AbsOp, SqrtOp, RsqrtOp, ReciprocalOp, NegOp, GatherMaskOp>(op);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op)) {
    // Equal tile shapes or a scalar; a broadcast between N-D tiles is not
    // collapsed.
    Type resultType = op->getResult(0).getType();
    shapePreserving = llvm::all_of(op->getOperandTypes(), [&](Type t) {
      return !isa<pto::TileType>(t) || t == resultType;
    });
  }
  if (!shapePreserving) {
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (rankOf(t) != 2)
        return op->emitOpError()
               << "has a rank-" << rankOf(t)
               << " operand or result; pto-lower-to-isa collapses tiles of "
                  "other ranks to 2-D only for views, stores and "
                  "shape-preserving vector ops (elementwise on equal shapes, "
                  "unary, cast, full, a transpose of unit dims, gathermask); "
                  "reshape to 2-D before this op";
  }
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (isa<pto::TileType>(v.getType()) && failed(expectCollapsible(op, v)))
      return failure();
  return success();
}

/// Rows linearise the dims before the column dim: past the first non-unit
/// one of them, every dim must be valid in full, or the valid region is no
/// rectangle in 2-D.
LogicalResult LeafLowering::expectCollapsible(Operation *op, Value ptoTile) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2)
    return success();
  unsigned c = columnDim(shape);
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), ptoTile);
  bool leading = false;
  for (unsigned d = 0; d < c; ++d) {
    if (leading && shape[d] != 1 && getConstantIntValue(valid[d]) != shape[d])
      return op->emitOpError()
             << "has a " << shapeString(cast<pto::TileType>(ptoTile.getType()))
             << " tile whose dim " << d
             << " is not statically valid in full; pto-lower-to-isa collapses "
                "the dims before the last non-unit one into rows only when "
                "every one after the first is whole";
    leading |= shape[d] != 1;
  }
  return success();
}

/// The 2-D window of an N-D GM tensor that a collapsed tile of `tileShape` at
/// `offsets` reads or writes: a reshape of the tensor to [rows of the dims
/// before the column dim, the column dim] and the linearised offsets. The
/// window must be a rectangle in it: the tensor's dims after the column dim
/// are 1, and past the first non-unit tile dim of the rows the tile covers
/// the tensor's dim whole.
FailureOr<LeafLowering::Window2D>
LeafLowering::window2D(Operation *op, Value tensor, ArrayRef<OpFoldResult> offsets,
                       ArrayRef<int64_t> tileShape) {
  auto type = cast<GMTensorType>(tensor.getType());
  ArrayRef<int64_t> dims = type.getShape();
  Location loc = op->getLoc();
  if (dims.size() == 2)
    return Window2D{tensor, materialize(offsets[0]), materialize(offsets[1])};
  unsigned c = columnDim(tileShape);
  for (unsigned d = c + 1; d < dims.size(); ++d)
    if (dims[d] != 1)
      return op->emitOpError()
             << "reads or writes a " << type
             << " window whose columns (dim " << c
             << ") are strided: the tensor's dim " << d << " is "
             << (ShapedType::isDynamic(dims[d]) ? std::string("dynamic")
                                                : std::to_string(dims[d]))
             << ", not 1; pto-lower-to-isa loads and stores row-major 2-D "
                "windows (reshape the tensor so that the tile's last non-unit "
                "dim is the tensor's innermost)";
  bool leading = false;
  for (unsigned d = 0; d < c; ++d) {
    if (leading && tileShape[d] != dims[d])
      return op->emitOpError()
             << "reads or writes a " << type << " window whose dim " << d
             << " (" << tileShape[d]
             << ") is not the whole tensor dim: its rows are not evenly "
                "strided in GM, so the window is no 2-D rectangle";
    leading |= tileShape[d] != 1;
  }
  Value &reshaped = tensors2D[{tensor, c}];
  if (!reshaped) {
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *def = tensor.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(&func.getBody().front());
    auto size = [&](unsigned d) -> OpFoldResult {
      if (!ShapedType::isDynamic(dims[d]))
        return builder.getIndexAttr(dims[d]);
      return builder.create<DimOp>(loc, tensor, d).getResult();
    };
    OpFoldResult rows = builder.getIndexAttr(1);
    for (unsigned d = 0; d < c; ++d)
      rows = mul(loc, rows, size(d));
    SmallVector<OpFoldResult> shape2D = {rows, size(c)};
    SmallVector<int64_t> staticShape;
    SmallVector<Value> dynamicShape;
    dispatchIndexOpFoldResults(shape2D, dynamicShape, staticShape);
    auto type2D = GMTensorType::get(builder.getContext(), staticShape,
                                    type.getElementType());
    reshaped = builder
                   .create<ReshapeOp>(loc, type2D, tensor, dynamicShape,
                                      builder.getDenseI64ArrayAttr(staticShape),
                                      builder.getUnitAttr())
                   .getResult();
  }
  // row = ((o0 * d1 + o1) * d2 + ...) over the dims before the column dim.
  OpFoldResult row = builder.getIndexAttr(0);
  for (unsigned d = 0; d < c; ++d) {
    OpFoldResult size = ShapedType::isDynamic(dims[d])
                            ? OpFoldResult(builder.create<DimOp>(loc, tensor, d).getResult())
                            : OpFoldResult(builder.getIndexAttr(dims[d]));
    row = mul(loc, row, size);
    std::optional<int64_t> cr = getConstantIntValue(row),
                           co = getConstantIntValue(offsets[d]);
    if (cr && co)
      row = builder.getIndexAttr(*cr + *co);
    else if (cr == 0)
      row = offsets[d];
    else if (co != 0)
      row = builder.create<arith::AddIOp>(loc, materialize(row),
                                          materialize(offsets[d]))
                .getResult();
  }
  return Window2D{reshaped, materialize(row), materialize(offsets[c])};
}

void LeafLowering::computeColumnAlignment() {
  // Both sides of a cast need one capacity (TCVT is elementwise between
  // equal capacities): widen to the larger block, through chains of casts.
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk([&](CastOp cast) {
      Value a = cast.getInput(), b = cast.getResult();
      int64_t ea = colAlign.lookup(a), eb = colAlign.lookup(b);
      if (!ea)
        ea = blockElems(cast.getInput().getType().getElementType());
      if (!eb)
        eb = blockElems(cast.getResult().getType().getElementType());
      int64_t m = std::max(ea, eb);
      if (colAlign.lookup(a) != m || colAlign.lookup(b) != m) {
        colAlign[a] = m;
        colAlign[b] = m;
        changed = true;
      }
    });
  }
}

//===----------------------------------------------------------------------===//
// Vector leaves
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::lowerVectorView(ViewOp op) {
  if (!isa<GMTensorType>(op.getSource().getType()))
    return op.emitOpError()
           << "views a tile inside a leaf; pto-lower-to-isa lowers views of "
              "GM tensors (workspaces and kernel tensors) only";
  Location loc = op.getLoc();
  SmallVector<OpFoldResult> offsets = normalize(getMixedValues(
      op.getStaticOffsets(), op.getOffsets(), builder.getContext()));
  SmallVector<OpFoldResult> explicitValid;
  if (std::optional<ArrayRef<int64_t>> valid = op.getStaticValidShape())
    explicitValid = normalize(
        getMixedValues(*valid, op.getValidShape(), builder.getContext()));
  WindowKey key{op.getSource(), offsets, explicitValid,
                llvm::to_vector(op.getResult().getType().getShape()), false};
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  for (auto &[k, tile] : windows)
    if (k == key && tile.getType() == Type(*type)) {
      tiles[op.getResult()] = tile;
      replaced.push_back(op);
      return success();
    }
  FailureOr<Window2D> window =
      window2D(op, op.getSource(), offsets, op.getResult().getType().getShape());
  if (failed(window))
    return failure();
  auto [vr, vc] = validOf(loc, op.getResult());
  Value tile = alloc(loc, *type, vr, vc);
  builder.create<pisa::TLoadOp>(loc, window->tensor, window->row, window->col,
                               tile, /*transpose=*/false);
  windows.push_back({key, tile});
  tiles[op.getResult()] = tile;
  replaced.push_back(op);
  return success();
}

static void createBinary(OpBuilder &b, Location loc, BinKind k, Value lhs,
                         Value rhs, Value dst) {
  switch (k) {
  case BinKind::Add:
    b.create<pisa::TAddOp>(loc, lhs, rhs, dst);
    return;
  case BinKind::Sub:
    b.create<pisa::TSubOp>(loc, lhs, rhs, dst);
    return;
  case BinKind::Mul:
    b.create<pisa::TMulOp>(loc, lhs, rhs, dst);
    return;
  case BinKind::Div:
    b.create<pisa::TDivOp>(loc, lhs, rhs, dst);
    return;
  case BinKind::Max:
    b.create<pisa::TMaxOp>(loc, lhs, rhs, dst);
    return;
  case BinKind::Min:
    b.create<pisa::TMinOp>(loc, lhs, rhs, dst);
    return;
  }
}

static void createScalar(OpBuilder &b, Location loc, BinKind k, Value src,
                         Value scalar, Value dst) {
  switch (k) {
  case BinKind::Add:
    b.create<pisa::TAddSOp>(loc, src, scalar, dst);
    return;
  case BinKind::Sub:
    b.create<pisa::TSubSOp>(loc, src, scalar, dst);
    return;
  case BinKind::Mul:
    b.create<pisa::TMulSOp>(loc, src, scalar, dst);
    return;
  case BinKind::Div:
    b.create<pisa::TDivSOp>(loc, src, scalar, dst);
    return;
  case BinKind::Max:
    b.create<pisa::TMaxSOp>(loc, src, scalar, dst);
    return;
  case BinKind::Min:
    b.create<pisa::TMinSOp>(loc, src, scalar, dst);
    return;
  }
}

static void createColExpandBinary(OpBuilder &b, Location loc, BinKind k,
                                  Value full, Value colval, Value dst) {
  switch (k) {
  case BinKind::Add:
    b.create<pisa::TColExpandAddOp>(loc, full, colval, dst);
    return;
  case BinKind::Sub:
    b.create<pisa::TColExpandSubOp>(loc, full, colval, dst);
    return;
  case BinKind::Mul:
    b.create<pisa::TColExpandMulOp>(loc, full, colval, dst);
    return;
  case BinKind::Div:
    b.create<pisa::TColExpandDivOp>(loc, full, colval, dst);
    return;
  case BinKind::Max:
    b.create<pisa::TColExpandMaxOp>(loc, full, colval, dst);
    return;
  case BinKind::Min:
    b.create<pisa::TColExpandMinOp>(loc, full, colval, dst);
    return;
  }
}

/// `operand` (held in `tile`) expanded to the shape and valid extents of
/// `user`'s result: a [1, C] operand by tcolexpand, an [R, 1] one by
/// trowexpand, a [1, 1] one by both; a full operand as it is.
FailureOr<Value> LeafLowering::expandToResult(Operation *user, Value operand,
                                              Value tile) {
  Location loc = user->getLoc();
  Value result = user->getResult(0);
  ArrayRef<int64_t> res = cast<pto::TileType>(result.getType()).getShape();
  ArrayRef<int64_t> shape = cast<pto::TileType>(operand.getType()).getShape();
  bool cols = shape[0] == 1 && res[0] != 1, rows = shape[1] == 1 && res[1] != 1;
  if (!cols && !rows)
    return tile;
  FailureOr<pisa::TileType> dstType = ubTypeFor(user, result);
  if (failed(dstType))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  if (cols) {
    // Every row of the result gets row 0; the columns stay the operand's.
    auto srcType = cast<pisa::TileType>(tile.getType());
    FailureOr<pisa::TileType> type =
        rows ? makeTileType(user, pisa::MemorySpace::ub, dstType->getRows(),
                            srcType.getCols(), srcType.getElementType(),
                            pisa::TileLayout::nd)
             : *dstType;
    if (failed(type))
      return failure();
    Value expanded =
        alloc(loc, *type, vr, rows ? validOf(loc, operand).second : vc);
    builder.create<pisa::TColExpandOp>(loc, tile, expanded);
    tile = expanded;
  }
  if (rows) {
    Value expanded = alloc(loc, *dstType, vr, vc);
    builder.create<pisa::TRowExpandOp>(loc, tile, expanded);
    tile = expanded;
  }
  return tile;
}

/// The mode-2 operand of trowexpand_{sub,mul,div}: the per-row tile (held in
/// an nd [R, 32/sizeof] tile with one valid column) expanded to one full
/// 32-byte block per row.
FailureOr<Value> LeafLowering::rowBlock(Operation *user, Value rowOperand) {
  if (Value cached = rowBlocks.lookup(rowOperand))
    return cached;
  FailureOr<Value> src = lookup(user, rowOperand);
  if (failed(src))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  Type elem = srcType.getElementType();
  FailureOr<pisa::TileType> type =
      makeTileType(user, pisa::MemorySpace::ub, srcType.getRows(),
                   blockElems(elem), elem, pisa::TileLayout::nd);
  if (failed(type))
    return failure();
  Location loc = user->getLoc();
  Value rows = validOf(loc, rowOperand).first;
  Value block = alloc(loc, *type, rows, constIndex(blockElems(elem)));
  builder.create<pisa::TRowExpandOp>(loc, *src, block);
  rowBlocks[rowOperand] = block;
  return block;
}

LogicalResult LeafLowering::lowerBinary(Operation *op, BinKind bin, Value lhs,
                                        Value rhs) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto resultType = cast<pto::TileType>(result.getType());
  FailureOr<pisa::TileType> dstType = ubTypeFor(op, result);
  if (failed(dstType))
    return failure();
  FailureOr<Value> lhsTile = lookup(op, lhs);
  if (failed(lhsTile))
    return failure();

  auto newDst = [&]() {
    auto [vr, vc] = validOf(loc, result);
    Value dst = alloc(loc, *dstType, vr, vc);
    tiles[result] = dst;
    replaced.push_back(op);
    return dst;
  };

  // Tile op scalar. (pto puts a scalar on the right only; a scalar on the
  // left of sub/div cannot be written, so there is no reversed form.)
  if (!isa<pto::TileType>(rhs.getType())) {
    if (rhs.getType() != resultType.getElementType())
      return op->emitOpError() << "scalar of type " << rhs.getType()
                               << " differs from the tile element type "
                               << resultType.getElementType();
    Value dst = newDst();
    createScalar(builder, loc, bin, *lhsTile, rhs, dst);
    return success();
  }
  FailureOr<Value> rhsTile = lookup(op, rhs);
  if (failed(rhsTile))
    return failure();

  ArrayRef<int64_t> res = resultType.getShape();
  auto broadcast = [&](Value v, unsigned d) {
    return cast<pto::TileType>(v.getType()).getDimSize(d) == 1 && res[d] != 1;
  };
  bool lhsCol = broadcast(lhs, 0), rhsCol = broadcast(rhs, 0);
  if (lhsCol || rhsCol) {
    // A [1, C] operand over a full one: the column-broadcast instructions
    // (the [1, C] operand second; swapped for the commutative ops).
    bool commutative = bin != BinKind::Sub && bin != BinKind::Div;
    bool fullLhs = !lhsCol && !broadcast(lhs, 1);
    bool fullRhs = !rhsCol && !broadcast(rhs, 1);
    if ((rhsCol && !broadcast(rhs, 1) && fullLhs) ||
        (commutative && lhsCol && !broadcast(lhs, 1) && fullRhs)) {
      Value full = rhsCol ? *lhsTile : *rhsTile;
      Value colval = rhsCol ? *rhsTile : *lhsTile;
      Value dst = newDst();
      createColExpandBinary(builder, loc, bin, full, colval, dst);
      return success();
    }
    // Otherwise (a [1, C] left operand of sub/div, a [1, 1] operand, or
    // both operands broadcast): expand each to the result's shape, then the
    // plain instruction.
    FailureOr<Value> a = expandToResult(op, lhs, *lhsTile);
    if (failed(a))
      return failure();
    FailureOr<Value> b = expandToResult(op, rhs, *rhsTile);
    if (failed(b))
      return failure();
    Value dst = newDst();
    createBinary(builder, loc, bin, *a, *b, dst);
    return success();
  }
  bool lhsRow = broadcast(lhs, 1), rhsRow = broadcast(rhs, 1);
  if (!lhsRow && !rhsRow) {
    Value dst = newDst();
    createBinary(builder, loc, bin, *lhsTile, *rhsTile, dst);
    return success();
  }
  // A per-row right operand of sub/mul/div: the row-broadcast instructions
  // (mode 2: one 32-byte block per row).
  if (rhsRow &&
      (bin == BinKind::Sub || bin == BinKind::Mul || bin == BinKind::Div)) {
    FailureOr<Value> block = rowBlock(op, rhs);
    if (failed(block))
      return failure();
    Value dst = newDst();
    if (bin == BinKind::Sub)
      builder.create<pisa::TRowExpandSubOp>(loc, *lhsTile, *block, dst);
    else if (bin == BinKind::Mul)
      builder.create<pisa::TRowExpandMulOp>(loc, *lhsTile, *block, dst);
    else
      builder.create<pisa::TRowExpandDivOp>(loc, *lhsTile, *block, dst);
    return success();
  }
  // Any other row broadcast (add/max/min, or the per-row operand on the
  // left): expand it to the result's shape, then the plain instruction with
  // the operands in their original order.
  Value rowTile = lhsRow ? *lhsTile : *rhsTile;
  auto [vr, vc] = validOf(loc, result);
  Value expanded = alloc(loc, *dstType, vr, vc);
  builder.create<pisa::TRowExpandOp>(loc, rowTile, expanded);
  Value dst = newDst();
  createBinary(builder, loc, bin, lhsRow ? expanded : *lhsTile,
               lhsRow ? *rhsTile : expanded, dst);
  return success();
}

LogicalResult LeafLowering::lowerUnary(Operation *op, Value input) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  FailureOr<Value> src = lookup(op, input);
  FailureOr<pisa::TileType> type = ubTypeFor(op, result);
  if (failed(src) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *type, vr, vc);
  TypeSwitch<Operation *>(op)
      .Case([&](ExpOp) { builder.create<pisa::TExpOp>(loc, *src, dst); })
      .Case([&](AbsOp) { builder.create<pisa::TAbsOp>(loc, *src, dst); })
      .Case([&](SqrtOp) { builder.create<pisa::TSqrtOp>(loc, *src, dst); })
      .Case([&](RsqrtOp) { builder.create<pisa::TRsqrtOp>(loc, *src, dst); })
      .Case([&](ReciprocalOp) { builder.create<pisa::TRecipOp>(loc, *src, dst); })
      .Case([&](NegOp) { builder.create<pisa::TNegOp>(loc, *src, dst); });
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerCast(CastOp op) {
  Location loc = op.getLoc();
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, op.getResult());
  Value dst = alloc(loc, *type, vr, vc);
  builder.create<pisa::TCvtOp>(
      loc, *src, dst, CastModeAttr::get(op.getContext(), op.getEffectiveMode()));
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerReduce(Operation *op, Value input, int64_t dim,
                                        bool keepdim, bool isMax) {
  if (!keepdim)
    return op->emitOpError()
           << "reduces dim " << dim
           << " without keepdim; pto-lower-to-isa supports row reductions "
              "(dim = 1, keepdim: TROWSUM/TROWMAX) and column reductions "
              "(dim = 0, keepdim: TCOLSUM/TCOLMAX)";
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  Type elem = cast<pto::TileType>(result.getType()).getElementType();
  FailureOr<Value> src = lookup(op, input);
  if (failed(src))
    return failure();
  auto srcType = cast<pisa::TileType>(src->getType());
  if (dim == 0) {
    // One row holding each column's result, with the source's column
    // capacity (pto-isa's TCOLSUM/TCOLMAX want equal Cols).
    FailureOr<pisa::TileType> dstType =
        makeTileType(op, pisa::MemorySpace::ub, 1, srcType.getCols(), elem,
                     pisa::TileLayout::nd);
    if (failed(dstType))
      return failure();
    auto [vr, vc] = validOf(loc, result);
    Value dst = alloc(loc, *dstType, vr, vc);
    if (isMax)
      builder.create<pisa::TColMaxOp>(loc, *src, dst);
    else
      builder.create<pisa::TColSumOp>(loc, *src, dst);
    tiles[result] = dst;
    replaced.push_back(op);
    return success();
  }
  FailureOr<pisa::TileType> dstType =
      makeTileType(op, pisa::MemorySpace::ub, srcType.getRows(),
                   blockElems(elem), elem, pisa::TileLayout::nd);
  if (failed(dstType))
    return failure();
  // Scratch shaped like the source (the A2/A3 float tree reduction).
  auto [sr, sc] = validOf(loc, input);
  Value tmp = alloc(loc, srcType, sr, sc);
  auto [vr, vc] = validOf(loc, result);
  Value dst = alloc(loc, *dstType, vr, vc);
  if (isMax)
    builder.create<pisa::TRowMaxOp>(loc, *src, tmp, dst);
  else
    builder.create<pisa::TRowSumOp>(loc, *src, tmp, dst);
  tiles[result] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerFull(FullOp op) {
  Location loc = op.getLoc();
  Type elem = op.getResult().getType().getElementType();
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(type))
    return failure();
  TypedAttr value;
  if (auto ft = dyn_cast<FloatType>(elem))
    value = builder.getFloatAttr(ft, op.getValue().convertToDouble());
  else
    value = builder.getIntegerAttr(
        elem, static_cast<int64_t>(op.getValue().convertToDouble()));
  Value scalar = builder.create<arith::ConstantOp>(loc, value);
  auto [vr, vc] = validOf(loc, op.getResult());
  Value dst = alloc(loc, *type, vr, vc);
  builder.create<pisa::TExpandSOp>(loc, scalar, dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerTranspose(TransposeOp op) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> from = op.getInput().getType().getShape(),
                    to = op.getResult().getType().getShape();
  if (from.size() != 2) {
    // When the non-unit dims keep their order, so do the elements: the
    // collapsed tile is the source's and no data moves.
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, from.size()));
    std::swap(perm[op.getDim0()], perm[op.getDim1()]);
    int64_t last = -1;
    for (auto [k, d] : llvm::enumerate(perm)) {
      if (to[k] == 1)
        continue;
      if (d < last)
        return op.emitOpError()
               << "transposes dims " << op.getDim0() << " and " << op.getDim1()
               << " of a " << shapeString(op.getInput().getType())
               << " tile, reordering its non-unit dims; pto-lower-to-isa "
                  "transposes 2-D tiles, and N-D tiles only where the "
                  "non-unit dims keep their order (a unit dim moves)";
      last = d;
    }
    FailureOr<Value> src = lookup(op, op.getInput());
    if (failed(src))
      return failure();
    tiles[op.getResult()] = *src;
    replaced.push_back(op);
    return success();
  }
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  // The scratch TTRANS transposes into before the copy to dst: dst's shape.
  auto [vr, vc] = validOf(loc, op.getResult());
  Value tmp = alloc(loc, *type, vr, vc);
  Value dst = alloc(loc, *type, vr, vc);
  builder.create<pisa::TTransOp>(loc, *src, tmp, dst);
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

LogicalResult LeafLowering::lowerGatherMask(GatherMaskOp op) {
  Location loc = op.getLoc();
  FailureOr<Value> src = lookup(op, op.getInput());
  FailureOr<pisa::TileType> type = ubTypeFor(op, op.getResult());
  if (failed(src) || failed(type))
    return failure();
  // TGATHER writes the selected elements of the valid rows packed: the
  // destination row must hold exactly the selected columns, without the
  // padding ub rows get to a 32-byte block, and all of them must be valid.
  int64_t cols = op.getResult().getType().getShape().back();
  if (type->getCols() != cols)
    return op.emitOpError()
           << "gathers " << cols << " columns of "
           << op.getResult().getType().getElementType()
           << ", which is not a whole number of 32-byte blocks: the "
              "mask-pattern TGATHER packs its result rows, so the result's "
              "last dim must fill its ub rows; gather a wider input";
  auto [vr, vc] = validOf(loc, op.getResult());
  APInt validCols;
  if (matchPattern(vc, m_ConstantInt(&validCols)) &&
      validCols.getSExtValue() != cols)
    return op.emitOpError()
           << "gathers " << validCols.getSExtValue() << " valid columns of "
           << cols << ": the mask-pattern TGATHER packs its result rows, so "
              "the input's last dim must be fully valid";
  Value dst = alloc(loc, *type, vr, vc);
  builder.create<pisa::TGatherMaskOp>(loc, *src, dst,
                                      op.getPatternModeAttr());
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Cube leaves
//===----------------------------------------------------------------------===//

/// The capacity of a cube tile dim: whole 16-row/column fractal edges and
/// whole 32-byte blocks, so one capacity serves nz, zn, Left and Right.
static int64_t cubeDim(int64_t d, Type elem) {
  return roundUp(d, std::max<int64_t>(16, blockElems(elem)));
}

/// GM -> L1 (deduplicated per window and orientation) -> L0A/L0B. The L1
/// image holds the logical operand: a plain ND -> NZ load, or with a
/// transpose flag the DN -> ZN load of the stored matrix, which holds its
/// transpose (docs/AscendTarget.md#operand-transposes).
FailureOr<Value> LeafLowering::loadOperand(Operation *user, Value operand,
                                           bool left, bool trans) {
  auto view = operand.getDefiningOp<ViewOp>();
  if (!view || !isa<GMTensorType>(view.getSource().getType()))
    return user->emitOpError()
           << "has a " << (left ? "left" : "right")
           << " operand that is not a view of a GM tensor; a cube leaf loads "
              "its operands GM -> L1 -> L0";
  Location loc = view.getLoc();
  SmallVector<OpFoldResult> offsets = normalize(getMixedValues(
      view.getStaticOffsets(), view.getOffsets(), builder.getContext()));
  SmallVector<OpFoldResult> explicitValid;
  if (std::optional<ArrayRef<int64_t>> valid = view.getStaticValidShape())
    explicitValid = normalize(
        getMixedValues(*valid, view.getValidShape(), builder.getContext()));
  pto::TileType viewType = view.getResult().getType();
  WindowKey key{view.getSource(), offsets, explicitValid,
                llvm::to_vector(viewType.getShape()), trans};
  Value l1;
  for (auto &[k, tile] : windows)
    if (k == key)
      l1 = tile;
  if (!l1) {
    Type elem = viewType.getElementType();
    int64_t r = cubeDim(viewType.getDimSize(0), elem),
            c = cubeDim(viewType.getDimSize(1), elem);
    FailureOr<pisa::TileType> type =
        trans ? makeTileType(user, pisa::MemorySpace::l1, c, r, elem,
                             pisa::TileLayout::zn)
              : makeTileType(user, pisa::MemorySpace::l1, r, c, elem,
                             pisa::TileLayout::nz);
    if (failed(type))
      return failure();
    auto [vr, vc] = validOf(loc, view.getResult());
    l1 = trans ? alloc(loc, *type, vc, vr) : alloc(loc, *type, vr, vc);
    builder.create<pisa::TLoadOp>(loc, view.getSource(), materialize(offsets[0]),
                                 materialize(offsets[1]), l1, trans);
    windows.push_back({key, l1});
  }
  int side = left ? 1 : 0;
  Value l0 = l0Copies.lookup({l1, side});
  if (!l0) {
    auto l1Type = cast<pisa::TileType>(l1.getType());
    FailureOr<pisa::TileType> type = makeTileType(
        user, left ? pisa::MemorySpace::l0a : pisa::MemorySpace::l0b,
        l1Type.getRows(), l1Type.getCols(), l1Type.getElementType(),
        pisa::TileType::getDefaultLayout(left ? pisa::MemorySpace::l0a
                                             : pisa::MemorySpace::l0b));
    if (failed(type))
      return failure();
    // A copy is kept for later matmuls of the same L1 image (an operand
    // shared across output pieces) while the kept copies fit the space;
    // past that the kept ones are dropped, so they die at their last use
    // and later users extract again (e.g. the K steps of a long P V chain
    // shared by every row piece would not fit L0B together).
    int64_t capacity = left ? platform.l0aBytes : platform.l0bBytes;
    if (l0CopyBytes[side] + type->getByteSize() > capacity) {
      for (auto it = l0Copies.begin(); it != l0Copies.end();) {
        auto current = it++;
        if (current->first.second == side)
          l0Copies.erase(current);
      }
      l0CopyBytes[side] = 0;
    }
    auto l1Alloc = pisa::getAlloc(l1);
    l0 = alloc(loc, *type, l1Alloc.getValidRows(), l1Alloc.getValidCols());
    builder.create<pisa::TExtractOp>(loc, l1, l0, builder.getI64IntegerAttr(0),
                                    builder.getI64IntegerAttr(0));
    l0Copies[{l1, side}] = l0;
    l0CopyBytes[side] += type->getByteSize();
  }
  if (!llvm::is_contained(replaced, view.getOperation()))
    replaced.push_back(view);
  return l0;
}

LogicalResult LeafLowering::lowerMatmul(Operation *op, Value acc, Value lhs,
                                        Value rhs, bool aTrans, bool bTrans) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  FailureOr<Value> a = loadOperand(op, lhs, /*left=*/true, aTrans);
  if (failed(a))
    return failure();
  FailureOr<Value> b = loadOperand(op, rhs, /*left=*/false, bTrans);
  if (failed(b))
    return failure();
  if (acc) {
    // K step: accumulate in place into the accumulator of the chain.
    FailureOr<Value> accTile = lookup(op, acc);
    if (failed(accTile))
      return failure();
    for (Operation *user : acc.getUsers())
      if (user != op && op->isBeforeInBlock(user))
        return op->emitOpError()
               << "accumulates into a partial result that is read again "
                  "after this K step; the accumulator is updated in place "
                  "(TMATMUL_ACC), so each partial result may feed only the "
                  "next step";
    builder.create<pisa::TMatmulAccOp>(loc, *a, *b, *accTile);
    tiles[result] = *accTile;
    replaced.push_back(op);
    return success();
  }
  auto resultType = cast<pto::TileType>(result.getType());
  Type operandElem = cast<pto::TileType>(lhs.getType()).getElementType();
  Type accElem = operandElem.isSignlessInteger(8)
                     ? Type(builder.getI32Type())
                     : Type(builder.getF32Type());
  FailureOr<pisa::TileType> type = makeTileType(
      op, pisa::MemorySpace::l0c, cubeDim(resultType.getDimSize(0), accElem),
      cubeDim(resultType.getDimSize(1), accElem), accElem,
      pisa::TileLayout::nz);
  if (failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  Value accTile = alloc(loc, *type, vr, vc);
  builder.create<pisa::TMatmulOp>(loc, *a, *b, accTile);
  tiles[result] = accTile;
  replaced.push_back(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Stores
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::lowerStore(Operation *op, Value src, Value dst,
                                       ArrayRef<int64_t> staticOffsets,
                                       ValueRange dynamicOffsets, bool atomic) {
  FailureOr<Value> tile = lookup(op, src);
  if (failed(tile))
    return failure();
  SmallVector<OpFoldResult> offsets = normalize(
      getMixedValues(staticOffsets, dynamicOffsets, builder.getContext()));
  FailureOr<Window2D> window = window2D(
      op, dst, offsets, cast<pto::TileType>(src.getType()).getShape());
  if (failed(window))
    return failure();
  builder.create<pisa::TStoreOp>(op->getLoc(), *tile, window->tensor,
                                window->row, window->col, atomic);
  // A later view of the written tensor reads the new data: load it again.
  Value written = getAliasedTensor(dst);
  llvm::erase_if(windows, [&](const std::pair<WindowKey, Value> &w) {
    return getAliasedTensor(w.first.source) == written;
  });
  replaced.push_back(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult LeafLowering::run() {
  if (kind == CoreKind::mix)
    return func.emitOpError()
           << "is a MIX leaf; pto-lower-to-isa lowers pure cube and pure "
              "vector leaves";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has more than one block; pto-lower-to-isa lowers straight-line "
              "leaves";
  for (auto type : func.getArgumentTypes())
    if (isa<pto::TileType>(type))
      return func.emitOpError()
             << "takes a tile argument (" << type
             << "); pto-lower-to-isa lowers leaves whose tiles are views of "
                "GM tensors or results of ops in the leaf. A tile the control "
                "program passes in (e.g. a loop-carried iter_arg or an scf.if "
                "result) has no GM home: keep such state in a GM tensor "
                "(pto.workspace), assemble into it and view it where it is "
                "read (docs/SK01.md, \"GM accumulators\")";
  computeColumnAlignment();
  bool cube = kind == CoreKind::cube;
  Block &body = func.getBody().front();
  for (Operation &opRef : llvm::make_early_inc_range(body)) {
    Operation *op = &opRef;
    if (op->getNumRegions() != 0)
      return op->emitOpError()
             << "has regions; pto-lower-to-isa lowers straight-line leaves";
    bool touchesTiles =
        llvm::any_of(op->getOperandTypes(), llvm::IsaPred<pto::TileType>) ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<pto::TileType>);
    if (!touchesTiles)
      continue; // index arithmetic, pto.dim, constants, return
    if (failed(expectLowerableRank(op)))
      return failure();
    builder.setInsertionPoint(op);
    bool isCompute = isa<MatmulOp, MatmulAccOp>(op) ||
                     (isVectorOp(op) && !isa<AssembleOp, AtomicAddOp>(op));
    if (isCompute && cube != isCubeOp(op))
      return op->emitOpError()
             << "is a " << (cube ? "vector" : "cube") << " op in a "
             << (cube ? "cube" : "vector")
             << " leaf; DAV_2201 leaves are pure cube or pure vector";
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](ViewOp v) {
              // Cube operands are loaded at their matmul, where the
              // orientation is known.
              return cube ? success() : lowerVectorView(v);
            })
            .Case([&](AddOp o) {
              return lowerBinary(o, BinKind::Add, o.getLhs(), o.getRhs());
            })
            .Case([&](SubOp o) {
              return lowerBinary(o, BinKind::Sub, o.getLhs(), o.getRhs());
            })
            .Case([&](MulOp o) {
              return lowerBinary(o, BinKind::Mul, o.getLhs(), o.getRhs());
            })
            .Case([&](DivOp o) {
              return lowerBinary(o, BinKind::Div, o.getLhs(), o.getRhs());
            })
            .Case([&](MaxOp o) {
              return lowerBinary(o, BinKind::Max, o.getLhs(), o.getRhs());
            })
            .Case([&](MinOp o) {
              return lowerBinary(o, BinKind::Min, o.getLhs(), o.getRhs());
            })
            .Case<ExpOp, AbsOp, SqrtOp, RsqrtOp, ReciprocalOp, NegOp>(
                [&](Operation *o) { return lowerUnary(o, o->getOperand(0)); })
            .Case([&](CastOp o) { return lowerCast(o); })
            .Case([&](SumOp o) {
              return lowerReduce(o, o.getInput(), o.getDim(), o.getKeepdim(),
                                 /*isMax=*/false);
            })
            .Case([&](AmaxOp o) {
              return lowerReduce(o, o.getInput(), o.getDim(), o.getKeepdim(),
                                 /*isMax=*/true);
            })
            .Case([&](FullOp o) { return lowerFull(o); })
            .Case([&](TransposeOp o) { return lowerTranspose(o); })
            .Case([&](GatherMaskOp o) { return lowerGatherMask(o); })
            .Case([&](MatmulOp o) {
              return lowerMatmul(o, Value(), o.getLhs(), o.getRhs(),
                                 o.getATrans(), o.getBTrans());
            })
            .Case([&](MatmulAccOp o) {
              return lowerMatmul(o, o.getAcc(), o.getLhs(), o.getRhs(),
                                 o.getATrans(), o.getBTrans());
            })
            .Case([&](AssembleOp o) {
              return lowerStore(o, o.getSrc(), o.getDst(), o.getStaticOffsets(),
                                o.getOffsets(), /*atomic=*/false);
            })
            .Case([&](AtomicAddOp o) {
              return lowerStore(o, o.getSrc(), o.getDst(), o.getStaticOffsets(),
                                o.getOffsets(), /*atomic=*/true);
            })
            .Default([&](Operation *o) {
              return o->emitOpError()
                     << "has no pto_isa lowering (pto-lower-to-isa lowers "
                        "views, elementwise, unary, cast, row and column "
                        "reductions, full, transpose, gathermask, matmul chains, "
                        "assemble and atomic_add)";
            });
    if (failed(result))
      return failure();
  }
  // Cube views that fed no matmul are dead reads.
  if (cube)
    for (Operation &op : body)
      if (auto view = dyn_cast<ViewOp>(&op))
        if (!llvm::is_contained(replaced, view.getOperation()))
          replaced.push_back(view);
  // Erase the replaced pto ops, users first.
  llvm::SmallPtrSet<Operation *, 32> erased;
  for (Operation *op : llvm::reverse(replaced)) {
    if (erased.count(op))
      continue;
    for (Operation *user : op->getUsers())
      if (!erased.count(user))
        return user->emitOpError()
               << "uses a tile that pto-lower-to-isa replaced; it cannot be "
                  "lowered";
    op->erase();
    erased.insert(op);
  }
  // One copy of each constant the lowering created, at the function entry.
  DenseMap<Attribute, Operation *> uniqueConstants;
  Block &entry = func.getBody().front();
  for (Operation *op : inserted.ops) {
    auto constant = dyn_cast<arith::ConstantOp>(op);
    if (erased.count(op) || !constant)
      continue;
    Attribute value = constant.getValue();
    if (Operation *first = uniqueConstants.lookup(value)) {
      op->replaceAllUsesWith(first);
      op->erase();
      erased.insert(op);
      continue;
    }
    op->moveBefore(&entry, entry.begin());
    uniqueConstants[value] = op;
  }
  // Drop index arithmetic the reifier built but no instruction reads.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : llvm::reverse(inserted.ops)) {
      if (erased.count(op) ||
          (!isa<arith::ArithDialect>(op->getDialect()) && !isa<DimOp>(op)))
        continue;
      if (op->use_empty()) {
        op->erase();
        erased.insert(op);
        changed = true;
      }
    }
  }
  return success();
}

namespace {
struct LowerToISAPass : public pto::impl::LowerToISAPassBase<LowerToISAPass> {
  void runOnOperation() override {
    SmallVector<std::pair<func::FuncOp, CoreKind>> leaves;
    getOperation().walk([&](func::FuncOp func) {
      if (auto kind = func->getAttrOfType<CoreKindAttr>("pto.leaf"))
        leaves.push_back({func, kind.getValue()});
    });
    for (auto [func, kind] : leaves) {
      LeafLowering lowering(func, kind);
      if (failed(lowering.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
