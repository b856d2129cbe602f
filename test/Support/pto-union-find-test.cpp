//===- pto-union-find-test.cpp - checks pto::UnionFind --------------------===//
//
// Run by union-find.test. Prints one line per check; exits non-zero on the
// first wrong answer, naming it.
//
//===----------------------------------------------------------------------===//

#include "pto/Support/UnionFind.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using mlir::pto::UnionFind;

static void expect(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    std::exit(1);
  }
}

int main() {
  // A merge keeps the first set's leader.
  {
    UnionFind sets(4);
    expect(sets.unite(2, 0) == 2, "unite(2, 0) returns 2's leader");
    expect(sets.find(0) == 2, "0 joins 2's set under leader 2");
    expect(sets.unite(1, 0) == 1, "unite(1, {0, 2}) returns 1");
    expect(sets.find(2) == 1 && sets.find(0) == 1, "{0, 1, 2} led by 1");
    expect(!sets.connected(3, 0), "3 stays apart");
    sets.resize(6);
    expect(sets.find(5) == 5 && sets.connected(1, 2), "resize keeps sets");
    std::printf("leaders: ok\n");
  }

  // A chain of 2^20 leaders (every merge makes the old leader a child of a
  // new one, before any lookup): a recursive find overflows the stack here.
  {
    const unsigned n = 1u << 20;
    UnionFind sets(n);
    for (unsigned i = 1; i < n; ++i)
      sets.unite(i, i - 1);
    expect(sets.find(0) == n - 1, "the chain's leader is its last id");
    expect(sets.find(n / 2) == n - 1, "after halving, still the last id");
    std::printf("chain of %u: ok\n", n);
  }

  // Random merges against a naive relabelling.
  {
    const unsigned n = 512;
    UnionFind sets(n);
    std::vector<unsigned> label(n);
    for (unsigned i = 0; i < n; ++i)
      label[i] = i;
    std::mt19937 random(21);
    for (unsigned step = 0; step < 4 * n; ++step) {
      unsigned a = random() % n, b = random() % n;
      unsigned keep = label[a], gone = label[b];
      for (unsigned &l : label)
        if (l == gone)
          l = keep;
      expect(sets.unite(a, b) == sets.find(a), "unite returns a's leader");
      unsigned c = random() % n, d = random() % n;
      expect(sets.connected(c, d) == (label[c] == label[d]),
             "connected agrees with the naive labels");
    }
    std::printf("random merges: ok\n");
  }
  return 0;
}
