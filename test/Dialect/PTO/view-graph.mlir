// RUN: pto-opt %s --pto-tile-graph-pipeline --pto-view-graph -o /dev/null | FileCheck %s
// RUN: pto-opt %s --pto-tile-graph-pipeline=outline=false --pto-view-graph -o /dev/null | FileCheck %s --check-prefix=TASKS
// RUN: pto-opt %s --pto-tile-graph-pipeline '--pto-view-graph=output=%t.dot' -o /dev/null
// RUN: dot -Tsvg %t.dot -o %t.svg
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// RUN: not pto-opt %s '--pto-view-graph=output=%t.missing/g.dot' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE

// pto-view-graph: the tile graph as Graphviz DOT (rendered by `dot`, Debian
// graphviz). A matmul (cube task) feeding an exp (vector task) per row
// block: the loop's root call, the root's two launches with their token
// dependence, the two leaves they run.

// CHECK:      digraph "pto tile graph" {
// CHECK:        label="pto.kernel @mm_exp";
// CHECK:          label="pto.loop L (i)";
// CHECK:          [[CALL:call[0-9]+]] [label="root_call @mm_exp_root_L\nstitch depth {{[0-9]+}}, 2 launches", shape=component];
// CHECK:        subgraph "[[ROOT:cluster_root[0-9]+]]" {
// CHECK-NEXT:     label="@mm_exp_root_L";
// CHECK:          [[CUBE:launch[0-9]+]] [label="C{{[0-9]+}}\nmm_exp_leaf_C{{[0-9_]+}}", fillcolor="#cfe2ff"];
// CHECK:          [[VEC:launch[0-9]+]] [label="V{{[0-9]+}}\nmm_exp_leaf_V{{[0-9_]+}}", fillcolor="#d1f0d1"];
// CHECK-NEXT:     [[CUBE]] -> [[VEC]];
// CHECK:        subgraph "cluster_leaves" {
// CHECK:          "leaf_mm_exp_leaf_C{{[0-9_]+}}" [label="@mm_exp_leaf_C{{[0-9_]+}}\ncube, {{[0-9]+}} ops", shape=note
// CHECK:          [[CUBE]] -> "leaf_mm_exp_leaf_C{{[0-9_]+}}" [style=dotted
// CHECK:        [[CALL]] -> [[CUBE]] [lhead="[[ROOT]]", style=bold];
// CHECK-NEXT: }

// Before outlining: the tasks, in program order, inside the loop's cluster.
// TASKS:        label="pto.loop L (i)";
// TASKS:        [[T0:task[0-9]+]] [label="task C{{[0-9]+}} (cube)\n{{[0-9]+}} ops", fillcolor="#cfe2ff"];
// TASKS:        [[T1:task[0-9]+]] [label="task V{{[0-9]+}} (vector)\n{{[0-9]+}} ops", fillcolor="#d1f0d1"];
// TASKS-NEXT:   [[T0]] -> [[T1]] [style=dotted, arrowhead=none];
// TASKS-NOT:    cluster_leaves

// SVG: <svg
// SVG: pto.kernel @mm_exp
// SVG: @mm_exp_root_L

// NOFILE: error: pto-view-graph: cannot open '{{.*}}g.dot'

pto.kernel @mm_exp(
    %a: !pto.tensor<?x64xbf16>,
    %b: !pto.tensor<64x64xbf16>,
    %c: !pto.tensor<?x64xf32>)
    attributes {arch = #pto.arch<DAV_2201>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %m = pto.dim %a, 0 : !pto.tensor<?x64xbf16>
  %ceildiv = arith.ceildivsi %m, %c32 : index
  pto.loop "L" %i = %c0 to %ceildiv step %c1 {
    %mul = arith.muli %i, %c32 : index
    %sub = arith.subi %m, %mul : index
    %rows = arith.minsi %sub, %c32 : index
    %ta = pto.view %a[%mul, 0] valid [%rows, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<32x64xbf16>
    %tb = pto.view %b[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
    %matmul = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 64], n = [64, 64]>} : !pto.tile<32x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<32x64xf32>
    %exp = pto.exp %matmul {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<32x64xf32> -> !pto.tile<32x64xf32>
    pto.assemble %exp, %c[%mul, 0] {vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<32x64xf32>, !pto.tensor<?x64xf32>
  }
}

