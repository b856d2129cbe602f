// RUN: pto-opt %s -split-input-file --pto-expand-tiles -verify-diagnostics | FileCheck %s

// pto-expand-tiles on pto.topk: the vector tile cuts the input's leading dims
// only; each piece ranks whole rows and both of its results land at the
// piece's leading offsets (last-dim offset 0) of one workspace each.

// CHECK-LABEL: pto.kernel @topk_pieces(
// CHECK-NEXT:    %[[WV:.*]] = pto.workspace : !pto.tensor<16x4xf32>
// CHECK-NEXT:    %[[WI:.*]] = pto.workspace : !pto.tensor<16x4xi32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [8, 64] : !pto.tensor<16x64xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    %[[V0:.*]], %[[I0:.*]] = pto.topk %[[X0]], k = 4 {largest = false, vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32> -> !pto.tile<8x4xf32>, !pto.tile<8x4xi32>
// CHECK-NEXT:    pto.assemble %[[V0]], %[[WV]] [0, 0] : !pto.tile<8x4xf32>, !pto.tensor<16x4xf32>
// CHECK-NEXT:    pto.assemble %[[I0]], %[[WI]] [0, 0] : !pto.tile<8x4xi32>, !pto.tensor<16x4xi32>
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[8, 0] valid [8, 64]
// CHECK-NEXT:    %[[V1:.*]], %[[I1:.*]] = pto.topk %[[X1]], k = 4
// CHECK-NEXT:    pto.assemble %[[V1]], %[[WV]] [8, 0]
// CHECK-NEXT:    pto.assemble %[[I1]], %[[WI]] [8, 0]
// CHECK:         pto.view %[[WV]][8, 0] valid [8, 4]
// CHECK-NEXT:    pto.assemble %{{.*}}, %v [8, 0] : !pto.tile<8x4xf32>, !pto.tensor<16x4xf32>
// CHECK:         pto.view %[[WI]][8, 0] valid [8, 4]
// CHECK-NEXT:    pto.assemble %{{.*}}, %i [8, 0] : !pto.tile<8x4xi32>, !pto.tensor<16x4xi32>
pto.kernel @topk_pieces(%x: !pto.tensor<16x64xf32>, %v: !pto.tensor<16x4xf32>, %i: !pto.tensor<16x4xi32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %tv, %ti = pto.topk %t, k = 4 {largest = false, vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x4xf32>, !pto.tile<16x4xi32>
  pto.assemble %tv, %v[0, 0] : !pto.tile<16x4xf32>, !pto.tensor<16x4xf32>
  pto.assemble %ti, %i[0, 0] : !pto.tile<16x4xi32>, !pto.tensor<16x4xi32>
}

// -----

// A vector tile that splits the row (PyPTO merges the pieces' candidates;
// not built here yet) is an error at the op.

pto.kernel @topk_split_row(%x: !pto.tensor<16x64xf32>, %i: !pto.tensor<16x4xi32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  // expected-error @+1 {{'pto.topk' op vector tile last dim 32 splits rows of 64 elements; pto-expand-tiles ranks each topk row in one piece (merging the pieces' top k is not supported yet): set the vector tile's last dim to 64}}
  %tv, %ti = pto.topk %t, k = 4 {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x64xf32> -> !pto.tile<16x4xf32>, !pto.tile<16x4xi32>
  pto.assemble %ti, %i[0, 0] : !pto.tile<16x4xi32>, !pto.tensor<16x4xi32>
}
