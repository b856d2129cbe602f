// RUN: pto-opt %s -split-input-file -pto-flatten-scopes | FileCheck %s

// pto-flatten-scopes: each op of a pto.scope moves in front of the region
// and carries `pto.scope = #pto.scope<...>` (the scope's flags included);
// uses of the scope's results use the yielded values.

// CHECK-LABEL: pto.kernel @stamp_with_flags(
// CHECK-NOT:     pto.scope #pto.scope
// CHECK:         %[[T:.*]] = pto.view %x[0, 0] :
// CHECK-NEXT:    %[[E:.*]] = pto.exp %[[T]] {pto.scope = #pto.scope<id = 7, allow_parallel_merge = true, allow_cross_scope_merge = true>}
// CHECK-NEXT:    %[[N:.*]] = pto.neg %[[E]] {pto.scope = #pto.scope<id = 7, allow_parallel_merge = true, allow_cross_scope_merge = true>}
// CHECK-NEXT:    %[[A:.*]] = pto.add %[[N]], %[[E]] :
// CHECK-NEXT:    pto.assemble %[[A]], %out [0, 0] :
// CHECK-NOT:     pto.scope
pto.kernel @stamp_with_flags(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %r:2 = pto.scope #pto.scope<id = 7, allow_parallel_merge = true, allow_cross_scope_merge = true>
      -> (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) {
    %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.yield %n, %e : !pto.tile<16x64xf32>, !pto.tile<16x64xf32>
  }
  %a = pto.add %r#0, %r#1 : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %a, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// Ops in regions nested in a scope (an scf.if) are stamped too, and so is
// the op holding them. A scope in a loop body stays in the body.

// CHECK-LABEL: pto.kernel @nested_region(
// CHECK:         pto.loop "L" %i
// CHECK-NEXT:      %[[T:.*]] = pto.view %x[0, 0] :
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[T]] {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:      %[[B:.*]] = pto.is_loop_begin %i {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:      %[[S:.*]] = scf.if %[[B]] -> (!pto.tile<16x64xf32>) {
// CHECK-NEXT:        %[[N:.*]] = pto.neg %[[E]] {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:        scf.yield {pto.scope = #pto.scope<id = 1>} %[[N]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield {pto.scope = #pto.scope<id = 1>} %[[E]]
// CHECK-NEXT:      } {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:      pto.assemble %[[S]], %out [0, 0] : !pto.tile<16x64xf32>
// CHECK-NEXT:    }
pto.kernel @nested_region(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    %r = pto.scope #pto.scope<id = 1> -> (!pto.tile<16x64xf32>) {
      %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
      %first = pto.is_loop_begin %i
      %s = scf.if %first -> (!pto.tile<16x64xf32>) {
        %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
        scf.yield %n : !pto.tile<16x64xf32>
      } else {
        scf.yield %e : !pto.tile<16x64xf32>
      }
      pto.yield %s : !pto.tile<16x64xf32>
    }
    pto.assemble %r, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

// -----

// Two scopes: each op gets the stamp of its own scope; the second scope reads
// the first one's result, which becomes the yielded value; a scope without
// results dissolves too.

// CHECK-LABEL: pto.kernel @two_scopes(
// CHECK:         %[[T:.*]] = pto.view %x[0, 0] :
// CHECK-NEXT:    %[[E:.*]] = pto.exp %[[T]] {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:    %[[N:.*]] = pto.neg %[[E]] {pto.scope = #pto.scope<id = 2>}
// CHECK-NEXT:    pto.assemble %[[N]], %out [0, 0] {pto.scope = #pto.scope<id = 2>}
// CHECK-NEXT:  }
pto.kernel @two_scopes(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.scope #pto.scope<id = 1> -> (!pto.tile<16x64xf32>) {
    %0 = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.yield %0 : !pto.tile<16x64xf32>
  }
  pto.scope #pto.scope<id = 2> {
    %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %n, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

// -----

// IR without scopes is left unchanged.

// CHECK-LABEL: pto.kernel @no_scopes(
// CHECK-NEXT:    %[[T:.*]] = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    %[[E:.*]] = pto.exp %[[T]] : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
// CHECK-NEXT:    pto.assemble %[[E]], %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   pto.scope
pto.kernel @no_scopes(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %e, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}
