//===- Legalize.cpp - rewrite what PyPTO legalizes
//-------------------------===//
//
// The op verifiers accept the forms PyPTO compiles by rewriting them; this
// pass performs those rewrites (docs/Legalization.md) and remarks on each, so
// the tile-graph passes, the ISA lowering and pto-run after it only see forms
// the architecture runs. One walk over the ops: linear in the input.
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LEGALIZEPASS
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

std::string dimsStr(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

struct LegalizePass : public pto::impl::LegalizePassBase<LegalizePass> {
  /// Whether any rewrite applied: a kernel left as it was keeps its analyses
  /// and skips the pass manager's verifier run.
  bool changed = false;

  void runOnOperation() override {
    changed = false;
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      padVecTile(op);
      if (isReductionOp(op))
        retileReduction(op);
      if (isa<DivOp, ExpOp, LogOp>(op))
        lowerPrecision(op);
      // widenBF16 may erase `op`: nothing reads it afterwards.
      if (auto compare = dyn_cast<CompareOp>(op))
        widenBF16Compare(compare);
      else if (isa<ElementwiseBinaryOpInterface, ElementwiseUnaryOpInterface>(
                   op))
        widenBF16(op);
    }
    if (!changed)
      markAllAnalysesPreserved();
  }

  /// The tile a vector op's `vec_tile` governs (as the verifier checks it).
  static TileType governedTile(Operation *op) {
    if (isReductionOp(op) ||
        isa<CastOp, TransposeOp, GatherMaskOp, BitcastOp>(op))
      return cast<TileType>(op->getOperand(0).getType());
    // A comparison splits the compared values (its i1 result is a packed
    // mask on chip).
    if (auto compare = dyn_cast<CompareOp>(op))
      return TileType::get(op->getContext(),
                           compare.getResult().getType().getShape(),
                           compare.getLhs().getType().getElementType());
    return cast<TileType>(op->getResult(0).getType());
  }

  /// A last dim that is not a whole number of 32-byte blocks but covers the
  /// governed tile's last dim: pad it to the next block.
  void padVecTile(Operation *op) {
    auto attr = op->getAttrOfType<VecTileAttr>("vec_tile");
    if (!attr || op->getNumResults() != 1 ||
        !isa<TileType>(op->getResult(0).getType()))
      return;
    TileType governed = governedTile(op);
    int64_t elemBytes = governed.getElementByteSize();
    int64_t align = getPlatformInfo(getArchFor(op)).bufferAlignBytes;
    int64_t last = attr.getDims().back();
    if ((last * elemBytes) % align == 0 || last < governed.getShape().back())
      return; // aligned, or an unaligned split the verifier rejects
    SmallVector<int64_t> dims(attr.getDims());
    int64_t block = std::max<int64_t>(1, align / elemBytes);
    dims.back() = (last + block - 1) / block * block;
    op->setAttr("vec_tile", VecTileAttr::get(op->getContext(), dims));
    changed = true;
    op->emitRemark() << "pto-legalize: vector tile " << dimsStr(attr.getDims())
                     << " padded to " << dimsStr(dims) << ": its last dim "
                     << last << " x " << elemBytes << " B is not " << align
                     << "-byte aligned but covers the whole last dim of "
                     << governed << ", whose ub rows are padded to " << align
                     << " B anyway";
    ++numPadded;
  }

  /// Halves the outer dims of a reduction's vector tile until the piece it
  /// cuts from the input fits the reduction tile limit.
  void retileReduction(Operation *op) {
    auto attr = op->getAttrOfType<VecTileAttr>("vec_tile");
    if (!attr)
      return;
    auto input = cast<TileType>(op->getOperand(0).getType());
    int64_t limit = getPlatformInfo(getArchFor(op)).reduceTileMaxBytes;
    SmallVector<int64_t> dims(attr.getDims());
    int64_t rank = input.getRank(), offset = dims.size() - rank;
    auto bytes = [&]() {
      int64_t elements = 1;
      for (int64_t d = 0; d < rank; ++d)
        elements *= std::min(dims[offset + d], input.getDimSize(d));
      return elements * input.getElementByteSize();
    };
    int64_t before = bytes();
    if (before <= limit)
      return;
    // Outermost first, clamping each dim to the input before halving it; the
    // last dim stays whole (the verifier rejects a tile whose last dim alone
    // is over the limit).
    for (int64_t d = 0; d + 1 < rank && bytes() > limit; ++d) {
      int64_t &dim = dims[offset + d];
      dim = std::min(dim, input.getDimSize(d));
      while (dim > 1 && bytes() > limit)
        dim = (dim + 1) / 2;
    }
    if (bytes() > limit)
      return;
    op->setAttr("vec_tile", VecTileAttr::get(op->getContext(), dims));
    changed = true;
    op->emitRemark() << "pto-legalize: vector tile " << dimsStr(attr.getDims())
                     << " of " << input << " cuts " << before
                     << " B pieces, over the " << limit
                     << " B reduction tile limit; re-tiled to " << dimsStr(dims)
                     << " (" << bytes()
                     << " B), the partial results are combined";
    ++numRetiled;
  }

  void lowerPrecision(Operation *op) {
    Arch arch = getArchFor(op);
    if (getPlatformInfo(arch).supportsHighPrecision)
      return;
    auto attr = op->getAttrOfType<PrecisionTypeAttr>("precision");
    PrecisionType precision =
        attr ? attr.getValue()
             : (isa<DivOp>(op) ? PrecisionType::HIGH_PRECISION
                               : PrecisionType::INTRINSIC);
    if (precision != PrecisionType::HIGH_PRECISION)
      return;
    changed = true;
    op->setAttr("precision", PrecisionTypeAttr::get(op->getContext(),
                                                    PrecisionType::INTRINSIC));
    op->emitRemark() << "pto-legalize: precision HIGH_PRECISION is not "
                        "available on "
                     << stringifyArch(arch)
                     << " (PyPTO's A2/A3 div has a single precision); using "
                        "INTRINSIC";
    ++numPrecision;
  }

  /// The f32 value of each bf16 result widenBF16 rounded.
  llvm::DenseMap<Value, Value> wideOf;

  /// Computes a bf16 elementwise op in f32 where the vector unit has no bf16
  /// arithmetic: exact widening casts in, one rounding cast out.
  /// A bf16 comparison where the vector unit has no bf16 arithmetic
  /// compares the f32 values (exact: every bf16 is an f32); the i1 result
  /// needs no narrowing.
  void widenBF16Compare(CompareOp op) {
    if (!op.getLhs().getType().getElementType().isBF16() ||
        getPlatformInfo(getArchFor(op)).vectorBF16Arithmetic)
      return;
    changed = true;
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type f32 = builder.getF32Type();
    auto scope = op->getAttr(kScopeStampAttrName);
    for (OpOperand &operand : op->getOpOperands()) {
      if (Value wide = wideOf.lookup(operand.get())) {
        operand.set(wide);
        continue;
      }
      Operation *created;
      if (auto tile = dyn_cast<TileType>(operand.get().getType()))
        created = CastOp::create(
            builder, loc, TileType::get(op.getContext(), tile.getShape(), f32),
            operand.get(), CastMode::NONE, SaturationMode::OFF,
            op.getVecTileAttr());
      else
        created = arith::ExtFOp::create(builder, loc, f32, operand.get());
      if (scope)
        created->setAttr(kScopeStampAttrName, scope);
      operand.set(created->getResult(0));
    }
    ++numWidened;
  }

  void widenBF16(Operation *op) {
    auto resultType = cast<TileType>(op->getResult(0).getType());
    if (!resultType.getElementType().isBF16() ||
        getPlatformInfo(getArchFor(op)).vectorBF16Arithmetic)
      return;
    changed = true;
    OpBuilder builder(op);
    Location loc = op->getLoc();
    Type f32 = builder.getF32Type();
    auto scope = op->getAttr(kScopeStampAttrName);
    auto stamp = [&](Operation *created) {
      if (scope)
        created->setAttr(kScopeStampAttrName, scope);
      return created;
    };
    auto vecTile = op->getAttrOfType<VecTileAttr>("vec_tile");
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      // The result of an op widened before: its f32 value, as PyPTO's
      // AutoCast drops the f32 -> bf16 -> f32 round trip between two
      // widened ops (RemoveRedundantCastChain).
      if (Value wide = wideOf.lookup(operand)) {
        operands.push_back(wide);
        continue;
      }
      if (auto tile = dyn_cast<TileType>(operand.getType())) {
        auto wide = TileType::get(op->getContext(), tile.getShape(), f32);
        operands.push_back(
            stamp(CastOp::create(builder, loc, wide, operand, CastMode::NONE,
                                 SaturationMode::OFF, vecTile))
                ->getResult(0));
      } else {
        operands.push_back(
            stamp(arith::ExtFOp::create(builder, loc, f32, operand))
                ->getResult(0));
      }
    }
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addTypes(TileType::get(op->getContext(), resultType.getShape(), f32));
    state.addAttributes(op->getAttrDictionary().getValue());
    Operation *wideOp = builder.create(state);
    Operation *narrow =
        stamp(CastOp::create(builder, loc, resultType, wideOp->getResult(0),
                             CastMode::NONE, SaturationMode::OFF, vecTile));
    op->getResult(0).replaceAllUsesWith(narrow->getResult(0));
    wideOf[narrow->getResult(0)] = wideOp->getResult(0);
    wideOp->emitRemark() << "pto-legalize: '" << op->getName()
                         << "' on bf16 computed in f32 ("
                         << stringifyArch(getArchFor(wideOp))
                         << " has no bf16 vector arithmetic): operands "
                            "widened with pto.cast, the result rounded back "
                            "to bf16 (RINT); a chain of such ops stays in "
                            "f32";
    op->erase();
    ++numWidened;
  }
};

} // namespace
