// RUN: pto-opt %s --pto-isa-insert-sync=report=true -verify-diagnostics -o /dev/null
// RUN: pto-opt %s --pto-isa-insert-sync --pto-isa-verify-sync -o /dev/null

// expected-remark @+1 {{pto-isa-insert-sync: 3 flags (1 loop-carried), 2 pipe_barrier V, 0 pipe_barrier ALL, 9 hazards resolved}}
func.func @report(%g: !pto.tensor<?x64xf32>, %o: !pto.tensor<?x64xf32>, %n: index, %r: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = pto_isa.alloc_tile valid [%r, %r] at 0 : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] at 8192 : !pto_isa.tile<ub, 32x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    pto_isa.tload %g[%i, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.texp %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
    pto_isa.tabs %b into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  }
  pto_isa.tstore %b into %o[%c0, %c0] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xf32>
  return
}

// A function without pto_isa instructions gets no remark.
func.func @empty() {
  return
}
