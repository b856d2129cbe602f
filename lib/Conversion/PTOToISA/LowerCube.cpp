//===- LowerCube.cpp - cube leaves to pto_isa
//-------------------------------===//
//
// Matmul operands GM -> L1 -> L0A/L0B and matmul chains into L0C
// (docs/ISA.md, "Cube leaves").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

//===----------------------------------------------------------------------===//
// Cube leaves
//===----------------------------------------------------------------------===//

/// The capacity of a cube tile dim: whole 16-row/column fractal edges and
/// whole 32-byte blocks, so one capacity serves nz, zn, Left and Right.
static int64_t cubeDim(int64_t d, Type elem) {
  return roundUp(d, std::max<int64_t>(16, blockElems(elem)));
}

/// The M (row) dim of a left operand held nz: pto-isa's A2/A3 left tiles
/// are 16-row fractals of 32 bytes (TileLeft, SLayout::RowMajor,
/// fractalABSize = 512 in include/pto/common/pto_tile.hpp), so only K takes
/// the 32-byte block (32 int8) and M rounds to 16 rows, as the accumulator.
static int64_t leftRows(int64_t m) { return roundUp(m, 16); }

/// GM -> L1 (deduplicated per window and orientation) -> L0A/L0B. The L1
/// image holds the logical operand: a plain ND -> NZ load, or with a
/// transpose flag the DN -> ZN load of the stored matrix, which holds its
/// transpose (docs/AscendTarget.md#operand-transposes).
FailureOr<Value> LeafLowering::loadOperand(Operation *user, Value operand,
                                           bool left, bool trans) {
  auto view = operand.getDefiningOp<ViewOp>();
  if (!view || !isa<GMTensorType>(view.getSource().getType())) {
    FailureOr<Value> l1 = accImage(user, operand, left, trans);
    if (failed(l1))
      return failure();
    return extractOperand(user->getLoc(), user, *l1, left);
  }
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
    // A transposed left operand is held zn, whose fractals are 32 bytes
    // tall: its M dim keeps the block rounding.
    int64_t r = left && !trans ? leftRows(viewType.getDimSize(0))
                               : cubeDim(viewType.getDimSize(0), elem),
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
    pisa::TLoadOp::create(builder, loc, view.getSource(),
                          materialize(offsets[0]), materialize(offsets[1]), l1,
                          trans);
    windows.push_back({key, l1});
  }
  if (!llvm::is_contained(replaced, view.getOperation()))
    replaced.push_back(view);
  return extractOperand(loc, user, l1, left);
}

/// A matmul result of this leaf (in L0C) as an operand of a later matmul:
/// the fixpipe moves it to an nz L1 image (TMOV Acc -> Mat; pto-isa A2/A3
/// include/pto/npu/a2a3/TMov.hpp), once per result, which then feeds L0 as
/// a loaded operand does.
FailureOr<Value> LeafLowering::accImage(Operation *user, Value operand,
                                        bool left, bool trans) {
  Operation *def = operand.getDefiningOp();
  auto acc = tiles.find(operand);
  if (!isa_and_nonnull<MatmulOp, MatmulAccOp>(def) || acc == tiles.end())
    return user->emitOpError()
           << "has a " << (left ? "left" : "right")
           << " operand that is neither a view of a GM tensor nor a matmul "
              "result of this leaf; a cube leaf loads its operands GM -> L1 "
              "-> L0";
  if (trans)
    return user->emitOpError()
           << "takes the matmul result of this leaf transposed ("
           << (left ? "a_trans" : "b_trans")
           << "); pto-lower-to-isa moves an L0C result to L1 as an nz image "
              "only: store it and view it transposed from GM instead";
  if (Value image = accImages.lookup(operand))
    return image;
  // The image holds the result's element type: the fixpipe converts the
  // accumulator (f32 -> bf16 for a bf16 result), as a store to GM would.
  auto accTile = cast<pisa::TileType>(acc->second.getType());
  FailureOr<pisa::TileType> type = makeTileType(
      user, pisa::MemorySpace::l1, accTile.getRows(), accTile.getCols(),
      cast<pto::TileType>(operand.getType()).getElementType(),
      pisa::TileLayout::nz);
  if (failed(type))
    return failure();
  auto accAlloc = pisa::getAlloc(acc->second);
  Value image = alloc(def->getLoc(), *type, accAlloc.getValidRows(),
                      accAlloc.getValidCols());
  pisa::TMovOp::create(builder, def->getLoc(), acc->second, image);
  accImages[operand] = image;
  return image;
}

/// The L0A (left) or L0B copy of an L1 operand image, kept for later
/// matmuls while the kept copies fit the side's capacity.
FailureOr<Value> LeafLowering::extractOperand(Location loc, Operation *user,
                                              Value l1, bool left) {
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
    pisa::TExtractOp::create(builder, loc, l1, l0, 0, 0);
    l0Copies[{l1, side}] = l0;
    l0CopyBytes[side] += type->getByteSize();
  }
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
    pisa::TMatmulAccOp::create(builder, loc, *a, *b, *accTile);
    tiles[result] = *accTile;
    replaced.push_back(op);
    return success();
  }
  auto resultType = cast<pto::TileType>(result.getType());
  Type operandElem = cast<pto::TileType>(lhs.getType()).getElementType();
  Type accElem = operandElem.isSignlessInteger(8) ? Type(builder.getI32Type())
                                                  : Type(builder.getF32Type());
  FailureOr<pisa::TileType> type = makeTileType(
      op, pisa::MemorySpace::l0c, cubeDim(resultType.getDimSize(0), accElem),
      cubeDim(resultType.getDimSize(1), accElem), accElem,
      pisa::TileLayout::nz);
  if (failed(type))
    return failure();
  auto [vr, vc] = validOf(loc, result);
  Value accTile = alloc(loc, *type, vr, vc);
  pisa::TMatmulOp::create(builder, loc, *a, *b, accTile);
  tiles[result] = accTile;
  replaced.push_back(op);
  return success();
}

/// Whether `acc` is an L0C accumulator the row-half split applies to: more
/// than half of L0C, an even number of 16-row fractals, written by one
/// TMATMUL (and TMATMUL_ACC K steps) from an L0A copy of its full height and
/// read only by TSTOREs (not moved to L1 or UB).
static bool isSplittableAccumulator(pisa::AllocTileOp acc, int64_t l0cBytes) {
  pisa::TileType type = acc.getTileType();
  if (type.getSpace() != pisa::MemorySpace::l0c ||
      2 * type.getByteSize() <= l0cBytes || type.getRows() % 32 != 0)
    return false;
  int writers = 0;
  for (Operation *user : acc->getUsers()) {
    if (auto store = dyn_cast<pisa::TStoreOp>(user)) {
      if (store.getSrc() == acc.getResult())
        continue;
      return false;
    }
    if (!isa<pisa::TMatmulOp, pisa::TMatmulAccOp>(user) ||
        user->getOperand(2) != acc.getResult())
      return false;
    writers += isa<pisa::TMatmulOp>(user);
    auto left = user->getOperand(0).getDefiningOp<pisa::AllocTileOp>();
    if (!left || left.getTileType().getRows() != type.getRows())
      return false;
  }
  return writers == 1;
}

/// L0C double buffering (docs/ISA.md, "Accumulator row halves"). An
/// accumulator larger than half of L0C (a 256 x 128 FP32 piece on DAV_2201
/// is all of it) can only ever sit at offset 0, so each piece's TMATMUL
/// waits for the previous piece's TSTORE. Cut into two row halves, each a
/// TMATMUL chain from its own L0A rows (TEXTRACT at row 0 and at half the
/// height) stored by its own TSTORE, two halves of one piece are live
/// together, pto-isa-plan-memory places them at two offsets, and the next
/// piece's first half waits only for this piece's first store: FIX of one
/// half overlaps M of the other. Each output row is the same dot products in
/// the same K order, so the numerics are unchanged.
void LeafLowering::splitAccumulatorRows(
    llvm::SmallPtrSetImpl<Operation *> &erased) {
  Block &body = func.getBody().front();
  SetVector<Operation *> accs;
  for (auto alloc : body.getOps<pisa::AllocTileOp>())
    if (isSplittableAccumulator(alloc, platform.l0cBytes))
      accs.insert(alloc);
  // An L0A copy is cut only if every matmul reading it writes a split
  // accumulator (a copy kept across pieces feeds several); drop accumulators
  // until that holds.
  auto leftCopies = [](Operation *acc) {
    SmallVector<pisa::AllocTileOp> lefts;
    for (Operation *user : acc->getUsers())
      if (isa<pisa::TMatmulOp, pisa::TMatmulAccOp>(user))
        lefts.push_back(user->getOperand(0).getDefiningOp<pisa::AllocTileOp>());
    return lefts;
  };
  auto leftIsCuttable = [&](pisa::AllocTileOp left) {
    int extracts = 0;
    for (Operation *user : left->getUsers()) {
      if (auto extract = dyn_cast<pisa::TExtractOp>(user)) {
        if (extract.getDst() != left.getResult() || extract.getRowOffset() ||
            extract.getIndexRow() != 0 || extract.getIndexCol() != 0)
          return false;
        ++extracts;
        continue;
      }
      if (!isa<pisa::TMatmulOp, pisa::TMatmulAccOp>(user) ||
          user->getOperand(0) != left.getResult() ||
          !accs.contains(user->getOperand(2).getDefiningOp()))
        return false;
    }
    return extracts == 1;
  };
  // A worklist, so each accumulator and each L0A copy is visited once: a
  // dropped accumulator makes its L0A copies uncuttable, which drops every
  // other accumulator they feed.
  SmallVector<Operation *> dropped;
  for (Operation *acc : accs)
    if (llvm::any_of(leftCopies(acc), [&](pisa::AllocTileOp left) {
          return !leftIsCuttable(left);
        }))
      dropped.push_back(acc);
  llvm::SmallPtrSet<Operation *, 16> uncuttable;
  while (!dropped.empty()) {
    Operation *acc = dropped.pop_back_val();
    if (!accs.remove(acc))
      continue;
    for (pisa::AllocTileOp left : leftCopies(acc)) {
      if (!uncuttable.insert(left).second)
        continue;
      for (Operation *user : left->getUsers())
        if (isa<pisa::TMatmulOp, pisa::TMatmulAccOp>(user))
          if (Operation *other = user->getOperand(2).getDefiningOp();
              other && accs.contains(other))
            dropped.push_back(other);
    }
  }
  if (accs.empty())
    return;

  // Two tiles of half the height in place of `alloc`: valid rows
  // min(v, h) and max(v - h, 0) (an empty half is skipped by the emitted
  // guards).
  auto halvesOf = [&](pisa::AllocTileOp alloc) {
    pisa::TileType type = alloc.getTileType();
    int64_t h = type.getRows() / 2;
    auto halfType = pisa::TileType::get(type.getContext(), type.getSpace(), h,
                                        type.getCols(), type.getElementType(),
                                        type.getLayout());
    Location loc = alloc.getLoc();
    builder.setInsertionPointAfter(alloc);
    Value rows = alloc.getValidRows(), height = constIndex(h);
    Value first = arith::MinSIOp::create(builder, loc, rows, height);
    Value rest = arith::MaxSIOp::create(
        builder, loc, arith::SubIOp::create(builder, loc, rows, height),
        constIndex(0));
    auto top = pisa::AllocTileOp::create(builder, loc, halfType, first,
                                         alloc.getValidCols(), IntegerAttr());
    auto bottom = pisa::AllocTileOp::create(
        builder, loc, halfType, rest, alloc.getValidCols(), IntegerAttr());
    return std::pair<Value, Value>(top, bottom);
  };
  DenseMap<Value, std::pair<Value, Value>> halves;
  SmallVector<Operation *> dead;
  for (Operation *acc : accs) {
    auto alloc = cast<pisa::AllocTileOp>(acc);
    halves[alloc.getResult()] = halvesOf(alloc);
    for (pisa::AllocTileOp left : leftCopies(acc)) {
      if (halves.count(left.getResult()))
        continue;
      halves[left.getResult()] = halvesOf(left);
      auto [top, bottom] = halves[left.getResult()];
      for (Operation *user : llvm::to_vector(left->getUsers()))
        if (auto extract = dyn_cast<pisa::TExtractOp>(user)) {
          builder.setInsertionPoint(extract);
          int64_t h = cast<pisa::TileType>(top.getType()).getRows();
          pisa::TExtractOp::create(builder, extract.getLoc(), extract.getSrc(),
                                   top, 0, 0);
          pisa::TExtractOp::create(builder, extract.getLoc(), extract.getSrc(),
                                   bottom, h, 0);
          dead.push_back(extract);
        }
      dead.push_back(left);
    }
    dead.push_back(acc);
  }
  // Both halves of every instruction in place of the instruction, the top
  // half first.
  for (Operation *acc : accs) {
    auto [accTop, accBottom] = halves.lookup(acc->getResult(0));
    int64_t h = cast<pisa::TileType>(accTop.getType()).getRows();
    for (Operation *user : llvm::to_vector(acc->getUsers())) {
      builder.setInsertionPoint(user);
      Location loc = user->getLoc();
      if (auto store = dyn_cast<pisa::TStoreOp>(user)) {
        pisa::TStoreOp::create(builder, loc, accTop, store.getDst(),
                               store.getRow(), store.getCol(),
                               store.getAtomicAdd());
        Value row =
            arith::AddIOp::create(builder, loc, store.getRow(), constIndex(h));
        pisa::TStoreOp::create(builder, loc, accBottom, store.getDst(), row,
                               store.getCol(), store.getAtomicAdd());
      } else {
        auto [leftTop, leftBottom] = halves.lookup(user->getOperand(0));
        Value rhs = user->getOperand(1);
        if (isa<pisa::TMatmulOp>(user)) {
          pisa::TMatmulOp::create(builder, loc, leftTop, rhs, accTop);
          pisa::TMatmulOp::create(builder, loc, leftBottom, rhs, accBottom);
        } else {
          pisa::TMatmulAccOp::create(builder, loc, leftTop, rhs, accTop);
          pisa::TMatmulAccOp::create(builder, loc, leftBottom, rhs, accBottom);
        }
      }
      dead.push_back(user);
    }
  }
  // Users before their operands' allocs. `done` is this cut's own record (an
  // address in `erased` may have been reused by an op created above).
  llvm::SmallPtrSet<Operation *, 32> done;
  auto eraseOnce = [&](Operation *op) {
    if (!done.insert(op).second)
      return;
    erased.insert(op);
    op->erase();
  };
  for (Operation *op : dead)
    if (!isa<pisa::AllocTileOp>(op))
      eraseOnce(op);
  for (Operation *op : dead)
    eraseOnce(op);
}

} // namespace mlir::pto::lower_to_isa
