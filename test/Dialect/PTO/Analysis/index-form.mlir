// RUN: pto-opt %s --allow-unregistered-dialect -split-input-file -pto-test-index-form -verify-diagnostics -o /dev/null
// RUN: pto-opt %s --allow-unregistered-dialect -split-input-file '-pto-test-index-form=loops-by-range=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE

// Equal quantities written differently get one normal form: commuted and
// factored products, a constant added and taken away, casts, a D that is
// re-materialised.

pto.kernel @spellings(%x: !pto.tensor<?x?xf32>) {
  %n = pto.dim %x, 0 : !pto.tensor<?x?xf32>
  %d = pto.dim %x, 1 : !pto.tensor<?x?xf32>
  %c2048 = arith.constant 2048 : index
  %c64 = arith.constant 64 : index
  %c64b = arith.constant 64 : index
  %a = arith.muli %d, %n : index
  %b = arith.muli %n, %d : index
  %up = arith.addi %b, %c2048 : index
  %down = arith.subi %up, %c2048 : index
  %i32 = arith.index_cast %n : index to i32
  %back = arith.index_cast %i32 : i32 to index
  %s1 = arith.muli %back, %c64 : index
  %s2 = arith.muli %c64b, %n : index
  %sum = arith.addi %n, %d : index
  %f = arith.muli %sum, %c64 : index
  %g1 = arith.muli %n, %c64 : index
  %g2 = arith.muli %d, %c64 : index
  %g = arith.addi %g2, %g1 : index
  // expected-remark @below {{1*dim(x,0)*dim(x,1); 1*dim(x,0)*dim(x,1); 1*dim(x,0)*dim(x,1)}}
  "test.use"(%a, %b, %down) {test.index} : (index, index, index) -> ()
  // expected-remark @below {{64*dim(x,0); 64*dim(x,0)}}
  "test.use"(%s1, %s2) {test.index} : (index, index) -> ()
  // expected-remark @below {{64*dim(x,0) + 64*dim(x,1); 64*dim(x,0) + 64*dim(x,1)}}
  "test.use"(%f, %g) {test.index} : (index, index) -> ()
}

// -----

// Different quantities stay different: exact division folds, inexact does not;
// two loops are two atoms unless compared by range, when a loop over the same
// range with the same step is the same quantity.

pto.kernel @loops(%k: !pto.tensor<?x64xf32>) {
  %s2 = pto.dim %k, 0 : !pto.tensor<?x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c3 = arith.constant 3 : index
  pto.loop "A" %i = %c0 to %s2 step %c128 {
    pto.loop "B" %j = %c0 to %s2 step %c128 {
      %x = arith.muli %i, %c128 : index
      %q = arith.divsi %x, %c128 : index
      %r = arith.divsi %x, %c3 : index
      // RANGE: remark: 1*iv[0:1*dim(k,0):128]; 1*arith.divsi(128*iv[0:1*dim(k,0):128],3); 1*iv[0:1*dim(k,0):128]
      // expected-remark @below {{1*iv(A); 1*arith.divsi(128*iv(A),3); 1*iv(B)}}
      "test.use"(%q, %r, %j) {test.index} : (index, index, index) -> ()
    }
  }
}
