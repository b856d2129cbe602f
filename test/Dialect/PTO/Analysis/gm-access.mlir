// RUN: pto-opt %s -split-input-file -pto-test-gm-access -verify-diagnostics -o /dev/null

// Distinct kernel arguments never alias; boxes of one argument conflict only
// when their ranges overlap in every dim; reads never order against reads.

pto.kernel @static_boxes(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<64x64xf32>) {
  // expected-remark @below {{a: read 'x'[0:32, 0:64]; depends on []}}
  %a = pto.view %x[0, 0] {test.gm = "a"} : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
  // expected-remark @below {{b: write 'y'[0:32, 0:64]; depends on []}}
  pto.assemble %a, %y[0, 0] {test.gm = "b"} : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  // expected-remark @below {{c: write 'x'[32:32, 0:64]; depends on []}}
  pto.assemble %a, %x[32, 0] {test.gm = "c"} : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  // expected-remark @below {{d: write 'x'[16:32, 0:64]; depends on [a, c]}}
  pto.assemble %a, %x[16, 0] {test.gm = "d"} : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  // expected-remark @below {{e: read 'y'[32:32, 0:64]; depends on []}}
  %e = pto.view %y[32, 0] {test.gm = "e"} : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
}

// -----

// Dynamic offsets compare by value, however they are written: n*32 and 32*n
// are one quantity, so 32*n + 32 is the next block; an offset over another
// quantity may be anywhere.

pto.kernel @dynamic_offsets(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c32 = arith.constant 32 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %m = pto.dim %y, 0 : !pto.tensor<?x64xf32>
  %off = arith.muli %n, %c32 : index
  %commuted = arith.muli %c32, %n : index
  %next = arith.addi %commuted, %c32 : index
  %other = arith.muli %m, %c32 : index
  // expected-remark @below {{a: read 'x'[32*dim(x,0) + 0:32, 0:64]; depends on []}}
  %a = pto.view %x[%off, 0] {test.gm = "a"} : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
  // expected-remark @below {{b: write 'x'[32*dim(x,0) + 32:32, 0:64]; depends on []}}
  pto.assemble %a, %x[%next, 0] {test.gm = "b"} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  // expected-remark @below {{c: write 'x'[32*dim(x,0) + 0:32, 0:64]; depends on [a]}}
  pto.assemble %a, %x[%commuted, 0] {test.gm = "c"} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  // expected-remark @below {{d: write 'x'[32*dim(y,0) + 0:32, 0:64]; depends on [a, b, c]}}
  pto.assemble %a, %x[%other, 0] {test.gm = "d"} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
}

// -----

// Atomic updates commute with each other but not with reads; an in-place
// reshape names the same storage in other coordinates, so it may overlap any
// access of the original.

pto.kernel @atomics_and_aliases(%x: !pto.tensor<64x64xf32>, %acc: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-remark @below {{a: atomic 'acc'[0:64, 0:64]; depends on []}}
  pto.atomic_add %t, %acc[0, 0] {test.gm = "a"} : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  // expected-remark @below {{b: atomic 'acc'[0:64, 0:64]; depends on []}}
  pto.atomic_add %t, %acc[0, 0] {test.gm = "b"} : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  %flat = pto.reshape %acc [4096] inplace : !pto.tensor<64x64xf32> -> !pto.tensor<4096xf32>
  // expected-remark @below {{c: read 'acc' (reshaped)[4000:64]; depends on [a, b]}}
  %c = pto.view %flat[4000] {test.gm = "c"} : !pto.tensor<4096xf32> -> !pto.tile<64xf32>
}

// -----

// A pto.read touches one element. Reads are their own values: two reads of
// one location are not assumed equal (a write may come between them).

pto.kernel @reads(%cfg: !pto.tensor<4xi32>, %x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @below {{a: read 'cfg'[0:1]; depends on []}}
  %a = pto.read %cfg[%c0] {test.gm = "a"} : !pto.tensor<4xi32>
  // expected-remark @below {{b: read 'cfg'[0:1]; depends on []}}
  %b = pto.read %cfg[%c0] {test.gm = "b"} : !pto.tensor<4xi32>
  %t = pto.view %x[%a, 0] : !pto.tensor<?x64xf32> -> !pto.tile<1x64xf32>
  // expected-remark @below {{c: write 'x'[1*read() + 0:1, 0:64]; depends on []}}
  pto.assemble %t, %x[%a, 0] {test.gm = "c"} : !pto.tile<1x64xf32>, !pto.tensor<?x64xf32>
  // expected-remark @below {{d: write 'x'[1*read() + 0:1, 0:64]; depends on [c]}}
  pto.assemble %t, %x[%b, 0] {test.gm = "d"} : !pto.tile<1x64xf32>, !pto.tensor<?x64xf32>
}

// -----

// A loop's accesses over all its iterations: an offset computed inside the
// loop covers the whole dim; an invariant one keeps its range.

pto.kernel @loop_iterations(%x: !pto.tensor<256x64xf32>, %y: !pto.tensor<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  // expected-remark @below {{L: read 'x'[?, 0:64]; write 'y'[0:64, 0:64]; depends on []}}
  pto.loop "L" %i = %c0 to %c4 step %c1 attributes {test.gm = "L"} {
    %off = arith.muli %i, %c64 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
    pto.assemble %t, %y[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<256x64xf32>
  }
}

// -----

// Boxes under other symbolic parts still separate in a dim where the parts
// agree (GMAccessIndex compares them one by one); a whole-tensor access
// (pto.index_put: rows chosen at run time) orders against every access of
// its tensor, and nothing of another.

pto.kernel @mixed_keys(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>, %idx: !pto.tensor<8xi32>) {
  %c32 = arith.constant 32 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %m = pto.dim %y, 0 : !pto.tensor<?x64xf32>
  %on = arith.muli %n, %c32 : index
  %om = arith.muli %m, %c32 : index
  // expected-remark @below {{a: read 'x'[32*dim(x,0) + 0:8, 0:32]; depends on []}}
  %a = pto.view %x[%on, 0] {test.gm = "a"} : !pto.tensor<?x64xf32> -> !pto.tile<8x32xf32>
  // expected-remark @below {{b: write 'x'[32*dim(y,0) + 0:8, 32:32]; depends on []}}
  pto.assemble %a, %x[%om, 32] {test.gm = "b"} : !pto.tile<8x32xf32>, !pto.tensor<?x64xf32>
  // expected-remark @below {{c: write 'x'[32*dim(y,0) + 0:8, 0:32]; depends on [a]}}
  pto.assemble %a, %x[%om, 0] {test.gm = "c"} : !pto.tile<8x32xf32>, !pto.tensor<?x64xf32>
  %rows = pto.view %idx[0] : !pto.tensor<8xi32> -> !pto.tile<8xi32>
  // expected-remark @below {{d: read-write 'x'; depends on [a, b, c]}}
  pto.index_put %a, %x[%rows] [0, 0] {test.gm = "d"} : !pto.tile<8x32xf32>, !pto.tile<8xi32>, !pto.tensor<?x64xf32>
  // expected-remark @below {{e: write 'y'[0:8, 0:32]; depends on []}}
  pto.assemble %a, %y[0, 0] {test.gm = "e"} : !pto.tile<8x32xf32>, !pto.tensor<?x64xf32>
}

// -----

// Arguments of a plain function may alias each other: their accesses order
// against every access of another argument, and compare by box within one.

func.func @unknown_storage(%p: !pto.tensor<64x64xf32>, %q: !pto.tensor<64x64xf32>) {
  // expected-remark @below {{a: read unknown storage[0:32, 0:64]; depends on []}}
  %a = pto.view %p[0, 0] {test.gm = "a"} : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
  // expected-remark @below {{b: write unknown storage[32:32, 0:64]; depends on []}}
  pto.assemble %a, %p[32, 0] {test.gm = "b"} : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  // expected-remark @below {{c: write unknown storage[32:32, 0:64]; depends on [a, b]}}
  pto.assemble %a, %q[32, 0] {test.gm = "c"} : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  return
}
