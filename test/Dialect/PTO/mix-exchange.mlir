// RUN: pto-opt %s -split-input-file -pto-mix-exchange | FileCheck %s

// pto-mix-exchange on hand-partitioned IR (docs/TileGraph.md#on-chip-exchanges):
// on DAV_3510, a cube task storing matmul results into a workspace and the
// vector tasks reading them back become one MIX task (members' bodies in
// program order, at the last member's place); a workspace whose every
// piece is then written and read inside one MIX task is marked pto.on_chip.

!A = !pto.tensor<64x32xbf16>
!B = !pto.tensor<32x32xbf16>
!W = !pto.tensor<64x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>
#vt = #pto.vec_tile<[32, 32]>

// Two row pieces: each cube piece and the vector piece reading it pair up.
// CHECK-LABEL: pto.kernel @pairs(
// CHECK:         %[[WS:.*]] = pto.workspace {pto.on_chip} : !pto.tensor<64x32xf32>
// CHECK-NEXT:    pto.task #pto.core<mix> "M1" {
// CHECK-NEXT:      %[[X0:.*]] = pto.view %{{.*}}[0, 0]
// CHECK-NEXT:      %[[Y0:.*]] = pto.view %{{.*}}[0, 0]
// CHECK-NEXT:      %[[P0:.*]] = pto.matmul %[[X0]], %[[Y0]]
// CHECK-NEXT:      pto.assemble %[[P0]], %[[WS]] [0, 0]
// CHECK-NEXT:      %[[S0:.*]] = pto.view %[[WS]][0, 0]
// CHECK-NEXT:      %[[N0:.*]] = pto.neg %[[S0]]
// CHECK-NEXT:      pto.assemble %[[N0]], %{{.*}} [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<mix> "M1" {
// CHECK-NEXT:      pto.view %{{.*}}[32, 0]
// CHECK:           pto.assemble %{{.*}}, %[[WS]] [32, 0]
// CHECK-NEXT:      pto.view %[[WS]][32, 0]
// CHECK:         }
// CHECK-NOT:     pto.task
pto.kernel @pairs(%a: !A, %b: !B, %c: !W) attributes {arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[32, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[32, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %c[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[32, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %c[32, 0] : !R, !W
  }
}

// -----

!A = !pto.tensor<64x32xbf16>
!B = !pto.tensor<32x32xbf16>
!W = !pto.tensor<64x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
!V = !pto.tile<64x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>

// A vector piece spanning both cube pieces: the L0C -> UB move hands over
// whole accumulator tiles, so the piece would need both at once. Refused.
// CHECK-LABEL: pto.kernel @straddle(
// CHECK-NOT:     pto.on_chip
// CHECK-NOT:     #pto.core<mix>
pto.kernel @straddle(%a: !A, %b: !B, %c: !W) attributes {arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[32, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[32, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !V
    %n = pto.neg %s {vec_tile = #pto.vec_tile<[64, 32]>} : !V -> !V
    pto.assemble %n, %c[0, 0] : !V, !W
  }
}

// -----

!A = !pto.tensor<32x32xbf16>
!W = !pto.tensor<32x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>
#vt = #pto.vec_tile<[32, 32]>

// Not exchanges: a workspace also read by a cube task (%w1), one written by
// a vector task (%w2). Nothing merges, nothing is marked.
// CHECK-LABEL: pto.kernel @not_exchanges(
// CHECK-NOT:     pto.on_chip
// CHECK-NOT:     #pto.core<mix>
pto.kernel @not_exchanges(%a: !A, %c: !W) attributes {arch = #pto.arch<DAV_3510>} {
  %w1 = pto.workspace : !W
  %w2 = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %w1[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %w1[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %w2[0, 0] : !R, !W
  }
  pto.task #pto.core<cube> "C2" {
    %s = pto.view %w1[0, 0] : !W -> !R
    %t = pto.view %w2[0, 0] : !W -> !R
    %p = pto.matmul %s, %t {cube_tile = #ct} : !R, !R -> !R
    pto.assemble %p, %c[0, 0] : !R, !W
  }
}

// -----

!A = !pto.tensor<32x32xbf16>
!W = !pto.tensor<32x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>
#vt = #pto.vec_tile<[32, 32]>

// A task between the members reads %c, which the cube member writes: it
// moves below the MIX task with the members.
// CHECK-LABEL: pto.kernel @push(
// CHECK:         pto.workspace {pto.on_chip}
// CHECK-NEXT:    pto.task #pto.core<mix> "M1" {
// CHECK:           pto.assemble %{{.*}}, %e [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %c[0, 0]
// CHECK-NEXT:      pto.assemble %{{.*}}, %d [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
pto.kernel @push(%a: !A, %c: !W, %d: !W, %e: !W) attributes {arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
    pto.assemble %p, %c[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %c[0, 0] : !W -> !R
    pto.assemble %s, %d[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %e[0, 0] : !R, !W
  }
}

// -----

!A = !pto.tensor<32x32xbf16>
!W = !pto.tensor<32x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>
#vt = #pto.vec_tile<[32, 32]>

// The task in between must move below (it reads %c, which the cube member
// writes) but writes %d like the last member: the order of the two writes
// would change, so nothing merges and the workspace stays in GM.
// CHECK-LABEL: pto.kernel @conflict(
// CHECK-NOT:     pto.on_chip
// CHECK:         pto.task #pto.core<cube> "C1"
// CHECK:         pto.task #pto.core<vector> "V1"
// CHECK:         pto.task #pto.core<vector> "V1"
// CHECK-NOT:     #pto.core<mix>
pto.kernel @conflict(%a: !A, %c: !W, %d: !W) attributes {arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
    pto.assemble %p, %c[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %c[0, 0] : !W -> !R
    pto.assemble %s, %d[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %d[0, 0] : !R, !W
  }
}

// -----

!A = !pto.tensor<32x32xbf16>
!W = !pto.tensor<32x32xf32>
!T = !pto.tile<32x32xbf16>
!R = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>
#vt = #pto.vec_tile<[32, 32]>

// DAV_2201 has no L0C -> UB path: unchanged.
// CHECK-LABEL: pto.kernel @a3(
// CHECK-NOT:     pto.on_chip
// CHECK:         pto.task #pto.core<cube> "C1"
// CHECK:         pto.task #pto.core<vector> "V1"
pto.kernel @a3(%a: !A, %c: !W) {
  %ws = pto.workspace : !W
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %p = pto.matmul %x, %x {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %c[0, 0] : !R, !W
  }
}
