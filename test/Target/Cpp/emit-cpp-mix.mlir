// A MIX leaf (DAV_3510) from the tile graph to a run on the emulation: two
// accumulators handed to the vector part L0C -> UB (pto-lower-to-isa,
// pto-isa-split-mix), the AIC's and AIV's parts as two kernels launched
// together, one intra-block flag per move; the emulation checks the flags
// and every cross-core hazard, and y = 2 (A B) + A B (docs/ISA.md, "MIX
// leaves").
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory --pto-isa-split-mix --pto-isa-insert-sync --pto-isa-verify-sync | pto-translate --pto-to-cpp | FileCheck %s
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory --pto-isa-split-mix --pto-isa-insert-sync | pto-translate --pto-to-cpp -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(1); [n.save('%t.in/' + k + '.npy', r.integers(-4, 5, (32, 32)).astype(n.float32)) for k in 'ab']; n.save('%t.in/y.npy', n.zeros((32, 32), n.float32))"
// RUN: %t.exe --inputs %t.in --outputs %t.out --stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %python -c "import numpy as n; a, b, y = (n.load(p) for p in ('%t.in/a.npy', '%t.in/b.npy', '%t.out/y.npy')); s = a @ b; assert (y == 3 * s).all(), abs(y - 3 * s).max(); print('ok')" | FileCheck %s --check-prefix=GOLD
// The same program with a wait dropped: the emulation reports the AIV's
// read of the moved tile as a hazard against the AIC's move.
// RUN: sed -e 's/^ *wait_intra_block(PIPE_S, 1);//' %t.cpp > %t.nowait.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nowait.cpp -o %t.nowait.exe
// RUN: not %t.nowait.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=HAZARD
// STATS: launches=1
// GOLD: ok
// HAZARD: hazard RAW on UB byte offset {{[0-9]+}} {{.*}}: TEXTRACT on PIPE_V reads bytes written by TMOV on the AIC's FIX pipe without synchronisation (missing set_intra_block on the AIC / wait_intra_block on this AIV)

// CHECK:      #if defined(__DAV_CUBE__)
// CHECK-NEXT: __global__ AICORE void k_leaf_M1_0(
// CHECK:      TMOV([[U0:v[0-9]+]], [[C0:v[0-9]+]]);
// CHECK:      set_intra_block(PIPE_FIX, 0);
// CHECK:      TMOV([[U1:v[0-9]+]], [[C1:v[0-9]+]]);
// CHECK:      set_intra_block(PIPE_FIX, 1);
// CHECK-NOT:  TMULS
// CHECK:      #if defined(__DAV_VEC__)
// CHECK-NEXT: __global__ AICORE void k_leaf_M1_0_aiv(
// CHECK-NEXT: if (get_subblockid() != 0)
// CHECK-NEXT:   return;
// CHECK-NOT:  TMATMUL
// CHECK:      wait_intra_block(PIPE_S, 0);
// CHECK:      TEXTRACT(
// CHECK:      wait_intra_block(PIPE_S, 1);
// CHECK:      TEXTRACT(
// The exchange never reaches GM: no workspace is allocated for it.
// CHECK:      float *[[WS:v[0-9]+]] = nullptr; // on chip (L0C -> UB), no GM
// CHECK:      ri.launch_mix("k_leaf_M1_0", {}, {{[{][{]}}a0, 1, sizeof(float), 32, int64_t(0), int64_t(32), int64_t(0), int64_t(32)}, {a1, 1, {{.*}}}, {a2, 2, {{.*}}}}, [=] { k_leaf_M1_0([[ARGS:.*]]); }, [=] { k_leaf_M1_0_aiv([[ARGS]]); });
// CHECK-NOT:  m.output("a"
// CHECK:      m.output("y", t2);

module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @k_leaf_M1_0(%a: !pto.tensor<32x32xf32>, %b: !pto.tensor<32x32xf32>,
                               %ws: !pto.tensor<32x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %b0 = pto.view %b[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %s0 = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %s0, %ws [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  %a1 = pto.view %a[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %s1 = pto.matmul %a1, %b0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %s1, %ws [%c16, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  // The vector part: y = 2 S + S, one 16 x 32 view per moved piece.
  %v0 = pto.view %ws[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d0 = pto.mul %v0, %two : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
  %e0 = pto.add %d0, %v0 : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %e0, %y [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  %v1 = pto.view %ws[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d1 = pto.mul %v1, %two : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
  %e1 = pto.add %d1, %v1 : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %e1, %y [%c16, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  return
}

func.func private @k_root(%a: !pto.tensor<32x32xf32>, %b: !pto.tensor<32x32xf32>,
                          %y: !pto.tensor<32x32xf32>) attributes {pto.root} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x32xf32>
  %t = pto.launch @k_leaf_M1_0(%a, %b, %ws, %y) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> !pto.token
  return
}

pto.kernel @k(%a: !pto.tensor<32x32xf32>, %b: !pto.tensor<32x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  pto.root_call @k_root(%a, %b, %y) {stitch = #pto.stitch_plan<depth = 1, workspace_bytes = 0, launches = 1, mode = "count">} : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> ()
  pto.return
}
}
