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

// k = 4 does not fill a 32-byte ub row of f32, and the mask gathers pack
// their rows: the merges keep the first 8 structures ([2, 16] tile), the
// gathers take 8 per row, and a textract copies out the first 4 columns
// (valid 4 of the 8-column capacity).
// CHECK-LABEL: func.func private @topk_k4(
// CHECK:         %[[TOP:.*]] = pto_isa.alloc_tile valid [%[[VR:.*]], %c16] : !pto_isa.tile<ub, 2x16xf32>
// CHECK:         pto_isa.tmrgsort {{.*}} !pto_isa.tile<ub, 1x16xf32>
// CHECK:         %[[V8:.*]] = pto_isa.alloc_tile valid [%[[VR]], %c8] : !pto_isa.tile<ub, 2x8xf32>
// CHECK-NEXT:    pto_isa.tgather_mask %[[TOP]] into %[[V8]] pattern = 1
// CHECK-NEXT:    %[[V4:.*]] = pto_isa.alloc_tile valid [%[[VR]], %c4] : !pto_isa.tile<ub, 2x8xf32>
// CHECK-NEXT:    pto_isa.textract %[[V8]] into %[[V4]] : !pto_isa.tile<ub, 2x8xf32>, !pto_isa.tile<ub, 2x8xf32>
// CHECK-NEXT:    %[[I8:.*]] = pto_isa.alloc_tile valid [%[[VR]], %c8] : !pto_isa.tile<ub, 2x8xi32>
// CHECK-NEXT:    pto_isa.tgather_mask %[[TOP]] into %[[I8]] pattern = 2
// CHECK-NEXT:    %[[I4:.*]] = pto_isa.alloc_tile valid [%[[VR]], %c4] : !pto_isa.tile<ub, 2x8xi32>
// CHECK-NEXT:    pto_isa.textract %[[I8]] into %[[I4]]
// CHECK-NEXT:    pto_isa.tstore %[[V4]]
// CHECK-NEXT:    pto_isa.tstore %[[I4]]
func.func private @topk_k4(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x4xf32>, %z: !pto.tensor<?x4xi32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 64] : !pto.tensor<?x64xf32> -> !pto.tile<2x64xf32>
  %vals, %idx = pto.topk %t, k = 4 : !pto.tile<2x64xf32> -> !pto.tile<2x4xf32>, !pto.tile<2x4xi32>
  pto.assemble %vals, %y[%r, %c0] : !pto.tile<2x4xf32>, !pto.tensor<?x4xf32>
  pto.assemble %idx, %z[%r, %c0] : !pto.tile<2x4xi32>, !pto.tensor<?x4xi32>
  return
}

//--- k4.mlir

// k = 4 of rows with 5 valid elements: the first 8 (k rounded up to the ub
// row the mask gathers pack) would be ranked, past the valid ones.
func.func private @topk_k4_short(%x: !pto.tensor<?x64xf32>, %z: !pto.tensor<?x4xi32>, %r: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [2, 5] : !pto.tensor<?x64xf32> -> !pto.tile<2x64xf32>
  // expected-error @+1 {{'pto.topk' op k = 4 of rows with 5 valid elements: pto-lower-to-isa ranks the first 8 (k rounded up to a 32-byte ub row of f32, as the mask-form TGATHER packs its rows), which needs that many valid elements per row: use a k that is a multiple of 8 or pad the rows}}
  %vals, %idx = pto.topk %t, k = 4 : !pto.tile<2x64xf32> -> !pto.tile<2x4xf32>, !pto.tile<2x4xi32>
  pto.assemble %idx, %z[%r, %c0] : !pto.tile<2x4xi32>, !pto.tensor<?x4xi32>
  return
}
