// RUN: pto-opt %s -split-input-file -pto-schedule-pieces=report=true -verify-diagnostics | FileCheck %s

// pto-schedule-pieces on hand-partitioned IR (docs/TileGraph.md): a vector
// task whose pieces, in the order pto-expand-tiles emits them (op by op),
// need more UB than DAV_2201 has less its implicit scratch (188416 bytes)
// runs piece by piece instead.

!X = !pto.tensor<256x128xf32>
!S = !pto.tensor<1x128xf32>
!T = !pto.tile<64x128xf32>
!R = !pto.tile<1x128xf32>

// Four row pieces of y = exp(x) * x, stored and summed over the rows (the
// partial sums combined by adds): op by op, four x and four exp(x) pieces of
// 32 KiB are live at once; piece by piece, one of each. The stores keep
// their order, and each partial sum joins the total as soon as it exists.
// CHECK-LABEL: pto.kernel @chains(
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X0:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:      %[[E0:.*]] = pto.exp %[[X0]]
// CHECK-NEXT:      %[[Y0:.*]] = pto.mul %[[E0]], %[[X0]]
// CHECK-NEXT:      pto.assemble %[[Y0]], %y [0, 0]
// CHECK-NEXT:      %[[S0:.*]] = pto.sum %[[Y0]]
// CHECK-NEXT:      %[[X1:.*]] = pto.view %x[64, 0]
// CHECK-NEXT:      %[[E1:.*]] = pto.exp %[[X1]]
// CHECK-NEXT:      %[[Y1:.*]] = pto.mul %[[E1]], %[[X1]]
// CHECK-NEXT:      pto.assemble %[[Y1]], %y [64, 0]
// CHECK-NEXT:      %[[S1:.*]] = pto.sum %[[Y1]]
// CHECK-NEXT:      %[[A1:.*]] = pto.add %[[S0]], %[[S1]]
// CHECK-NEXT:      pto.view %x[128, 0]
// CHECK:           %[[A2:.*]] = pto.add %[[A1]],
// CHECK-NEXT:      pto.view %x[192, 0]
// CHECK:           %[[A3:.*]] = pto.add %[[A2]],
// CHECK-NEXT:      pto.assemble %[[A3]], %s [0, 0]
// CHECK-NEXT:    }
pto.kernel @chains(%x: !X, %y: !X, %s: !S) {
  // expected-remark@+1 {{pto-schedule-pieces: vector task "V1" reordered piece by piece: estimated UB peak 294912 -> 98816 bytes (budget 188416)}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %x1 = pto.view %x[64, 0] : !X -> !T
    %x2 = pto.view %x[128, 0] : !X -> !T
    %x3 = pto.view %x[192, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    %e2 = pto.exp %x2 : !T -> !T
    %e3 = pto.exp %x3 : !T -> !T
    %y0 = pto.mul %e0, %x0 : !T, !T -> !T
    %y1 = pto.mul %e1, %x1 : !T, !T -> !T
    %y2 = pto.mul %e2, %x2 : !T, !T -> !T
    %y3 = pto.mul %e3, %x3 : !T, !T -> !T
    pto.assemble %y0, %y[0, 0] : !T, !X
    pto.assemble %y1, %y[64, 0] : !T, !X
    pto.assemble %y2, %y[128, 0] : !T, !X
    pto.assemble %y3, %y[192, 0] : !T, !X
    %s0 = pto.sum %y0 dim = 0 keepdim : !T -> !R
    %s1 = pto.sum %y1 dim = 0 keepdim : !T -> !R
    %s2 = pto.sum %y2 dim = 0 keepdim : !T -> !R
    %s3 = pto.sum %y3 dim = 0 keepdim : !T -> !R
    %a1 = pto.add %s0, %s1 : !R, !R -> !R
    %a2 = pto.add %a1, %s2 : !R, !R -> !R
    %a3 = pto.add %a2, %s3 : !R, !R -> !R
    pto.assemble %a3, %s[0, 0] : !R, !S
  }
}

// -----

!X = !pto.tensor<128x256xf32>
!T = !pto.tile<64x256xf32>

// A read of a tensor the task wrote stays after the last write to it; the
// pieces before it still run one at a time.
// CHECK-LABEL: pto.kernel @read_after_write(
// CHECK:         pto.view %x[0, 0]
// CHECK-NEXT:    pto.exp
// CHECK-NEXT:    pto.assemble {{.*}}, %y [0, 0]
// CHECK-NEXT:    pto.view %x[64, 0]
// CHECK-NEXT:    pto.exp
// CHECK-NEXT:    pto.assemble {{.*}}, %y [64, 0]
// CHECK-NEXT:    pto.view %x[0, 64]
// CHECK-NEXT:    pto.exp
// CHECK-NEXT:    pto.assemble {{.*}}, %y [0, 64]
// CHECK-NEXT:    %[[BACK:.*]] = pto.view %y[0, 0]
// CHECK-NEXT:    pto.assemble %[[BACK]], %z [0, 0]
pto.kernel @read_after_write(%x: !pto.tensor<128x512xf32>, %y: !pto.tensor<128x512xf32>,
                             %z: !pto.tensor<128x512xf32>) {
  // expected-remark@+1 {{estimated UB peak 262144 -> 131072 bytes}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !pto.tensor<128x512xf32> -> !T
    %x1 = pto.view %x[64, 0] : !pto.tensor<128x512xf32> -> !T
    %x2 = pto.view %x[0, 64] : !pto.tensor<128x512xf32> -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    %e2 = pto.exp %x2 : !T -> !T
    pto.assemble %e0, %y[0, 0] : !T, !pto.tensor<128x512xf32>
    pto.assemble %e1, %y[64, 0] : !T, !pto.tensor<128x512xf32>
    pto.assemble %e2, %y[0, 64] : !T, !pto.tensor<128x512xf32>
    %back = pto.view %y[0, 0] : !pto.tensor<128x512xf32> -> !T
    pto.assemble %back, %z[0, 0] : !T, !pto.tensor<128x512xf32>
  }
}

// -----

!X = !pto.tensor<64x128xf32>
!T = !pto.tile<16x128xf32>

// Pieces that fit in their order keep it.
// CHECK-LABEL: pto.kernel @fits(
// CHECK:         pto.view
// CHECK-NEXT:    pto.view
// CHECK-NEXT:    pto.exp
// CHECK-NEXT:    pto.exp
pto.kernel @fits(%x: !X, %y: !X) {
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %x1 = pto.view %x[16, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    pto.assemble %e0, %y[0, 0] : !T, !X
    pto.assemble %e1, %y[16, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<128x256xf32>
!T = !pto.tile<128x256xf32>

// One piece whose chain alone needs more than UB: no order fits, and the
// warning names the op at the peak.
pto.kernel @too_big(%x: !X, %y: !X) {
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    // expected-warning@+1 {{pto-schedule-pieces: the pieces of vector task "V1" live at this op need an estimated 393216 bytes of UB in the order that keeps the fewest live, over the 188416 bytes of DAV_2201 (A2/A3: 910B/910C) (UB less the implicit scratch); fix: a smaller vec_tile for the task's ops}}
    %y0 = pto.mul %e0, %x0 : !T, !T -> !T
    pto.assemble %y0, %y[0, 0] : !T, !X
  }
}
