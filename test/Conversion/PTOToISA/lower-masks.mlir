// RUN: pto-opt %s --pto-lower-to-isa -split-input-file -verify-diagnostics | FileCheck %s

// DT_BOOL masks in a vector leaf: a compare writes a packed ui8 mask (one bit
// per column, [R, ceil(C / 8)] rounded up to 32-byte rows, valid bytes
// ceil(validCols / 8)), the where in the same leaf reads it.

// CHECK-LABEL: func.func private @sign_sqrt_leaf(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[VR:.*]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[M:.*]] = pto_isa.alloc_tile valid [%[[VR]], %{{.*}}] : !pto_isa.tile<ub, 16x32xui8>
// CHECK-NEXT:    pto_isa.tcmps %[[X]], %{{.*}} into %[[M]] ge : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x32xui8>
// CHECK:         %[[N:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tneg %[[X]] into %[[N]]
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    %[[D:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tsel %[[M]], %[[X]], %[[N]], %[[T]] into %[[D]]
// CHECK:         pto_isa.tstore %[[D]]
func.func private @sign_sqrt_leaf(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = pto.view %x[%r, %c0] valid [%v, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %m = pto.compare ge, %t, %zero : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  %n = pto.neg %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %s = pto.where %m, %t, %n : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %s, %y[%r, %c0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

// Tile against tile (tcmp), a scalar on_false (tsels), a scalar on_true
// (texpands then tsel).
// CHECK-LABEL: func.func private @tile_and_scalars_leaf(
// CHECK:         pto_isa.tcmp %{{.*}}, %{{.*}} into %[[M:.*]] gt : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x32xui8>
// CHECK:         pto_isa.tsels %[[M]], %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 8x32xui8>, !pto_isa.tile<ub, 8x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.texpands %{{.*}} into %[[F:.*]] : f32, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tsel %[[M]], %[[F]], %{{.*}}, %{{.*}} into
func.func private @tile_and_scalars_leaf(%x: !pto.tensor<8x64xf32>, %y: !pto.tensor<8x64xf32>, %o: !pto.tensor<8x64xf32>, %p: !pto.tensor<8x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %b = pto.view %y[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %m = pto.compare gt, %a, %b : !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xi1>
  %k = pto.where %m, %a, %zero : !pto.tile<8x64xi1>, !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xf32>
  %f = pto.where %m, %one, %b : !pto.tile<8x64xi1>, f32, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %k, %o[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  pto.assemble %f, %p[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  return
}

// -----

// Run-time valid columns: ceil(validCols / 8) bytes of mask.
// CHECK-LABEL: func.func private @dynamic_columns_leaf(
// CHECK:         %[[B:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[M:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %[[B]]] : !pto_isa.tile<ub, 16x32xui8>
// CHECK-NEXT:    pto_isa.tcmps
func.func private @dynamic_columns_leaf(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = pto.view %x[%r, %c0] valid [%v, %v] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %m = pto.compare ge, %t, %zero : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  %s = pto.where %m, %t, %zero : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
  pto.assemble %s, %y[%r, %c0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

// A broadcast value of a where is expanded to the result first (an [8, 1]
// column by trowexpand, a [1, 64] row by tcolexpand), then selected.
// CHECK-LABEL: func.func private @where_broadcast_values_leaf(
// CHECK:         pto_isa.tcmps %{{.*}}, %{{.*}} into %[[M:.*]] lt
// CHECK:         pto_isa.trowexpand %{{.*}} into %[[C:.*]] : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tcolexpand %{{.*}} into %[[R:.*]] : !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tsel %[[M]], %[[C]], %[[R]], %{{.*}} into
func.func private @where_broadcast_values_leaf(%x: !pto.tensor<8x64xf32>, %c: !pto.tensor<8x1xf32>, %g: !pto.tensor<1x64xf32>, %o: !pto.tensor<8x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %zero = arith.constant 0.0 : f32
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %col = pto.view %c[0, 0] : !pto.tensor<8x1xf32> -> !pto.tile<8x1xf32>
  %row = pto.view %g[0, 0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %m = pto.compare lt, %a, %zero : !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xi1>
  %k = pto.where %m, %col, %row : !pto.tile<8x64xi1>, !pto.tile<8x1xf32>, !pto.tile<1x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %k, %o[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  return
}

// -----

// DT_BOOL in GM is one byte per element: a stored mask becomes 1.0 / 0.0
// (tsels, f16), then bytes (tcvt f16 -> ui8), then a tstore; a loaded one is
// tloaded as bytes, widened (tcvt ui8 -> f16) and compared with 0 (tcmps ne).
// CHECK-LABEL: func.func private @mask_store_leaf(
// CHECK:         pto_isa.tcmps %{{.*}}, %{{.*}} into %[[M:.*]] lt
// CHECK:         pto_isa.texpands %{{.*}} into %[[ONES:.*]] : f16, !pto_isa.tile<ub, 8x64xf16>
// CHECK:         pto_isa.tsels %[[M]], %[[ONES]], %{{.*}}, %{{.*}} into %[[NUM:.*]] : !pto_isa.tile<ub, 8x32xui8>, !pto_isa.tile<ub, 8x64xf16>, f16
// CHECK:         pto_isa.tcvt %[[NUM]] into %[[B:.*]] mode <NONE> {{.*}}: !pto_isa.tile<ub, 8x64xf16>, !pto_isa.tile<ub, 8x64xui8>
// CHECK:         pto_isa.tstore %[[B]] into %{{.*}} : !pto_isa.tile<ub, 8x64xui8>, !pto.tensor<8x64xi1>
func.func private @mask_store_leaf(%x: !pto.tensor<8x64xf32>, %o: !pto.tensor<8x64xi1>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %zero = arith.constant 0.0 : f32
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %m = pto.compare lt, %a, %zero : !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xi1>
  pto.assemble %m, %o[0, 0] : !pto.tile<8x64xi1>, !pto.tensor<8x64xi1>
  return
}

// -----

// CHECK-LABEL: func.func private @mask_load_leaf(
// CHECK:         pto_isa.tload %{{.*}} into %[[B:.*]] : !pto.tensor<?x40xi1>, !pto_isa.tile<ub, 16x64xui8>
// CHECK:         pto_isa.tcvt %[[B]] into %[[H:.*]] mode <NONE> {{.*}}: !pto_isa.tile<ub, 16x64xui8>, !pto_isa.tile<ub, 16x64xf16>
// CHECK:         pto_isa.tcmps %[[H]], %{{.*}} into %[[M:.*]] ne : !pto_isa.tile<ub, 16x64xf16>, f16, !pto_isa.tile<ub, 16x32xui8>
// CHECK:         pto_isa.tsels %[[M]],
func.func private @mask_load_leaf(%x: !pto.tensor<?x40xf32>, %k: !pto.tensor<?x40xi1>, %o: !pto.tensor<?x40xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = pto.view %x[%r, %c0] valid [%v, 40] : !pto.tensor<?x40xf32> -> !pto.tile<16x40xf32>
  %m = pto.view %k[%r, %c0] valid [%v, 40] : !pto.tensor<?x40xi1> -> !pto.tile<16x40xi1>
  %s = pto.where %m, %a, %zero : !pto.tile<16x40xi1>, !pto.tile<16x40xf32>, f32 -> !pto.tile<16x40xf32>
  pto.assemble %s, %o[%r, %c0] : !pto.tile<16x40xf32>, !pto.tensor<?x40xf32>
  return
}

// -----

// An atomic add of a mask has no meaning in PyPTO (numbers only).
func.func private @mask_atomic_leaf(%x: !pto.tensor<8x64xf32>, %o: !pto.tensor<8x64xi1>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %zero = arith.constant 0.0 : f32
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %m = pto.compare lt, %a, %zero : !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xi1>
  // expected-error @+1 {{'pto.atomic_add' op adds a DT_BOOL (i1) tile into GM atomically}}
  pto.atomic_add %m, %o[0, 0] : !pto.tile<8x64xi1>, !pto.tensor<8x64xi1>
  return
}

// -----

// A broadcast operand of a compare is expanded to the result first (the
// [8, 1] column by trowexpand into the other operand's tile type), then
// compared; a [1, 64] row against an [8, 1] column expands both.
// CHECK-LABEL: func.func private @compare_broadcast_leaf(
// CHECK:         pto_isa.trowexpand %{{.*}} into %[[C:.*]] : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tcmp %{{.*}}, %[[C]] into %[[M:.*]] lt : !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x64xf32>, !pto_isa.tile<ub, 8x32xui8>
// CHECK:         pto_isa.tcolexpand %{{.*}} into %[[R:.*]] : !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.trowexpand %{{.*}} into %[[C2:.*]] : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tcmp %[[R]], %[[C2]] into %{{.*}} ge
func.func private @compare_broadcast_leaf(%x: !pto.tensor<8x64xf32>, %c: !pto.tensor<8x1xf32>, %g: !pto.tensor<1x64xf32>, %o: !pto.tensor<8x64xf32>, %p: !pto.tensor<8x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %b = pto.view %c[0, 0] : !pto.tensor<8x1xf32> -> !pto.tile<8x1xf32>
  %r = pto.view %g[0, 0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %m = pto.compare lt, %a, %b : !pto.tile<8x64xf32>, !pto.tile<8x1xf32> -> !pto.tile<8x64xi1>
  %k = pto.where %m, %a, %a : !pto.tile<8x64xi1>, !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %k, %o[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  %n = pto.compare ge, %r, %b : !pto.tile<1x64xf32>, !pto.tile<8x1xf32> -> !pto.tile<8x64xi1>
  %l = pto.where %n, %a, %a : !pto.tile<8x64xi1>, !pto.tile<8x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %l, %p[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  return
}

// -----

// A broadcast condition ([8, 1] mask) goes through numbers: 1.0 / 0.0 by its
// mask (tsels), expanded (trowexpand), compared with 0 into a full mask.
// CHECK-LABEL: func.func private @where_broadcast_condition_leaf(
// CHECK:         pto_isa.tcmp %{{.*}}, %{{.*}} into %[[M:.*]] gt : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x32xui8>
// CHECK:         pto_isa.texpands %{{.*}} into %[[ONES:.*]] : f32, !pto_isa.tile<ub, 8x8xf32>
// CHECK:         pto_isa.tsels %[[M]], %[[ONES]], %{{.*}}, %{{.*}} into %[[NUM:.*]] : !pto_isa.tile<ub, 8x32xui8>, !pto_isa.tile<ub, 8x8xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 8x8xf32>
// CHECK:         pto_isa.trowexpand %[[NUM]] into %[[W:.*]] : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 8x64xf32>
// CHECK:         pto_isa.tcmps %[[W]], %{{.*}} into %[[FULL:.*]] ne : !pto_isa.tile<ub, 8x64xf32>, f32, !pto_isa.tile<ub, 8x32xui8>
// CHECK:         pto_isa.tsels %[[FULL]],
func.func private @where_broadcast_condition_leaf(%x: !pto.tensor<8x64xf32>, %c: !pto.tensor<8x1xf32>, %d: !pto.tensor<8x1xf32>, %o: !pto.tensor<8x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %zero = arith.constant 0.0 : f32
  %a = pto.view %x[0, 0] : !pto.tensor<8x64xf32> -> !pto.tile<8x64xf32>
  %b = pto.view %c[0, 0] : !pto.tensor<8x1xf32> -> !pto.tile<8x1xf32>
  %e = pto.view %d[0, 0] : !pto.tensor<8x1xf32> -> !pto.tile<8x1xf32>
  %m = pto.compare gt, %b, %e : !pto.tile<8x1xf32>, !pto.tile<8x1xf32> -> !pto.tile<8x1xi1>
  %k = pto.where %m, %a, %zero : !pto.tile<8x1xi1>, !pto.tile<8x64xf32>, f32 -> !pto.tile<8x64xf32>
  pto.assemble %k, %o[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  return
}
