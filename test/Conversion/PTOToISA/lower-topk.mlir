// RUN: split-file %s %t
// RUN: pto-opt %t/lower.mlir --pto-lower-to-isa | FileCheck %t/lower.mlir
// RUN: pto-opt %t/k4.mlir --pto-lower-to-isa -verify-diagnostics -o /dev/null

//--- lower.mlir

// pto.topk on pto-isa's sort instructions (docs/ISA.md, "topk"): the
// smallest 8 of rows of 64 (two 32-element blocks per row). The sort ranks
// -x; the ui32 index row is expanded to every row (pto-isa's CPU back end
// wants one per source row); each row's two sorted
// blocks are extracted as one-row lists (valid columns: the block's share of
// 2 * 64) and merged, keeping min(total, 16) columns, into its row of a
// [2, 16] tile; the mask gathers split it into values (negated back) and the
// int32 index bits. Rows past the valid ones get empty windows.

// CHECK-LABEL: func.func private @topk_leaf(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[VR:.*]], %{{.*}}] : !pto_isa.tile<ub, 2x64xf32>
// CHECK:         pto_isa.tload
// CHECK:         pto_isa.tmuls %[[X]], %[[M1:.*]] into %[[NEG:.*]] : !pto_isa.tile<ub, 2x64xf32>, f32, !pto_isa.tile<ub, 2x64xf32>
// CHECK:         pto_isa.tci %[[IDX1:.*]] start = 0 : !pto_isa.tile<ub, 1x64xui32>
// CHECK:         pto_isa.tcolexpand %[[IDX1]] into %[[IDX:.*]] : !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 2x64xui32>
// CHECK:         pto_isa.tsort32 %[[NEG]], %[[IDX]], %{{.*}} into %[[P:.*]] : !pto_isa.tile<ub, 2x64xf32>, !pto_isa.tile<ub, 2x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 2x128xf32>
// CHECK:         %[[TOP:.*]] = pto_isa.alloc_tile valid [%[[VR]], %{{.*}}] : !pto_isa.tile<ub, 2x16xf32>
// CHECK:         %[[R0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK:         pto_isa.textract %[[P]] into %[[L0:.*]] : !pto_isa.tile<ub, 2x128xf32>, !pto_isa.tile<ub, 1x64xf32>
// CHECK:         pto_isa.textract %[[P]] into %[[L1:.*]] {index_col = 64 : i64} : !pto_isa.tile<ub, 2x128xf32>, !pto_isa.tile<ub, 1x64xf32>
// CHECK:         %[[KEEP:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[B0:.*]] = pto_isa.alloc_tile valid [%[[R0]], %[[KEEP]]] : !pto_isa.tile<ub, 1x16xf32>
// CHECK:         pto_isa.tmrgsort %[[L0]], %[[L1]] tmp %{{.*}} into %[[B0]] : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
// CHECK:         pto_isa.tinsert %[[B0]] into %[[TOP]] : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 2x16xf32>
// CHECK:         pto_isa.textract %[[P]] into %{{.*}} {index_row = 1 : i64}
// CHECK:         pto_isa.textract %[[P]] into %{{.*}} {index_col = 64 : i64, index_row = 1 : i64}
// CHECK:         pto_isa.tmrgsort
// CHECK:         pto_isa.tinsert %{{.*}} into %[[TOP]] {index_row = 1 : i64}
// CHECK:         pto_isa.tgather_mask %[[TOP]] into %[[V:.*]] pattern = 1 : !pto_isa.tile<ub, 2x16xf32>, !pto_isa.tile<ub, 2x8xf32>
// CHECK:         pto_isa.tmuls %[[V]], %[[M1]] into %[[VS:.*]] : !pto_isa.tile<ub, 2x8xf32>, f32, !pto_isa.tile<ub, 2x8xf32>
// CHECK:         pto_isa.tgather_mask %[[TOP]] into %[[I:.*]] pattern = 2 : !pto_isa.tile<ub, 2x16xf32>, !pto_isa.tile<ub, 2x8xi32>
// CHECK:         pto_isa.tstore %[[VS]]
// CHECK:         pto_isa.tstore %[[I]]
func.func private @topk_leaf(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x8xf32>, %z: !pto.tensor<?x8xi32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 64] : !pto.tensor<?x64xf32> -> !pto.tile<2x64xf32>
  %vals, %idx = pto.topk %t, k = 8 {largest = false} : !pto.tile<2x64xf32> -> !pto.tile<2x8xf32>, !pto.tile<2x8xi32>
  pto.assemble %vals, %y[%r, %c0] : !pto.tile<2x8xf32>, !pto.tensor<?x8xf32>
  pto.assemble %idx, %z[%r, %c0] : !pto.tile<2x8xi32>, !pto.tensor<?x8xi32>
  return
}

//--- k4.mlir

// k not a multiple of 8: the mask gathers could not pack the rows.
func.func private @topk_k4(%x: !pto.tensor<?x64xf32>, %z: !pto.tensor<?x4xi32>, %r: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] : !pto.tensor<?x64xf32> -> !pto.tile<2x64xf32>
  // expected-error @+1 {{'pto.topk' op k = 4 does not fill whole 32-byte ub rows of f32; pto-lower-to-isa extracts the top k with the mask-form TGATHER, which packs its rows: use a k that is a multiple of 8}}
  %vals, %idx = pto.topk %t, k = 4 : !pto.tile<2x64xf32> -> !pto.tile<2x4xf32>, !pto.tile<2x4xi32>
  pto.assemble %idx, %z[%r, %c0] : !pto.tile<2x4xi32>, !pto.tensor<?x4xi32>
  return
}
