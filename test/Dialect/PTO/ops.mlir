// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// Round trip of every pto op, type and attribute: the custom form, the
// custom form reparsed, and the generic form reparsed must all print the same.

//===----------------------------------------------------------------------===//
// pto.kernel with every option attribute; the standalone merge_setting attr.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @options(
// CHECK-SAME:    %q: !pto.tensor<?x8x64xbf16>, %actual_q: !pto.tensor<?xi32>, %actual_kv: !pto.tensor<?xi32>)
// CHECK-SAME:    attributes {
// CHECK-SAME:    arch = #pto.arch<DAV_2201>
// CHECK-SAME:    combine_axis = true
// CHECK-SAME:    pass_options = #pto.pass_options<vec_nbuffer_setting = {-2 : 1, -1 : 1, 0 : 4}, cube_l1_reuse_setting = {-1 : 1, 0 : (4, "left"), 1 : (2, "right"), 3 : (2, "auto")}, cube_nbuffer_setting = {-1 : 2, 5 : 1}>
// CHECK-SAME:    pto.standalone = #pto.merge_setting<{-1 : 2, 7 : (3, "left")}>
// CHECK-SAME:    runtime_options = #pto.runtime_options<stitch_function_max_num = 512, device_sched_mode = 3, ready_on_host_tensors = ["actual_q", "actual_kv"], max_workspace_kb = 25170624, device_sched_parallelism = 8>
// CHECK-SAME:    } {
// CHECK-NEXT:  }
pto.kernel @options(%q: !pto.tensor<?x8x64xbf16>, %actual_q: !pto.tensor<?xi32>,
                    %actual_kv: !pto.tensor<?xi32>) attributes {
    arch = #pto.arch<DAV_2201>, combine_axis = true,
    runtime_options = #pto.runtime_options<stitch_function_max_num = 512,
        device_sched_mode = 3, ready_on_host_tensors = ["actual_q", "actual_kv"],
        max_workspace_kb = 25170624, device_sched_parallelism = 8>,
    pass_options = #pto.pass_options<
        vec_nbuffer_setting = {-2 : 1, -1 : 1, 0 : 4},
        cube_l1_reuse_setting = {-1 : 1, 0 : (4, "left"), 1 : (2, "right"), 3 : (2, "auto")},
        cube_nbuffer_setting = {-1 : 2, 5 : 1}>,
    pto.standalone = #pto.merge_setting<{-1 : 2, 7 : (3, "left")}>} {
}

// Partial option sets: every runtime option field is optional, pass options
// may name one setting only, and the pass options fields may come in any order.

// CHECK-LABEL: pto.kernel @partial_options(
// CHECK-SAME:    %x: !pto.tensor<16xf32>)
// CHECK-SAME:    arch = #pto.arch<DAV_3510>
// CHECK-SAME:    combine_axis = false
// CHECK-SAME:    pass_options = #pto.pass_options<vec_nbuffer_setting = {0 : 2}, cube_nbuffer_setting = {-1 : 4}>
// CHECK-SAME:    runtime_options = #pto.runtime_options<device_sched_mode = 0>
pto.kernel @partial_options(%x: !pto.tensor<16xf32>) attributes {
    arch = #pto.arch<DAV_3510>, combine_axis = false,
    runtime_options = #pto.runtime_options<device_sched_mode = 0>,
    pass_options = #pto.pass_options<cube_nbuffer_setting = {-1 : 4},
                                     vec_nbuffer_setting = {0 : 2}>} {
}

// CHECK-LABEL: pto.kernel @no_arguments()
// CHECK-SAME:    runtime_options = #pto.runtime_options<>} {
// CHECK-NEXT:  }
pto.kernel @no_arguments() attributes {runtime_options = #pto.runtime_options<>} {
  pto.return
}

//===----------------------------------------------------------------------===//
// Control: pto.loop, pto.is_loop_begin/end, pto.read, pto.dim
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @loops(
// CHECK-SAME:    %x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>, %actual_q: !pto.tensor<?xi32>)
pto.kernel @loops(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>,
                  %actual_q: !pto.tensor<?xi32>) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: %[[N:.*]] = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  // CHECK: %[[W:.*]] = pto.dim %x, 1 : !pto.tensor<?x64xf32>
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %w = pto.dim %x, 1 : !pto.tensor<?x64xf32>

  // A loop with no iter_args and no attributes: no terminator is printed.
  // CHECK: pto.loop "LOOP_b" %b_idx = %[[C0]] to %[[N]] step %[[C1]] {
  pto.loop "LOOP_b" %b_idx = %c0 to %n step %c1 {
    // CHECK: %[[Q:.*]] = pto.read %actual_q[%b_idx] : !pto.tensor<?xi32>
    %q_len = pto.read %actual_q[%b_idx] : !pto.tensor<?xi32>
    // CHECK: pto.check_view %x[%b_idx, %[[C0]]] valid [%[[Q]], %[[W]]] : !pto.tensor<?x64xf32>
    pto.check_view %x[%b_idx, %c0] valid [%q_len, %w] : !pto.tensor<?x64xf32>
    // CHECK: pto.check_view %x[%b_idx, %[[C0]]] valid [] : !pto.tensor<?x64xf32>
    pto.check_view %x[%b_idx, %c0] valid [] : !pto.tensor<?x64xf32>
    // CHECK: pto.check_tile_view [%b_idx, %[[C0]]] valid [%[[Q]], %[[W]]] of [%[[N]], %[[W]]]
    pto.check_tile_view [%b_idx, %c0] valid [%q_len, %w] of [%n, %w]
    // CHECK: pto.check_tile_view [%b_idx, %[[C0]]] valid [] of [%[[N]], %[[W]]]
    pto.check_tile_view [%b_idx, %c0] valid [] of [%n, %w]
    // Nested loop with every optional attribute, carrying a tile and an index.
    // CHECK: %[[INIT:.*]] = pto.full 0.000000e+00 : !pto.tile<1x64xf32>
    %init = pto.full 0.0 : !pto.tile<1x64xf32>
    // CHECK: %[[R:.*]]:2 = pto.loop "LOOP_s" %s_idx = %[[C0]] to %[[Q]] step %[[C4]]
    // CHECK-SAME: iter_args(%[[ACC:.*]] = %[[INIT]], %[[CNT:.*]] = %[[C0]]) -> (!pto.tile<1x64xf32>, index)
    // CHECK-SAME: attributes {parallel, submit_before_loop, unroll_list = array<i64: 4, 2, 1>} {
    %r:2 = pto.loop "LOOP_s" %s_idx = %c0 to %q_len step %c4
        iter_args(%acc = %init, %cnt = %c0) -> (!pto.tile<1x64xf32>, index)
        attributes {unroll_list = array<i64: 4, 2, 1>, submit_before_loop, parallel} {
      // CHECK: %[[FIRST:.*]] = pto.is_loop_begin %s_idx
      // CHECK: %[[ROW:.*]] = scf.if %[[FIRST]] -> (!pto.tile<1x64xf32>) {
      // CHECK:   %[[V0:.*]] = pto.view %x[%s_idx, 0] : !pto.tensor<?x64xf32> -> !pto.tile<1x64xf32>
      // CHECK:   scf.yield %[[V0]] : !pto.tile<1x64xf32>
      // CHECK: } else {
      // CHECK:   %[[LAST:.*]] = pto.is_loop_end %s_idx
      // CHECK:   %[[LASTB:.*]] = pto.is_loop_end %b_idx
      // CHECK:   scf.yield %[[ACC]] : !pto.tile<1x64xf32>
      // CHECK: }
      %first = pto.is_loop_begin %s_idx
      %row = scf.if %first -> (!pto.tile<1x64xf32>) {
        %v0 = pto.view %x[%s_idx, 0] : !pto.tensor<?x64xf32> -> !pto.tile<1x64xf32>
        scf.yield %v0 : !pto.tile<1x64xf32>
      } else {
        // is_loop_end on the index of the enclosing loop and of an outer loop.
        %last = pto.is_loop_end %s_idx
        %last_b = pto.is_loop_end %b_idx
        scf.yield %acc : !pto.tile<1x64xf32>
      }
      // CHECK: %[[SUM:.*]] = pto.add %[[ROW]], %[[ACC]] : !pto.tile<1x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<1x64xf32>
      // CHECK: %[[NEXT:.*]] = arith.addi %[[CNT]], %[[C1]] : index
      // CHECK: pto.yield %[[SUM]], %[[NEXT]] : !pto.tile<1x64xf32>, index
      %sum = pto.add %row, %acc : !pto.tile<1x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<1x64xf32>
      %next = arith.addi %cnt, %c1 : index
      pto.yield %sum, %next : !pto.tile<1x64xf32>, index
    }
    // CHECK: pto.assemble %[[R]]#0, %out [%b_idx, %[[R]]#1] : !pto.tile<1x64xf32>, !pto.tensor<?x64xf32>
    pto.assemble %r#0, %out[%b_idx, %r#1] : !pto.tile<1x64xf32>, !pto.tensor<?x64xf32>
  }
  // Sibling loops may reuse an index name; a unit unroll_list is allowed.
  // CHECK: pto.loop "LOOP_again" %b_idx = %[[C0]] to %[[W]] step %[[C1]] attributes {unroll_list = array<i64: 1>} {
  // CHECK-NEXT: }
  pto.loop "LOOP_again" %b_idx = %c0 to %w step %c1 attributes {unroll_list = array<i64: 1>} {
  }
  pto.return
}

// Printer corner cases: attributes on the implicit terminators survive, and an
// index whose idx_name is taken in the enclosing scope (here by a kernel
// argument) is renamed by the printer, so idx_name is then printed explicitly.

// CHECK-LABEL: pto.kernel @printer_corner_cases(
// CHECK-SAME:    %i: !pto.tensor<8xi32>)
// CHECK:         pto.loop "L" %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} attributes {idx_name = "i"} {
// CHECK-NEXT:      pto.read %i[%[[IV]]] : !pto.tensor<8xi32>
// CHECK-NEXT:      pto.yield {note = "end of body"}
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.return {note = "end of kernel"}
// CHECK-NEXT:  }
pto.kernel @printer_corner_cases(%i: !pto.tensor<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pto.loop "L" %j = %c0 to %c8 step %c1 attributes {idx_name = "i"} {
    %v = pto.read %i[%j] : !pto.tensor<8xi32>
    pto.yield {note = "end of body"}
  }
  pto.return {note = "end of kernel"}
}

//===----------------------------------------------------------------------===//
// GM tensors: pto.reshape, pto.view (of tensors and of tiles)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @views(
// CHECK-SAME:    %q: !pto.tensor<?x8x64xbf16>, %s: !pto.tensor<4x8x64xf16>)
pto.kernel @views(%q: !pto.tensor<?x8x64xbf16>, %s: !pto.tensor<4x8x64xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[T:.*]] = pto.dim %q, 0
  %total_q = pto.dim %q, 0 : !pto.tensor<?x8x64xbf16>
  // CHECK: %[[Q2:.*]] = pto.reshape %q [%[[T]], 512] inplace : !pto.tensor<?x8x64xbf16> -> !pto.tensor<?x512xbf16>
  %q2 = pto.reshape %q [%total_q, 512] inplace : !pto.tensor<?x8x64xbf16> -> !pto.tensor<?x512xbf16>
  // A static reshape may omit 'inplace'.
  // CHECK: pto.reshape %s [32, 64] : !pto.tensor<4x8x64xf16> -> !pto.tensor<32x64xf16>
  %s2 = pto.reshape %s [32, 64] : !pto.tensor<4x8x64xf16> -> !pto.tensor<32x64xf16>
  // CHECK: pto.reshape %s [2048] inplace : !pto.tensor<4x8x64xf16> -> !pto.tensor<2048xf16>
  %s3 = pto.reshape %s [2048] inplace : !pto.tensor<4x8x64xf16> -> !pto.tensor<2048xf16>

  // Without a valid shape; static and dynamic offsets.
  // CHECK: %[[V1:.*]] = pto.view %[[Q2]][0, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  %v1 = pto.view %q2[0, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  // CHECK: %[[V2:.*]] = pto.view %[[Q2]][%[[T]], %[[C64:.*]]] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  %v2 = pto.view %q2[%total_q, %c64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  // With a valid shape: static, dynamic and mixed entries.
  // CHECK: pto.view %[[Q2]][%[[T]], 0] valid [100, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  %v3 = pto.view %q2[%total_q, 0] valid [100, 64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  // CHECK: pto.view %[[Q2]][0, 0] valid [%[[T]], %[[C64]]] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  %v4 = pto.view %q2[0, 0] valid [%total_q, %c64] : !pto.tensor<?x512xbf16> -> !pto.tile<128x64xbf16>
  // CHECK: pto.view %s[1, 0, 0] valid [1, %[[T]], 64] : !pto.tensor<4x8x64xf16> -> !pto.tile<1x8x64xf16>
  %v5 = pto.view %s[1, 0, 0] valid [1, %total_q, 64] : !pto.tensor<4x8x64xf16> -> !pto.tile<1x8x64xf16>
  // A view of a tile (nested view), with and without a valid shape.
  // CHECK: %[[SUB:.*]] = pto.view %[[V1]][64, 0] : !pto.tile<128x64xbf16> -> !pto.tile<64x64xbf16>
  %sub = pto.view %v1[64, 0] : !pto.tile<128x64xbf16> -> !pto.tile<64x64xbf16>
  // CHECK: pto.view %[[SUB]][%[[T]], 32] valid [%[[T]], 16] : !pto.tile<64x64xbf16> -> !pto.tile<32x32xbf16>
  %sub2 = pto.view %sub[%total_q, 32] valid [%total_q, 16] : !pto.tile<64x64xbf16> -> !pto.tile<32x32xbf16>
  pto.return
}

//===----------------------------------------------------------------------===//
// pto.matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @matmul(
pto.kernel @matmul(%a: !pto.tensor<256x128xbf16>, %at: !pto.tensor<128x256xbf16>,
                   %b: !pto.tensor<128x64xbf16>, %bt: !pto.tensor<64x128xbf16>,
                   %i8a: !pto.tensor<64x64xi8>, %i8b: !pto.tensor<64x64xi8>) {
  // CHECK: %[[A:.*]] = pto.view %a
  // CHECK: %[[AT:.*]] = pto.view %at
  // CHECK: %[[B:.*]] = pto.view %b
  // CHECK: %[[BT:.*]] = pto.view %bt
  %ta = pto.view %a[0, 0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x128xbf16>
  %tat = pto.view %at[0, 0] : !pto.tensor<128x256xbf16> -> !pto.tile<128x256xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<128x64xbf16> -> !pto.tile<128x64xbf16>
  %tbt = pto.view %bt[0, 0] : !pto.tensor<64x128xbf16> -> !pto.tile<64x128xbf16>
  // CHECK: pto.matmul %[[A]], %[[B]] {cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64]>} : !pto.tile<256x128xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<256x64xf32>
  %m0 = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64]>}
      : !pto.tile<256x128xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<256x64xf32>
  // CHECK: pto.matmul %[[AT]], %[[B]] {a_trans, cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64]>} : !pto.tile<128x256xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<256x64xbf16>
  %m1 = pto.matmul %tat, %tb {a_trans, cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64]>}
      : !pto.tile<128x256xbf16>, !pto.tile<128x64xbf16> -> !pto.tile<256x64xbf16>
  // CHECK: pto.matmul %[[A]], %[[BT]] {b_trans, cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64], split_k>} : !pto.tile<256x128xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x64xf32>
  %m2 = pto.matmul %ta, %tbt {b_trans, cube_tile = #pto.cube_tile<m = [128, 256], k = [64, 128], n = [64, 64], split_k>}
      : !pto.tile<256x128xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x64xf32>
  // CHECK: pto.matmul %[[AT]], %[[BT]] {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 128], n = [16, 64]>} : !pto.tile<128x256xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x64xf32>
  %m3 = pto.matmul %tat, %tbt {a_trans, b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 128], n = [16, 64]>}
      : !pto.tile<128x256xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x64xf32>
  // i8 x i8 -> i32 (32-element alignment), with split_k.
  // CHECK: pto.matmul %{{.*}}, %{{.*}} {cube_tile = #pto.cube_tile<m = [32, 64], k = [64, 64], n = [32, 64], split_k>} : !pto.tile<64x64xi8>, !pto.tile<64x64xi8> -> !pto.tile<64x64xi32>
  %ti8a = pto.view %i8a[0, 0] : !pto.tensor<64x64xi8> -> !pto.tile<64x64xi8>
  %ti8b = pto.view %i8b[0, 0] : !pto.tensor<64x64xi8> -> !pto.tile<64x64xi8>
  %m4 = pto.matmul %ti8a, %ti8b {cube_tile = #pto.cube_tile<m = [32, 64], k = [64, 64], n = [32, 64], split_k>}
      : !pto.tile<64x64xi8>, !pto.tile<64x64xi8> -> !pto.tile<64x64xi32>
  pto.return
}

// L1 holds an A block [mL0, kL1] and a B block [kL1, nL0] per output tile,
// clamped to the operands: the FA forward's C2 tile (PyPTO-Gym,
// 512 x 512 + 512 x 64 by the API page's mL1/nL1 formula, 576 KiB) stages
// (128 x 320 + 64 x 320) x 2 B here, and a kL1 of 2048 on a K of 256 stages
// 256-deep blocks.
// CHECK-LABEL: pto.kernel @matmul_l1_blocks(
pto.kernel @matmul_l1_blocks(%p: !pto.tensor<320x320xbf16>, %v: !pto.tensor<320x64xbf16>,
                             %a: !pto.tensor<128x256xbf16>, %b: !pto.tensor<256x128xbf16>)
    attributes {arch = #pto.arch<DAV_2201>} {
  %tp = pto.view %p[0, 0] : !pto.tensor<320x320xbf16> -> !pto.tile<320x320xbf16>
  %tv = pto.view %v[0, 0] : !pto.tensor<320x64xbf16> -> !pto.tile<320x64xbf16>
  %ta = pto.view %a[0, 0] : !pto.tensor<128x256xbf16> -> !pto.tile<128x256xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x128xbf16>
  // CHECK: pto.matmul {{.*}} {cube_tile = #pto.cube_tile<m = [128, 512], k = [256, 512], n = [64, 64]>}
  %c2 = pto.matmul %tp, %tv {cube_tile = #pto.cube_tile<m = [128, 512], k = [256, 512], n = [64, 64]>}
      : !pto.tile<320x320xbf16>, !pto.tile<320x64xbf16> -> !pto.tile<320x64xf32>
  // CHECK: pto.matmul {{.*}} {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 2048], n = [128, 128]>}
  %deep = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 2048], n = [128, 128]>}
      : !pto.tile<128x256xbf16>, !pto.tile<256x128xbf16> -> !pto.tile<128x128xf32>
  pto.return
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops: tile/tile, broadcasts, scalar rhs, div precision
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @binary(
pto.kernel @binary(%x: !pto.tensor<128x64xf32>, %col: !pto.tensor<1x64xf32>,
                   %n: !pto.tensor<128x64xi32>) {
  // CHECK: %[[S:.*]] = pto.view %x
  // CHECK: %[[ROW:.*]] = pto.amax %[[S]] dim = 1 keepdim
  // CHECK: %[[COL:.*]] = pto.view %col
  // CHECK: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
  %s = pto.view %x[0, 0] : !pto.tensor<128x64xf32> -> !pto.tile<128x64xf32>
  %row = pto.amax %s dim = 1 keepdim : !pto.tile<128x64xf32> -> !pto.tile<128x1xf32>
  %c = pto.view %col[0, 0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %scale = arith.constant 0.125 : f32

  // CHECK: pto.add %[[S]], %[[S]] : !pto.tile<128x64xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.sub %[[S]], %[[ROW]] : !pto.tile<128x64xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.mul %[[S]], %[[SCALE]] : !pto.tile<128x64xf32>, f32 -> !pto.tile<128x64xf32>
  // CHECK: pto.max %[[S]], %[[COL]] : !pto.tile<128x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.min %[[COL]], %[[S]] {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<1x64xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.add %[[ROW]], %[[COL]] : !pto.tile<128x1xf32>, !pto.tile<1x64xf32> -> !pto.tile<128x64xf32>
  %add = pto.add %s, %s : !pto.tile<128x64xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
  %sub = pto.sub %s, %row : !pto.tile<128x64xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x64xf32>
  %mul = pto.mul %s, %scale : !pto.tile<128x64xf32>, f32 -> !pto.tile<128x64xf32>
  %max = pto.max %s, %c : !pto.tile<128x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<128x64xf32>
  %min = pto.min %c, %s {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<1x64xf32>, !pto.tile<128x64xf32> -> !pto.tile<128x64xf32>
  %outer = pto.add %row, %c : !pto.tile<128x1xf32>, !pto.tile<1x64xf32> -> !pto.tile<128x64xf32>

  // div: DAV_2201 needs INTRINSIC precision (the default is HIGH_PRECISION).
  // CHECK: pto.div %[[S]], %[[ROW]] {precision = #pto.precision<INTRINSIC>} : !pto.tile<128x64xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.div %[[S]], %[[SCALE]] {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<128x64xf32>, f32 -> !pto.tile<128x64xf32>
  %div = pto.div %s, %row {precision = #pto.precision<INTRINSIC>} : !pto.tile<128x64xf32>, !pto.tile<128x1xf32> -> !pto.tile<128x64xf32>
  %divs = pto.div %s, %scale {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<128x64xf32>, f32 -> !pto.tile<128x64xf32>

  // Integer operands; integer division produces f32.
  // CHECK: %[[I:.*]] = pto.view %n
  // CHECK: %[[TWO:.*]] = arith.constant 2 : i32
  // CHECK: pto.mul %[[I]], %[[TWO]] : !pto.tile<128x64xi32>, i32 -> !pto.tile<128x64xi32>
  // CHECK: pto.div %[[I]], %[[I]] {precision = #pto.precision<INTRINSIC>} : !pto.tile<128x64xi32>, !pto.tile<128x64xi32> -> !pto.tile<128x64xf32>
  %ti = pto.view %n[0, 0] : !pto.tensor<128x64xi32> -> !pto.tile<128x64xi32>
  %two = arith.constant 2 : i32
  %imul = pto.mul %ti, %two : !pto.tile<128x64xi32>, i32 -> !pto.tile<128x64xi32>
  %idiv = pto.div %ti, %ti {precision = #pto.precision<INTRINSIC>} : !pto.tile<128x64xi32>, !pto.tile<128x64xi32> -> !pto.tile<128x64xf32>
  pto.return
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @unary(
pto.kernel @unary(%x: !pto.tensor<64x64xf16>, %n: !pto.tensor<64x64xi16>) {
  // CHECK: %[[X:.*]] = pto.view %x
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xf16> -> !pto.tile<64x64xf16>
  // The default precision (INTRINSIC) of exp is not printed.
  // CHECK: pto.exp %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.exp %[[X]] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.neg %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.abs %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.sqrt %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.rsqrt %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.reciprocal %[[X]] {vec_tile = #pto.vec_tile<[1, 4, 16, 16]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.log %[[X]] : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.log %[[X]] {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.tanh %[[X]] {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %e = pto.exp %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %e2 = pto.exp %t {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %ng = pto.neg %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %ab = pto.abs %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %sq = pto.sqrt %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %rs = pto.rsqrt %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %rc = pto.reciprocal %t {vec_tile = #pto.vec_tile<[1, 4, 16, 16]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %lg = pto.log %t : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %lgh = pto.log %t {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  %th = pto.tanh %t {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xf16>
  // neg and abs also take integers.
  // CHECK: %[[N:.*]] = pto.view %n
  // CHECK: pto.neg %[[N]] : !pto.tile<64x64xi16> -> !pto.tile<64x64xi16>
  // CHECK: pto.abs %[[N]] : !pto.tile<64x64xi16> -> !pto.tile<64x64xi16>
  %tn = pto.view %n[0, 0] : !pto.tensor<64x64xi16> -> !pto.tile<64x64xi16>
  %ngi = pto.neg %tn : !pto.tile<64x64xi16> -> !pto.tile<64x64xi16>
  %abi = pto.abs %tn : !pto.tile<64x64xi16> -> !pto.tile<64x64xi16>
  pto.return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @reductions(
pto.kernel @reductions(%x: !pto.tensor<2x128x64xf32>, %h: !pto.tensor<64x64xf16>) {
  // CHECK: %[[X:.*]] = pto.view %x
  %t = pto.view %x[0, 0, 0] : !pto.tensor<2x128x64xf32> -> !pto.tile<2x128x64xf32>
  // CHECK: pto.sum %[[X]] dim = 2 keepdim : !pto.tile<2x128x64xf32> -> !pto.tile<2x128x1xf32>
  // CHECK: pto.sum %[[X]] dim = 0 : !pto.tile<2x128x64xf32> -> !pto.tile<128x64xf32>
  // CHECK: pto.amax %[[X]] dim = 1 keepdim {vec_tile = #pto.vec_tile<[1, 128, 64]>} : !pto.tile<2x128x64xf32> -> !pto.tile<2x1x64xf32>
  // CHECK: pto.amax %[[X]] dim = 2 {vec_tile = #pto.vec_tile<[2, 4, 16, 8]>} : !pto.tile<2x128x64xf32> -> !pto.tile<2x128xf32>
  %s0 = pto.sum %t dim = 2 keepdim : !pto.tile<2x128x64xf32> -> !pto.tile<2x128x1xf32>
  %s1 = pto.sum %t dim = 0 : !pto.tile<2x128x64xf32> -> !pto.tile<128x64xf32>
  %a0 = pto.amax %t dim = 1 keepdim {vec_tile = #pto.vec_tile<[1, 128, 64]>} : !pto.tile<2x128x64xf32> -> !pto.tile<2x1x64xf32>
  %a1 = pto.amax %t dim = 2 {vec_tile = #pto.vec_tile<[2, 4, 16, 8]>} : !pto.tile<2x128x64xf32> -> !pto.tile<2x128xf32>
  // amax also takes f16.
  // CHECK: pto.amax %{{.*}} dim = 0 : !pto.tile<64x64xf16> -> !pto.tile<64xf16>
  %th = pto.view %h[0, 0] : !pto.tensor<64x64xf16> -> !pto.tile<64x64xf16>
  %a2 = pto.amax %th dim = 0 : !pto.tile<64x64xf16> -> !pto.tile<64xf16>
  pto.return
}

//===----------------------------------------------------------------------===//
// pto.cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @casts(
pto.kernel @casts(%x: !pto.tensor<64x64xf32>, %b: !pto.tensor<64x64xbf16>,
                  %i: !pto.tensor<64x64xi64>) {
  // CHECK: %[[X:.*]] = pto.view %x
  // CHECK: %[[B:.*]] = pto.view %b
  // CHECK: %[[I:.*]] = pto.view %i
  %tx = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %tb = pto.view %b[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
  %ti = pto.view %i[0, 0] : !pto.tensor<64x64xi64> -> !pto.tile<64x64xi64>
  // NONE (the default) is not printed.
  // CHECK: pto.cast %[[X]] : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  // CHECK: pto.cast %[[X]] : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<RINT>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<ROUND>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<ODD>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<FLOOR>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xi32>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<CEIL>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<TRUNC>, vec_tile = #pto.vec_tile<[64, 8]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xi16>
  // CHECK: pto.cast %[[B]] : !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  // CHECK: pto.cast %[[B]] {mode = #pto.round_mode<ROUND>} : !pto.tile<64x64xbf16> -> !pto.tile<64x64xi32>
  // CHECK: pto.cast %[[I]] {mode = #pto.round_mode<RINT>} : !pto.tile<64x64xi64> -> !pto.tile<64x64xf32>
  %c0 = pto.cast %tx : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  %c1 = pto.cast %tx {mode = #pto.round_mode<NONE>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  %c2 = pto.cast %tx {mode = #pto.round_mode<RINT>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xbf16>
  %c3 = pto.cast %tx {mode = #pto.round_mode<ROUND>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  %c4 = pto.cast %tx {mode = #pto.round_mode<ODD>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf16>
  %c5 = pto.cast %tx {mode = #pto.round_mode<FLOOR>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xi32>
  %c6 = pto.cast %tx {mode = #pto.round_mode<CEIL>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  %c7 = pto.cast %tx {mode = #pto.round_mode<TRUNC>, vec_tile = #pto.vec_tile<[64, 8]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xi16>
  %c8 = pto.cast %tb : !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
  %c9 = pto.cast %tb {mode = #pto.round_mode<ROUND>} : !pto.tile<64x64xbf16> -> !pto.tile<64x64xi32>
  %c10 = pto.cast %ti {mode = #pto.round_mode<RINT>} : !pto.tile<64x64xi64> -> !pto.tile<64x64xf32>
  pto.return
}

// PyPTO's SaturationMode: OFF (the default) is not printed.
// CHECK-LABEL: pto.kernel @saturating_casts(
pto.kernel @saturating_casts(%h: !pto.tensor<64x64xf16>) {
  %th = pto.view %h[0, 0] : !pto.tensor<64x64xf16> -> !pto.tile<64x64xf16>
  // CHECK: pto.cast %{{.*}} {mode = #pto.round_mode<TRUNC>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xi8>
  // CHECK: pto.cast %{{.*}} {mode = #pto.round_mode<TRUNC>, satmode = #pto.sat_mode<ON>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xi8>
  %w = pto.cast %th {mode = #pto.round_mode<TRUNC>, satmode = #pto.sat_mode<OFF>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xi8>
  %s = pto.cast %th {mode = #pto.round_mode<TRUNC>, satmode = #pto.sat_mode<ON>} : !pto.tile<64x64xf16> -> !pto.tile<64x64xi8>
  pto.return
}

//===----------------------------------------------------------------------===//
// pto.full, pto.scope, pto.atomic_add, pto.assemble
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @scopes_and_stores(
pto.kernel @scopes_and_stores(%x: !pto.tensor<?x64xf32>, %out: !pto.tensor<?x64xf32>,
                              %small: !pto.tensor<8x64xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: %[[V:.*]] = pto.view %x
  %v = pto.view %x[%c0, 0] : !pto.tensor<?x64xf32> -> !pto.tile<8x64xf32>
  // CHECK: %[[F:.*]] = pto.full 0.000000e+00 : !pto.tile<8x64xf32>
  // CHECK: %[[G:.*]] = pto.full -1.500000e+00 {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x1xf32>
  %f = pto.full 0.0 : !pto.tile<8x64xf32>
  %g = pto.full -1.5 {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x1xf32>
  // A scope with both flags and two results.
  // CHECK: %[[S:.*]]:2 = pto.scope #pto.scope<id = 0, allow_parallel_merge = true, allow_cross_scope_merge = true> -> (!pto.tile<8x64xf32>, !pto.tile<8x64xf32>) {
  // CHECK:   %[[E:.*]] = pto.exp %[[V]]
  // CHECK:   %[[A:.*]] = pto.add %[[E]], %[[G]]
  // CHECK:   pto.yield %[[E]], %[[A]] : !pto.tile<8x64xf32>, !pto.tile<8x64xf32>
  // CHECK: }
  %s:2 = pto.scope #pto.scope<id = 0, allow_parallel_merge = true, allow_cross_scope_merge = true> -> (!pto.tile<8x64xf32>, !pto.tile<8x64xf32>) {
    %e = pto.exp %v : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    %a = pto.add %e, %g : !pto.tile<8x64xf32>, !pto.tile<8x1xf32> -> !pto.tile<8x64xf32>
    pto.yield %e, %a : !pto.tile<8x64xf32>, !pto.tile<8x64xf32>
  }
  // A second scope of the same id with the same flags; default flags print
  // nothing; a scope without results prints no terminator.
  // CHECK: pto.scope #pto.scope<id = 0, allow_parallel_merge = true, allow_cross_scope_merge = true> {
  // CHECK:   pto.atomic_add %[[S]]#1, %out [%{{.*}}, 0] : !pto.tile<8x64xf32>, !pto.tensor<?x64xf32>
  // CHECK-NEXT: }
  pto.scope #pto.scope<id = 0, allow_parallel_merge = true, allow_cross_scope_merge = true> {
    pto.atomic_add %s#1, %out[%c0, 0] : !pto.tile<8x64xf32>, !pto.tensor<?x64xf32>
  }
  // CHECK: pto.scope #pto.scope<id = 7> {
  // CHECK:   pto.assemble %[[S]]#0, %small [0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  // CHECK-NEXT: }
  pto.scope #pto.scope<id = 7, allow_parallel_merge = false> {
    pto.assemble %s#0, %small[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  }
  // CHECK: pto.scope #pto.scope<id = 8, allow_cross_scope_merge = true> -> (!pto.tile<8x64xf32>) {
  // CHECK:   pto.yield %[[F]] : !pto.tile<8x64xf32>
  %t = pto.scope #pto.scope<id = 8, allow_cross_scope_merge = true> -> (!pto.tile<8x64xf32>) {
    pto.yield %f : !pto.tile<8x64xf32>
  }
  // CHECK: pto.atomic_add %[[F]], %small [7, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  // CHECK: pto.assemble %[[F]], %out [%{{.*}}, 0] : !pto.tile<8x64xf32>, !pto.tensor<?x64xf32>
  pto.atomic_add %f, %small[7, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  pto.assemble %f, %out[%c0, 0] : !pto.tile<8x64xf32>, !pto.tensor<?x64xf32>
  pto.return
}

//===----------------------------------------------------------------------===//
// DAV_3510: bf16 arithmetic, HIGH_PRECISION, fp8, mixed cube/vector scopes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @dav3510(
// CHECK-SAME:    attributes {arch = #pto.arch<DAV_3510>}
pto.kernel @dav3510(%a: !pto.tensor<128x128xf8E4M3FN>, %b: !pto.tensor<128x128xf8E5M2>,
                    %x: !pto.tensor<128x128xbf16>, %i: !pto.tensor<128x128xi8>)
    attributes {arch = #pto.arch<DAV_3510>} {
  // CHECK: %[[A:.*]] = pto.view %a
  // CHECK: %[[B:.*]] = pto.view %b
  // CHECK: %[[X:.*]] = pto.view %x
  %ta = pto.view %a[0, 0] : !pto.tensor<128x128xf8E4M3FN> -> !pto.tile<128x128xf8E4M3FN>
  %tb = pto.view %b[0, 0] : !pto.tensor<128x128xf8E5M2> -> !pto.tile<128x128xf8E5M2>
  %tx = pto.view %x[0, 0] : !pto.tensor<128x128xbf16> -> !pto.tile<128x128xbf16>
  // fp8 x fp8 (mixed formats) -> f32 / bf16.
  // CHECK: pto.matmul %[[A]], %[[B]] {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf8E4M3FN>, !pto.tile<128x128xf8E5M2> -> !pto.tile<128x128xf32>
  // CHECK: pto.matmul %[[A]], %[[A]] {b_trans, cube_tile = #pto.cube_tile<m = [32, 128], k = [64, 128], n = [32, 128]>} : !pto.tile<128x128xf8E4M3FN>, !pto.tile<128x128xf8E4M3FN> -> !pto.tile<128x128xbf16>
  %mm = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>}
      : !pto.tile<128x128xf8E4M3FN>, !pto.tile<128x128xf8E5M2> -> !pto.tile<128x128xf32>
  %mm2 = pto.matmul %ta, %ta {b_trans, cube_tile = #pto.cube_tile<m = [32, 128], k = [64, 128], n = [32, 128]>}
      : !pto.tile<128x128xf8E4M3FN>, !pto.tile<128x128xf8E4M3FN> -> !pto.tile<128x128xbf16>
  // bf16 arithmetic and HIGH_PRECISION (the default of div) are fine here.
  // CHECK: %[[ADD:.*]] = pto.add %[[X]], %[[X]] : !pto.tile<128x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  // CHECK: pto.div %[[ADD]], %[[X]] : !pto.tile<128x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  // CHECK: pto.exp %[[ADD]] {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  // CHECK: pto.sqrt %[[ADD]] : !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  %add = pto.add %tx, %tx : !pto.tile<128x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  %div = pto.div %add, %tx : !pto.tile<128x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  %exp = pto.exp %add {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  %sqrt = pto.sqrt %add : !pto.tile<128x128xbf16> -> !pto.tile<128x128xbf16>
  // 950-only casts.
  // CHECK: %[[F8:.*]] = pto.cast %{{.*}} {mode = #pto.round_mode<ROUND>} : !pto.tile<128x128xf32> -> !pto.tile<128x128xf8E4M3FN>
  // CHECK: pto.cast %[[F8]] : !pto.tile<128x128xf8E4M3FN> -> !pto.tile<128x128xf16>
  // CHECK: pto.cast %[[X]] {mode = #pto.round_mode<FLOOR>} : !pto.tile<128x128xbf16> -> !pto.tile<128x128xf16>
  %f8 = pto.cast %mm {mode = #pto.round_mode<ROUND>} : !pto.tile<128x128xf32> -> !pto.tile<128x128xf8E4M3FN>
  %h = pto.cast %f8 : !pto.tile<128x128xf8E4M3FN> -> !pto.tile<128x128xf16>
  %h2 = pto.cast %tx {mode = #pto.round_mode<FLOOR>} : !pto.tile<128x128xbf16> -> !pto.tile<128x128xf16>
  // amax on i8.
  // CHECK: pto.amax %{{.*}} dim = 1 keepdim : !pto.tile<128x128xi8> -> !pto.tile<128x1xi8>
  %ti = pto.view %i[0, 0] : !pto.tensor<128x128xi8> -> !pto.tile<128x128xi8>
  %am = pto.amax %ti dim = 1 keepdim : !pto.tile<128x128xi8> -> !pto.tile<128x1xi8>
  // A scope mixing cube and vector ops (MIX subgraph).
  // CHECK: pto.scope #pto.scope<id = 1> -> (!pto.tile<128x128xf32>) {
  // CHECK:   %[[MM:.*]] = pto.matmul %[[A]], %[[B]]
  // CHECK:   %[[E:.*]] = pto.exp %[[MM]]
  // CHECK:   pto.yield %[[E]] : !pto.tile<128x128xf32>
  %mix = pto.scope #pto.scope<id = 1> -> (!pto.tile<128x128xf32>) {
    %m = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>}
        : !pto.tile<128x128xf8E4M3FN>, !pto.tile<128x128xf8E5M2> -> !pto.tile<128x128xf32>
    %e = pto.exp %m : !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
    pto.yield %e : !pto.tile<128x128xf32>
  }
  pto.return
}

// A 256 KiB L0C fits DAV_3510, not DAV_2201 (invalid.mlir): the matmul
// verifier asks for the kernel's architecture when a cube tile does not fit
// every architecture.
// CHECK-LABEL: pto.kernel @dav3510_l0c(
// CHECK: pto.matmul
pto.kernel @dav3510_l0c(%x: !pto.tensor<256x256xbf16>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %t = pto.view %x[0, 0] : !pto.tensor<256x256xbf16> -> !pto.tile<256x256xbf16>
  %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [256, 256], k = [64, 64], n = [256, 256]>}
      : !pto.tile<256x256xbf16>, !pto.tile<256x256xbf16> -> !pto.tile<256x256xf32>
}

//===----------------------------------------------------------------------===//
// Tile-graph level: pto.workspace, pto.matmul_acc, pto.valid_dim, pto.task,
// pto.launch / pto.root_call with func.func callees, !pto.token,
// #pto.stitch_plan
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pto.kernel @tile_graph(
pto.kernel @tile_graph(%a: !pto.tensor<32x64xbf16>, %b: !pto.tensor<64x32xbf16>,
                       %ai: !pto.tensor<32x64xi8>, %out: !pto.tensor<32x32xf32>) {
  // CHECK: %[[WS:.*]] = pto.workspace : !pto.tensor<32x32xf32>
  // CHECK: %[[WSI:.*]] = pto.workspace : !pto.tensor<32x32xi32>
  %ws = pto.workspace : !pto.tensor<32x32xf32>
  %wsi = pto.workspace : !pto.tensor<32x32xi32>
  // K steps on f32 (bf16 inputs) and i32 (i8 inputs) accumulators.
  // CHECK: pto.task #pto.core<cube> "C1" {
  // CHECK:   %[[P:.*]] = pto.matmul
  // CHECK:   %[[Q:.*]] = pto.matmul_acc %[[P]], %{{.*}}, %{{.*}} {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 64], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
  // CHECK:   pto.assemble %[[Q]], %[[WS]] [0, 0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  // CHECK:   %[[PI:.*]] = pto.matmul
  // CHECK:   pto.matmul_acc %[[PI]], %{{.*}}, %{{.*}} {b_trans, cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xi32>, !pto.tile<32x32xi8>, !pto.tile<32x32xi8> -> !pto.tile<32x32xi32>
  // CHECK: }
  pto.task #pto.core<cube> "C1" {
    %a0 = pto.view %a[0, 0] : !pto.tensor<32x64xbf16> -> !pto.tile<32x32xbf16>
    %b0 = pto.view %b[0, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<32x32xbf16>
    %a1 = pto.view %a[0, 32] : !pto.tensor<32x64xbf16> -> !pto.tile<32x32xbf16>
    %b1 = pto.view %b[32, 0] : !pto.tensor<64x32xbf16> -> !pto.tile<32x32xbf16>
    %p = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 64], n = [32, 32]>}
        : !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
    %q = pto.matmul_acc %p, %a1, %b1 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 64], n = [32, 32]>}
        : !pto.tile<32x32xf32>, !pto.tile<32x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
    pto.assemble %q, %ws[0, 0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
    %ti = pto.view %ai[0, 0] : !pto.tensor<32x64xi8> -> !pto.tile<32x32xi8>
    %ti1 = pto.view %ai[0, 32] : !pto.tensor<32x64xi8> -> !pto.tile<32x32xi8>
    %pi = pto.matmul %ti, %ti1 {b_trans, cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
        : !pto.tile<32x32xi8>, !pto.tile<32x32xi8> -> !pto.tile<32x32xi32>
    %qi = pto.matmul_acc %pi, %ti, %ti1 {b_trans, cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>}
        : !pto.tile<32x32xi32>, !pto.tile<32x32xi8>, !pto.tile<32x32xi8> -> !pto.tile<32x32xi32>
    pto.assemble %qi, %wsi[0, 0] : !pto.tile<32x32xi32>, !pto.tensor<32x32xi32>
  }
  // A vector task with a scope; pto.valid_dim.
  // CHECK: pto.task #pto.core<vector> "V1" {
  // CHECK:   %[[T:.*]] = pto.view %[[WS]][0, 0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
  // CHECK:   %[[ROWS:.*]] = pto.valid_dim %[[T]], 0 : !pto.tile<32x32xf32>
  // CHECK:   pto.view %[[T]][0, 0] valid [%[[ROWS]], 16] : !pto.tile<32x32xf32> -> !pto.tile<32x16xf32>
  // CHECK: } {scope = #pto.scope<id = 1>}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %ws[0, 0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
    %rows = pto.valid_dim %t, 0 : !pto.tile<32x32xf32>
    %u = pto.view %t[0, 0] valid [%rows, 16] : !pto.tile<32x32xf32> -> !pto.tile<32x16xf32>
    %e = pto.exp %u : !pto.tile<32x16xf32> -> !pto.tile<32x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<32x16xf32>, !pto.tensor<32x32xf32>
  } {scope = #pto.scope<id = 1>}
  // A task yielding a value.
  // CHECK: %{{.*}} = pto.task #pto.core<vector> "V2" -> (!pto.tile<32x32xf32>) {
  // CHECK:   pto.yield %{{.*}} : !pto.tile<32x32xf32>
  // CHECK: }
  %y = pto.task #pto.core<vector> "V2" -> (!pto.tile<32x32xf32>) {
    %t = pto.view %ws[0, 0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
    pto.yield %t : !pto.tile<32x32xf32>
  }
  // Root calls, with and without a stitch plan.
  // CHECK: pto.root_call @tg_root(%[[WS]], %out) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 32768, launches = 3, mode = "count">} : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> ()
  // CHECK: pto.root_call @tg_root(%[[WS]], %out) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> ()
  pto.root_call @tg_root(%ws, %out) {stitch = #pto.stitch_plan<depth = 128, workspace_bytes = 32768, launches = 3, mode = "count">}
      : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> ()
  pto.root_call @tg_root(%ws, %out) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> ()
}

// CHECK-LABEL: func.func private @tg_leaf(
// CHECK-SAME:    !pto.tensor<32x32xf32>) attributes {pto.family = "C1", pto.leaf = #pto.core<cube>}
func.func private @tg_leaf(%ws: !pto.tensor<32x32xf32>) attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  return
}
// CHECK-LABEL: func.func private @tg_leaf2(
func.func private @tg_leaf2(%ws: !pto.tensor<32x32xf32>, %out: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  return
}
// CHECK-LABEL: func.func private @tg_root(
// CHECK-SAME:    %[[W:.*]]: !pto.tensor<32x32xf32>, %[[O:.*]]: !pto.tensor<32x32xf32>) attributes {pto.root} {
// CHECK-NEXT:    pto.workspace : !pto.tensor<16x16xf32>
// CHECK-NEXT:    %[[T0:.*]] = pto.launch @tg_leaf(%[[W]]) : (!pto.tensor<32x32xf32>) -> !pto.token
// CHECK-NEXT:    %[[T1:.*]] = pto.launch @tg_leaf(%[[W]]) after[%[[T0]]] : (!pto.tensor<32x32xf32>) -> !pto.token
// CHECK-NEXT:    pto.launch @tg_leaf2(%[[W]], %[[O]]) after[%[[T0]], %[[T1]]] : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> !pto.token
// CHECK-NEXT:    return
func.func private @tg_root(%ws: !pto.tensor<32x32xf32>, %out: !pto.tensor<32x32xf32>) attributes {pto.root} {
  %local = pto.workspace : !pto.tensor<16x16xf32>
  %t0 = pto.launch @tg_leaf(%ws) : (!pto.tensor<32x32xf32>) -> !pto.token
  %t1 = pto.launch @tg_leaf(%ws) after [%t0] : (!pto.tensor<32x32xf32>) -> !pto.token
  %t2 = pto.launch @tg_leaf2(%ws, %out) after [%t0, %t1]
      : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> !pto.token
  return
}

// A MIX task (cube and vector ops in one task) on DAV_3510.
// CHECK-LABEL: pto.kernel @mix_task(
// CHECK:         pto.task #pto.core<mix> "M1" {
// CHECK:           pto.matmul
// CHECK:           pto.exp
pto.kernel @mix_task(%a: !pto.tensor<16x16xbf16>, %out: !pto.tensor<16x16xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  pto.task #pto.core<mix> "M1" {
    %t = pto.view %a[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
    %m = pto.matmul %t, %t {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
        : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
    %e = pto.exp %m : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}

//===----------------------------------------------------------------------===//
// Ops outside a kernel take the arch from an enclosing `pto.arch` attribute.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module attributes {pto.arch = #pto.arch<DAV_3510>}
// CHECK: func.func @outside_kernel(%[[T:.*]]: !pto.tile<16x16xbf16>) -> !pto.tile<16x16xbf16>
// CHECK:   %[[R:.*]] = pto.mul %[[T]], %[[T]] : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xbf16>
// CHECK:   return %[[R]] : !pto.tile<16x16xbf16>
module attributes {pto.arch = #pto.arch<DAV_3510>} {
  func.func @outside_kernel(%t: !pto.tile<16x16xbf16>) -> !pto.tile<16x16xbf16> {
    %r = pto.mul %t, %t : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xbf16>
    return %r : !pto.tile<16x16xbf16>
  }
}

// A reduction's vector tile is clamped to the tile before the 64 KiB check:
// [1024, 128] over [16, 128] f32 is 8 KiB.
// CHECK-LABEL: func.func @reduce_tile_clamped
// CHECK: pto.sum %{{.*}} dim = 1 keepdim {vec_tile = #pto.vec_tile<[1024, 128]>}
func.func @reduce_tile_clamped(%a: !pto.tile<16x128xf32>) -> !pto.tile<16x1xf32> {
  %r = pto.sum %a dim = 1 keepdim {vec_tile = #pto.vec_tile<[1024, 128]>} : !pto.tile<16x128xf32> -> !pto.tile<16x1xf32>
  return %r : !pto.tile<16x1xf32>
}

// pto.transpose: 2-D (bf16 moves on DAV_2201: data movement, not arithmetic)
// and a middle pair of a 3-D tile, with a vector tile.
// CHECK-LABEL: func.func @transpose
// CHECK: pto.transpose %{{.*}}, 0, 1 : !pto.tile<64x128xbf16> -> !pto.tile<128x64xbf16>
// CHECK: pto.transpose %{{.*}}, 1, 2 {vec_tile = #pto.vec_tile<[4, 8, 16]>} : !pto.tile<4x8x16xf32> -> !pto.tile<4x16x8xf32>
func.func @transpose(%a: !pto.tile<64x128xbf16>, %b: !pto.tile<4x8x16xf32>) -> (!pto.tile<128x64xbf16>, !pto.tile<4x16x8xf32>) {
  %t = pto.transpose %a, 0, 1 : !pto.tile<64x128xbf16> -> !pto.tile<128x64xbf16>
  %u = pto.transpose %b, 1, 2 {vec_tile = #pto.vec_tile<[4, 8, 16]>} : !pto.tile<4x8x16xf32> -> !pto.tile<4x16x8xf32>
  return %t, %u : !pto.tile<128x64xbf16>, !pto.tile<4x16x8xf32>
}

// pto.gathermask: the even elements of a bf16 row, the fourth of every four
// of a 3-D f32 tile (with a vector tile), and pattern 7 (all).
// CHECK-LABEL: func.func @gathermask
// CHECK: pto.gathermask %{{.*}}, pattern = 1 : !pto.tile<16x64xbf16> -> !pto.tile<16x32xbf16>
// CHECK: pto.gathermask %{{.*}}, pattern = 6 {vec_tile = #pto.vec_tile<[1, 8, 64]>} : !pto.tile<2x8x64xf32> -> !pto.tile<2x8x16xf32>
// CHECK: pto.gathermask %{{.*}}, pattern = 7 : !pto.tile<16x64xbf16> -> !pto.tile<16x64xbf16>
func.func @gathermask(%a: !pto.tile<16x64xbf16>, %b: !pto.tile<2x8x64xf32>) -> (!pto.tile<16x32xbf16>, !pto.tile<2x8x16xf32>, !pto.tile<16x64xbf16>) {
  %e = pto.gathermask %a, pattern = 1 : !pto.tile<16x64xbf16> -> !pto.tile<16x32xbf16>
  %f = pto.gathermask %b, pattern = 6 {vec_tile = #pto.vec_tile<[1, 8, 64]>} : !pto.tile<2x8x64xf32> -> !pto.tile<2x8x16xf32>
  %g = pto.gathermask %a, pattern = 7 : !pto.tile<16x64xbf16> -> !pto.tile<16x64xbf16>
  return %e, %f, %g : !pto.tile<16x32xbf16>, !pto.tile<2x8x16xf32>, !pto.tile<16x64xbf16>
}

// pto.index_put: written and accumulated, static and dynamic offsets

// CHECK-LABEL: pto.kernel @index_put
pto.kernel @index_put(%out: !pto.tensor<?x16xf32>, %src: !pto.tensor<?x16xf32>,
                      %idx: !pto.tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  // CHECK: %[[V:.*]] = pto.view %src
  // CHECK: %[[I:.*]] = pto.view %idx
  %v = pto.view %src[%c0, 0] : !pto.tensor<?x16xf32> -> !pto.tile<8x16xf32>
  %i = pto.view %idx[%c0] : !pto.tensor<?xi32> -> !pto.tile<8xi32>
  // CHECK: pto.index_put %[[V]], %out[%[[I]]] [0, 0] accumulate {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  pto.index_put %v, %out[%i] [0, 0] accumulate {vec_tile = #pto.vec_tile<[8]>} : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  // CHECK: pto.index_put %[[V]], %out[%[[I]]] [%{{.*}}, 0] : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  pto.index_put %v, %out[%i] [%c0, 0] : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
}

// pto.arange: an i32 sequence cut by a 1-D vector tile, an f32 one of step -0.5.

// CHECK-LABEL: func.func @arange
func.func @arange() -> (!pto.tile<128xi32>, !pto.tile<6xf32>) {
  // CHECK: pto.arange 0.000000e+00, 1.000000e+00 {vec_tile = #pto.vec_tile<[64]>} : !pto.tile<128xi32>
  %a = pto.arange 0.0, 1.0 {vec_tile = #pto.vec_tile<[64]>} : !pto.tile<128xi32>
  // CHECK: pto.arange 4.000000e+00, -5.000000e-01 : !pto.tile<6xf32>
  %b = pto.arange 4.0, -0.5 : !pto.tile<6xf32>
  return %a, %b : !pto.tile<128xi32>, !pto.tile<6xf32>
}

// pto.bitcast (PyPTO's view(x, dtype=)): an f32 row read as its 32 bytes, an
// i8 row read back as f32, bf16 as i16 (same width) and a 3-D tile with a
// vector tile.
// CHECK-LABEL: func.func @bitcast
// CHECK: pto.bitcast %{{.*}} : !pto.tile<4x8xf32> -> !pto.tile<4x32xi8>
// CHECK: pto.bitcast %{{.*}} : !pto.tile<4x32xi8> -> !pto.tile<4x8xf32>
// CHECK: pto.bitcast %{{.*}} : !pto.tile<16x64xbf16> -> !pto.tile<16x64xi16>
// CHECK: pto.bitcast %{{.*}} {vec_tile = #pto.vec_tile<[1, 8, 16]>} : !pto.tile<2x8x16xf32> -> !pto.tile<2x8x32xf16>
func.func @bitcast(%a: !pto.tile<4x8xf32>, %b: !pto.tile<16x64xbf16>, %c: !pto.tile<2x8x16xf32>) -> (!pto.tile<4x8xf32>, !pto.tile<16x64xi16>, !pto.tile<2x8x32xf16>) {
  %bytes = pto.bitcast %a : !pto.tile<4x8xf32> -> !pto.tile<4x32xi8>
  %back = pto.bitcast %bytes : !pto.tile<4x32xi8> -> !pto.tile<4x8xf32>
  %bits = pto.bitcast %b : !pto.tile<16x64xbf16> -> !pto.tile<16x64xi16>
  %halves = pto.bitcast %c {vec_tile = #pto.vec_tile<[1, 8, 16]>} : !pto.tile<2x8x16xf32> -> !pto.tile<2x8x32xf16>
  return %back, %bits, %halves : !pto.tile<4x8xf32>, !pto.tile<16x64xi16>, !pto.tile<2x8x32xf16>
}
