//===- LeafGMRegions.cpp - the GM regions a leaf touches, per argument ----===//
//
// For the runtime's ordering of launches of different root instances
// (docs/Runtime.md, "Launches of different root instances"): per GM
// argument of a leaf and access kind, a box of rows x columns that holds
// every element its TLOADs and TSTOREs touch, as C++ bounds over the leaf's
// arguments, which the launch turns into bounds over its operands. The
// bounds come from interval arithmetic on the leaf's index computations
// (arguments, constants, +, -, * by a constant, min/max, select, rolled
// piece loops and their scalar tables); a bound it cannot follow makes the
// dim whole, an access it cannot place (a reshape inside the leaf, a
// scatter, any other op naming the tensor) the whole buffer.
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"
#include "pto/Dialect/PTO/Analysis/GMAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cpp_emitter;
using llvm::formatv;

/// Past this many alternatives a bound prints as one min/max expression.
static constexpr size_t kMaxAlternatives = 8;

static std::string parenthesised(const std::string &sym) {
  return sym.find(' ') == std::string::npos ? sym : "(" + sym + ")";
}

std::string LeafBound::str(bool lower) const {
  SmallVector<std::string> parts;
  for (const auto &[sym, c] : alternatives) {
    if (sym.empty())
      parts.push_back(formatv("int64_t({0})", c));
    else if (c == 0)
      parts.push_back(sym);
    else
      parts.push_back(formatv("{0} + {1}", sym, c));
  }
  if (parts.size() == 1)
    return parts.front();
  return formatv("std::{0}<int64_t>({{{1}})", lower ? "min" : "max",
                 llvm::join(parts, ", "));
}

void LeafBound::merge(const LeafBound &other, bool lower) {
  for (const auto &[sym, c] : other.alternatives) {
    auto [it, inserted] = alternatives.try_emplace(sym, c);
    if (!inserted)
      it->second = lower ? std::min(it->second, c) : std::max(it->second, c);
  }
  if (alternatives.size() > kMaxAlternatives) {
    std::string text = str(lower);
    alternatives.clear();
    alternatives[text] = 0;
  }
}

static LeafBound constantBound(int64_t c) {
  LeafBound b;
  b.alternatives[""] = c;
  return b;
}

static LeafBound symbolBound(std::string sym) {
  LeafBound b;
  b.alternatives[std::move(sym)] = 0;
  return b;
}

/// `a + b` for bounds of one direction: alternative by alternative when one
/// side has a single one, else the other side as one expression.
static std::optional<LeafBound> addBounds(LeafBound a, LeafBound b,
                                          bool lower) {
  if (a.alternatives.size() > 1 && b.alternatives.size() > 1)
    b = symbolBound(b.str(lower));
  if (a.alternatives.size() > 1)
    std::swap(a, b);
  const auto &[symA, cA] = *a.alternatives.begin();
  LeafBound sum;
  for (const auto &[symB, cB] : b.alternatives) {
    int64_t c;
    if (__builtin_add_overflow(cA, cB, &c))
      return std::nullopt;
    std::string sym;
    if (symA.empty() || symB.empty())
      sym = symA + symB;
    else
      sym = symA < symB ? symA + " + " + symB : symB + " + " + symA;
    auto [it, inserted] = sum.alternatives.try_emplace(sym, c);
    if (!inserted)
      it->second = lower ? std::min(it->second, c) : std::max(it->second, c);
  }
  return sum;
}

/// `b * factor`, a bound of the same direction for factor >= 0 and of the
/// other one for factor < 0.
static std::optional<LeafBound> scaleBound(const LeafBound &b, int64_t factor) {
  LeafBound scaled;
  for (const auto &[sym, c] : b.alternatives) {
    int64_t k;
    if (__builtin_mul_overflow(c, factor, &k))
      return std::nullopt;
    std::string s;
    if (!sym.empty() && factor != 0)
      s = factor == 1 ? sym : formatv("{0} * {1}", parenthesised(sym), factor);
    scaled.alternatives[s] = k;
  }
  return scaled;
}

/// A bound of min(a, b) from above (`lower` false) or of max(a, b) from
/// below, given that bound of each: the tighter constant where one is
/// constant, else the exact min or max of the two.
static std::optional<LeafBound> pickBound(const LeafBound &a,
                                          const LeafBound &b, bool lower) {
  auto constantOf = [](const LeafBound &x) -> std::optional<int64_t> {
    if (x.alternatives.size() == 1 && x.alternatives.begin()->first.empty())
      return x.alternatives.begin()->second;
    return std::nullopt;
  };
  std::optional<int64_t> ca = constantOf(a), cb = constantOf(b);
  if (ca && cb)
    return constantBound(lower ? std::max(*ca, *cb) : std::min(*ca, *cb));
  if (ca || cb)
    return constantBound(ca ? *ca : *cb);
  return symbolBound(formatv("std::{0}<int64_t>({1}, {2})",
                             lower ? "max" : "min", a.str(lower),
                             b.str(lower)));
}

std::optional<LeafInterval> LeafBounds::get(Value v) {
  auto known = memo.find(v);
  if (known != memo.end())
    return known->second;
  std::optional<LeafInterval> result = compute(v);
  memo[v] = result;
  return result;
}

static std::optional<LeafInterval> unite(std::optional<LeafInterval> a,
                                         const std::optional<LeafInterval> &b) {
  if (!a || !b)
    return std::nullopt;
  a->lo.merge(b->lo, /*lower=*/true);
  a->hi.merge(b->hi, /*lower=*/false);
  return a;
}

std::optional<LeafInterval> LeafBounds::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == leaf.getOperation() && arg.getType().isIntOrIndex()) {
      std::string sym = formatv("@{0}@", arg.getArgNumber());
      return LeafInterval{symbolBound(sym), symbolBound(sym)};
    }
    // A piece loop's index runs from its lower bound to its upper bound - 1
    // (scf.for steps are positive).
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      if (arg == loop.getInductionVar()) {
        auto lb = get(loop.getLowerBound()), ub = get(loop.getUpperBound());
        if (!lb || !ub)
          return std::nullopt;
        auto hi = addBounds(ub->hi, constantBound(-1), /*lower=*/false);
        if (!hi)
          return std::nullopt;
        return LeafInterval{lb->lo, *hi};
      }
    return std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)) &&
      constant.getSignificantBits() <= 64) {
    LeafBound c = constantBound(constant.getSExtValue());
    return LeafInterval{c, c};
  }
  if (isa_and_nonnull<arith::IndexCastOp, arith::ExtSIOp>(op))
    return get(op->getOperand(0));
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op)) {
    auto a = get(op->getOperand(0)), b = get(op->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    if (isa<arith::SubIOp>(op)) {
      auto lo = scaleBound(b->hi, -1), hi = scaleBound(b->lo, -1);
      if (!lo || !hi)
        return std::nullopt;
      b = LeafInterval{*lo, *hi};
    }
    auto lo = addBounds(a->lo, b->lo, true),
         hi = addBounds(a->hi, b->hi, false);
    if (!lo || !hi)
      return std::nullopt;
    return LeafInterval{*lo, *hi};
  }
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(op)) {
    Value x = mul.getLhs();
    APInt factor;
    if (!matchPattern(mul.getRhs(), m_ConstantInt(&factor))) {
      x = mul.getRhs();
      if (!matchPattern(mul.getLhs(), m_ConstantInt(&factor)))
        return std::nullopt;
    }
    auto a = get(x);
    if (!a || factor.getSignificantBits() > 64)
      return std::nullopt;
    int64_t f = factor.getSExtValue();
    auto lo = scaleBound(f >= 0 ? a->lo : a->hi, f);
    auto hi = scaleBound(f >= 0 ? a->hi : a->lo, f);
    if (!lo || !hi)
      return std::nullopt;
    return LeafInterval{*lo, *hi};
  }
  // min: the least of the lower bounds, and an upper bound of either
  // operand (a constant one where there is one, else the min of both);
  // max the other way round.
  if (isa_and_nonnull<arith::MinSIOp, arith::MaxSIOp>(op)) {
    auto a = get(op->getOperand(0)), b = get(op->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    const bool isMin = isa<arith::MinSIOp>(op);
    LeafBound &aTight = isMin ? a->hi : a->lo, &bTight = isMin ? b->hi : b->lo;
    std::optional<LeafBound> tight = pickBound(aTight, bTight, !isMin);
    (isMin ? a->lo : a->hi).merge(isMin ? b->lo : b->hi, isMin);
    aTight = *tight;
    return a;
  }
  if (auto select = dyn_cast_or_null<arith::SelectOp>(op))
    return unite(get(select.getTrueValue()), get(select.getFalseValue()));
  // A rolled piece loop's per-iteration scalar (pto-isa-roll-pieces).
  if (auto extract = dyn_cast_or_null<tensor::ExtractOp>(op)) {
    auto table = extract.getTensor().getDefiningOp<tensor::FromElementsOp>();
    if (!table || table.getElements().empty())
      return std::nullopt;
    std::optional<LeafInterval> all = get(table.getElements().front());
    for (Value element : table.getElements().drop_front())
      all = unite(all, get(element));
    return all;
  }
  if (auto dim = dyn_cast_or_null<DimOp>(op)) {
    auto arg = dyn_cast<BlockArgument>(dim.getSource());
    auto type = dyn_cast<GMTensorType>(dim.getSource().getType());
    if (!arg || !type || arg.getOwner()->getParentOp() != leaf.getOperation())
      return std::nullopt;
    int64_t size = type.getShape()[dim.getDim()];
    LeafBound b = ShapedType::isDynamic(size)
                      ? symbolBound(formatv("@{0}.{1}@", arg.getArgNumber(),
                                            dim.getDim()))
                      : constantBound(size);
    return LeafInterval{b, b};
  }
  return std::nullopt;
}

/// The extent of a tile's valid rows or columns: at most its valid operand's
/// upper bound, at most its static size.
static LeafBound extentOf(LeafBounds &bounds, Value valid, int64_t size) {
  std::optional<LeafInterval> known = bounds.get(valid);
  if (!known)
    return constantBound(size);
  const auto &alternatives = known->hi.alternatives;
  if (alternatives.size() == 1 && alternatives.begin()->first.empty())
    return constantBound(std::min(alternatives.begin()->second, size));
  return known->hi;
}

void LeafRegion::add(const std::optional<LeafBound> lo[2],
                     const std::optional<LeafBound> end[2]) {
  for (int d = 0; d < 2; ++d) {
    if (!known) {
      this->lo[d] = lo[d];
      this->end[d] = end[d];
      continue;
    }
    if (!lo[d] || !this->lo[d])
      this->lo[d].reset();
    else
      this->lo[d]->merge(*lo[d], /*lower=*/true);
    if (!end[d] || !this->end[d])
      this->end[d].reset();
    else
      this->end[d]->merge(*end[d], /*lower=*/false);
  }
  known = true;
}

const LeafGMRegions &CppEmitter::gmRegionsOf(func::FuncOp leaf) {
  auto [it, inserted] = leafGMRegions.try_emplace(leaf);
  if (!inserted)
    return it->second;
  LeafGMRegions regions(leaf.getNumArguments());
  LeafBounds bounds(leaf);
  auto argumentOf = [&](Value tensor) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(tensor);
    if (arg && arg.getOwner()->getParentOp() == leaf.getOperation())
      return arg.getArgNumber();
    return std::nullopt;
  };
  // A box access of `tensor` at [row, col] of the tile's valid extent.
  auto box = [&](Value tensor, Value row, Value col, Value tile, bool transpose,
                 unsigned kindBit) {
    auto arg = argumentOf(tensor);
    auto type = dyn_cast<GMTensorType>(tensor.getType());
    auto alloc = tile.getDefiningOp<ptoisa::AllocTileOp>();
    if (!arg || !type || type.getRank() != 2 || !alloc)
      return false;
    ptoisa::TileType tileType = alloc.getTileType();
    LeafBound extent[2] = {
        extentOf(bounds, alloc.getValidRows(), tileType.getRows()),
        extentOf(bounds, alloc.getValidCols(), tileType.getCols())};
    if (transpose)
      std::swap(extent[0], extent[1]);
    std::optional<LeafBound> lo[2], end[2];
    Value at[2] = {row, col};
    for (int d = 0; d < 2; ++d)
      if (auto range = bounds.get(at[d])) {
        lo[d] = range->lo;
        end[d] = addBounds(range->hi, extent[d], /*lower=*/false);
      }
    for (unsigned k = 0; k < 3; ++k)
      if (kindBit & (1u << k))
        regions[*arg][k].add(lo, end);
    return true;
  };
  leaf->walk([&](Operation *op) {
    if (isa<ReshapeOp, DimOp>(op))
      return;
    if (auto load = dyn_cast<ptoisa::TLoadOp>(op))
      if (box(load.getSrc(), load.getRow(), load.getCol(), load.getDst(),
              load.getTranspose(), GMAccess::kRead))
        return;
    if (auto store = dyn_cast<ptoisa::TStoreOp>(op))
      if (box(store.getDst(), store.getRow(), store.getCol(), store.getSrc(),
              /*transpose=*/false,
              store.getAtomicAdd() ? GMAccess::kAtomic : GMAccess::kWrite))
        return;
    // Any other access of a GM argument: all of it.
    for (Value operand : op->getOperands())
      if (isa<GMTensorType>(operand.getType()))
        if (auto arg = argumentOf(getAliasedTensor(operand)))
          for (LeafRegion &region : regions[*arg])
            region.whole = true;
  });
  return it->second = std::move(regions);
}
