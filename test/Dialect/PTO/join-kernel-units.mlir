// RUN: pto-opt %s -split-input-file -verify-diagnostics -pto-join-kernel-units | FileCheck %s

// The units' ops take their places, in order; a nested module that is not a
// unit is left as it is.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @a_root(
// CHECK:         pto.kernel @a(
// CHECK:         func.func private @between(
// CHECK:         module @other {
// CHECK-NEXT:      pto.kernel @inner(
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.kernel @b(
// CHECK-NOT:     pto.kernel_unit
module attributes {pto.kernel_unit} {
  func.func private @a_root() attributes {pto.root} {
    return
  }
  pto.kernel @a(%x: !pto.tensor<16xf32>) {
    pto.root_call @a_root() : () -> ()
  }
}
func.func private @between() {
  return
}
module @other {
  pto.kernel @inner(%x: !pto.tensor<16xf32>) {
  }
}
module attributes {pto.kernel_unit} {
  pto.kernel @b(%x: !pto.tensor<16xf32>) {
  }
}

// -----

// Two units that made one name: the names the pipeline derives from kernel
// names (@K_main, @K_leaf_...) can meet a kernel's when one kernel's name
// extends another's. The derived symbol is renamed in its unit, its uses
// with it; the kernel keeps its name.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @k_main_1()
// CHECK:         pto.kernel @k(
// CHECK-NEXT:      pto.root_call @k_main_1()
// CHECK:         pto.kernel @k_main(
module attributes {pto.kernel_unit} {
  func.func private @k_main() attributes {pto.root} {
    return
  }
  pto.kernel @k(%x: !pto.tensor<16xf32>) {
    pto.root_call @k_main() : () -> ()
  }
}
module attributes {pto.kernel_unit} {
  pto.kernel @k_main(%x: !pto.tensor<16xf32>) {
  }
}

// -----

// Two derived names that meet: the later unit's is renamed, past every name
// already in the module (@x_1 is taken).
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @x()
// CHECK:         pto.kernel @a(
// CHECK-NEXT:      pto.root_call @x()
// CHECK:         func.func private @x_2()
// CHECK:         pto.kernel @b(
// CHECK-NEXT:      pto.root_call @x_2()
// CHECK:         func.func private @x_1()
module attributes {pto.kernel_unit} {
  func.func private @x() attributes {pto.root} {
    return
  }
  pto.kernel @a(%x: !pto.tensor<16xf32>) {
    pto.root_call @x() : () -> ()
  }
}
module attributes {pto.kernel_unit} {
  func.func private @x() attributes {pto.root} {
    return
  }
  pto.kernel @b(%x: !pto.tensor<16xf32>) {
    pto.root_call @x() : () -> ()
  }
}
func.func private @x_1() {
  return
}

// -----

// A unit's symbol against one of the module's own.
// expected-note @below {{other definition}}
func.func private @taken() {
  return
}
module attributes {pto.kernel_unit} {
  // expected-error @below {{symbol @taken is defined in the module and by the unit of kernel @taken; rename one of them}}
  pto.kernel @taken(%x: !pto.tensor<16xf32>) {
  }
}
