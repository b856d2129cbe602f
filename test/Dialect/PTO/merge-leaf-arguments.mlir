// RUN: pto-opt %s -split-input-file -pto-merge-leaf-arguments | FileCheck %s
// Right after pto-outline the pass skips the leaf bodies outline found free
// of symbol references; run apart, it walks them. Both see the V1 leaf's
// reference to the V0 leaf.
// RUN: pto-opt %S/Inputs/merge-leaf-arguments-other-use.mlir -pto-outline -pto-merge-leaf-arguments | FileCheck %s --check-prefix=OTHER
// RUN: pto-opt %S/Inputs/merge-leaf-arguments-other-use.mlir -pto-outline | pto-opt -pto-merge-leaf-arguments | FileCheck %s --check-prefix=OTHER

// OTHER-LABEL: func.func private @other_leaf_V0_0(
// OTHER-SAME:      %arg2: index, %arg3: index, %arg4: index, %arg5: index)
// OTHER-LABEL: func.func private @other_leaf_V1_0(
// OTHER-SAME:      %[[OFF:[^:]*]]: index)
// OTHER-NEXT:    pto.view %{{.*}}[%[[OFF]], %[[OFF]]] {pto.note = @other_leaf_V0_0}
// OTHER:         pto.launch @other_leaf_V0_0(%{{.*}}, %{{.*}}, %[[C0:[^,]*]], %[[C0]], %[[C0]], %[[C0]]) :

// A softmax leaf as pto-outline makes it: the two views of x take their
// column offsets from two arguments, and the one launch passes 0 for both
// (and for the store's). The three become one argument; after CSE the two
// views are one (test/Dialect/PTO/tile-graph-canonical.mlir).
// CHECK-LABEL: func.func private @softmax_leaf_V1_0(
// CHECK-SAME:      %[[X:[^:]*]]: !pto.tensor<?x64xf32>, %[[ROW:[^:]*]]: index, %[[VALID:[^:]*]]: index, %[[Y:[^:]*]]: !pto.tensor<?x64xf32>, %[[COL:[^:]*]]: index)
// CHECK-NEXT:    pto.view %[[X]][%[[ROW]], %[[COL]]] valid [%[[VALID]], 64]
// CHECK:         pto.view %[[X]][%[[ROW]], %[[COL]]] valid [%[[VALID]], 64]
// CHECK:         pto.assemble %{{.*}}, %[[Y]] [%[[ROW]], %[[COL]]]
// CHECK-LABEL: func.func private @softmax_root_L(
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pto.launch @softmax_leaf_V1_0(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[C0]]) :
func.func private @softmax_leaf_V1_0(%arg0: !pto.tensor<?x64xf32>, %arg1: index, %arg2: index, %arg3: !pto.tensor<?x64xf32>, %arg4: index, %arg5: index, %arg6: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
  %0 = pto.view %arg0[%arg1, %arg4] valid [%arg2, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %1 = pto.amax %0 dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
  %2 = pto.view %arg0[%arg1, %arg5] valid [%arg2, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %3 = pto.sub %2, %1 {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
  pto.assemble %3, %arg3 [%arg1, %arg6] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}
func.func private @softmax_root_L(%arg0: !pto.tensor<?x64xf32>, %arg1: index, %arg2: index, %arg3: !pto.tensor<?x64xf32>) attributes {pto.root} {
  %c0 = arith.constant 0 : index
  %0 = pto.launch @softmax_leaf_V1_0(%arg0, %arg1, %arg2, %arg3, %c0, %c0, %c0) : (!pto.tensor<?x64xf32>, index, index, !pto.tensor<?x64xf32>, index, index, index) -> !pto.token
  return
}

// -----

// Two launches of one leaf: the offsets agree in the first launch only, so
// they stay two arguments; equal constants from different ops count as one
// value (the tensors, the same SSA value in both launches, merge).
// CHECK-LABEL: func.func private @two_leaf(
// CHECK-SAME:      %[[T:[^:]*]]: !pto.tensor<64x64xf32>, %[[A:[^:]*]]: index, %[[B:[^:]*]]: index)
// CHECK-NEXT:    pto.view %[[T]][%[[A]], 0]
// CHECK-NEXT:    pto.atomic_add %{{.*}}, %[[T]] [%[[B]], 0]
// CHECK-LABEL: func.func private @two_root(
// CHECK:         pto.launch @two_leaf(%arg0, %{{.*}}, %{{.*}}) :
// CHECK:         pto.launch @two_leaf(%arg0, %{{.*}}, %{{.*}}) after
func.func private @two_leaf(%t: !pto.tensor<64x64xf32>, %a: index, %u: !pto.tensor<64x64xf32>, %b: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
  %0 = pto.view %t[%a, 0] : !pto.tensor<64x64xf32> -> !pto.tile<16x64xf32>
  pto.atomic_add %0, %u[%b, 0] : !pto.tile<16x64xf32>, !pto.tensor<64x64xf32>
  return
}
func.func private @two_root(%arg0: !pto.tensor<64x64xf32>) attributes {pto.root} {
  %c0 = arith.constant 0 : index
  %c0_1 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %0 = pto.launch @two_leaf(%arg0, %c0, %arg0, %c0_1) : (!pto.tensor<64x64xf32>, index, !pto.tensor<64x64xf32>, index) -> !pto.token
  %1 = pto.launch @two_leaf(%arg0, %c16, %arg0, %c32) after [%0] : (!pto.tensor<64x64xf32>, index, !pto.tensor<64x64xf32>, index) -> !pto.token
  return
}
