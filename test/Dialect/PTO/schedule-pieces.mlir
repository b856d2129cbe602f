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

!X = !pto.tensor<256x256xf32>
!G = !pto.tensor<1x256xf32>
!T = !pto.tile<64x256xf32>
!R = !pto.tile<1x256xf32>

// Pieces stored to %k and read back, each scaled by a load of %g that
// nothing in the task writes (engram's rms_norm and its gamma). The reads
// of %k all become ready with the last store; a load of %g runs right before
// its consumer instead of holding each piece back until the pull reaches it
// (before, all four %k pieces of 64 KiB were live at once).
// CHECK-LABEL: pto.kernel @free_loads(
// CHECK:         pto.assemble {{.*}}, %k [192, 0]
// CHECK-NEXT:    %[[K0:.*]] = pto.view %k[0, 0]
// CHECK-NEXT:    %[[G0:.*]] = pto.view %g[0, 0]
// CHECK-NEXT:    %[[M0:.*]] = pto.mul %[[K0]], %[[G0]]
// CHECK-NEXT:    pto.assemble %[[M0]], %y [0, 0]
// CHECK-NEXT:    %[[K1:.*]] = pto.view %k[64, 0]
// CHECK-NEXT:    %[[G1:.*]] = pto.view %g[0, 0]
// CHECK-NEXT:    %[[M1:.*]] = pto.mul %[[K1]], %[[G1]]
// CHECK-NEXT:    pto.assemble %[[M1]], %y [64, 0]
pto.kernel @free_loads(%x: !X, %k: !X, %g: !G, %y: !X) {
  // expected-remark@+1 {{pto-schedule-pieces: vector task "V1" reordered piece by piece: estimated UB peak 331776 -> 132096 bytes (budget 188416)}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %x1 = pto.view %x[64, 0] : !X -> !T
    %x2 = pto.view %x[128, 0] : !X -> !T
    %x3 = pto.view %x[192, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    %e2 = pto.exp %x2 : !T -> !T
    %e3 = pto.exp %x3 : !T -> !T
    pto.assemble %e0, %k[0, 0] : !T, !X
    pto.assemble %e1, %k[64, 0] : !T, !X
    pto.assemble %e2, %k[128, 0] : !T, !X
    pto.assemble %e3, %k[192, 0] : !T, !X
    %k0 = pto.view %k[0, 0] : !X -> !T
    %k1 = pto.view %k[64, 0] : !X -> !T
    %k2 = pto.view %k[128, 0] : !X -> !T
    %k3 = pto.view %k[192, 0] : !X -> !T
    %g0 = pto.view %g[0, 0] : !G -> !R
    %g1 = pto.view %g[0, 0] : !G -> !R
    %g2 = pto.view %g[0, 0] : !G -> !R
    %g3 = pto.view %g[0, 0] : !G -> !R
    %m0 = pto.mul %k0, %g0 : !T, !R -> !T
    %m1 = pto.mul %k1, %g1 : !T, !R -> !T
    %m2 = pto.mul %k2, %g2 : !T, !R -> !T
    %m3 = pto.mul %k3, %g3 : !T, !R -> !T
    pto.assemble %m0, %y[0, 0] : !T, !X
    pto.assemble %m1, %y[64, 0] : !T, !X
    pto.assemble %m2, %y[128, 0] : !T, !X
    pto.assemble %m3, %y[192, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<256x256xf32>
!T = !pto.tile<64x256xf32>
!C = !pto.tile<64x1xf32>

// Rows stored to %k and read back twice, once for their sum and once to be
// centred by it (the key of engram's rms_norm, read for the sum of squares
// and for the division). Both reads become ready with the last store: each
// runs right before its consumer, so a row's second read waits for the sum
// and not in UB (before, the four first reads ran at once, and the four
// second reads, identical views, were live from there too once CSE merged
// them).
// CHECK-LABEL: pto.kernel @read_twice(
// CHECK:         pto.assemble {{.*}}, %k [192, 0]
// CHECK-NEXT:    %[[A0:.*]] = pto.view %k[0, 0]
// CHECK-NEXT:    %[[S0:.*]] = pto.sum %[[A0]]
// CHECK-NEXT:    %[[B0:.*]] = pto.view %k[0, 0]
// CHECK-NEXT:    %[[D0:.*]] = pto.sub %[[B0]], %[[S0]]
// CHECK-NEXT:    pto.assemble %[[D0]], %y [0, 0]
// CHECK-NEXT:    %[[A1:.*]] = pto.view %k[64, 0]
// CHECK-NEXT:    %[[S1:.*]] = pto.sum %[[A1]]
// CHECK-NEXT:    %[[B1:.*]] = pto.view %k[64, 0]
pto.kernel @read_twice(%x: !X, %k: !X, %y: !X) {
  // expected-remark@+1 {{pto-schedule-pieces: vector task "V1" reordered piece by piece: estimated UB peak 335872 -> 133120 bytes (budget 188416)}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %x1 = pto.view %x[64, 0] : !X -> !T
    %x2 = pto.view %x[128, 0] : !X -> !T
    %x3 = pto.view %x[192, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    %e2 = pto.exp %x2 : !T -> !T
    %e3 = pto.exp %x3 : !T -> !T
    pto.assemble %e0, %k[0, 0] : !T, !X
    pto.assemble %e1, %k[64, 0] : !T, !X
    pto.assemble %e2, %k[128, 0] : !T, !X
    pto.assemble %e3, %k[192, 0] : !T, !X
    %a0 = pto.view %k[0, 0] : !X -> !T
    %a1 = pto.view %k[64, 0] : !X -> !T
    %a2 = pto.view %k[128, 0] : !X -> !T
    %a3 = pto.view %k[192, 0] : !X -> !T
    %s0 = pto.sum %a0 dim = 1 keepdim : !T -> !C
    %s1 = pto.sum %a1 dim = 1 keepdim : !T -> !C
    %s2 = pto.sum %a2 dim = 1 keepdim : !T -> !C
    %s3 = pto.sum %a3 dim = 1 keepdim : !T -> !C
    %b0 = pto.view %k[0, 0] : !X -> !T
    %b1 = pto.view %k[64, 0] : !X -> !T
    %b2 = pto.view %k[128, 0] : !X -> !T
    %b3 = pto.view %k[192, 0] : !X -> !T
    %d0 = pto.sub %b0, %s0 : !T, !C -> !T
    %d1 = pto.sub %b1, %s1 : !T, !C -> !T
    %d2 = pto.sub %b2, %s2 : !T, !C -> !T
    %d3 = pto.sub %b3, %s3 : !T, !C -> !T
    pto.assemble %d0, %y[0, 0] : !T, !X
    pto.assemble %d1, %y[64, 0] : !T, !X
    pto.assemble %d2, %y[128, 0] : !T, !X
    pto.assemble %d3, %y[192, 0] : !T, !X
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

// -----

!X = !pto.tensor<384x128xf32>
!T = !pto.tile<128x128xf32>
!G = !pto.tile<1x128xf32>

// Three 64 KiB pieces stored into a workspace, then scaled by a row read
// back from it after all three stores (gated_delta_rule's g_last): every
// order keeps the three live across that read (262,656 bytes with the row
// and a product). The pieces the task stored are read back from their
// windows (with their valid extents) after the peak instead, one at a time
// while the estimate is over; the row read and every store keep their
// place, each piece's store right after it (the piece-by-piece order).
// CHECK-LABEL: pto.kernel @reload(
// CHECK:         pto.assemble %{{.*}}, %[[W:.*]] [0, 0]
// CHECK:         pto.assemble %{{.*}}, %[[W]] [128, 0]
// CHECK:         pto.assemble %{{.*}}, %[[W]] [256, 0]
// CHECK-NEXT:    %[[G:.*]] = pto.view %[[W]][0, 0] : !pto.tensor<384x128xf32> -> !pto.tile<1x128xf32>
// CHECK-NEXT:    %[[R0:.*]] = pto.view %[[W]][0, 0] valid [128, 128] : !pto.tensor<384x128xf32> -> !pto.tile<128x128xf32>
// CHECK-NEXT:    pto.mul %[[R0]], %[[G]]
// CHECK-NEXT:    pto.assemble
// CHECK-NEXT:    %[[R1:.*]] = pto.view %[[W]][128, 0] valid [128, 128]
// CHECK-NEXT:    pto.mul %[[R1]], %[[G]]
// CHECK-NEXT:    pto.assemble
// CHECK-NEXT:    %[[R2:.*]] = pto.view %[[W]][256, 0] valid [128, 128]
// CHECK-NEXT:    pto.mul %[[R2]], %[[G]]
pto.kernel @reload(%x: !X, %y: !X) {
  %w = pto.workspace : !X
  // expected-remark@+1 {{pto-schedule-pieces: vector task "V1" reads 3 stored tile(s) back from GM after the peak: estimated UB peak 262656 -> 131584 bytes (budget 188416)}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0] : !X -> !T
    %x1 = pto.view %x[128, 0] : !X -> !T
    %x2 = pto.view %x[256, 0] : !X -> !T
    %e0 = pto.exp %x0 : !T -> !T
    %e1 = pto.exp %x1 : !T -> !T
    %e2 = pto.exp %x2 : !T -> !T
    pto.assemble %e0, %w[0, 0] : !T, !X
    pto.assemble %e1, %w[128, 0] : !T, !X
    pto.assemble %e2, %w[256, 0] : !T, !X
    %g = pto.view %w[0, 0] : !X -> !G
    %y0 = pto.mul %e0, %g : !T, !G -> !T
    %y1 = pto.mul %e1, %g : !T, !G -> !T
    %y2 = pto.mul %e2, %g : !T, !G -> !T
    pto.assemble %y0, %y[0, 0] : !T, !X
    pto.assemble %y1, %y[128, 0] : !T, !X
    pto.assemble %y2, %y[256, 0] : !T, !X
  }
}

// -----

!X = !pto.tensor<4x4x4096xbf16>
!W = !pto.tensor<4x4x4096xf32>
!Y = !pto.tensor<4x1x4096xf32>
!B = !pto.tile<1x4x4096xbf16>
!F = !pto.tile<1x4x4096xf32>
!A = !pto.tile<4x4x4096xf32>
!R = !pto.tile<1x1x4096xf32>

// mhc_post's shape: each row of x is cast to f32 and stored into a
// workspace, the whole workspace (256 KiB) loaded, and two [1, 1, 4096]
// rows of each row taken from that tile. No order fits: every view needs
// the loaded tile. A copy of the task in which each view reads its window
// from GM (a view of the workspace) and each such load, covered by the
// row's own store with no write since that overlaps it, takes the window
// from the stored tile (the stores, into a workspace nothing reads any
// more, dropped) runs row by row and replaces the task.
// CHECK-LABEL: pto.kernel @views_of_loads(
// CHECK-NEXT:    %[[W:.*]] = pto.workspace
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NOT:       %[[W]]
// CHECK:           %[[X0:.*]] = pto.view %x[0, 0, 0]
// CHECK-NEXT:      %[[C0:.*]] = pto.cast %[[X0]]
// CHECK-NEXT:      %[[V00:.*]] = pto.view %[[C0]][0, 0, 0] valid [1, 1, 4096] : !pto.tile<1x4x4096xf32> -> !pto.tile<1x1x4096xf32>
// CHECK-NEXT:      %[[V01:.*]] = pto.view %[[C0]][0, 1, 0] valid [1, 1, 4096] : !pto.tile<1x4x4096xf32> -> !pto.tile<1x1x4096xf32>
// CHECK-NEXT:      %[[S0:.*]] = pto.add %[[V00]], %[[V01]]
// CHECK-NEXT:      pto.assemble %[[S0]], %y [0, 0, 0]
// CHECK-NEXT:      %[[X1:.*]] = pto.view %x[1, 0, 0]
// CHECK-NOT:       %[[W]]
// CHECK:           pto.assemble %{{.*}}, %y [3, 0, 0]
// CHECK-NEXT:    }
pto.kernel @views_of_loads(%x: !X, %y: !Y) {
  %w = pto.workspace : !W
  // expected-remark@+2 {{pto-schedule-pieces: vector task "V1" reordered piece by piece: estimated UB peak 393216 -> 311296 bytes (budget 188416)}}
  // expected-remark@+1 {{pto-schedule-pieces: vector task "V1" reads its views of loaded tiles from GM and its loads of stored tiles from those tiles, reordered piece by piece: estimated UB peak 311296 -> 98304 bytes (budget 188416)}}
  pto.task #pto.core<vector> "V1" {
    %x0 = pto.view %x[0, 0, 0] : !X -> !B
    %c0 = pto.cast %x0 : !B -> !F
    pto.assemble %c0, %w[0, 0, 0] : !F, !W
    %x1 = pto.view %x[1, 0, 0] : !X -> !B
    %c1 = pto.cast %x1 : !B -> !F
    pto.assemble %c1, %w[1, 0, 0] : !F, !W
    %x2 = pto.view %x[2, 0, 0] : !X -> !B
    %c2 = pto.cast %x2 : !B -> !F
    pto.assemble %c2, %w[2, 0, 0] : !F, !W
    %x3 = pto.view %x[3, 0, 0] : !X -> !B
    %c3 = pto.cast %x3 : !B -> !F
    pto.assemble %c3, %w[3, 0, 0] : !F, !W
    %all = pto.view %w[0, 0, 0] : !W -> !A
    %v00 = pto.view %all[0, 0, 0] : !A -> !R
    %v01 = pto.view %all[0, 1, 0] : !A -> !R
    %v10 = pto.view %all[1, 0, 0] : !A -> !R
    %v11 = pto.view %all[1, 1, 0] : !A -> !R
    %v20 = pto.view %all[2, 0, 0] : !A -> !R
    %v21 = pto.view %all[2, 1, 0] : !A -> !R
    %v30 = pto.view %all[3, 0, 0] : !A -> !R
    %v31 = pto.view %all[3, 1, 0] : !A -> !R
    %s0 = pto.add %v00, %v01 : !R, !R -> !R
    %s1 = pto.add %v10, %v11 : !R, !R -> !R
    %s2 = pto.add %v20, %v21 : !R, !R -> !R
    %s3 = pto.add %v30, %v31 : !R, !R -> !R
    pto.assemble %s0, %y[0, 0, 0] : !R, !Y
    pto.assemble %s1, %y[1, 0, 0] : !R, !Y
    pto.assemble %s2, %y[2, 0, 0] : !R, !Y
    pto.assemble %s3, %y[3, 0, 0] : !R, !Y
  }
}
