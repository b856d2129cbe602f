// RUN: pto-opt %s -split-input-file -pto-split-kernel-units | FileCheck %s
// Split then join gives the input back.
// RUN: pto-opt %s -split-input-file -o %t.in
// RUN: pto-opt %s -split-input-file -pto-split-kernel-units -pto-join-kernel-units -o %t.joined
// RUN: diff %t.in %t.joined

// Kernels only: one unit each, in order.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      pto.kernel @first(
// CHECK:         module attributes {pto.kernel_unit} {
// CHECK-NEXT:      pto.kernel @second(
pto.kernel @first(%x: !pto.tensor<16xf32>) {
}
pto.kernel @second(%x: !pto.tensor<16xf32>) {
}

// -----

// Outlined input: each kernel's unit holds the roots and leaves it reaches
// (pto.root_call -> root -> pto.launch -> leaf).
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      func.func private @a_leaf(
// CHECK:           func.func private @a_root(
// CHECK:           pto.kernel @a(
// CHECK:         module attributes {pto.kernel_unit} {
// CHECK-NEXT:      func.func private @b_leaf(
// CHECK:           func.func private @b_root(
// CHECK:           pto.kernel @b(
func.func private @a_leaf(%ws: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @a_root() attributes {pto.root} {
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  %t = pto.launch @a_leaf(%ws) : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @a(%x: !pto.tensor<16xf32>) {
  pto.root_call @a_root() : () -> ()
}
func.func private @b_leaf(%ws: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @b_root() attributes {pto.root} {
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  %t = pto.launch @b_leaf(%ws) : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @b(%x: !pto.tensor<16xf32>) {
  pto.root_call @b_root() : () -> ()
}

// -----

// A leaf two kernels reach: one unit for all.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      func.func private @shared_leaf(
// CHECK:           pto.kernel @c(
// CHECK:           pto.kernel @d(
// CHECK-NOT:     module attributes {pto.kernel_unit}
func.func private @shared_leaf(%ws: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @c_root() attributes {pto.root} {
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  %t = pto.launch @shared_leaf(%ws) : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @c(%x: !pto.tensor<16xf32>) {
  pto.root_call @c_root() : () -> ()
}
func.func private @d_root() attributes {pto.root} {
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  %t = pto.launch @shared_leaf(%ws) : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @d(%x: !pto.tensor<16xf32>) {
  pto.root_call @d_root() : () -> ()
}

// -----

// The two kernels' roots interleaved: the join could not restore the order
// from two units, so one unit for all.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      func.func private @e_root(
// CHECK:           func.func private @f_root(
// CHECK:           pto.kernel @e(
// CHECK:           pto.kernel @f(
// CHECK-NOT:     module attributes {pto.kernel_unit}
func.func private @e_root() attributes {pto.root} {
  return
}
func.func private @f_root() attributes {pto.root} {
  return
}
pto.kernel @e(%x: !pto.tensor<16xf32>) {
  pto.root_call @e_root() : () -> ()
}
pto.kernel @f(%x: !pto.tensor<16xf32>) {
  pto.root_call @f_root() : () -> ()
}

// -----

// A function no kernel reaches: passes on the module see it, so it stays
// with the kernels, in one unit.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      pto.kernel @g(
// CHECK:           func.func private @unused(
// CHECK:           pto.kernel @h(
// CHECK-NOT:     module attributes {pto.kernel_unit}
pto.kernel @g(%x: !pto.tensor<16xf32>) {
}
func.func private @unused() {
  return
}
pto.kernel @h(%x: !pto.tensor<16xf32>) {
}

// -----

// A nested module (not a unit): one unit for all, so that the passes nested
// on units do not reach into it.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      pto.kernel @i(
// CHECK:           module @inner {
// CHECK:             pto.kernel @j(
// CHECK-NOT:     module attributes {pto.kernel_unit}
pto.kernel @i(%x: !pto.tensor<16xf32>) {
}
module @inner {
  pto.kernel @j(%x: !pto.tensor<16xf32>) {
  }
}

// -----

// No kernel, only functions: one unit, so the pipeline's passes still run on
// them.
// CHECK-LABEL: module {
// CHECK-NEXT:    module attributes {pto.kernel_unit} {
// CHECK-NEXT:      func.func @lone(
// CHECK-NOT:     module attributes {pto.kernel_unit}
func.func @lone() {
  return
}

// -----

// An empty module stays empty.
// CHECK-LABEL: module {
// CHECK-NEXT:  }
