// RUN: pto-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(pto-lower-leaf-to-isa))'

// expected-error @+1 {{is a leaf holding pto tiles without `pto.launch_constants`: run pto-lower-to-isa{defer-leaves} on the module first}}
func.func private @unprepared(%x: !pto.tensor<32x16xf32>, %out: !pto.tensor<32x16xf32>)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%c0, %c0] : !pto.tensor<32x16xf32> -> !pto.tile<32x16xf32>
  pto.assemble %t, %out [%c0, %c0] : !pto.tile<32x16xf32>, !pto.tensor<32x16xf32>
  return
}

// -----

// expected-error @+1 {{has a `pto.launch_constants` that pto-lower-to-isa{defer-leaves} did not write}}
func.func private @not_a_leaf() attributes {pto.launch_constants = []} {
  return
}

// -----

// expected-error @+1 {{has a `pto.launch_constants` that pto-lower-to-isa{defer-leaves} did not write}}
func.func private @not_an_array() attributes {pto.leaf = #pto.core<vector>, pto.launch_constants = 3 : index} {
  return
}
