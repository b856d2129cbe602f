// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// Round trip of pto.topk: both results, the default largest = true (not
// printed), largest = false, and a vector tile over the leading dims.

// CHECK-LABEL: func.func @topk
// CHECK: %[[V:.*]], %[[I:.*]] = pto.topk %{{.*}}, k = 8 : !pto.tile<64x64xf32> -> !pto.tile<64x8xf32>, !pto.tile<64x8xi32>
// CHECK: pto.topk %{{.*}}, k = 2 {largest = false} : !pto.tile<4x64xf32> -> !pto.tile<4x2xf32>, !pto.tile<4x2xi32>
// CHECK: pto.topk %{{.*}}, k = 3 {vec_tile = #pto.vec_tile<[1, 1, 16, 32]>} : !pto.tile<1x2x16x32xf32> -> !pto.tile<1x2x16x3xf32>, !pto.tile<1x2x16x3xi32>
// CHECK: return %[[V]], %[[I]]
func.func @topk(%a: !pto.tile<64x64xf32>, %b: !pto.tile<4x64xf32>, %c: !pto.tile<1x2x16x32xf32>) -> (!pto.tile<64x8xf32>, !pto.tile<64x8xi32>) {
  %v, %i = pto.topk %a, k = 8 : !pto.tile<64x64xf32> -> !pto.tile<64x8xf32>, !pto.tile<64x8xi32>
  %lv, %li = pto.topk %b, k = 2 {largest = false} : !pto.tile<4x64xf32> -> !pto.tile<4x2xf32>, !pto.tile<4x2xi32>
  %tv, %ti = pto.topk %c, k = 3 {vec_tile = #pto.vec_tile<[1, 1, 16, 32]>} : !pto.tile<1x2x16x32xf32> -> !pto.tile<1x2x16x3xf32>, !pto.tile<1x2x16x3xi32>
  return %v, %i : !pto.tile<64x8xf32>, !pto.tile<64x8xi32>
}
