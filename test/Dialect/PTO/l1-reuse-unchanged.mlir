// pto-l1-reuse leaves IR alone when there is nothing to merge: kernels
// without tasks (the program-level SK-16 too), with vector or MIX tasks only,
// a single cube task, cube tasks that yield values.
//
// RUN: pto-opt %s -split-input-file > %t.before.mlir
// RUN: pto-opt %s -split-input-file -pto-l1-reuse=report=true > %t.after.mlir 2> %t.remarks
// RUN: diff %t.before.mlir %t.after.mlir
// RUN: FileCheck %s --input-file %t.remarks
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir > %t.sk16.before.mlir
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir -pto-l1-reuse > %t.sk16.after.mlir
// RUN: diff %t.sk16.before.mlir %t.sk16.after.mlir

// CHECK: remark: pto-l1-reuse @no_tasks: GM->L1 bytes per block instance: before 0, after 0 (saved 0.0%)
pto.kernel @no_tasks(%x: !pto.tensor<16x16xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %n = pto.neg %t {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %n, %x[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
}

// -----

// CHECK: remark: pto-l1-reuse @vector_only: GM->L1 bytes per block instance: before 0, after 0 (saved 0.0%)
pto.kernel @vector_only(%x: !pto.tensor<32x16xf32>) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 4}>} {
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !pto.tensor<32x16xf32> -> !pto.tile<16x16xf32>
    %n = pto.neg %t {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %n, %x[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !pto.tensor<32x16xf32> -> !pto.tile<16x16xf32>
    %n = pto.neg %t {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %n, %x[16, 0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  }
}

// -----

// MIX tasks (DAV_3510) are not cube tasks.
!A = !pto.tensor<16x16xbf16>
!C = !pto.tensor<16x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK: remark: pto-l1-reuse @mix_only: GM->L1 bytes per block instance: before 0, after 0 (saved 0.0%)
pto.kernel @mix_only(%a: !A, %c: !C) attributes {arch = #pto.arch<DAV_3510>,
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 4}>} {
  pto.task #pto.core<mix> "M1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    %n = pto.neg %p {vec_tile = #pto.vec_tile<[16, 16]>} : !R -> !R
    pto.assemble %n, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<mix> "M1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    %n = pto.neg %p {vec_tile = #pto.vec_tile<[16, 16]>} : !R -> !R
    pto.assemble %n, %c[0, 16] : !R, !C
  }
}

// -----

// One cube task: nothing to share with.
!A = !pto.tensor<16x16xbf16>
!C = !pto.tensor<16x16xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK: remark: pto-l1-reuse: group 0 (1 x "C1"): merge count 4 (cube_l1_reuse_setting), 1 tasks after, 0 loads removed (0 B)
// CHECK: remark: pto-l1-reuse @single: GM->L1 bytes per block instance: before 1024, after 1024 (saved 0.0%)
pto.kernel @single(%a: !A, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 4}>} {
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
}

// -----

// Cube tasks yielding values are never moved.
!A = !pto.tensor<16x16xbf16>
!C = !pto.tensor<16x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK: remark: pto-l1-reuse: group 0 (2 x "C1"): merge count 4 (cube_l1_reuse_setting), 2 tasks after, 0 loads removed (0 B)
pto.kernel @results(%a: !A, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 4}>} {
  %r0 = pto.task #pto.core<cube> "C1" -> (!R) {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.yield %p : !R
  }
  %r1 = pto.task #pto.core<cube> "C1" -> (!R) {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.yield %p : !R
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.add %r0, %r1 {vec_tile = #pto.vec_tile<[16, 16]>} : !R, !R -> !R
    pto.assemble %s, %c[0, 0] : !R, !C
  }
}
