// pto-lower-to-isa{defer-leaves} records what the launches pass; then
// pto-lower-leaf-to-isa lowers each leaf on its own, nested on func.func.
// RUN: pto-opt %s -split-input-file --pto-lower-to-isa=defer-leaves=true | FileCheck %s --check-prefix=DEFER
// RUN: pto-opt %s -split-input-file -pass-pipeline='builtin.module(pto-lower-to-isa{defer-leaves=true},func.func(pto-lower-leaf-to-isa))' | FileCheck %s
// The two steps lower exactly as pto-lower-to-isa does.
// RUN: pto-opt %s -split-input-file --pto-lower-to-isa -o %t.module.mlir
// RUN: pto-opt %s -split-input-file -pass-pipeline='builtin.module(pto-lower-to-isa{defer-leaves=true},func.func(pto-lower-leaf-to-isa))' -o %t.nested.mlir
// RUN: diff %t.module.mlir %t.nested.mlir

// Every launch passes 16 for %r and different values for %v: the leaf gets
// [16, unit] for them (unit: not one constant), the root is left alone.
// DEFER-LABEL: func.func private @leaf(
// DEFER-SAME:    pto.launch_constants = [unit, unit, 16 : index, unit]
// DEFER:         pto.view
// DEFER-LABEL: func.func private @root(
// DEFER-NOT:     pto.launch_constants

// CHECK-LABEL: func.func private @leaf(
// CHECK-NOT:     pto.launch_constants
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK:         pto_isa.tload %{{.*}}[%[[C16]], %{{.*}}]
// CHECK-NOT:     pto.view
// CHECK:         return
func.func private @leaf(%x: !pto.tensor<96x112xf32>, %out: !pto.tensor<?x100xf32>,
                        %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 100] : !pto.tensor<96x112xf32> -> !pto.tile<32x100xf32>
  %e = pto.exp %t : !pto.tile<32x100xf32> -> !pto.tile<32x100xf32>
  pto.assemble %e, %out [%r, %c0] : !pto.tile<32x100xf32>, !pto.tensor<?x100xf32>
  return
}

func.func private @root(%x: !pto.tensor<96x112xf32>, %out: !pto.tensor<?x100xf32>, %n: index)
    attributes {pto.root} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %t0 = pto.launch @leaf(%x, %out, %c16, %n) : (!pto.tensor<96x112xf32>, !pto.tensor<?x100xf32>, index, index) -> !pto.token
  %t1 = pto.launch @leaf(%x, %out, %c16, %c32) : (!pto.tensor<96x112xf32>, !pto.tensor<?x100xf32>, index, index) -> !pto.token
  return
}

// -----

// A leaf that is never launched gets an empty record and keeps its
// arguments.
// DEFER-LABEL: func.func private @unlaunched(
// DEFER-SAME:    pto.launch_constants = []
// CHECK-LABEL: func.func private @unlaunched(
// CHECK:         pto_isa.tload %{{.*}}[%arg2,
func.func private @unlaunched(%x: !pto.tensor<96x112xf32>, %out: !pto.tensor<?x100xf32>,
                              %r: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] : !pto.tensor<96x112xf32> -> !pto.tile<32x100xf32>
  pto.assemble %t, %out [%r, %c0] : !pto.tile<32x100xf32>, !pto.tensor<?x100xf32>
  return
}
