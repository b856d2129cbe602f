// RUN: pto-opt %s --pto-isa-split-mix -split-input-file -verify-diagnostics | FileCheck %s

// A MIX leaf: two accumulators moved L0C -> UB, the vector part reading
// them. The leaf keeps the cube instructions and the moves, each followed by
// its intra-block flag on FIX; the AIV part gets the vector instructions,
// waiting for move k right before its first read of moved tile k.
// CHECK-LABEL: func.func private @m(
// CHECK-SAME:    pto.leaf = #pto.core<mix>
// CHECK-SAME:    pto.mix_aiv = @m_aiv
// CHECK:         pto_isa.tmatmul
// CHECK:         pto_isa.tmov %[[A0:.*]] into %[[U0:.*]] : !pto_isa.tile<l0c, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 0
// CHECK:         pto_isa.tmov %{{.*}} into %{{.*}} : !pto_isa.tile<l0c, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 1
// CHECK-NOT:     pto_isa.tmuls
// CHECK-NOT:     pto_isa.tstore
// CHECK:         return
// CHECK-LABEL: func.func private @m_aiv(
// CHECK-SAME:    pto.leaf = #pto.core<vector>
// CHECK-SAME:    pto.mix_aic = @m
// CHECK-NOT:     pto_isa.tmatmul
// CHECK-NOT:     pto_isa.tmov
// CHECK-DAG:     %[[V0:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<ub, 16x32xf32>
// CHECK-DAG:     %[[V1:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 2048 : !pto_isa.tile<ub, 16x32xf32>
// CHECK:         pto_isa.wait_intra_block S, 1
// CHECK-NEXT:    pto_isa.tmuls %[[V1]]
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tmuls %[[V0]]
// CHECK:         pto_isa.tstore
// CHECK:         return
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @m(%a: !pto.tensor<32x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  %l1 = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<l1, 32x32xf32>
  pto_isa.tload %a[%c0, %c0] into %l1 : !pto.tensor<32x32xf32>, !pto_isa.tile<l1, 32x32xf32>
  %la = pto_isa.alloc_tile valid [%c16, %c32] at 0 : !pto_isa.tile<l0a, 16x32xf32>
  pto_isa.textract %l1 into %la : !pto_isa.tile<l1, 32x32xf32>, !pto_isa.tile<l0a, 16x32xf32>
  %lb = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<l0b, 32x32xf32>
  pto_isa.textract %l1 into %lb : !pto_isa.tile<l1, 32x32xf32>, !pto_isa.tile<l0b, 32x32xf32>
  %acc0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 : !pto_isa.tile<l0c, 16x32xf32>
  pto_isa.tmatmul %la, %lb into %acc0 : !pto_isa.tile<l0a, 16x32xf32>, !pto_isa.tile<l0b, 32x32xf32>, !pto_isa.tile<l0c, 16x32xf32>
  %u0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tmov %acc0 into %u0 : !pto_isa.tile<l0c, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  %acc1 = pto_isa.alloc_tile valid [%c16, %c32] at 2048 : !pto_isa.tile<l0c, 16x32xf32>
  pto_isa.tmatmul %la, %lb into %acc1 : !pto_isa.tile<l0a, 16x32xf32>, !pto_isa.tile<l0b, 32x32xf32>, !pto_isa.tile<l0c, 16x32xf32>
  %u1 = pto_isa.alloc_tile valid [%c16, %c32] at 2048 : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tmov %acc1 into %u1 : !pto_isa.tile<l0c, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  // The vector part reads the second move first.
  %d1 = pto_isa.alloc_tile valid [%c16, %c32] at 4096 : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tmuls %u1, %two into %d1 : !pto_isa.tile<ub, 16x32xf32>, f32, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %d1 into %y[%c16, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  %d0 = pto_isa.alloc_tile valid [%c16, %c32] at 6144 : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tmuls %u0, %two into %d0 : !pto_isa.tile<ub, 16x32xf32>, f32, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %d0 into %y[%c0, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  return
}
}

// -----

// A ring: two accumulator windows (textract l0c -> ub) take turns in UB
// slot 0. The AIC sets "filled" (0) after each move and waits for "free"
// (1) before the refill; the AIV waits for "filled" before its first read
// of each window and sets "free" on the pipe of its last read of the first
// one (not of the last: nothing refills it), as pto-isa's TPUSH / TPOP do.
// CHECK-LABEL: func.func private @ring(
// CHECK:         pto_isa.textract %{{.*}} into %{{.*}} : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 0
// CHECK:         pto_isa.wait_intra_block FIX, 1
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %{{.*}} {index_row = 16 : i64} : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 0
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @ring_aiv(
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tmuls
// CHECK-NEXT:    pto_isa.set_intra_block V, 1
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tstore
// CHECK-NOT:     pto_isa.set_intra_block
// CHECK:         return
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @ring(%y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  %acc = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<l0c, 32x32xf32>
  %w0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w0 : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  %d = pto_isa.alloc_tile valid [%c16, %c32] at 2048 : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tmuls %w0, %two into %d : !pto_isa.tile<ub, 16x32xf32>, f32, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %d into %y[%c0, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  %w1 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w1 {index_row = 16 : i64} : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w1 into %y[%c16, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  return
}
}

// -----

// Only the moves are ordered between the AIC and the AIV: a GM tensor the
// vector part writes and the cube part reads is an error.
module attributes {pto.arch = #pto.arch<DAV_3510>} {
// expected-error @+1 {{has a vector instruction writing a GM tensor that its cube part also accesses; within a MIX leaf only L0C -> UB moves are ordered between the AIC and the AIV: keep such exchanges in separate tasks (the workspace is not pto.on_chip)}}
func.func private @gm_exchange(%a: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  %x = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<ub, 32x32xf32>
  pto_isa.texpands %two into %x : f32, !pto_isa.tile<ub, 32x32xf32>
  pto_isa.tstore %x into %a[%c0, %c0] : !pto_isa.tile<ub, 32x32xf32>, !pto.tensor<32x32xf32>
  %l1 = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<l1, 32x32xf32>
  pto_isa.tload %a[%c0, %c0] into %l1 : !pto.tensor<32x32xf32>, !pto_isa.tile<l1, 32x32xf32>
  return
}
}

// -----

// Each move has its own flag, and AIV 0 has 16.
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @seventeen_moves()
    attributes {pto.leaf = #pto.core<mix>} {
  %c16 = arith.constant 16 : index
  %acc = pto_isa.alloc_tile valid [%c16, %c16] at 0 : !pto_isa.tile<l0c, 16x16xf32>
  %u0 = pto_isa.alloc_tile valid [%c16, %c16] at 0 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u0 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u1 = pto_isa.alloc_tile valid [%c16, %c16] at 1024 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u1 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u2 = pto_isa.alloc_tile valid [%c16, %c16] at 2048 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u2 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u3 = pto_isa.alloc_tile valid [%c16, %c16] at 3072 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u3 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u4 = pto_isa.alloc_tile valid [%c16, %c16] at 4096 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u4 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u5 = pto_isa.alloc_tile valid [%c16, %c16] at 5120 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u5 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u6 = pto_isa.alloc_tile valid [%c16, %c16] at 6144 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u6 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u7 = pto_isa.alloc_tile valid [%c16, %c16] at 7168 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u7 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u8 = pto_isa.alloc_tile valid [%c16, %c16] at 8192 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u8 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u9 = pto_isa.alloc_tile valid [%c16, %c16] at 9216 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u9 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u10 = pto_isa.alloc_tile valid [%c16, %c16] at 10240 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u10 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u11 = pto_isa.alloc_tile valid [%c16, %c16] at 11264 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u11 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u12 = pto_isa.alloc_tile valid [%c16, %c16] at 12288 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u12 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u13 = pto_isa.alloc_tile valid [%c16, %c16] at 13312 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u13 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u14 = pto_isa.alloc_tile valid [%c16, %c16] at 14336 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u14 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u15 = pto_isa.alloc_tile valid [%c16, %c16] at 15360 : !pto_isa.tile<ub, 16x16xf32>
  pto_isa.tmov %acc into %u15 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  %u16 = pto_isa.alloc_tile valid [%c16, %c16] at 16384 : !pto_isa.tile<ub, 16x16xf32>
  // expected-error @+1 {{is L0C -> UB move 17 of 17 into AIV 0 in this MIX leaf, in 17 UB slots needing 17 intra-block flags; AIV 0 has 16: use fewer, larger cube pieces per MIX task (cube_tile) or leave mix-exchange off}}
  pto_isa.tmov %acc into %u16 : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  return
}
}

// -----

// A loop holding both parts cannot be split between the cores.
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mixed_loop(%a: !pto.tensor<16x16xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %l1 = pto_isa.alloc_tile valid [%c16, %c16] at 0 : !pto_isa.tile<l1, 16x16xf32>
  %x = pto_isa.alloc_tile valid [%c16, %c16] at 0 : !pto_isa.tile<ub, 16x16xf32>
  // expected-error @+1 {{holds both cube and vector instructions; a MIX leaf's AIC and AIV parts must be separate ops (pto-isa-roll-pieces leaves MIX leaves straight-line)}}
  scf.for %i = %c0 to %c2 step %c1 {
    pto_isa.tload %a[%c0, %c0] into %l1 : !pto.tensor<16x16xf32>, !pto_isa.tile<l1, 16x16xf32>
    pto_isa.tload %a[%c0, %c0] into %x : !pto.tensor<16x16xf32>, !pto_isa.tile<ub, 16x16xf32>
  }
  return
}
}

// -----

// Two windows in one slot, the first still read after the second move: the
// split parts would deadlock.
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @ring_deadlock(%y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %acc = pto_isa.alloc_tile valid [%c32, %c32] at 0 : !pto_isa.tile<l0c, 32x32xf32>
  %w0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w0 : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  %w1 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  // expected-error @+1 {{refills UB ring slot 0 of AIV 0 before the AIV's last read of the slot's previous tile; the AIC would wait for the slot to be freed while the AIV waits for this move (deadlock): give tiles read together different slots (pto_isa.ring_slot)}}
  pto_isa.textract %acc into %w1 {index_row = 16 : i64} : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w0 into %y[%c0, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  pto_isa.tstore %w1 into %y[%c16, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<32x32xf32>
  return
}
}

// -----

// Two AIVs: the windows of the first two rows of a 64-row accumulator go to
// AIV 0's UB, the others to AIV 1's (pto_isa.subblock, from
// pto-lower-to-isa). Each AIV has its own ring (slot 0) and flags: the AIC
// sets and waits AIV 1's as id + 16; AIV 1's part is a vector leaf of its
// own that AIV 0's part calls on AIV 1.
// CHECK-LABEL: func.func private @two(
// CHECK-SAME:    pto.mix_aiv = @two_aiv, pto.mix_aiv1 = @two_aiv1
// CHECK:         pto_isa.textract %{{.*}} into %{{.*}} : !pto_isa.tile<l0c, 64x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 0
// CHECK:         pto_isa.textract %{{.*}} into %{{.*}} {index_row = 16 : i64}
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 16
// CHECK:         pto_isa.wait_intra_block FIX, 1
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %{{.*}} {index_row = 32 : i64}
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 0
// CHECK:         pto_isa.wait_intra_block FIX, 17
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %{{.*}} {index_row = 48 : i64}
// CHECK-NEXT:    pto_isa.set_intra_block FIX, 16
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @two_aiv1(
// CHECK-SAME:    pto.leaf = #pto.core<vector>, pto.mix_aic = @two
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}}[%c16, %c0]
// CHECK-NEXT:    pto_isa.set_intra_block MTE3, 1
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}}[%c48, %c0]
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @two_aiv(
// CHECK-SAME:    pto.leaf = #pto.core<vector>, pto.mix_aic = @two
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}}[%c0, %c0]
// CHECK-NEXT:    pto_isa.set_intra_block MTE3, 1
// CHECK:         pto_isa.wait_intra_block S, 0
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}}[%c32, %c0]
// CHECK-NEXT:    return
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @two(%y: !pto.tensor<64x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %acc = pto_isa.alloc_tile valid [%c64, %c32] at 0 : !pto_isa.tile<l0c, 64x32xf32>
  %w0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w0 : !pto_isa.tile<l0c, 64x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w0 into %y[%c0, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<64x32xf32>
  %w1 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 1 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w1 {index_row = 16 : i64} : !pto_isa.tile<l0c, 64x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w1 into %y[%c16, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<64x32xf32>
  %w2 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w2 {index_row = 32 : i64} : !pto_isa.tile<l0c, 64x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w2 into %y[%c32, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<64x32xf32>
  %w3 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 1 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w3 {index_row = 48 : i64} : !pto_isa.tile<l0c, 64x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %w3 into %y[%c48, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<64x32xf32>
  return
}
}

// -----

// A vector instruction reading a tile of each AIV: neither AIV's UB holds
// both.
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mixed_aivs(%y: !pto.tensor<16x32xf32>)
    attributes {pto.leaf = #pto.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %acc = pto_isa.alloc_tile valid [%c16, %c32] at 0 : !pto_isa.tile<l0c, 16x32xf32>
  %w0 = pto_isa.alloc_tile valid [%c16, %c32] at 0 {pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %acc into %w0 : !pto_isa.tile<l0c, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  // expected-error @+1 {{is a tile of AIV 1 used together with a tile of AIV 0 by the same vector instructions}}
  %d = pto_isa.alloc_tile valid [%c16, %c32] at 2048 {pto_isa.subblock = 1 : i64} : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tadd %w0, %w0 into %d : !pto_isa.tile<ub, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>, !pto_isa.tile<ub, 16x32xf32>
  pto_isa.tstore %d into %y[%c0, %c0] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<16x32xf32>
  return
}
}
