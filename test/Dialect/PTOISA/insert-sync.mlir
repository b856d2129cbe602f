// RUN: pto-opt %s --pto-isa-insert-sync | FileCheck %s
// RUN: pto-opt %s --pto-isa-insert-sync --pto-isa-verify-sync -o /dev/null
// RUN: pto-opt %s --pto-isa-insert-sync -o %t.1.mlir
// RUN: pto-opt %t.1.mlir --pto-isa-insert-sync -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

// RAW across pipes, load -> compute.
// CHECK-LABEL: func.func @raw_mte2_v
func.func @raw_mte2_v(%g: !pto.tensor<64x64xf32>, %r: index) {
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.texp
// CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @raw_v_mte3
func.func @raw_v_mte3(%g: !pto.tensor<64x64xf32>, %r: index) {
// CHECK:      pto_isa.texpands
// CHECK-NEXT: pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.tstore
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
// Each L1 tile gets its own MTE2 -> MTE1 flag, set right after its load, so
// the first extract need not wait for the second load.
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.set_flag MTE2 -> MTE1, 0
// CHECK-NEXT: pto_isa.tload
// CHECK-NEXT: pto_isa.set_flag MTE2 -> MTE1, 1
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> MTE1, 0
// CHECK-NEXT: pto_isa.textract
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> MTE1, 1
// CHECK-NEXT: pto_isa.textract
// CHECK-NEXT: pto_isa.set_flag MTE1 -> M, 0
// CHECK-NEXT: pto_isa.wait_flag MTE1 -> M, 0
// CHECK-NEXT: pto_isa.tmatmul
// CHECK-NEXT: pto_isa.set_flag M -> FIX, 0
// CHECK-NEXT: pto_isa.wait_flag M -> FIX, 0
// CHECK-NEXT: pto_isa.tstore
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
// After planning %c reuses the bytes of %a: the second load waits until the
// vector pipe has read %a.
// CHECK:      pto_isa.texp
// CHECK-NEXT: pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.tload %{{.*}} into %[[C:.*]] :
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
// CHECK:      pto_isa.texpands
// CHECK-NEXT: pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.tload
  %c0 = arith.constant 0 : index
  %s = arith.constant 1.0 : f32
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texpands %s into %a : f32, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// CHECK-LABEL: func.func @v_barrier
func.func @v_barrier(%r: index) {
// RAW (texp -> tadd) and WAR (tadd reads %a, tabs writes it) on V.
// CHECK:      pto_isa.texp
// CHECK-NEXT: pto_isa.pipe_barrier V
// CHECK-NEXT: pto_isa.tadd
// CHECK-NEXT: pto_isa.pipe_barrier V
// CHECK-NEXT: pto_isa.tabs
// CHECK-NOT:  pto_isa.set_flag
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
// The disjoint constant window [32, 64) does not conflict with the store to
// [0, 32); the load through a reshape of the same tensor does.
// CHECK:      pto_isa.tstore
// CHECK-NEXT: pto_isa.set_flag MTE3 -> MTE2, 0
// CHECK-NEXT: pto_isa.tload
// CHECK-NEXT: pto.reshape
// CHECK-NEXT: pto_isa.wait_flag MTE3 -> MTE2, 0
// CHECK-NEXT: pto_isa.tload
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
// CHECK-NOT:  pto_isa.set_flag
// CHECK-NOT:  pto_isa.wait_flag
// CHECK-NOT:  pto_isa.pipe_barrier
// CHECK:      return
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
// One flag covers both loads; the store of %a is ordered after its load
// through MTE2 -> V -> MTE3 and needs no MTE2 -> MTE3 flag.
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.tload
// CHECK-NEXT: pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.tadd
// CHECK-NEXT: pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.tstore
// CHECK-NEXT: pto_isa.tstore
// CHECK-NEXT: return
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
// Loop-carried WAR flags, one event id per buffer, primed before the loop and
// drained after it (docs/AscendTarget.md#synchronisation).
// CHECK:      pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.set_flag V -> MTE2, 1
// CHECK-NEXT: pto_isa.set_flag MTE3 -> V, 0
// CHECK-NEXT: pto_isa.set_flag MTE3 -> V, 1
// CHECK-NEXT: scf.for
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE2, 1
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> V, 1
// CHECK-NEXT:   pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   pto_isa.wait_flag MTE3 -> V, 0
// CHECK-NEXT:   pto_isa.texp
// CHECK-NEXT:   pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT:   pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT:   pto_isa.tstore
// CHECK-NEXT:   pto_isa.set_flag MTE3 -> V, 0
// CHECK-NEXT:   pto_isa.wait_flag MTE2 -> V, 1
// CHECK-NEXT:   pto_isa.wait_flag MTE3 -> V, 1
// CHECK-NEXT:   pto_isa.texp
// CHECK-NEXT:   pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT:   pto_isa.set_flag V -> MTE2, 1
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT:   pto_isa.tstore
// CHECK-NEXT:   pto_isa.set_flag MTE3 -> V, 1
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.wait_flag
// CHECK-NEXT: pto_isa.wait_flag
// CHECK-NEXT: pto_isa.wait_flag
// CHECK-NEXT: pto_isa.wait_flag
// CHECK-NEXT: return
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

// Nine loads consumed in order: the ninth MTE2 -> V flag finds ids 0..7 in
// flight, so its set waits until the first flag was consumed.
// CHECK-LABEL: func.func @event_ids
func.func @event_ids(%g: !pto.tensor<?x64xf32>, %r: index) {
// CHECK-COUNT-8: pto_isa.set_flag MTE2 -> V, {{[0-7]}}
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.texp
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 1
// CHECK:      pto_isa.wait_flag MTE2 -> V, 7
// CHECK-NEXT: pto_isa.texp
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.texp
// CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %t0 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 16x64xf32>
  %t1 = pto_isa.alloc_tile valid [%r, %r] at 4096 : !pto_isa.tile<ub, 16x64xf32>
  %t2 = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 16x64xf32>
  %t3 = pto_isa.alloc_tile valid [%r, %r] at 12288 : !pto_isa.tile<ub, 16x64xf32>
  %t4 = pto_isa.alloc_tile valid [%r, %r] at 16384 : !pto_isa.tile<ub, 16x64xf32>
  %t5 = pto_isa.alloc_tile valid [%r, %r] at 20480 : !pto_isa.tile<ub, 16x64xf32>
  %t6 = pto_isa.alloc_tile valid [%r, %r] at 24576 : !pto_isa.tile<ub, 16x64xf32>
  %t7 = pto_isa.alloc_tile valid [%r, %r] at 28672 : !pto_isa.tile<ub, 16x64xf32>
  %t8 = pto_isa.alloc_tile valid [%r, %r] at 32768 : !pto_isa.tile<ub, 16x64xf32>
  %o0 = pto_isa.alloc_tile valid [%r, %r] at 36864 : !pto_isa.tile<ub, 16x64xf32>
  %o1 = pto_isa.alloc_tile valid [%r, %r] at 40960 : !pto_isa.tile<ub, 16x64xf32>
  %o2 = pto_isa.alloc_tile valid [%r, %r] at 45056 : !pto_isa.tile<ub, 16x64xf32>
  %o3 = pto_isa.alloc_tile valid [%r, %r] at 49152 : !pto_isa.tile<ub, 16x64xf32>
  %o4 = pto_isa.alloc_tile valid [%r, %r] at 53248 : !pto_isa.tile<ub, 16x64xf32>
  %o5 = pto_isa.alloc_tile valid [%r, %r] at 57344 : !pto_isa.tile<ub, 16x64xf32>
  %o6 = pto_isa.alloc_tile valid [%r, %r] at 61440 : !pto_isa.tile<ub, 16x64xf32>
  %o7 = pto_isa.alloc_tile valid [%r, %r] at 65536 : !pto_isa.tile<ub, 16x64xf32>
  %o8 = pto_isa.alloc_tile valid [%r, %r] at 69632 : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t0 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t1 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t2 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t3 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t4 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t5 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t6 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t7 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %g[%c0, %c0] into %t8 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t0 into %o0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t1 into %o1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t2 into %o2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t3 into %o3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t4 into %o4 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t5 into %o5 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t6 into %o6 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t7 into %o7 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %t8 into %o8 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// A loop that may run zero times: what follows it is ordered after the
// writes before the loop and inside it by one flag set after the loop.
// CHECK-LABEL: func.func @zero_trip
func.func @zero_trip(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %n: index, %r: index) {
// The prime carries the texpands to MTE2, and MTE2 -> V hands it on to the
// tadd: no pipe_barrier V is needed.
// CHECK:      pto_isa.texpands
// CHECK-NEXT: pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: scf.for
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT:   pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   pto_isa.tadd
// CHECK-NEXT:   pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT: pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.tstore
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = arith.constant 0.0 : f32
  %acc = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texpands %s into %acc : f32, !pto_isa.tile<ub, 32x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %g[%i, %c0] into %x : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.tadd %acc, %x into %acc : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  }
  pto_isa.tstore %acc into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
  return
}

// A K loop on the cube: L1 and L0 buffers are released by reverse flags
// (MTE1 -> MTE2, M -> MTE1) carried into the next iteration; the
// accumulator is stored after the loop.
// CHECK-LABEL: func.func @cube_k_loop
func.func @cube_k_loop(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<?x128xbf16>,
                       %ws: !pto.tensor<?x64xf32>, %n: index, %r: index) {
// CHECK:      pto_isa.set_flag MTE1 -> MTE2, 0
// CHECK-NEXT: pto_isa.set_flag MTE1 -> MTE2, 1
// CHECK-NEXT: pto_isa.set_flag M -> MTE1, 0
// CHECK-NEXT: scf.for
// CHECK-NEXT:   pto_isa.wait_flag MTE1 -> MTE2, 0
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> MTE1, 0
// CHECK-NEXT:   pto_isa.wait_flag MTE1 -> MTE2, 1
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> MTE1, 1
// CHECK-NEXT:   pto_isa.wait_flag MTE2 -> MTE1, 0
// CHECK-NEXT:   pto_isa.wait_flag M -> MTE1, 0
// CHECK-NEXT:   pto_isa.textract
// CHECK-NEXT:   pto_isa.set_flag MTE1 -> MTE2, 0
// CHECK-NEXT:   pto_isa.wait_flag MTE2 -> MTE1, 1
// CHECK-NEXT:   pto_isa.textract
// CHECK-NEXT:   pto_isa.set_flag MTE1 -> M, 0
// CHECK-NEXT:   pto_isa.set_flag MTE1 -> MTE2, 1
// CHECK-NEXT:   pto_isa.wait_flag MTE1 -> M, 0
// CHECK-NEXT:   pto_isa.tmatmul_acc
// CHECK-NEXT:   pto_isa.set_flag M -> MTE1, 0
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.wait_flag MTE1 -> MTE2, 0
// CHECK-NEXT: pto_isa.wait_flag MTE1 -> MTE2, 1
// CHECK-NEXT: pto_isa.wait_flag M -> MTE1, 0
// CHECK-NEXT: pto_isa.set_flag M -> FIX, 0
// CHECK-NEXT: pto_isa.wait_flag M -> FIX, 0
// CHECK-NEXT: pto_isa.tstore
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a1 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<l1, 64x64xbf16>
  %b1 = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<l1, 64x64xbf16, zn>
  %a0 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<l0a, 64x64xbf16>
  %b0 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<l0b, 64x64xbf16>
  %acc = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<l0c, 64x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %q[%r, %i] into %a1 : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
    pto_isa.tload %k[%i, %r] into %b1 transpose : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
    pto_isa.textract %a1 into %a0 : !pto_isa.tile<l1, 64x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>
    pto_isa.textract %b1 into %b0 : !pto_isa.tile<l1, 64x64xbf16, zn>, !pto_isa.tile<l0b, 64x64xbf16>
    pto_isa.tmatmul_acc %a0, %b0 into %acc : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  }
  pto_isa.tstore %acc into %ws[%r, %c0] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<?x64xf32>
  return
}

// scf.if: accesses inside are settled before the if; a later consumer of a
// write inside it waits on a flag set right after the if (both paths).
// CHECK-LABEL: func.func @if_else
func.func @if_else(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %c: i1, %r: index) {
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT: pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT: scf.if
// CHECK-NEXT:   pto_isa.texp
// CHECK-NEXT: } else {
// CHECK-NEXT:   pto_isa.texpands
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT: pto_isa.tstore
  %c0 = arith.constant 0 : index
  %s = arith.constant 1.0 : f32
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  scf.if %c {
    pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  } else {
    pto_isa.texpands %s into %b : f32, !pto_isa.tile<ub, 32x64xf32>
  }
  pto_isa.tstore %b into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
  return
}

// Nested loops: the inner loop's carried flags are primed and drained inside
// the outer body, with ids distinct from the outer loop's.
// CHECK-LABEL: func.func @nested_loops
func.func @nested_loops(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %n: index, %m: index, %r: index) {
// The tadd's MTE2 -> V flag, set after the inner load, also covers the outer
// load (MTE2 runs in order): the outer body needs no flag of its own.
// CHECK:      pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: scf.for
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag V -> MTE2, 1
// CHECK-NEXT:   pto_isa.set_flag MTE3 -> V, 0
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     pto_isa.wait_flag V -> MTE2, 1
// CHECK-NEXT:     pto_isa.tload
// CHECK-NEXT:     pto_isa.set_flag MTE2 -> V, 0
// CHECK-NEXT:     pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT:     pto_isa.wait_flag MTE3 -> V, 0
// CHECK-NEXT:     pto_isa.tadd
// CHECK-NEXT:     pto_isa.set_flag V -> MTE3, 0
// CHECK-NEXT:     pto_isa.set_flag V -> MTE2, 1
// CHECK-NEXT:     pto_isa.wait_flag V -> MTE3, 0
// CHECK-NEXT:     pto_isa.tstore
// CHECK-NEXT:     pto_isa.set_flag MTE3 -> V, 0
// CHECK-NEXT:   }
// CHECK-NEXT:   pto_isa.wait_flag V -> MTE2, 1
// CHECK-NEXT:   pto_isa.wait_flag MTE3 -> V, 0
// CHECK-NEXT:   pto_isa.set_flag V -> MTE2, 0
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.wait_flag V -> MTE2, 0
// CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] at 16384 : !pto_isa.tile<ub, 32x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %g[%i, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    scf.for %j = %c0 to %m step %c1 {
      pto_isa.tload %g[%j, %c0] into %b : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
      pto_isa.tadd %a, %b into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
      pto_isa.tstore %c into %o[%j, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
    }
  }
  return
}

// Before memory planning every alloc_tile is its own buffer; scf.while is
// handled conservatively with full barriers.
// CHECK-LABEL: func.func @while_loop
func.func @while_loop(%g: !pto.tensor<?x64xf32>, %c: i1, %r: index) {
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.pipe_barrier ALL
// CHECK-NEXT: scf.while
// CHECK-NEXT:   scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT:   pto_isa.pipe_barrier ALL
// CHECK-NEXT:   pto_isa.texp
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: pto_isa.pipe_barrier ALL
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    scf.yield
  }
  return
}

// No hazard: nothing is inserted.
// CHECK-LABEL: func.func @no_hazard
func.func @no_hazard(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %r: index) {
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.texp
// CHECK-NEXT: pto_isa.tstore
// CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.texp %b into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tstore %d into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
  return
}

// Nine buffers released across iterations: eight carried V -> MTE2 flags take
// every id of the pair for the whole loop; the ninth falls back to
// pipe_barrier ALL (which also orders the eight loads before the vector ops).
// CHECK-LABEL: func.func @carried_ids_exhausted
func.func @carried_ids_exhausted(%g: !pto.tensor<?x64xf32>, %n: index, %r: index) {
// CHECK-COUNT-8: pto_isa.set_flag V -> MTE2, {{[0-7]}}
// CHECK-NEXT: scf.for
// CHECK:        pto_isa.wait_flag V -> MTE2, 7
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.pipe_barrier ALL
// CHECK-NEXT:   pto_isa.tload
// CHECK-NEXT:   pto_isa.set_flag MTE2 -> V, 0
// CHECK:        pto_isa.wait_flag MTE2 -> V, 0
// CHECK-NEXT:   pto_isa.pipe_barrier V
// CHECK-NEXT:   pto_isa.texp
// CHECK-NEXT: }
// CHECK-COUNT-8: pto_isa.wait_flag V -> MTE2, {{[0-7]}}
// CHECK-NEXT: return
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 8x64xf32>
  %t1 = pto_isa.alloc_tile valid [%r, %r] at 2048 : !pto_isa.tile<ub, 8x64xf32>
  %t2 = pto_isa.alloc_tile valid [%r, %r] at 4096 : !pto_isa.tile<ub, 8x64xf32>
  %t3 = pto_isa.alloc_tile valid [%r, %r] at 6144 : !pto_isa.tile<ub, 8x64xf32>
  %t4 = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 8x64xf32>
  %t5 = pto_isa.alloc_tile valid [%r, %r] at 10240 : !pto_isa.tile<ub, 8x64xf32>
  %t6 = pto_isa.alloc_tile valid [%r, %r] at 12288 : !pto_isa.tile<ub, 8x64xf32>
  %t7 = pto_isa.alloc_tile valid [%r, %r] at 14336 : !pto_isa.tile<ub, 8x64xf32>
  %t8 = pto_isa.alloc_tile valid [%r, %r] at 16384 : !pto_isa.tile<ub, 8x64xf32>
  %t9 = pto_isa.alloc_tile valid [%r, %r] at 18432 : !pto_isa.tile<ub, 8x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %g[%i, %c0] into %t0 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t1 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t2 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t3 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t4 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t5 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t6 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t7 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.tload %g[%i, %c0] into %t8 : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t0 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t1 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t2 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t3 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t4 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t5 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t6 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t7 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
    pto_isa.texp %t8 into %t9 : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>
  }
  return
}

// A call: everything completes before and after it.
func.func private @callee(%t: !pto_isa.tile<ub, 32x64xf32>)
// CHECK-LABEL: func.func @call
func.func @call(%g: !pto.tensor<?x64xf32>, %r: index) {
// CHECK:      pto_isa.tload
// CHECK-NEXT: pto_isa.pipe_barrier ALL
// CHECK-NEXT: call @callee
// CHECK-NEXT: pto_isa.pipe_barrier ALL
// CHECK-NEXT: pto_isa.texp
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  func.call @callee(%a) : (!pto_isa.tile<ub, 32x64xf32>) -> ()
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// Stale sync ops in a function without instructions are dropped (found by
// the fuzz harness's emission stage: they used to survive and unpair).
// CHECK-LABEL: func.func @stale_flags_only
// CHECK-NOT: pto_isa.
// CHECK: return
func.func @stale_flags_only(%c: i1) {
  scf.if %c {
    pto_isa.set_flag MTE2 -> V, 0
  }
  pto_isa.wait_flag MTE2 -> V, 0
  return
}
