//===- StructuralEquivalence.cpp - compare IR modulo scheduling -----------===//

#include "pto/Embedding/StructuralEquivalence.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// Ops that keep their position within a block: anything with regions, side
/// effects (reads included) or a terminator role. Everything else floats.
static bool isAnchored(Operation *op) {
  return op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
         op->hasTrait<OpTrait::IsTerminator>();
}

static bool isConstant(Operation *op, Attribute *value = nullptr) {
  if (!op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() != 1)
    return false;
  Attribute attr;
  if (!matchPattern(op->getResult(0), m_Constant(&attr)))
    return false;
  if (value)
    *value = attr;
  return true;
}

/// Structural hashes of the ops and values nested under one root op.
class StructuralHasher {
public:
  explicit StructuralHasher(Operation *root) : root(root) {}

  size_t hashOp(Operation *op) {
    auto it = opHashes.find(op);
    if (it != opHashes.end())
      return it->second;
    size_t hash = computeOpHash(op);
    opHashes[op] = hash;
    return hash;
  }

  size_t hashValue(Value value) {
    if (auto result = dyn_cast<OpResult>(value))
      return llvm::hash_combine(hashOp(result.getOwner()),
                                result.getResultNumber());
    auto arg = cast<BlockArgument>(value);
    return llvm::hash_combine(llvm::StringRef("arg"), getDepth(arg.getOwner()),
                              arg.getArgNumber(),
                              arg.getType().getAsOpaquePointer());
  }

  /// The hashes of a block's anchored ops in order, and of its floating ops
  /// (constants excluded) as a sorted set.
  void splitBlock(Block &block, SmallVectorImpl<Operation *> &anchored,
                  SmallVectorImpl<Operation *> &floating) {
    for (Operation &op : block) {
      if (isConstant(&op))
        continue;
      (isAnchored(&op) ? anchored : floating).push_back(&op);
    }
  }

  SmallVector<size_t> floatingSet(ArrayRef<Operation *> floating) {
    SmallVector<size_t> hashes;
    for (Operation *op : floating)
      hashes.push_back(hashOp(op));
    llvm::sort(hashes);
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    return hashes;
  }

  size_t hashBlock(Block &block) {
    SmallVector<Operation *> anchored, floating;
    splitBlock(block, anchored, floating);
    llvm::hash_code hash = llvm::hash_value(block.getNumArguments());
    for (BlockArgument arg : block.getArguments())
      hash = llvm::hash_combine(hash, arg.getType().getAsOpaquePointer());
    for (Operation *op : anchored)
      hash = llvm::hash_combine(hash, hashOp(op));
    SmallVector<size_t> set = floatingSet(floating);
    hash = llvm::hash_combine(hash, llvm::StringRef("floating"),
                              llvm::hash_combine_range(set.begin(), set.end()));
    return hash;
  }

  /// Nesting depth of `block` below the root op (1 for the root's blocks).
  unsigned getDepth(Block *block) {
    unsigned depth = 0;
    for (Operation *op = block->getParentOp(); op && op != root;
         op = op->getParentOp())
      ++depth;
    return depth + 1;
  }

private:
  size_t computeOpHash(Operation *op) {
    Attribute value;
    if (isConstant(op, &value))
      return llvm::hash_combine(
          llvm::StringRef("constant"), value.getAsOpaquePointer(),
          op->getResult(0).getType().getAsOpaquePointer());
    llvm::hash_code hash =
        llvm::hash_combine(op->getName().getAsOpaquePointer(),
                           op->getAttrDictionary().getAsOpaquePointer());
    SmallVector<size_t> operands;
    for (Value operand : op->getOperands())
      operands.push_back(hashValue(operand));
    if (op->hasTrait<OpTrait::IsCommutative>())
      llvm::sort(operands);
    hash = llvm::hash_combine(
        hash, llvm::hash_combine_range(operands.begin(), operands.end()));
    for (Type type : op->getResultTypes())
      hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
    for (Region &region : op->getRegions()) {
      hash = llvm::hash_combine(hash, region.getBlocks().size());
      for (Block &block : region)
        hash = llvm::hash_combine(hash, hashBlock(block));
    }
    return hash;
  }

  Operation *root;
  llvm::DenseMap<Operation *, size_t> opHashes;
};

/// Finds and describes the first difference between two ops whose hashes
/// differ.
class DifferenceExplainer {
public:
  DifferenceExplainer(StructuralHasher &lhs, StructuralHasher &rhs)
      : lhs(lhs), rhs(rhs) {}

  std::string explainOps(Operation *a, Operation *b) {
    if (a->getName() != b->getName())
      return "different ops: " + describe(a) + "\n  vs " + describe(b);
    Attribute va, vb;
    if (isConstant(a, &va) && isConstant(b, &vb))
      return "different constants: " + describe(a) + "\n  vs " + describe(b);
    if (a->getAttrDictionary() != b->getAttrDictionary())
      return explainAttributes(a, b);
    if (a->getResultTypes() != b->getResultTypes())
      return "different result types: " + describe(a) + "\n  vs " + describe(b);
    if (a->getNumOperands() != b->getNumOperands())
      return "different operand counts: " + describe(a) + "\n  vs " +
             describe(b);
    for (unsigned i = 0, e = a->getNumOperands(); i < e; ++i) {
      Value x = a->getOperand(i), y = b->getOperand(i);
      if (lhs.hashValue(x) == rhs.hashValue(y))
        continue;
      // Commutative ops compare operands as a multiset; the first unequal
      // position still shows a real difference in that case.
      Operation *dx = x.getDefiningOp(), *dy = y.getDefiningOp();
      std::string where = "operand #" + std::to_string(i) + " of " +
                          describe(a) + "\n  vs " + describe(b) + "\n";
      if (dx && dy)
        return where + explainOps(dx, dy);
      return where + "  one of them is a block argument: " + describeValue(x) +
             " vs " + describeValue(y);
    }
    if (a->getNumRegions() != b->getNumRegions())
      return "different region counts: " + describe(a) + "\n  vs " +
             describe(b);
    for (unsigned r = 0, e = a->getNumRegions(); r < e; ++r) {
      Region &ra = a->getRegion(r), &rb = b->getRegion(r);
      if (ra.getBlocks().size() != rb.getBlocks().size())
        return "different block counts in region #" + std::to_string(r) +
               " of " + describe(a) + "\n  vs " + describe(b);
      for (auto [ba, bb] : llvm::zip(ra, rb))
        if (lhs.hashBlock(ba) != rhs.hashBlock(bb))
          return explainBlocks(ba, bb, a, b);
    }
    return "hash difference not located in " + describe(a) + "\n  vs " +
           describe(b);
  }

private:
  std::string explainBlocks(Block &a, Block &b, Operation *pa, Operation *pb) {
    if (a.getArgumentTypes() != b.getArgumentTypes())
      return "different block arguments in " + describe(pa) + "\n  vs " +
             describe(pb);
    SmallVector<Operation *> anchoredA, floatingA, anchoredB, floatingB;
    lhs.splitBlock(a, anchoredA, floatingA);
    rhs.splitBlock(b, anchoredB, floatingB);
    for (size_t i = 0, e = std::min(anchoredA.size(), anchoredB.size()); i < e;
         ++i)
      if (lhs.hashOp(anchoredA[i]) != rhs.hashOp(anchoredB[i]))
        return explainOps(anchoredA[i], anchoredB[i]);
    if (anchoredA.size() != anchoredB.size()) {
      bool lhsLonger = anchoredA.size() > anchoredB.size();
      Operation *extra =
          lhsLonger ? anchoredA[anchoredB.size()] : anchoredB[anchoredA.size()];
      return std::string("only the ") + (lhsLonger ? "first" : "second") +
             " program has " + describe(extra) + "\n  in the body of " +
             describe(lhsLonger ? pa : pb);
    }
    // Same anchored ops: a side-effect-free op computed in one block only.
    SmallVector<size_t> setA = lhs.floatingSet(floatingA);
    SmallVector<size_t> setB = rhs.floatingSet(floatingB);
    for (Operation *op : floatingA)
      if (!llvm::is_contained(setB, lhs.hashOp(op)))
        return "only the first program computes " + describe(op) +
               "\n  in the body of " + describe(pa);
    for (Operation *op : floatingB)
      if (!llvm::is_contained(setA, rhs.hashOp(op)))
        return "only the second program computes " + describe(op) +
               "\n  in the body of " + describe(pb);
    return "blocks differ in " + describe(pa);
  }

  std::string explainAttributes(Operation *a, Operation *b) {
    DictionaryAttr da = a->getAttrDictionary(), db = b->getAttrDictionary();
    std::string text;
    llvm::raw_string_ostream os(text);
    auto report = [&](StringRef name, Attribute x, Attribute y) {
      os << "attribute '" << name << "' differs: ";
      if (x)
        os << x;
      else
        os << "(absent)";
      os << " vs ";
      if (y)
        os << y;
      else
        os << "(absent)";
      os << "\n  in " << describe(a) << "\n  vs " << describe(b);
    };
    for (NamedAttribute attr : da)
      if (db.get(attr.getName()) != attr.getValue()) {
        report(attr.getName(), attr.getValue(), db.get(attr.getName()));
        return text;
      }
    for (NamedAttribute attr : db)
      if (!da.get(attr.getName())) {
        report(attr.getName(), nullptr, attr.getValue());
        return text;
      }
    return "attributes differ in " + describe(a);
  }

  static std::string describeValue(Value value) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto arg = dyn_cast<BlockArgument>(value))
      os << "block argument #" << arg.getArgNumber() << " of "
         << arg.getOwner()->getParentOp()->getName();
    else
      os << "result of " << value.getDefiningOp()->getName();
    os << " : " << value.getType();
    return text;
  }

  static std::string describe(Operation *op) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    op->print(os, OpPrintingFlags().skipRegions().useLocalScope());
    StringRef line = StringRef(printed).split('\n').first.trim();
    if (line.size() > 240)
      line = line.take_front(240);
    std::string where;
    llvm::raw_string_ostream wos(where);
    wos << op->getLoc();
    return "`" + line.str() + "` (" + where + ")";
  }

  StructuralHasher &lhs, &rhs;
};

} // namespace

bool mlir::pto::areStructurallyEquivalent(Operation *lhs, Operation *rhs,
                                          std::string *difference) {
  StructuralHasher lhsHasher(lhs), rhsHasher(rhs);
  if (lhsHasher.hashOp(lhs) == rhsHasher.hashOp(rhs))
    return true;
  if (difference)
    *difference =
        DifferenceExplainer(lhsHasher, rhsHasher).explainOps(lhs, rhs);
  return false;
}
