// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// DT_BOOL masks: pto.compare (every mode; tile, broadcast tile and scalar
// right operands) and pto.where (tile and scalar values, broadcasts).

// CHECK-LABEL: func.func @compare
// CHECK: pto.compare ge, %{{.*}}, %{{.*}} : !pto.tile<64xf32>, f32 -> !pto.tile<64xi1>
// CHECK: pto.compare lt, %{{.*}}, %{{.*}} {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xi1>
// CHECK: pto.compare eq, %{{.*}}, %{{.*}} : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xi1>
// CHECK: pto.compare ne, {{.*}} -> !pto.tile<16x64xi1>
// CHECK: pto.compare gt, {{.*}} -> !pto.tile<16x64xi1>
// CHECK: pto.compare le, {{.*}} : !pto.tile<8x16xi32>, i32 -> !pto.tile<8x16xi1>
func.func @compare(%v: !pto.tile<64xf32>, %a: !pto.tile<16x64xf32>,
                   %r: !pto.tile<16x1xf32>, %i: !pto.tile<8x16xi32>) {
  %zero = arith.constant 0.0 : f32
  %seven = arith.constant 7 : i32
  %0 = pto.compare ge, %v, %zero : !pto.tile<64xf32>, f32 -> !pto.tile<64xi1>
  %1 = pto.compare lt, %a, %r {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xi1>
  %2 = pto.compare eq, %a, %a : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xi1>
  %3 = pto.compare ne, %a, %a : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xi1>
  %4 = pto.compare gt, %a, %zero : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  %5 = pto.compare le, %i, %seven : !pto.tile<8x16xi32>, i32 -> !pto.tile<8x16xi1>
  return
}

// CHECK-LABEL: func.func @where
// CHECK: pto.where %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
// CHECK: pto.where %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<16x1xi1>, !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
// CHECK: pto.where %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<16x64xi1>, f32, f32 -> !pto.tile<16x64xf32>
// CHECK: pto.where %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<64xi1>, !pto.tile<64xbf16>, !pto.tile<64xbf16> -> !pto.tile<64xbf16>
func.func @where(%m: !pto.tile<16x64xi1>, %c: !pto.tile<16x1xi1>,
                 %a: !pto.tile<16x64xf32>, %v: !pto.tile<64xi1>,
                 %h: !pto.tile<64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %0 = pto.where %m, %a, %a : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %1 = pto.where %c, %a, %zero : !pto.tile<16x1xi1>, !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
  %2 = pto.where %m, %one, %zero : !pto.tile<16x64xi1>, f32, f32 -> !pto.tile<16x64xf32>
  %3 = pto.where %v, %h, %h : !pto.tile<64xi1>, !pto.tile<64xbf16>, !pto.tile<64xbf16> -> !pto.tile<64xbf16>
  return
}
