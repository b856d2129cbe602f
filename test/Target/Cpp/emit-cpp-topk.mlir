// RUN: pto-translate --pto-to-cpp %s | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs against a
// NumPy golden: the 8 largest of the first 40 of each row of x (many equal
// values: ties by ascending index, as np.argsort(kind="stable")).
// RUN: pto-translate --pto-to-cpp %s -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(2); n.save('%t.in/x.npy', (r.integers(-3, 4, (4, 64)) * 0.5).astype(n.float32)); n.save('%t.in/v.npy', n.zeros((4, 8), n.float32)); n.save('%t.in/i.npy', n.zeros((4, 8), n.int32))"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; x = n.load('%t.in/x.npy')[:, :40]; o = n.argsort(-x, axis=1, kind='stable')[:, :8]; assert (n.load('%t.out/i.npy') == o).all(), (n.load('%t.out/i.npy'), o); assert (n.load('%t.out/v.npy') == n.take_along_axis(x, o, 1)).all(); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// What pto-opt --pto-ascend-pipeline makes of a pto.topk (k = 8) of a
// [4, 64] tile whose rows have 40 valid elements (docs/ISA.md, "topk"):
// the index row (TCI, then TCOLEXPAND to every row, as pto-isa's CPU back
// end wants), the block sort, one 2-list merge per row and the two mask
// gathers, the second into an int32 tile (the index bits).

// CHECK-LABEL: void topk8_leaf_V1_0(
// CHECK:       TCI<{{Tv[0-9]+}}, uint32_t, 0>([[I1:v[0-9]+]], uint32_t(0));
// CHECK:       TCOLEXPAND([[I:v[0-9]+]], [[I1]]);
// CHECK:       TSORT32([[P:v[0-9]+]], {{v[0-9]+}}, [[I]], {{v[0-9]+}});
// CHECK:       { MrgSortExecutedNumList executed; TMRGSORT<{{Tv[0-9]+}}, {{Tv[0-9]+}}, {{Tv[0-9]+}}, {{Tv[0-9]+}}, false>(
// CHECK:       TGATHER<{{Tv[0-9]+}}, [[TTOP:Tv[0-9]+]], MaskPattern::P0101>
// CHECK:       TGATHER<{{Tv[0-9]+}}, [[TTOP]], MaskPattern::P1010>

module {
  func.func private @topk8_leaf_V1_0(%arg0: !pto.tensor<4x64xf32>, %arg1: !pto.tensor<4x8xf32>, %arg2: !pto.tensor<4x8xi32>, %arg3: index) attributes {pto.family = "V1", pto.leaf = #pto.core<vector>} {
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c40 = arith.constant 40 : index
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %c0_0 = arith.constant 0 : index
    %0 = pto_isa.alloc_tile valid [%c4, %c40] at 0 : !pto_isa.tile<ub, 4x64xf32>
    pto_isa.tload %arg0[%c0, %c0] into %0 : !pto.tensor<4x64xf32>, !pto_isa.tile<ub, 4x64xf32>
    pto_isa.set_flag MTE2 -> V, 0
    %1 = arith.addi %c40, %c40 : index
    %2 = arith.addi %c8, %c8 : index
    %3 = pto_isa.alloc_tile valid [%c1, %c40] at 1024 : !pto_isa.tile<ub, 1x64xui32>
    pto_isa.tci %3 start = 0 : !pto_isa.tile<ub, 1x64xui32>
    %4 = pto_isa.alloc_tile valid [%c4, %c40] at 1280 : !pto_isa.tile<ub, 4x64xui32>
    pto_isa.pipe_barrier V
    pto_isa.tcolexpand %3 into %4 : !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 4x64xui32>
    %5 = pto_isa.alloc_tile valid [%c1, %c40] at 1024 : !pto_isa.tile<ub, 1x64xf32>
    %6 = pto_isa.alloc_tile valid [%c4, %1] at 2304 : !pto_isa.tile<ub, 4x128xf32>
    pto_isa.wait_flag MTE2 -> V, 0
    pto_isa.pipe_barrier V
    pto_isa.tsort32 %0, %4, %5 into %6 : !pto_isa.tile<ub, 4x64xf32>, !pto_isa.tile<ub, 4x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 4x128xf32>
    %7 = pto_isa.alloc_tile valid [%c4, %2] at 0 : !pto_isa.tile<ub, 4x16xf32>
    %8 = arith.subi %1, %c0 : index
    %9 = arith.maxsi %8, %c0 : index
    %10 = arith.minsi %9, %c64 : index
    %11 = pto_isa.alloc_tile valid [%c1, %10] at 0 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.pipe_barrier V
    pto_isa.textract %6 into %11 : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %12 = arith.subi %1, %c64 : index
    %13 = arith.maxsi %12, %c0 : index
    %14 = arith.minsi %13, %c64 : index
    %15 = pto_isa.alloc_tile valid [%c1, %14] at 256 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %15 {index_col = 64 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %16 = arith.addi %c0, %10 : index
    %17 = arith.addi %16, %14 : index
    %18 = pto_isa.alloc_tile valid [%c1, %17] at 512 : !pto_isa.tile<ub, 1x128xf32>
    %19 = arith.minsi %17, %c16 : index
    %20 = pto_isa.alloc_tile valid [%c1, %19] at 1024 : !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tmrgsort %11, %15 tmp %18 into %20 : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tinsert %20 into %7 : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 4x16xf32>
    %21 = arith.subi %1, %c0 : index
    %22 = arith.maxsi %21, %c0 : index
    %23 = arith.minsi %22, %c64 : index
    %24 = pto_isa.alloc_tile valid [%c1, %23] at 256 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %24 {index_row = 1 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %25 = arith.subi %1, %c64 : index
    %26 = arith.maxsi %25, %c0 : index
    %27 = arith.minsi %26, %c64 : index
    %28 = pto_isa.alloc_tile valid [%c1, %27] at 512 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %28 {index_col = 64 : i64, index_row = 1 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %29 = arith.addi %c0, %23 : index
    %30 = arith.addi %29, %27 : index
    %31 = pto_isa.alloc_tile valid [%c1, %30] at 768 : !pto_isa.tile<ub, 1x128xf32>
    %32 = arith.minsi %30, %c16 : index
    %33 = pto_isa.alloc_tile valid [%c1, %32] at 1280 : !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tmrgsort %24, %28 tmp %31 into %33 : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tinsert %33 into %7 {index_row = 1 : i64} : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 4x16xf32>
    %34 = arith.subi %1, %c0 : index
    %35 = arith.maxsi %34, %c0 : index
    %36 = arith.minsi %35, %c64 : index
    %37 = pto_isa.alloc_tile valid [%c1, %36] at 256 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %37 {index_row = 2 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %38 = arith.subi %1, %c64 : index
    %39 = arith.maxsi %38, %c0 : index
    %40 = arith.minsi %39, %c64 : index
    %41 = pto_isa.alloc_tile valid [%c1, %40] at 512 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %41 {index_col = 64 : i64, index_row = 2 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %42 = arith.addi %c0, %36 : index
    %43 = arith.addi %42, %40 : index
    %44 = pto_isa.alloc_tile valid [%c1, %43] at 768 : !pto_isa.tile<ub, 1x128xf32>
    %45 = arith.minsi %43, %c16 : index
    %46 = pto_isa.alloc_tile valid [%c1, %45] at 1280 : !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tmrgsort %37, %41 tmp %44 into %46 : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tinsert %46 into %7 {index_row = 2 : i64} : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 4x16xf32>
    %47 = arith.subi %1, %c0 : index
    %48 = arith.maxsi %47, %c0 : index
    %49 = arith.minsi %48, %c64 : index
    %50 = pto_isa.alloc_tile valid [%c1, %49] at 256 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %50 {index_row = 3 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %51 = arith.subi %1, %c64 : index
    %52 = arith.maxsi %51, %c0 : index
    %53 = arith.minsi %52, %c64 : index
    %54 = pto_isa.alloc_tile valid [%c1, %53] at 512 : !pto_isa.tile<ub, 1x64xf32>
    pto_isa.textract %6 into %54 {index_col = 64 : i64, index_row = 3 : i64} : !pto_isa.tile<ub, 4x128xf32>, !pto_isa.tile<ub, 1x64xf32>
    %55 = arith.addi %c0, %49 : index
    %56 = arith.addi %55, %53 : index
    %57 = pto_isa.alloc_tile valid [%c1, %56] at 768 : !pto_isa.tile<ub, 1x128xf32>
    %58 = arith.minsi %56, %c16 : index
    %59 = pto_isa.alloc_tile valid [%c1, %58] at 1280 : !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tmrgsort %50, %54 tmp %57 into %59 : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
    pto_isa.pipe_barrier V
    pto_isa.tinsert %59 into %7 {index_row = 3 : i64} : !pto_isa.tile<ub, 1x16xf32>, !pto_isa.tile<ub, 4x16xf32>
    %60 = pto_isa.alloc_tile valid [%c4, %c8] at 256 : !pto_isa.tile<ub, 4x8xf32>
    pto_isa.pipe_barrier V
    pto_isa.tgather_mask %7 into %60 pattern = 1 : !pto_isa.tile<ub, 4x16xf32>, !pto_isa.tile<ub, 4x8xf32>
    pto_isa.set_flag V -> MTE3, 0
    %61 = pto_isa.alloc_tile valid [%c4, %c8] at 384 : !pto_isa.tile<ub, 4x8xi32>
    pto_isa.tgather_mask %7 into %61 pattern = 2 : !pto_isa.tile<ub, 4x16xf32>, !pto_isa.tile<ub, 4x8xi32>
    pto_isa.set_flag V -> MTE3, 1
    pto_isa.wait_flag V -> MTE3, 0
    pto_isa.tstore %60 into %arg1[%c0, %c0] : !pto_isa.tile<ub, 4x8xf32>, !pto.tensor<4x8xf32>
    pto_isa.wait_flag V -> MTE3, 1
    pto_isa.tstore %61 into %arg2[%c0, %c0] : !pto_isa.tile<ub, 4x8xi32>, !pto.tensor<4x8xi32>
    return
  }
  func.func private @topk8_root_main(%arg0: !pto.tensor<4x64xf32>, %arg1: !pto.tensor<4x8xf32>, %arg2: !pto.tensor<4x8xi32>) attributes {pto.root} {
    %c0 = arith.constant 0 : index
    %0 = pto.launch @topk8_leaf_V1_0(%arg0, %arg1, %arg2, %c0) : (!pto.tensor<4x64xf32>, !pto.tensor<4x8xf32>, !pto.tensor<4x8xi32>, index) -> !pto.token
    return
  }
  pto.kernel @topk8(%x: !pto.tensor<4x64xf32>, %v: !pto.tensor<4x8xf32>, %i: !pto.tensor<4x8xi32>) {
    pto.root_call @topk8_root_main(%x, %v, %i) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 0, launches = 1, mode = "count">} : (!pto.tensor<4x64xf32>, !pto.tensor<4x8xf32>, !pto.tensor<4x8xi32>) -> ()
  }
}

