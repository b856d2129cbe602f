// A MIX leaf (DAV_3510) from the tile graph to a run on the emulation:
// four 128 x 128 FP32 accumulators left in L0C and handed to the vector
// part window by window (TEXTRACT Acc -> Vec, pto-lower-to-isa), the AIC's
// and AIVs' parts as kernels launched together (pto-isa-split-mix). The
// vector part is divided between the two AIVs: pieces 0 and 2 on AIV 0,
// 1 and 3 on AIV 1 (moved SingleModeVec1, flags id + 16 on the AIC). The
// 64 KiB windows do not fit half of UB at once: on each AIV they take
// turns in one ring slot, with a "filled" flag (0) the AIV waits for before
// it reads a window and a "free" flag (1) the AIC waits for before it
// refills it. The emulation checks the flags and every cross-core hazard,
// and y = 2 A B (docs/ISA.md, "MIX leaves").
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory --pto-isa-split-mix --pto-isa-insert-sync --pto-isa-verify-sync | pto-translate --pto-to-cpp | FileCheck %s
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory --pto-isa-split-mix --pto-isa-insert-sync | pto-translate --pto-to-cpp -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(1); [n.save('%t.in/' + k + '.npy', r.integers(-4, 5, (s)).astype(n.float32)) for k, s in (('a', (512, 128)), ('b', (128, 128)))]; n.save('%t.in/y.npy', n.zeros((512, 128), n.float32))"
// RUN: %t.exe --inputs %t.in --outputs %t.out --stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %python -c "import numpy as n; a, b, y = (n.load(p) for p in ('%t.in/a.npy', '%t.in/b.npy', '%t.out/y.npy')); s = a @ b; assert (y == 2 * s).all(), abs(y - 2 * s).max(); print('ok')" | FileCheck %s --check-prefix=GOLD
// The same program without the AIC's wait for AIV 0's freed slot: the
// refill races AIV 0's reads of its first window, a hazard on the slot.
// RUN: sed -e 's/^ *wait_intra_block(PIPE_FIX, 1);//' %t.cpp > %t.nofree.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nofree.cpp -o %t.nofree.exe
// RUN: not %t.nofree.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=NOFREE
// Without the AIC's wait for AIV 1's freed slot (flag 1 of AIV 1, 17 on
// the AIC): the same hazard on AIV 1's UB.
// RUN: sed -e 's/^ *wait_intra_block(PIPE_FIX, 17);//' %t.cpp > %t.nofree1.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nofree1.cpp -o %t.nofree1.exe
// RUN: not %t.nofree1.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=NOFREE1
// Without the AIVs' waits for the filled slot: their reads race the moves.
// RUN: sed -e 's/^ *wait_intra_block(PIPE_S, 0);//' %t.cpp > %t.nowait.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nowait.cpp -o %t.nowait.exe
// RUN: not %t.nowait.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=HAZARD
// Without AIV 1's waits only: AIV 1's first read races its move.
// RUN: sed -e '/k_leaf_M1_0_aiv1(__gm__/,/^}/ s/^ *wait_intra_block(PIPE_S, 0);//' %t.cpp > %t.nowait1.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nowait1.cpp -o %t.nowait1.exe
// RUN: not %t.nowait1.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=HAZARD1
// AIV 1's stores moved onto AIV 0's rows of y: the two AIVs write the
// same GM bytes, which nothing orders (the emulation checks every MIX
// launch's AIVs against each other).
// RUN: sed -e '/k_leaf_M1_0_aiv1(__gm__/,/^}/ s/(a3 + (v[0-9]* \* 128 + /(a3 + (0 * 128 + /' %t.cpp > %t.overlap.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.overlap.cpp -o %t.overlap.exe
// RUN: not %t.overlap.exe --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=OVERLAP
// STATS: launches=1
// GOLD: ok
// NOFREE: hazard WAR on AIV0's UB byte offset 0 {{.*}}: TEXTRACT on the AIC's FIX pipe writes bytes read by TMULS on PIPE_V without synchronisation (this AIV's read and the AIC's move into the ring slot are not ordered
// NOFREE1: hazard WAR on AIV1's UB byte offset 0 {{.*}}: TEXTRACT on the AIC's FIX pipe writes bytes read by TMULS on PIPE_V without synchronisation (this AIV's read and the AIC's move into the ring slot are not ordered
// HAZARD: hazard WAR on AIV{{[01]}}'s UB byte offset 0 {{.*}}: TEXTRACT on the AIC's FIX pipe writes bytes read by TMULS on PIPE_V without synchronisation
// OVERLAP: MIX launch: TSTORE on AIV0 writes 512 GM bytes at kernel argument 'y' + byte 0 that TSTORE on AIV1 writes, and only the L0C -> UB moves are ordered between the cores
// HAZARD1: hazard WAR on AIV1's UB byte offset 0 {{.*}}: TEXTRACT on the AIC's FIX pipe writes bytes read by TMULS on PIPE_V without synchronisation

// CHECK:      #if defined(__DAV_CUBE__)
// CHECK-NEXT: __global__ AICORE void k_leaf_M1_0(
// CHECK:      TMATMUL([[C0:v[0-9]+]],
// CHECK:      TEXTRACT({{v[0-9]+}}, [[C0]], 0, 0);
// CHECK:      set_intra_block(PIPE_FIX, 0);
// CHECK:      TMATMUL([[C1:v[0-9]+]],
// CHECK:      TEXTRACT<decltype([[U1:v[0-9]+]]), decltype([[C1]]), AccToVecMode::SingleModeVec1>([[U1]], [[C1]], 0, 0);
// CHECK:      set_intra_block(PIPE_FIX, 16);
// CHECK:      TMATMUL([[C2:v[0-9]+]],
// CHECK:      wait_intra_block(PIPE_FIX, 1);
// CHECK:      TEXTRACT({{v[0-9]+}}, [[C2]], 0, 0);
// CHECK:      set_intra_block(PIPE_FIX, 0);
// CHECK:      TMATMUL([[C3:v[0-9]+]],
// CHECK:      wait_intra_block(PIPE_FIX, 17);
// CHECK:      TEXTRACT<decltype({{v[0-9]+}}), decltype([[C3]]), AccToVecMode::SingleModeVec1>
// CHECK:      set_intra_block(PIPE_FIX, 16);
// CHECK-NOT:  TMULS
// AIV 1's part: a device function AIV 0's kernel calls on AIV 1.
// CHECK:      #if defined(__DAV_VEC__)
// CHECK-NEXT: AICORE inline void k_leaf_M1_0_aiv1(
// CHECK-NOT:  TMATMUL
// CHECK:      wait_intra_block(PIPE_S, 0);
// CHECK:      TMULS(
// CHECK:      set_intra_block(PIPE_V, 1);
// CHECK:      wait_intra_block(PIPE_S, 0);
// CHECK:      TMULS(
// CHECK-NOT:  set_intra_block
// CHECK:      #if defined(__DAV_VEC__)
// CHECK-NEXT: __global__ AICORE void k_leaf_M1_0_aiv(
// CHECK-NEXT: if (get_subblockid() != 0) {
// CHECK-NEXT:   k_leaf_M1_0_aiv1(a0, a1, a2, a3);
// CHECK-NEXT:   return;
// CHECK-NEXT: }
// CHECK-NOT:  TMATMUL
// CHECK:      TASSIGN([[V0:v[0-9]+]], 0);
// CHECK:      wait_intra_block(PIPE_S, 0);
// CHECK:      TMULS({{v[0-9]+}}, [[V0]],
// CHECK:      set_intra_block(PIPE_V, 1);
// CHECK:      TASSIGN([[V2:v[0-9]+]], 0);
// CHECK:      wait_intra_block(PIPE_S, 0);
// CHECK:      TMULS({{v[0-9]+}}, [[V2]],
// CHECK-NOT:  set_intra_block
// The exchange never reaches GM: no workspace is allocated for it.
// CHECK:      float *[[WS:v[0-9]+]] = nullptr; // on chip (L0C -> UB), no GM
// CHECK:      ri.launch_mix("k_leaf_M1_0", {}, {{[{][{]}}a0, 1, sizeof(float), 128, int64_t(0), int64_t(512), int64_t(0), int64_t(128)}, {a1, 1, {{.*}}}, {a2, 2, {{.*}}}}, [=] { k_leaf_M1_0([[ARGS:.*]]); }, [=] { k_leaf_M1_0_aiv([[ARGS]]); });
// CHECK-NOT:  m.output("a"
// CHECK:      m.output("y", t2);

module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @k_leaf_M1_0(%a: !pto.tensor<512x128xf32>, %b: !pto.tensor<128x128xf32>,
                               %ws: !pto.tensor<512x128xf32>, %y: !pto.tensor<512x128xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %two = arith.constant 2.0 : f32
  %b0 = pto.view %b[%c0, %c0] : !pto.tensor<128x128xf32> -> !pto.tile<128x128xf32>
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %s0 = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %s0, %ws [%c0, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %a1 = pto.view %a[%c128, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %s1 = pto.matmul %a1, %b0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %s1, %ws [%c128, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %a2 = pto.view %a[%c256, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %s2 = pto.matmul %a2, %b0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %s2, %ws [%c256, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %a3 = pto.view %a[%c384, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %s3 = pto.matmul %a3, %b0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %s3, %ws [%c384, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  // The vector part: y = 2 S, one view per stored piece.
  %v0 = pto.view %ws[%c0, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %d0 = pto.mul %v0, %two : !pto.tile<128x128xf32>, f32 -> !pto.tile<128x128xf32>
  pto.assemble %d0, %y [%c0, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %v1 = pto.view %ws[%c128, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %d1 = pto.mul %v1, %two : !pto.tile<128x128xf32>, f32 -> !pto.tile<128x128xf32>
  pto.assemble %d1, %y [%c128, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %v2 = pto.view %ws[%c256, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %d2 = pto.mul %v2, %two : !pto.tile<128x128xf32>, f32 -> !pto.tile<128x128xf32>
  pto.assemble %d2, %y [%c256, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  %v3 = pto.view %ws[%c384, %c0] : !pto.tensor<512x128xf32> -> !pto.tile<128x128xf32>
  %d3 = pto.mul %v3, %two : !pto.tile<128x128xf32>, f32 -> !pto.tile<128x128xf32>
  pto.assemble %d3, %y [%c384, %c0] : !pto.tile<128x128xf32>, !pto.tensor<512x128xf32>
  return
}

func.func private @k_root(%a: !pto.tensor<512x128xf32>, %b: !pto.tensor<128x128xf32>,
                          %y: !pto.tensor<512x128xf32>) attributes {pto.root} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<512x128xf32>
  %t = pto.launch @k_leaf_M1_0(%a, %b, %ws, %y) : (!pto.tensor<512x128xf32>, !pto.tensor<128x128xf32>, !pto.tensor<512x128xf32>, !pto.tensor<512x128xf32>) -> !pto.token
  return
}

pto.kernel @k(%a: !pto.tensor<512x128xf32>, %b: !pto.tensor<128x128xf32>, %y: !pto.tensor<512x128xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  pto.root_call @k_root(%a, %b, %y) {stitch = #pto.stitch_plan<depth = 1, workspace_bytes = 0, launches = 1, mode = "count">} : (!pto.tensor<512x128xf32>, !pto.tensor<128x128xf32>, !pto.tensor<512x128xf32>) -> ()
  pto.return
}
}
