// RUN: pto-translate --pto-to-cpp %s | FileCheck %s
// The text compiles against the host emulation of pto-isa and runs: y += 4x.
// RUN: pto-translate --pto-to-cpp %s -o %t.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.cpp -o %t.exe
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; x = n.arange(40 * 64, dtype=n.float32).reshape(40, 64); n.save('%t.in/x.npy', x); n.save('%t.in/y.npy', n.ones_like(x))"
// RUN: %t.exe --inputs %t.in --outputs %t.out --threads 2 --stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %python -c "import numpy as n; x = n.load('%t.in/x.npy'); y = n.load('%t.out/y.npy'); assert (y == 1 + 4 * x).all(), abs(y - 1 - 4 * x).max(); print('ok')" | FileCheck %s --check-prefix=GOLD
// STATS: device_tasks=1 root_instances=3 launches=6 gm_waits=0
// GOLD: ok

// A lowered, planned, synchronised vector leaf, a root launching it twice and
// the control program calling the root in a loop with a stitch plan.

// CHECK: #include <pto/pto-inst.hpp>
// CHECK: using namespace pto;

// CHECK-LABEL: #if defined(__DAV_VEC__)
// CHECK-NEXT: __global__ AICORE void k_leaf_V1_0(__gm__ float *a0, int64_t a0_d0, __gm__ float *a1, int64_t a1_d0, int64_t a2, int64_t a3, int64_t a4) {
func.func private @k_leaf_V1_0(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>,
                              %row: index, %rows: index, %cols: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.000000e+00 : f32
  // CHECK: using [[T:Tv[0-9]+]] = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Zero>;
  // CHECK-NEXT: [[T]] [[A:v[0-9]+]]((unsigned)a3, (unsigned)a4);
  // CHECK-NEXT: TASSIGN([[A]], 0);
  %a = pto_isa.alloc_tile valid [%rows, %cols] at 0 : !pto_isa.tile<ub, 16x64xf32>
  // CHECK: TASSIGN([[B:v[0-9]+]], 4096);
  %b = pto_isa.alloc_tile valid [%rows, %cols] at 4096 : !pto_isa.tile<ub, 16x64xf32>
  // CHECK: if (a3 > 0 && a4 > 0) {
  // CHECK-NEXT: using [[G:Gv[0-9]+]] = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND>;
  // CHECK-NEXT: [[G]] [[GV:v[0-9]+]](a0 + (a2 * 64 + v0), Shape<1, 1, 1, DYNAMIC, DYNAMIC>((int)a3, (int)a4), Stride<1, 1, 1, DYNAMIC, 1>((int)64));
  // CHECK-NEXT: TLOAD([[A]], [[GV]]);
  pto_isa.tload %x[%row, %c0] into %a : !pto.tensor<?x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  // CHECK: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  // CHECK-NEXT: wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  pto_isa.set_flag MTE2 -> V, 0
  pto_isa.wait_flag MTE2 -> V, 0
  // CHECK-NEXT: if (a3 > 0 && a4 > 0) TMULS([[B]], [[A]], v1);
  pto_isa.tmuls %a, %two into %b : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.set_flag V -> MTE3, 1
  pto_isa.wait_flag V -> MTE3, 1
  // CHECK: TSTORE<[[TB:Tv[0-9]+]], [[G2:Gv[0-9]+]], AtomicType::AtomicAdd>([[GV2:v[0-9]+]], [[B]]);
  pto_isa.tstore %b into %y[%row, %c0] atomic_add : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<?x64xf32>
  return
}
// CHECK: #endif

// CHECK: #if defined(__CPU_SIM)
// Scalars reach a root through one array (thousands of them at A3 tiles).
// The root instance holds the array until its launches have run; each
// launch reads its elements.
// CHECK-LABEL: static void k_root_LOOP_i(pto_rt::RootInstance &ri, pto_rt::Scalars scalars, float *a0, float *a1) {
// CHECK-NEXT: const int64_t *s = ri.hold(std::move(scalars));
func.func private @k_root_LOOP_i(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>,
                                 %row: index, %rows: index) attributes {pto.root} {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  // Each GM use carries the box the leaf touches (rows [row, row + rows) of
  // the 64-wide x and y; its tiles' valid extents), in the launch's operands.
  // CHECK: const pto_rt::Token [[T0:v[0-9]+]] = ri.launch(pto_rt::Core::Vector, "k_leaf_V1_0", {}, {{[{][{]}}a0, 1, sizeof(float), 64, (int64_t)s[2], (int64_t)s[2] + (int64_t)s[3], int64_t(0), (int64_t)v1}, {a1, 4, sizeof(float), 64, (int64_t)s[2], (int64_t)s[2] + (int64_t)s[3], int64_t(0), (int64_t)v1}}, [=] { k_leaf_V1_0(a0, s[0], a1, s[1], s[2], s[3], v1); });
  %t0 = pto.launch @k_leaf_V1_0(%x, %y, %row, %rows, %c64) : (!pto.tensor<?x64xf32>, !pto.tensor<?x64xf32>, index, index, index) -> !pto.token
  // CHECK: ri.launch(pto_rt::Core::Vector, "k_leaf_V1_0", {[[T0]]}, {{[{][{]}}a0, 1, {{.*}}}, {a1, 4, {{.*}}}}, [=]
  %t1 = pto.launch @k_leaf_V1_0(%x, %y, %row, %rows, %c64) after [%t0] : (!pto.tensor<?x64xf32>, !pto.tensor<?x64xf32>, index, index, index) -> !pto.token
  return
}

// CHECK-LABEL: void k(pto_rt::Runtime &rt, float *x, int64_t x_d0, float *y, int64_t y_d0) {
pto.kernel @k(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: const int64_t [[N:v[0-9]+]] = x_d0;
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %tiles = arith.ceildivsi %n, %c16 : index
  %one = arith.constant 1 : index
  // A constant positive step needs no check; the last step is never taken
  // past the bound (no overflow near INT64_MAX).
  // A loop marked submit_before_loop submits the pending device task first
  // (docs/Runtime.md, "Stitching").
  // CHECK-NOT: check_loop_step
  // CHECK: rt.flush();  // submit_before_loop
  // CHECK-NEXT: for (int64_t [[I:v[0-9]+]] = v0; [[I]] < [[UB:v[0-9]+]]; [[I]] = uint64_t([[UB]]) - uint64_t([[I]]) <= uint64_t([[STEP:v[0-9]+]]) ? [[UB]] : [[I]] + [[STEP]]) {  // LOOP_i
  pto.loop "LOOP_i" %i = %c0 to %tiles step %one attributes {submit_before_loop} {
    %row = arith.muli %i, %c16 : index
    %left = arith.subi %n, %row : index
    %rows = arith.minsi %left, %c16 : index
    // CHECK: auto [[S:v[0-9]+]] = std::make_shared<const std::vector<int64_t>>(std::vector<int64_t>{x_d0, y_d0, (int64_t)v{{[0-9]+}}, (int64_t)v{{[0-9]+}}});
    // CHECK-NEXT: rt.root_call("k_root_LOOP_i", 0, 4, [=](pto_rt::RootInstance &ri) { k_root_LOOP_i(ri, [[S]], x, y); });
    pto.root_call @k_root_LOOP_i(%x, %y, %row, %rows) {stitch = #pto.stitch_plan<depth = 4, workspace_bytes = 0, launches = 2, mode = "count">} : (!pto.tensor<?x64xf32>, !pto.tensor<?x64xf32>, index, index) -> ()
  }
  // CHECK: rt.flush();
  pto.return
}
// CHECK-LABEL: int main(int argc, char **argv) {
// CHECK-NEXT: pto_rt::HostMain m(argc, argv);
// CHECK: auto &t0 = m.input<float>("x", {-1, 64});
// CHECK: k(m.runtime(), t0.data(), t0.dim(0), t1.data(), t1.dim(0));
// CHECK: m.runtime().finish();
// CHECK-NOT: m.output("x"
// CHECK: m.output("y", t1);
// CHECK: return m.finish();
