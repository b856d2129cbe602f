//===- TestSyncBits.cpp - SyncBits against llvm::BitVector
//-----------------===//
//
// -pto-test-sync-bits: pto-isa-insert-sync keeps its access sets as
// copy-on-write chunked `SyncBits` (lib/Dialect/PTOISA/Transforms/SyncBits.h)
// whose operations skip shared, all-zero and all-one chunks. The pass runs
// random sequences of every operation the sync pass uses (set, reset, or,
// and, and-not, or-and, copy, pack, packed or-and, unpack, equality,
// counts) on SyncBits and on llvm::BitVector side by side, and reports the
// first operation after which they differ as an error.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "SyncBits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/BitVector.h"

#include <random>
#include <vector>

using namespace mlir;
using mlir::ptoisa::sync::SyncBits;

namespace {

/// Whether `set` holds exactly the bits of `ref`, by every reader.
static bool sameBits(const SyncBits &set, const llvm::BitVector &ref) {
  if (set.count() != ref.count() || set.none() != ref.none())
    return false;
  for (unsigned i = 0, e = ref.size(); i < e; ++i)
    if (set.test(i) != ref[i])
      return false;
  unsigned listed = 0;
  for (unsigned i : set.set_bits()) {
    if (!ref[i])
      return false;
    ++listed;
  }
  return listed == ref.count();
}

struct TestSyncBitsPass
    : public PassWrapper<TestSyncBitsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSyncBitsPass)

  TestSyncBitsPass() = default;
  TestSyncBitsPass(const TestSyncBitsPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "pto-test-sync-bits"; }
  StringRef getDescription() const final {
    return "Checks pto-isa-insert-sync's SyncBits against llvm::BitVector on "
           "random operation sequences (test pass)";
  }

  Option<unsigned> rounds{*this, "rounds",
                          llvm::cl::desc("random sets of sets to run"),
                          llvm::cl::init(40)};
  Option<unsigned> steps{*this, "steps", llvm::cl::desc("operations per round"),
                         llvm::cl::init(1500)};
  Option<unsigned> seed{*this, "seed", llvm::cl::desc("random seed"),
                        llvm::cl::init(1)};

  void runOnOperation() override {
    std::mt19937 rng(seed);
    constexpr unsigned kSets = 5;
    for (unsigned round = 0; round < rounds; ++round) {
      // Sizes across one to several chunks, so that partial last chunks,
      // sentinels and shared chunks all occur.
      unsigned n = 1 + rng() % 5000;
      std::vector<SyncBits> sets(kSets, SyncBits(n));
      std::vector<llvm::BitVector> refs(kSets, llvm::BitVector(n));
      std::vector<SyncBits::Packed> packs;
      std::vector<llvm::BitVector> packRefs;
      for (unsigned step = 0; step < steps; ++step) {
        unsigned i = rng() % kSets, j = rng() % kSets, k = rng() % kSets;
        unsigned op = rng() % 13, at = rng() % n;
        StringRef name;
        switch (op) {
        case 0:
        case 1: {
          name = "set of a range";
          unsigned end = std::min(n, at + unsigned(rng() % 1500));
          for (unsigned x = at; x < end; ++x) {
            sets[i].set(x);
            refs[i].set(x);
          }
          break;
        }
        case 2:
          name = "reset of a bit";
          sets[i].reset(at);
          refs[i].reset(at);
          break;
        case 3:
          name = "|=";
          sets[i] |= sets[j];
          refs[i] |= refs[j];
          break;
        case 4:
          name = "&=";
          sets[i] &= sets[j];
          refs[i] &= refs[j];
          break;
        case 5:
          name = "reset of a set";
          sets[i].reset(sets[j]);
          refs[i].reset(refs[j]);
          break;
        case 6: {
          name = "orAnd";
          sets[i].orAnd(sets[j], sets[k]);
          llvm::BitVector both = refs[j];
          both &= refs[k];
          refs[i] |= both;
          break;
        }
        case 7:
          name = "copy";
          sets[i] = sets[j];
          refs[i] = refs[j];
          break;
        case 8:
          name = "pack";
          packs.push_back(sets[i].pack());
          packRefs.push_back(refs[i]);
          break;
        case 9: {
          name = "packedOrAnd";
          packs.push_back(sets[i].packedOrAnd(sets[j], sets[k]));
          llvm::BitVector both = refs[j];
          both &= refs[k];
          both |= refs[i];
          packRefs.push_back(both);
          break;
        }
        case 10:
          name = "unpack";
          if (!packs.empty()) {
            unsigned p = rng() % packs.size();
            sets[i] = SyncBits::unpack(packs[p], n);
            refs[i] = packRefs[p];
          }
          break;
        case 11: {
          name = "== and countAnd";
          llvm::BitVector both = refs[i];
          both &= refs[j];
          bool agree = (sets[i] == sets[j]) == (refs[i] == refs[j]) &&
                       sets[i].countAnd(sets[j]) == both.count();
          if (agree && !packs.empty()) {
            unsigned p = rng() % packs.size();
            llvm::BitVector withPack = refs[i];
            withPack &= packRefs[p];
            agree = sets[i].countAnd(packs[p]) == withPack.count();
          }
          if (!agree)
            return fail(round, step, name, n);
          break;
        }
        default:
          name = "set of every bit";
          for (unsigned x = 0; x < n; ++x) {
            sets[i].set(x);
            refs[i].set(x);
          }
          break;
        }
        if (!sameBits(sets[i], refs[i]))
          return fail(round, step, name, n);
      }
      for (unsigned p = 0, e = packs.size(); p < e; ++p)
        if (!sameBits(SyncBits::unpack(packs[p], n), packRefs[p]))
          return fail(round, steps, "unpack at the end", n);
    }
    getOperation()->emitRemark()
        << "pto-test-sync-bits: " << unsigned(rounds) << " rounds of "
        << unsigned(steps) << " operations agree with llvm::BitVector";
  }

  void fail(unsigned round, unsigned step, StringRef name, unsigned size) {
    getOperation()->emitError()
        << "pto-test-sync-bits: SyncBits and llvm::BitVector differ after '"
        << name << "' (round " << round << ", step " << step << ", " << size
        << " bits, seed " << unsigned(seed) << ")";
    signalPassFailure();
  }
};

} // namespace

void mlir::pto::test::registerTestSyncBitsPass() {
  PassRegistration<TestSyncBitsPass>();
}
