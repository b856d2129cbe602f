// RUN: pto-opt %s -pto-test-op-classes 2>&1 | FileCheck %s

// isCubeOp, isVectorOp, isElementwiseOp and isReductionOp read a table built
// once from the pto op definitions instead of asking each op's trait list.
// The test pass first compares the table with the traits of every registered
// op (pto, pto_isa, arith and the builtin ops) and names any op where they
// differ; then it prints what the predicates say for each op below.

// CHECK: remark: the op-class table agrees with the traits of {{[0-9]+}} registered ops
pto.kernel @classes(%a: !pto.tensor<64x64xbf16>, %b: !pto.tensor<64x64xbf16>) {
  // CHECK: remark: none
  %ta = pto.view %a[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  // CHECK: remark: none
  %tb = pto.view %b[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  // CHECK: remark: cube
  %m = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  // CHECK: remark: vector elementwise
  %e = pto.exp %m : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  // CHECK: remark: vector elementwise
  %s = pto.add %e, %m : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  // CHECK: remark: vector reduction
  %r = pto.sum %s dim = 1 keepdim : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
  // CHECK: remark: none
  %c = arith.constant 0 : index
  // CHECK: remark: none
  pto.return
}
