// RUN: pto-opt %s -split-input-file -pto-test-valid-shape -verify-diagnostics
// RUN: pto-opt %s -split-input-file -pto-test-valid-shape | FileCheck %s

// The valid-shape rule of every tile producer, reified by the test pass and
// spelled symbolically: kernel arguments and loop indices by name, scalar
// reads as tensor[index], index arithmetic in infix; other values by their
// defining op.

//===----------------------------------------------------------------------===//
// pto.view
//===----------------------------------------------------------------------===//

// A view of a GM tensor at static and dynamic offsets with an explicit valid
// shape: min(valid, min(max(parentValid - offset, 0), shape)). Static dims
// fold: min(64, min(max(512 - 64, 0), 64)) = 64.

// The extents are built right before the view (they only depend on its
// operands), pto.dim right after the tensor's definition.
// CHECK-LABEL: pto.kernel @view_explicit_valid(
// CHECK-SAME:    %q: !pto.tensor<?x512xbf16>
// CHECK-NEXT:      %[[DIM:.*]] = pto.dim %q, 0 : !pto.tensor<?x512xbf16>
// CHECK:         pto.loop "L" %b_idx
// CHECK:           %[[A:.*]] = pto.read %actual_q[%b_idx]
// CHECK-NEXT:      %[[SUB:.*]] = arith.subi %[[DIM]], %b_idx : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[MAX:.*]] = arith.maxsi %[[SUB]], %[[ZERO]] : index
// CHECK-NEXT:      %[[SIZE:.*]] = arith.constant 2048 : index
// CHECK-NEXT:      %[[CLAMP:.*]] = arith.minsi %[[MAX]], %[[SIZE]] : index
// CHECK-NEXT:      %{{.*}} = arith.minsi %[[A]], %[[CLAMP]] : index
// CHECK-NEXT:      pto.view %q[%b_idx, 64] valid [%[[A]], 64]
pto.kernel @view_explicit_valid(%q: !pto.tensor<?x512xbf16>, %actual_q: !pto.tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %b_idx = %c0 to %c4 step %c1 {
    %a_s1 = pto.read %actual_q[%b_idx] : !pto.tensor<?xi32>
    // expected-remark @+1 {{result #0 valid shape [min(actual_q[b_idx], min(max(dim(q, 0) - b_idx, 0), 2048)), 64]}}
    %v = pto.view %q[%b_idx, 64] valid [%a_s1, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<2048x64xbf16>
  }
}

// -----

// An SK-16 tail: the valid rows are the sequence length minus the tile's
// offset, spelled with the values read, not the ops reading them.
// CHECK-LABEL: pto.kernel @view_tail_names_values(
pto.kernel @view_tail_names_values(%q: !pto.tensor<?x512xbf16>, %actual_q: !pto.tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c2048 = arith.constant 2048 : index
  pto.loop "L" %b_idx = %c0 to %c2 step %c1 {
    %b_next = arith.addi %b_idx, %c1 : index
    %start = pto.read %actual_q[%b_idx] : !pto.tensor<?xi32>
    %end = pto.read %actual_q[%b_next] : !pto.tensor<?xi32>
    %s1 = arith.subi %end, %start : index
    pto.loop "S" %s_idx = %c0 to %c2 step %c1 {
      %off = arith.muli %s_idx, %c2048 : index
      %rest = arith.subi %s1, %off : index
      %rows = arith.minsi %rest, %c2048 : index
      // expected-remark @+1 {{result #0 valid shape [min(min(actual_q[b_idx + 1] - actual_q[b_idx] - s_idx*2048, 2048), min(max(dim(q, 0) - actual_q[b_idx], 0), 2048)), 64]}}
      %v = pto.view %q[%start, 0] valid [%rows, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<2048x64xbf16>
    }
  }
}

// -----

// Without a valid shape the derived clamp alone applies: near the end of a
// static dim only 512 - 480 = 32 of the 64 columns are valid.

// CHECK-LABEL: pto.kernel @view_derived_clamp(
pto.kernel @view_derived_clamp(%q: !pto.tensor<?x512xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %s_idx = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [min(max(dim(q, 0) - s_idx, 0), 128), 32]}}
    %w = pto.view %q[%s_idx, 480] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
    // An offset at the last column of the static dim leaves one valid column
    // (an offset past the end is rejected by the verifier).
    // expected-remark @+1 {{result #0 valid shape [min(max(dim(q, 0) - s_idx, 0), 16), 1]}}
    %last = pto.view %q[%s_idx, 511] : !pto.tensor<?x512xbf16> -> !pto.tile<16x16xbf16>
  }
}

// -----

// Fully static: everything folds to constants, also with explicit extents.

// CHECK-LABEL: pto.kernel @view_static(
pto.kernel @view_static(%x: !pto.tensor<100x64xf32>) {
  // expected-remark @+1 {{result #0 valid shape [64, 64]}}
  %a = pto.view %x[0, 0] : !pto.tensor<100x64xf32> -> !pto.tile<64x64xf32>
  // expected-remark @+1 {{result #0 valid shape [36, 64]}}
  %b = pto.view %x[64, 0] : !pto.tensor<100x64xf32> -> !pto.tile<64x64xf32>
  // expected-remark @+1 {{result #0 valid shape [30, 16]}}
  %c = pto.view %x[64, 0] valid [30, 16] : !pto.tensor<100x64xf32> -> !pto.tile<64x64xf32>
  // The explicit extent only narrows: 60 > 36 leaves 36.
  // expected-remark @+1 {{result #0 valid shape [36, 64]}}
  %d = pto.view %x[64, 0] valid [60, 64] : !pto.tensor<100x64xf32> -> !pto.tile<64x64xf32>
  // expected-remark @+1 {{result #0 valid shape [4, 64]}}
  %e = pto.view %x[96, 0] : !pto.tensor<100x64xf32> -> !pto.tile<8x64xf32>
}

// -----

// A view of a tile takes the parent tile's valid shape as its parent extents.

// CHECK-LABEL: pto.kernel @view_of_tile(
pto.kernel @view_of_tile(%q: !pto.tensor<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [min(max(dim(q, 0) - i, 0), 256), 64]}}
    %t = pto.view %q[%i, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<256x64xbf16>
    // expected-remark @+1 {{result #0 valid shape [min(i, min(max(min(max(dim(q, 0) - i, 0), 256) - 100, 0), 128)), 16]}}
    %n = pto.view %t[100, 32] valid [%i, 16] : !pto.tile<256x64xbf16> -> !pto.tile<128x32xbf16>
    // expected-remark @+1 {{result #0 valid shape [min(max(min(max(dim(q, 0) - i, 0), 256) - i, 0), 64), 32]}}
    %m = pto.view %t[%i, 32] : !pto.tile<256x64xbf16> -> !pto.tile<64x32xbf16>
  }
}

//===----------------------------------------------------------------------===//
// pto.matmul
//===----------------------------------------------------------------------===//

// -----

// [valid M of op(A), valid N of op(B)]: with a_trans M is A's dim 1, with
// b_trans N is B's dim 0. The loop indices name the valid extents.

// CHECK-LABEL: pto.kernel @matmul(
pto.kernel @matmul(%a: !pto.tensor<128x64xbf16>, %b: !pto.tensor<64x128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L0" %a0 = %c0 to %c4 step %c1 {
    pto.loop "L1" %a1 = %c0 to %c4 step %c1 {
      pto.loop "L2" %b0 = %c0 to %c4 step %c1 {
        pto.loop "L3" %b1 = %c0 to %c4 step %c1 {
          // expected-remark @+1 {{result #0 valid shape [min(a0, 128), min(a1, 64)]}}
          %ta = pto.view %a[0, 0] valid [%a0, %a1] : !pto.tensor<128x64xbf16> -> !pto.tile<128x64xbf16>
          // expected-remark @+1 {{result #0 valid shape [min(b0, 64), min(b1, 128)]}}
          %tb = pto.view %b[0, 0] valid [%b0, %b1] : !pto.tensor<64x128xbf16> -> !pto.tile<64x128xbf16>
          // A [128, 64] x B [64, 128]: M from A dim 0, N from B dim 1.
          // expected-remark @+1 {{result #0 valid shape [min(a0, 128), min(b1, 128)]}}
          %m0 = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [64, 128]>}
              : !pto.tile<128x64xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<128x128xf32>
          // a_trans: op(A) = A^T [64, 128], so M is A's dim 1; N is B's dim 1
          // (B is the same view here).
          // expected-remark @+1 {{result #0 valid shape [min(a1, 64), min(a1, 64)]}}
          %m1 = pto.matmul %ta, %ta {a_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 128], n = [64, 64]>}
              : !pto.tile<128x64xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<64x64xf32>
          // b_trans: the right operand [128, 64] is transposed, so N is its dim 0.
          // expected-remark @+1 {{result #0 valid shape [min(a0, 128), min(a0, 128)]}}
          %m2 = pto.matmul %ta, %ta {b_trans, cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [64, 128]>}
              : !pto.tile<128x64xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<128x128xf32>
          // Both: op(lhs) = %tb^T, so M is %tb's dim 1; op(rhs) = %ta^T, so N is
          // %ta's dim 0.
          // expected-remark @+1 {{result #0 valid shape [min(b1, 128), min(a0, 128)]}}
          %m3 = pto.matmul %tb, %ta {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [64, 128]>}
              : !pto.tile<64x128xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<128x128xf32>
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Elementwise, reductions, cast, full
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: pto.kernel @elementwise(
pto.kernel @elementwise(%x: !pto.tensor<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %scale = arith.constant 0.125 : f32
  pto.loop "L0" %r = %c0 to %c4 step %c1 {
    pto.loop "L1" %c = %c0 to %c4 step %c1 {
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %s = pto.view %x[0, 0] valid [%r, %c] : !pto.tensor<128x64xf32> -> !pto.tile<128x64xf32>
      // Row statistics [M, 1]: the reduced dim is valid 1.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), 1]}}
      %row = pto.amax %s dim = 1 keepdim : !pto.tile<128x64xf32> -> !pto.tile<128x1xf32>
      // The broadcast [M, 1] operand on the left: dim 0 comes from it, dim 1
      // (broadcast) from the right operand.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %sub = pto.sub %row, %s : !pto.tile<128x1xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
      // The broadcast operand on the right: the left operand's valid shape.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %sub2 = pto.sub %s, %row : !pto.tile<128x64xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x64xf32>
      // A column [1, N] (fully valid, from pto.full) against the row [M, 1]:
      // dim 0 from the row, dim 1 from the column.
      // expected-remark @+1 {{result #0 valid shape [1, 64]}}
      %col = pto.full 1.0 : !pto.tile<1x64xf32>
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), 64]}}
      %outer = pto.mul %row, %col : !pto.tile<128x1xf32>, !pto.tile<1x64xf32> -> !pto.tile<128x64xf32>
      // A scalar right operand: the tile's valid shape.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %mul = pto.mul %s, %scale : !pto.tile<128x64xf32>, f32 -> !pto.tile<128x64xf32>
      // Unary ops keep the operand's valid shape.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %e = pto.exp %mul : !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
      // Reductions: keepdim keeps a valid 1, no keepdim drops the dim.
      // expected-remark @+1 {{result #0 valid shape [1, min(c, 64)]}}
      %s0 = pto.sum %e dim = 0 keepdim : !pto.tile<128x64xf32> -> !pto.tile<1x64xf32>
      // expected-remark @+1 {{result #0 valid shape [min(c, 64)]}}
      %s1 = pto.sum %e dim = 0 : !pto.tile<128x64xf32> -> !pto.tile<64xf32>
      // expected-remark @+1 {{result #0 valid shape [min(r, 128)]}}
      %s2 = pto.amax %e dim = 1 : !pto.tile<128x64xf32> -> !pto.tile<128xf32>
      // Cast keeps the operand's valid shape.
      // expected-remark @+1 {{result #0 valid shape [min(r, 128), min(c, 64)]}}
      %h = pto.cast %e {mode = #pto.round_mode<RINT>} : !pto.tile<128x64xf32> -> !pto.tile<128x64xf16>
      // pto.full is fully valid.
      // expected-remark @+1 {{result #0 valid shape [128, 64]}}
      %f = pto.full 0.0 : !pto.tile<128x64xf32>
      // Neither operand broadcasts: the left operand's valid shape.
      // expected-remark @+1 {{result #0 valid shape [128, 64]}}
      %d = pto.div %f, %s {precision = #pto.precision<INTRINSIC>} : !pto.tile<128x64xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
    }
  }
}

//===----------------------------------------------------------------------===//
// pto.scope results, loop-carried tiles
//===----------------------------------------------------------------------===//

// -----

// A scope result has the valid shape of the value it yields.

// CHECK-LABEL: pto.kernel @scope_result(
pto.kernel @scope_result(%x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [min(max(dim(x, 0) - i, 0), 32), 64]}}
    %v = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
    // expected-remark @+2 {{result #0 valid shape [min(max(dim(x, 0) - i, 0), 32), 1]}}
    // expected-remark @+1 {{result #1 valid shape [16, 64]}}
    %s:2 = pto.scope #pto.scope<id = 0> -> (!pto.tile<32x1xf32>, !pto.tile<16x64xf32>) {
      // expected-remark @+1 {{result #0 valid shape [min(max(dim(x, 0) - i, 0), 32), 64]}}
      %e = pto.exp %v : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
      // expected-remark @+1 {{result #0 valid shape [min(max(dim(x, 0) - i, 0), 32), 1]}}
      %r = pto.sum %e dim = 1 keepdim : !pto.tile<32x64xf32> -> !pto.tile<32x1xf32>
      // expected-remark @+1 {{result #0 valid shape [16, 64]}}
      %f = pto.full 2.0 : !pto.tile<16x64xf32>
      pto.yield %r, %f : !pto.tile<32x1xf32>, !pto.tile<16x64xf32>
    }
  }
}

// -----

// A loop-carried tile has no static rule: its valid shape may change from one
// iteration to the next, so it is read at run time with pto.valid_dim, as is
// everything computed from it and the loop's result.

// CHECK-LABEL: pto.kernel @loop_iter_arg(
pto.kernel @loop_iter_arg(%x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{result #0 valid shape [8, 64]}}
  %init = pto.full 0.0 : !pto.tile<8x64xf32>
  // expected-remark @+1 {{result #0 valid shape [valid_dim(pto.loop, 0), valid_dim(pto.loop, 1)]}}
  %r = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pto.tile<8x64xf32>) {
    // expected-remark @+1 {{result #0 valid shape [min(max(dim(x, 0) - i, 0), 8), 64]}}
    %v = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<8x64xf32>
    // expected-remark @+1 {{result #0 valid shape [valid_dim(arg1, 0), valid_dim(arg1, 1)]}}
    %next = pto.add %acc, %v : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.yield %next : !pto.tile<8x64xf32>
  }
  // expected-remark @+1 {{result #0 valid shape [valid_dim(pto.loop, 0), valid_dim(pto.loop, 1)]}}
  %e = pto.exp %r : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
}

// -----

// pto.transpose exchanges the valid extents of the two dims it swaps.

// CHECK-LABEL: pto.kernel @transpose_valid(
pto.kernel @transpose_valid(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<2x?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [min(i, min(max(dim(x, 0) - i, 0), 16)), 48]}}
    %v = pto.view %x[%i, 0] valid [%i, 48] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
    // expected-remark @+1 {{result #0 valid shape [48, min(i, min(max(dim(x, 0) - i, 0), 16))]}}
    %t = pto.transpose %v, 0, 1 : !pto.tile<16x64xf32> -> !pto.tile<64x16xf32>
    // expected-remark @+1 {{result #0 valid shape [2, min(max(dim(y, 1) - i, 0), 8), 64]}}
    %w = pto.view %y[0, %i, 0] : !pto.tensor<2x?x64xf32> -> !pto.tile<2x8x64xf32>
    // expected-remark @+1 {{result #0 valid shape [2, 64, min(max(dim(y, 1) - i, 0), 8)]}}
    %u = pto.transpose %w, 1, 2 : !pto.tile<2x8x64xf32> -> !pto.tile<2x64x8xf32>
  }
}

// -----

// pto.gathermask: the last dim's valid extent is the number of selected
// elements among the valid ones, ceildiv(max(valid - phase, 0), stride).

// CHECK-LABEL: pto.kernel @gathermask_valid(
pto.kernel @gathermask_valid(%x: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [16, 61]}}
    %v = pto.view %x[0, 0] valid [16, 61] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    // expected-remark @+1 {{result #0 valid shape [16, 31]}}
    %even = pto.gathermask %v, pattern = 1 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
    // expected-remark @+1 {{result #0 valid shape [16, 30]}}
    %odd = pto.gathermask %v, pattern = 2 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
    // expected-remark @+1 {{result #0 valid shape [16, 15]}}
    %fourth = pto.gathermask %v, pattern = 6 : !pto.tile<16x64xf32> -> !pto.tile<16x16xf32>
    // expected-remark @+1 {{result #0 valid shape [16, 61]}}
    %all = pto.gathermask %v, pattern = 7 : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    // expected-remark @+1 {{result #0 valid shape [16, min(i, 64)]}}
    %w = pto.view %x[0, 0] valid [16, %i] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    // expected-remark @+1 {{result #0 valid shape [16, ceildiv(max(min(i, 64) - 1, 0), 2)]}}
    %wodd = pto.gathermask %w, pattern = 2 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  }
}

// -----

// pto.topk: both results keep the input's valid extents, the last dim
// clipped to k (a row shorter than k yields only its valid elements).

// CHECK-LABEL: pto.kernel @topk_valid(
pto.kernel @topk_valid(%x: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [16, min(i, 64)]}}
    %w = pto.view %x[0, 0] valid [16, %i] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    // expected-remark @+2 {{result #0 valid shape [16, min(min(i, 64), 8)]}}
    // expected-remark @+1 {{result #1 valid shape [16, min(min(i, 64), 8)]}}
    %v, %ix = pto.topk %w, k = 8 : !pto.tile<16x64xf32> -> !pto.tile<16x8xf32>, !pto.tile<16x8xi32>
  }
}

// -----

// pto.bitcast: the last dim's valid extent scaled by the element sizes,
// rounded down when widening (PyPTO's valid * bytes(in) / bytes(out)).

// CHECK-LABEL: pto.kernel @bitcast_valid(
pto.kernel @bitcast_valid(%x: !pto.tensor<16x64xi8>, %y: !pto.tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-remark @+1 {{result #0 valid shape [16, 61]}}
    %v = pto.view %x[0, 0] valid [16, 61] : !pto.tensor<16x64xi8> -> !pto.tile<16x64xi8>
    // expected-remark @+1 {{result #0 valid shape [16, 15]}}
    %f = pto.bitcast %v : !pto.tile<16x64xi8> -> !pto.tile<16x16xf32>
    // expected-remark @+1 {{result #0 valid shape [16, 60]}}
    %b = pto.bitcast %f : !pto.tile<16x16xf32> -> !pto.tile<16x64xi8>
    // expected-remark @+1 {{result #0 valid shape [16, min(i, 16)]}}
    %w = pto.view %y[0, 0] valid [16, %i] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
    // expected-remark @+1 {{result #0 valid shape [16, min(i, 16)*2]}}
    %h = pto.bitcast %w : !pto.tile<16x16xf32> -> !pto.tile<16x32xbf16>
    // expected-remark @+1 {{result #0 valid shape [16, ceildiv(max(min(i, 16)*2 - 1, 0), 2)]}}
    %g = pto.bitcast %h : !pto.tile<16x32xbf16> -> !pto.tile<16x16xf32>
  }
}
