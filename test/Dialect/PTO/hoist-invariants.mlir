// RUN: pto-opt %s -split-input-file -pto-hoist-invariants | FileCheck %s
// RUN: pto-opt %s -split-input-file '-pto-hoist-invariants=speculate-reads=false' | FileCheck %s --check-prefix=STRICT
// RUN: pto-opt %s -split-input-file '-pto-hoist-invariants=report=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir -pto-flatten-scopes -pto-hoist-invariants | FileCheck %s --check-prefix=SK16
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir -pto-flatten-scopes '-pto-hoist-invariants=report=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SK16-REPORT
// RUN: pto-opt %{pto_src_root}/examples/sk16_attention_backward.mlir -pto-hoist-invariants | FileCheck %s --check-prefix=SCOPED

// SK-16 (docs/SK16.md#dvec-hoisting): Dvec = rowsum(f32(o_i) * f32(do_i)) depends on
// (b, n, s1_idx) only. After pto-flatten-scopes its chain (the s1 offset
// arithmetic, the views q_i, do_i, o_i, m_i, l_i, the two casts, the multiply
// and the row sum) leaves LOOP_s2_dq, keeping its scope stamp, and stays in
// LOOP_s1_dq, whose index the views depend on. Everything depending on s2_idx
// stays, and nothing leaves LOOP_n_calc or LOOP_b_calc.

// SK16-LABEL: pto.kernel @sk16_attention_backward(
// SK16:         pto.loop "LOOP_b_calc" %b_idx
// SK16:           pto.loop "LOOP_n_calc" %n_idx
// SK16-NEXT:        %[[H:.*]] = arith.muli %n_idx
// SK16-NEXT:        pto.loop "LOOP_s1_dq" %s1_idx
// SK16-NEXT:          %[[S1B:.*]] = arith.muli %s1_idx
// SK16-NEXT:          %[[S1OFF:.*]] = arith.addi %{{.*}}, %[[S1B]]
// SK16-NEXT:          %[[S1REST:.*]] = arith.subi %{{.*}}, %[[S1B]]
// SK16-NEXT:          %[[AS1:.*]] = arith.minsi %[[S1REST]]
// SK16-NEXT:          %[[QI:.*]] = pto.view %{{.*}}[%[[S1OFF]], %[[H]]] valid [%[[AS1]], 128]
// SK16-NEXT:          %[[DOI:.*]] = pto.view %{{.*}}[%[[S1OFF]], %[[H]]] valid [%[[AS1]], 128]
// SK16-NEXT:          %[[OI:.*]] = pto.view %{{.*}}[%[[S1OFF]], %[[H]]] valid [%[[AS1]], 128]
// SK16-NEXT:          %[[MI:.*]] = pto.view %{{.*}}[%[[S1OFF]], %n_idx] valid [%[[AS1]], 1]
// SK16-NEXT:          %[[LI:.*]] = pto.view %{{.*}}[%[[S1OFF]], %n_idx] valid [%[[AS1]], 1]
// SK16-NEXT:          %[[DO32:.*]] = pto.cast %[[DOI]] {pto.scope = #pto.scope<id = 1>
// SK16-NEXT:          %[[O32:.*]] = pto.cast %[[OI]] {pto.scope = #pto.scope<id = 1>
// SK16-NEXT:          %[[T:.*]] = pto.mul %[[O32]], %[[DO32]] {pto.scope = #pto.scope<id = 1>
// SK16-NEXT:          %[[DVEC:.*]] = pto.sum %[[T]] dim = 1 keepdim {pto.scope = #pto.scope<id = 1>
// SK16-NEXT:          pto.loop "LOOP_s2_dq" %s2_idx
// SK16-NEXT:            %[[S2B:.*]] = arith.muli %s2_idx
// SK16-NEXT:            %[[S2OFF:.*]] = arith.addi %{{.*}}, %[[S2B]]
// SK16-NEXT:            arith.subi
// SK16-NEXT:            arith.minsi
// SK16-NEXT:            %[[KJ:.*]] = pto.view %{{.*}}[%[[S2OFF]], %[[H]]]
// SK16-NEXT:            %[[VJ:.*]] = pto.view %{{.*}}[%[[S2OFF]], %[[H]]]
// SK16-NEXT:            %[[S:.*]] = pto.matmul %[[QI]], %[[KJ]]
// SK16-NEXT:            %[[DP:.*]] = pto.matmul %[[DOI]], %[[VJ]]
// SK16-NEXT:            pto.mul %[[S]]
// SK16-NEXT:            pto.sub %{{.*}}, %[[MI]]
// SK16-NEXT:            pto.exp
// SK16-NEXT:            pto.div %{{.*}}, %[[LI]]
// SK16-NEXT:            pto.sub %[[DP]], %[[DVEC]] {pto.scope = #pto.scope<id = 1>
// SK16-NOT:             pto.loop
// SK16:                 pto.atomic_add {{.*}} %dk
// SK16-NEXT:          {{^ +}}}{{$}}
// SK16-NEXT:        {{^ +}}}{{$}}
// SK16-NEXT:      {{^ +}}}{{$}}
// SK16-NEXT:    {{^ +}}}{{$}}

// 4 offset ops, 5 views, 2 casts, the multiply and the sum: 13 ops, each out
// of LOOP_s2_dq only.
// SK16-REPORT-COUNT-13: remark: hoisted out of pto.loop "LOOP_s2_dq"{{$}}
// SK16-REPORT-NOT: remark

// Without pto-flatten-scopes the ops inside pto.scope regions stay: only the
// offset arithmetic and the views leave LOOP_s2_dq, the casts do not.
// SCOPED:      pto.loop "LOOP_s1_dq" %s1_idx
// SCOPED-COUNT-4: arith.
// SCOPED-COUNT-5: pto.view
// SCOPED-NEXT: pto.loop "LOOP_s2_dq" %s2_idx
// SCOPED:        pto.scope #pto.scope<id = 1>
// SCOPED-NEXT:     pto.cast

// -----

// An op depending on the induction variable stays; an invariant one leaves.

// CHECK-LABEL: pto.kernel @iv_dependent(
// CHECK:         %[[E:.*]] = pto.exp %[[V:.*]] :
// CHECK-NEXT:    pto.loop "L" %i
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %i
// CHECK-NEXT:      pto.view %x[%[[OFF]], 0]
pto.kernel @iv_dependent(%x: !pto.tensor<256x64xf32>, %out: !pto.tensor<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %v = pto.view %x[0, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    %off = arith.muli %i, %c64 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
    %s = pto.add %t, %e : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.assemble %s, %out[%off, 0] : !pto.tile<64x64xf32>, !pto.tensor<256x64xf32>
  }
}

// -----

// A view of a tensor the loop writes stays, also when the write goes through
// an in-place reshape of the same argument; a view of another tensor leaves.

// CHECK-LABEL: pto.kernel @written_in_loop(
// CHECK:         %[[OTHER:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:    pto.loop "L" %i
// CHECK-NEXT:      %[[SELF:.*]] = pto.view %acc[0, 0]
// CHECK-NEXT:      %[[ALIAS:.*]] = pto.view %{{.*}}[0]
// CHECK:           pto.atomic_add
pto.kernel @written_in_loop(%x: !pto.tensor<64x64xf32>, %acc: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flat = pto.reshape %acc [4096] inplace : !pto.tensor<64x64xf32> -> !pto.tensor<4096xf32>
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %other = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
    %self = pto.view %acc[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
    %alias = pto.view %flat[0] : !pto.tensor<4096xf32> -> !pto.tile<64xf32>
    %s = pto.add %self, %other : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %s, %acc[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
}

// -----

// Scalar reads: a read of a tensor the loop does not write leaves, one of a
// tensor it writes stays.

// CHECK-LABEL: pto.kernel @scalar_reads(
// CHECK:         %[[R:.*]] = pto.read %offs[%c1]
// CHECK-NEXT:    pto.loop "L" %i
// CHECK-NEXT:      pto.read %cnt[%c1]
pto.kernel @scalar_reads(%offs: !pto.tensor<4xi32>, %cnt: !pto.tensor<4xi32>, %y: !pto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %r = pto.read %offs[%c1] : !pto.tensor<4xi32>
    %w = pto.read %cnt[%c1] : !pto.tensor<4xi32>
    %a = arith.addi %r, %w : index
    %t = pto.view %y[%a] : !pto.tensor<64xf32> -> !pto.tile<4xf32>
    %ti = pto.cast %t : !pto.tile<4xf32> -> !pto.tile<4xi32>
    pto.assemble %ti, %cnt[0] : !pto.tile<4xi32>, !pto.tensor<4xi32>
  }
}

// -----

// Nested loops, inner first: %a (invariant in both) leaves both loops, %b
// (depends on the outer index) leaves the inner loop only, %c (inner index)
// stays. The ops keep their order.

// CHECK-LABEL: pto.kernel @nested(
// CHECK:         %[[A:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:    %[[EA:.*]] = pto.exp %[[A]]
// CHECK-NEXT:    pto.loop "outer" %i
// CHECK-NEXT:      %[[OI:.*]] = arith.muli %i
// CHECK-NEXT:      %[[B:.*]] = pto.view %x[%[[OI]], 0]
// CHECK-NEXT:      %[[AB:.*]] = pto.add %[[EA]], %[[B]]
// CHECK-NEXT:      pto.loop "inner" %j
// CHECK-NEXT:        %[[OJ:.*]] = arith.muli %j
// CHECK-NEXT:        %[[C:.*]] = pto.view %x[%[[OJ]], 0]
// CHECK-NEXT:        pto.add %[[AB]], %[[C]]
// CHECK-NEXT:        pto.atomic_add
pto.kernel @nested(%x: !pto.tensor<256x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pto.loop "outer" %i = %c0 to %c4 step %c1 {
    pto.loop "inner" %j = %c0 to %c4 step %c1 {
      // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "inner", then "outer"
      %a = pto.view %x[0, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
      // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "inner", then "outer"
      %ea = pto.exp %a : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "inner"
      %oi = arith.muli %i, %c64 : index
      // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "inner"
      %b = pto.view %x[%oi, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
      // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "inner"
      %ab = pto.add %ea, %b : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      %oj = arith.muli %j, %c64 : index
      %c = pto.view %x[%oj, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
      %s = pto.add %ab, %c : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      pto.atomic_add %s, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
    }
  }
}

// -----

// Loop-carried values are untouched: an op on the iter_arg stays, the
// iter_args, the yield and the results keep their form. The invariant
// operand of the update leaves.

// CHECK-LABEL: pto.kernel @loop_carried(
// CHECK:         %[[E:.*]] = pto.exp %[[INIT:.*]] :
// CHECK-NEXT:    %[[R:.*]] = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!pto.tile<64x64xf32>) {
// CHECK-NEXT:      %[[N:.*]] = pto.add %[[ACC]], %[[E]]
// CHECK-NEXT:      pto.yield %[[N]] : !pto.tile<64x64xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.assemble %[[R]]
pto.kernel @loop_carried(%x: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %r = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pto.tile<64x64xf32>) {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %e = pto.exp %init : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    %n = pto.add %acc, %e : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.yield %n : !pto.tile<64x64xf32>
  }
  pto.assemble %r, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
}

// -----

// IR without loops is unchanged.

// CHECK-LABEL: pto.kernel @no_loops(
// CHECK-NEXT:    %[[V:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:    %[[E:.*]] = pto.exp %[[V]]
// CHECK-NEXT:    pto.assemble %[[E]], %out [0, 0]
// CHECK-NEXT:  }
pto.kernel @no_loops(%x: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
  %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
  pto.assemble %e, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
}

// -----

// Zero-trip loops. A loop with a run-time trip count may run zero times: a
// division by a run-time value (may fault) stays, a division by a non-zero
// constant leaves. GM views and reshapes leave by default (speculate-reads);
// with speculate-reads=false they leave only loops that provably run
// (constant bounds), and so do the ops using them.

// CHECK-LABEL: pto.kernel @zero_trip(
// CHECK:         %[[DIVC:.*]] = arith.divsi %[[N:.*]], %c4
// CHECK-NEXT:    %[[V:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:    %[[E:.*]] = pto.exp %[[V]]
// CHECK-NEXT:    pto.reshape %x
// CHECK-NEXT:    pto.loop "dynamic" %i
// CHECK-NEXT:      arith.divsi %c4, %[[N]]
// CHECK:         %[[W:.*]] = pto.view %x[64, 0]
// CHECK-NEXT:    pto.loop "static" %j

// STRICT-LABEL: pto.kernel @zero_trip(
// STRICT:         %[[DIVC:.*]] = arith.divsi %[[N:.*]], %c4
// STRICT-NEXT:    pto.loop "dynamic" %i
// STRICT-NEXT:      arith.divsi %c4, %[[N]]
// STRICT-NEXT:      pto.view %x[0, 0]
// STRICT-NEXT:      pto.exp
// STRICT-NEXT:      pto.reshape %x
// STRICT:         %[[W:.*]] = pto.view %x[64, 0]
// STRICT-NEXT:    pto.loop "static" %j
pto.kernel @zero_trip(%x: !pto.tensor<128x64xf32>, %offs: !pto.tensor<2xi32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = pto.read %offs[%c1] : !pto.tensor<2xi32>
  pto.loop "dynamic" %i = %c0 to %n step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "dynamic"
    %q = arith.divsi %n, %c4 : index
    %d = arith.divsi %c4, %n : index
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "dynamic"
    %v = pto.view %x[0, 0] : !pto.tensor<128x64xf32> -> !pto.tile<64x64xf32>
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "dynamic"
    %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "dynamic"
    %flat = pto.reshape %x [8192] inplace : !pto.tensor<128x64xf32> -> !pto.tensor<8192xf32>
    %t = pto.view %x[%d, %q] : !pto.tensor<128x64xf32> -> !pto.tile<64x64xf32>
    %s = pto.add %e, %t : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %s, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
  pto.loop "static" %j = %c0 to %c2 step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "static"
    %w = pto.view %x[64, 0] : !pto.tensor<128x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %w, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
}

// -----

// A workspace written in the loop is not read early; a pto.scope region still
// present keeps its ops (only its invariant operands' producers leave).

// CHECK-LABEL: pto.kernel @workspace_and_scope(
// CHECK:         %[[WS:.*]] = pto.workspace
// CHECK-NEXT:    %[[V:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:    pto.loop "L" %i
// CHECK-NEXT:      pto.view %[[WS]][0, 0]
// CHECK-NEXT:      pto.scope #pto.scope<id = 1>
// CHECK-NEXT:        pto.exp %[[V]]
pto.kernel @workspace_and_scope(%x: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ws = pto.workspace : !pto.tensor<64x64xf32>
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %w = pto.view %ws[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.scope #pto.scope<id = 1> -> (!pto.tile<64x64xf32>) {
      %e0 = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      pto.yield %e0 : !pto.tile<64x64xf32>
    }
    %s = pto.add %e, %w : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.assemble %s, %ws[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
    pto.atomic_add %s, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
  }
}

// -----

// Writes compare by region (GMAccessAnalysis): a write at a loop-invariant
// offset blocks only the reads it may overlap; a write whose offset moves
// with the loop may reach any row, so every read of that tensor stays.

// CHECK-LABEL: pto.kernel @disjoint_regions(
// CHECK:         pto.view %acc[0, 0]
// CHECK-NEXT:    pto.loop "L" %i
// CHECK-NEXT:      pto.view %acc[16, 0]
// CHECK:         pto.loop "M" %j
// CHECK-NEXT:      pto.view %acc[0, 0]
pto.kernel @disjoint_regions(%x: !pto.tensor<64x64xf32>, %acc: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  pto.loop "L" %i = %c0 to %c2 step %c1 {
    // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: hoisted out of pto.loop "L"
    %below = pto.view %acc[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
    %overlapping = pto.view %acc[16, 0] : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
    %s = pto.add %below, %overlapping : !pto.tile<32x64xf32>, !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
    pto.atomic_add %s, %acc[32, 0] : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  }
  pto.loop "M" %j = %c0 to %c2 step %c1 {
    %first = pto.view %acc[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<32x64xf32>
    %off = arith.muli %j, %c32 : index
    pto.atomic_add %first, %acc[%off, 0] : !pto.tile<32x64xf32>, !pto.tensor<64x64xf32>
  }
}
