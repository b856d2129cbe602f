// RUN: pto-opt %s -split-input-file -verify-diagnostics --pto-isa-verify-sync

// The checker of pto-isa-insert-sync rejects each kind of mistake.

func.func @missing_flag(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-note @+1 {{the earlier instruction}}
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{RAW hazard with 'pto_isa.tload' on MTE2 that no flag orders before this instruction on V (missing set_flag/wait_flag MTE2 -> V)}}
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// A flag set before the instruction it should cover orders nothing.
func.func @set_too_early(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.set_flag MTE2 -> V, 0
  // expected-note @+1 {{the earlier instruction}}
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.wait_flag MTE2 -> V, 0
  // expected-error @+1 {{RAW hazard}}
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @missing_v_barrier(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-note @+1 {{the earlier instruction}}
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{RAW hazard on V with 'pto_isa.texp' and no pipe_barrier V in between}}
  pto_isa.tabs %b into %a : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @reused_triple() {
  pto_isa.set_flag MTE2 -> V, 3
  // expected-error @+1 {{set_flag MTE2 -> V, 3 while the triple is still pending on some path}}
  pto_isa.set_flag MTE2 -> V, 3
  pto_isa.wait_flag MTE2 -> V, 3
  return
}

// -----

func.func @unpaired_wait() {
  // expected-error @+1 {{wait_flag V -> MTE3, 0 without a pending set_flag of the triple on some path}}
  pto_isa.wait_flag V -> MTE3, 0
  return
}

// -----

func.func @pending_at_end() {
  // expected-error @+1 {{flag MTE1 -> M, 2 is still pending at the end of the function}}
  pto_isa.set_flag MTE1 -> M, 2
  return
}

// -----

// Set on one side of an if only: the wait after it is unpaired on the other.
func.func @if_one_side(%c: i1) {
  scf.if %c {
    pto_isa.set_flag MTE2 -> V, 0
  }
  // expected-error @+1 {{wait_flag MTE2 -> V, 0 without a pending set_flag}}
  pto_isa.wait_flag MTE2 -> V, 0
  return
}

// -----

// A flag set in every iteration and waited once after the loop.
func.func @set_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{set_flag MTE2 -> V, 0 while the triple is still pending}}
    pto_isa.set_flag MTE2 -> V, 0
  }
  // expected-error @+1 {{wait_flag MTE2 -> V, 0 without a pending set_flag}}
  pto_isa.wait_flag MTE2 -> V, 0
  return
}

// -----

// Iteration i + 1 overwrites the buffer iteration i's vector op still reads.
func.func @loop_carried_war(%g: !pto.tensor<?x64xf32>, %n: index, %r: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.pipe_barrier V
    // expected-error @+1 {{WAR hazard with 'pto_isa.texp' on V that no flag orders before this instruction on MTE2}}
    pto_isa.tload %g[%i, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    pto_isa.wait_flag MTE2 -> V, 0
    // expected-note @+1 {{the earlier instruction}}
    pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  }
  return
}

// -----

// Planned tiles that share bytes are one buffer.
func.func @planned_overlap(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 4096 : !pto_isa.tile<ub, 32x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] at 16384 : !pto_isa.tile<ub, 32x64xf32>
  // expected-note @+1 {{the earlier instruction}}
  pto_isa.texp %a into %c : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{WAR hazard with 'pto_isa.texp' on V}}
  pto_isa.tload %g[%c0, %c0] into %b : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @gm_raw(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-note @+1 {{the earlier instruction}}
  pto_isa.tstore %a into %g[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<64x64xf32>
  // expected-error @+1 {{RAW hazard with 'pto_isa.tstore' on MTE3 that no flag orders before this instruction on MTE2}}
  pto_isa.tload %g[%c0, %c0] into %b : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// Correct synchronisation passes.
func.func @correct(%g: !pto.tensor<64x64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  pto_isa.tload %g[%c0, %c0] into %a : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.set_flag MTE2 -> V, 0
  pto_isa.wait_flag MTE2 -> V, 0
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  pto_isa.pipe_barrier V
  pto_isa.tabs %b into %a : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}
