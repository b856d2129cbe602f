// RUN: pto-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --pto-lint -verify-diagnostics -o /dev/null

// Scope purity on IR that skipped the verifier (which rejects it too, see
// invalid.mlir): a DAV_2201 scope mixing a matmul and a vector op.

pto.kernel @mixed_scope(%q: !pto.tensor<64x64xbf16>, %k: !pto.tensor<64x64xbf16>, %y: !pto.tensor<64x64xf32>) attributes {arch = #pto.arch<DAV_2201>} {
  %qt = pto.view %q[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  %kt = pto.view %k[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  // expected-error@+1 {{[LINT-SCOPE-PURITY] scope 1 mixes the cube op 'pto.matmul' and the vector op 'pto.exp', which DAV_2201 cannot run as one subgraph (no on-chip cube-vector path); fix: keep cube ops out of the scope}}
  pto.scope #pto.scope<id = 1> {
    // expected-note@+1 {{the cube op is here}}
    %s = pto.matmul %qt, %kt {b_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>} : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
    // expected-note@+1 {{the vector op is here}}
    %e = pto.exp %s {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %e, %y[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
}
