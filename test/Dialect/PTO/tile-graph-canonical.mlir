// RUN: pto-opt %s --pto-tile-graph-pipeline | FileCheck %s
// RUN: rm -rf %t && pto-opt %s --pto-tile-graph-pipeline -o %t.graph.mlir
// RUN: pto-run %s --random 7 --shape x=40x64 --save-inputs %t/in --output-dir %t/before
// RUN: pto-run %t.graph.mlir --input-dir %t/in --output-dir %t/after
// RUN: cmp %t/before/y.npy %t/after/y.npy

// The tile-graph pipeline's output is canonical (a row softmax with a tail,
// as the Python front end traces it): the leaf views its window of x once
// (amax and sub read the same tile: pto-merge-leaf-arguments, then CSE), the
// control program computes pto.dim once and no constant twice, and the
// compiled graph computes bit-for-bit what the kernel computes.

// CHECK-LABEL: func.func private @softmax_leaf_V1_0(
// CHECK:         %[[T:.*]] = pto.view
// CHECK-NOT:     pto.view
// CHECK:         pto.amax %[[T]]
// CHECK-NEXT:    pto.sub %[[T]],
// CHECK:         return
// CHECK-LABEL: pto.kernel @softmax(
// CHECK:         pto.dim %x, 0
// CHECK-NOT:     pto.dim
// CHECK:         pto.loop "L"
// CHECK-NOT:     arith.constant {{(0|1|16)}} : index
// CHECK:         pto.root_call @softmax_root_L(

pto.kernel @softmax(
    %x: !pto.tensor<?x64xf32>,
    %y: !pto.tensor<?x64xf32>)
    attributes {arch = #pto.arch<DAV_2201>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %ceildiv = arith.ceildivsi %rows, %c16 : index
  pto.loop "L" %i = %c0 to %ceildiv step %c1 {
    %mul = arith.muli %i, %c16 : index
    %sub = arith.subi %rows, %mul : index
    %min = arith.minsi %sub, %c16 : index
    %t = pto.view %x[%mul, 0] valid [%min, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
    %amax = pto.amax %t dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
    %sub_1 = pto.sub %t, %amax {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
    %e = pto.exp %sub_1 {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    %s = pto.sum %e dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
    %div = pto.div %e, %s {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
    pto.assemble %div, %y[%mul, 0] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  }
}

