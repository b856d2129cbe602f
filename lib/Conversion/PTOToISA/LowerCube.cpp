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
    builder.create<pisa::TLoadOp>(loc, view.getSource(),
                                  materialize(offsets[0]),
                                  materialize(offsets[1]), l1, trans);
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
  builder.create<pisa::TMovOp>(def->getLoc(), acc->second, image);
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
    builder.create<pisa::TExtractOp>(loc, l1, l0, 0, 0);
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
    builder.create<pisa::TMatmulAccOp>(loc, *a, *b, *accTile);
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
  builder.create<pisa::TMatmulOp>(loc, *a, *b, accTile);
  tiles[result] = accTile;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
