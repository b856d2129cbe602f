// RUN: pto-opt %s -split-input-file --pto-legalize --pto-legalize -verify-diagnostics -o /dev/null
// RUN: pto-opt %s -split-input-file --pto-legalize | FileCheck %s

// pto-legalize: each form the verifier accepts for PyPTO's sake is rewritten
// as PyPTO does, with one remark. The first run line applies the pass
// twice: the second application finds nothing to do (no second remark).

// bf16 arithmetic on DAV_2201 is computed in f32: operands widened, the
// result rounded back (PyPTO AutoCast). Between two such ops the value stays
// in f32 (the mul reads the add's f32 result; the rounded add result is left
// for other users, here none). A bf16 scalar is widened with arith.extf; the
// vector tile and the scope stamp carry over.
// CHECK-LABEL: pto.kernel @bf16_on_dav2201(
// CHECK:         %[[T:.*]] = pto.view %x
// CHECK-NEXT:    %[[A:.*]] = pto.cast %[[T]] {pto.scope = #pto.scope<id = 1>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xbf16> -> !pto.tile<32x64xf32>
// CHECK-NEXT:    %[[B:.*]] = pto.cast %[[T]] {{.*}} : !pto.tile<32x64xbf16> -> !pto.tile<32x64xf32>
// CHECK-NEXT:    %[[S:.*]] = pto.add %[[A]], %[[B]] {pto.scope = #pto.scope<id = 1>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32>, !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
// CHECK-NEXT:    %[[N:.*]] = pto.cast %[[S]] {{.*}} : !pto.tile<32x64xf32> -> !pto.tile<32x64xbf16>
// CHECK-NEXT:    %[[C:.*]] = arith.extf %cst {{.*}}: bf16 to f32
// CHECK-NEXT:    %[[M:.*]] = pto.mul %[[S]], %[[C]] {{.*}} : !pto.tile<32x64xf32>, f32 -> !pto.tile<32x64xf32>
// CHECK-NEXT:    %[[R:.*]] = pto.cast %[[M]] {{.*}} -> !pto.tile<32x64xbf16>
// CHECK-NEXT:    pto.assemble %[[R]], %y [0, 0]
pto.kernel @bf16_on_dav2201(%x: !pto.tensor<32x64xbf16>, %y: !pto.tensor<32x64xbf16>) {
  %cst = arith.constant 5.000000e-01 : bf16
  %t = pto.view %x[0, 0] : !pto.tensor<32x64xbf16> -> !pto.tile<32x64xbf16>
  // expected-remark @+1 {{pto-legalize: 'pto.add' on bf16 computed in f32 (DAV_2201 has no bf16 vector arithmetic): operands widened with pto.cast, the result rounded back to bf16 (RINT); a chain of such ops stays in f32}}
  %s = pto.add %t, %t {pto.scope = #pto.scope<id = 1>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xbf16>, !pto.tile<32x64xbf16> -> !pto.tile<32x64xbf16>
  // expected-remark @+1 {{pto-legalize: 'pto.mul' on bf16 computed in f32}}
  %m = pto.mul %s, %cst {pto.scope = #pto.scope<id = 1>} : !pto.tile<32x64xbf16>, bf16 -> !pto.tile<32x64xbf16>
  pto.assemble %m, %y[0, 0] : !pto.tile<32x64xbf16>, !pto.tensor<32x64xbf16>
}

// -----

// DAV_3510 has bf16 vector arithmetic: nothing to do.
// CHECK-LABEL: pto.kernel @bf16_on_dav3510(
// CHECK-NOT:     pto.cast
// CHECK:         pto.exp %{{.*}} : !pto.tile<32x64xbf16> -> !pto.tile<32x64xbf16>
pto.kernel @bf16_on_dav3510(%x: !pto.tensor<32x64xbf16>, %y: !pto.tensor<32x64xbf16>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<32x64xbf16> -> !pto.tile<32x64xbf16>
  %e = pto.exp %t : !pto.tile<32x64xbf16> -> !pto.tile<32x64xbf16>
  pto.assemble %e, %y[0, 0] : !pto.tile<32x64xbf16>, !pto.tensor<32x64xbf16>
}

// -----

// HIGH_PRECISION (pto.div's default, or explicit on exp) on DAV_2201: INTRINSIC.
// CHECK-LABEL: func.func @precision_on_dav2201(
// CHECK:         pto.div %{{.*}}, %{{.*}} {precision = #pto.precision<INTRINSIC>}
// CHECK-NOT:     HIGH_PRECISION
// CHECK:         pto.exp %{{.*}} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
func.func @precision_on_dav2201(%a: !pto.tile<64x64xf32>) -> !pto.tile<64x64xf32> {
  // expected-remark @+1 {{pto-legalize: precision HIGH_PRECISION is not available on DAV_2201 (PyPTO's A2/A3 div has a single precision); using INTRINSIC}}
  %d = pto.div %a, %a : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-remark @+1 {{pto-legalize: precision HIGH_PRECISION is not available on DAV_2201}}
  %e = pto.exp %d {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  return %e : !pto.tile<64x64xf32>
}

// -----

// Reduction tiles over 64 KiB: outer dims halved (after clamping to the
// input) until the piece fits; the last dim stays whole.
// CHECK-LABEL: func.func @reduce_retile(
// CHECK:         pto.sum %{{.*}} {vec_tile = #pto.vec_tile<[64, 256]>}
// CHECK:         pto.amax %{{.*}} {vec_tile = #pto.vec_tile<[32, 512]>}
func.func @reduce_retile(%a: !pto.tile<256x256xf32>, %b: !pto.tile<320x320xf32>) -> (!pto.tile<256x1xf32>, !pto.tile<320x1xf32>) {
  // expected-remark @+1 {{pto-legalize: vector tile [128, 256] of '!pto.tile<256x256xf32>' cuts 131072 B pieces, over the 65536 B reduction tile limit; re-tiled to [64, 256] (65536 B), the partial results are combined}}
  %s = pto.sum %a dim = 1 keepdim {vec_tile = #pto.vec_tile<[128, 256]>} : !pto.tile<256x256xf32> -> !pto.tile<256x1xf32>
  // [64, 512] over [320, 320] is [64, 320] f32, 81920 B: 32 rows fit.
  // expected-remark @+1 {{re-tiled to [32, 512] (40960 B)}}
  %m = pto.amax %b dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 512]>} : !pto.tile<320x320xf32> -> !pto.tile<320x1xf32>
  return %s, %m : !pto.tile<256x1xf32>, !pto.tile<320x1xf32>
}

// -----

// A vector tile whose last dim (1 x f32 = 4 B) is unaligned but covers the
// [N, 1] column whole: padded to one 32-byte block.
// CHECK-LABEL: func.func @column_tile(
// CHECK:         pto.rsqrt %{{.*}} {vec_tile = #pto.vec_tile<[2, 8]>}
func.func @column_tile(%a: !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32> {
  // expected-remark @+1 {{pto-legalize: vector tile [2, 1] padded to [2, 8]: its last dim 1 x 4 B is not 32-byte aligned but covers the whole last dim of '!pto.tile<16x1xf32>', whose ub rows are padded to 32 B anyway}}
  %r = pto.rsqrt %a {vec_tile = #pto.vec_tile<[2, 1]>} : !pto.tile<16x1xf32> -> !pto.tile<16x1xf32>
  return %r : !pto.tile<16x1xf32>
}

// -----

// unroll_list on a loop that is not innermost verifies and is kept as it is
// (nothing in the toolchain unrolls; no rewrite, so no remark).
// CHECK-LABEL: pto.kernel @outer_unroll_list(
// CHECK:         pto.loop "outer" %i = {{.*}} attributes {unroll_list = array<i64: 4, 2, 1>}
pto.kernel @outer_unroll_list(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "outer" %i = %c0 to %c4 step %c1 attributes {unroll_list = array<i64: 4, 2, 1>} {
    pto.loop "inner" %j = %c0 to %c4 step %c1 {
    }
  }
}
