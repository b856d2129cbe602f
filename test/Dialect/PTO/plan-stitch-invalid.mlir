// RUN: pto-opt %s -split-input-file -pto-plan-stitch -verify-diagnostics

// Errors of pto-plan-stitch, and the edge of the max_workspace_kb rule.
// max_workspace_kb at the minimum runnable workspace: 2 x (32 KiB + 288 KiB).
func.func private @leaf(%a: !pto.tensor<256x256xf32>, %b: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @root() attributes {pto.root} {
  %a = pto.workspace : !pto.tensor<256x256xf32>
  %b = pto.workspace : !pto.tensor<16x32xf32>
  %t0 = pto.launch @leaf(%a, %b) : (!pto.tensor<256x256xf32>, !pto.tensor<16x32xf32>) -> !pto.token
  return
}
// expected-error @+1 {{pto-plan-stitch: runtime option max_workspace_kb = 640 is not above the kernel's minimum runnable workspace of 640 KiB (655360 bytes = device_sched_parallelism 2 x (32768 bytes of control-program workspaces + 294912 bytes for one instance of @root), each workspace 32 KiB aligned); fix: set max_workspace_kb to at least 641 (73792 stitches 128 instances), or to 0 to stitch by stitch_function_max_num}}
pto.kernel @too_small(%x: !pto.tensor<16xf32>) attributes {
    runtime_options = #pto.runtime_options<max_workspace_kb = 640, device_sched_parallelism = 2>} {
  %shared = pto.workspace : !pto.tensor<8x8xf32>
  // expected-note @+1 {{the largest root instance is called here}}
  pto.root_call @root() : () -> ()
}

// -----

func.func private @leaf() attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
func.func private @root() attributes {pto.root} {
  %t0 = pto.launch @leaf() : () -> !pto.token
  return
}
// Without workspace the minimum is 0: any max_workspace_kb is above it.
pto.kernel @no_workspace(%x: !pto.tensor<16xf32>) attributes {
    runtime_options = #pto.runtime_options<max_workspace_kb = 1>} {
  pto.root_call @root() : () -> ()
}
