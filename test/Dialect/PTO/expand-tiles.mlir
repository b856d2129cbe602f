// RUN: split-file %s %t
// RUN: pto-opt %t/expand.mlir -split-input-file --pto-flatten-scopes --pto-expand-tiles | FileCheck %t/expand.mlir
// RUN: pto-opt %t/scope-left.mlir --pto-expand-tiles -verify-diagnostics -o /dev/null

// pto-expand-tiles: program-level tile ops become hardware-sized pieces;
// every program-level result lives in a pto.workspace, stored piecewise at
// static offsets and read back piecewise, except a matmul result whose only
// use is an assemble (docs/TileGraph.md, "After pto-expand-tiles").

//--- expand.mlir

// A matmul becomes mL0 x nL0 output blocks (n outer, m inner), each a chain
// of kL0 K steps: pto.matmul into an f32 accumulator, then pto.matmul_acc,
// the last step rounding to the out dtype (bf16). Operand pieces are views
// of the GM tensors at composed offsets. A result whose only use is a plain
// assemble in the same block needs no workspace: each output block is
// stored where the assemble puts it, at the assemble's place.

// CHECK-LABEL: pto.kernel @matmul_k_steps(
// CHECK-NEXT:    %[[A0:.*]] = pto.view %a[0, 0] valid [16, 32] : !pto.tensor<32x64xbf16> -> !pto.tile<16x32xbf16>
// CHECK-NEXT:    %[[B0:.*]] = pto.view %b[0, 0] valid [32, 16] : !pto.tensor<64x32xbf16> -> !pto.tile<32x16xbf16>
// CHECK-NEXT:    %[[P0:.*]] = pto.matmul %[[A0]], %[[B0]] {cube_tile = #pto.cube_tile<m = [16, 32], k = [32, 64], n = [16, 32]>} : !pto.tile<16x32xbf16>, !pto.tile<32x16xbf16> -> !pto.tile<16x16xf32>
// CHECK-NEXT:    %[[A1:.*]] = pto.view %a[0, 32] valid [16, 32] : !pto.tensor<32x64xbf16> -> !pto.tile<16x32xbf16>
// CHECK-NEXT:    %[[B1:.*]] = pto.view %b[32, 0] valid [32, 16] : !pto.tensor<64x32xbf16> -> !pto.tile<32x16xbf16>
// CHECK-NEXT:    %[[P1:.*]] = pto.matmul_acc %[[P0]], %[[A1]], %[[B1]] {cube_tile = #pto.cube_tile<m = [16, 32], k = [32, 64], n = [16, 32]>} : !pto.tile<16x16xf32>, !pto.tile<16x32xbf16>, !pto.tile<32x16xbf16> -> !pto.tile<16x16xbf16>
// CHECK-NEXT:    pto.view %a[16, 0]
// CHECK-NEXT:    pto.view %b[0, 0]
// CHECK-NEXT:    %[[Q0:.*]] = pto.matmul {{.*}} -> !pto.tile<16x16xf32>
// CHECK-NEXT:    pto.view %a[16, 32]
// CHECK-NEXT:    pto.view %b[32, 0]
// CHECK-NEXT:    %[[Q1:.*]] = pto.matmul_acc %[[Q0]], {{.*}} -> !pto.tile<16x16xbf16>
// CHECK-NEXT:    pto.view %a[0, 0]
// CHECK-NEXT:    pto.view %b[0, 16]
// CHECK-NEXT:    pto.matmul
// CHECK-NEXT:    pto.view %a[0, 32]
// CHECK-NEXT:    pto.view %b[32, 16]
// CHECK-NEXT:    %[[R1:.*]] = pto.matmul_acc
// CHECK-COUNT-2: pto.view
// CHECK-NEXT:    pto.matmul
// CHECK-COUNT-2: pto.view
// CHECK-NEXT:    %[[S1:.*]] = pto.matmul_acc
// CHECK-NEXT:    pto.assemble %[[P1]], %out [0, 0] : !pto.tile<16x16xbf16>, !pto.tensor<32x32xbf16>
// CHECK-NEXT:    pto.assemble %[[Q1]], %out [16, 0]
// CHECK-NEXT:    pto.assemble %[[R1]], %out [0, 16]
// CHECK-NEXT:    pto.assemble %[[S1]], %out [16, 16]
// CHECK-NEXT:  }
// CHECK-NOT:   pto.workspace
pto.kernel @matmul_k_steps(%a: !pto.tensor<32x64xbf16>, %b: !pto.tensor<64x32xbf16>, %out: !pto.tensor<32x32xbf16>) {
  %ta = pto.view %a[0, 0] : !pto.tensor<32x64xbf16> -> !pto.tile<32x64xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<64x32xbf16>
  %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 32], k = [32, 64], n = [16, 32]>}
      : !pto.tile<32x64xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<32x32xbf16>
  pto.assemble %c, %out[0, 0] : !pto.tile<32x32xbf16>, !pto.tensor<32x32xbf16>
}

// -----

// A result with another use (here a second assemble) lives in a workspace: the output blocks are stored there, and each
// assemble reads it back.

// CHECK-LABEL: pto.kernel @matmul_two_uses(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<32x32xbf16>
// CHECK:         pto.assemble %{{.*}}, %[[WS]] [0, 0] : !pto.tile<16x16xbf16>, !pto.tensor<32x32xbf16>
// CHECK:         pto.assemble %{{.*}}, %[[WS]] [16, 16]
// CHECK-NEXT:    %[[W:.*]] = pto.view %[[WS]][0, 0] valid [32, 32] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
// CHECK-NEXT:    pto.assemble %[[W]], %out [0, 0] : !pto.tile<32x32xbf16>, !pto.tensor<64x32xbf16>
// CHECK-NEXT:    %[[W2:.*]] = pto.view %[[WS]][0, 0] valid [32, 32]
// CHECK-NEXT:    pto.assemble %[[W2]], %out [32, 0] : !pto.tile<32x32xbf16>, !pto.tensor<64x32xbf16>
// CHECK-NEXT:  }
pto.kernel @matmul_two_uses(%a: !pto.tensor<32x64xbf16>, %b: !pto.tensor<64x32xbf16>, %out: !pto.tensor<64x32xbf16>) {
  %ta = pto.view %a[0, 0] : !pto.tensor<32x64xbf16> -> !pto.tile<32x64xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<64x32xbf16>
  %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 32], k = [32, 64], n = [16, 32]>}
      : !pto.tile<32x64xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<32x32xbf16>
  pto.assemble %c, %out[0, 0] : !pto.tile<32x32xbf16>, !pto.tensor<64x32xbf16>
  pto.assemble %c, %out[32, 0] : !pto.tile<32x32xbf16>, !pto.tensor<64x32xbf16>
}

// -----

// a_trans reads A ([K, M]) pieces at [k, m], b_trans reads B ([N, K]) pieces
// at [n, k]; with an f32 out dtype the last K step stays f32.

// CHECK-LABEL: pto.kernel @matmul_trans(
// CHECK-NEXT:    %[[A0:.*]] = pto.view %a[0, 0] valid [32, 16] : !pto.tensor<64x32xbf16> -> !pto.tile<32x16xbf16>
// CHECK-NEXT:    %[[B0:.*]] = pto.view %b[0, 0] valid [16, 32] : !pto.tensor<16x64xbf16> -> !pto.tile<16x32xbf16>
// CHECK-NEXT:    %[[P0:.*]] = pto.matmul %[[A0]], %[[B0]] {a_trans, b_trans, {{.*}}} : !pto.tile<32x16xbf16>, !pto.tile<16x32xbf16> -> !pto.tile<16x16xf32>
// CHECK-NEXT:    %[[A1:.*]] = pto.view %a[32, 0] valid [32, 16]
// CHECK-NEXT:    %[[B1:.*]] = pto.view %b[0, 32] valid [16, 32]
// CHECK-NEXT:    %[[P1:.*]] = pto.matmul_acc %[[P0]], %[[A1]], %[[B1]] {a_trans, b_trans, {{.*}}} : !pto.tile<16x16xf32>, !pto.tile<32x16xbf16>, !pto.tile<16x32xbf16> -> !pto.tile<16x16xf32>
// CHECK-NEXT:    pto.view %a[0, 16] valid [32, 16]
// CHECK-NEXT:    pto.view %b[0, 0] valid [16, 32]
// CHECK-NEXT:    pto.matmul
// CHECK-NEXT:    pto.view %a[32, 16] valid [32, 16]
// CHECK-NEXT:    pto.view %b[0, 32] valid [16, 32]
// CHECK-NEXT:    %[[Q1:.*]] = pto.matmul_acc
// CHECK-NEXT:    pto.assemble %[[P1]], %out [0, 0]
// CHECK-NEXT:    pto.assemble %[[Q1]], %out [16, 0]
pto.kernel @matmul_trans(%a: !pto.tensor<64x32xbf16>, %b: !pto.tensor<16x64xbf16>, %out: !pto.tensor<32x16xf32>) {
  %ta = pto.view %a[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<64x32xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<16x64xbf16> -> !pto.tile<16x64xbf16>
  %c = pto.matmul %ta, %tb {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [16, 32], k = [32, 64], n = [16, 16]>}
      : !pto.tile<64x32xbf16>, !pto.tile<16x64xbf16> -> !pto.tile<32x16xf32>
  pto.assemble %c, %out[0, 0] : !pto.tile<32x16xf32>, !pto.tensor<32x16xf32>
}

// -----

// An elementwise op by its vec_tile: 40 rows with a 16-row tile give pieces
// of 16, 16 and 8 rows (a static tail). The scope stamp is copied onto every
// piece and store, and the op's attributes are kept. The store of the result
// follows the pieces it was computed in.

// CHECK-LABEL: pto.kernel @static_tail(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<40x64xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [16, 64] : !pto.tensor<40x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[E0:.*]] = pto.exp %[[X0]] {pto.scope = #pto.scope<id = 2>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    pto.assemble %[[E0]], %[[WS]] [0, 0] {pto.scope = #pto.scope<id = 2>} : !pto.tile<16x64xf32>, !pto.tensor<40x64xf32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[16, 0] valid [16, 64] : !pto.tensor<40x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[E1:.*]] = pto.exp %[[X1]] {{.*}} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    pto.assemble %[[E1]], %[[WS]] [16, 0] {pto.scope = #pto.scope<id = 2>}
// CHECK-NEXT:    %[[X2:.*]] = pto.view %x[32, 0] valid [8, 64] : !pto.tensor<40x64xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    %[[E2:.*]] = pto.exp %[[X2]] {{.*}} : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    pto.assemble %[[E2]], %[[WS]] [32, 0] {pto.scope = #pto.scope<id = 2>}
// CHECK-NEXT:    %[[R0:.*]] = pto.view %[[WS]][0, 0] valid [16, 64] {pto.scope = #pto.scope<id = 2>} : !pto.tensor<40x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    pto.assemble %[[R0]], %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<40x64xf32>
// CHECK-NEXT:    %[[R1:.*]] = pto.view %[[WS]][16, 0] valid [16, 64]
// CHECK-NEXT:    pto.assemble %[[R1]], %out [16, 0]
// CHECK-NEXT:    %[[R2:.*]] = pto.view %[[WS]][32, 0] valid [8, 64] {{.*}} -> !pto.tile<8x64xf32>
// CHECK-NEXT:    pto.assemble %[[R2]], %out [32, 0] : !pto.tile<8x64xf32>, !pto.tensor<40x64xf32>
// CHECK-NEXT:  }
pto.kernel @static_tail(%x: !pto.tensor<40x64xf32>, %out: !pto.tensor<40x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<40x64xf32> -> !pto.tile<40x64xf32>
  %e = pto.scope #pto.scope<id = 2> -> (!pto.tile<40x64xf32>) {
    %0 = pto.exp %t {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<40x64xf32> -> !pto.tile<40x64xf32>
    pto.yield %0 : !pto.tile<40x64xf32>
  }
  pto.assemble %e, %out[0, 0] : !pto.tile<40x64xf32>, !pto.tensor<40x64xf32>
}

// -----

// A [M, 1] operand broadcasts: each [h, w] piece reads its [h, 1] rows at
// column 0. A scalar operand is passed through unchanged.

// CHECK-LABEL: pto.kernel @broadcast_and_scalar(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<32x64xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [16, 32] : !pto.tensor<32x64xf32> -> !pto.tile<16x32xf32>
// CHECK-NEXT:    %[[M0:.*]] = pto.view %m[0, 0] valid [16, 1] : !pto.tensor<32x1xf32> -> !pto.tile<16x1xf32>
// CHECK-NEXT:    pto.sub %[[X0]], %[[M0]] {{.*}} : !pto.tile<16x32xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x32xf32>
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[0, 32] valid [16, 32]
// CHECK-NEXT:    %[[M1:.*]] = pto.view %m[0, 0] valid [16, 1]
// CHECK-NEXT:    pto.sub %[[X1]], %[[M1]]
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [0, 32]
// CHECK-NEXT:    %[[X2:.*]] = pto.view %x[16, 0] valid [16, 32]
// CHECK-NEXT:    %[[M2:.*]] = pto.view %m[16, 0] valid [16, 1]
// CHECK-NEXT:    pto.sub %[[X2]], %[[M2]]
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [16, 0]
// CHECK-NEXT:    %[[X3:.*]] = pto.view %x[16, 32] valid [16, 32]
// CHECK-NEXT:    %[[M3:.*]] = pto.view %m[16, 0] valid [16, 1]
// CHECK-NEXT:    pto.sub %[[X3]], %[[M3]]
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [16, 32]
// CHECK-NEXT:    %[[WS2:.*]] = pto.workspace : !pto.tensor<32x64xf32>
// CHECK-NEXT:    %[[S0:.*]] = pto.view %[[WS]][0, 0] valid [16, 32] : !pto.tensor<32x64xf32> -> !pto.tile<16x32xf32>
// CHECK-NEXT:    %[[P0:.*]] = pto.mul %[[S0]], %[[CST:.*]] {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
// CHECK-NEXT:    pto.assemble %[[P0]], %[[WS2]] [0, 0]
// CHECK-NEXT:    %[[S1:.*]] = pto.view %[[WS]][0, 32] valid [16, 32]
// CHECK-NEXT:    pto.mul %[[S1]], %[[CST]] {{.*}} : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
pto.kernel @broadcast_and_scalar(%x: !pto.tensor<32x64xf32>, %m: !pto.tensor<32x1xf32>, %out: !pto.tensor<32x64xf32>) {
  %cst = arith.constant 5.000000e-01 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<32x64xf32> -> !pto.tile<32x64xf32>
  %tm = pto.view %m[0, 0] : !pto.tensor<32x1xf32> -> !pto.tile<32x1xf32>
  %s = pto.sub %t, %tm {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<32x64xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x64xf32>
  %p = pto.mul %s, %cst {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<32x64xf32>, f32 -> !pto.tile<32x64xf32>
  pto.assemble %p, %out[0, 0] : !pto.tile<32x64xf32>, !pto.tensor<32x64xf32>
}

// -----

// A reduction whose vec tile splits the reduced dim: one partial result per
// piece, combined in piece order by pto.add (sum) or pto.max (amax); pieces
// sharing their other offsets combine. keepdim keeps the dim as size 1.

// CHECK-LABEL: pto.kernel @reductions(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x1xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [16, 64] : !pto.tensor<16x128xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[S0:.*]] = pto.sum %[[X0]] dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[0, 64] valid [16, 64] : !pto.tensor<16x128xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[S1:.*]] = pto.sum %[[X1]] dim = 1 keepdim {{.*}} -> !pto.tile<16x1xf32>
// CHECK-NEXT:    %[[S:.*]] = pto.add %[[S0]], %[[S1]] : !pto.tile<16x1xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x1xf32>
// CHECK-NEXT:    pto.assemble %[[S]], %[[WS]] [0, 0] : !pto.tile<16x1xf32>, !pto.tensor<16x1xf32>
// CHECK:         %[[WS2:.*]] = pto.workspace : !pto.tensor<16xf32>
// CHECK-NEXT:    %[[Y0:.*]] = pto.view %x[0, 0] valid [8, 64] : !pto.tensor<16x128xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    %[[M0:.*]] = pto.amax %[[Y0]] dim = 1 {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32> -> !pto.tile<8xf32>
// CHECK-NEXT:    %[[Y1:.*]] = pto.view %x[0, 64] valid [8, 64]
// CHECK-NEXT:    %[[M1:.*]] = pto.amax %[[Y1]] dim = 1
// CHECK-NEXT:    %[[M:.*]] = pto.max %[[M0]], %[[M1]] : !pto.tile<8xf32>, !pto.tile<8xf32> -> !pto.tile<8xf32>
// CHECK-NEXT:    %[[Y2:.*]] = pto.view %x[8, 0] valid [8, 64]
// CHECK-NEXT:    %[[M2:.*]] = pto.amax %[[Y2]] dim = 1
// CHECK-NEXT:    %[[Y3:.*]] = pto.view %x[8, 64] valid [8, 64]
// CHECK-NEXT:    %[[M3:.*]] = pto.amax %[[Y3]] dim = 1
// CHECK-NEXT:    %[[MM:.*]] = pto.max %[[M2]], %[[M3]]
// CHECK-NEXT:    pto.assemble %[[M]], %[[WS2]] [0] : !pto.tile<8xf32>, !pto.tensor<16xf32>
// CHECK-NEXT:    pto.assemble %[[MM]], %[[WS2]] [8] : !pto.tile<8xf32>, !pto.tensor<16xf32>
pto.kernel @reductions(%x: !pto.tensor<16x128xf32>, %o1: !pto.tensor<16x1xf32>, %o2: !pto.tensor<16xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x128xf32> -> !pto.tile<16x128xf32>
  %s = pto.sum %t dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x128xf32> -> !pto.tile<16x1xf32>
  pto.assemble %s, %o1[0, 0] : !pto.tile<16x1xf32>, !pto.tensor<16x1xf32>
  %m = pto.amax %t dim = 1 {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x128xf32> -> !pto.tile<16xf32>
  pto.assemble %m, %o2[0] : !pto.tile<16xf32>, !pto.tensor<16xf32>
}

// -----

// A transpose by its vec_tile over the input: each [8, 48] input piece is
// transposed on its own and stored at the swapped offsets.

// CHECK-LABEL: pto.kernel @transpose_pieces(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<48x16xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [8, 48] : !pto.tensor<16x48xf32> -> !pto.tile<8x48xf32>
// CHECK-NEXT:    %[[T0:.*]] = pto.transpose %[[X0]], 0, 1 {vec_tile = #pto.vec_tile<[8, 48]>} : !pto.tile<8x48xf32> -> !pto.tile<48x8xf32>
// CHECK-NEXT:    pto.assemble %[[T0]], %[[WS]] [0, 0] : !pto.tile<48x8xf32>, !pto.tensor<48x16xf32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[8, 0] valid [8, 48] : !pto.tensor<16x48xf32> -> !pto.tile<8x48xf32>
// CHECK-NEXT:    %[[T1:.*]] = pto.transpose %[[X1]], 0, 1 {{.*}} -> !pto.tile<48x8xf32>
// CHECK-NEXT:    pto.assemble %[[T1]], %[[WS]] [0, 8] : !pto.tile<48x8xf32>, !pto.tensor<48x16xf32>
pto.kernel @transpose_pieces(%x: !pto.tensor<16x48xf32>, %o: !pto.tensor<48x16xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x48xf32> -> !pto.tile<16x48xf32>
  %r = pto.transpose %t, 0, 1 {vec_tile = #pto.vec_tile<[8, 48]>} : !pto.tile<16x48xf32> -> !pto.tile<48x16xf32>
  pto.assemble %r, %o[0, 0] : !pto.tile<48x16xf32>, !pto.tensor<48x16xf32>
}

// -----

// A gathermask by its vec_tile over the input: each [8, 32] input piece
// gathers on its own; its result lands at the last-dim offset / 2.

// CHECK-LABEL: pto.kernel @gathermask_pieces(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [8, 32] : !pto.tensor<16x64xf32> -> !pto.tile<8x32xf32>
// CHECK-NEXT:    %[[G0:.*]] = pto.gathermask %[[X0]], pattern = 2 {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32> -> !pto.tile<8x16xf32>
// CHECK-NEXT:    pto.assemble %[[G0]], %[[WS]] [0, 0] : !pto.tile<8x16xf32>, !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[0, 32] valid [8, 32] : !pto.tensor<16x64xf32> -> !pto.tile<8x32xf32>
// CHECK-NEXT:    %[[G1:.*]] = pto.gathermask %[[X1]], pattern = 2 {{.*}} -> !pto.tile<8x16xf32>
// CHECK-NEXT:    pto.assemble %[[G1]], %[[WS]] [0, 16] : !pto.tile<8x16xf32>, !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[X2:.*]] = pto.view %x[8, 0] valid [8, 32]
// CHECK-NEXT:    %[[G2:.*]] = pto.gathermask %[[X2]]
// CHECK-NEXT:    pto.assemble %[[G2]], %[[WS]] [8, 0]
pto.kernel @gathermask_pieces(%x: !pto.tensor<16x64xf32>, %o: !pto.tensor<16x32xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %r = pto.gathermask %t, pattern = 2 {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  pto.assemble %r, %o[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
}

// -----

// pto.full by its vec_tile, with a static tail.

// CHECK-LABEL: pto.kernel @full(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<24x64xf32>
// CHECK-NEXT:    %[[F0:.*]] = pto.full 1.000000e+00 {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>
// CHECK-NEXT:    pto.assemble %[[F0]], %[[WS]] [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<24x64xf32>
// CHECK-NEXT:    %[[F1:.*]] = pto.full 1.000000e+00 {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<8x64xf32>
// CHECK-NEXT:    pto.assemble %[[F1]], %[[WS]] [16, 0] : !pto.tile<8x64xf32>, !pto.tensor<24x64xf32>
pto.kernel @full(%out: !pto.tensor<24x64xf32>) {
  %f = pto.full 1.0 {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<24x64xf32>
  pto.assemble %f, %out[0, 0] : !pto.tile<24x64xf32>, !pto.tensor<24x64xf32>
}

// -----

// pto.arange by its 1-D vec_tile: each piece starts at start + offset * step.

// CHECK-LABEL: pto.kernel @arange(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<20xi32>
// CHECK-NEXT:    %[[A0:.*]] = pto.arange 3.000000e+00, 2.000000e+00 {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<8xi32>
// CHECK-NEXT:    pto.assemble %[[A0]], %[[WS]] [0] : !pto.tile<8xi32>, !pto.tensor<20xi32>
// CHECK-NEXT:    %[[A1:.*]] = pto.arange 1.900000e+01, 2.000000e+00 {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<8xi32>
// CHECK-NEXT:    pto.assemble %[[A1]], %[[WS]] [8] : !pto.tile<8xi32>, !pto.tensor<20xi32>
// CHECK-NEXT:    %[[A2:.*]] = pto.arange 3.500000e+01, 2.000000e+00 {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<4xi32>
// CHECK-NEXT:    pto.assemble %[[A2]], %[[WS]] [16] : !pto.tile<4xi32>, !pto.tensor<20xi32>
pto.kernel @arange(%out: !pto.tensor<20xi32>) {
  %a = pto.arange 3.0, 2.0 {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<20xi32>
  pto.assemble %a, %out[0] : !pto.tile<20xi32>, !pto.tensor<20xi32>
}

// -----

// An atomic_add of a view is split by its vec_tile: each piece is one view of
// the GM tensor (the piece offset added to the view's dynamic offset, the
// explicit valid extent max(valid - offset, 0)) and one atomic_add at the
// store's dynamic base offset plus the piece offset: the same sum as the
// view's, built once.

// CHECK-LABEL: pto.kernel @atomic_add_pieces(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         pto.loop "L" %i
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %i, %{{.*}} : index
// CHECK:           %[[VALID:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[P0:.*]] = pto.view %x[%[[OFF]], 0] valid [%[[VALID]], 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:      pto.atomic_add %[[P0]], %out [%[[OFF]], 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
// CHECK-NEXT:      %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[OFF1:.*]] = arith.addi %[[OFF]], %[[C16]] : index
// CHECK-NEXT:      %[[REST:.*]] = arith.subi %[[VALID]], %[[C16]] : index
// CHECK-NEXT:      %[[VALID1:.*]] = arith.maxsi %[[REST]], %[[ZERO]] : index
// CHECK-NEXT:      %[[P1:.*]] = pto.view %x[%[[OFF1]], 0] valid [%[[VALID1]], 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:      pto.atomic_add %[[P1]], %out [%[[OFF1]], 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
// CHECK-NEXT:    }
pto.kernel @atomic_add_pieces(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  pto.loop "L" %i = %c0 to %c2 step %c1 {
    %off = arith.muli %i, %c32 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
    pto.atomic_add %t, %out[%off, 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// Dynamic valid extents flow through the workspace: the consumer of an
// expanded result reads each piece with the explicit valid extent
// max(valid - offset, 0) of the reified valid shape, the same value as the
// producer's piece of that offset, built once.

// CHECK-LABEL: pto.kernel @dynamic_valid(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<32x64xf32>
// CHECK-NEXT:    pto.view %x[0, 0] valid [%[[VALID:.*]], 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %[[VALID]], %[[C16]] : index
// CHECK-NEXT:    %[[VALID1:.*]] = arith.maxsi %[[REST]], %[[ZERO]] : index
// CHECK-NEXT:    pto.view %x[16, 0] valid [%[[VALID1]], 64]
// CHECK:         %[[WS2:.*]] = pto.workspace : !pto.tensor<32x64xf32>
// CHECK-NEXT:    %[[R0:.*]] = pto.view %[[WS]][0, 0] valid [%[[VALID]], 64] : !pto.tensor<32x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[N0:.*]] = pto.neg %[[R0]]
// CHECK-NEXT:    pto.assemble %[[N0]], %[[WS2]] [0, 0]
// CHECK-NEXT:    %[[R1:.*]] = pto.view %[[WS]][16, 0] valid [%[[VALID1]], 64] : !pto.tensor<32x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[N1:.*]] = pto.neg %[[R1]]
// CHECK-NEXT:    pto.assemble %[[N1]], %[[WS2]] [16, 0]
pto.kernel @dynamic_valid(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>) {
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %t = pto.view %x[0, 0] valid [%n, 64] : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
  %e = pto.exp %t {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
  %g = pto.neg %e {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
  pto.assemble %g, %out[0, 0] : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
}

// -----

// A loop-carried tile has no view to compose with: its pieces are views of
// the tile without explicit valid extents, and the valid shape of the result
// comes from pto.valid_dim. The loop yields a full-window view of the
// result's workspace.

// CHECK-LABEL: pto.kernel @loop_carried(
// CHECK:         pto.loop "L" %i = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!pto.tile<32x64xf32>) {
// CHECK-NEXT:      %[[V0:.*]] = pto.valid_dim %[[ACC]], 0 : !pto.tile<32x64xf32>
// CHECK-NEXT:      %[[V1:.*]] = pto.valid_dim %[[ACC]], 1 : !pto.tile<32x64xf32>
// CHECK-NEXT:      %[[WS:.*]] = pto.workspace : !pto.tensor<32x64xf32>
// CHECK-NEXT:      %[[A0:.*]] = pto.view %[[ACC]][0, 0] : !pto.tile<32x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:      %[[E0:.*]] = pto.exp %[[A0]]
// CHECK-NEXT:      pto.assemble %[[E0]], %[[WS]] [0, 0]
// CHECK-NEXT:      %[[A1:.*]] = pto.view %[[ACC]][16, 0] : !pto.tile<32x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:      %[[E1:.*]] = pto.exp %[[A1]]
// CHECK-NEXT:      pto.assemble %[[E1]], %[[WS]] [16, 0]
// CHECK-NEXT:      %[[W:.*]] = pto.view %[[WS]][0, 0] valid [%[[V0]], %[[V1]]] : !pto.tensor<32x64xf32> -> !pto.tile<32x64xf32>
// CHECK-NEXT:      pto.yield %[[W]] : !pto.tile<32x64xf32>
pto.kernel @loop_carried(%x: !pto.tensor<64x64xf32>, %out: !pto.tensor<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %init = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
  %r = pto.loop "L" %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (!pto.tile<32x64xf32>) {
    %next = pto.exp %acc {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
    pto.yield %next : !pto.tile<32x64xf32>
  }
  pto.assemble %r, %out[0, 0] : !pto.tile<32x64xf32>, !pto.tensor<32x64xf32>
}

// -----

// UB re-tiling: the vec tile [256, 256] clamps to [256, 128] f32, whose
// working set (128 KiB in + 128 KiB out) exceeds the 192 KiB of UB on
// DAV_2201; the tile is halved along its outermost dim to [128, 128].

// CHECK-LABEL: pto.kernel @retile_to_ub(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<256x128xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [128, 128] : !pto.tensor<256x128xf32> -> !pto.tile<128x128xf32>
// CHECK-NEXT:    pto.exp %[[X0]] {vec_tile = #pto.vec_tile<[256, 256]>} : !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [0, 0] : !pto.tile<128x128xf32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[128, 0] valid [128, 128] : !pto.tensor<256x128xf32> -> !pto.tile<128x128xf32>
// CHECK-NEXT:    pto.exp %[[X1]] {{.*}} : !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [128, 0] : !pto.tile<128x128xf32>
// CHECK-NOT:     pto.exp
pto.kernel @retile_to_ub(%x: !pto.tensor<256x128xf32>, %out: !pto.tensor<256x128xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<256x128xf32> -> !pto.tile<256x128xf32>
  %e = pto.exp %t {vec_tile = #pto.vec_tile<[256, 256]>} : !pto.tile<256x128xf32> -> !pto.tile<256x128xf32>
  pto.assemble %e, %out[0, 0] : !pto.tile<256x128xf32>, !pto.tensor<256x128xf32>
}

// -----

// A program-level view of a kernel tensor at a dynamic offset with a dynamic
// valid extent: its pieces clamp their extents to the tensor, so the view's
// own offsets and extents are checked where it stood (pto.check_view, the
// rule pto-run applies to the view). A view inside the tensor statically
// (the tests above) gets none.

// CHECK-LABEL: pto.kernel @dynamic_view_checked(
// CHECK-SAME:      %[[X:.*]]: !pto.tensor<?x64xf32>, %{{.*}}: !pto.tensor<?x64xf32>, %[[RT:.*]]: !pto.tensor<2xi32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[ROW:.*]] = pto.read %[[RT]]
// CHECK-NEXT:    %[[ROWS:.*]] = pto.read %[[RT]]
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    pto.check_view %[[X]][%[[ROW]], %[[C0]]] valid [%[[ROWS]], %[[C64]]] : !pto.tensor<?x64xf32>
// CHECK-COUNT-2: pto.view %[[X]]
// CHECK-NOT:     pto.check_view
pto.kernel @dynamic_view_checked(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>, %rt: !pto.tensor<2xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row = pto.read %rt[%c0] : !pto.tensor<2xi32>
  %rows = pto.read %rt[%c1] : !pto.tensor<2xi32>
  %t = pto.view %x[%row, 0] valid [%rows, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
  %e = pto.exp %t {vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  pto.assemble %e, %out[%row, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
}

// -----

// A matmul result seen through a view that narrows its valid columns (IFA's
// `pypto.view(sij, ..., valid_shape=[g, actual_s2])`), in [6, 64] vector
// pieces: each piece is one view of the result's workspace at its own
// window, its valid columns min(n, 64) clamped as the view rule says, and
// not a piece of a load of the whole [12, 64] tile. The view of the tile is
// left dead (pto-partition drops it), so its own rule is checked where it
// stood: its explicit extents against the matmul result's valid region
// (pto.check_tile_view, what pto-run checks at the view).
// CHECK-LABEL: pto.kernel @view_of_matmul_result(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<12x64xf32>
// CHECK:         pto.assemble {{.*}}, %[[WS]] [0, 0]
// CHECK:         %[[N:.*]] = pto.dim %len, 0
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C12:.*]] = arith.constant 12 : index
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    pto.check_tile_view [%[[C0]], %[[C0]]] valid [%[[C12]], %[[N]]] of [%[[C12]], %[[C64]]]
// CHECK-NEXT:    %[[V:.*]] = arith.minsi %[[N]], %[[C64]]
// CHECK-NEXT:    pto.view {{.*}} valid [12, %[[N]]] : !pto.tile<12x64xf32> -> !pto.tile<12x64xf32>
// CHECK-NEXT:    pto.workspace
// CHECK-NEXT:    %[[P0:.*]] = pto.view %[[WS]][0, 0] valid [6, %[[V]]] : !pto.tensor<12x64xf32> -> !pto.tile<6x64xf32>
// CHECK-NEXT:    pto.mul %[[P0]]
// CHECK-NEXT:    pto.assemble
// CHECK-NEXT:    %[[P1:.*]] = pto.view %[[WS]][6, 0] valid [6, %[[V]]] : !pto.tensor<12x64xf32> -> !pto.tile<6x64xf32>
// CHECK-NEXT:    pto.mul %[[P1]]
pto.kernel @view_of_matmul_result(%q: !pto.tensor<12x32xbf16>, %k: !pto.tensor<64x32xbf16>,
                                  %len: !pto.tensor<?xi32>, %p: !pto.tensor<12x64xf32>) {
  %scale = arith.constant 5.000000e-01 : f32
  %tq = pto.view %q[0, 0] : !pto.tensor<12x32xbf16> -> !pto.tile<12x32xbf16>
  %tk = pto.view %k[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<64x32xbf16>
  %s = pto.matmul %tq, %tk {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [64, 64]>}
      : !pto.tile<12x32xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<12x64xf32>
  %n = pto.dim %len, 0 : !pto.tensor<?xi32>
  %v = pto.view %s[0, 0] valid [12, %n] : !pto.tile<12x64xf32> -> !pto.tile<12x64xf32>
  %m = pto.mul %v, %scale {vec_tile = #pto.vec_tile<[6, 64]>} : !pto.tile<12x64xf32>, f32 -> !pto.tile<12x64xf32>
  pto.assemble %m, %p[0, 0] : !pto.tile<12x64xf32>, !pto.tensor<12x64xf32>
}

// -----

// Constants are kept once where they dominate: the second loop's pieces get
// their own 16 (the first loop's is not visible there), both reuse the
// kernel's 0.
// CHECK-LABEL: pto.kernel @constants_per_scope(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         pto.loop "A"
// CHECK:           %[[C16A:.*]] = arith.constant 16 : index
// CHECK-NOT:       arith.constant
// CHECK:           arith.maxsi %{{.*}}, %[[ZERO]] : index
// CHECK:         pto.loop "B"
// CHECK:           %[[C16B:.*]] = arith.constant 16 : index
// CHECK-NOT:       arith.constant
// CHECK:           arith.maxsi %{{.*}}, %[[ZERO]] : index
pto.kernel @constants_per_scope(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  pto.loop "A" %i = %c0 to %c2 step %c1 {
    %off = arith.muli %i, %c32 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
    pto.atomic_add %t, %out[%off, 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  }
  pto.loop "B" %j = %c0 to %c2 step %c1 {
    %off = arith.muli %j, %c32 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<?x64xf32> -> !pto.tile<32x64xf32>
    pto.atomic_add %t, %out[%off, 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// Views of a tile whose valid rows are known at run time only (a view of a
// tensor at a run-time offset): a static window inside the tile's shape may
// still pass its valid region, so it is checked against the reified extents.
// A view inside the valid region statically, or without explicit extents at
// offsets >= 0 (the view rule clamps), needs no check.
// CHECK-LABEL: pto.kernel @view_of_dynamic_tile(
// CHECK:         pto.dim %x, 0
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROW:.*]] = pto.read
// CHECK-NEXT:    pto.check_view
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %{{.*}}, %[[ROW]]
// CHECK-NEXT:    %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO]]
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROWS:.*]] = arith.minsi %[[POS]], %[[C16]]
// CHECK:         %[[T:.*]] = pto.view %x[%[[ROW]], 0]
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    pto.check_tile_view [%[[C8]], %[[ZERO]]] valid [%[[C8]], %[[C64]]] of [%[[ROWS]], %[[C64]]]
// CHECK-NOT:     pto.check_tile_view
pto.kernel @view_of_dynamic_tile(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<16x64xf32>, %rt: !pto.tensor<1xi32>) {
  %c0 = arith.constant 0 : index
  %row = pto.read %rt[%c0] : !pto.tensor<1xi32>
  %t = pto.view %x[%row, 0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %hi = pto.view %t[8, 0] valid [8, 64] : !pto.tile<16x64xf32> -> !pto.tile<8x64xf32>
  %lo = pto.view %t[0, 0] valid [0, 64] : !pto.tile<16x64xf32> -> !pto.tile<8x64xf32>
  %mid = pto.view %t[4, 0] : !pto.tile<16x64xf32> -> !pto.tile<8x64xf32>
  %s = pto.add %hi, %lo {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  %e = pto.add %s, %mid {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %e, %out[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<16x64xf32>
}

//--- scope-left.mlir

// pto-expand-tiles needs scopes as stamps.

pto.kernel @scope_left(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  // expected-error @+1 {{pto-expand-tiles expects scopes as stamps: run pto-flatten-scopes first}}
  %e = pto.scope #pto.scope<id = 0> -> (!pto.tile<16x64xf32>) {
    %0 = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.yield %0 : !pto.tile<16x64xf32>
  }
  pto.assemble %e, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// A bitcast by its vec_tile over the input: each [8, 8] f32 piece is read as
// its [8, 32] bytes on its own and lands at its column offset x 4.

// CHECK-LABEL: pto.kernel @bitcast_pieces(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x64xi8>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [8, 8] : !pto.tensor<16x16xf32> -> !pto.tile<8x8xf32>
// CHECK-NEXT:    %[[B0:.*]] = pto.bitcast %[[X0]] {vec_tile = #pto.vec_tile<[8, 8]>} : !pto.tile<8x8xf32> -> !pto.tile<8x32xi8>
// CHECK-NEXT:    pto.assemble %[[B0]], %[[WS]] [0, 0] : !pto.tile<8x32xi8>, !pto.tensor<16x64xi8>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[0, 8] valid [8, 8] : !pto.tensor<16x16xf32> -> !pto.tile<8x8xf32>
// CHECK-NEXT:    %[[B1:.*]] = pto.bitcast %[[X1]] {{.*}} -> !pto.tile<8x32xi8>
// CHECK-NEXT:    pto.assemble %[[B1]], %[[WS]] [0, 32] : !pto.tile<8x32xi8>, !pto.tensor<16x64xi8>
// CHECK-NEXT:    %[[X2:.*]] = pto.view %x[8, 0] valid [8, 8]
// CHECK-NEXT:    %[[B2:.*]] = pto.bitcast %[[X2]]
// CHECK-NEXT:    pto.assemble %[[B2]], %[[WS]] [8, 0]
pto.kernel @bitcast_pieces(%x: !pto.tensor<16x16xf32>, %o: !pto.tensor<16x64xi8>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %r = pto.bitcast %t {vec_tile = #pto.vec_tile<[8, 8]>} : !pto.tile<16x16xf32> -> !pto.tile<16x64xi8>
  pto.assemble %r, %o[0, 0] : !pto.tile<16x64xi8>, !pto.tensor<16x64xi8>
}
