// RUN: pto-translate --pto-to-cpp %s -split-input-file -verify-diagnostics -o /dev/null

func.func private @leaf(%r: index) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @below {{pto-to-cpp needs placed tiles (pto-isa-plan-memory); compile the module with `pto-opt --pto-ascend-pipeline` first}}
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func private @leaf(%x: !pto.tensor<?x64xf32>, %r: index) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @below {{'pto.view' in a leaf not lowered to pto_isa; compile the module with `pto-opt --pto-ascend-pipeline` first}}
  %v = pto.view %x[%r, 0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

// expected-error @below {{pto-to-cpp prints leaf (pto.leaf) and root (pto.root) functions only; compile the module with `pto-opt --pto-ascend-pipeline` first}}
func.func @plain() {
  return
}

// -----

func.func private @leaf() attributes {pto.leaf = #pto.core<mix>} {
  return
}
// expected-error @-3 {{pto-to-cpp prints MIX leaves split into their AIC and AIV parts; run pto-isa-split-mix on 'leaf'}}

// -----

pto.kernel @k(%x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{pto-to-cpp: result #0 of type '!pto.tensor<?x64xf32>' is carried out of a region; the control program carries scalars only (tiles and tensors live in workspaces after the tile-graph pipeline)}}
  %r = pto.loop "L" %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> (!pto.tensor<?x64xf32>) {
    pto.yield %a : !pto.tensor<?x64xf32>
  }
  pto.return
}

// -----

pto.kernel @k(%x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'pto.view' in the control program; compile the module with `pto-opt --pto-ascend-pipeline` first}}
  %v = pto.view %x[%c0, 0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  pto.return
}

// -----

func.func private @leaf(%r: index) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @below {{pto-to-cpp prints 1-D tables of scalars only (the per-piece tables of pto-isa-roll-pieces), not 'tensor<1x2xindex>'}}
  %t = tensor.from_elements %r, %r : tensor<1x2xindex>
  return
}

// -----

// A launch's GM arguments order it against other root instances (its
// GmUse list), so each must be a tensor the emitter bound: a root argument,
// a workspace or a reshape of one. A GM value made any other way stops at
// its own definition, before the launch could use it (EmitControl's
// launchGMUses relies on this and reports the launch otherwise).
func.func private @leaf(%x: !pto.tensor<16x64xf32>) attributes {pto.leaf = #pto.core<vector>} {
  return
}
func.func private @root(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>, %c: i1) attributes {pto.root} {
  // expected-error @below {{pto-to-cpp: no C++ type for '!pto.tensor<16x64xf32>'}}
  %s = arith.select %c, %x, %y : !pto.tensor<16x64xf32>
  %t = pto.launch @leaf(%s) : (!pto.tensor<16x64xf32>) -> !pto.token
  return
}
