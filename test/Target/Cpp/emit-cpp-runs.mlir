// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp | FileCheck %s
// Loads and stores one run of rows at a time, and a view of a tile at a
// run-time column, compiled against the host emulation of pto-isa and run
// against a NumPy golden: sq = x * x on the first nz + 8 rows of dim 1 only
// (a middle dim valid in part: its rows have gaps in the 2-D form), ws[:, 2]
// = exp(w[:, 1]) (a [2, 1, 8, 32] window of [2, 3, 8, 32]: rows in runs,
// one TLOAD / TSTORE per index of dim 0), hv = exp(a)[:, c:c + 32] with
// c = 8 * nz a run-time column (TEXTRACT's column operand), and
// pk = -u[:, k, :] with k = nz - 1 a run-time row of runs (one TEXTRACT per
// b, the run-time row added to its static one).
// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(9); f = lambda *s: r.standard_normal(s).astype(n.float32); z = lambda *s: n.zeros(s, n.float32); n.save('%t.in/x.npy', f(2, 16, 32)); n.save('%t.in/w.npy', f(2, 3, 8, 32)); n.save('%t.in/a.npy', f(16, 64)); n.save('%t.in/z.npy', z(4, 1)); n.save('%t.in/u.npy', f(2, 4, 32)); [n.save('%t.in/' + k + '.npy', z(*s)) for k, s in (('sq', (2, 16, 32)), ('ws', (2, 3, 8, 32)), ('hv', (16, 32)), ('pk', (2, 1, 32)))]"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; i = lambda k: n.load('%t.in/' + k + '.npy'); o = lambda k: n.load('%t.out/' + k + '.npy'); x, w, a = i('x'), i('w'), i('a'); sq = n.zeros_like(x); sq[:, :12] = x[:, :12] * x[:, :12]; assert (o('sq') == sq).all(); ws = n.zeros_like(w); ws[:, 2] = n.exp(w[:, 1]); assert n.allclose(o('ws'), ws, rtol=1e-6); assert n.allclose(o('hv'), n.exp(a)[:, 32:], rtol=1e-6); assert (o('pk') == -i('u')[:, 3:4, :]).all(); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// CHECK-LABEL: void runs_leaf_V1_0(
// CHECK-DAG:   TINSERT({{.*}}, 16, 0)
// CHECK-DAG:   TEXTRACT({{.*}}, 16, 0)
// CHECK-DAG:   TEXTRACT({{.*}}, 0, (uint16_t)(0 + {{.*}}))
// CHECK-DAG:   TEXTRACT({{.*}}, (uint16_t)(4 + {{.*}}), 0)

pto.kernel @runs(%x: !pto.tensor<2x16x32xf32>, %sq: !pto.tensor<2x16x32xf32>,
                 %w: !pto.tensor<2x3x8x32xf32>, %ws: !pto.tensor<2x3x8x32xf32>,
                 %a: !pto.tensor<16x64xf32>, %hv: !pto.tensor<16x32xf32>,
                 %z: !pto.tensor<?x1xf32>, %u: !pto.tensor<2x4x32xf32>,
                 %pk: !pto.tensor<2x1x32xf32>) {
  %nz = pto.dim %z, 0 : !pto.tensor<?x1xf32>
  %c8 = arith.constant 8 : index
  %v = arith.addi %nz, %c8 : index
  %tx = pto.view %x[0, 0, 0] valid [2, %v, 32] : !pto.tensor<2x16x32xf32> -> !pto.tile<2x16x32xf32>
  %m = pto.mul %tx, %tx : !pto.tile<2x16x32xf32>, !pto.tile<2x16x32xf32> -> !pto.tile<2x16x32xf32>
  pto.assemble %m, %sq[0, 0, 0] : !pto.tile<2x16x32xf32>, !pto.tensor<2x16x32xf32>
  %tw = pto.view %w[0, 1, 0, 0] : !pto.tensor<2x3x8x32xf32> -> !pto.tile<2x1x8x32xf32>
  %e = pto.exp %tw : !pto.tile<2x1x8x32xf32> -> !pto.tile<2x1x8x32xf32>
  pto.assemble %e, %ws[0, 2, 0, 0] : !pto.tile<2x1x8x32xf32>, !pto.tensor<2x3x8x32xf32>
  %ta = pto.view %a[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %ea = pto.exp %ta : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %c = arith.muli %nz, %c8 : index
  %h = pto.view %ea[0, %c] : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  pto.assemble %h, %hv[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  %tu = pto.view %u[0, 0, 0] : !pto.tensor<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %nu = pto.neg %tu : !pto.tile<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %c1 = arith.constant 1 : index
  %k = arith.subi %nz, %c1 : index
  %rk = pto.view %nu[0, %k, 0] : !pto.tile<2x4x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %rk, %pk[0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
}
