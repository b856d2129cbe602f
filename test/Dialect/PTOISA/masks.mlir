// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// Packed bit masks: TCMP / TCMPS write one (ui8, 8 columns per byte), TSEL /
// TSELS read one.

// CHECK-LABEL: func.func @masks
func.func @masks(%r: index, %c: index, %b: index) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x = pto_isa.alloc_tile valid [%r, %c] at 0 : !pto_isa.tile<ub, 16x64xf32>
  %y = pto_isa.alloc_tile valid [%r, %c] at 4096 : !pto_isa.tile<ub, 16x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %b] at 8192 : !pto_isa.tile<ub, 16x32xui8>
  %t = pto_isa.alloc_tile valid [%c1, %c8] at 8704 : !pto_isa.tile<ub, 1x8xi32>
  %d = pto_isa.alloc_tile valid [%r, %c] at 8736 : !pto_isa.tile<ub, 16x64xf32>
  // CHECK: pto_isa.tcmp %{{.*}}, %{{.*}} into %{{.*}} ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xui8>
  pto_isa.tcmp %x, %y into %m ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xui8>
  // CHECK: pto_isa.tcmps %{{.*}}, %{{.*}} into %{{.*}} lt : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x32xui8>
  pto_isa.tcmps %x, %zero into %m lt : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x32xui8>
  // CHECK: pto_isa.tsel %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tsel %m, %x, %y, %t into %d : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  // CHECK: pto_isa.tsels %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tsels %m, %x, %zero, %t into %d : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  return
}
