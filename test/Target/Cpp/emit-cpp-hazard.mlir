// A leaf whose MTE2 -> V flag is missing prints and compiles, but the host
// emulation's hazard checker stops the run naming both instructions; after
// pto-isa-insert-sync the same leaf runs clean.
// RUN: pto-translate --pto-to-cpp %s -o %t.bad.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.bad.cpp -o %t.bad
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; x = n.ones((16, 64), n.float32); n.save('%t.in/x.npy', x); n.save('%t.in/y.npy', x)"
// RUN: not %t.bad --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=HAZARD
// HAZARD: hazard
// HAZARD-SAME: MTE2
// RUN: pto-opt %s --pto-isa-insert-sync | pto-translate --pto-to-cpp -o %t.good.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.good.cpp -o %t.good
// RUN: %t.good --inputs %t.in --outputs %t.out

func.func private @k_leaf_V1_0(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.000000e+00 : f32
  %a = pto_isa.alloc_tile valid [%c16, %c64] at 0 : !pto_isa.tile<ub, 16x64xf32>
  %b = pto_isa.alloc_tile valid [%c16, %c64] at 4096 : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %x[%c0, %c0] into %a : !pto.tensor<16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tmuls %a, %two into %b : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b into %y[%c0, %c0] atomic_add : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
  return
}

func.func private @k_root_main(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>) attributes {pto.root} {
  %t = pto.launch @k_leaf_V1_0(%x, %y) : (!pto.tensor<16x64xf32>, !pto.tensor<16x64xf32>) -> !pto.token
  return
}

pto.kernel @k(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>) {
  pto.root_call @k_root_main(%x, %y) : (!pto.tensor<16x64xf32>, !pto.tensor<16x64xf32>) -> ()
  pto.return
}
