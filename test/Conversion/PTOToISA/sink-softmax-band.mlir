// RUN: pto-opt %s --pto-tile-graph-pipeline --pto-lower-to-isa --pto-isa-plan-memory=report -o %t.isa.mlir 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s < %t.isa.mlir

// deepseek_v4 win_attention's three-block softmax band (a bool-masked
// [256, 384] f32 score tile with attention sinks, vec tile [64, 256]): each
// 64-row band keeps its two exp pieces live until the division, next to the
// row sums. With row-reduction scratches shaped like the source the leaf
// needed 198656 bytes of ub (capacity 188416); with the scratch pto-isa's
// A2/A3 TROWSUM / TROWMAX write (docs/ISA.md#row-reduction-scratch) it fits.

// PLAN-NOT:  error
// PLAN:      remark: memory plan of @sink_softmax_band_leaf_V1_0: ub 135168 B peak live, 135168 B used of 188416
// PLAN-NOT:  error

// CHECK-LABEL: func.func private @sink_softmax_band_leaf_V1_0(
// CHECK-DAG:     pto_isa.trowmax {{.*}} : !pto_isa.tile<ub, 64x256xf32>, !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 64x8xf32>
// CHECK-DAG:     pto_isa.trowmax {{.*}} : !pto_isa.tile<ub, 64x128xf32>, !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 64x8xf32>
// CHECK-DAG:     pto_isa.trowsum {{.*}} : !pto_isa.tile<ub, 64x256xf32>, !pto_isa.tile<ub, 64x128xf32>, !pto_isa.tile<ub, 64x8xf32>
// CHECK-DAG:     pto_isa.trowsum {{.*}} : !pto_isa.tile<ub, 64x128xf32>, !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 64x8xf32>

pto.kernel @sink_softmax_band(
    %s: !pto.tensor<256x384xf32>,
    %mask: !pto.tensor<256x384xi1>,
    %sinks: !pto.tensor<256x1xf32>,
    %p: !pto.tensor<256x384xbf16>)
    attributes {arch = #pto.arch<DAV_2201>} {
  %cst = arith.constant 0xFF800000 : f32
  %cst_1 = arith.constant 1.25e-01 : f32
  %acc = pto.view %s[0, 0] : !pto.tensor<256x384xf32> -> !pto.tile<256x384xf32>
  %keep = pto.view %mask[0, 0] : !pto.tensor<256x384xi1> -> !pto.tile<256x384xi1>
  %sink = pto.view %sinks[0, 0] : !pto.tensor<256x1xf32> -> !pto.tile<256x1xf32>
  %acc_1 = pto.where %keep, %acc, %cst {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xi1>, !pto.tile<256x384xf32>, f32 -> !pto.tile<256x384xf32>
  %acc_2 = pto.mul %acc_1, %cst_1 {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32>, f32 -> !pto.tile<256x384xf32>
  %mx = pto.amax %acc_2 dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32> -> !pto.tile<256x1xf32>
  %sub = pto.sub %acc_2, %mx {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x384xf32>
  %e = pto.exp %sub {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32> -> !pto.tile<256x384xf32>
  %total = pto.sum %e dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32> -> !pto.tile<256x1xf32>
  %sub_1 = pto.sub %sink, %mx {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x1xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  %exp = pto.exp %sub_1 {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  %total_1 = pto.add %total, %exp {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x1xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x1xf32>
  %div = pto.div %e, %total_1 {precision = #pto.precision<HIGH_PRECISION>, vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32>, !pto.tile<256x1xf32> -> !pto.tile<256x384xf32>
  %cast = pto.cast %div {mode = #pto.round_mode<RINT>, vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xf32> -> !pto.tile<256x384xbf16>
  pto.assemble %cast, %p[0, 0] {vec_tile = #pto.vec_tile<[64, 256]>} : !pto.tile<256x384xbf16>, !pto.tensor<256x384xbf16>
}
