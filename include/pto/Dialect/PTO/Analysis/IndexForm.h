//===- IndexForm.h - canonical polynomial form of index values --*- C++ -*-===//
//
// The checkers compare offsets and extents by value, not by spelling: an
// index value is normalised to a polynomial with integer coefficients over
// atoms (kernel arguments, loop indices, pto.dim sizes, pto.read values and
// any other op as an opaque function of its operands' forms). Constants fold,
// sums and products commute and distribute, so `D*n` and `n*D`, a hoisted or
// re-materialised D, and `x + 2048 - 2048` all give the same form.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_ANALYSIS_INDEXFORM_H
#define PTO_DIALECT_PTO_ANALYSIS_INDEXFORM_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::pto {

/// A product of atoms (their keys, sorted); empty for the constant term.
using Monomial = std::vector<std::string>;

/// sum(coefficient * monomial), zero coefficients dropped.
struct IndexPoly {
  std::map<Monomial, int64_t> terms;
  /// A coefficient overflowed int64: the form is meaningless (IndexForms
  /// then keeps the value as an opaque atom).
  bool overflow = false;

  static IndexPoly constant(int64_t c);
  static IndexPoly atom(const std::string &key);

  IndexPoly operator+(const IndexPoly &other) const;
  IndexPoly operator-(const IndexPoly &other) const;
  IndexPoly operator*(const IndexPoly &other) const;

  std::optional<int64_t> getConstant() const;
  int64_t getConstantTerm() const;
  /// The polynomial without its constant term.
  IndexPoly withoutConstant() const;
  /// The coefficient of the monomial `atom` alone (0 if absent).
  int64_t getLinearCoefficient(const std::string &atom) const;
  /// Whether `atom` appears in a monomial of degree > 1 (a product with
  /// another non-constant quantity: a run-time or non-affine stride).
  bool hasNonLinearUse(const std::string &atom) const;
  /// The atoms of the top-level monomials (not those nested in opaque
  /// atoms such as a pto.read's indices).
  std::vector<std::string> getAtoms() const;
  /// A canonical text: equal polynomials give equal strings.
  std::string str() const;
  /// withoutConstant().str(), without building that polynomial.
  std::string strWithoutConstant() const;
  /// Whether some term is not constant.
  bool hasNonConstantTerms() const {
    return terms.size() > terms.count(Monomial());
  }
  bool operator==(const IndexPoly &other) const {
    return terms == other.terms && !overflow && !other.overflow;
  }
};

/// Memoised normal forms for the index values of one kernel (linear in the
/// number of ops visited).
class IndexForms {
public:
  /// With `loopsByRange`, loop indices are identified by their bounds and
  /// step (two loop nests with other names over the same range compare
  /// equal); otherwise each loop's index is its own atom. With
  /// `readsByValue`, each pto.read result is its own atom (sound when memory
  /// changes between reads); otherwise reads of one location compare equal.
  explicit IndexForms(bool loopsByRange = false, bool readsByValue = false)
      : loopsByRange(loopsByRange), readsByValue(readsByValue) {}

  /// The normal form of `v`; the reference stays valid for the lifetime of
  /// this object.
  const IndexPoly &get(Value v);
  std::string key(Value v) { return get(v).str(); }
  /// Drops the form of `v` (about to be erased; its users are erased first,
  /// so no form kept refers to it): the references get() handed out for it
  /// become invalid.
  void forget(Value v) { memo.erase(v); }
  /// The atom key of a loop's induction variable.
  std::string getLoopAtom(Value iv);
  /// The value an atom stands for (the first one seen with that key).
  Value getAtomValue(const std::string &atom) const {
    return atomValues.lookup(atom);
  }

private:
  IndexPoly compute(Value v);
  IndexPoly opaque(Value v, const std::string &key);

  bool loopsByRange;
  bool readsByValue;
  // Boxed: references handed out by get() stay valid while memo grows.
  llvm::DenseMap<Value, std::unique_ptr<IndexPoly>> memo;
  llvm::StringMap<Value> atomValues;
};

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_ANALYSIS_INDEXFORM_H
