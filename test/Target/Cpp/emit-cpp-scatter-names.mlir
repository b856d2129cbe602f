// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp | FileCheck %s
// A scatter's run-time faults name its target by the kernel argument that
// every launch of its leaf (and every call of the leaf's root) passes; two
// kernels in one module keep their own names, and a leaf shared by launches
// into different tensors names none ("tensor"). pto-to-cpp finds the call
// sites of all functions in one walk of the module, not one per scatter.

// CHECK-LABEL: void first_leaf_V1_0(
// CHECK: PTOGEN_SCATTER_SITE("{{.*}}", "table_a");
// CHECK-LABEL: void second_leaf_V1_0(
// CHECK: PTOGEN_SCATTER_SITE("{{.*}}", "tensor");
// CHECK: void first(pto_rt::Runtime &rt, float *table_a,
// CHECK: void second(pto_rt::Runtime &rt, float *table_b, float *table_c,
pto.kernel @first(%table_a: !pto.tensor<64x16xf32>, %rows: !pto.tensor<8xi32>, %upd: !pto.tensor<8x16xf32>) {
  %r = pto.view %rows[0] : !pto.tensor<8xi32> -> !pto.tile<8xi32>
  %u = pto.view %upd[0, 0] : !pto.tensor<8x16xf32> -> !pto.tile<8x16xf32>
  %e = pto.exp %u {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32> -> !pto.tile<8x16xf32>
  pto.index_put %e, %table_a[%r] [0, 0] accumulate {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<64x16xf32>
}
pto.kernel @second(%table_b: !pto.tensor<64x16xf32>, %table_c: !pto.tensor<64x16xf32>, %rows: !pto.tensor<8xi32>, %upd: !pto.tensor<8x16xf32>) {
  %r = pto.view %rows[0] : !pto.tensor<8xi32> -> !pto.tile<8xi32>
  %u = pto.view %upd[0, 0] : !pto.tensor<8x16xf32> -> !pto.tile<8x16xf32>
  %e = pto.exp %u {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32> -> !pto.tile<8x16xf32>
  pto.index_put %e, %table_b[%r] [0, 0] accumulate {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<64x16xf32>
  %f = pto.exp %u {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32> -> !pto.tile<8x16xf32>
  pto.index_put %f, %table_c[%r] [0, 0] accumulate {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<64x16xf32>
}
