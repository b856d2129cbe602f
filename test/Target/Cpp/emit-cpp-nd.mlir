// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs against a
// NumPy golden (test_pto_isa_real.py also compiles it against the real
// pto-isa): dev = x - x.sum(2, keepdims), cs = x.sum(1, keepdims),
// k = exp(x)[:, 3:4, :], t = a[8:13] - w[:5] (a row tail under a fully
// valid per-row operand), hs[:, 2] = 2 * h[:, 1] (strided GM windows: rows
// 96 elements apart, one TLOAD / TSTORE each), lt = t[8 + r] with r the
// run-time rows of z minus 1 (a view of a tile at a run-time row).
// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(5); f = lambda *s: r.standard_normal(s).astype(n.float32); z = lambda *s: n.zeros(s, n.float32); n.save('%t.in/x.npy', f(2, 8, 32)); n.save('%t.in/a.npy', f(13, 64)); n.save('%t.in/w.npy', f(8, 1)); n.save('%t.in/h.npy', f(4, 3, 32)); n.save('%t.in/z.npy', z(4, 1)); n.save('%t.in/lt.npy', z(1, 64)); [n.save('%t.in/' + k + '.npy', z(*s)) for k, s in (('dev', (2, 8, 32)), ('cs', (2, 1, 32)), ('k', (2, 1, 32)), ('t', (13, 64)), ('hs', (4, 3, 32)))]"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; i = lambda k: n.load('%t.in/' + k + '.npy'); o = lambda k: n.load('%t.out/' + k + '.npy'); x, a, w = i('x'), i('a'), i('w'); assert n.allclose(o('dev'), x - x.sum(2, keepdims=True), atol=1e-5); assert n.allclose(o('cs'), x.sum(1, keepdims=True), atol=1e-5); assert n.allclose(o('k'), n.exp(x)[:, 3:4, :], rtol=1e-6); t = n.zeros((13, 64), n.float32); t[8:] = a[8:] - w[:5]; assert (o('t') == t).all(); hs = n.zeros((4, 3, 32), n.float32); hs[:, 2] = 2 * i('h')[:, 1]; assert (o('hs') == hs).all(); assert (o('lt') == a[11:12] - w[3]).all(); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// CHECK-LABEL: void nd_leaf_V1_0(
// CHECK-DAG:   TROWSUM(
// CHECK-DAG:   TROWEXPANDSUB(
// CHECK-DAG:   TINSERT(
// CHECK-DAG:   TEXTRACT(
// CHECK-DAG:   TMOV(
// CHECK-DAG:   Stride<1, 1, 1, DYNAMIC, 1>((int)96)
// CHECK-DAG:   TEXTRACT({{.*}}, (uint16_t)(0 + {{.*}}), 0)

pto.kernel @nd(%x: !pto.tensor<2x8x32xf32>, %dev: !pto.tensor<2x8x32xf32>,
               %cs: !pto.tensor<2x1x32xf32>, %k: !pto.tensor<2x1x32xf32>,
               %a: !pto.tensor<13x64xf32>, %w: !pto.tensor<8x1xf32>,
               %t: !pto.tensor<13x64xf32>, %h: !pto.tensor<4x3x32xf32>,
               %hs: !pto.tensor<4x3x32xf32>, %z: !pto.tensor<?x1xf32>,
               %lt: !pto.tensor<1x64xf32>) {
  %tx = pto.view %x[0, 0, 0] : !pto.tensor<2x8x32xf32> -> !pto.tile<2x8x32xf32>
  %m = pto.sum %tx dim = 2 keepdim : !pto.tile<2x8x32xf32> -> !pto.tile<2x8x1xf32>
  %d = pto.sub %tx, %m : !pto.tile<2x8x32xf32>, !pto.tile<2x8x1xf32> -> !pto.tile<2x8x32xf32>
  pto.assemble %d, %dev[0, 0, 0] : !pto.tile<2x8x32xf32>, !pto.tensor<2x8x32xf32>
  %c = pto.sum %tx dim = 1 keepdim : !pto.tile<2x8x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %c, %cs[0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
  %e = pto.exp %tx : !pto.tile<2x8x32xf32> -> !pto.tile<2x8x32xf32>
  %row = pto.view %e[0, 3, 0] : !pto.tile<2x8x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %row, %k[0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
  %ta = pto.view %a[8, 0] valid [5, 64] : !pto.tensor<13x64xf32> -> !pto.tile<8x64xf32>
  %tw = pto.view %w[0, 0] : !pto.tensor<8x1xf32> -> !pto.tile<8x1xf32>
  %s = pto.sub %ta, %tw : !pto.tile<8x64xf32>, !pto.tile<8x1xf32> -> !pto.tile<8x64xf32>
  pto.assemble %s, %t[8, 0] : !pto.tile<8x64xf32>, !pto.tensor<13x64xf32>
  %th = pto.view %h[0, 1, 0] : !pto.tensor<4x3x32xf32> -> !pto.tile<4x1x32xf32>
  %h2 = pto.add %th, %th : !pto.tile<4x1x32xf32>, !pto.tile<4x1x32xf32> -> !pto.tile<4x1x32xf32>
  pto.assemble %h2, %hs[0, 2, 0] : !pto.tile<4x1x32xf32>, !pto.tensor<4x3x32xf32>
  %nz = pto.dim %z, 0 : !pto.tensor<?x1xf32>
  %c1 = arith.constant 1 : index
  %r = arith.subi %nz, %c1 : index
  %lr = pto.view %s[%r, 0] : !pto.tile<8x64xf32> -> !pto.tile<1x64xf32>
  pto.assemble %lr, %lt[0, 0] : !pto.tile<1x64xf32>, !pto.tensor<1x64xf32>
}
