// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs against a
// NumPy golden: out = log(exp(exp(x) / 2 / x)) = exp(x) / 2 / x.
// RUN: pto-opt %s --pto-ascend-pipeline | pto-translate --pto-to-cpp -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(3); n.save('%t.in/x.npy', r.uniform(0.5, 1.5, (16, 64)).astype(n.float32)); n.save('%t.in/out.npy', n.zeros((16, 64), n.float32))"
// RUN: %t.exe --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; x = n.load('%t.in/x.npy').astype(n.float64); g = n.exp(x) / 2 / x; o = n.load('%t.out/out.npy'); assert n.allclose(o, g, rtol=1e-5), abs(o - g).max(); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// pto.exp / pto.div / pto.log keep their precision down to the emitted instruction:
// pto-isa's algorithm template argument for HIGH_PRECISION, none for
// INTRINSIC (pto-isa's DEFAULT).

// CHECK-LABEL: void prec_leaf_V1_0(
// CHECK:       TEXP<pto::ExpAlgorithm::HIGH_PRECISION>(
// CHECK:       TDIVS<pto::DivAlgorithm::HIGH_PRECISION>(
// CHECK:       TDIV<pto::DivAlgorithm::HIGH_PRECISION>(
// CHECK:       TEXP(
// CHECK:       TLOG<pto::LogAlgorithm::HIGH_PRECISION>(

pto.kernel @prec(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.exp %t {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %two = arith.constant 2.000000e+00 : f32
  %h = pto.div %e, %two {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
  %q = pto.div %h, %t {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %f = pto.exp %q : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %g = pto.log %f {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %g, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}
