// RUN: split-file %s %t
// RUN: pto-opt %t/partition.mlir -split-input-file --pto-flatten-scopes --pto-expand-tiles --pto-partition | FileCheck %t/partition.mlir
// RUN: pto-opt %t/scope-left.mlir --pto-partition -verify-diagnostics -o /dev/null
// RUN: pto-opt %t/sink-views.mlir -split-input-file --pto-partition | FileCheck %t/sink-views.mlir
// RUN: pto-opt %t/sink-views.mlir -split-input-file --pto-partition=sink-views=false | FileCheck %t/sink-views.mlir --check-prefix=NOSINK
// RUN: pto-opt %t/split-mix.mlir --pto-flatten-scopes --pto-expand-tiles --pto-partition=split-mix=true | FileCheck %t/split-mix.mlir

// pto-partition: expanded tile ops grouped into pto.task regions following
// PyPTO's GraphPartition (docs/TileGraph.md, "After pto-partition"). Tiles
// are small so that every case expands to a few pieces.

//--- partition.mlir

// A cube matmul feeding a vector op in a scope: one C1 cube task (the matmul
// and its store into the workspace) and one V1 vector task reading the
// workspace. The vector op's own workspace round trip is forwarded.

// CHECK-LABEL: pto.kernel @cube_then_vector(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x16xf32>
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      %[[B:.*]] = pto.view %b[0, 0]
// CHECK-NEXT:      %[[C:.*]] = pto.matmul %[[A]], %[[B]]
// CHECK-NEXT:      pto.assemble %[[C]], %[[WS]] [0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[R:.*]] = pto.view %[[WS]][0, 0] valid [16, 16] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[R]] {pto.scope = #pto.scope<id = 1>
// CHECK-NEXT:      pto.assemble %[[E]], %out [0, 0] {pto.scope = #pto.scope<id = 1>}
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:  }
pto.kernel @cube_then_vector(%a: !pto.tensor<16x32xbf16>, %b: !pto.tensor<32x16xbf16>, %out: !pto.tensor<16x16xf32>) {
  %ta = pto.view %a[0, 0] : !pto.tensor<16x32xbf16> -> !pto.tile<16x32xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<32x16xbf16> -> !pto.tile<32x16xbf16>
  %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [16, 16]>}
      : !pto.tile<16x32xbf16>, !pto.tile<32x16xbf16> -> !pto.tile<16x16xf32>
  pto.scope #pto.scope<id = 1> {
    %e = pto.exp %c {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}

// -----

// A vector chain in one scope with the same tiling: each piece's chain is one
// task, the exp -> neg -> store round trips through workspaces are forwarded
// and no workspace is left. (The two pieces share no data: two tasks.)

// CHECK-LABEL: pto.kernel @vector_chain(
// CHECK-NOT:     pto.workspace
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X:.*]] = pto.view %x[0, 0] valid [16, 64]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[X]]
// CHECK-NEXT:      %[[N:.*]] = pto.neg %[[E]]
// CHECK-NEXT:      pto.assemble %[[N]], %out [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X1:.*]] = pto.view %x[16, 0] valid [16, 64]
// CHECK-NEXT:      %[[E1:.*]] = pto.exp %[[X1]]
// CHECK-NEXT:      %[[N1:.*]] = pto.neg %[[E1]]
// CHECK-NEXT:      pto.assemble %[[N1]], %out [16, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:  }
pto.kernel @vector_chain(%x: !pto.tensor<32x64xf32>, %out: !pto.tensor<32x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<32x64xf32> -> !pto.tile<32x64xf32>
  pto.scope #pto.scope<id = 1> {
    %e = pto.exp %t {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
    %n = pto.neg %e {vec_tile = #pto.vec_tile<[16, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
    pto.assemble %n, %out[0, 0] : !pto.tile<32x64xf32>, !pto.tensor<32x64xf32>
  }
}

// -----

// Different scope ids never merge, even along a data edge between ops of one
// kind: the workspace between them stays.

// CHECK-LABEL: pto.kernel @two_ids(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x64xf32>
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.exp
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[R:.*]] = pto.view %[[WS]][0, 0]
// CHECK-NEXT:      %[[N:.*]] = pto.neg %[[R]]
// CHECK-NEXT:      pto.assemble %[[N]], %out [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 2>}
pto.kernel @two_ids(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
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

// allow_parallel_merge: independent ops of the scope id share one task.

// CHECK-LABEL: pto.kernel @parallel_merge(
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[X]]
// CHECK-NEXT:      pto.assemble %[[E]], %o1 [0, 0]
// CHECK-NEXT:      %[[Y:.*]] = pto.view %y[0, 0]
// CHECK-NEXT:      %[[N:.*]] = pto.neg %[[Y]]
// CHECK-NEXT:      pto.assemble %[[N]], %o2 [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 3, allow_parallel_merge = true>}
// CHECK-NEXT:  }
pto.kernel @parallel_merge(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>,
                           %o1: !pto.tensor<16x64xf32>, %o2: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %u = pto.view %y[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  pto.scope #pto.scope<id = 3, allow_parallel_merge = true> {
    %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %e, %o1[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
    %n = pto.neg %u : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %n, %o2[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

// -----

// Without allow_parallel_merge the same ops form two tasks.

// CHECK-LABEL: pto.kernel @no_parallel_merge(
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.assemble %{{.*}}, %o1 [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 3>}
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.assemble %{{.*}}, %o2 [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 3>}
pto.kernel @no_parallel_merge(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>,
                              %o1: !pto.tensor<16x64xf32>, %o2: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %u = pto.view %y[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  pto.scope #pto.scope<id = 3> {
    %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %e, %o1[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
    %n = pto.neg %u : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %n, %o2[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

// -----

// allow_cross_scope_merge: the scope absorbs its unscoped neighbours (the neg
// and the store after it); the workspace between them is forwarded.

// CHECK-LABEL: pto.kernel @cross_scope_merge(
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[X]] {pto.scope = #pto.scope<id = 4, allow_cross_scope_merge = true>}
// CHECK-NEXT:      %[[N:.*]] = pto.neg %[[E]] :
// CHECK-NEXT:      pto.assemble %[[N]], %out [0, 0] :
// CHECK-NEXT:    } {scope = #pto.scope<id = 4, allow_cross_scope_merge = true>}
// CHECK-NEXT:  }
pto.kernel @cross_scope_merge(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.scope #pto.scope<id = 4, allow_cross_scope_merge = true> -> (!pto.tile<16x64xf32>) {
    %0 = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.yield %0 : !pto.tile<16x64xf32>
  }
  %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %n, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// Without the flag, the unscoped neighbours form a task of their own.

// CHECK-LABEL: pto.kernel @no_cross_scope_merge(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.exp
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 4>}
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.neg
// CHECK-NEXT:      pto.assemble %{{.*}}, %out [0, 0]
// CHECK-NEXT:    }{{$}}
pto.kernel @no_cross_scope_merge(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.scope #pto.scope<id = 4> -> (!pto.tile<16x64xf32>) {
    %0 = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.yield %0 : !pto.tile<16x64xf32>
  }
  %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %n, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// Unscoped ops of one kind connected by data merge into one task (with no
// scope attribute).

// CHECK-LABEL: pto.kernel @unscoped_chain(
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[X:.*]] = pto.view %x[0, 0]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[X]] :
// CHECK-NEXT:      %[[N:.*]] = pto.neg %[[E]] :
// CHECK-NEXT:      pto.assemble %[[N]], %out [0, 0] :
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:  }
pto.kernel @unscoped_chain(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %n = pto.neg %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %n, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
}

// -----

// On DAV_3510 a scope mixing cube and vector ops becomes one MIX task; the
// matmul result is forwarded to the exp inside it, no workspace is left.

// CHECK-LABEL: pto.kernel @mixed_scope_3510(
// CHECK-NOT:     pto.workspace
// CHECK:         pto.task #pto.core<mix> "M1" {
// CHECK-NEXT:      %[[A:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      %[[B:.*]] = pto.view %b[0, 0]
// CHECK-NEXT:      %[[C:.*]] = pto.matmul %[[A]], %[[B]]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[C]]
// CHECK-NEXT:      pto.assemble %[[E]], %out [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:  }
pto.kernel @mixed_scope_3510(%a: !pto.tensor<16x32xbf16>, %b: !pto.tensor<32x16xbf16>, %out: !pto.tensor<16x16xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %ta = pto.view %a[0, 0] : !pto.tensor<16x32xbf16> -> !pto.tile<16x32xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<32x16xbf16> -> !pto.tile<32x16xbf16>
  pto.scope #pto.scope<id = 1> {
    %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [16, 16]>}
        : !pto.tile<16x32xbf16>, !pto.tile<32x16xbf16> -> !pto.tile<16x16xf32>
    %e = pto.exp %c : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}

// -----

// No merge creates a cycle: vector A feeds cube B and, directly, vector C,
// which also reads B. Merging A and C would make {A, C} -> B -> {A, C}, so
// A and C stay in separate tasks (V1 and V2) around the cube task.

// CHECK-LABEL: pto.kernel @no_cycle(
// CHECK-NEXT:    %[[WA:.*]] = pto.workspace
// CHECK-NEXT:    %[[WB:.*]] = pto.workspace
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %x
// CHECK-NEXT:      pto.exp
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WA]] [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A:.*]] = pto.view %[[WA]][0, 0]
// CHECK-NEXT:      %[[W:.*]] = pto.view %w[0, 0]
// CHECK-NEXT:      %[[B:.*]] = pto.matmul %[[A]], %[[W]]
// CHECK-NEXT:      pto.assemble %[[B]], %[[WB]] [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V2" {
// CHECK-NEXT:      %[[RB:.*]] = pto.view %[[WB]][0, 0]
// CHECK-NEXT:      %[[RA:.*]] = pto.view %[[WA]][0, 0]
// CHECK-NEXT:      %[[C:.*]] = pto.add %[[RB]], %[[RA]]
// CHECK-NEXT:      pto.assemble %[[C]], %out [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
pto.kernel @no_cycle(%x: !pto.tensor<16x16xf32>, %w: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %tw = pto.view %w[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %a = pto.exp %t : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  %b = pto.matmul %a, %tw {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
      : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  %c = pto.add %b, %a : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %c, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
}

// -----

// Families on an SK-16-shaped chain: S = Q·Kᵀ (cube), P = bf16(exp(S)) in
// scope 1 (vector), dV = Pᵀ·dO (cube), then scale and atomic_add in scope 2
// (vector): C1, V1, C2, V2, with a workspace between each pair.

// CHECK-LABEL: pto.kernel @sk16_families(
// CHECK-NEXT:    %[[WS:.*]] = pto.workspace : !pto.tensor<16x16xf32>
// CHECK-NEXT:    %[[WP:.*]] = pto.workspace : !pto.tensor<16x16xbf16>
// CHECK-NEXT:    %[[WDV:.*]] = pto.workspace : !pto.tensor<16x16xf32>
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK:           pto.matmul {{.*}} {b_trans,
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %[[WS]][0, 0]
// CHECK-NEXT:      pto.exp
// CHECK-NEXT:      pto.cast
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WP]] [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 1>}
// CHECK-NEXT:    pto.task #pto.core<cube> "C2" {
// CHECK-NEXT:      pto.view %[[WP]][0, 0]
// CHECK-NEXT:      pto.view %do[0, 0]
// CHECK-NEXT:      pto.matmul {{.*}} {a_trans,
// CHECK-NEXT:      pto.assemble %{{.*}}, %[[WDV]] [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V2" {
// CHECK-NEXT:      pto.view %[[WDV]][0, 0]
// CHECK-NEXT:      pto.mul
// CHECK-NEXT:      pto.atomic_add %{{.*}}, %dv [0, 0]
// CHECK-NEXT:    } {scope = #pto.scope<id = 2>}
// CHECK-NEXT:  }
pto.kernel @sk16_families(%q: !pto.tensor<16x16xbf16>, %k: !pto.tensor<16x16xbf16>,
                          %do: !pto.tensor<16x16xbf16>, %dv: !pto.tensor<16x16xf32>) {
  %tq = pto.view %q[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %tk = pto.view %k[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %tdo = pto.view %do[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %s = pto.matmul %tq, %tk {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
      : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  %pb = pto.scope #pto.scope<id = 1> -> (!pto.tile<16x16xbf16>) {
    %p = pto.exp %s : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    %0 = pto.cast %p : !pto.tile<16x16xf32> -> !pto.tile<16x16xbf16>
    pto.yield %0 : !pto.tile<16x16xbf16>
  }
  %g = pto.matmul %pb, %tdo {a_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
      : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.scope #pto.scope<id = 2> {
    %cst = arith.constant 5.000000e-01 : f32
    %1 = pto.mul %g, %cst : !pto.tile<16x16xf32>, f32 -> !pto.tile<16x16xf32>
    pto.atomic_add %1, %dv[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}

// -----

// An in-place reshape of a workspace is another view of the same bytes: the
// read through it waits for every store into the workspace, whatever their
// boxes are in the other shape's coordinates (compared as if in one shape,
// the store at [0, 8] would miss the read's box).

// CHECK-LABEL: pto.kernel @reshaped_workspace(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<4x16xf32>
// CHECK:         %[[R:.*]] = pto.reshape %[[WS]]
// CHECK:         pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK:         pto.assemble %{{.*}}, %[[WS]] [0, 8]
// CHECK:         pto.view %[[R]][0, 0]
// CHECK-NOT:     pto.assemble %{{.*}}, %[[WS]]
pto.kernel @reshaped_workspace(%x: !pto.tensor<4x16xf32>, %out: !pto.tensor<8x8xf32>) {
  %ws = pto.workspace : !pto.tensor<4x16xf32>
  %t = pto.view %x[0, 0] : !pto.tensor<4x16xf32> -> !pto.tile<4x16xf32>
  %e = pto.exp %t {vec_tile = #pto.vec_tile<[4, 8]>} : !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %e, %ws[0, 0] {vec_tile = #pto.vec_tile<[4, 8]>} : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %r = pto.reshape %ws [8, 8] inplace : !pto.tensor<4x16xf32> -> !pto.tensor<8x8xf32>
  %back = pto.view %r[0, 0] : !pto.tensor<8x8xf32> -> !pto.tile<8x8xf32>
  pto.assemble %back, %out[0, 0] {vec_tile = #pto.vec_tile<[8, 8]>} : !pto.tile<8x8xf32>, !pto.tensor<8x8xf32>
}

// -----

// A tile stored at a dynamic offset and summed over its rows, in two row
// pieces. The stores of the pieces into %y, at 16*i and 16*i + 8, are
// disjoint (GMAccessAnalysis: equal non-constant parts, disjoint constants)
// and need no order; the add combining the partial sums reads both partial
// tiles themselves (SSA values, which no task boundary passes), so both
// pieces, their stores and partial sums form one task and no workspace is
// left.

// CHECK-LABEL: pto.kernel @stored_and_column_summed(
// CHECK:         pto.loop
// CHECK-NOT:       pto.workspace
// CHECK:           pto.task #pto.core<vector> "V1" {
// CHECK-NOT:       pto.task
// CHECK:             pto.assemble %{{.*}}, %y [%{{.*}}, 0]
// CHECK-NEXT:        pto.assemble %{{.*}}, %y [%{{.*}}, 0]
// CHECK-NEXT:        %[[S0:.*]] = pto.sum
// CHECK-NEXT:        %[[S1:.*]] = pto.sum
// CHECK-NEXT:        pto.add %[[S0]], %[[S1]]
// CHECK:             pto.assemble %{{.*}}, %acc [0, 0] {{.*}} !pto.tensor<1x16xf32>{{$}}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
pto.kernel @stored_and_column_summed(%x: !pto.tensor<?x16xf32>, %y: !pto.tensor<?x16xf32>,
                                     %acc: !pto.tensor<1x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %0 = pto.dim %x, 0 : !pto.tensor<?x16xf32>
  %1 = arith.floordivsi %0, %c16 : index
  pto.loop "rows" %i = %c0 to %1 step %c1 {
    %2 = arith.muli %i, %c16 : index
    %3 = pto.view %x[%2, 0] : !pto.tensor<?x16xf32> -> !pto.tile<16x16xf32>
    %4 = pto.mul %3, %3 {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %4, %y [%2, 0] {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<16x16xf32>, !pto.tensor<?x16xf32>
    %5 = pto.sum %4 dim = 0 keepdim {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<1x16xf32>
    %6 = pto.view %acc[0, 0] : !pto.tensor<1x16xf32> -> !pto.tile<1x16xf32>
    %7 = pto.add %6, %5 {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<1x16xf32>, !pto.tile<1x16xf32> -> !pto.tile<1x16xf32>
    pto.assemble %7, %acc [0, 0] {vec_tile = #pto.vec_tile<[8, 16]>} : !pto.tile<1x16xf32>, !pto.tensor<1x16xf32>
  }
}

// -----

// A row maximum that the loop carries: its full-window view (read by the
// yield, not by a task) moves down to the yield, so the maximum's pieces and
// the subtraction reading them share one task per piece instead of being
// cut into two tasks at the view's old place.

// CHECK-LABEL: pto.kernel @carried_max(
// CHECK:         pto.loop
// CHECK:           %[[WS:.*]] = pto.workspace : !pto.tensor<16x1xf32>
// CHECK-NEXT:      pto.task #pto.core<vector> "V1" {
// CHECK:             %[[M0:.*]] = pto.amax
// CHECK-NEXT:        pto.assemble %[[M0]], %[[WS]] [0, 0]
// CHECK-NEXT:        pto.view %x
// CHECK-NEXT:        %[[D0:.*]] = pto.sub %{{.*}}, %[[M0]]
// CHECK-NEXT:        pto.assemble %[[D0]], %out [0, 0]
// CHECK-NEXT:      }
// CHECK-NEXT:      pto.task #pto.core<vector> "V1" {
// CHECK:             %[[M1:.*]] = pto.amax
// CHECK-NEXT:        pto.assemble %[[M1]], %[[WS]] [8, 0]
// CHECK-NEXT:        pto.view %x
// CHECK-NEXT:        %[[D1:.*]] = pto.sub %{{.*}}, %[[M1]]
// CHECK-NEXT:        pto.assemble %[[D1]], %out [8, 0]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[V:.*]] = pto.view %[[WS]][0, 0] valid [16, 1] : !pto.tensor<16x1xf32> -> !pto.tile<16x1xf32>
// CHECK-NEXT:      pto.yield %[[V]]
pto.kernel @carried_max(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = pto.dim %x, 0 : !pto.tensor<16x64xf32>
  %init = pto.full 0.0 : !pto.tile<16x1xf32>
  %r = pto.loop "kv" %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!pto.tile<16x1xf32>) {
    %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    %m = pto.amax %t dim = 1 keepdim {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
    %d = pto.sub %t, %m {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
    pto.assemble %d, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
    pto.yield %m : !pto.tile<16x1xf32>
  }
}

// -----

// A read of a workspace stays before the store that overwrites it: the first
// matmul reads %ws before the vector store of the second value, the second
// matmul after it. The matmuls cannot share a cube task (it would run after
// the overwrite, and the first matmul would read the second value).

// CHECK-LABEL: pto.kernel @read_before_overwrite(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<16x16xf32>
// CHECK:         pto.task #pto.core<vector> "V1"
// CHECK:           pto.neg
// CHECK:           pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK:         pto.task #pto.core<cube> "C1"
// CHECK:           %[[OLD:.*]] = pto.view %[[WS]][0, 0]
// CHECK:           pto.matmul %{{.*}}, %[[OLD]]
// CHECK:         pto.task #pto.core<vector> "V2"
// CHECK:           pto.add
// CHECK:           pto.assemble %{{.*}}, %[[WS]] [0, 0]
// CHECK:         pto.task #pto.core<cube> "C2"
// CHECK:           %[[NEW:.*]] = pto.view %[[WS]][0, 0]
// CHECK:           pto.matmul %{{.*}}, %[[NEW]]
pto.kernel @read_before_overwrite(%a: !pto.tensor<16x16xf32>, %b: !pto.tensor<16x16xf32>, %x: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) {
  %ws = pto.workspace : !pto.tensor<16x16xf32>
  %tx = pto.view %x[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %first = pto.neg %tx {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %first, %ws[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  %ta = pto.view %a[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %old = pto.view %ws[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %m1 = pto.matmul %ta, %old {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  %second = pto.add %tx, %tx {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %second, %ws[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  %tb = pto.view %b[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %new = pto.view %ws[0, 0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %m2 = pto.matmul %tb, %new {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  %m3 = pto.matmul %m1, %m2 {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %m3, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
}

// -----

// A control-program read of a tensor that a task of the block writes ends
// the segment there: the task storing %z goes before the read, the task whose
// view the read positions after it. A read of a tensor no task before it
// writes (%q) leaves the segment whole: the tasks go after it, and the exp
// and the neg of one scope on either side of it still share a task.

// CHECK-LABEL: pto.kernel @read_after_task(
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK:           pto.add
// CHECK:           pto.assemble %{{.*}}, %z [0, 0]
// CHECK:         }
// CHECK-NEXT:    %[[S:.*]] = pto.read %z[%c0, %c0]
// CHECK-NOT:     pto.task
// CHECK:         pto.read %q[%c0]
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK:           pto.view %y[%[[S]], %c0]
// CHECK:           pto.neg
// CHECK:         }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// CHECK:           pto.exp
// CHECK:           pto.neg
// CHECK:         }
pto.kernel @read_after_task(%x: !pto.tensor<8x64xi32>, %z: !pto.tensor<8x64xi32>, %q: !pto.tensor<4xi32>, %y: !pto.tensor<64x64xf32>, %out: !pto.tensor<8x64xf32>, %out2: !pto.tensor<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%c0, %c0] : !pto.tensor<8x64xi32> -> !pto.tile<8x64xi32>
  %d = pto.add %t, %t : !pto.tile<8x64xi32>, !pto.tile<8x64xi32> -> !pto.tile<8x64xi32>
  pto.assemble %d, %z[0, 0] : !pto.tile<8x64xi32>, !pto.tensor<8x64xi32>
  %s = pto.read %z[%c0, %c0] : !pto.tensor<8x64xi32>
  %u = pto.view %y[%s, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
  %n = pto.neg %u : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
  pto.assemble %n, %out[0, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  pto.scope #pto.scope<id = 1> {
    %v = pto.view %y[%c0, %c0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    %e = pto.exp %v : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    %r = pto.read %q[%c0] : !pto.tensor<4xi32>
    %m = pto.neg %e : !pto.tile<8x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %m, %out2[%r, 0] : !pto.tile<8x64xf32>, !pto.tensor<8x64xf32>
  }
}

//--- scope-left.mlir

// pto-partition needs scopes as stamps.

pto.kernel @scope_left(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  // expected-error @+1 {{pto-partition expects scopes as stamps: run pto-flatten-scopes and pto-expand-tiles first}}
  pto.scope #pto.scope<id = 0> {
    %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

//--- sink-views.mlir

// A view read by something other than a task (here the yield) does not move
// past a store into the workspace it reads (the second piece of the
// maximum): it stays, the segment still ends there, and the two pieces form
// two tasks around it.

// CHECK-LABEL: pto.kernel @view_stays_before_a_writer(
// CHECK:         pto.loop
// CHECK-NEXT:      pto.task #pto.core<vector> "V1" {
// CHECK:             pto.assemble %{{.*}}, %[[WS:.*]] [0, 0]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[V:.*]] = pto.view %[[WS]][0, 0] valid [8, 1]
// CHECK-NEXT:      pto.task #pto.core<vector> "V1" {
// CHECK:             pto.assemble %{{.*}}, %[[WS]] [8, 0]
// CHECK-NEXT:      }
// CHECK-NEXT:      pto.yield %[[V]]
pto.kernel @view_stays_before_a_writer(%x: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = pto.dim %x, 0 : !pto.tensor<16x64xf32>
  %init = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<8x1xf32>
  %ws = pto.workspace : !pto.tensor<16x1xf32>
  %r = pto.loop "kv" %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!pto.tile<8x1xf32>) {
    %a = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<8x64xf32>
    %ma = pto.amax %a dim = 1 keepdim : !pto.tile<8x64xf32> -> !pto.tile<8x1xf32>
    pto.assemble %ma, %ws[0, 0] : !pto.tile<8x1xf32>, !pto.tensor<16x1xf32>
    %v = pto.view %ws[0, 0] valid [8, 1] : !pto.tensor<16x1xf32> -> !pto.tile<8x1xf32>
    %b = pto.view %x[8, 0] : !pto.tensor<16x64xf32> -> !pto.tile<8x64xf32>
    %mb = pto.amax %b dim = 1 keepdim : !pto.tile<8x64xf32> -> !pto.tile<8x1xf32>
    pto.assemble %mb, %ws[8, 0] : !pto.tile<8x1xf32>, !pto.tensor<16x1xf32>
    pto.yield %v : !pto.tile<8x1xf32>
  }
}

// -----

// Without that store it moves down to the yield, and the maximum and the exp
// reading it back share one task.

// CHECK-LABEL: pto.kernel @view_moves_to_the_yield(
// CHECK:         pto.loop
// CHECK-NEXT:      pto.task #pto.core<vector> "V1" {
// CHECK:             pto.assemble %{{.*}}, %[[WS:.*]] [0, 0]
// CHECK:             pto.assemble %{{.*}}, %out [0, 0]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[V:.*]] = pto.view %[[WS]][0, 0] valid [8, 1]
// CHECK-NEXT:      pto.yield %[[V]]

// With sink-views=false the view stays and cuts the loop body in two tasks.
// NOSINK-LABEL: pto.kernel @view_moves_to_the_yield(
// NOSINK:         pto.task #pto.core<vector> "V1" {
// NOSINK:         %[[V:.*]] = pto.view %{{.*}}[0, 0] valid [8, 1]
// NOSINK-NEXT:    pto.task #pto.core<vector> "V1" {
// NOSINK:         pto.yield %[[V]]
pto.kernel @view_moves_to_the_yield(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<8x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = pto.dim %x, 0 : !pto.tensor<16x64xf32>
  %init = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<8x1xf32>
  %ws = pto.workspace : !pto.tensor<16x1xf32>
  %r = pto.loop "kv" %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (!pto.tile<8x1xf32>) {
    %a = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<8x64xf32>
    %ma = pto.amax %a dim = 1 keepdim : !pto.tile<8x64xf32> -> !pto.tile<8x1xf32>
    pto.assemble %ma, %ws[0, 0] : !pto.tile<8x1xf32>, !pto.tensor<16x1xf32>
    %v = pto.view %ws[0, 0] valid [8, 1] : !pto.tensor<16x1xf32> -> !pto.tile<8x1xf32>
    %w = pto.view %ws[0, 0] : !pto.tensor<16x1xf32> -> !pto.tile<8x1xf32>
    %e = pto.exp %w : !pto.tile<8x1xf32> -> !pto.tile<8x1xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<8x1xf32>, !pto.tensor<8x1xf32>
    pto.yield %v : !pto.tile<8x1xf32>
  }
}

//--- split-mix.mlir

// split-mix (what --pto-ascend-pipeline runs): the DAV_3510 scope that would
// be one MIX task forms a cube and a vector task, the matmul result crossing
// through a GM workspace as on DAV_2201.

// CHECK-LABEL: pto.kernel @mixed_scope_3510(
// CHECK:         %[[WS:.*]] = pto.workspace
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK:           %[[C:.*]] = pto.matmul
// CHECK-NEXT:      pto.assemble %[[C]], %[[WS]] [0, 0]
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      %[[R:.*]] = pto.view %[[WS]][0, 0]
// CHECK-NEXT:      %[[E:.*]] = pto.exp %[[R]]
// CHECK-NEXT:      pto.assemble %[[E]], %out [0, 0]
// CHECK-NOT:     #pto.core<mix>
pto.kernel @mixed_scope_3510(%a: !pto.tensor<16x32xbf16>, %b: !pto.tensor<32x16xbf16>, %out: !pto.tensor<16x16xf32>)
    attributes {arch = #pto.arch<DAV_3510>} {
  %ta = pto.view %a[0, 0] : !pto.tensor<16x32xbf16> -> !pto.tile<16x32xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<32x16xbf16> -> !pto.tile<32x16xbf16>
  pto.scope #pto.scope<id = 1> {
    %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 16], k = [32, 32], n = [16, 16]>}
        : !pto.tile<16x32xbf16>, !pto.tile<32x16xbf16> -> !pto.tile<16x16xf32>
    %e = pto.exp %c : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
    pto.assemble %e, %out[0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  }
}
