// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule and per diagnostic of the pto dialect. Every case
// is a valid program except for the one rule it breaks.

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// expected-error @+1 {{!pto.tile dims must be static; use a view's valid shape for run-time extents}}
func.func private @tile_dynamic_dim(%t: !pto.tile<?x64xf32>)

// -----

// expected-error @+1 {{!pto.tensor dims must be positive, got 0}}
func.func private @tensor_zero_dim(%t: !pto.tensor<0x64xf32>)

// -----

// expected-error @+1 {{!pto.tile dims must be positive, got 0}}
func.func private @tile_zero_dim(%t: !pto.tile<16x0xf32>)

// -----

// Static sizes stay far from int64 overflow (2^48 bytes), so passes and
// pto-run can multiply sizes, strides and offsets safely.
// expected-error @+1 {{!pto.tensor of shape [4611686018427387904, 4] x 'f32' is over the limit of 2^48 bytes}}
func.func private @tensor_size_overflow(%t: !pto.tensor<4611686018427387904x4xf32>)

// -----

// expected-error @+1 {{!pto.tile of shape [16777216, 16777216] x 'bf16' is over the limit of 2^48 bytes}}
func.func private @tile_too_large(%t: !pto.tile<16777216x16777216xbf16>)

// -----

// Dynamic dims do not count: the static part of this one is 1 GiB.
func.func private @tensor_dynamic_ok(%t: !pto.tensor<?x262144x1024xf32>)

// -----

// expected-error @+1 {{!pto.tile must have rank >= 1}}
func.func private @tile_rank0(%t: !pto.tile<f32>)

// -----

// expected-error @+1 {{!pto.tensor must have rank >= 1}}
func.func private @tensor_rank0(%t: !pto.tensor<f32>)

// -----

// expected-error @+1 {{!pto.tensor element type 'f64' is not one of bf16, f16, f32, i1 (DT_BOOL), i8, i16, i32, i64, f8E4M3FN, f8E5M2}}
func.func private @tensor_f64(%t: !pto.tensor<?x64xf64>)

// -----

// expected-error @+1 {{!pto.tile element type 'ui8' is not one of bf16, f16, f32, i1 (DT_BOOL), i8, i16, i32, i64, f8E4M3FN, f8E5M2}}
func.func private @tile_unsigned(%t: !pto.tile<32x32xui8>)

// -----

// i1 is DT_BOOL (masks, masks.mlir); other sub-byte widths are not.
// expected-error @+1 {{!pto.tile element type 'i4' is not one of}}
func.func private @tile_i4(%t: !pto.tile<32x32xi4>)

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// -----

pto.kernel @runtime_stitch_low() attributes {
    // expected-error @+1 {{runtime option 'stitch_function_max_num' = 0 is out of range: it must be in [1, 1024]}}
    runtime_options = #pto.runtime_options<stitch_function_max_num = 0>} {
}

// -----

pto.kernel @runtime_stitch_high() attributes {
    // expected-error @+1 {{runtime option 'stitch_function_max_num' = 1025 is out of range: it must be in [1, 1024]}}
    runtime_options = #pto.runtime_options<stitch_function_max_num = 1025>} {
}

// -----

pto.kernel @runtime_sched_mode() attributes {
    // expected-error @+1 {{runtime option 'device_sched_mode' = 4 is out of range: it must be in [0, 3]}}
    runtime_options = #pto.runtime_options<device_sched_mode = 4>} {
}

// -----

pto.kernel @runtime_workspace_negative() attributes {
    // expected-error @+1 {{runtime option 'max_workspace_kb' = -1 is out of range: it must be in [0, 2147483647]}}
    runtime_options = #pto.runtime_options<max_workspace_kb = -1>} {
}

// -----

pto.kernel @runtime_workspace_high() attributes {
    // expected-error @+1 {{runtime option 'max_workspace_kb' = 2147483648 is out of range: it must be in [0, 2147483647]}}
    runtime_options = #pto.runtime_options<max_workspace_kb = 2147483648>} {
}

// -----

pto.kernel @runtime_parallelism_low() attributes {
    // expected-error @+1 {{runtime option 'device_sched_parallelism' = 0 is out of range: it must be in [1, 8]}}
    runtime_options = #pto.runtime_options<device_sched_parallelism = 0>} {
}

// -----

pto.kernel @runtime_parallelism_high() attributes {
    // expected-error @+1 {{runtime option 'device_sched_parallelism' = 9 is out of range: it must be in [1, 8]}}
    runtime_options = #pto.runtime_options<device_sched_parallelism = 9>} {
}

// -----

pto.kernel @ready_on_host_not_string(%actual_q: !pto.tensor<?xi32>) attributes {
    // expected-error @+1 {{runtime option 'ready_on_host_tensors' must list kernel argument names as strings, got 1 : i64}}
    runtime_options = #pto.runtime_options<ready_on_host_tensors = [1]>} {
}

// -----

pto.kernel @ready_on_host_twice(%actual_q: !pto.tensor<?xi32>) attributes {
    // expected-error @+1 {{runtime option 'ready_on_host_tensors' names 'actual_q' twice}}
    runtime_options = #pto.runtime_options<ready_on_host_tensors = ["actual_q", "actual_q"]>} {
}

// -----

pto.kernel @merge_duplicate_key() attributes {
    // expected-error @+1 {{merge setting key 0 appears twice; give each group one value}}
    pass_options = #pto.pass_options<cube_nbuffer_setting = {-1 : 1, 0 : 2, 0 : 4}>} {
}

// -----

pto.kernel @merge_key_below_minus_two() attributes {
    // expected-error @+1 {{merge setting key -3 is invalid: use -1 (default of every group), k >= 0 (the group of hash order k) or -2 (vec_nbuffer_setting only)}}
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-3 : 1}>} {
}

// -----

pto.kernel @merge_count_zero() attributes {
    // expected-error @+1 {{merge setting value 0 for key 3 must be >= 1 (1 = no merge)}}
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 1, 3 : 0}>} {
}

// -----

pto.kernel @merge_count_zero_with_side() attributes {
    // expected-error @+1 {{merge setting value 0 for key -1 must be >= 1 (1 = no merge)}}
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : (0, "left")}>} {
}

// -----

pto.kernel @merge_key_minus_two_count() attributes {
    // expected-error @+1 {{merge setting key -2 takes 0 (automatic) or 1 (manual) multi-input/output merging, got 2}}
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-2 : 2}>} {
}

// -----

pto.kernel @merge_bad_side() attributes {
    // expected-error @+1 {{merge setting side must be "left", "right" or "auto", got "up"}}
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : (2, "up")}>} {
}

// -----

pto.kernel @merge_standalone_bad() attributes {
    // expected-error @+1 {{merge setting key 1 appears twice}}
    pto.setting = #pto.merge_setting<{1 : 2, 1 : 2}>} {
}

// -----

pto.kernel @pass_side_in_vec_nbuffer() attributes {
    // expected-error @+1 {{vec_nbuffer_setting: a (count, side) value is only allowed in cube_l1_reuse_setting}}
    pass_options = #pto.pass_options<vec_nbuffer_setting = {0 : (2, "left")}>} {
}

// -----

pto.kernel @pass_side_in_cube_nbuffer() attributes {
    // expected-error @+1 {{cube_nbuffer_setting: a (count, side) value is only allowed in cube_l1_reuse_setting}}
    pass_options = #pto.pass_options<cube_nbuffer_setting = {-1 : (2, "auto")}>} {
}

// -----

pto.kernel @pass_minus_two_in_cube_l1_reuse() attributes {
    // expected-error @+1 {{cube_l1_reuse_setting: key -2 is only allowed in vec_nbuffer_setting}}
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-2 : 1}>} {
}

// -----

pto.kernel @pass_minus_two_in_cube_nbuffer() attributes {
    // expected-error @+1 {{cube_nbuffer_setting: key -2 is only allowed in vec_nbuffer_setting}}
    pass_options = #pto.pass_options<cube_nbuffer_setting = {-2 : 0}>} {
}

// -----

pto.kernel @pass_unknown_option() attributes {
    // expected-error @+1 {{unknown pass option 'sg_set_scope'; expected vec_nbuffer_setting, cube_l1_reuse_setting or cube_nbuffer_setting (sg_set_scope is the pto.scope op)}}
    pass_options = #pto.pass_options<sg_set_scope = {-1 : 1}>} {
}

// -----

pto.kernel @pass_option_twice() attributes {
    // expected-error @+1 {{pass option 'vec_nbuffer_setting' given twice}}
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 1}, vec_nbuffer_setting = {0 : 2}>} {
}

// -----

// expected-error @+1 {{cube tile 'm' must be [L0, L1], got 1 values}}
func.func private @cube_tile_arity() attributes {t = #pto.cube_tile<m = [128], k = [64, 128], n = [64, 64]>}

// -----

// expected-error @+1 {{cube tile 'n' must be [L0, L1], got 3 values}}
func.func private @cube_tile_arity3() attributes {t = #pto.cube_tile<m = [128, 128], k = [64, 128], n = [64, 64, 64]>}

// -----

// expected-error @+1 {{cube tile 'm' must be [L0, L1], got 0 values}}
func.func private @cube_tile_empty() attributes {t = #pto.cube_tile<m = [], k = [64, 128], n = [64, 64]>}

// -----

// expected-error @+1 {{cube tile 'k' = [256, 128] violates 0 < kL0 <= kL1}}
func.func private @cube_tile_l0_above_l1() attributes {t = #pto.cube_tile<m = [128, 128], k = [256, 128], n = [64, 64]>}

// -----

// expected-error @+1 {{cube tile 'm' = [0, 128] violates 0 < mL0 <= mL1}}
func.func private @cube_tile_l0_zero() attributes {t = #pto.cube_tile<m = [0, 128], k = [64, 128], n = [64, 64]>}

// -----

// expected-error @+1 {{cube tile 'n' = [96, 128]: nL1 must be a multiple of nL0}}
func.func private @cube_tile_l1_not_multiple() attributes {t = #pto.cube_tile<m = [128, 128], k = [64, 128], n = [96, 128]>}

// -----

// expected-error @+1 {{vector tile must have 1 to 4 dims, got 5}}
func.func private @vec_tile_rank5() attributes {t = #pto.vec_tile<[1, 1, 1, 8, 8]>}

// -----

// expected-error @+1 {{vector tile dims must be positive, got [64, 0]}}
func.func private @vec_tile_zero() attributes {t = #pto.vec_tile<[64, 0]>}

// -----

pto.kernel @scope_minus_one(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-error @+1 {{scope id -1 is invalid: a pto.scope needs an id in [0, 2^31-1] (sg_set_scope=-1 means no scope: write no region)}}
  pto.scope #pto.scope<id = -1> {
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
}

// -----

pto.kernel @scope_id_too_large(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-error @+1 {{scope id 2147483648 is invalid}}
  pto.scope #pto.scope<id = 2147483648, allow_parallel_merge = true> {
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
}

//===----------------------------------------------------------------------===//
// pto.kernel
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'pto.kernel' op argument 'scale' has type 'f32'; kernel arguments must be GM tensors (!pto.tensor). Fold compile-time parameters (tile configs, scale) into attributes and constants}}
pto.kernel @non_tensor_argument(%x: !pto.tensor<?x64xf32>, %scale: f32) {
}

// -----

// expected-error @+1 {{'pto.kernel' op argument 'x' has type '!pto.tile<16x16xf32>'; kernel arguments must be GM tensors}}
pto.kernel @tile_argument(%x: !pto.tile<16x16xf32>) {
}

// -----

// expected-error @+1 {{'pto.kernel' op argument name 'x' is used twice; kernel arguments are named after distinct Python parameters}}
"pto.kernel"() <{sym_name = "duplicate_names", arg_names = ["x", "x"],
                 function_type = (!pto.tensor<4xf32>, !pto.tensor<4xf32>) -> ()}> ({
^bb0(%a: !pto.tensor<4xf32>, %b: !pto.tensor<4xf32>):
  "pto.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'pto.kernel' op has 1 argument names for 2 arguments}}
"pto.kernel"() <{sym_name = "name_count", arg_names = ["x"],
                 function_type = (!pto.tensor<4xf32>, !pto.tensor<4xf32>) -> ()}> ({
^bb0(%a: !pto.tensor<4xf32>, %b: !pto.tensor<4xf32>):
  "pto.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'pto.kernel' op argument #1 has an empty name}}
"pto.kernel"() <{sym_name = "empty_name", arg_names = ["x", ""],
                 function_type = (!pto.tensor<4xf32>, !pto.tensor<4xf32>) -> ()}> ({
^bb0(%a: !pto.tensor<4xf32>, %b: !pto.tensor<4xf32>):
  "pto.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'pto.kernel' op has 1 results; a PyPTO kernel returns nothing and writes its outputs into argument tensors}}
"pto.kernel"() <{sym_name = "with_result", arg_names = ["x"],
                 function_type = (!pto.tensor<4xf32>) -> !pto.tensor<4xf32>}> ({
^bb0(%a: !pto.tensor<4xf32>):
  "pto.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'pto.kernel' op runtime option 'ready_on_host_tensors' names 'actual_kv', which is not an argument of @ready_on_host_unknown; list only kernel argument names}}
pto.kernel @ready_on_host_unknown(%actual_q: !pto.tensor<?xi32>) attributes {
    runtime_options = #pto.runtime_options<ready_on_host_tensors = ["actual_q", "actual_kv"]>} {
}

// -----

pto.kernel @scope_flags_differ(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-note @+1 {{earlier scope 1 is here}}
  pto.scope #pto.scope<id = 1, allow_parallel_merge = true> {
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
  // expected-error @+1 {{'pto.scope' op scope 1 has flags (allow_parallel_merge = 0, allow_cross_scope_merge = 0) that differ from an earlier scope with the same id; all scopes of one id must carry identical flags}}
  pto.scope #pto.scope<id = 1> {
    %n = pto.neg %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
}

// -----

pto.kernel @scope_flags_differ_in_loop(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-note @+1 {{earlier scope 3 is here}}
  pto.scope #pto.scope<id = 3, allow_cross_scope_merge = true> {
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{'pto.scope' op scope 3 has flags (allow_parallel_merge = 1, allow_cross_scope_merge = 1) that differ from an earlier scope with the same id}}
    pto.scope #pto.scope<id = 3, allow_parallel_merge = true, allow_cross_scope_merge = true> {
      %n = pto.neg %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    }
  }
}

//===----------------------------------------------------------------------===//
// pto.loop
//===----------------------------------------------------------------------===//

// -----

pto.kernel @loop_iter_args_vs_types(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has 2 iter_args but 1 result types}}
  %r = pto.loop "L" %i = %c0 to %c1 step %c1 iter_args(%a = %c0, %b = %c0) -> (index) {
    pto.yield %a : index
  }
}

// -----

pto.kernel @loop_empty_name(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op needs a non-empty loop name (PyPTO's name=...)}}
  pto.loop "" %i = %c0 to %c1 step %c1 {
  }
}

// -----

pto.kernel @loop_empty_idx_name(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op needs a non-empty index name (idx_name=...)}}
  "pto.loop"(%c0, %c1, %c1) <{name = "L", idx_name = ""}> ({
  ^bb0(%i: index):
    "pto.yield"() : () -> ()
  }) : (index, index, index) -> ()
}

// -----

pto.kernel @loop_results_vs_iter_args(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op has 1 iter_args but 2 results}}
  %r:2 = "pto.loop"(%c0, %c1, %c1, %c0) <{name = "L", idx_name = "i"}> ({
  ^bb0(%i: index, %a: index):
    "pto.yield"(%a, %a) : (index, index) -> ()
  }) : (index, index, index, index) -> (index, index)
}

// -----

pto.kernel @loop_result_type(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'pto.loop' op iter_arg #0 has type 'i32' but result #0 has type 'index'}}
  %r = "pto.loop"(%c0, %c1, %c1, %z) <{name = "L", idx_name = "i"}> ({
  ^bb0(%i: index, %a: i32):
    "pto.yield"(%c0) : (index) -> ()
  }) : (index, index, index, i32) -> index
}

// -----

pto.kernel @loop_step_zero(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'pto.loop' op step is 0; a pto.loop step must be positive}}
  pto.loop "L" %i = %c0 to %c4 step %c0 {
  }
}

// -----

pto.kernel @loop_step_negative(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  // expected-error @+1 {{'pto.loop' op step is -1; a pto.loop step must be positive}}
  pto.loop "L" %i = %c4 to %c0 step %m1 {
  }
}

// -----

pto.kernel @loop_unroll_zero(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'pto.loop' op unroll_list factor 0 must be positive}}
  pto.loop "L" %i = %c0 to %c4 step %c1 attributes {unroll_list = array<i64: 4, 0>} {
  }
}

// -----

pto.kernel @loop_unroll_negative(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'pto.loop' op unroll_list factor -2 must be positive}}
  pto.loop "L" %i = %c0 to %c4 step %c1 attributes {unroll_list = array<i64: -2>} {
  }
}

// -----

pto.kernel @loop_duplicate_idx_name(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{enclosing loop 'outer' is here}}
  pto.loop "outer" %i = %c0 to %c4 step %c1 {
    pto.loop "middle" %j = %c0 to %c4 step %c1 {
      // The custom form takes idx_name from the SSA name, which cannot shadow
      // %i: write the inner loop in the generic form.
      // expected-error @+1 {{'pto.loop' op reuses index name 'i' of an enclosing loop; give each loop of a nest its own idx_name}}
      "pto.loop"(%c0, %c4, %c1) <{name = "inner", idx_name = "i"}> ({
      ^bb0(%k: index):
        "pto.yield"() : () -> ()
      }) : (index, index, index) -> ()
    }
  }
}

// -----

pto.kernel @loop_body_arg_count(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op body must take the index and one argument per iter_arg}}
  %r = "pto.loop"(%c0, %c1, %c1, %c0) <{name = "L", idx_name = "i"}> ({
  ^bb0(%i: index):
    "pto.yield"(%i) : (index) -> ()
  }) : (index, index, index, index) -> index
}

// -----

pto.kernel @loop_induction_type(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op induction variable must be an index}}
  "pto.loop"(%c0, %c1, %c1) <{name = "L", idx_name = "i"}> ({
  ^bb0(%i: i64):
    "pto.yield"() : () -> ()
  }) : (index, index, index) -> ()
}

// -----

pto.kernel @loop_body_arg_type(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.loop' op body argument type 'i64' differs from its iter_arg type 'index'}}
  %r = "pto.loop"(%c0, %c1, %c1, %c0) <{name = "L", idx_name = "i"}> ({
  ^bb0(%i: index, %a: i64):
    "pto.yield"(%c0) : (index) -> ()
  }) : (index, index, index, index) -> index
}

// -----

pto.kernel @loop_yield_type(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = pto.full 0.0 : !pto.tile<1x64xf32>
  %r = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pto.tile<1x64xf32>) {
    %v = pto.view %x[%i, 0] : !pto.tensor<64x64xf32> -> !pto.tile<1x32xf32>
    // expected-error @+1 {{'pto.yield' op yields ('!pto.tile<1x32xf32>') but the enclosing pto.loop carries ('!pto.tile<1x64xf32>')}}
    pto.yield %v : !pto.tile<1x32xf32>
  }
}

// -----

pto.kernel @loop_yield_count(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    // expected-error @+1 {{'pto.yield' op yields ('index', 'index') but the enclosing pto.loop carries ('index')}}
    pto.yield %acc, %i : index, index
  }
}

// -----

pto.kernel @is_loop_begin_constant(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{'pto.is_loop_begin' op operand must be the index of an enclosing pto.loop}}
    %b = pto.is_loop_begin %c1
  }
}

// -----

pto.kernel @is_loop_end_iter_arg(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    // expected-error @+1 {{'pto.is_loop_end' op operand must be the index of an enclosing pto.loop}}
    %e = pto.is_loop_end %acc
    pto.yield %acc : index
  }
}

// -----

func.func @is_loop_begin_scf_for() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{'pto.is_loop_begin' op operand must be the index of an enclosing pto.loop}}
    %b = pto.is_loop_begin %i
  }
  return
}

//===----------------------------------------------------------------------===//
// pto.scope
//===----------------------------------------------------------------------===//

// -----

pto.kernel @scope_yield_mismatch(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %s = pto.scope #pto.scope<id = 0> -> (!pto.tile<64x64xf32>) {
    %e = pto.sum %t dim = 1 keepdim : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
    // expected-error @+1 {{'pto.yield' op yields ('!pto.tile<64x1xf32>') but the pto.scope returns ('!pto.tile<64x64xf32>')}}
    pto.yield %e : !pto.tile<64x1xf32>
  }
}

// -----

pto.kernel @scope_missing_yield(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // The implicit terminator yields nothing.
  // expected-error @+1 {{'pto.yield' op yields () but the pto.scope returns ('!pto.tile<64x64xf32>')}}
  %s = pto.scope #pto.scope<id = 0> -> (!pto.tile<64x64xf32>) {
    %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  }
}

// -----

pto.kernel @scope_contains_loop(%x: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'pto.scope' op scope 2 contains a pto.loop; scopes do not cross loop boundaries (each loop body is compiled on its own): open the scope inside the loop body}}
  pto.scope #pto.scope<id = 2> {
    // expected-note @+1 {{loop is here}}
    pto.loop "L" %i = %c0 to %c4 step %c1 {
      %v = pto.view %x[%i, 0] : !pto.tensor<64x64xf32> -> !pto.tile<1x64xf32>
    }
  }
}

// -----

pto.kernel @scope_nested(%x: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-error @+1 {{'pto.scope' op scope 0 contains another pto.scope; sg_set_scope is one ambient setting, so scopes do not nest: close this scope first}}
  pto.scope #pto.scope<id = 0> {
    // expected-note @+1 {{nested scope is here}}
    pto.scope #pto.scope<id = 1> {
      %e = pto.exp %t : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    }
  }
}

// -----

pto.kernel @scope_mixes_cube_and_vector(%a: !pto.tensor<64x64xbf16>) {
  %t = pto.view %a[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  // expected-error @+1 {{'pto.scope' op scope 4 mixes the cube op 'pto.matmul' and the vector op 'pto.exp', which DAV_2201 cannot run in one subgraph (no on-chip cube-vector path): move the cube ops out of the scope}}
  %s = pto.scope #pto.scope<id = 4> -> (!pto.tile<64x64xf32>) {
    // expected-note @+1 {{cube op is here}}
    %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
        : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
    // expected-note @+1 {{vector op is here}}
    %e = pto.exp %m : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.yield %e : !pto.tile<64x64xf32>
  }
}

// -----

pto.kernel @scope_mixes_cube_and_store(%a: !pto.tensor<64x64xbf16>, %out: !pto.tensor<64x64xf32>) {
  %t = pto.view %a[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  // expected-error @+1 {{'pto.scope' op scope 5 mixes the cube op 'pto.matmul' and the vector op 'pto.atomic_add'}}
  pto.scope #pto.scope<id = 5> {
    // expected-note @+1 {{cube op is here}}
    %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
        : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
    // expected-note @+1 {{vector op is here}}
    pto.atomic_add %m, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
}

//===----------------------------------------------------------------------===//
// pto.read, pto.dim, pto.reshape
//===----------------------------------------------------------------------===//

// -----

pto.kernel @read_float(%x: !pto.tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.read' op reads a scalar from a tensor of 'f32'; only integer tensors (e.g. actual_q: i32) provide symbolic scalars}}
  %v = pto.read %x[%c0] : !pto.tensor<?xf32>
}

// -----

pto.kernel @read_index_count(%x: !pto.tensor<?x4xi32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.read' op has 1 indices for a rank-2 tensor; give one index per dim}}
  %v = pto.read %x[%c0] : !pto.tensor<?x4xi32>
}

// -----

pto.kernel @check_view_operand_count(%x: !pto.tensor<?x4xf32>) {
  %i = arith.constant 0 : index
  // expected-error @+1 {{'pto.check_view' op has 1 offsets and 1 valid extents for a rank-2 tensor; give one offset per dim and one valid extent per dim (or none)}}
  pto.check_view %x[%i] valid [%i] : !pto.tensor<?x4xf32>
}

// -----

pto.kernel @check_tile_view_operand_count(%x: !pto.tensor<?x4xf32>) {
  %i = arith.constant 0 : index
  // expected-error @+1 {{'pto.check_tile_view' op has 1 offsets, 2 valid extents and 2 source extents; give one offset and one source extent per dim of the tile (at least one), and one valid extent per dim (or none)}}
  pto.check_tile_view [%i] valid [%i, %i] of [%i, %i]
}

// -----

pto.kernel @check_tile_view_rank_zero(%x: !pto.tensor<?x4xf32>) {
  // expected-error @+1 {{'pto.check_tile_view' op has 0 offsets, 0 valid extents and 0 source extents; give one offset and one source extent per dim of the tile (at least one)}}
  pto.check_tile_view [] valid [] of []
}

// -----

pto.kernel @dim_out_of_range(%x: !pto.tensor<?x4xi32>) {
  // expected-error @+1 {{'pto.dim' op dim 2 is out of range for a rank-2 tensor}}
  %d = pto.dim %x, 2 : !pto.tensor<?x4xi32>
}

// -----

pto.kernel @dim_negative(%x: !pto.tensor<?x4xi32>) {
  // expected-error @+1 {{'pto.dim' op dim -1 is out of range for a rank-2 tensor}}
  %d = pto.dim %x, -1 : !pto.tensor<?x4xi32>
}

// -----

func.func @valid_dim_out_of_range(%t: !pto.tile<16x64xf32>) -> index {
  // expected-error @+1 {{'pto.valid_dim' op dim 2 is out of range for a rank-2 tile}}
  %d = pto.valid_dim %t, 2 : !pto.tile<16x64xf32>
  return %d : index
}

// -----

pto.kernel @reshape_element_type(%x: !pto.tensor<4x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op changes the element type from 'f32' to 'i32'; reshape keeps the dtype}}
  %r = pto.reshape %x [32] : !pto.tensor<4x8xf32> -> !pto.tensor<32xi32>
}

// -----

pto.kernel @reshape_size_count(%x: !pto.tensor<4x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op lists 1 sizes for a rank-2 result}}
  %r = pto.reshape %x [2] : !pto.tensor<4x8xf32> -> !pto.tensor<2x16xf32>
}

// -----

pto.kernel @reshape_dynamic_count(%x: !pto.tensor<4x8xf32>) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'pto.reshape' op shape has 1 dynamic entries but 2 index operands}}
  %r = "pto.reshape"(%x, %c2, %c2) <{static_shape = array<i64: -9223372036854775808, 16>, inplace}>
      : (!pto.tensor<4x8xf32>, index, index) -> !pto.tensor<?x16xf32>
}

// -----

pto.kernel @reshape_negative_size(%x: !pto.tensor<4x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op shape entry 0 is -2; it must be >= 0}}
  %r = pto.reshape %x [-2, 16] inplace : !pto.tensor<4x8xf32> -> !pto.tensor<2x16xf32>
}

// -----

pto.kernel @reshape_size_mismatch(%x: !pto.tensor<4x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op size #1 is 8 but the result type says 16; dynamic sizes must match '?' dims of the result type}}
  %r = pto.reshape %x [2, 8] : !pto.tensor<4x8xf32> -> !pto.tensor<2x16xf32>
}

// -----

pto.kernel @reshape_dynamic_vs_static(%x: !pto.tensor<?x8xf32>) {
  %n = pto.dim %x, 0 : !pto.tensor<?x8xf32>
  // expected-error @+1 {{'pto.reshape' op size #0 is dynamic but the result type says 4; dynamic sizes must match '?' dims of the result type}}
  %r = pto.reshape %x [%n, 8] inplace : !pto.tensor<?x8xf32> -> !pto.tensor<4x8xf32>
}

// -----

pto.kernel @reshape_static_vs_dynamic(%x: !pto.tensor<?x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op size #0 is 4 but the result type says ?}}
  %r = pto.reshape %x [4, 8] inplace : !pto.tensor<?x8xf32> -> !pto.tensor<?x8xf32>
}

// -----

pto.kernel @reshape_element_count(%x: !pto.tensor<4x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op reshapes 32 elements [4, 8] into 64 [4, 16]}}
  %r = pto.reshape %x [4, 16] inplace : !pto.tensor<4x8xf32> -> !pto.tensor<4x16xf32>
}

// -----

pto.kernel @reshape_dynamic_not_inplace(%x: !pto.tensor<?x8x64xbf16>) {
  %n = pto.dim %x, 0 : !pto.tensor<?x8x64xbf16>
  // expected-error @+1 {{'pto.reshape' op reshapes dynamic shapes without 'inplace'; PyPTO allows inplace=False on static shapes only: add 'inplace'}}
  %r = pto.reshape %x [%n, 512] : !pto.tensor<?x8x64xbf16> -> !pto.tensor<?x512xbf16>
}

// -----

pto.kernel @reshape_dynamic_source_not_inplace(%x: !pto.tensor<?x8xf32>) {
  // expected-error @+1 {{'pto.reshape' op reshapes dynamic shapes without 'inplace'}}
  %r = pto.reshape %x [64] : !pto.tensor<?x8xf32> -> !pto.tensor<64xf32>
}

//===----------------------------------------------------------------------===//
// pto.view
//===----------------------------------------------------------------------===//

// -----

pto.kernel @view_element_type(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op views 'bf16' data as 'f16'; the view's element type must match its source}}
  %v = pto.view %x[0, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xf16>
}

// -----

pto.kernel @view_rank(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op has a rank-3 result for a rank-2 source; views keep the rank (reshape first)}}
  %v = pto.view %x[0, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<1x16x64xbf16>
}

// -----

pto.kernel @view_offset_count(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op has 3 offsets for a rank-2 source; give one offset per dim}}
  %v = pto.view %x[0, 0, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_dynamic_offset_count(%x: !pto.tensor<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.view' op offsets has 0 dynamic entries but 1 index operands}}
  %v = "pto.view"(%x, %c0) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_offsets = array<i64: 0, 0>}>
      : (!pto.tensor<?x64xbf16>, index) -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_negative_offset(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op offsets entry 1 is -16; it must be >= 0}}
  %v = pto.view %x[0, -16] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_exceeds_parent(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op view shape [16, 128] exceeds dim 1 of its source [?, 64] (128 > 64); shrink the view to at most the known parent size}}
  %v = pto.view %x[0, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<16x128xbf16>
}

// -----

pto.kernel @view_of_tile_exceeds_parent(%x: !pto.tensor<?x64xbf16>) {
  %t = pto.view %x[0, 0] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
  // expected-error @+1 {{'pto.view' op view shape [32, 64] exceeds dim 0 of its source [16, 64] (32 > 16)}}
  %v = pto.view %t[0, 0] : !pto.tile<16x64xbf16> -> !pto.tile<32x64xbf16>
}

// -----

pto.kernel @view_offset_outside(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op offset 64 of dim 1 is outside its source [?, 64]}}
  %v = pto.view %x[0, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<16x32xbf16>
}

// -----

pto.kernel @view_valid_rank(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op valid shape has 1 entries for a rank-2 view; give one valid extent per dim}}
  %v = pto.view %x[0, 0] valid [16] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_valid_dynamic_count(%x: !pto.tensor<?x64xbf16>) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'pto.view' op valid shape has 2 dynamic entries but 1 index operands}}
  %v = "pto.view"(%x, %c8) <{operandSegmentSizes = array<i32: 1, 0, 1>, static_offsets = array<i64: 0, 0>,
                              static_valid_shape = array<i64: -9223372036854775808, -9223372036854775808>}>
      : (!pto.tensor<?x64xbf16>, index) -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_valid_negative(%x: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.view' op valid shape entry 0 is -1; it must be >= 0}}
  %v = pto.view %x[0, 0] valid [-1, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
}

// -----

pto.kernel @view_valid_exceeds_shape(%x: !pto.tensor<?x64xbf16>) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'pto.view' op valid extent 32 of dim 1 exceeds the view's static size 16; a valid shape is at most the tile shape}}
  %v = pto.view %x[0, 0] valid [%c8, 32] : !pto.tensor<?x64xbf16> -> !pto.tile<16x16xbf16>
}

// -----

pto.kernel @view_valid_operands_without_attr(%x: !pto.tensor<?x64xbf16>) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'pto.view' op has valid-shape operands but no static_valid_shape}}
  %v = "pto.view"(%x, %c8) <{operandSegmentSizes = array<i32: 1, 0, 1>, static_offsets = array<i64: 0, 0>}>
      : (!pto.tensor<?x64xbf16>, index) -> !pto.tile<16x64xbf16>
}

//===----------------------------------------------------------------------===//
// pto.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: !pto.tile<64x64x16xbf16>, %b: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op supports 2-D tiles only, got ranks 3, 2 -> 2}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64x16xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_k_mismatch(%a: !pto.tile<128x64xbf16>, %b: !pto.tile<128x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op contracts K = 64 of the left operand [128, 64] with K = 128 of the right operand [128, 64]; the contracted dims must be equal (check a_trans/b_trans)}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [64, 64]>}
      : !pto.tile<128x64xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<128x64xf32>
  return
}

// -----

func.func @matmul_k_mismatch_a_trans(%a: !pto.tile<128x64xbf16>, %b: !pto.tile<64x32xbf16>) {
  // expected-error @+1 {{'pto.matmul' op contracts K = 128 of the left operand [128, 64] (a_trans) with K = 64 of the right operand [64, 32]; the contracted dims must be equal (check a_trans/b_trans)}}
  %m = pto.matmul %a, %b {a_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [32, 32]>}
      : !pto.tile<128x64xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<64x32xf32>
  return
}

// -----

func.func @matmul_k_mismatch_b_trans(%a: !pto.tile<128x64xbf16>, %b: !pto.tile<64x32xbf16>) {
  // expected-error @+1 {{'pto.matmul' op contracts K = 64 of the left operand [128, 64] with K = 32 of the right operand [64, 32] (b_trans); the contracted dims must be equal (check a_trans/b_trans)}}
  %m = pto.matmul %a, %b {b_trans, cube_tile = #pto.cube_tile<m = [64, 128], k = [32, 32], n = [64, 64]>}
      : !pto.tile<128x64xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<128x64xf32>
  return
}

// -----

func.func @matmul_k_mismatch_both_trans(%a: !pto.tile<64x128xbf16>, %b: !pto.tile<32x128xbf16>) {
  // expected-error @+1 {{'pto.matmul' op contracts K = 64 of the left operand [64, 128] (a_trans) with K = 128 of the right operand [32, 128] (b_trans)}}
  %m = pto.matmul %a, %b {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [32, 32]>}
      : !pto.tile<64x128xbf16>, !pto.tile<32x128xbf16> -> !pto.tile<128x32xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: !pto.tile<128x64xbf16>, %b: !pto.tile<64x32xbf16>) {
  // expected-error @+1 {{'pto.matmul' op result [128, 64] must be [M, N] = [128, 32]}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [32, 32]>}
      : !pto.tile<128x64xbf16>, !pto.tile<64x32xbf16> -> !pto.tile<128x64xf32>
  return
}

// -----

func.func @matmul_result_shape_trans(%a: !pto.tile<64x128xbf16>, %b: !pto.tile<32x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op result [64, 64] must be [M, N] = [128, 32]}}
  %m = pto.matmul %a, %b {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [64, 128], k = [64, 64], n = [32, 32]>}
      : !pto.tile<64x128xbf16>, !pto.tile<32x64xbf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_mixed_dtypes(%a: !pto.tile<64x64xbf16>, %b: !pto.tile<64x64xf16>) {
  // expected-error @+1 {{'pto.matmul' op multiplies 'bf16' by 'f16'; both operands must have the same dtype (cast one of them)}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xbf16>, !pto.tile<64x64xf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_f32_to_i32(%a: !pto.tile<64x64xf32>, %b: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.matmul' op dtype triple 'f32' x 'f32' -> 'i32' is not supported on DAV_2201; supported: f16|bf16|f32->f16|bf16|f32, i8->i32}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xi32>
  return
}

// -----

func.func @matmul_i8_to_f32(%a: !pto.tile<64x64xi8>, %b: !pto.tile<64x64xi8>) {
  // expected-error @+1 {{'pto.matmul' op dtype triple 'i8' x 'i8' -> 'f32' is not supported on DAV_2201}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xi8>, !pto.tile<64x64xi8> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_i32_inputs(%a: !pto.tile<64x64xi32>, %b: !pto.tile<64x64xi32>) {
  // expected-error @+1 {{'pto.matmul' op dtype triple 'i32' x 'i32' -> 'i32' is not supported on DAV_2201}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xi32>, !pto.tile<64x64xi32> -> !pto.tile<64x64xi32>
  return
}

// -----

pto.kernel @matmul_fp8_on_dav2201(%a: !pto.tensor<64x64xf8E4M3FN>) {
  %t = pto.view %a[0, 0] : !pto.tensor<64x64xf8E4M3FN> -> !pto.tile<64x64xf8E4M3FN>
  // expected-error @+1 {{'pto.matmul' op dtype triple 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' is not supported on DAV_2201; supported: f16|bf16|f32->f16|bf16|f32, i8->i32}}
  %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xf8E4M3FN>, !pto.tile<64x64xf8E4M3FN> -> !pto.tile<64x64xf32>
}

// -----

pto.kernel @matmul_fp8_to_i32_on_dav3510(%a: !pto.tensor<64x64xf8E5M2>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %a[0, 0] : !pto.tensor<64x64xf8E5M2> -> !pto.tile<64x64xf8E5M2>
  // expected-error @+1 {{'pto.matmul' op dtype triple 'f8E5M2' x 'f8E5M2' -> 'i32' is not supported on DAV_3510; supported: f16|bf16|f32->f16|bf16|f32, i8->i32, fp8->f16|bf16|f32}}
  %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x64xf8E5M2>, !pto.tile<64x64xf8E5M2> -> !pto.tile<64x64xi32>
}

// -----

func.func @matmul_split_k_bf16(%a: !pto.tile<64x64xbf16>, %b: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op uses split_k with out dtype 'bf16'; split-K accumulates in GM and needs f32 or i32 output}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64], split_k>}
      : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xbf16>
  return
}

// -----

// mL0 is checked only for a transposed A, as PyPTO's CheckCubeTiling does.
func.func @matmul_misaligned_m_a_trans(%a: !pto.tile<64x500xbf16>, %b: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op cube tile m = [250, 500]: mL0 = 250 is not a multiple of 16 elements (32-byte alignment for 'bf16'); round it to a multiple of 16}}
  %m = pto.matmul %a, %b {a_trans, cube_tile = #pto.cube_tile<m = [250, 500], k = [64, 64], n = [64, 64]>}
      : !pto.tile<64x500xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<500x64xf32>
  return
}

// -----

func.func @matmul_misaligned_k(%a: !pto.tile<64x64xbf16>, %b: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.matmul' op cube tile k = [8, 24]: kL0 = 8 is not a multiple of 16 elements}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [8, 24], n = [64, 64]>}
      : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_misaligned_f32(%a: !pto.tile<64x64xf32>, %b: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.matmul' op cube tile n = [8, 64]: nL0 = 8 is not a multiple of 16 elements (32-byte alignment for 'f32'); round it to a multiple of 16}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [8, 64]>}
      : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @matmul_misaligned_i8(%a: !pto.tile<64x64xi8>, %b: !pto.tile<64x64xi8>) {
  // expected-error @+1 {{'pto.matmul' op cube tile k = [16, 32]: kL0 = 16 is not a multiple of 32 elements (32-byte alignment for 'i8'); round it to a multiple of 32}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [16, 32], k = [16, 32], n = [64, 64]>}
      : !pto.tile<64x64xi8>, !pto.tile<64x64xi8> -> !pto.tile<64x64xi32>
  return
}

// -----

func.func @matmul_l0a_overflow(%a: !pto.tile<256x256xbf16>, %b: !pto.tile<256x16xbf16>) {
  // expected-error @+1 {{'pto.matmul' op cube tile does not fit L0A on DAV_2201: mL0 x kL0 x 2 B = 256 x 256 x 2 = 131072 B > 65536 B (64 KiB); lower mL0 or kL0}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [256, 256], k = [256, 256], n = [16, 16]>}
      : !pto.tile<256x256xbf16>, !pto.tile<256x16xbf16> -> !pto.tile<256x16xf32>
  return
}

// -----

func.func @matmul_l0b_overflow(%a: !pto.tile<16x256xf32>, %b: !pto.tile<256x128xf32>) {
  // expected-error @+1 {{'pto.matmul' op cube tile does not fit L0B on DAV_2201: nL0 x kL0 x 4 B = 128 x 256 x 4 = 131072 B > 65536 B (64 KiB); lower nL0 or kL0}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [16, 16], k = [256, 256], n = [128, 128]>}
      : !pto.tile<16x256xf32>, !pto.tile<256x128xf32> -> !pto.tile<16x128xf32>
  return
}

// -----

func.func @matmul_l0c_overflow(%a: !pto.tile<256x16xf16>, %b: !pto.tile<16x256xf16>) {
  // expected-error @+1 {{'pto.matmul' op cube tile does not fit L0C on DAV_2201: mL0 x nL0 x 4 B = 256 x 256 x 4 = 262144 B > 131072 B (128 KiB); lower mL0 or nL0}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [256, 256], k = [16, 16], n = [256, 256]>}
      : !pto.tile<256x16xf16>, !pto.tile<16x256xf16> -> !pto.tile<256x256xf16>
  return
}

// -----

// The same L0 tile fits the 256 KiB L0C of DAV_3510; the A and B blocks
// staged in L1 per output tile ([mL0, kL1] and [kL1, nL0]) do not fit its L1.
pto.kernel @matmul_l1_overflow(%a: !pto.tensor<256x1024xbf16>, %b: !pto.tensor<1024x256xbf16>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %ta = pto.view %a[0, 0] : !pto.tensor<256x1024xbf16> -> !pto.tile<256x1024xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<1024x256xbf16> -> !pto.tile<1024x256xbf16>
  // expected-error @+1 {{'pto.matmul' op cube tile does not fit L1 on DAV_3510: A block [mL0, kL1] + B block [kL1, nL0] (clamped to M, K, N) = (256 x 1024 x 2 + 256 x 1024 x 2) B = 1048576 B > 524288 B (512 KiB); lower kL1 (or mL0, nL0)}}
  %m = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [256, 256], k = [16, 1024], n = [256, 256]>}
      : !pto.tile<256x1024xbf16>, !pto.tile<1024x256xbf16> -> !pto.tile<256x256xf32>
}

// -----

func.func @matmul_l0a_overflow_f16(%a: !pto.tile<192x192xf16>, %b: !pto.tile<192x16xf16>) {
  // expected-error @+1 {{'pto.matmul' op cube tile does not fit L0A on DAV_2201: mL0 x kL0 x 2 B = 192 x 192 x 2 = 73728 B > 65536 B (64 KiB); lower mL0 or kL0}}
  %m = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [192, 192], k = [192, 192], n = [16, 16]>}
      : !pto.tile<192x192xf16>, !pto.tile<192x16xf16> -> !pto.tile<192x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

func.func @binary_mixed_dtypes(%a: !pto.tile<64x64xf32>, %b: !pto.tile<64x64xf16>) {
  // expected-error @+1 {{'pto.add' op mixes 'f32' and 'f16' operands; cast one so both match}}
  %r = pto.add %a, %b : !pto.tile<64x64xf32>, !pto.tile<64x64xf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @binary_rank_mismatch(%a: !pto.tile<64x64xf32>, %b: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.sub' op operands have ranks 2 and 1; broadcast operands keep the rank with size-1 dims (e.g. [M, 1])}}
  %r = pto.sub %a, %b : !pto.tile<64x64xf32>, !pto.tile<64xf32> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @binary_broadcast_mismatch(%a: !pto.tile<64x64xf32>, %b: !pto.tile<32x1xf32>) {
  // expected-error @+1 {{'pto.mul' op cannot broadcast [64, 64] with [32, 1]: dim 0 is 64 vs 32; sizes must match or one must be 1}}
  %r = pto.mul %a, %b : !pto.tile<64x64xf32>, !pto.tile<32x1xf32> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @binary_scalar_type(%a: !pto.tile<64x64xf32>, %s: f16) {
  // expected-error @+1 {{'pto.mul' op scalar operand has type 'f16' but the tile holds 'f32'; the scalar must have the element type}}
  %r = pto.mul %a, %s : !pto.tile<64x64xf32>, f16 -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @binary_scalar_int_for_float(%a: !pto.tile<64x64xf32>, %s: i32) {
  // expected-error @+1 {{'pto.max' op scalar operand has type 'i32' but the tile holds 'f32'}}
  %r = pto.max %a, %s : !pto.tile<64x64xf32>, i32 -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @binary_result_shape(%a: !pto.tile<64x1xf32>, %b: !pto.tile<1x64xf32>) {
  // expected-error @+1 {{'pto.min' op result type '!pto.tile<64x1xf32>' must be !pto.tile<64x64xf32>}}
  %r = pto.min %a, %b : !pto.tile<64x1xf32>, !pto.tile<1x64xf32> -> !pto.tile<64x1xf32>
  return
}

// -----

func.func @binary_result_dtype(%a: !pto.tile<64x64xf32>, %b: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.add' op result type '!pto.tile<64x64xf16>' must be !pto.tile<64x64xf32>}}
  %r = pto.add %a, %b : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  return
}

// -----

func.func @int_div_result(%a: !pto.tile<64x64xi32>, %b: !pto.tile<64x64xi32>) {
  // expected-error @+1 {{'pto.div' op result type '!pto.tile<64x64xi32>' must be !pto.tile<64x64xf32>}}
  %r = pto.div %a, %b {precision = #pto.precision<INTRINSIC>} : !pto.tile<64x64xi32>, !pto.tile<64x64xi32> -> !pto.tile<64x64xi32>
  return
}

// -----

func.func @i8_add(%a: !pto.tile<64x64xi8>) {
  // expected-error @+1 {{'pto.add' op computes on 'i8', which the DAV_2201 vector unit does not support; use f16, bf16, f32, i16 or i32}}
  %r = pto.add %a, %a : !pto.tile<64x64xi8>, !pto.tile<64x64xi8> -> !pto.tile<64x64xi8>
  return
}

// -----

pto.kernel @fp8_mul_on_dav3510(%x: !pto.tensor<64x64xf8E4M3FN>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf8E4M3FN> -> !pto.tile<64x64xf8E4M3FN>
  // expected-error @+1 {{'pto.mul' op computes on 'f8E4M3FN', which the DAV_3510 vector unit does not support; use f16, bf16, f32, i16 or i32}}
  %r = pto.mul %t, %t : !pto.tile<64x64xf8E4M3FN>, !pto.tile<64x64xf8E4M3FN> -> !pto.tile<64x64xf8E4M3FN>
}

// -----

func.func @sqrt_on_int(%a: !pto.tile<64x64xi32>) {
  // expected-error @+1 {{'pto.sqrt' op computes on 'i32', which the DAV_2201 vector unit does not support; use f16, bf16 or f32}}
  %r = pto.sqrt %a : !pto.tile<64x64xi32> -> !pto.tile<64x64xi32>
  return
}

// -----

func.func @unary_result_type(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.neg' op result type '!pto.tile<64x64xf16>' must equal the operand type '!pto.tile<64x64xf32>'}}
  %r = pto.neg %a : !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  return
}

// -----

func.func @unary_result_shape(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.reciprocal' op result type '!pto.tile<64x1xf32>' must equal the operand type '!pto.tile<64x64xf32>'}}
  %r = pto.reciprocal %a : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
  return
}

// -----

// log and tanh are PyPTO's float ops (DT_FP16, DT_BF16, DT_FP32) on every
// architecture.
pto.kernel @log_of_integers(%x: !pto.tensor<64x64xi32>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xi32> -> !pto.tile<64x64xi32>
  // expected-error @+1 {{'pto.log' op computes on 'i32', which the DAV_3510 vector unit does not support; use f16, bf16 or f32}}
  %r = pto.log %t : !pto.tile<64x64xi32> -> !pto.tile<64x64xi32>
}

// -----

func.func @tanh_of_integers(%a: !pto.tile<64x64xi16>) {
  // expected-error @+1 {{'pto.tanh' op computes on 'i16', which the DAV_2201 vector unit does not support; use f16, bf16 or f32}}
  %r = pto.tanh %a : !pto.tile<64x64xi16> -> !pto.tile<64x64xi16>
  return
}

// -----

func.func @tanh_result_type(%a: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.tanh' op result type '!pto.tile<64x64xf32>' must equal the operand type '!pto.tile<64x64xbf16>'}}
  %r = pto.tanh %a : !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @vec_tile_rank_too_small(%a: !pto.tile<4x64x64xf32>) {
  // expected-error @+1 {{'pto.abs' op vector tile [64, 64] has rank 2 but the op works on rank-3 tiles; give the vector tile at least 3 dims}}
  %r = pto.abs %a {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<4x64x64xf32> -> !pto.tile<4x64x64xf32>
  return
}

// -----

func.func @vec_tile_misaligned_f32(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.rsqrt' op vector tile [64, 12]: last dim 12 x 4 B ('f32') = 48 B is not 32-byte aligned and splits the 64 columns of the tile; PyPTO rejects this too (set_vec_tile_shapes: last dim x dtype size must be a multiple of 32 B): use a multiple of 8 elements, or the whole last dim}}
  %r = pto.rsqrt %a {vec_tile = #pto.vec_tile<[64, 12]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @vec_tile_misaligned_f16(%a: !pto.tile<64x64xf16>, %b: !pto.tile<64x1xf16>) {
  // expected-error @+1 {{'pto.max' op vector tile [32, 8]: last dim 8 x 2 B ('f16') = 16 B is not 32-byte aligned and splits the 64 columns of the tile; PyPTO rejects this too}}
  %r = pto.max %a, %b {vec_tile = #pto.vec_tile<[32, 8]>} : !pto.tile<64x64xf16>, !pto.tile<64x1xf16> -> !pto.tile<64x64xf16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_dim_out_of_range(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.sum' op reduces dim 2 of a rank-2 tile; use a dim in [0, 2)}}
  %r = pto.sum %a dim = 2 keepdim : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  return
}

// -----

func.func @reduce_dim_negative(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.amax' op reduces dim -1 of a rank-2 tile; use a dim in [0, 2)}}
  %r = pto.amax %a dim = -1 : !pto.tile<64x64xf32> -> !pto.tile<64xf32>
  return
}

// -----

func.func @reduce_to_rank0(%a: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.sum' op would produce a rank-0 tile; add 'keepdim'}}
  %r = pto.sum %a dim = 0 : !pto.tile<64xf32> -> !pto.tile<1xf32>
  return
}

// -----

func.func @reduce_keepdim_result(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.sum' op result type '!pto.tile<64xf32>' must have shape [64, 1] and element type 'f32'}}
  %r = pto.sum %a dim = 1 keepdim : !pto.tile<64x64xf32> -> !pto.tile<64xf32>
  return
}

// -----

func.func @reduce_result_dtype(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.amax' op result type '!pto.tile<64xf16>' must have shape [64] and element type 'f32'}}
  %r = pto.amax %a dim = 0 : !pto.tile<64x64xf32> -> !pto.tile<64xf16>
  return
}

// -----

// A reduction tile whose last dim alone is over 64 KiB cannot be re-tiled
// (pto-legalize halves outer dims only); PyPTO rejects it too.
func.func @reduce_tile_row_over_64k(%a: !pto.tile<4x32768xf32>) {
  // expected-error @+1 {{'pto.sum' op vector tile [2, 32768] of 'f32' has a last dim of 131072 B alone, over the 65536 B (64 KiB) reduction tile limit of DAV_2201; PyPTO rejects this too (TileShape <= 64 KB): reduce a narrower tile}}
  %r = pto.sum %a dim = 1 keepdim {vec_tile = #pto.vec_tile<[2, 32768]>} : !pto.tile<4x32768xf32> -> !pto.tile<4x1xf32>
  return
}

// -----

func.func @sum_f16(%a: !pto.tile<64x64xf16>) {
  // expected-error @+1 {{'pto.sum' op does not support 'f16' on DAV_2201; sum takes f32, bf16, i16 or i32}}
  %r = pto.sum %a dim = 1 keepdim : !pto.tile<64x64xf16> -> !pto.tile<64x1xf16>
  return
}

// -----

func.func @amax_i8_on_dav2201(%a: !pto.tile<64x64xi8>) {
  // expected-error @+1 {{'pto.amax' op does not support 'i8' on DAV_2201; amax takes f16, bf16, f32, i16 or i32}}
  %r = pto.amax %a dim = 1 keepdim : !pto.tile<64x64xi8> -> !pto.tile<64x1xi8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// pto.transpose
//===----------------------------------------------------------------------===//

func.func @transpose_rank1(%a: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.transpose' op transposes a rank-1 tile; a transpose needs at least 2 dims (reshape to [1, N] first)}}
  %r = pto.transpose %a, 0, 1 : !pto.tile<64xf32> -> !pto.tile<64xf32>
  return
}

// -----

func.func @transpose_dim_out_of_range(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.transpose' op dim 2 is out of range for a rank-2 tile; use dims in [0, 2) (negative Python dims are normalised by the front end)}}
  %r = pto.transpose %a, 0, 2 : !pto.tile<16x64xf32> -> !pto.tile<64x16xf32>
  return
}

// -----

func.func @transpose_dim_negative(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.transpose' op dim -1 is out of range for a rank-2 tile}}
  %r = pto.transpose %a, -1, 0 : !pto.tile<16x64xf32> -> !pto.tile<64x16xf32>
  return
}

// -----

func.func @transpose_same_dim(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.transpose' op swaps dim 1 with itself; give two different dims (an identity transpose is not an op)}}
  %r = pto.transpose %a, 1, 1 : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @transpose_result_shape(%a: !pto.tile<2x16x64xf32>) {
  // expected-error @+1 {{'pto.transpose' op result type '!pto.tile<64x16x2xf32>' must have shape [2, 64, 16] (dims 1 and 2 of [2, 16, 64] swapped) and element type 'f32'}}
  %r = pto.transpose %a, 1, 2 : !pto.tile<2x16x64xf32> -> !pto.tile<64x16x2xf32>
  return
}

// -----

func.func @transpose_result_dtype(%a: !pto.tile<16x64xbf16>) {
  // expected-error @+1 {{'pto.transpose' op result type '!pto.tile<64x16xf32>' must have shape [64, 16] (dims 0 and 1 of [16, 64] swapped) and element type 'bf16'}}
  %r = pto.transpose %a, 0, 1 : !pto.tile<16x64xbf16> -> !pto.tile<64x16xf32>
  return
}

// -----

func.func @transpose_i64(%a: !pto.tile<16x64xi64>) {
  // expected-error @+1 {{'pto.transpose' op transposes 'i64' elements; the vector unit transposes 1-, 2- and 4-byte types only: cast to i32 or f32 first}}
  %r = pto.transpose %a, 0, 1 : !pto.tile<16x64xi64> -> !pto.tile<64x16xi64>
  return
}

// -----

func.func @transpose_vec_tile_rank(%a: !pto.tile<2x16x64xf32>) {
  // expected-error @+1 {{'pto.transpose' op vector tile [16, 64] has rank 2 but the op works on rank-3 tiles; give the vector tile at least 3 dims}}
  %r = pto.transpose %a, 0, 1 {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<2x16x64xf32> -> !pto.tile<16x2x64xf32>
  return
}

// -----

func.func @reduce_vec_tile_rank(%a: !pto.tile<4x64x64xf32>) {
  // The vector tile of a reduction governs its input.
  // expected-error @+1 {{'pto.sum' op vector tile [64, 64] has rank 2 but the op works on rank-3 tiles; give the vector tile at least 3 dims}}
  %r = pto.sum %a dim = 2 {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<4x64x64xf32> -> !pto.tile<4x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// pto.cast
//===----------------------------------------------------------------------===//

// -----

func.func @cast_satmode_spelling(%a: !pto.tile<64x64xf16>) {
  // PyPTO's SaturationMode has ON and OFF only.
  // expected-error @+2 {{expected ::mlir::pto::SaturationMode to be one of: OFF, ON}}
  // expected-error @+1 {{failed to parse PTO_SaturationModeAttr parameter 'value'}}
  %r = pto.cast %a {satmode = #pto.sat_mode<SAT>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xi8>
  return
}

// -----

func.func @cast_shape(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.cast' op changes the shape from [64, 64] to [64, 32]; a cast keeps the shape}}
  %r = pto.cast %a : !pto.tile<64x64xf32> -> !pto.tile<64x32xbf16>
  return
}

// -----

func.func @cast_f32_to_i8(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.cast' op casts 'f32' to 'i8', which DAV_2201 does not support; go through f32}}
  %r = pto.cast %a : !pto.tile<64x64xf32> -> !pto.tile<64x64xi8>
  return
}

// -----

func.func @cast_bf16_to_f16_on_dav2201(%a: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.cast' op casts 'bf16' to 'f16', which DAV_2201 does not support; go through f32}}
  %r = pto.cast %a : !pto.tile<64x64xbf16> -> !pto.tile<64x64xf16>
  return
}

// -----

func.func @cast_f32_to_fp8_on_dav2201(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.cast' op casts 'f32' to 'f8E4M3FN', which DAV_2201 does not support}}
  %r = pto.cast %a : !pto.tile<64x64xf32> -> !pto.tile<64x64xf8E4M3FN>
  return
}

// -----

func.func @cast_mode_on_widening(%a: !pto.tile<64x64xbf16>) {
  // expected-error @+1 {{'pto.cast' op gives rounding mode RINT to the exact widening 'bf16' -> 'f32'; drop the mode}}
  %r = pto.cast %a {mode = #pto.round_mode<RINT>} : !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  return
}

// -----

pto.kernel @cast_mode_on_fp8_widening(%x: !pto.tensor<64x64xf8E5M2>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf8E5M2> -> !pto.tile<64x64xf8E5M2>
  // expected-error @+1 {{'pto.cast' op gives rounding mode TRUNC to the exact widening 'f8E5M2' -> 'bf16'; drop the mode}}
  %r = pto.cast %t {mode = #pto.round_mode<TRUNC>} : !pto.tile<64x64xf8E5M2> -> !pto.tile<64x64xbf16>
}

// -----

func.func @cast_mode_unsupported(%a: !pto.tile<64x64xf32>) {
  // expected-error @+1 {{'pto.cast' op rounding mode ODD is not supported for 'f32' -> 'bf16' on DAV_2201; use one of RINT, ROUND, FLOOR, CEIL, TRUNC}}
  %r = pto.cast %a {mode = #pto.round_mode<ODD>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  return
}

// -----

pto.kernel @cast_mode_unsupported_fp8(%x: !pto.tensor<64x64xf32>) attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  // expected-error @+1 {{'pto.cast' op rounding mode TRUNC is not supported for 'f32' -> 'f8E5M2' on DAV_3510; use one of RINT, ROUND}}
  %r = pto.cast %t {mode = #pto.round_mode<TRUNC>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf8E5M2>
}

// -----

func.func @cast_vec_tile_misaligned(%a: !pto.tile<64x64xf16>) {
  // The vector tile of a cast is checked against its input dtype.
  // expected-error @+1 {{'pto.cast' op vector tile [64, 8]: last dim 8 x 2 B ('f16') = 16 B is not 32-byte aligned and splits the 64 columns of the tile; PyPTO rejects this too}}
  %r = pto.cast %a {vec_tile = #pto.vec_tile<[64, 8]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// pto.atomic_add, pto.assemble
//===----------------------------------------------------------------------===//

// -----

func.func @atomic_add_dtype(%t: !pto.tile<16x64xbf16>, %out: !pto.tensor<?x64xf32>) {
  // expected-error @+1 {{'pto.atomic_add' op writes a 'bf16' tile into a 'f32' tensor; atomic_add needs matching dtypes (cast the tile)}}
  pto.atomic_add %t, %out[0, 0] : !pto.tile<16x64xbf16>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @atomic_add_rank(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x16x64xf32>) {
  // expected-error @+1 {{'pto.atomic_add' op writes a rank-2 tile into a rank-3 tensor; reshape the tensor or the tile}}
  pto.atomic_add %t, %out[0, 0, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x16x64xf32>
  return
}

// -----

func.func @atomic_add_offset_count(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xf32>) {
  // expected-error @+1 {{'pto.atomic_add' op has 1 offsets for a rank-2 tensor; give one offset per dim}}
  pto.atomic_add %t, %out[0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @atomic_add_dynamic_offset_count(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xf32>, %i: index) {
  // expected-error @+1 {{'pto.atomic_add' op offsets has 1 dynamic entries but 2 index operands}}
  "pto.atomic_add"(%t, %out, %i, %i) <{static_offsets = array<i64: -9223372036854775808, 0>}>
      : (!pto.tile<16x64xf32>, !pto.tensor<?x64xf32>, index, index) -> ()
  return
}

// -----

func.func @atomic_add_negative_offset(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xf32>) {
  // expected-error @+1 {{'pto.atomic_add' op offsets entry 0 is -16; it must be >= 0}}
  pto.atomic_add %t, %out[-16, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @atomic_add_offset_outside(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xf32>, %i: index) {
  // expected-error @+1 {{'pto.atomic_add' op offset 64 of dim 1 is outside the destination [?, 64]}}
  pto.atomic_add %t, %out[%i, 64] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @assemble_dtype(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xbf16>) {
  // expected-error @+1 {{'pto.assemble' op writes a 'f32' tile into a 'bf16' tensor; assemble needs matching dtypes (cast the tile)}}
  pto.assemble %t, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xbf16>
  return
}

// -----

func.func @assemble_rank(%t: !pto.tile<64xf32>, %out: !pto.tensor<?x64xf32>) {
  // expected-error @+1 {{'pto.assemble' op writes a rank-1 tile into a rank-2 tensor; reshape the tensor or the tile}}
  pto.assemble %t, %out[0, 0] : !pto.tile<64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @assemble_offset_count(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<?x64xf32>) {
  // expected-error @+1 {{'pto.assemble' op has 3 offsets for a rank-2 tensor; give one offset per dim}}
  pto.assemble %t, %out[0, 0, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @assemble_offset_outside(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<32x64xf32>) {
  // expected-error @+1 {{'pto.assemble' op offset 32 of dim 0 is outside the destination [32, 64]}}
  pto.assemble %t, %out[32, 0] : !pto.tile<16x64xf32>, !pto.tensor<32x64xf32>
  return
}

// -----

func.func @assemble_negative_offset(%t: !pto.tile<16x64xf32>, %out: !pto.tensor<32x64xf32>) {
  // expected-error @+1 {{'pto.assemble' op offsets entry 1 is -1; it must be >= 0}}
  pto.assemble %t, %out[0, -1] : !pto.tile<16x64xf32>, !pto.tensor<32x64xf32>
  return
}

// -----

// expected-error @+1 {{argument 'offs' is marked pto.cumulative but has type '!pto.tensor<?xf32>'; cumulative offsets are a unit attribute on a 1-D integer tensor}}
pto.kernel @cumulative_float(%offs: !pto.tensor<?xf32> {pto.cumulative}) {
}

// -----

// expected-error @+1 {{argument 'offs' is marked pto.cumulative but has type '!pto.tensor<?x2xi32>'}}
pto.kernel @cumulative_rank2(%offs: !pto.tensor<?x2xi32> {pto.cumulative}) {
}

// -----

// expected-error @+1 {{argument 'offs' is marked pto.cumulative but has type '!pto.tensor<?xi32>'}}
pto.kernel @cumulative_not_unit(%offs: !pto.tensor<?xi32> {pto.cumulative = 1 : i32}) {
}

// -----

// expected-error @+1 {{argument 'w' has pto.layout = "zn"; the layout is the string "nd" (row-major) or "nz" (16-row fractals, PyPTO's TILEOP_NZ)}}
pto.kernel @layout_unknown(%w: !pto.tensor<32x32xi8> {pto.layout = "zn"}) {
}

// -----

// expected-error @+1 {{argument 'w' is NZ (pto.layout = "nz") with 40 rows (type '!pto.tensor<40x64xf16>'); NZ stores whole 16 x 16 fractals of 'f16', so its rows must be a multiple of 16: pad the rows with zeros to 48 or declare the tensor ND}}
pto.kernel @nz_row_tail(%w: !pto.tensor<40x64xf16> {pto.layout = "nz"}) {
}

// -----

// expected-error @+1 {{argument 'w' is NZ (pto.layout = "nz") with 48 columns (type '!pto.tensor<?x48xi8>'); NZ stores whole 16 x 32 fractals of 'i8', so its columns must be a multiple of 32: pad the columns with zeros to 64 or declare the tensor ND}}
pto.kernel @nz_col_tail(%w: !pto.tensor<?x48xi8> {pto.layout = "nz"}) {
}

// -----

// expected-error @+1 {{argument 'w' is NZ (pto.layout = "nz") but has type '!pto.tensor<64xf16>'; NZ stores a matrix (the last two dims): declare a 1-D tensor ND}}
pto.kernel @nz_vector(%w: !pto.tensor<64xf16> {pto.layout = "nz"}) {
}

// -----

// expected-error @+1 {{argument 'w' is NZ (pto.layout = "nz") with element type 'i1'; an NZ fractal row is 32 bytes of a 1-, 2- or 4-byte number (i8, f16, bf16, f32, i32, ...): declare it ND}}
pto.kernel @nz_bool(%w: !pto.tensor<16x32xi1> {pto.layout = "nz"}) {
}

//===----------------------------------------------------------------------===//
// Tile-graph level: pto.matmul_acc, pto.workspace, pto.task, pto.launch,
// pto.root_call, #pto.stitch_plan
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_acc_dtype(%acc: !pto.tile<32x32xbf16>, %a: !pto.tile<32x32xbf16>, %b: !pto.tile<32x32xbf16>) {
  // expected-error @+1 {{'pto.matmul_acc' op accumulator '!pto.tile<32x32xbf16>' must be [M, N] = [32, 32] of f32 (partial results stay in L0C precision)}}
  %r = pto.matmul_acc %acc, %a, %b {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
      : !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xbf16>
  return
}

// -----

func.func @matmul_acc_shape(%acc: !pto.tile<32x16xf32>, %a: !pto.tile<32x32xbf16>, %b: !pto.tile<32x32xbf16>) {
  // expected-error @+1 {{'pto.matmul_acc' op accumulator '!pto.tile<32x16xf32>' must be [M, N] = [32, 32] of f32}}
  %r = pto.matmul_acc %acc, %a, %b {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
      : !pto.tile<32x16xf32>, !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
  return
}

// -----

// i8 inputs accumulate in i32.
func.func @matmul_acc_int_inputs(%acc: !pto.tile<32x32xf32>, %a: !pto.tile<32x32xi8>, %b: !pto.tile<32x32xi8>) {
  // expected-error @+1 {{'pto.matmul_acc' op accumulator '!pto.tile<32x32xf32>' must be [M, N] = [32, 32] of i32}}
  %r = pto.matmul_acc %acc, %a, %b {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
      : !pto.tile<32x32xf32>, !pto.tile<32x32xi8>, !pto.tile<32x32xi8> -> !pto.tile<32x32xi32>
  return
}

// -----

// The operands follow the pto.matmul rules.
func.func @matmul_acc_contraction(%acc: !pto.tile<32x32xf32>, %a: !pto.tile<32x16xbf16>, %b: !pto.tile<32x32xbf16>) {
  // expected-error @+1 {{'pto.matmul_acc' op contracts K = 16 of the left operand [32, 16] with K = 32 of the right operand [32, 32]}}
  %r = pto.matmul_acc %acc, %a, %b {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
      : !pto.tile<32x32xf32>, !pto.tile<32x16xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
  return
}

// -----

func.func @workspace_dynamic_shape() {
  // expected-error @+1 {{'pto.workspace' op workspace '!pto.tensor<?x64xf32>' must have a static shape}}
  %ws = pto.workspace : !pto.tensor<?x64xf32>
  return
}

// -----

pto.kernel @task_mix_on_2201(%out: !pto.tensor<16x16xf32>) {
  // expected-error @+1 {{'pto.task' op is a MIX task, which DAV_2201 cannot run; split it into cube and vector tasks}}
  pto.task #pto.core<mix> "M1" {
  }
}

// -----

pto.kernel @task_with_loop(%out: !pto.tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pto.task' op contains 'pto.loop'; a task is straight-line tile code}}
  pto.task #pto.core<vector> "V1" {
    // expected-note @+1 {{here}}
    pto.loop "L" %i = %c0 to %c1 step %c1 {
    }
  }
}

// -----

pto.kernel @vector_op_in_cube_task(%x: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) {
  // expected-error @+1 {{'pto.task' op is a cube task but contains 'pto.exp', which runs on the other core kind}}
  pto.task #pto.core<cube> "C1" {
    %t = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
    // expected-note @+1 {{here}}
    %e = pto.exp %t : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}

// -----

pto.kernel @cube_op_in_vector_task(%x: !pto.tensor<16x16xbf16>) {
  // expected-error @+1 {{'pto.task' op is a vector task but contains 'pto.matmul', which runs on the other core kind}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
    // expected-note @+1 {{here}}
    %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
        : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  }
}

// -----

pto.kernel @task_yield_mismatch(%x: !pto.tensor<16x16xf32>) {
  %r = pto.task #pto.core<vector> "V1" -> (!pto.tile<16x16xf32>) {
    %t = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x8xf32>
    // expected-error @+1 {{'pto.yield' op yields ('!pto.tile<16x8xf32>') but the pto.task returns ('!pto.tile<16x16xf32>')}}
    pto.yield %t : !pto.tile<16x8xf32>
  }
}

// -----

func.func @launch_callee_missing() {
  // expected-error @+1 {{'pto.launch' op calls @nowhere, which is not a function in scope}}
  %t = pto.launch @nowhere() : () -> !pto.token
  return
}

// -----

func.func private @leaf(%a: !pto.tensor<16x16xf32>)
func.func @launch_arg_mismatch(%a: !pto.tensor<16x32xf32>) {
  // expected-error @+1 {{'pto.launch' op passes ('!pto.tensor<16x32xf32>') to @leaf, which takes ('!pto.tensor<16x16xf32>')}}
  %t = pto.launch @leaf(%a) : (!pto.tensor<16x32xf32>) -> !pto.token
  return
}

// -----

func.func private @leaf() -> index
func.func @launch_callee_results() {
  // expected-error @+1 {{'pto.launch' op @leaf returns values; leaf and root functions communicate through GM}}
  %t = pto.launch @leaf() : () -> !pto.token
  return
}

// -----

pto.kernel @root_call_callee_missing() {
  // expected-error @+1 {{'pto.root_call' op calls @nowhere, which is not a function in scope}}
  pto.root_call @nowhere() : () -> ()
}

// -----

func.func private @root(%a: !pto.tensor<16x16xf32>, %b: !pto.tensor<16x16xf32>)
pto.kernel @root_call_arg_count(%a: !pto.tensor<16x16xf32>) {
  // expected-error @+1 {{'pto.root_call' op passes ('!pto.tensor<16x16xf32>') to @root, which takes ('!pto.tensor<16x16xf32>', '!pto.tensor<16x16xf32>')}}
  pto.root_call @root(%a) : (!pto.tensor<16x16xf32>) -> ()
}

// -----

func.func private @root() -> index
pto.kernel @root_call_callee_results() {
  // expected-error @+1 {{'pto.root_call' op @root returns values; leaf and root functions communicate through GM}}
  pto.root_call @root() : () -> ()
}

// -----

func.func private @root()
pto.kernel @stitch_depth_zero() {
  // expected-error @+1 {{stitch depth 0 must be in [1, 1024] (the runtime's hard cap)}}
  pto.root_call @root() {stitch = #pto.stitch_plan<depth = 0, workspace_bytes = 0, launches = 1, mode = "count">} : () -> ()
}

// -----

func.func private @root()
pto.kernel @stitch_depth_above_cap() {
  // expected-error @+1 {{stitch depth 1025 must be in [1, 1024] (the runtime's hard cap)}}
  pto.root_call @root() {stitch = #pto.stitch_plan<depth = 1025, workspace_bytes = 0, launches = 1, mode = "count">} : () -> ()
}

// -----

func.func private @root()
pto.kernel @stitch_negative_size() {
  // expected-error @+1 {{stitch plan sizes must be non-negative}}
  pto.root_call @root() {stitch = #pto.stitch_plan<depth = 1, workspace_bytes = -1, launches = 1, mode = "count">} : () -> ()
}

// -----

func.func private @root()
pto.kernel @stitch_mode() {
  // expected-error @+1 {{stitch mode 'depth' must be "memory" (max_workspace_kb) or "count" (stitch_function_max_num)}}
  pto.root_call @root() {stitch = #pto.stitch_plan<depth = 1, workspace_bytes = 0, launches = 1, mode = "depth">} : () -> ()
}

// -----

//===----------------------------------------------------------------------===//
// pto.gathermask
//===----------------------------------------------------------------------===//

func.func @gathermask_pattern_zero(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.gathermask' op pattern_mode 0 is not a PyPTO mask pattern; use 1 (elements 0::2), 2 (1::2), 3 to 6 (0::4 .. 3::4) or 7 (all)}}
  %r = pto.gathermask %a, pattern = 0 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  return
}

// -----

func.func @gathermask_pattern_eight(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.gathermask' op pattern_mode 8 is not a PyPTO mask pattern}}
  %r = pto.gathermask %a, pattern = 8 : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @gathermask_last_dim_not_multiple(%a: !pto.tile<16x66xf32>) {
  // expected-error @+1 {{'pto.gathermask' op pattern_mode 4 keeps one of every 4 elements of the last dim, but the input's last dim is 66; PyPTO requires it to be a multiple of 4}}
  %r = pto.gathermask %a, pattern = 4 : !pto.tile<16x66xf32> -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @gathermask_result_shape(%a: !pto.tile<2x16x64xf32>) {
  // expected-error @+1 {{'pto.gathermask' op result type '!pto.tile<2x8x64xf32>' must have shape [2, 16, 32] (the last dim of [2, 16, 64] divided by 2) and element type 'f32'}}
  %r = pto.gathermask %a, pattern = 2 : !pto.tile<2x16x64xf32> -> !pto.tile<2x8x64xf32>
  return
}

// -----

func.func @gathermask_result_dtype(%a: !pto.tile<16x64xbf16>) {
  // expected-error @+1 {{'pto.gathermask' op result type '!pto.tile<16x16xf32>' must have shape [16, 16] (the last dim of [16, 64] divided by 4) and element type 'bf16'}}
  %r = pto.gathermask %a, pattern = 3 : !pto.tile<16x64xbf16> -> !pto.tile<16x16xf32>
  return
}

// -----

func.func @gathermask_i8(%a: !pto.tile<16x64xi8>) {
  // expected-error @+1 {{'pto.gathermask' op gathers 'i8' elements; the vector unit's mask gather moves 2- and 4-byte types only: cast to f16, f32 or i32 first}}
  %r = pto.gathermask %a, pattern = 1 : !pto.tile<16x64xi8> -> !pto.tile<16x32xi8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// pto.index_put
//===----------------------------------------------------------------------===//

func.func @index_put_dtype(%v: !pto.tile<8x16xf32>, %i: !pto.tile<8xi32>, %out: !pto.tensor<?x16xf16>) {
  // expected-error @+1 {{'pto.index_put' op writes a 'f32' tile into a 'f16' tensor; index_put needs matching dtypes (cast the tile)}}
  pto.index_put %v, %out[%i] [0, 0] : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf16>
  return
}

// -----

func.func @index_put_rank(%v: !pto.tile<2x8x16xf32>, %i: !pto.tile<2xi32>, %out: !pto.tensor<?x8x16xf32>) {
  // expected-error @+1 {{'pto.index_put' op writes a rank-3 tile into a rank-3 tensor; index_put is supported on rank-2 tiles and tensors (rows indexed), reshape to 2-D}}
  pto.index_put %v, %out[%i] [0, 0, 0] : !pto.tile<2x8x16xf32>, !pto.tile<2xi32>, !pto.tensor<?x8x16xf32>
  return
}

// -----

func.func @index_put_index_type(%v: !pto.tile<8x16xf32>, %i: !pto.tile<8xi64>, %out: !pto.tensor<?x16xf32>) {
  // expected-error @+1 {{'pto.index_put' op indices '!pto.tile<8xi64>' must be a rank-1 i32 tile (one row index per row of the source); cast them to DT_INT32}}
  pto.index_put %v, %out[%i] [0, 0] : !pto.tile<8x16xf32>, !pto.tile<8xi64>, !pto.tensor<?x16xf32>
  return
}

// -----

func.func @index_put_index_count(%v: !pto.tile<8x16xf32>, %i: !pto.tile<16xi32>, %out: !pto.tensor<?x16xf32>) {
  // expected-error @+1 {{'pto.index_put' op has 16 indices for a source of 8 rows; give one index per source row}}
  pto.index_put %v, %out[%i] [0, 0] : !pto.tile<8x16xf32>, !pto.tile<16xi32>, !pto.tensor<?x16xf32>
  return
}

// -----

func.func @index_put_offsets(%v: !pto.tile<8x16xf32>, %i: !pto.tile<8xi32>, %out: !pto.tensor<?x16xf32>) {
  // expected-error @+1 {{'pto.index_put' op has 1 offsets for a rank-2 tensor; give one offset per dim}}
  pto.index_put %v, %out[%i] [0] : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  return
}

// -----

func.func @index_put_columns(%v: !pto.tile<8x16xf32>, %i: !pto.tile<8xi32>, %out: !pto.tensor<?x24xf32>) {
  // expected-error @+1 {{'pto.index_put' op writes columns [16, 32) of a tensor of 24 columns; the source rows must fit the destination rows [?, 24]}}
  pto.index_put %v, %out[%i] [0, 16] : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x24xf32>
  return
}

// -----

func.func @index_put_vec_tile(%v: !pto.tile<8x16xf32>, %i: !pto.tile<8xi32>, %out: !pto.tensor<?x16xf32>) {
  // expected-error @+1 {{'pto.index_put' op vector tile [8, 16, 1] has more than 2 dims; index_put takes [rows] or [rows, cols]}}
  pto.index_put %v, %out[%i] [0, 0] {vec_tile = #pto.vec_tile<[8, 16, 1]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  return
}

// -----

func.func @bitcast_partial_element(%x: !pto.tile<4x6xi8>) {
  // expected-error @+1 {{'pto.bitcast' op reads the 6 x 1 B of the input's last dim ('i8') as 'f32' elements of 4 B, which is not a whole number; PyPTO requires last dim x bytes('i8') to be a multiple of bytes('f32'): view a last dim that is a multiple of 4}}
  %y = "pto.bitcast"(%x) : (!pto.tile<4x6xi8>) -> !pto.tile<4x1xf32>
  return
}

// -----

func.func @bitcast_shape(%x: !pto.tile<4x8xf32>) {
  // expected-error @+1 {{'pto.bitcast' op result type '!pto.tile<8x16xi8>' must have shape [4, 32] (the last dim of [4, 8] scaled by 4 / 1, the element sizes)}}
  %y = pto.bitcast %x : !pto.tile<4x8xf32> -> !pto.tile<8x16xi8>
  return
}

// -----

func.func @bitcast_mask(%x: !pto.tile<4x32xi1>) {
  // expected-error @+1 {{'pto.bitcast' op reinterprets 'i1' as 'i8': an i1 mask is packed bits on chip, not bytes; cast it (pto.cast, pypto.cast) instead}}
  %y = pto.bitcast %x : !pto.tile<4x32xi1> -> !pto.tile<4x32xi8>
  return
}

// -----

func.func @bitcast_vec_tile(%x: !pto.tile<4x64xi8>) {
  // expected-error @+1 {{'pto.bitcast' op vector tile [4, 20]: last dim 20 x 1 B ('i8') = 20 B is not 32-byte aligned}}
  %y = pto.bitcast %x {vec_tile = #pto.vec_tile<[4, 20]>} : !pto.tile<4x64xi8> -> !pto.tile<4x16xf32>
  return
}

// -----

func.func @arange_rank2() {
  // expected-error @+1 {{'pto.arange' op result '!pto.tile<2x8xi32>' must be a rank-1 tile (PyPTO's arange is 1-D); reshape the result afterwards}}
  %a = pto.arange 0.0, 1.0 : !pto.tile<2x8xi32>
  return
}

// -----

func.func @arange_zero_step() {
  // expected-error @+1 {{'pto.arange' op start 0 and step 0 must be finite and |step| > 1e-8 (PyPTO's rule); give a non-zero step}}
  %a = pto.arange 0.0, 0.0 : !pto.tile<8xf32>
  return
}

// -----

func.func @arange_fraction_int() {
  // expected-error @+1 {{'pto.arange' op start 0 and step 0.5 must be integers for an integer result 'i32'; use a float result type}}
  %a = pto.arange 0.0, 0.5 : !pto.tile<8xi32>
  return
}

// -----

func.func @arange_i16_range() {
  // expected-error @+1 {{'pto.arange' op the sequence 32765 .. 32772 leaves the range of 'i16'; use a wider or float result type}}
  %a = pto.arange 32765.0, 1.0 : !pto.tile<8xi16>
  return
}

// -----

func.func @arange_vec_tile() {
  // expected-error @+1 {{'pto.arange' op vector tile [1, 8] must have one dim for a 1-D arange (PyPTO: set_vec_tile_shapes(t))}}
  %a = pto.arange 0.0, 1.0 {vec_tile = #pto.vec_tile<[1, 8]>} : !pto.tile<16xi32>
  return
}
