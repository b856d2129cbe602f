// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// Round trip of the sort instructions a row top-k lowers to.

// CHECK-LABEL: func.func @sort_ops
// CHECK: pto_isa.tci %[[IDX:.*]] start = 0 : !pto_isa.tile<ub, 1x64xui32>
// CHECK: pto_isa.tsort32 %{{.*}}, %[[IDX]], %{{.*}} into %[[P:.*]] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x128xf32>
// CHECK: pto_isa.tmrgsort %{{.*}}, %{{.*}} tmp %{{.*}} into %{{.*}} : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
// CHECK: pto_isa.tgather_mask %{{.*}} into %{{.*}} pattern = 2 : !pto_isa.tile<ub, 16x16xf32>, !pto_isa.tile<ub, 16x8xi32>
func.func @sort_ops(%r: index, %c: index) {
  %c1 = arith.constant 1 : index
  %x = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 16x64xf32>
  %idx = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x64xui32>
  %tmp = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x64xf32>
  %p = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 16x128xf32>
  pto_isa.tci %idx start = 0 : !pto_isa.tile<ub, 1x64xui32>
  pto_isa.tsort32 %x, %idx, %tmp into %p : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x128xf32>
  %l0 = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x64xf32>
  %l1 = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x64xf32>
  %mt = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x128xf32>
  %top = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x16xf32>
  pto_isa.tmrgsort %l0, %l1 tmp %mt into %top : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
  %tops = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 16x16xf32>
  %ix = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 16x8xi32>
  pto_isa.tgather_mask %tops into %ix pattern = 2 : !pto_isa.tile<ub, 16x16xf32>, !pto_isa.tile<ub, 16x8xi32>
  return
}
