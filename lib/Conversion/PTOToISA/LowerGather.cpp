//===- LowerGather.cpp - gather ops to pto_isa
//-----------------------------===//
//
// pto.gathermask over ub tiles: pto-isa's mask-form TGATHER (docs/ISA.md,
// "Vector leaves").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

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
           << cols
           << ": the mask-pattern TGATHER packs its result rows, so "
              "the input's last dim must be fully valid (pto-run and the "
              "tile graph take a partial one); view the input with its whole "
              "last dim valid and cut the valid columns after the gather "
              "(pto.view of the result), or pad the tensor's rows";
  Value dst = alloc(loc, *type, vr, vc);
  pisa::TGatherMaskOp::create(builder, loc, *src, dst, op.getPatternModeAttr());
  tiles[op.getResult()] = dst;
  replaced.push_back(op);
  return success();
}

} // namespace mlir::pto::lower_to_isa
