// RUN: pto-opt %s -split-input-file -pto-plan-stitch | FileCheck %s
// RUN: pto-opt %s -split-input-file '-pto-plan-stitch=report=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: pto-opt %S/outline.mlir -split-input-file -pto-outline -pto-plan-stitch | FileCheck %s --check-prefix=PIPE
// RUN: pto-opt %S/outline.mlir -split-input-file -pto-outline | pto-opt -split-input-file -pto-plan-stitch | FileCheck %s --check-prefix=PIPE
// Workspaces inside tasks: right after pto-outline, pto-plan-stitch takes the
// workspaces outline recorded for the roots and leaves it built; run apart,
// it walks them. Both give one plan.
// RUN: pto-opt %S/Inputs/plan-stitch-leaf-workspaces.mlir -pto-outline -pto-plan-stitch | FileCheck %s --check-prefix=LEAF
// RUN: pto-opt %S/Inputs/plan-stitch-leaf-workspaces.mlir -pto-outline | pto-opt -pto-plan-stitch | FileCheck %s --check-prefix=LEAF

// pto-plan-stitch on hand-written outlined IR: workspace per root instance
// (each workspace 32 KiB aligned), launches, stitch depth in count and
// memory mode with their caps, ready_on_host_tensors as pto.host_ready.

// Count mode, defaults: depth = stitch_function_max_num = 128. Two 2 KiB
// workspaces take 32 KiB each.
// CHECK-LABEL: pto.kernel @count_default(
// CHECK:         pto.root_call @count_root() {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 65536, launches = 2, mode = "count">} : () -> ()
// REPORT: remark: pto-plan-stitch: @count_root: 65536 bytes of workspace per instance (2 workspaces, 32 KiB aligned), 2 launches, stitch depth 128 (count: stitch_function_max_num = 128)
// REPORT: remark: pto-plan-stitch: @count_default: minimum runnable workspace 64 KiB (65536 bytes); max_workspace_kb = 8192 stitches 128 instances of the largest root
func.func private @count_leaf(%ws: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @count_root() attributes {pto.root} {
  %ws0 = pto.workspace : !pto.tensor<16x32xf32>
  %ws1 = pto.workspace : !pto.tensor<16x32xf32>
  %t0 = pto.launch @count_leaf(%ws0) : (!pto.tensor<16x32xf32>) -> !pto.token
  %t1 = pto.launch @count_leaf(%ws1) after [%t0] : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @count_default(%x: !pto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    pto.root_call @count_root() : () -> ()
  }
}

// -----

// Count mode with stitch_function_max_num; inside a parallel loop the hard
// cap (1024) replaces it (docs/PyPTOModel.md#stitching).
// CHECK-LABEL: pto.kernel @count_option(
// CHECK:         pto.root_call @opt_root() {stitch = #pto.stitch_plan<depth = 4, workspace_bytes = 32768, launches = 1, mode = "count">}
// CHECK:         pto.root_call @opt_root() {stitch = #pto.stitch_plan<depth = 1024, workspace_bytes = 32768, launches = 1, mode = "count">}
// REPORT: remark: pto-plan-stitch: @opt_root: 32768 bytes of workspace per instance (1 workspace, 32 KiB aligned), 1 launch, stitch depth 4 (count: stitch_function_max_num = 4)
// REPORT: remark: pto-plan-stitch: @opt_root: 32768 bytes of workspace per instance (1 workspace, 32 KiB aligned), 1 launch, stitch depth 1024 (count: inside a parallel loop, the hard cap replaces stitch_function_max_num)
func.func private @opt_leaf(%ws: !pto.tensor<32x32xbf16>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @opt_root() attributes {pto.root} {
  %ws = pto.workspace : !pto.tensor<32x32xbf16>
  %t0 = pto.launch @opt_leaf(%ws) : (!pto.tensor<32x32xbf16>) -> !pto.token
  return
}
pto.kernel @count_option(%x: !pto.tensor<16xf32>) attributes {
    runtime_options = #pto.runtime_options<stitch_function_max_num = 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    pto.root_call @opt_root() : () -> ()
  }
  pto.loop "P" %i = %c0 to %c8 step %c1 attributes {parallel} {
    pto.root_call @opt_root() : () -> ()
  }
}

// -----

// Memory mode: max_workspace_kb = 2000 with device_sched_parallelism = 2, a
// 32 KiB control-program workspace (256 B, aligned) and 288 KiB per instance
// (256 KiB + 2 KiB aligned to 32 KiB): the minimum is 2 x (32 + 288) = 640
// KiB; depth = floor((2000 KiB - 2 x 32 KiB) / (2 x 288 KiB)) = 3. A root
// without workspace is not limited by memory: the hard cap.
// CHECK-LABEL: pto.kernel @memory(
// CHECK:         pto.root_call @mem_root(%{{.*}}) {stitch = #pto.stitch_plan<depth = 3, workspace_bytes = 294912, launches = 2, mode = "memory">}
// CHECK:         pto.root_call @mem_root_small(%{{.*}}) {stitch = #pto.stitch_plan<depth = 1024, workspace_bytes = 0, launches = 1, mode = "memory">}
// REPORT: remark: pto-plan-stitch: @mem_root: 294912 bytes of workspace per instance (2 workspaces, 32 KiB aligned), 2 launches, stitch depth 3 (memory: max_workspace_kb = 2000, device_sched_parallelism = 2, 32768 bytes of control-program workspaces)
// REPORT: remark: pto-plan-stitch: @memory: minimum runnable workspace 640 KiB (655360 bytes); max_workspace_kb = 73792 stitches 128 instances of the largest root
func.func private @mem_leaf(%a: !pto.tensor<256x256xf32>, %b: !pto.tensor<16x32xf32>, %c: !pto.tensor<8x8xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @mem_leaf_small(%c: !pto.tensor<8x8xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @mem_root(%c: !pto.tensor<8x8xf32>) attributes {pto.root} {
  %a = pto.workspace : !pto.tensor<256x256xf32>
  %b = pto.workspace : !pto.tensor<16x32xf32>
  %t0 = pto.launch @mem_leaf(%a, %b, %c) : (!pto.tensor<256x256xf32>, !pto.tensor<16x32xf32>, !pto.tensor<8x8xf32>) -> !pto.token
  %t1 = pto.launch @mem_leaf(%a, %b, %c) after [%t0] : (!pto.tensor<256x256xf32>, !pto.tensor<16x32xf32>, !pto.tensor<8x8xf32>) -> !pto.token
  return
}
func.func private @mem_root_small(%c: !pto.tensor<8x8xf32>) attributes {pto.root} {
  %t0 = pto.launch @mem_leaf_small(%c) : (!pto.tensor<8x8xf32>) -> !pto.token
  return
}
pto.kernel @memory(%x: !pto.tensor<16xf32>) attributes {
    runtime_options = #pto.runtime_options<stitch_function_max_num = 128,
        max_workspace_kb = 2000, device_sched_parallelism = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %shared = pto.workspace : !pto.tensor<8x8xf32>
  pto.loop "L" %i = %c0 to %c8 step %c1 {
    pto.root_call @mem_root(%shared) : (!pto.tensor<8x8xf32>) -> ()
    pto.root_call @mem_root_small(%shared) : (!pto.tensor<8x8xf32>) -> ()
  }
}

// -----

// At most 60000 call tasks per stitch: 70 launches per instance allow 857
// instances, below stitch_function_max_num = 1024.
// CHECK-LABEL: pto.kernel @wide(
// CHECK:         pto.root_call @wide_root() {stitch = #pto.stitch_plan<depth = 857, workspace_bytes = 0, launches = 70, mode = "count">}
// REPORT: remark: pto-plan-stitch: @wide_root: 0 bytes of workspace per instance (0 workspaces, 32 KiB aligned), 70 launches, stitch depth 857 (count: stitch_function_max_num = 1024; capped at 60000 call tasks)
func.func private @wide_leaf() attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @wide_root() attributes {pto.root} {
  %t0 = pto.launch @wide_leaf() : () -> !pto.token
  %t1 = pto.launch @wide_leaf() : () -> !pto.token
  %t2 = pto.launch @wide_leaf() : () -> !pto.token
  %t3 = pto.launch @wide_leaf() : () -> !pto.token
  %t4 = pto.launch @wide_leaf() : () -> !pto.token
  %t5 = pto.launch @wide_leaf() : () -> !pto.token
  %t6 = pto.launch @wide_leaf() : () -> !pto.token
  %t7 = pto.launch @wide_leaf() : () -> !pto.token
  %t8 = pto.launch @wide_leaf() : () -> !pto.token
  %t9 = pto.launch @wide_leaf() : () -> !pto.token
  %t10 = pto.launch @wide_leaf() : () -> !pto.token
  %t11 = pto.launch @wide_leaf() : () -> !pto.token
  %t12 = pto.launch @wide_leaf() : () -> !pto.token
  %t13 = pto.launch @wide_leaf() : () -> !pto.token
  %t14 = pto.launch @wide_leaf() : () -> !pto.token
  %t15 = pto.launch @wide_leaf() : () -> !pto.token
  %t16 = pto.launch @wide_leaf() : () -> !pto.token
  %t17 = pto.launch @wide_leaf() : () -> !pto.token
  %t18 = pto.launch @wide_leaf() : () -> !pto.token
  %t19 = pto.launch @wide_leaf() : () -> !pto.token
  %t20 = pto.launch @wide_leaf() : () -> !pto.token
  %t21 = pto.launch @wide_leaf() : () -> !pto.token
  %t22 = pto.launch @wide_leaf() : () -> !pto.token
  %t23 = pto.launch @wide_leaf() : () -> !pto.token
  %t24 = pto.launch @wide_leaf() : () -> !pto.token
  %t25 = pto.launch @wide_leaf() : () -> !pto.token
  %t26 = pto.launch @wide_leaf() : () -> !pto.token
  %t27 = pto.launch @wide_leaf() : () -> !pto.token
  %t28 = pto.launch @wide_leaf() : () -> !pto.token
  %t29 = pto.launch @wide_leaf() : () -> !pto.token
  %t30 = pto.launch @wide_leaf() : () -> !pto.token
  %t31 = pto.launch @wide_leaf() : () -> !pto.token
  %t32 = pto.launch @wide_leaf() : () -> !pto.token
  %t33 = pto.launch @wide_leaf() : () -> !pto.token
  %t34 = pto.launch @wide_leaf() : () -> !pto.token
  %t35 = pto.launch @wide_leaf() : () -> !pto.token
  %t36 = pto.launch @wide_leaf() : () -> !pto.token
  %t37 = pto.launch @wide_leaf() : () -> !pto.token
  %t38 = pto.launch @wide_leaf() : () -> !pto.token
  %t39 = pto.launch @wide_leaf() : () -> !pto.token
  %t40 = pto.launch @wide_leaf() : () -> !pto.token
  %t41 = pto.launch @wide_leaf() : () -> !pto.token
  %t42 = pto.launch @wide_leaf() : () -> !pto.token
  %t43 = pto.launch @wide_leaf() : () -> !pto.token
  %t44 = pto.launch @wide_leaf() : () -> !pto.token
  %t45 = pto.launch @wide_leaf() : () -> !pto.token
  %t46 = pto.launch @wide_leaf() : () -> !pto.token
  %t47 = pto.launch @wide_leaf() : () -> !pto.token
  %t48 = pto.launch @wide_leaf() : () -> !pto.token
  %t49 = pto.launch @wide_leaf() : () -> !pto.token
  %t50 = pto.launch @wide_leaf() : () -> !pto.token
  %t51 = pto.launch @wide_leaf() : () -> !pto.token
  %t52 = pto.launch @wide_leaf() : () -> !pto.token
  %t53 = pto.launch @wide_leaf() : () -> !pto.token
  %t54 = pto.launch @wide_leaf() : () -> !pto.token
  %t55 = pto.launch @wide_leaf() : () -> !pto.token
  %t56 = pto.launch @wide_leaf() : () -> !pto.token
  %t57 = pto.launch @wide_leaf() : () -> !pto.token
  %t58 = pto.launch @wide_leaf() : () -> !pto.token
  %t59 = pto.launch @wide_leaf() : () -> !pto.token
  %t60 = pto.launch @wide_leaf() : () -> !pto.token
  %t61 = pto.launch @wide_leaf() : () -> !pto.token
  %t62 = pto.launch @wide_leaf() : () -> !pto.token
  %t63 = pto.launch @wide_leaf() : () -> !pto.token
  %t64 = pto.launch @wide_leaf() : () -> !pto.token
  %t65 = pto.launch @wide_leaf() : () -> !pto.token
  %t66 = pto.launch @wide_leaf() : () -> !pto.token
  %t67 = pto.launch @wide_leaf() : () -> !pto.token
  %t68 = pto.launch @wide_leaf() : () -> !pto.token
  %t69 = pto.launch @wide_leaf() : () -> !pto.token
  return
}
pto.kernel @wide(%x: !pto.tensor<16xf32>) attributes {
    runtime_options = #pto.runtime_options<stitch_function_max_num = 1024>} {
  pto.root_call @wide_root() : () -> ()
}

// -----

// ready_on_host_tensors: control-program reads of a listed tensor (also
// through an in-place reshape) are marked pto.host_ready, the others are not
// (a stale mark is removed).
// CHECK-LABEL: pto.kernel @host_ready(
// CHECK:         pto.read %actual_q[%{{.*}}] {pto.host_ready} : !pto.tensor<?xi32>
// CHECK:         pto.read %{{.*}}[%{{.*}}, %{{.*}}] {pto.host_ready} : !pto.tensor<?x1xi32>
// CHECK:         pto.read %actual_kv[%{{.*}}] : !pto.tensor<?xi32>
// CHECK-NOT:     pto.host_ready
// REPORT: remark: pto-plan-stitch: scalar read of 'actual_q' is ready on the host (ready_on_host_tensors): the control AICPU reads it without waiting
// REPORT: remark: pto-plan-stitch: scalar read of 'actual_q' is ready on the host
// REPORT: remark: pto-plan-stitch: scalar read of 'actual_kv' waits for the AI cores to start (WaitAicoreStart); list the tensor in ready_on_host_tensors if its data is valid at launch
pto.kernel @host_ready(%actual_q: !pto.tensor<?xi32>, %actual_kv: !pto.tensor<?xi32>) attributes {
    runtime_options = #pto.runtime_options<ready_on_host_tensors = ["actual_q"]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = pto.dim %actual_q, 0 : !pto.tensor<?xi32>
  %q = pto.read %actual_q[%c0] : !pto.tensor<?xi32>
  %q2 = pto.reshape %actual_q [%n, 1] inplace : !pto.tensor<?xi32> -> !pto.tensor<?x1xi32>
  %r = pto.read %q2[%c1, %c0] : !pto.tensor<?x1xi32>
  %kv = pto.read %actual_kv[%c0] {pto.host_ready} : !pto.tensor<?xi32>
}

// PIPE-LABEL: pto.kernel @tg(
// PIPE:         pto.root_call @tg_root_main(%w, %{{.*}}) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 0, launches = 1, mode = "count">}
// PIPE:         pto.root_call @tg_root_L_main({{.*}}) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 65536, launches = 4, mode = "count">}
// PIPE-LABEL: pto.kernel @deps(
// PIPE:         pto.root_call @deps_root_main({{.*}}) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 32768, launches = 8, mode = "count">}

// -----

// A workspace marked pto.on_chip (pto-mix-exchange: moved L0C -> UB inside
// MIX tasks) takes no GM: only the other one counts.
// CHECK-LABEL: pto.kernel @on_chip(
// CHECK:         pto.root_call @on_chip_root() {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 32768, launches = 1, mode = "count">}
func.func private @on_chip_leaf(%a: !pto.tensor<16x32xf32>, %b: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @on_chip_root() attributes {pto.root} {
  %ws0 = pto.workspace : !pto.tensor<16x32xf32>
  %ws1 = pto.workspace {pto.on_chip} : !pto.tensor<16x32xf32>
  %t0 = pto.launch @on_chip_leaf(%ws0, %ws1) : (!pto.tensor<16x32xf32>, !pto.tensor<16x32xf32>) -> !pto.token
  return
}
pto.kernel @on_chip(%x: !pto.tensor<16xf32>) {
  pto.root_call @on_chip_root() : () -> ()
}

// One 32 KiB root workspace and, per launch of the V0 leaf (twice), its 8 KiB
// GM workspace (32 KiB aligned); its on-chip one takes no GM.
// LEAF-LABEL: pto.kernel @leaf_ws(
// LEAF:         pto.root_call @leaf_ws_root_L({{.*}}) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 98304, launches = 3, mode = "count">}
