// RUN: pto-translate --pto-to-cpp %s | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs against a
// NumPy golden: s = where(x >= y, x, -x), t = where(y < 0, y, 0) on [20, 64]
// in [16, 64] pieces (a tail of 4 rows).
// RUN: pto-translate --pto-to-cpp %s -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(3); [n.save('%t.in/' + k + '.npy', r.standard_normal((20, 64)).astype(n.float32)) for k in 'xy']; [n.save('%t.in/' + k + '.npy', n.zeros((20, 64), n.float32)) for k in 'st']"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; x = n.load('%t.in/x.npy'); y = n.load('%t.in/y.npy'); assert (n.load('%t.out/s.npy') == n.where(x >= y, x, -x)).all(); assert (n.load('%t.out/t.npy') == n.where(y < 0, y, 0)).all(); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// What pto-opt --pto-ascend-pipeline makes of that kernel (pto.compare /
// pto.where, each compare computed inside its where's pieces): the mask is a
// uint8_t tile of 8 columns per byte, [16, 32] for a [16, 64] f32 piece.

// CHECK-LABEL: void maskk_leaf_V1_0(
// CHECK:       using [[M:Tv[0-9]+]] = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor,
// CHECK:       TCMP({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, CmpMode::GE);
// CHECK:       TSEL(
// CHECK:       TCMPS({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, CmpMode::LT);
// CHECK:       TSELS(

module {
  func.func private @maskk_leaf_V1_0(%arg0: !pto.tensor<20x64xf32>, %arg1: !pto.tensor<20x64xf32>, %arg2: !pto.tensor<20x64xf32>, %arg3: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c0_0 = arith.constant 0 : index
    %0 = pto_isa.alloc_tile valid [%c16, %c64] at 0 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.tload %arg0[%c0, %c0] into %0 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %1 = pto_isa.alloc_tile valid [%c16, %c64] at 4096 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tneg %0 into %1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    %2 = pto_isa.alloc_tile valid [%c16, %c64] at 8192 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.tload %arg1[%c0, %c0] into %2 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %3 = pto_isa.alloc_tile valid [%c16, %c8] at 12288 : !pto_isa.tile<ub, 16x32xui8>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcmp %0, %2 into %3 ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xui8>
    %4 = pto_isa.alloc_tile valid [%c1, %c8] at 12800 : !pto_isa.tile<ub, 1x8xi32>
    %5 = pto_isa.alloc_tile valid [%c16, %c64] at 8192 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.pipe_barrier V
    pto_isa.tsel %3, %0, %1, %4 into %5 : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %5 into %arg2[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<20x64xf32>
    return
  }
  func.func private @maskk_leaf_V1_1(%arg0: !pto.tensor<20x64xf32>, %arg1: !pto.tensor<20x64xf32>, %arg2: !pto.tensor<20x64xf32>, %arg3: index, %arg4: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c16_0 = arith.constant 16 : index
    %c0_1 = arith.constant 0 : index
    %0 = pto_isa.alloc_tile valid [%c4, %c64] at 0 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.tload %arg0[%c16, %c0] into %0 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %1 = pto_isa.alloc_tile valid [%c4, %c64] at 1024 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tneg %0 into %1 : !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 4x64xf32>
    %2 = pto_isa.alloc_tile valid [%c4, %c64] at 2048 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.tload %arg1[%c16, %c0] into %2 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %3 = pto_isa.alloc_tile valid [%c4, %c8] at 3072 : !pto_isa.tile<ub, 4x32xui8>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcmp %0, %2 into %3 ge : !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 4x32xui8>
    %4 = pto_isa.alloc_tile valid [%c1, %c8] at 3200 : !pto_isa.tile<ub, 1x8xi32>
    %5 = pto_isa.alloc_tile valid [%c4, %c64] at 2048 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.pipe_barrier V
    pto_isa.tsel %3, %0, %1, %4 into %5 : !pto_isa.tile<ub, 4x32xui8>, !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %5 into %arg2[%c16, %c0] : !pto_isa.tile<ub, 4x64xf32>, !pto.tensor<20x64xf32>
    return
  }
  func.func private @maskk_leaf_V1_2(%arg0: !pto.tensor<20x64xf32>, %arg1: !pto.tensor<20x64xf32>, %arg2: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c0_0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = pto_isa.alloc_tile valid [%c16, %c64] at 0 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.tload %arg0[%c0, %c0] into %0 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %1 = pto_isa.alloc_tile valid [%c16, %c8] at 4096 : !pto_isa.tile<ub, 16x32xui8>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcmps %0, %cst into %1 lt : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x32xui8>
    %2 = pto_isa.alloc_tile valid [%c1, %c8] at 8704 : !pto_isa.tile<ub, 1x8xi32>
    %3 = pto_isa.alloc_tile valid [%c16, %c64] at 4608 : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.pipe_barrier V
    pto_isa.tsels %1, %0, %cst, %2 into %3 : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %3 into %arg1[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<20x64xf32>
    return
  }
  func.func private @maskk_leaf_V1_3(%arg0: !pto.tensor<20x64xf32>, %arg1: !pto.tensor<20x64xf32>, %arg2: index, %arg3: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c16_0 = arith.constant 16 : index
    %c0_1 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = pto_isa.alloc_tile valid [%c4, %c64] at 0 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.tload %arg0[%c16, %c0] into %0 : !pto.tensor<20x64xf32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %1 = pto_isa.alloc_tile valid [%c4, %c8] at 1024 : !pto_isa.tile<ub, 4x32xui8>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.tcmps %0, %cst into %1 lt : !pto_isa.tile<ub, 4x64xf32>, f32, !pto_isa.tile<ub, 4x32xui8>
    %2 = pto_isa.alloc_tile valid [%c1, %c8] at 2176 : !pto_isa.tile<ub, 1x8xi32>
    %3 = pto_isa.alloc_tile valid [%c4, %c64] at 1152 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.pipe_barrier V
    pto_isa.tsels %1, %0, %cst, %2 into %3 : !pto_isa.tile<ub, 4x32xui8>, !pto_isa.tile<ub, 4x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag V -> MTE3, 0
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %3 into %arg1[%c16, %c0] : !pto_isa.tile<ub, 4x64xf32>, !pto.tensor<20x64xf32>
    return
  }
  func.func private @maskk_root_main(%arg0: !pto.tensor<20x64xf32>, %arg1: !pto.tensor<20x64xf32>, %arg2: !pto.tensor<20x64xf32>, %arg3: !pto.tensor<20x64xf32>) attributes {pto.root} {
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %0 = pto.launch @maskk_leaf_V1_0(%arg0, %arg1, %arg2, %c0) : (!pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, index) -> !pto.token
    %1 = pto.launch @maskk_leaf_V1_1(%arg0, %arg1, %arg2, %c16, %c0) : (!pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, index, index) -> !pto.token
    %2 = pto.launch @maskk_leaf_V1_2(%arg1, %arg3, %c0) : (!pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, index) -> !pto.token
    %3 = pto.launch @maskk_leaf_V1_3(%arg1, %arg3, %c16, %c0) : (!pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, index, index) -> !pto.token
    return
  }
  pto.kernel @maskk(%x: !pto.tensor<20x64xf32>, %y: !pto.tensor<20x64xf32>, %s: !pto.tensor<20x64xf32>, %t: !pto.tensor<20x64xf32>) {
    pto.root_call @maskk_root_main(%x, %y, %s, %t) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 0, launches = 4, mode = "count">} : (!pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>, !pto.tensor<20x64xf32>) -> ()
  }
}

