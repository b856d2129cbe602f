// RUN: pto-opt %s -split-input-file --pto-expand-tiles | FileCheck %s

// A compare whose only users are wheres is computed inside each where piece:
// no i1 workspace, the mask never leaves the piece (docs/TileGraph.md).

// CHECK-LABEL: pto.kernel @fused_mask(
// CHECK-NOT:     xi1>
// CHECK:         pto.neg
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<16x64xf32>
// CHECK-NEXT:    %[[X0:.*]] = pto.view %x[0, 0] valid [8, 64] : !pto.tensor<16x64xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    %[[M0:.*]] = pto.compare ge, %[[X0]], %{{.*}} {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xi1>
// CHECK:         %[[S0:.*]] = pto.where %[[M0]], %{{.*}}, %{{.*}} {{.*}} : !pto.tile<8x64xi1>, !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
// CHECK-NEXT:    pto.assemble %[[S0]], %[[WS]] [0, 0]
// CHECK-NEXT:    %[[X1:.*]] = pto.view %x[8, 0] valid [8, 64]
// CHECK-NEXT:    pto.compare ge, %[[X1]]
// CHECK:         pto.where
// CHECK-NOT:     pto.compare
pto.kernel @fused_mask(%x: !pto.tensor<16x64xf32>, %o: !pto.tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %n = pto.neg %t {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %m = pto.compare ge, %t, %zero {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  %s = pto.where %m, %t, %n {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %s, %o[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// A mask with another user (here stored as a DT_BOOL output) is expanded
// like any elementwise op, into an i1 workspace.
// CHECK-LABEL: pto.kernel @stored_mask(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<16x64xi1>
// CHECK:         pto.compare lt, {{.*}} -> !pto.tile<8x64xi1>
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[WS]] [0, 0] : !pto.tile<8x64xi1>, !pto.tensor<16x64xi1>
pto.kernel @stored_mask(%x: !pto.tensor<16x64xf32>, %o: !pto.tensor<16x64xi1>) {
  %zero = arith.constant 0.0 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %m = pto.compare lt, %t, %zero {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  pto.assemble %m, %o[0, 0] : !pto.tile<16x64xi1>, !pto.tensor<16x64xi1>
}
