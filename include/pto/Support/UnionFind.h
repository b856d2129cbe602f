//===- UnionFind.h - disjoint sets over dense ids, iterative ----*- C++ -*-===//
//
// Disjoint sets over the ids 0 .. size()-1. `find` is iterative with path
// halving: llvm::EquivalenceClasses' getLeader recurses along a chain of
// leaders, which overflowed the stack under ASan on the fuzz corpus (merges
// that union many nodes before any lookup leave long chains).
//
// A merge keeps the first set's leader, so callers can treat the leader as a
// stable representative (pto-partition keeps per-group state on it). Without
// union by rank, path halving alone keeps m operations on n ids in
// O(m log n) total.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_SUPPORT_UNIONFIND_H
#define PTO_SUPPORT_UNIONFIND_H

#include "llvm/ADT/SmallVector.h"

#include <cassert>
#include <numeric>

namespace mlir::pto {

class UnionFind {
public:
  explicit UnionFind(unsigned size = 0) { resize(size); }

  /// Grows to `size` ids; the new ones are singletons.
  void resize(unsigned size) {
    unsigned old = parent.size();
    assert(size >= old && "UnionFind only grows");
    parent.resize(size);
    std::iota(parent.begin() + old, parent.end(), old);
  }
  unsigned size() const { return parent.size(); }

  /// The leader of `id`'s set.
  unsigned find(unsigned id) {
    assert(id < parent.size() && "id out of range");
    while (parent[id] != id)
      id = parent[id] = parent[parent[id]];
    return id;
  }

  /// Merges the sets of `keep` and `other`; the leader of `keep`'s set leads
  /// the union. Returns that leader.
  unsigned unite(unsigned keep, unsigned other) {
    unsigned leader = find(keep);
    parent[find(other)] = leader;
    return leader;
  }

  bool connected(unsigned a, unsigned b) { return find(a) == find(b); }

private:
  llvm::SmallVector<unsigned> parent;
};

} // namespace mlir::pto

#endif // PTO_SUPPORT_UNIONFIND_H
