// RUN: pto-translate --pto-to-cpp %s | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs against a
// NumPy golden: y = transpose(x * x, 1, 2), s = sum(y[32, 3] * g, dim 0).
// RUN: pto-translate --pto-to-cpp %s -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(1); n.save('%t.in/x.npy', r.standard_normal((32, 3, 1)).astype(n.float32)); n.save('%t.in/g.npy', r.standard_normal((1, 3)).astype(n.float32)); n.save('%t.in/y.npy', n.zeros((32, 1, 3), n.float32)); n.save('%t.in/s.npy', n.zeros((1, 3), n.float32))"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; x = n.load('%t.in/x.npy'); g = n.load('%t.in/g.npy'); y = (x * x).transpose(0, 2, 1); s = (y.reshape(32, 3) * g).sum(0, keepdims=True); assert (n.load('%t.out/y.npy') == y).all(); assert n.allclose(n.load('%t.out/s.npy'), s, rtol=1e-6), (n.load('%t.out/s.npy'), s); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// What pto-opt --pto-ascend-pipeline makes of a kernel with 3-D views (a
// transpose of a unit dim), a [1, C] column broadcast and a column sum.
// Leaves read N-D tensors through in-place 2-D reshapes: the GM window of a
// [16, 3, 1] tile of the [32, 3, 1] tensor is a [16, 3] window of [32, 3].

// CHECK-LABEL: void colk_leaf_V1_0(
// CHECK:       Stride<1, 1, 1, DYNAMIC, 1>((int)3)
// CHECK:       TMUL(
// CHECK-LABEL: void colk_leaf_V1_1(
// CHECK:       TCOLEXPANDMUL([[D:v[0-9]+]], [[F:v[0-9]+]], [[G:v[0-9]+]]);
// A column with no valid rows sums to 0, as in pto-run.
// CHECK:       { if ({{v[0-9]+}} > 0) TCOLSUM([[S:v[0-9]+]], [[X:v[0-9]+]]); else TEXPANDS([[S]], static_cast<float>(0.0f)); }

module {
  func.func private @colk_leaf_V1_0(%arg0: !pto.tensor<32x3x1xf32>, %arg1: !pto.tensor<32x1x3xf32>, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %0 = pto.reshape %arg1 [32, 3] inplace : !pto.tensor<32x1x3xf32> -> !pto.tensor<32x3xf32>
    %1 = pto.reshape %arg0 [32, 3] inplace : !pto.tensor<32x3x1xf32> -> !pto.tensor<32x3xf32>
    %2 = arith.subi %c32, %arg2 : index
    %3 = arith.maxsi %2, %c0 : index
    %4 = arith.minsi %3, %c16 : index
    %5 = arith.minsi %c16, %4 : index
    %6 = arith.subi %c3, %arg3 : index
    %7 = arith.maxsi %6, %c0 : index
    %8 = arith.minsi %7, %c3 : index
    %9 = arith.minsi %c3, %8 : index
    %10 = arith.subi %c1, %arg4 : index
    %11 = arith.maxsi %10, %c0 : index
    %12 = arith.minsi %11, %c1 : index
    %13 = arith.minsi %c1, %12 : index
    %14 = arith.muli %9, %13 : index
    %15 = pto_isa.alloc_tile valid [%5, %14] at 0 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.tload %1[%arg2, %arg3] into %15 : !pto.tensor<32x3xf32>, !pto_isa.tile<ub, 16x8xf32>
    %16 = arith.subi %c32, %arg5 : index
    %17 = arith.maxsi %16, %c0 : index
    %18 = arith.minsi %17, %c16 : index
    %19 = arith.minsi %c16, %18 : index
    %20 = arith.subi %c3, %arg6 : index
    %21 = arith.maxsi %20, %c0 : index
    %22 = arith.minsi %21, %c3 : index
    %23 = arith.minsi %c3, %22 : index
    %24 = arith.subi %c1, %arg7 : index
    %25 = arith.maxsi %24, %c0 : index
    %26 = arith.minsi %25, %c1 : index
    %27 = arith.minsi %c1, %26 : index
    %28 = arith.muli %23, %27 : index
    %29 = pto_isa.alloc_tile valid [%19, %28] at 512 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.tload %1[%arg5, %arg6] into %29 : !pto.tensor<32x3xf32>, !pto_isa.tile<ub, 16x8xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %30 = arith.muli %9, %13 : index
    %31 = pto_isa.alloc_tile valid [%5, %30] at 1024 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tmul %15, %29 into %31 : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x8xf32>
    pto_isa.set_flag V -> MTE3, 0
    %32 = arith.addi %arg8, %arg9 : index
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %31 into %0[%32, %arg10] : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<32x3xf32>
    return
  }
  func.func private @colk_leaf_V1_1(%arg0: !pto.tensor<32x3xf32>, %arg1: !pto.tensor<1x3xf32>, %arg2: !pto.tensor<32x3xf32>, %arg3: !pto.tensor<1x3xf32>, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index, %arg13: index, %arg14: index, %arg15: index, %arg16: index, %arg17: index, %arg18: index, %arg19: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %0 = arith.subi %c32, %arg4 : index
    %1 = arith.maxsi %0, %c0 : index
    %2 = arith.minsi %1, %c16 : index
    %3 = arith.minsi %c16, %2 : index
    %4 = arith.subi %c3, %arg5 : index
    %5 = arith.maxsi %4, %c0 : index
    %6 = arith.minsi %5, %c3 : index
    %7 = arith.minsi %c3, %6 : index
    %8 = pto_isa.alloc_tile valid [%3, %7] at 0 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.tload %arg0[%arg4, %arg5] into %8 : !pto.tensor<32x3xf32>, !pto_isa.tile<ub, 16x8xf32>
    %9 = arith.subi %c1, %arg6 : index
    %10 = arith.maxsi %9, %c0 : index
    %11 = arith.minsi %10, %c1 : index
    %12 = arith.minsi %c1, %11 : index
    %13 = arith.subi %c3, %arg7 : index
    %14 = arith.maxsi %13, %c0 : index
    %15 = arith.minsi %14, %c3 : index
    %16 = arith.minsi %c3, %15 : index
    %17 = pto_isa.alloc_tile valid [%12, %16] at 512 : !pto_isa.tile<ub, 1x8xf32>
    pto_isa.tload %arg1[%arg6, %arg7] into %17 : !pto.tensor<1x3xf32>, !pto_isa.tile<ub, 1x8xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %18 = pto_isa.alloc_tile valid [%3, %7] at 544 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcolexpand_mul %8, %17 into %18 : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
    pto_isa.set_flag V -> MTE2, 0
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %18 into %arg2[%arg8, %arg9] : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<32x3xf32>
    pto_isa.set_flag MTE3 -> V, 0
    %19 = arith.subi %c32, %arg10 : index
    %20 = arith.maxsi %19, %c0 : index
    %21 = arith.minsi %20, %c16 : index
    %22 = arith.minsi %c16, %21 : index
    %23 = arith.subi %c3, %arg11 : index
    %24 = arith.maxsi %23, %c0 : index
    %25 = arith.minsi %24, %c3 : index
    %26 = arith.minsi %c3, %25 : index
    %27 = pto_isa.alloc_tile valid [%22, %26] at 0 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.wait_flag V -> MTE2, 0
    pto_isa.tload %arg0[%arg10, %arg11] into %27 : !pto.tensor<32x3xf32>, !pto_isa.tile<ub, 16x8xf32>
    %28 = arith.subi %c1, %arg12 : index
    %29 = arith.maxsi %28, %c0 : index
    %30 = arith.minsi %29, %c1 : index
    %31 = arith.minsi %c1, %30 : index
    %32 = arith.subi %c3, %arg13 : index
    %33 = arith.maxsi %32, %c0 : index
    %34 = arith.minsi %33, %c3 : index
    %35 = arith.minsi %c3, %34 : index
    %36 = pto_isa.alloc_tile valid [%31, %35] at 512 : !pto_isa.tile<ub, 1x8xf32>
    pto_isa.tload %arg1[%arg12, %arg13] into %36 : !pto.tensor<1x3xf32>, !pto_isa.tile<ub, 1x8xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %37 = pto_isa.alloc_tile valid [%22, %26] at 544 : !pto_isa.tile<ub, 16x8xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.wait_flag MTE3 -> V, 0
    pto_isa.tcolexpand_mul %27, %36 into %37 : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %37 into %arg2[%arg14, %arg15] : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<32x3xf32>
    pto_isa.set_flag MTE3 -> MTE2, 0
    %38 = arith.subi %c32, %arg16 : index
    %39 = arith.maxsi %38, %c0 : index
    %40 = arith.minsi %39, %c32 : index
    %41 = arith.minsi %c32, %40 : index
    %42 = arith.subi %c3, %arg17 : index
    %43 = arith.maxsi %42, %c0 : index
    %44 = arith.minsi %43, %c3 : index
    %45 = arith.minsi %c3, %44 : index
    %46 = pto_isa.alloc_tile valid [%41, %45] at 0 : !pto_isa.tile<ub, 32x8xf32>
    pto_isa.wait_flag MTE3 -> MTE2, 0
    pto_isa.tload %arg2[%arg16, %arg17] into %46 : !pto.tensor<32x3xf32>, !pto_isa.tile<ub, 32x8xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %47 = pto_isa.alloc_tile valid [%c1, %45] at 1024 : !pto_isa.tile<ub, 1x8xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcolsum %46 into %47 : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 1x8xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %47 into %arg3[%arg18, %arg19] : !pto_isa.tile<ub, 1x8xf32>, !pto.tensor<1x3xf32>
    return
  }
  // Every column form as the emitter prints it (a leaf no root launches:
  // compiled with the rest, against the emulation and the real pto-isa).
  // CHECK-LABEL: void colk_forms(
  // CHECK:       TCOLEXPAND([[F:v[0-9]+]], [[R:v[0-9]+]]);
  // CHECK-NEXT:  TCOLEXPANDADD([[D:v[0-9]+]], [[F]], [[R]]);
  // CHECK-NEXT:  TCOLEXPANDSUB([[D]], [[F]], [[R]]);
  // CHECK-NEXT:  TCOLEXPANDDIV([[D]], [[F]], [[R]]);
  // CHECK-NEXT:  TCOLEXPANDMAX([[D]], [[F]], [[R]]);
  // CHECK-NEXT:  TCOLEXPANDMIN([[D]], [[F]], [[R]]);
  // CHECK-NEXT:  TCOLMAX([[R]], [[D]]); else TEXPANDS([[R]], static_cast<float>(-INFINITY)); }
  func.func private @colk_forms(%rows: index, %cols: index) attributes {pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %r = pto_isa.alloc_tile valid [%c1, %cols] at 0 : !pto_isa.tile<ub, 1x16xf32>
    %f = pto_isa.alloc_tile valid [%rows, %cols] at 64 : !pto_isa.tile<ub, 8x16xf32>
    %d = pto_isa.alloc_tile valid [%rows, %cols] at 576 : !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand %r into %f : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand_add %f, %r into %d : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand_sub %f, %r into %d : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand_div %f, %r into %d : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand_max %f, %r into %d : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolexpand_min %f, %r into %d : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 8x16xf32>
    pto_isa.tcolmax %d into %r : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x16xf32>
    return
  }
  func.func private @colk_root_main(%arg0: !pto.tensor<32x3x1xf32>, %arg1: !pto.tensor<32x1x3xf32>, %arg2: !pto.tensor<32x3xf32>, %arg3: !pto.tensor<1x3xf32>, %arg4: !pto.tensor<1x3xf32>) attributes {pto.root} {
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %0 = pto.workspace : !pto.tensor<32x3xf32>
    %1 = pto.launch @colk_leaf_V1_0(%arg0, %arg1, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0, %c0) : (!pto.tensor<32x3x1xf32>, !pto.tensor<32x1x3xf32>, index, index, index, index, index, index, index, index, index) -> !pto.token
    %2 = pto.launch @colk_leaf_V1_0(%arg0, %arg1, %c16, %c0, %c0, %c16, %c0, %c0, %c16, %c0, %c0) : (!pto.tensor<32x3x1xf32>, !pto.tensor<32x1x3xf32>, index, index, index, index, index, index, index, index, index) -> !pto.token
    %3 = pto.launch @colk_leaf_V1_1(%arg2, %arg3, %0, %arg4, %c0, %c0, %c0, %c0, %c0, %c0, %c16, %c0, %c0, %c0, %c16, %c0, %c0, %c0, %c0, %c0) after[%1, %2] : (!pto.tensor<32x3xf32>, !pto.tensor<1x3xf32>, !pto.tensor<32x3xf32>, !pto.tensor<1x3xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> !pto.token
    return
  }
  pto.kernel @colk(%x: !pto.tensor<32x3x1xf32>, %g: !pto.tensor<1x3xf32>, %y: !pto.tensor<32x1x3xf32>, %s: !pto.tensor<1x3xf32>) attributes {arch = #pto.arch<DAV_2201>} {
    %0 = pto.reshape %y [32, 3] inplace : !pto.tensor<32x1x3xf32> -> !pto.tensor<32x3xf32>
    pto.root_call @colk_root_main(%x, %y, %0, %g, %s) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 32768, launches = 3, mode = "count">} : (!pto.tensor<32x3x1xf32>, !pto.tensor<32x1x3xf32>, !pto.tensor<32x3xf32>, !pto.tensor<1x3xf32>, !pto.tensor<1x3xf32>) -> ()
  }
}

