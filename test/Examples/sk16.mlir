// SK-16 parses, verifies and round-trips stably, pretty and generic.
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir > %t.1.mlir
// RUN: pto-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir --mlir-print-op-generic | pto-opt > %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward_d64.mlir --mlir-print-op-generic | pto-opt | pto-opt > /dev/null
// RUN: FileCheck %s < %t.1.mlir
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir --pto-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK-LABEL: pto.kernel @sk16_attention_backward(
// CHECK-SAME: %q: !pto.tensor<?x8x128xbf16>
// CHECK-SAME: %actual_kv: !pto.tensor<?xi32> {pto.cumulative})
// CHECK-SAME: arch = #pto.arch<DAV_2201>
// CHECK-SAME: combine_axis = true
// CHECK-SAME: pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 1, 0 : 4}>
// CHECK-SAME: runtime_options = #pto.runtime_options<stitch_function_max_num = 512, device_sched_mode = 3, ready_on_host_tensors = ["actual_q", "actual_kv"], max_workspace_kb = 25170624>
// CHECK: %[[SCALE:.*]] = arith.constant 0.0883883461 : f32
// CHECK: %[[TQ:.*]] = pto.dim %q, 0
// CHECK: %[[TKV:.*]] = pto.dim %k, 0
// CHECK: pto.reshape %q [%[[TQ]], 1024] inplace
// CHECK: pto.reshape %k [%[[TKV]], 1024] inplace
// CHECK: pto.reshape %v [%[[TKV]], 1024] inplace
// CHECK: pto.loop "LOOP_b_calc" %b_idx =
// CHECK: pto.loop "LOOP_n_calc" %n_idx =
// CHECK: pto.loop "LOOP_s1_dq" %s1_idx =
// CHECK: pto.loop "LOOP_s2_dq" %s2_idx =
// CHECK-COUNT-7: pto.view
// CHECK: pto.matmul {{.*}} {b_trans,
// CHECK: pto.matmul {{.*}} {b_trans,
// CHECK: pto.scope #pto.scope<id = 1>
// CHECK: pto.div {{.*}}precision = #pto.precision<INTRINSIC>
// CHECK: pto.matmul {{.*}} {a_trans,
// CHECK: pto.scope #pto.scope<id = 2>
// CHECK-COUNT-3: pto.atomic_add

// SUMMARY: pto.kernel @sk16_attention_backward  [DAV_2201 (A2/A3: 910B/910C)]
// SUMMARY: "LOOP_b_calc" (b_idx)
// SUMMARY-NEXT: "LOOP_n_calc" (n_idx)
// SUMMARY-NEXT: "LOOP_s1_dq" (s1_idx)
// SUMMARY-NEXT: "LOOP_s2_dq" (s2_idx)
// SUMMARY: views: 7 (7 with an explicit valid shape)
// SUMMARY: matmuls: 5
// SUMMARY: casts: 2 x bf16->f32 (NONE) 2 x f32->bf16 (RINT)
// SUMMARY: scopes: id 1 (12 vector, 0 cube ops), id 2 (5 vector, 0 cube ops)
// SUMMARY: atomic_add: 3 into dv, dq, dk
