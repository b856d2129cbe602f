//===- UniqueIndexArithmetic.cpp - one op per value after expansion -------===//

#include "UniqueIndexArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace {

/// Ops equal as CSE compares them (name, attributes, properties, operands by
/// value, result types; locations ignored), for ops without regions or
/// successors only: cheaper than OperationEquivalence's general form, which
/// the tens of thousands of ops expansion leaves on a kernel made the larger
/// part of this walk.
struct EqualOpInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *opC) {
    auto *op = const_cast<Operation *>(opC);
    llvm::hash_code hash =
        llvm::hash_combine(op->getName().getAsOpaquePointer(),
                           op->getRawDictionaryAttrs(), op->hashProperties());
    for (Value operand : op->getOperands())
      hash = llvm::hash_combine(hash, operand.getAsOpaquePointer());
    for (Type type : op->getResultTypes())
      hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
    return hash;
  }
  static bool isEqual(const Operation *lhsC, const Operation *rhsC) {
    if (lhsC == rhsC)
      return true;
    if (lhsC == getEmptyKey() || lhsC == getTombstoneKey() ||
        rhsC == getEmptyKey() || rhsC == getTombstoneKey())
      return false;
    auto *lhs = const_cast<Operation *>(lhsC);
    auto *rhs = const_cast<Operation *>(rhsC);
    return lhs->getName() == rhs->getName() &&
           lhs->getRawDictionaryAttrs() == rhs->getRawDictionaryAttrs() &&
           llvm::equal(lhs->getOperands(), rhs->getOperands()) &&
           llvm::equal(lhs->getResultTypes(), rhs->getResultTypes()) &&
           lhs->getName().compareOpProperties(lhs->getPropertiesStorage(),
                                              rhs->getPropertiesStorage());
  }
};

/// The ops visible at a point of the walk: those before it in its block and
/// in the enclosing blocks, with the ops each open block added, to forget
/// them when it closes.
struct VisibleOps {
  llvm::DenseSet<Operation *, EqualOpInfo> ops;
  SmallVector<Operation *> added;
};

class Uniquer {
public:
  explicit Uniquer(const llvm::DenseSet<Operation *> &built) : built(built) {}

  void unique(Region &region, VisibleOps &visible) {
    for (Block &block : region) {
      size_t mark = visible.added.size();
      for (Operation &op : block) {
        if (isCandidate(op)) {
          auto [it, inserted] = visible.ops.insert(&op);
          if (inserted) {
            visible.added.push_back(&op);
            continue;
          }
          Operation *existing = *it;
          if (isa<UnknownLoc>(existing->getLoc()) &&
              !isa<UnknownLoc>(op.getLoc()))
            existing->setLoc(op.getLoc());
          op.replaceAllUsesWith(existing);
          dead.push_back(&op);
          continue;
        }
        for (Region &nested : op.getRegions()) {
          if (op.hasTrait<OpTrait::IsIsolatedFromAbove>()) {
            VisibleOps isolated;
            unique(nested, isolated);
          } else {
            unique(nested, visible);
          }
        }
      }
      for (size_t i = visible.added.size(); i > mark; --i)
        visible.ops.erase(visible.added[i - 1]);
      visible.added.truncate(mark);
    }
  }

  void eraseDead() {
    for (Operation *op : dead)
      op->erase();
  }

private:
  // Only what expansion built, besides constants: the program's own
  // arithmetic is left for CSE at the end of the pipeline.
  bool isCandidate(Operation &op) {
    if (isa<arith::ConstantOp>(op))
      return true;
    if (op.getNumRegions() != 0 || op.getNumSuccessors() != 0 ||
        op.getNumResults() != 1 || !isa<arith::ArithDialect>(op.getDialect()) ||
        !built.contains(&op))
      return false;
    auto [it, inserted] = effectFree.try_emplace(op.getName(), false);
    if (inserted)
      it->second = isMemoryEffectFree(&op);
    return it->second;
  }

  const llvm::DenseSet<Operation *> &built;
  // Whether ops of a name have no memory effects (arith ops answer by name).
  llvm::DenseMap<OperationName, bool> effectFree;
  SmallVector<Operation *> dead;
};

} // namespace

void mlir::pto::detail::uniqueIndexArithmetic(
    Operation *root, const llvm::DenseSet<Operation *> &built) {
  Uniquer uniquer(built);
  for (Region &region : root->getRegions()) {
    VisibleOps visible;
    uniquer.unique(region, visible);
  }
  uniquer.eraseDead();
}
