//===- CollapseND.cpp - N-D tiles as 2-D pto_isa tiles
//----------------------===//
//
// Tiles of rank other than 2 reach pto_isa as 2-D tiles: the dims before the
// last non-unit dim are rows, that dim the columns, unit dims after it drop;
// their GM windows are read through in-place 2-D reshapes of the tensor.
// Rules: docs/ISA.md ("N-D tiles").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

//===----------------------------------------------------------------------===//
// Column forms
//===----------------------------------------------------------------------===//

/// A tile with trailing unit dims has two 2-D forms: its last non-unit dim as
/// the columns (the default: [B, S, 1] -> [B, S]) or a later unit dim as a
/// single column ([B, S, 1] -> [B * S, 1]). The second is what a row
/// reduction of [B, S, D] over D produces (TROWSUM's column) and what a
/// per-row operand of [B, S, D] must be (TROWEXPAND*). Values joined by
/// same-shape elementwise ops, unary ops and casts share one form; a
/// keepdim row reduction and a per-row broadcast operand pick the column
/// form for their group. Union-find over the leaf: near-linear.
Value LeafLowering::formRoot(Value v) {
  Value root = v;
  while (Value parent = formParent.lookup(root))
    root = parent;
  // Path compression.
  while (v != root) {
    Value next = formParent.lookup(v);
    formParent[v] = root;
    v = next;
  }
  return root;
}

unsigned LeafLowering::heldColumnDim(Value ptoTile) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2)
    return 1;
  auto it = columnForms.find(formRoot(ptoTile));
  return it == columnForms.end() ? columnDim(shape) : it->second.first;
}

std::pair<int64_t, int64_t> LeafLowering::heldShape(Value ptoTile) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.empty())
    return {1, 1};
  unsigned c = heldColumnDim(ptoTile);
  int64_t rows = 1;
  for (unsigned d = 0; d < c; ++d)
    rows *= shape[d];
  return {rows, shape[c]};
}

LogicalResult LeafLowering::assignColumnForms() {
  Block &body = func.getBody().front();
  auto isTile = [](Value v) { return isa<pto::TileType>(v.getType()); };
  auto join = [&](Value a, Value b) {
    Value ra = formRoot(a), rb = formRoot(b);
    if (ra != rb)
      formParent[ra] = rb;
  };
  for (Operation &op : body) {
    if (!isElementwiseOp(&op))
      continue;
    Value result = op.getResult(0);
    auto shape = cast<pto::TileType>(result.getType()).getShape();
    for (Value operand : op.getOperands())
      if (isTile(operand) &&
          cast<pto::TileType>(operand.getType()).getShape() == shape)
        join(operand, result);
  }
  // A column form `c` for the group of `v`, chosen by `op`.
  auto choose = [&](Operation *op, Value v, unsigned c) -> LogicalResult {
    ArrayRef<int64_t> shape = cast<pto::TileType>(v.getType()).getShape();
    if (shape.size() == 2 || c == columnDim(shape))
      return success();
    auto [it, inserted] = columnForms.try_emplace(formRoot(v), c, op);
    if (inserted || it->second.first == c)
      return success();
    InFlightDiagnostic diag =
        op->emitOpError()
        << "needs its " << shapeString(cast<pto::TileType>(v.getType()))
        << " tile held with dim " << c
        << " as the columns of a 2-D tile, but an elementwise chain joins it "
           "to a tile held with dim "
        << it->second.first
        << " as the columns; pto-lower-to-isa holds each such chain in one "
           "2-D form: reshape one of them";
    diag.attachNote(it->second.second->getLoc()) << "the other form is here";
    return failure();
  };
  // Row reductions keeping the reduced dim: their result is a column.
  for (Operation &op : body) {
    auto reduce = [&](Value input, int64_t dim, bool keepdim) {
      ArrayRef<int64_t> in = cast<pto::TileType>(input.getType()).getShape();
      if (!keepdim || in.size() == 2 || dim != columnDim(in))
        return success();
      return choose(&op, op.getResult(0), dim);
    };
    LogicalResult ok =
        TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](SumOp o) {
              return reduce(o.getInput(), o.getDim(), o.getKeepdim());
            })
            .Case([&](AmaxOp o) {
              return reduce(o.getInput(), o.getDim(), o.getKeepdim());
            })
            .Default([](Operation *) { return success(); });
    if (failed(ok))
      return failure();
  }
  // Per-row operands of N-D broadcasts: a column against the result's
  // columns.
  for (Operation &op : body) {
    if (!isa<ElementwiseBinaryOpInterface>(op))
      continue;
    Value result = op.getResult(0);
    ArrayRef<int64_t> res = cast<pto::TileType>(result.getType()).getShape();
    if (res.size() == 2)
      continue;
    unsigned c = heldColumnDim(result);
    for (Value operand : op.getOperands()) {
      if (!isTile(operand))
        continue;
      ArrayRef<int64_t> shape =
          cast<pto::TileType>(operand.getType()).getShape();
      if (shape != res && shape[c] == 1 && res[c] != 1 &&
          failed(choose(&op, operand, c)))
        return failure();
    }
  }
  return success();
}

/// How `operand` of the elementwise `user` broadcasts over its result in the
/// 2-D forms: {over the rows (a [1, C] operand), over the columns ([R, 1])}.
/// An N-D operand must keep all the result's leading (row) dims or broadcast
/// along all of them; a broadcast along some of them ([B, 1, D] over
/// [B, S, D]) is no 2-D broadcast.
FailureOr<std::pair<bool, bool>> LeafLowering::broadcastOf(Operation *user,
                                                           Value operand) {
  Value result = user->getResult(0);
  ArrayRef<int64_t> res = cast<pto::TileType>(result.getType()).getShape();
  ArrayRef<int64_t> shape = cast<pto::TileType>(operand.getType()).getShape();
  auto [R, C] = heldShape(result);
  auto [r, c] = heldShape(operand);
  std::pair<bool, bool> broadcast = {r == 1 && R != 1, c == 1 && C != 1};
  if (res.size() == 2)
    return broadcast;
  unsigned cr = heldColumnDim(result), co = heldColumnDim(operand);
  bool allKept = true, allBroadcast = true;
  for (unsigned d = 0; d < cr; ++d) {
    allKept &= shape[d] == res[d];
    allBroadcast &= shape[d] == 1;
  }
  if (co == cr && (allKept || allBroadcast))
    return broadcast;
  return user->emitOpError()
         << "broadcasts a "
         << shapeString(cast<pto::TileType>(operand.getType()))
         << " operand over a "
         << shapeString(cast<pto::TileType>(result.getType()))
         << " result along some of the leading dims that pto-lower-to-isa "
            "folds into rows (dims 0.."
         << (cr ? cr - 1 : 0)
         << "); it lowers N-D broadcasts whose leading dims are all kept or "
            "all broadcast (a 2-D [R, 1] or [1, C] operand), or broadcast "
            "along one run of consecutive leading dims ([B, 1, D] or "
            "[1, S, D] over [B, S, D]): reshape the operands to 2-D or expand "
            "the operand first";
}

/// Tiles and tensors of rank other than 2 reach views, stores and the
/// shape-preserving vector ops (elementwise, unary, cast, full, a transpose
/// that only moves unit dims), collapsed to 2-D; broadcasts and reductions
/// check their own N-D rules (broadcastOf, lowerReduce). Matmuls need rank-2
/// operands.
LogicalResult LeafLowering::expectLowerableRank(Operation *op) {
  auto rankOf = [](Type t) -> int64_t {
    if (auto tile = dyn_cast<pto::TileType>(t))
      return tile.getRank();
    if (auto tensor = dyn_cast<GMTensorType>(t))
      return tensor.getRank();
    return 2;
  };
  bool allRank2 = llvm::all_of(op->getOperandTypes(),
                               [&](Type t) { return rankOf(t) == 2; }) &&
                  llvm::all_of(op->getResultTypes(),
                               [&](Type t) { return rankOf(t) == 2; });
  if (allRank2)
    return success();
  // A gathermask keeps the leading dims and selects along the last one,
  // which stays the column dim (its result's last dim fills whole ub rows,
  // lowerGatherMask checks, so it is not a unit dim).
  bool shapePreserving =
      isa<ViewOp, AssembleOp, AtomicAddOp, FullOp, TransposeOp, GatherMaskOp,
          BitcastOp, TopKOp, IndexPutOp, ArangeOp>(op);
  // Elementwise ops keep their operands' shape; reductions and broadcasts
  // check their N-D rules where they are lowered (lowerReduce, broadcastOf).
  if (isElementwiseOp(op) || isReductionOp(op))
    shapePreserving = true;
  if (!shapePreserving) {
    for (Type t :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (rankOf(t) != 2)
        return op->emitOpError()
               << "has a rank-" << rankOf(t)
               << " operand or result; pto-lower-to-isa collapses tiles of "
                  "other ranks to 2-D only for views, stores and vector ops "
                  "(elementwise and broadcasts, unary, cast, full, "
                  "reductions, a transpose of unit dims, gathermask, bitcast, "
                  "compare, where, "
                  "index_put); reshape to 2-D before this op";
  }
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (isa<pto::TileType>(v.getType()) && failed(expectCollapsible(op, v)))
      return failure();
  return success();
}

/// Ops whose every result row depends only on the same row of their
/// operands (elementwise, unary, casts, fills, masks, and reductions along
/// the columns): on a tile whose rows have gaps (a middle dim not valid in
/// full) they compute the bounding rows, gaps included, and only the valid
/// rows are ever loaded or stored (lowerGMAccessPerRun).
bool LeafLowering::isRowLocal(Operation *op) {
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, ExpOp, AbsOp, SqrtOp,
          RsqrtOp, ReciprocalOp, NegOp, CastOp, FullOp, CompareOp, WhereOp>(op))
    return true;
  auto alongColumns = [&](Value input, int64_t dim) {
    return dim == heldColumnDim(input);
  };
  if (auto sum = dyn_cast<SumOp>(op))
    return alongColumns(sum.getInput(), sum.getDim());
  if (auto amax = dyn_cast<AmaxOp>(op))
    return alongColumns(amax.getInput(), amax.getDim());
  // Loads and stores of GM windows go one run of rows at a time.
  if (auto view = dyn_cast<ViewOp>(op))
    return isa<GMTensorType>(view.getSource().getType());
  return isa<AssembleOp, AtomicAddOp>(op);
}

/// Rows linearise the dims before the column dim: past the first non-unit
/// one of them, every dim must be valid in full, or the valid region is no
/// rectangle in 2-D. Row-local ops take such tiles anyway (isRowLocal),
/// unless `evenIfRowLocal` (one that moves rows between blocks).
LogicalResult LeafLowering::expectCollapsible(Operation *op, Value ptoTile,
                                              bool evenIfRowLocal) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  if (shape.size() == 2 || (!evenIfRowLocal && isRowLocal(op)))
    return success();
  unsigned c = heldColumnDim(ptoTile);
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), ptoTile);
  bool leading = false;
  for (unsigned d = 0; d < c; ++d) {
    if (leading && shape[d] != 1 && getConstantIntValue(valid[d]) != shape[d])
      return op->emitOpError()
             << "has a " << shapeString(cast<pto::TileType>(ptoTile.getType()))
             << " tile whose dim " << d
             << " is not statically valid in full; pto-lower-to-isa collapses "
                "the dims before the last non-unit one into rows only when "
                "every one after the first is whole (elementwise ops, loads "
                "and stores take such tiles; this op does not)";
    leading |= shape[d] != 1;
  }
  return success();
}

/// The 2-D window of an N-D GM tensor that a collapsed tile of `tileShape` at
/// `offsets` reads or writes: a reshape of the tensor to [rows, columns] and
/// the offsets linearised in it. The tensor's dims after the column dim must
/// be 1. Past the first non-unit tile dim of the rows, the tile covers each
/// tensor dim whole up to its last non-unit row dim `last`; the unit tile
/// dims between `last` and the column dim need not be whole: they join the
/// columns ([T, N, D] -> [T, N * D]), so the window's rows are evenly
/// strided (every N * D elements), which is one TLOAD / TSTORE with that
/// row stride (docs/ISA.md, "N-D tiles").
FailureOr<LeafLowering::Window2D>
LeafLowering::window2D(Operation *op, Value tensor,
                       ArrayRef<OpFoldResult> offsets, Value ptoTile) {
  return window2D(op, tensor, offsets,
                  cast<pto::TileType>(ptoTile.getType()).getShape(),
                  heldColumnDim(ptoTile));
}

FailureOr<LeafLowering::Window2D>
LeafLowering::window2D(Operation *op, Value tensor,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<int64_t> tileShape, unsigned c) {
  auto type = cast<GMTensorType>(tensor.getType());
  ArrayRef<int64_t> dims = type.getShape();
  Location loc = op->getLoc();
  if (dims.size() == 2)
    return Window2D{tensor, materialize(offsets[0]), materialize(offsets[1])};
  for (unsigned d = c + 1; d < dims.size(); ++d)
    if (dims[d] != 1)
      return op->emitOpError()
             << "reads or writes a " << type << " window whose columns (dim "
             << c << ") are strided: the tensor's dim " << d << " is "
             << (ShapedType::isDynamic(dims[d]) ? std::string("dynamic")
                                                : std::to_string(dims[d]))
             << ", not 1; pto-lower-to-isa loads and stores row-major 2-D "
                "windows (reshape the tensor so that the tile's last non-unit "
                "dim is the tensor's innermost)";
  std::optional<unsigned> first, last;
  for (unsigned d = 0; d < c; ++d)
    if (tileShape[d] != 1) {
      first = first.value_or(d);
      last = d;
    }
  if (first)
    for (unsigned d = *first + 1; d <= *last; ++d)
      if (tileShape[d] != dims[d])
        return op->emitOpError()
               << "reads or writes a " << type << " window whose dim " << d
               << " (" << tileShape[d]
               << ") is not the whole tensor dim between its non-unit dims "
               << *first << " and " << *last
               << ": its rows are not evenly strided in GM, so the window is "
                  "no 2-D rectangle";
  // The rows are dims [0, split), the columns dims [split, c]. By default
  // split = c; unit tile dims after `last` that are not unit in the tensor
  // move into the columns, which strides the window's rows.
  unsigned split = c;
  if (last && llvm::any_of(llvm::seq<unsigned>(*last + 1, c),
                           [&](unsigned d) { return dims[d] != 1; }))
    split = *last + 1;
  auto size = [&](unsigned d) -> OpFoldResult {
    if (!ShapedType::isDynamic(dims[d]))
      return builder.getIndexAttr(dims[d]);
    return DimOp::create(builder, loc, tensor, d).getResult();
  };
  Value &reshaped = tensors2D[{tensor, split, c}];
  if (!reshaped) {
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *def = tensor.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(&func.getBody().front());
    OpFoldResult rows = builder.getIndexAttr(1), cols = builder.getIndexAttr(1);
    for (unsigned d = 0; d < split; ++d)
      rows = mul(loc, rows, size(d));
    for (unsigned d = split; d <= c; ++d)
      cols = mul(loc, cols, size(d));
    SmallVector<OpFoldResult> shape2D = {rows, cols};
    SmallVector<int64_t> staticShape;
    SmallVector<Value> dynamicShape;
    dispatchIndexOpFoldResults(shape2D, dynamicShape, staticShape);
    auto type2D = GMTensorType::get(builder.getContext(), staticShape,
                                    type.getElementType());
    reshaped = ReshapeOp::create(builder, loc, type2D, tensor, dynamicShape,
                                 builder.getDenseI64ArrayAttr(staticShape),
                                 builder.getUnitAttr())
                   .getResult();
  }
  // ((o0 * d1 + o1) * d2 + ...) over dims [from, to].
  auto linearise = [&](unsigned from, unsigned to) -> Value {
    OpFoldResult at = builder.getIndexAttr(0);
    for (unsigned d = from; d <= to; ++d) {
      if (!isConstantIntValue(at, 0))
        at = mul(loc, at, size(d));
      std::optional<int64_t> ca = getConstantIntValue(at),
                             co = getConstantIntValue(offsets[d]);
      if (ca && co)
        at = builder.getIndexAttr(*ca + *co);
      else if (ca == 0)
        at = offsets[d];
      else if (co != 0)
        at = arith::AddIOp::create(builder, loc, materialize(at),
                                   materialize(offsets[d]))
                 .getResult();
    }
    return materialize(at);
  };
  Value row = split == 0 ? materialize(builder.getIndexAttr(0))
                         : linearise(0, split - 1);
  return Window2D{reshaped, row, linearise(split, c)};
}

/// The first tile dim `g` from which on a load or store of `ptoTile` is one
/// 2-D GM window per index of dims [0, g) (a run of rows): past the first
/// non-unit dim of [g, c), every dim is statically valid in full (else the
/// valid rows have gaps) and covers the tensor dim up to the last non-unit
/// one (else the rows are not evenly strided in GM). 0: one window.
unsigned LeafLowering::gmRunSplit(Operation *op, Value tensor, Value ptoTile) {
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  ArrayRef<int64_t> dims = cast<GMTensorType>(tensor.getType()).getShape();
  if (shape.size() == 2)
    return 0;
  unsigned c = heldColumnDim(ptoTile);
  SmallVector<OpFoldResult> valid = reifier.reify(op->getLoc(), ptoTile);
  auto oneWindowFrom = [&](unsigned g) {
    std::optional<unsigned> first, last;
    for (unsigned d = g; d < c; ++d)
      if (shape[d] != 1) {
        if (first && getConstantIntValue(valid[d]) != shape[d])
          return false;
        first = first.value_or(d);
        last = d;
      }
    if (first)
      for (unsigned d = *first + 1; d <= *last; ++d)
        if (shape[d] != dims[d])
          return false;
    return true;
  };
  unsigned g = 0;
  while (g < c && !oneWindowFrom(g))
    ++g;
  return g;
}

/// Loads (TLOAD + TINSERT) or stores (TEXTRACT + TSTORE) `ubTile`, the 2-D
/// form of `ptoTile`, one run of rows per index of the tile dims [0, split):
/// run o is rows [o * runRows, (o + 1) * runRows) of the ub tile and the
/// window at the offsets plus o's index in GM. A run past the valid
/// indices is skipped, statically or under an scf.if when the valid extent
/// is a run-time value (docs/ISA.md, "N-D tiles").
LogicalResult LeafLowering::lowerGMAccessPerRun(Operation *op, Value tensor,
                                                ArrayRef<OpFoldResult> offsets,
                                                Value ptoTile, Value ubTile,
                                                unsigned split, bool store,
                                                bool atomic) {
  Location loc = op->getLoc();
  ArrayRef<int64_t> shape = cast<pto::TileType>(ptoTile.getType()).getShape();
  unsigned c = heldColumnDim(ptoTile);
  int64_t runs = 1, runRows = 1;
  for (unsigned d = 0; d < c; ++d)
    (d < split ? runs : runRows) *= shape[d];
  // Each run is a few instructions in straight-line code.
  constexpr int64_t kMaxRuns = 1024;
  if (runs > kMaxRuns)
    return op->emitOpError()
           << (store ? "stores" : "loads") << " a "
           << shapeString(cast<pto::TileType>(ptoTile.getType())) << " tile as "
           << runs
           << " separate runs of rows (its rows have gaps or are not evenly "
              "strided in GM past dim "
           << split << "); pto-lower-to-isa unrolls at most " << kMaxRuns
           << " runs: make the leading tile dims smaller "
              "(set_vec_tile_shapes)";
  auto ubType = cast<pisa::TileType>(ubTile.getType());
  FailureOr<pisa::TileType> runType =
      makeTileType(op, pisa::MemorySpace::ub, runRows, ubType.getCols(),
                   ubType.getElementType(), pisa::TileLayout::nd);
  if (failed(runType))
    return failure();
  SmallVector<OpFoldResult> valid = reifier.reify(loc, ptoTile);
  OpFoldResult runValid = builder.getIndexAttr(1);
  for (unsigned d = split; d < c; ++d)
    runValid = mul(loc, runValid, valid[d]);
  Value cols = validOf(loc, ptoTile).second;
  SmallVector<int64_t> runShape(shape);
  for (unsigned d = 0; d < split; ++d)
    runShape[d] = 1;
  for (int64_t o = 0; o < runs; ++o) {
    SmallVector<int64_t> index(split, 0);
    for (int64_t rest = o, d = split; d-- > 0;) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    // The run is valid when each of its indices is below the dim's valid
    // extent.
    Value inside;
    bool never = false;
    SmallVector<OpFoldResult> at(offsets);
    for (unsigned d = 0; d < split; ++d) {
      if (std::optional<int64_t> v = getConstantIntValue(valid[d])) {
        never |= index[d] >= *v;
      } else {
        Value below =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                  constIndex(index[d]), materialize(valid[d]));
        inside =
            inside
                ? arith::AndIOp::create(builder, loc, inside, below).getResult()
                : below;
      }
      if (index[d] == 0)
        continue;
      if (std::optional<int64_t> base = getConstantIntValue(offsets[d]))
        at[d] = builder.getIndexAttr(*base + index[d]);
      else
        at[d] = arith::AddIOp::create(builder, loc, materialize(offsets[d]),
                                      constIndex(index[d]))
                    .getResult();
    }
    if (never)
      continue;
    OpBuilder::InsertionGuard guard(builder);
    if (inside) {
      auto guardIf = scf::IfOp::create(builder, loc, inside,
                                       /*withElseRegion=*/false);
      builder.setInsertionPoint(guardIf.thenBlock()->getTerminator());
    }
    FailureOr<Window2D> window = window2D(op, tensor, at, runShape, c);
    if (failed(window))
      return failure();
    Value run = alloc(loc, *runType, materialize(runValid), cols);
    if (store) {
      pisa::TExtractOp::create(builder, loc, ubTile, run, o * runRows, 0);
      pisa::TStoreOp::create(builder, loc, run, window->tensor, window->row,
                             window->col, atomic);
    } else {
      pisa::TLoadOp::create(builder, loc, window->tensor, window->row,
                            window->col, run, /*transpose=*/false);
      pisa::TInsertOp::create(builder, loc, run, ubTile, o * runRows, 0);
    }
  }
  return success();
}

} // namespace mlir::pto::lower_to_isa
