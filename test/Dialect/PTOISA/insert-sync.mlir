// RUN: pto-opt %s --pto-isa-insert-sync | FileCheck %s
// RUN: pto-opt %s --pto-isa-insert-sync --pto-isa-verify-sync -o /dev/null
// RUN: pto-opt %s --pto-isa-insert-sync -o %t.1.mlir
// RUN: pto-opt %t.1.mlir --pto-isa-insert-sync -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

// RAW across pipes, load -> compute.
// CHECK-LABEL: func.func @raw_mte2_v
func.func @raw_mte2_v(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @raw_v_mte3
func.func @raw_v_mte3(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %s = arith.constant 1.0 : f32
  %b = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texpands %s into %b : f32, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tstore %b into %g[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<64x64xf32>
  return
}

// CHECK-LABEL: func.func @cube_chain
func.func @cube_chain(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<?x128xbf16>,
                      %ws: !pto.tensor<96x112xf32>, %r: index, %c: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a1 = pto_isa.alloc_tile valid [%r, %c64] at 0 : !pto_isa.tile<l1, 64x64xbf16>
  %b1 = pto_isa.alloc_tile valid [%c64, %c] at 8192 : !pto_isa.tile<l1, 64x64xbf16, zn>
  %a0 = pto_isa.alloc_tile valid [%r, %c64] at 0 : !pto_isa.tile<l0a, 64x64xbf16>
  %b0 = pto_isa.alloc_tile valid [%c64, %c] at 0 : !pto_isa.tile<l0b, 64x64xbf16>
  %acc = pto_isa.alloc_tile valid [%r, %c] at 0 : !pto_isa.tile<l0c, 64x64xf32>
  pto_isa.tload %q[%r, %c0] into %a1 : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  pto_isa.tload %k[%c, %c0] into %b1 transpose : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
  pto_isa.textract %a1 into %a0 : !pto_isa.tile<l1, 64x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>
  pto_isa.textract %b1 into %b0 : !pto_isa.tile<l1, 64x64xbf16, zn>, !pto_isa.tile<l0b, 64x64xbf16>
  pto_isa.tmatmul %a0, %b0 into %acc : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  pto_isa.tstore %acc into %ws[%c0, %c0] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<96x112xf32>
  return
}

// CHECK-LABEL: func.func @war_reuse
func.func @war_reuse(%g: !pto.tensor<64x64xf32>, %h: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %h[%c0, %c0] into %c : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// CHECK-LABEL: func.func @waw
func.func @waw(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %s = arith.constant 1.0 : f32
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texpands %s into %a : f32, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @v_barrier
func.func @v_barrier(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tadd %b, %a into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tabs %a into %a : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @gm_raw
func.func @gm_raw(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tstore %a into %g[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<64x64xf32>
  pto_isa.tload %g[%c32, %c0] into %d : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  %g2 = pto.reshape %g [32, 128] inplace : !pto.tensor<64x64xf32> -> !pto.tensor<32x128xf32>
  pto_isa.tload %g2[%c0, %c0] into %b : !pto.tensor<32x128xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @independent
func.func @independent(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %b into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tabs %b into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @redundant
func.func @redundant(%g: !pto.tensor<64x64xf32>, %h: !pto.tensor<64x64xf32>, %o: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %h[%c0, %c0] into %b : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tadd %a, %b into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tstore %c into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<64x64xf32>
  pto_isa.tstore %a into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<64x64xf32>
  return
}

// CHECK-LABEL: func.func @double_buffer
func.func @double_buffer(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %n: index, %r: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %a1 = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  %b0 = pto_isa.alloc_tile valid [%r, %r] at 16384 : !pto_isa.tile<ub, 32x64xf32>
  %b1 = pto_isa.alloc_tile valid [%r, %r] at 24576 : !pto_isa.tile<ub, 32x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %g[%i, %c0] into %a0 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.tload %g[%i, %c0] into %a1 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.texp %a0 into %b0 : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.tstore %b0 into %o[%i, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
    pto_isa.texp %a1 into %b1 : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.tstore %b1 into %o[%i, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
  }
  return
}
