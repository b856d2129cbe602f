// RUN: pto-opt %s -split-input-file -pto-nbuffer-merge=report=true -verify-diagnostics | FileCheck %s

// pto-nbuffer-merge on hand-partitioned IR (docs/TileGraph.md): N isomorphic
// vector tasks of a block become one task whose body is theirs in program
// order (vec_nbuffer_setting; automatic: floor(group size / vector cores)).

!X = !pto.tensor<64x32xf32>
!T = !pto.tile<16x32xf32>

// `{-1 : 2}`: four row pieces of y = 2x merge two at a time, in order.
// CHECK-LABEL: pto.kernel @pairs(
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x[0, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %y [0, 0]
// CHECK-NEXT:      pto.view %x[16, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %y [16, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x[32, 0]
// CHECK:           pto.assemble {{.*}} %y [48, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{pto-nbuffer-merge @pairs: vector tasks per block instance: before 4, after 2}}
pto.kernel @pairs(%x: !X, %y: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 2}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (4 x "V1"): merge count 2 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[16, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[32, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[32, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[48, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[48, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<64x32xf32>
!T = !pto.tile<16x32xf32>

// `{-1 : 1}` switches the pass off; without a setting the choice is
// automatic: 2 tasks on 48 vector cores stay apart.
// CHECK-LABEL: pto.kernel @off(
// CHECK-COUNT-2: pto.task #pto.core<vector>
// expected-remark@+1 {{vector tasks per block instance: before 2, after 2}}
pto.kernel @off(%x: !X, %y: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 1}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (2 x "V1"): merge count 1 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[16, 0] : !T, !X
  }
}

// CHECK-LABEL: pto.kernel @automatic(
// CHECK-COUNT-2: pto.task #pto.core<vector>
// expected-remark@+1 {{vector tasks per block instance: before 2, after 2}}
pto.kernel @automatic(%x: !X, %y: !X) {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (2 x "V1"): merge count 1 (automatic: 48 vector cores), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[16, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<64x32xf32>
!T = !pto.tile<16x32xf32>

// Keys per group (numbered by first appearance): group 0 (mul) by 2, group
// 1 (add, interleaved) stays. A task joins the earliest target with room:
// the third mul moves up past the add (it touches nothing the add touches),
// the fourth reads what the first wrote, so it goes with the third, which
// moves down to it.
// CHECK-LABEL: pto.kernel @groups(
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x[0, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %y [0, 0]
// CHECK-NEXT:      pto.view %x[16, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %y [16, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V2" {
// CHECK-NEXT:      pto.view %y[0, 0]
// CHECK:         pto.task #pto.core<vector> "V2" {
// CHECK-NEXT:      pto.view %y[16, 0]
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x[32, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %y [32, 0]
// CHECK-NEXT:      pto.view %y[0, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.assemble {{.*}} %x [48, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{vector tasks per block instance: before 6, after 4}}
pto.kernel @groups(%x: !X, %y: !X, %z: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {0 : 2, 1 : 1, -1 : 4}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (4 x "V1"): merge count 2 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  // expected-remark@+1 {{group 1 (2 x "V2"): merge count 1 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V2" {
    %t = pto.view %y[0, 0] : !X -> !T
    %u = pto.add %t, %t : !T, !T -> !T
    pto.assemble %u, %z[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[16, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[32, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[32, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V2" {
    %t = pto.view %y[16, 0] : !X -> !T
    %u = pto.add %t, %t : !T, !T -> !T
    pto.assemble %u, %z[16, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %y[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %x[48, 0] : !T, !X
  }
}

// A task that reads what the other wrote conflicts with it: no merge.
// CHECK-LABEL: pto.kernel @conflict(
// CHECK-COUNT-2: pto.task
// expected-remark@+1 {{vector tasks per block instance: before 2, after 2}}
pto.kernel @conflict(%x: !X, %y: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 4}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (2 x "V1"): merge count 4 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %y[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %x[48, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<64x32xf32>
!T = !pto.tile<16x32xf32>

// The second task would have to move past a task that reads what it writes
// (and the first past one that overwrites what it reads): no merge.
// CHECK-LABEL: pto.kernel @blocked(
// CHECK-COUNT-3: pto.task
// expected-remark@+1 {{vector tasks per block instance: before 3, after 3}}
pto.kernel @blocked(%x: !X, %y: !X, %z: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 4}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (2 x "V1"): merge count 4 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  // expected-remark@+1 {{group 1 (1 x "V3"): merge count 4 (vec_nbuffer_setting), 1 tasks after}}
  pto.task #pto.core<vector> "V3" {
    %t = pto.view %y[0, 0] : !X -> !T
    %s = pto.view %z[16, 0] : !X -> !T
    %u = pto.add %t, %s : !T, !T -> !T
    pto.assemble %u, %x[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %z[16, 0] : !T, !X
  }
}

// -----

// The first task cannot move down past the V2 task reading what it wrote,
// so later tasks move up to it (the second and third: nothing between them
// and it touches what they touch); the last reads what the second V2 task
// wrote, so it cannot move up past it and stays.
!X = !pto.tensor<64x32xf32>
!T = !pto.tile<16x32xf32>
// CHECK-LABEL: pto.kernel @up_only(
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x[0, 0]
// CHECK:           pto.assemble {{.*}} %y [0, 0]
// CHECK-NEXT:      pto.view %x[16, 0]
// CHECK:           pto.assemble {{.*}} %y [16, 0]
// CHECK-NEXT:      pto.view %x[32, 0]
// CHECK:           pto.assemble {{.*}} %y [32, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V2" {
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %z[16, 0]
// expected-remark@+1 {{vector tasks per block instance: before 6, after 3}}
pto.kernel @up_only(%x: !X, %y: !X, %z: !X) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 4}>} {
  %two = arith.constant 2.0 : f32
  // expected-remark@+1 {{group 0 (4 x "V1"): merge count 4 (vec_nbuffer_setting), 2 tasks after}}
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[0, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[0, 0] : !T, !X
  }
  // expected-remark@+1 {{group 1 (2 x "V2"): merge count 4 (vec_nbuffer_setting), 1 tasks after}}
  pto.task #pto.core<vector> "V2" {
    %t = pto.view %y[0, 0] : !X -> !T
    %u = pto.add %t, %t : !T, !T -> !T
    pto.assemble %u, %z[0, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[16, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V2" {
    %t = pto.view %y[16, 0] : !X -> !T
    %u = pto.add %t, %t : !T, !T -> !T
    pto.assemble %u, %z[16, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %x[32, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[32, 0] : !T, !X
  }
  pto.task #pto.core<vector> "V1" {
    %t = pto.view %z[16, 0] : !X -> !T
    %u = pto.mul %t, %two : !T, f32 -> !T
    pto.assemble %u, %y[48, 0] : !T, !X
  }
}

// -----

// No vector tasks: unchanged, no remark.
// CHECK-LABEL: pto.kernel @cube_only(
!A = !pto.tensor<16x16xbf16>
!C = !pto.tensor<16x16xf32>
!TA = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>
pto.kernel @cube_only(%a: !A, %c: !C) attributes {
    pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 4}>} {
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %p = pto.matmul %x, %x {cube_tile = #ct} : !TA, !TA -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
}
