//===- IndexForm.cpp - canonical polynomial form of index values ----------===//

#include "pto/Dialect/PTO/Analysis/IndexForm.h"
#include "pto/Dialect/PTO/Analysis/KernelStructure.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::pto;

/// Products of sums grow; past this many terms a value stays an opaque atom.
static constexpr size_t kMaxTerms = 256;

//===----------------------------------------------------------------------===//
// IndexPoly
//===----------------------------------------------------------------------===//

IndexPoly IndexPoly::constant(int64_t c) {
  IndexPoly p;
  if (c)
    p.terms[{}] = c;
  return p;
}

IndexPoly IndexPoly::atom(const std::string &key) {
  IndexPoly p;
  p.terms[{key}] = 1;
  return p;
}

IndexPoly IndexPoly::operator+(const IndexPoly &other) const {
  IndexPoly sum = *this;
  sum.overflow |= other.overflow;
  for (auto &[mono, c] : other.terms) {
    int64_t &slot = sum.terms[mono];
    sum.overflow |= __builtin_add_overflow(slot, c, &slot);
    if (slot == 0)
      sum.terms.erase(mono);
  }
  return sum;
}

IndexPoly IndexPoly::operator-(const IndexPoly &other) const {
  return *this + other * constant(-1);
}

IndexPoly IndexPoly::operator*(const IndexPoly &other) const {
  IndexPoly product;
  product.overflow = overflow || other.overflow;
  for (auto &[a, ca] : terms)
    for (auto &[b, cb] : other.terms) {
      Monomial mono = a;
      mono.insert(mono.end(), b.begin(), b.end());
      llvm::sort(mono);
      int64_t c;
      product.overflow |= __builtin_mul_overflow(ca, cb, &c);
      int64_t &slot = product.terms[mono];
      product.overflow |= __builtin_add_overflow(slot, c, &slot);
      if (slot == 0)
        product.terms.erase(mono);
    }
  return product;
}

std::optional<int64_t> IndexPoly::getConstant() const {
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.begin()->first.empty())
    return terms.begin()->second;
  return std::nullopt;
}

int64_t IndexPoly::getConstantTerm() const {
  auto it = terms.find({});
  return it == terms.end() ? 0 : it->second;
}

IndexPoly IndexPoly::withoutConstant() const {
  IndexPoly p = *this;
  p.terms.erase(Monomial());
  return p;
}

int64_t IndexPoly::getLinearCoefficient(const std::string &atom) const {
  auto it = terms.find({atom});
  return it == terms.end() ? 0 : it->second;
}

bool IndexPoly::hasNonLinearUse(const std::string &atom) const {
  for (auto &[mono, c] : terms)
    if (mono.size() > 1 && llvm::is_contained(mono, atom))
      return true;
  return false;
}

std::vector<std::string> IndexPoly::getAtoms() const {
  std::vector<std::string> atoms;
  for (auto &[mono, c] : terms)
    for (const std::string &a : mono)
      if (!llvm::is_contained(atoms, a))
        atoms.push_back(a);
  return atoms;
}

/// The text of `terms`, optionally without the constant term.
static std::string printTerms(const std::map<Monomial, int64_t> &terms,
                              bool withConstant) {
  std::string s;
  for (auto &[mono, c] : terms) {
    if (mono.empty() && !withConstant)
      continue;
    if (!s.empty())
      s += " + ";
    s += std::to_string(c);
    for (const std::string &a : mono) {
      s += '*';
      s += a;
    }
  }
  return s.empty() ? "0" : s;
}

std::string IndexPoly::str() const { return printTerms(terms, true); }

std::string IndexPoly::strWithoutConstant() const {
  return printTerms(terms, false);
}

//===----------------------------------------------------------------------===//
// IndexForms
//===----------------------------------------------------------------------===//

const IndexPoly &IndexForms::get(Value v) {
  auto it = memo.find(v);
  if (it != memo.end())
    return *it->second;
  IndexPoly p = compute(v);
  if (p.terms.size() > kMaxTerms || p.overflow)
    p = opaque(v, llvm::formatv("value({0})", v.getAsOpaquePointer()).str());
  std::unique_ptr<IndexPoly> &slot = memo[v];
  slot = std::make_unique<IndexPoly>(std::move(p));
  return *slot;
}

IndexPoly IndexForms::opaque(Value v, const std::string &key) {
  atomValues.try_emplace(key, v);
  return IndexPoly::atom(key);
}

std::string IndexForms::getLoopAtom(Value iv) {
  Operation *owner = getInductionVarOwner(iv);
  auto loop = dyn_cast_or_null<LoopOp>(owner);
  if (loop && loopsByRange)
    return "iv[" + key(loop.getLowerBound()) + ":" + key(loop.getUpperBound()) +
           ":" + key(loop.getStep()) + "]";
  if (loop)
    return llvm::formatv("iv({0}@{1})", loop.getName(),
                         static_cast<void *>(owner))
        .str();
  return llvm::formatv("iv({0})", iv.getAsOpaquePointer()).str();
}

IndexPoly IndexForms::compute(Value v) {
  APInt c;
  // Wider constants than int64 stay opaque.
  if (matchPattern(v, m_ConstantInt(&c)) && c.getSignificantBits() <= 64)
    return IndexPoly::constant(c.getSExtValue());

  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (getInductionVarOwner(v))
      return opaque(v, getLoopAtom(v));
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa_and_nonnull<KernelOp>(parent))
      return opaque(v, ("arg(" + getArgumentName(arg) + ")").str());
    return opaque(v, llvm::formatv("blockarg({0})", v.getAsOpaquePointer()));
  }

  Operation *def = v.getDefiningOp();
  auto operand = [&](unsigned i) -> const IndexPoly & {
    return get(def->getOperand(i));
  };
  if (isa<arith::AddIOp>(def))
    return operand(0) + operand(1);
  if (isa<arith::SubIOp>(def))
    return operand(0) - operand(1);
  if (isa<arith::MulIOp>(def)) {
    const IndexPoly &a = operand(0), &b = operand(1);
    if (a.terms.size() * b.terms.size() <= kMaxTerms)
      return a * b;
  }
  // Width and signedness casts keep the value of an index quantity.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(def))
    return operand(0);

  if (auto dim = dyn_cast<DimOp>(def)) {
    auto type = cast<ShapedType>(dim.getSource().getType());
    int64_t size = type.getDimSize(dim.getDim());
    if (!ShapedType::isDynamic(size))
      return IndexPoly::constant(size);
    // A dim of a reshape is the size the reshape was given.
    if (auto reshape = dim.getSource().getDefiningOp<ReshapeOp>()) {
      SmallVector<MixedIndex> shape =
          getMixed(reshape.getStaticShape(), reshape.getShape());
      if (dim.getDim() < shape.size())
        return shape[dim.getDim()].value
                   ? get(shape[dim.getDim()].value)
                   : IndexPoly::constant(shape[dim.getDim()].constant);
    }
    std::string tensor =
        getRootArgument(dim.getSource())
            ? getArgumentName(getRootArgument(dim.getSource())).str()
            : llvm::formatv("{0}", dim.getSource().getAsOpaquePointer()).str();
    return opaque(v,
                  "dim(" + tensor + "," + std::to_string(dim.getDim()) + ")");
  }

  auto read = dyn_cast<ReadOp>(def);
  if (read && readsByValue)
    return opaque(v, llvm::formatv("read({0})", v.getAsOpaquePointer()).str());
  if (read) {
    BlockArgument root = getRootArgument(read.getTensor());
    std::string key =
        "read(" +
        (root ? getArgumentName(root).str()
              : llvm::formatv("{0}", read.getTensor().getAsOpaquePointer())
                    .str()) +
        ")[";
    for (auto [i, index] : llvm::enumerate(read.getIndices()))
      key += (i ? "," : "") + this->key(index);
    return opaque(v, key + "]");
  }

  // Divisions fold on constants and divide exactly divisible forms
  // ((n*128)/128 = n); min/max fold on constants.
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::FloorDivSIOp, arith::RemSIOp,
          arith::RemUIOp, arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
          arith::MaxUIOp>(def)) {
    std::optional<int64_t> a = operand(0).getConstant();
    std::optional<int64_t> b = operand(1).getConstant();
    bool isDiv = isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
                     arith::CeilDivUIOp, arith::FloorDivSIOp>(def);
    if (a && b && (isDiv || isa<arith::RemSIOp, arith::RemUIOp>(def)) &&
        *b > 0 && *a >= 0) {
      if (isa<arith::RemSIOp, arith::RemUIOp>(def))
        return IndexPoly::constant(*a % *b);
      if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
        return IndexPoly::constant(*a / *b + (*a % *b != 0));
      return IndexPoly::constant(*a / *b);
    }
    if (a && b && isa<arith::MinSIOp, arith::MinUIOp>(def))
      return IndexPoly::constant(std::min(*a, *b));
    if (a && b && isa<arith::MaxSIOp, arith::MaxUIOp>(def))
      return IndexPoly::constant(std::max(*a, *b));
    if (isDiv && b && *b > 0 && llvm::all_of(operand(0).terms, [&](auto &term) {
          return term.second % *b == 0;
        })) {
      IndexPoly quotient = operand(0);
      for (auto &[mono, coef] : quotient.terms)
        coef /= *b;
      return quotient;
    }
    std::string x = operand(0).str(), y = operand(1).str();
    // min and max commute.
    if (isa<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(
            def) &&
        y < x)
      std::swap(x, y);
    return opaque(
        v, (def->getName().getStringRef() + "(" + x + "," + y + ")").str());
  }

  // Anything else: an opaque function of its operands' forms when it is
  // pure index arithmetic, else a value of its own.
  if (def->getNumRegions() == 0 && def->getNumResults() == 1 &&
      isa<arith::ArithDialect>(def->getDialect()) &&
      llvm::all_of(def->getOperandTypes(),
                   [](Type t) { return t.isIntOrIndex(); })) {
    std::string key = def->getName().getStringRef().str() + "(";
    for (auto [i, value] : llvm::enumerate(def->getOperands()))
      key += (i ? "," : "") + this->key(value);
    return opaque(v, key + ")");
  }
  return opaque(v, llvm::formatv("value({0})", v.getAsOpaquePointer()).str());
}
