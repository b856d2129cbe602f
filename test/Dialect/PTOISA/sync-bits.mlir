// RUN: pto-opt %s -pto-test-sync-bits 2>&1 | FileCheck %s
// RUN: pto-opt %s -pto-test-sync-bits="rounds=10 steps=3000 seed=7" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SEED

// The copy-on-write bit sets of pto-isa-insert-sync against llvm::BitVector
// (test/lib/Dialect/PTO/TestSyncBits.cpp): every operation the pass uses, on
// random sets of 1 to 5000 bits.

// CHECK: remark: pto-test-sync-bits: 40 rounds of 1500 operations agree with llvm::BitVector
// SEED: remark: pto-test-sync-bits: 10 rounds of 3000 operations agree with llvm::BitVector
module {
}
