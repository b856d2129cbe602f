// RUN: pto-opt %s -split-input-file -pto-outline | FileCheck %s
// RUN: pto-opt %s -split-input-file '-pto-outline=report=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// pto-outline on hand-written partitioned IR (docs/TileGraph.md): leaves,
// isomorphic tasks sharing a leaf, static offsets as trailing leaf arguments
// (passed as constants by the launches), roots with launches and token deps,
// workspace placement (root vs control program), argument order.

// A kernel-level task and a loop body of four tasks. The two V1 tasks are
// isomorphic (same body up to the captured values): one leaf. The two C1
// tasks differ in b_trans: two leaves. %wsf is used by tasks of two roots and
// stays in the kernel; %ws0 / %ws1 move into the loop's root.

// The captured values come first, then one index argument per static offset
// of the leaf's views and stores, in op order.
// CHECK-LABEL: func.func private @tg_leaf_V0_0(
// CHECK-SAME:      %[[A0:[^:]*]]: !pto.tensor<32x32xbf16>, %[[A1:[^:]*]]: !pto.tensor<32x32xf32>, %[[O0:[^:]*]]: index, %[[O1:[^:]*]]: index)
// CHECK-SAME:      attributes {pto.family = "V0", pto.leaf = #pto.core<vector>}
// Captured constants are cloned, not passed (nor turned into arguments).
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pto.view %[[A0]][%[[C0]], %[[C0]]]
// CHECK-NEXT:    pto.cast
// CHECK-NEXT:    pto.assemble %{{.*}}, %[[A1]] [%[[O0]], %[[O1]]] :
// CHECK-NEXT:    return

// Arguments in order of first use: x, off, valid, w, the workspace; then the
// two static offsets of the store into the workspace.
// CHECK-LABEL: func.func private @tg_leaf_C1_0(
// CHECK-SAME:      %[[X:[^:]*]]: !pto.tensor<?x32xbf16>, %[[OFF:[^:]*]]: index, %[[VALID:[^:]*]]: index, %[[W:[^:]*]]: !pto.tensor<32x32xbf16>, %[[WS:[^:]*]]: !pto.tensor<16x32xf32>, %[[O0:[^:]*]]: index, %[[O1:[^:]*]]: index)
// CHECK-SAME:      attributes {pto.family = "C1", pto.leaf = #pto.core<cube>}
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pto.view %[[X]][%[[OFF]], %[[C0]]] valid [%[[VALID]], 32]
// CHECK-NEXT:    pto.view %[[W]][%[[C0]], %[[C0]]]
// CHECK-NOT:     b_trans
// CHECK:         pto.assemble %{{.*}}, %[[WS]] [%[[O0]], %[[O1]]] :
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @tg_leaf_C1_1(
// CHECK:         pto.matmul {{.*}}b_trans
// Two views of workspaces at static offsets: four offset arguments.
// CHECK-LABEL: func.func private @tg_leaf_V1_0(
// CHECK-SAME:      %[[WS:[^:]*]]: !pto.tensor<16x32xf32>, %[[VALID:[^:]*]]: index, %[[WSF:[^:]*]]: !pto.tensor<32x32xf32>, %[[Y:[^:]*]]: !pto.tensor<?x32xf32>, %[[OFF:[^:]*]]: index, %[[O0:[^:]*]]: index, %[[O1:[^:]*]]: index, %[[O2:[^:]*]]: index, %[[O3:[^:]*]]: index)
// CHECK-SAME:      attributes {pto.family = "V1", pto.leaf = #pto.core<vector>}
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pto.view %[[WS]][%[[O0]], %[[O1]]] valid [%[[VALID]], 32]
// CHECK-NEXT:    pto.view %[[WSF]][%[[O2]], %[[O3]]] valid [%[[VALID]], 32]
// CHECK-NEXT:    pto.add
// CHECK-NEXT:    pto.atomic_add %{{.*}}, %[[Y]] [%[[OFF]], %[[C0]]] :
// CHECK-NEXT:    return
// CHECK-NOT:   func.func private @tg_leaf_V1_1

// The root passes the offsets as constants created at its start, one per
// distinct value.
// CHECK-LABEL: func.func private @tg_root_main(
// CHECK-SAME:      %[[W:.*]]: !pto.tensor<32x32xbf16>, %[[WSF:.*]]: !pto.tensor<32x32xf32>) attributes {pto.root}
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pto.launch @tg_leaf_V0_0(%[[W]], %[[WSF]], %[[C0]], %[[C0]]) : (!pto.tensor<32x32xbf16>, !pto.tensor<32x32xf32>, index, index) -> !pto.token
// CHECK-NEXT:    return

// CHECK-LABEL: func.func private @tg_root_L_main(
// CHECK-SAME:      %[[X:[^:]*]]: !pto.tensor<?x32xbf16>, %[[OFF:[^:]*]]: index, %[[VALID:[^:]*]]: index, %[[W:[^:]*]]: !pto.tensor<32x32xbf16>, %[[WSF:[^:]*]]: !pto.tensor<32x32xf32>, %[[Y:[^:]*]]: !pto.tensor<?x32xf32>, %[[Z:[^:]*]]: !pto.tensor<?x32xf32>) attributes {pto.root}
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[WS0:.*]] = pto.workspace : !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[WS1:.*]] = pto.workspace : !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[T0:.*]] = pto.launch @tg_leaf_C1_0(%[[X]], %[[OFF]], %[[VALID]], %[[W]], %[[WS0]], %[[C0]], %[[C0]]) :
// CHECK-NEXT:    %[[T1:.*]] = pto.launch @tg_leaf_C1_1(%[[X]], %[[OFF]], %[[VALID]], %[[W]], %[[WS1]], %[[C0]], %[[C0]]) :
// CHECK-NEXT:    pto.launch @tg_leaf_V1_0(%[[WS0]], %[[VALID]], %[[WSF]], %[[Y]], %[[OFF]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]) after[%[[T0]]] :
// CHECK-NEXT:    pto.launch @tg_leaf_V1_0(%[[WS1]], %[[VALID]], %[[WSF]], %[[Z]], %[[OFF]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]) after[%[[T1]]] :
// CHECK-NEXT:    return

// CHECK-LABEL: pto.kernel @tg(
// CHECK:         %[[WSF:.*]] = pto.workspace : !pto.tensor<32x32xf32>
// CHECK-NEXT:    pto.root_call @tg_root_main(%w, %[[WSF]])
// CHECK:         pto.loop "L_main"
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli
// CHECK-NEXT:      arith.subi
// CHECK-NEXT:      %[[VALID:.*]] = arith.minsi
// CHECK-NEXT:      pto.root_call @tg_root_L_main(%x, %[[OFF]], %[[VALID]], %w, %[[WSF]], %y, %z) :
// CHECK-NEXT:    }
// CHECK-NOT:     pto.task
// CHECK-NOT:     pto.workspace

// REPORT: remark: pto-outline: @tg: 5 tasks -> 4 leaves after deduplication, 2 roots; workspaces: 2 in roots, 1 in the control program
pto.kernel @tg(%x: !pto.tensor<?x32xbf16>, %w: !pto.tensor<32x32xbf16>,
               %y: !pto.tensor<?x32xf32>, %z: !pto.tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x32xbf16>
  %tiles = arith.ceildivsi %rows, %c16 : index
  %wsf = pto.workspace : !pto.tensor<32x32xf32>
  pto.task #pto.core<vector> "V0" {
    %wv = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
    %wf = pto.cast %wv {vec_tile = #pto.vec_tile<[32, 32]>} : !pto.tile<32x32xbf16> -> !pto.tile<32x32xf32>
    pto.assemble %wf, %wsf[0, 0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  }
  pto.loop "L_main" %i = %c0 to %tiles step %c1 {
    %off = arith.muli %i, %c16 : index
    %rest = arith.subi %rows, %off : index
    %valid = arith.minsi %rest, %c16 : index
    %ws0 = pto.workspace : !pto.tensor<16x32xf32>
    %ws1 = pto.workspace : !pto.tensor<16x32xf32>
    pto.task #pto.core<cube> "C1" {
      %xa = pto.view %x[%off, %c0] valid [%valid, 32] : !pto.tensor<?x32xbf16> -> !pto.tile<16x32xbf16>
      %wt = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
      %s = pto.matmul %xa, %wt {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<16x32xf32>
      pto.assemble %s, %ws0[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<cube> "C1" {
      %xa = pto.view %x[%off, %c0] valid [%valid, 32] : !pto.tensor<?x32xbf16> -> !pto.tile<16x32xbf16>
      %wt = pto.view %w[%c0, %c0] : !pto.tensor<32x32xbf16> -> !pto.tile<32x32xbf16>
      %s = pto.matmul %xa, %wt {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [32, 32]>} : !pto.tile<16x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<16x32xf32>
      pto.assemble %s, %ws1[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %ws0[0, 0] valid [%valid, 32] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      %b = pto.view %wsf[0, 0] valid [%valid, 32] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
      %c = pto.add %a, %b {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
      pto.atomic_add %c, %y[%off, %c0] : !pto.tile<16x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %ws1[0, 0] valid [%valid, 32] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      %b = pto.view %wsf[0, 0] valid [%valid, 32] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
      %c = pto.add %a, %b {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
      pto.atomic_add %c, %z[%off, %c0] : !pto.tile<16x32xf32>, !pto.tensor<?x32xf32>
    }
  }
}

// -----

// Dependencies from GM regions. Workspace pieces at static offsets overlap
// exactly: the reader of rows [8, 16) waits only for their writer, a reader
// of the whole workspace for both writers. Atomic writers into one tensor do
// not wait for each other; a reader of that tensor waits for all of them; an
// atomic writer after a reader waits for the reader (write after read),
// which covers the earlier atomics. The two writers differ only in the
// static offset of their store: one leaf, the launches pass 0 and 8. The
// dependencies still come from each task's own offsets.

// CHECK-LABEL: func.func private @deps_leaf_V1_0(
// CHECK-SAME:      %{{[^:]*}}: !pto.tensor<16x32xf32>, %{{[^:]*}}: !pto.tensor<16x32xf32>, %{{[^:]*}}: index, %{{[^:]*}}: index)
// CHECK-NOT:   func.func private @deps_leaf_V1_1
// CHECK-LABEL: func.func private @deps_root_main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[A:.*]] = pto.launch @deps_leaf_V1_0(%{{.*}}, %[[WS]], %[[C0]], %[[C0]]) :
// CHECK-NEXT:    %[[B:.*]] = pto.launch @deps_leaf_V1_0(%{{.*}}, %[[WS]], %[[C8]], %[[C0]]) :
// CHECK-NEXT:    %[[R1:.*]] = pto.launch @deps_leaf_V2_0(%[[WS]], %{{.*}}, %[[C8]], %[[C0]]) after[%[[B]]] :
// CHECK-NEXT:    %[[R2:.*]] = pto.launch @deps_leaf_V2_1(%[[WS]], %{{.*}}, %[[C0]], %[[C0]]) after[%[[A]], %[[B]]] :
// CHECK-NEXT:    %[[S1:.*]] = pto.launch @deps_leaf_V3_0(%[[WS]], %{{.*}}, %[[C0]], %[[C0]]) after[%[[A]], %[[B]]] :
// CHECK-NEXT:    %[[S2:.*]] = pto.launch @deps_leaf_V3_0(%[[WS]], %{{.*}}, %[[C0]], %[[C0]]) after[%[[A]], %[[B]]] :
// CHECK-NEXT:    %[[RD:.*]] = pto.launch @deps_leaf_V4_0(%{{.*}}, %{{.*}}) after[%[[R1]], %[[R2]], %[[S1]], %[[S2]]] :
// CHECK-NEXT:    pto.launch @deps_leaf_V3_0(%{{.*}}) after[%[[RD]]] :
// CHECK-NEXT:    return

// REPORT: remark: pto-outline: @deps: 8 tasks -> 5 leaves after deduplication, 1 roots; workspaces: 1 in roots, 0 in the control program
pto.kernel @deps(%x: !pto.tensor<16x32xf32>, %y: !pto.tensor<16x32xf32>, %o: !pto.tensor<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  // rows [0, 8) and [8, 16) of %ws
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %ws[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %ws[8, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  // reads rows [8, 16): only the second writer
  pto.task #pto.core<vector> "V2" {
    %a = pto.view %ws[8, 0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    pto.atomic_add %a, %y[%c0, %c0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  // reads all rows: both writers; atomic into %y after the other atomic: no edge
  pto.task #pto.core<vector> "V2" {
    %a = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.atomic_add %a, %y[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  // two isomorphic tasks: one leaf; both read %ws (after both writers) and
  // add into %o (no edge between them)
  pto.task #pto.core<vector> "V3" {
    %a = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.atomic_add %a, %o[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V3" {
    %a = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.atomic_add %a, %o[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  // reads %o and %y: waits for every atomic writer of both
  pto.task #pto.core<vector> "V4" {
    %a = pto.view %o[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.assemble %a, %y[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  // atomic into %o after the reader: write after read
  pto.task #pto.core<vector> "V3" {
    %a = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.atomic_add %a, %o[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
}

// -----

// Transitive reduction: C reads what A and B wrote, B read A's output, so
// C's edge to A is implied by B.
// CHECK-LABEL: func.func private @chain_root_main(
// CHECK:         %[[A:.*]] = pto.launch @chain_leaf_V1_0
// CHECK-NEXT:    %[[B:.*]] = pto.launch @chain_leaf_V2_0({{.*}}) after[%[[A]]] :
// CHECK-NEXT:    pto.launch @chain_leaf_V3_0({{.*}}) after[%[[B]]] :
pto.kernel @chain(%x: !pto.tensor<16x32xf32>, %y: !pto.tensor<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %ws1 = pto.workspace : !pto.tensor<16x32xf32>
  %ws2 = pto.workspace : !pto.tensor<16x32xf32>
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.assemble %a, %ws1[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V2" {
    %a = pto.view %ws1[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.assemble %a, %ws2[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V3" {
    %a = pto.view %ws1[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    %b = pto.view %ws2[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    %c = pto.add %a, %b {vec_tile = #pto.vec_tile<[16, 32]>} : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
    pto.assemble %c, %y[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  }
}

// -----

// Kernel tensors at dynamic offsets are conservative: the read of %y at
// another dynamic offset waits for the write. A read through an in-place
// reshape aliases the reshaped tensor. Two reads never wait for each other.
// CHECK-LABEL: func.func private @dyn_root_main(
// CHECK:         %[[A:.*]] = pto.launch @dyn_leaf_V1_0
// CHECK-NEXT:    pto.launch @dyn_leaf_V1_1({{.*}}) after[%[[A]]] :
// CHECK-NEXT:    pto.launch @dyn_leaf_V1_2({{.*}}) after[%[[A]]] :
pto.kernel @dyn(%x: !pto.tensor<?x32xf32>, %y: !pto.tensor<?x32xf32>, %z: !pto.tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = pto.dim %y, 0 : !pto.tensor<?x32xf32>
  %n2 = arith.muli %n, %c8 : index
  %y2 = pto.reshape %y [%n2, 4] inplace : !pto.tensor<?x32xf32> -> !pto.tensor<?x4xf32>
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[%c0, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %y[%c8, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %y[%c0, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %x[%c0, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %y2[%c0, %c0] : !pto.tensor<?x4xf32> -> !pto.tile<8x4xf32>
    pto.atomic_add %a, %z[%c8, %c0] : !pto.tile<8x4xf32>, !pto.tensor<?x32xf32>
  }
}


// Offsets with equal non-constant parts compare by their constants
// (GMAccessAnalysis): the row blocks at 16*i and 16*i + 8 of %y are disjoint,
// so their writers run unordered; the read at 16*i + 4 overlaps both.
// CHECK-LABEL: func.func private @sym_root_L(
// CHECK:         %[[A:.*]] = pto.launch @sym_leaf_V1_0({{.*}}) :
// CHECK-NEXT:    %[[B:.*]] = pto.launch @sym_leaf_V1_0({{.*}}) :
// CHECK-NEXT:    pto.launch @sym_leaf_V2_0({{.*}}) after[%[[A]], %[[B]]] :
pto.kernel @sym(%x: !pto.tensor<?x32xf32>, %y: !pto.tensor<?x32xf32>, %z: !pto.tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %r0 = arith.muli %i, %c16 : index
    %r1 = arith.addi %r0, %c8 : index
    %r2 = arith.addi %r0, %c4 : index
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %x[%r0, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %y[%r0, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %x[%r1, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %y[%r1, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
    pto.task #pto.core<vector> "V2" {
      %a = pto.view %y[%r2, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %z[%r2, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
  }
}

// -----

// Runs end at control flow and scalar reads; index arithmetic between tasks
// is hoisted above the root call. A workspace defined in an outer block but
// used by one inner run stays in the control program (it lives across
// iterations there). Tasks in scf.if branches form their own roots, named
// after the enclosing loop with a suffix. DAV_3510 leaves and roots carry
// pto.arch, so that their ops verify against the right architecture.

// CHECK-LABEL: func.func private @runs_leaf_V1_0(
// CHECK-SAME:      pto.arch = #pto.arch<DAV_3510>
// CHECK-LABEL: func.func private @runs_root_L(
// CHECK-SAME:      pto.arch = #pto.arch<DAV_3510>
// CHECK-SAME:      pto.root
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    pto.workspace : !pto.tensor<8x32xf32>
// CHECK-NEXT:    pto.launch
// CHECK-NEXT:    pto.launch
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @runs_root_L_1(
// CHECK-NOT:     pto.workspace
// CHECK:         return
// CHECK-LABEL: func.func private @runs_root_L_2(
// CHECK-LABEL: func.func private @runs_root_L_3(
// CHECK-LABEL: pto.kernel @runs(
// CHECK:         %[[OUTER:.*]] = pto.workspace : !pto.tensor<8x32xf32>
// CHECK:         pto.loop "L"
// CHECK-NEXT:      %[[A:.*]] = arith.muli
// CHECK-NEXT:      %[[B:.*]] = arith.addi %[[A]]
// CHECK-NEXT:      pto.root_call @runs_root_L(%x, %[[A]], %y, %[[B]])
// CHECK-NEXT:      pto.read
// CHECK-NEXT:      pto.root_call @runs_root_L_1(%x, %[[A]], %[[OUTER]])
// CHECK-NEXT:      arith.cmpi
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        pto.root_call @runs_root_L_2(
// CHECK-NEXT:      } else {
// CHECK-NEXT:        pto.root_call @runs_root_L_3(
pto.kernel @runs(%x: !pto.tensor<?x32xf32>, %y: !pto.tensor<?x32xf32>, %n: !pto.tensor<4xi32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %outer = pto.workspace : !pto.tensor<8x32xf32>
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %c8 : index
    %ws = pto.workspace : !pto.tensor<8x32xf32>
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %x[%off, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %ws[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<8x32xf32>
    }
    %off2 = arith.addi %off, %c8 : index
    pto.task #pto.core<vector> "V2" {
      %a = pto.view %ws[0, 0] : !pto.tensor<8x32xf32> -> !pto.tile<8x32xf32>
      pto.atomic_add %a, %y[%off2, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
    }
    %k = pto.read %n[%i] : !pto.tensor<4xi32>
    pto.task #pto.core<vector> "V1" {
      %a = pto.view %x[%off, %c0] : !pto.tensor<?x32xf32> -> !pto.tile<8x32xf32>
      pto.assemble %a, %outer[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<8x32xf32>
    }
    %odd = arith.cmpi sgt, %k, %c0 : index
    scf.if %odd {
      pto.task #pto.core<vector> "V3" {
        %a = pto.view %outer[0, 0] : !pto.tensor<8x32xf32> -> !pto.tile<8x32xf32>
        pto.atomic_add %a, %y[%off, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
      }
    } else {
      pto.task #pto.core<vector> "V3" {
        %a = pto.view %outer[0, 0] : !pto.tensor<8x32xf32> -> !pto.tile<8x32xf32>
        pto.atomic_add %a, %y[%c0, %c0] : !pto.tile<8x32xf32>, !pto.tensor<?x32xf32>
      }
    }
  }
}

// -----

// Tasks whose bodies differ only in static offsets share one leaf: two
// writers copy rows [0, 8) and [8, 16) of %x into the same rows of a
// workspace, two readers scale rows [0, 8) and [8, 16) of it into the same
// rows of %y. Four tasks, two leaves; each launch passes its own offsets,
// and each reader waits only for the writer of its rows (the dependencies
// come from the tasks' offsets, not from the shared leaf).

// CHECK-LABEL: func.func private @offs_leaf_V1_0(
// CHECK-SAME:      %[[X:[^:]*]]: !pto.tensor<16x32xf32>, %[[WS:[^:]*]]: !pto.tensor<16x32xf32>, %[[O0:[^:]*]]: index, %[[O1:[^:]*]]: index, %[[O2:[^:]*]]: index, %[[O3:[^:]*]]: index)
// CHECK-SAME:      attributes {pto.family = "V1", pto.leaf = #pto.core<vector>}
// CHECK-NEXT:    %[[A:.*]] = pto.view %[[X]][%[[O0]], %[[O1]]] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
// CHECK-NEXT:    pto.assemble %[[A]], %[[WS]] [%[[O2]], %[[O3]]] :
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @offs_leaf_V2_0(
// CHECK-SAME:      %[[WS:[^:]*]]: !pto.tensor<16x32xf32>, %[[Y:[^:]*]]: !pto.tensor<16x32xf32>, %[[O0:[^:]*]]: index, %[[O1:[^:]*]]: index, %[[O2:[^:]*]]: index, %[[O3:[^:]*]]: index)
// CHECK-SAME:      attributes {pto.family = "V2", pto.leaf = #pto.core<vector>}
// CHECK-NEXT:    %[[A:.*]] = pto.view %[[WS]][%[[O0]], %[[O1]]] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
// CHECK-NEXT:    %[[B:.*]] = pto.add %[[A]], %[[A]]
// CHECK-NEXT:    pto.assemble %[[B]], %[[Y]] [%[[O2]], %[[O3]]] :
// CHECK-NEXT:    return
// CHECK-NOT:   func.func private @offs_leaf_V1_1
// CHECK-NOT:   func.func private @offs_leaf_V2_1

// CHECK-LABEL: func.func private @offs_root_main(
// CHECK-SAME:      %[[X:[^:]*]]: !pto.tensor<16x32xf32>, %[[Y:[^:]*]]: !pto.tensor<16x32xf32>) attributes {pto.root}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x32xf32>
// CHECK-NEXT:    %[[W0:.*]] = pto.launch @offs_leaf_V1_0(%[[X]], %[[WS]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]) : (!pto.tensor<16x32xf32>, !pto.tensor<16x32xf32>, index, index, index, index) -> !pto.token
// CHECK-NEXT:    %[[W1:.*]] = pto.launch @offs_leaf_V1_0(%[[X]], %[[WS]], %[[C8]], %[[C0]], %[[C8]], %[[C0]]) : (!pto.tensor<16x32xf32>, !pto.tensor<16x32xf32>, index, index, index, index) -> !pto.token
// CHECK-NEXT:    pto.launch @offs_leaf_V2_0(%[[WS]], %[[Y]], %[[C0]], %[[C0]], %[[C0]], %[[C0]]) after[%[[W0]]] :
// CHECK-NEXT:    pto.launch @offs_leaf_V2_0(%[[WS]], %[[Y]], %[[C8]], %[[C0]], %[[C8]], %[[C0]]) after[%[[W1]]] :
// CHECK-NEXT:    return

// CHECK-LABEL: pto.kernel @offs(
// CHECK-NEXT:    pto.root_call @offs_root_main(%x, %y) : (!pto.tensor<16x32xf32>, !pto.tensor<16x32xf32>) -> ()
// CHECK-NEXT:  }

// REPORT: remark: pto-outline: @offs: 4 tasks -> 2 leaves after deduplication, 1 roots; workspaces: 1 in roots, 0 in the control program
pto.kernel @offs(%x: !pto.tensor<16x32xf32>, %y: !pto.tensor<16x32xf32>) {
  %ws = pto.workspace : !pto.tensor<16x32xf32>
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %ws[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %x[8, 0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %a, %ws[8, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V2" {
    %a = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    %b = pto.add %a, %a {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32>, !pto.tile<8x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %b, %y[0, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
  pto.task #pto.core<vector> "V2" {
    %a = pto.view %ws[8, 0] : !pto.tensor<16x32xf32> -> !pto.tile<8x32xf32>
    %b = pto.add %a, %a {vec_tile = #pto.vec_tile<[8, 32]>} : !pto.tile<8x32xf32>, !pto.tile<8x32xf32> -> !pto.tile<8x32xf32>
    pto.assemble %b, %y[8, 0] : !pto.tile<8x32xf32>, !pto.tensor<16x32xf32>
  }
}

// -----

// No tasks: nothing changes.
// CHECK-LABEL: pto.kernel @empty(
// CHECK-NOT:   func.func
pto.kernel @empty(%x: !pto.tensor<16xf32>) {
}
