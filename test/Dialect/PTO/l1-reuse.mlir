// RUN: pto-opt %s -split-input-file -pto-l1-reuse=report=true -verify-diagnostics | FileCheck %s

// Generated grids of output tiles (python/pto_mlir/partitioned_matmul.py, C1
// tasks of 32x32x32 bf16 unless noted, 2 KiB per load), one RUN each:
//
// Automatic mode, 8x8 grid: 64 tasks > 2 x 24 cube cores, so at most
// floor(64 / 24) = 2 per task and at least 48 tasks: 16 row pairs.
// RUN: %python -m pto_mlir.partitioned_matmul --m 256 --n 256 --k 32 \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO64
// AUTO64: group 0 (64 x "C1"): merge count 2 (automatic, keeping >= 48 tasks, sharing A and B blocks), 48 tasks after, 16 loads removed (32768 B)
// AUTO64: GM->L1 bytes per block instance: before 262144, after 229376 (saved 12.5%)
//
// The same on DAV_3510 (32 cube cores): 64 tasks are only 2 per core.
// RUN: %python -m pto_mlir.partitioned_matmul --m 256 --n 256 --k 32 --arch DAV_3510 \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO950
// AUTO950: group 0 (64 x "C1"): merge count 1 (automatic, keeping >= 64 tasks), 64 tasks after, 0 loads removed (0 B)
//
// 16x16 grid (256 tasks, counts up to 10 tried): 9 per task removes the most
// (a task then spans two rows and shares A and B blocks). A setting without
// key 0 and -1 leaves group 0 automatic.
// RUN: %python -m pto_mlir.partitioned_matmul --m 512 --n 512 --k 32 --setting "{1 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO256
// AUTO256: group 0 (256 x "C1"): merge count 9 (automatic, keeping >= 48 tasks, sharing A and B blocks), 48 tasks after, 238 loads removed (487424 B)
// AUTO256: before 1048576, after 561152 (saved 46.5%)
//
// L1 is counted per K step: four 128x128 output tiles with K = 512 in two
// steps of 64 KiB A and B blocks need 64 + 4 x 64 = 320 KiB per step and
// merge (all blocks together would be 640 KiB); with one K step of 128 KiB
// blocks only three fit.
// RUN: %python -m pto_mlir.partitioned_matmul --m 128 --n 512 --k 512 --tm 128 --tn 128 --tk 256 --setting "{0 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=KSTEP
// KSTEP: merge count 4 (cube_l1_reuse_setting), 1 tasks after, 6 loads removed (393216 B)
// RUN: %python -m pto_mlir.partitioned_matmul --m 128 --n 512 --k 512 --tm 128 --tn 128 --tk 512 --setting "{0 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=KSTEP1
// KSTEP1: merge count 4 (cube_l1_reuse_setting), 2 tasks after, 2 loads removed (262144 B)
//
// Phase 2, CubeNBuffer (cube_nbuffer_setting): with phase 1 off, a 2x2 grid
// merges two tasks at a time, sharing nothing (4 loads in each merged task).
// RUN: %python -m pto_mlir.partitioned_matmul --m 64 --n 64 --k 32 --setting "{-1 : 1}" --nbuffer "{-1 : 2}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true 2>&1 | FileCheck %s --check-prefix=NBUF
// NBUF: group 0 (4 x "C1"): merge count 1 (cube_l1_reuse_setting), not merged
// NBUF: n-buffer group 0 (4 x "C1"): merge count 2 (cube_nbuffer_setting), 2 tasks after
// NBUF: before 16384, after 16384 (saved 0.0%)
// NBUF: pto.task #pto.core<cube> "C1" {
// NBUF-COUNT-4: pto.view
// NBUF-NOT: pto.view
// NBUF: pto.task #pto.core<cube> "C1" {
// NBUF-COUNT-4: pto.view
// NBUF-NOT: pto.view
// NBUF: pto.task #pto.core<vector> "V1"
//
// Phase 2 within L1: the four 256 KiB tasks of KSTEP1 (A and B blocks of
// 128 KiB, phase 1 off) merge two at a time, not four (1 MiB > 512 KiB).
// RUN: %python -m pto_mlir.partitioned_matmul --m 128 --n 512 --k 512 --tm 128 --tn 128 --tk 512 --setting "{-1 : 1}" --nbuffer "{-1 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=NBUFL1
// NBUFL1: n-buffer group 0 (4 x "C1"): merge count 4 (cube_nbuffer_setting), 2 tasks after
// NBUFL1: before 1048576, after 1048576 (saved 0.0%)
//
// mix=true (pto-mix-exchange to follow) on SK-16 at small tiles with 2 heads:
// on DAV_3510 the V1 tasks reading S and dP also read the hoisted Dvec
// workspace, one buffer rewritten per head, so the C1 group is planned for
// one instance at once, not the 2 of the heads loop; without mix=true, or on
// DAV_2201 (no L0C -> UB), it is not.
// RUN: %python -m pto_mlir.sk16_ir --heads 2 --head-dim 64 --s1-tile 256 --s2-tile 256 --c-tile 64,128,64,128,64,128 --v-tile-s 32,64 --v-tile-d 64,64 --arch DAV_3510 > %t.sk16-950.mlir
// RUN: %python -m pto_mlir.sk16_ir --heads 2 --head-dim 64 --s1-tile 256 --s2-tile 256 --c-tile 64,128,64,128,64,128 --v-tile-s 32,64 --v-tile-d 64,64 > %t.sk16-a3.mlir
// RUN: pto-opt %t.sk16-950.mlir -pto-legalize -pto-flatten-scopes -pto-hoist-invariants -pto-expand-tiles -pto-partition -pto-nbuffer-merge \
// RUN:   "-pto-l1-reuse=stationary=true mix=true report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIX
// RUN: pto-opt %t.sk16-950.mlir -pto-legalize -pto-flatten-scopes -pto-hoist-invariants -pto-expand-tiles -pto-partition -pto-nbuffer-merge \
// RUN:   "-pto-l1-reuse=stationary=true report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOMIX
// RUN: pto-opt %t.sk16-a3.mlir -pto-legalize -pto-flatten-scopes -pto-hoist-invariants -pto-expand-tiles -pto-partition -pto-nbuffer-merge \
// RUN:   "-pto-l1-reuse=stationary=true mix=true report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOMIX
// (Its C2 -> V2 exchanges, whole K chains at these tiles, become MIX tasks
// too: C1's B blocks stay in runs, not interleaved.)
// MIX: group 0 ({{[0-9]+}} x "C1"): {{.*}} merged by the setting) (planned as MIX tasks: 1 instances at once, not 2, beside {{[1-9][0-9]*}} cycles of the block's other cube tasks)
// MIX-NOT: planned as MIX tasks
// NOMIX-NOT: planned as MIX tasks
// NOMIX: group 0 ({{[0-9]+}} x "C1")
// NOMIX-NOT: planned as MIX tasks
//
// The serialised group is planned after the block's other cube groups
// (C2), whose work the AICs run beside its instances: at test_02's
// DAV_3510 tiles (8 heads, D = 128, 64 x 128 vector pieces) C1 takes 2 x 8
// rectangles, half as many MIX tasks as the 2 x 4 that filling the 32 AICs
// with one instance alone would take, and fewer copy-ins. Its rectangles
// interleave the B blocks (the MIX tasks' latency is on the chain between
// instances, and no other MIX family waits on them: C2's K chains are cut
// into partial sums added in GM): the first task takes the S (and dP)
// pieces of every other 128-column slice, [0, 0], [0, 256], ..., [256,
// 1792], so that a block valid only in its first columns spreads them over
// both tasks of a row of rectangles.
// RUN: %python -m pto_mlir.sk16_ir --heads 8 --head-dim 128 --v-tile-s 64,128 --arch DAV_3510 > %t.sk16-950-d128.mlir
// RUN: pto-opt %t.sk16-950-d128.mlir -pto-legalize -pto-flatten-scopes -pto-hoist-invariants -pto-expand-tiles -pto-partition -pto-nbuffer-merge \
// RUN:   "-pto-l1-reuse=stationary=true mix=true report=true" 2>&1 | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: group 1 (16 x "C2")
// OVERLAP: group 2 (8 x "C2")
// OVERLAP: group 0 (256 x "C1"): merge count 16 (operand-stationary: 2 A x 8 B blocks per task, {{.*}} merged by the setting) (B blocks interleaved) (planned as MIX tasks: 1 instances at once, not 8, beside {{[1-9][0-9]*}} cycles of the block's other cube tasks), 16 tasks after
// OVERLAP: pto.task #pto.core<cube> "C1" {
// OVERLAP-NOT: pto.task
// OVERLAP: pto.assemble %{{[0-9]+}}, %[[S:[0-9]+]] [0, 0] : !pto.tile<256x128xf32>
// OVERLAP-NOT: pto.task
// OVERLAP-NOT: [0, 128] :
// OVERLAP: pto.assemble %{{[0-9]+}}, %[[S]] [0, 256] : !pto.tile<256x128xf32>
// OVERLAP-NOT: pto.task
// OVERLAP-NOT: [0, 128] :
// OVERLAP: pto.assemble %{{[0-9]+}}, %[[S]] [256, 1792] : !pto.tile<256x128xf32>
// OVERLAP: pto.task #pto.core<cube> "C1" {
// OVERLAP: pto.task #pto.core<cube> "C1" {
// OVERLAP: pto.task #pto.core<cube> "C1" {
// OVERLAP: pto.task #pto.core<cube> "C1" {
// OVERLAP-NOT: pto.task
// OVERLAP: pto.assemble %{{[0-9]+}}, %[[S]] [0, 128] : !pto.tile<256x128xf32>
// Dynamic offsets in a batch loop (row offset b * 64 + r): loads are
// identical when their offsets are the same value, computed once in the
// block or separately inside each task; rows stay apart.
// RUN: %python -m pto_mlir.partitioned_matmul --m 64 --n 128 --k 64 --batch 2 --setting "{-1 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: %python -m pto_mlir.partitioned_matmul --m 64 --n 128 --k 64 --batch 2 --inline-index --setting "{-1 : 4}" \
// RUN:   | pto-opt -pto-l1-reuse=report=true 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: group 0 (8 x "C1"): merge count 4 (cube_l1_reuse_setting), 2 tasks after, 12 loads removed (24576 B)
// BATCH: before 65536, after 40960 (saved 37.5%)
// BATCH: pto.loop "L_batch"
// BATCH: pto.task #pto.core<cube> "C1" {
// BATCH-COUNT-2: pto.view %a
// BATCH-NOT: pto.view %a
// BATCH: pto.task #pto.core<cube> "C1" {
// BATCH-COUNT-2: pto.view %a
// BATCH-NOT: pto.view %a
// BATCH: pto.task #pto.core<vector> "V1"
//
// Operand-stationary mode (stationary=true, docs/TileGraph.md): a 6x6 grid
// of 128x128 tiles with one K step (32 KiB A and B blocks at the DDR rate,
// 1024 copy-in cycles each, against 762 FIX cycles per tile). The extent is
// the one of least group time: the cores' throughput (each task the slower
// of its copy-ins and its stores, plus the per-launch cost) against one
// instance's latency over the instances that run at once. Alone, the group
// keeps 18 tasks (one wave on the 24 cube cores); inside a loop of 16
// static iterations throughput counts and the rectangles grow to 3 x 6:
// the members take each A block in one run, so the 6 B blocks stay
// resident and the A blocks stream through two buffers (256 KiB, not the
// 288 KiB of all 9 blocks). Either beats the setting's merge, which it
// overrides.
// RUN: %python -m pto_mlir.partitioned_matmul --m 768 --n 768 --k 128 --tm 128 --tn 128 --tk 128 \
// RUN:   | pto-opt -pto-l1-reuse="report=true stationary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAT
// STAT: group 0 (36 x "C1"): merge count 2 (operand-stationary: 1 A x 2 B blocks per task, largest L1 footprint 98304 B, copy-ins 55296 of 27434 compute/store cycles; group 5847 cycles vs 9646 merged by the setting), 18 tasks after, 18 loads removed (589824 B)
// STAT: before 2359296, after 1769472 (saved 25.0%)
// RUN: %python -m pto_mlir.partitioned_matmul --m 768 --n 768 --k 128 --tm 128 --tn 128 --tk 128 --batch 16 \
// RUN:   | pto-opt -pto-l1-reuse="report=true stationary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAT16
// STAT16: group 0 (36 x "C1"): merge count 18 (operand-stationary: 3 A x 6 B blocks per task, largest L1 footprint 262144 B, copy-ins 18432 of 27434 compute/store cycles; group 1374 cycles vs 7234 merged by the setting), 2 tasks after, 54 loads removed (1769472 B)
// STAT16: before 2359296, after 589824 (saved 75.0%)
//
// The same loop with a run-time trip count (its bound from pto.dim) counts
// one instance, as the group alone; dynamic-trip-count=16 says that it runs
// 16 iterations at once, and the rectangles are those of the static loop.
// RUN: %python -m pto_mlir.partitioned_matmul --m 768 --n 768 --k 128 --tm 128 --tn 128 --tk 128 --batch 16 \
// RUN:   | sed 's/%cB = arith.constant 16 : index/%rows = pto.dim %a, 0 : !pto.tensor<12288x128xbf16>\n  %cBm = arith.constant 768 : index\n  %cB = arith.divui %rows, %cBm : index/' > %t.dynamic.mlir
// RUN: grep -q 'pto.loop "L_batch" %bi = %c0 to %cB' %t.dynamic.mlir && grep -q 'pto.dim %a, 0' %t.dynamic.mlir
// RUN: pto-opt %t.dynamic.mlir -pto-l1-reuse="report=true stationary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAT
// RUN: pto-opt %t.dynamic.mlir -pto-l1-reuse="report=true stationary=true dynamic-trip-count=16" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DYN16
// DYN16: group 0 (36 x "C1"): merge count 18 (operand-stationary: 3 A x 6 B blocks per task,
// RUN: not pto-opt %t.dynamic.mlir -pto-l1-reuse="stationary=true dynamic-trip-count=0" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DYN0
// DYN0: error: pto-l1-reuse: dynamic-trip-count = 0 is not a trip count; give the iterations at once to assume for a loop with run-time bounds, at least 1
//
// A K chain of 16 steps whose blocks do not fit L1 whole (1 MiB of A, 512
// KiB of B per tile): the chains are cut into partial sums; each part keeps
// its B range resident and streams A through two 64 KiB buffers. Alone, 8
// parts of 2 tiles per task keep 16 cores busy; in a loop of 16 iterations,
// 4 parts of 4 tiles (128 KiB of B and 2 x 64 KiB), fewer copy-ins. The
// later parts add their sums with pto.atomic_add after the first parts'
// stores.
// RUN: %python -m pto_mlir.partitioned_matmul --m 1024 --n 128 --k 2048 --tm 256 --tn 128 --tk 128 \
// RUN:   | pto-opt -pto-l1-reuse="report=true stationary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT1
// SPLIT1: group 0 (4 x "C1"): merge count 2 (K chains cut in 8 partial sums) (operand-stationary: 2 A x 1 B blocks per task, largest L1 footprint 196608 B
// SPLIT1-SAME: 16 tasks after
// RUN: %python -m pto_mlir.partitioned_matmul --m 1024 --n 128 --k 2048 --tm 256 --tn 128 --tk 128 --batch 16 \
// RUN:   | pto-opt -pto-l1-reuse="report=true stationary=true" 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: group 0 (4 x "C1"): merge count 4 (K chains cut in 4 partial sums) (operand-stationary: 4 A x 1 B blocks per task, largest L1 footprint 262144 B
// SPLIT-SAME: 4 tasks after
// SPLIT: pto.task #pto.core<cube> "C1" {
// SPLIT-COUNT-4: pto.assemble
// SPLIT-NOT: pto.atomic_add
// SPLIT: pto.task #pto.core<cube> "C1" {
// SPLIT-COUNT-4: pto.atomic_add
// SPLIT: pto.task #pto.core<vector> "V1"
//
// Where no extent is shorter than the setting's merge (two tasks sharing
// their A block, which the setting already merges), the group keeps it.
// RUN: %python -m pto_mlir.partitioned_matmul --m 128 --n 256 --k 128 --tm 128 --tn 128 --tk 128 --setting "{0 : 2}" \
// RUN:   | pto-opt -pto-l1-reuse="report=true stationary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// KEEP: group 0 (2 x "C1"): merge count 2 (operand-stationary: no extent shorter than the setting's merge, 5847 cycles) (cube_l1_reuse_setting), 1 tasks after, 1 loads removed (32768 B)
//
// Without the mode the same chains stay whole (automatic: 4 tasks < 2 x 24).
// RUN: %python -m pto_mlir.partitioned_matmul --m 1024 --n 128 --k 2048 --tm 256 --tn 128 --tk 128 \
// RUN:   | pto-opt -pto-l1-reuse=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// NOSPLIT: group 0 (4 x "C1"): merge count 1 (automatic, keeping >= 4 tasks), 4 tasks after

// pto-l1-reuse on hand-partitioned IR (docs/TileGraph.md): cube tasks of one
// isomorphism group that load identical GM blocks are merged and the
// duplicate copy-ins removed. Tiles are 16x16 bf16 (512 B) unless noted.

// `{-1 : 1}` switches the pass off: the two tasks share the A block but stay
// apart.

!A = !pto.tensor<16x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<16x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @off(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 16]
// expected-remark@+1 {{GM->L1 bytes per block instance: before 2048, after 2048 (saved 0.0%)}}
pto.kernel @off(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 1}>} {
  // expected-remark@+1 {{group 0 (2 x "C1"): merge count 1 (cube_l1_reuse_setting), not merged}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
}

// -----

// `{-1 : 1, 0 : 4}` (SK-16's setting): group 0 merges 4 at a time, every other
// group stays. Groups are numbered by first appearance: the 16x16 tasks (X)
// come first, so they are group 0 even though 32x32 tasks (Y) are
// interleaved. Each merged task sits where its last member was, with one A
// load and four B loads.

!A = !pto.tensor<16x16xbf16>
!B = !pto.tensor<16x128xbf16>
!C = !pto.tensor<16x128xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
!D = !pto.tensor<32x16xbf16>
!E = !pto.tensor<16x64xbf16>
!F = !pto.tensor<32x64xf32>
!DT = !pto.tile<32x16xbf16>
!ET = !pto.tile<16x32xbf16>
!FT = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>
#cy = #pto.cube_tile<m = [32, 32], k = [16, 16], n = [32, 32]>

// CHECK-LABEL: pto.kernel @group0_by4(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %d[0, 0]
// CHECK-NEXT:      pto.view %e[0, 0]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %d[0, 0]
// CHECK-NEXT:      pto.view %e[0, 32]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A0:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      %[[B0:.*]] = pto.view %b[0, 0]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B0]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [0, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [0, 16]
// CHECK-NEXT:      %[[B2:.*]] = pto.view %b[0, 32]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B2]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [0, 32]
// CHECK-NEXT:      %[[B3:.*]] = pto.view %b[0, 48]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B3]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [0, 48]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[0, 0]
// CHECK-NOT:       pto.view %a
// CHECK:           pto.assemble {{.*}} %c [0, 112]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{GM->L1 bytes per block instance: before 12288, after 9216 (saved 25.0%)}}
pto.kernel @group0_by4(%a: !A, %b: !B, %c: !C, %d: !D, %e: !E, %f: !F) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 1, 0 : 4}>} {
  // expected-remark@+1 {{group 0 (8 x "C1"): merge count 4 (cube_l1_reuse_setting), 2 tasks after, 6 loads removed (3072 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  // expected-remark@+1 {{group 1 (2 x "C1"): merge count 1 (cube_l1_reuse_setting), not merged}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %d[0, 0] : !D -> !DT
    %y = pto.view %e[0, 0] : !E -> !ET
    %p = pto.matmul %x, %y {cube_tile = #cy} : !DT, !ET -> !FT
    pto.assemble %p, %f[0, 0] : !FT, !F
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %d[0, 0] : !D -> !DT
    %y = pto.view %e[0, 32] : !E -> !ET
    %p = pto.matmul %x, %y {cube_tile = #cy} : !DT, !ET -> !FT
    pto.assemble %p, %f[0, 32] : !FT, !F
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 32] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 32] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 48] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 48] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 64] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 64] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 80] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 80] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 96] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 96] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 112] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 112] : !R, !C
  }
}

// -----

// The same hash order with `{-1 : 1, 1 : 2}`: now only group 1 (the 32x32
// tasks, which appear second) merges; the group 0 tasks stay.

!A = !pto.tensor<16x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<16x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
!D = !pto.tensor<32x16xbf16>
!E = !pto.tensor<16x64xbf16>
!F = !pto.tensor<32x64xf32>
!DT = !pto.tile<32x16xbf16>
!ET = !pto.tile<16x32xbf16>
!FT = !pto.tile<32x32xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>
#cy = #pto.cube_tile<m = [32, 32], k = [16, 16], n = [32, 32]>

// CHECK-LABEL: pto.kernel @group1_by2(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 16]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[D:.*]] = pto.view %d[0, 0]
// CHECK-NEXT:      %[[E0:.*]] = pto.view %e[0, 0]
// CHECK-NEXT:      pto.matmul %[[D]], %[[E0]]
// CHECK-NEXT:      pto.assemble {{.*}} %f [0, 0]
// CHECK-NEXT:      %[[E1:.*]] = pto.view %e[0, 32]
// CHECK-NEXT:      pto.matmul %[[D]], %[[E1]]
// CHECK-NEXT:      pto.assemble {{.*}} %f [0, 32]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{GM->L1 bytes per block instance: before 6144, after 5120 (saved 16.7%)}}
pto.kernel @group1_by2(%a: !A, %b: !B, %c: !C, %d: !D, %e: !E, %f: !F) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : 1, 1 : 2}>} {
  // expected-remark@+1 {{group 0 (2 x "C1"): merge count 1 (cube_l1_reuse_setting), not merged}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  // expected-remark@+1 {{group 1 (2 x "C1"): merge count 2 (cube_l1_reuse_setting), 1 tasks after, 1 loads removed (1024 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %d[0, 0] : !D -> !DT
    %y = pto.view %e[0, 0] : !E -> !ET
    %p = pto.matmul %x, %y {cube_tile = #cy} : !DT, !ET -> !FT
    pto.assemble %p, %f[0, 0] : !FT, !F
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %d[0, 0] : !D -> !DT
    %y = pto.view %e[0, 32] : !E -> !ET
    %p = pto.matmul %x, %y {cube_tile = #cy} : !DT, !ET -> !FT
    pto.assemble %p, %f[0, 32] : !FT, !F
  }
}

// -----

// Sides. A 2x2 grid of output tiles: t00/t01 share the A block of row 0,
// t00/t10 the B block of column 0. `(2, "right")` merges by shared B blocks
// (columns) and removes only B duplicates.

!A = !pto.tensor<32x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<32x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @right(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      %[[B0:.*]] = pto.view %b[0, 0]
// CHECK:           pto.assemble {{.*}} %c [0, 0]
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[16, 0]
// CHECK-NEXT:      pto.matmul %[[A1]], %[[B0]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [16, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK:           pto.assemble {{.*}} %c [0, 16]
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[16, 0]
// CHECK-NEXT:      pto.matmul %[[A1]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [16, 16]
// CHECK-NEXT:    }
// expected-remark@+1 {{before 4096, after 3072 (saved 25.0%)}}
pto.kernel @right(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : (2, "right")}>} {
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 2 (cube_l1_reuse_setting), sides right, 2 tasks after, 2 loads removed (1024 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 16] : !R, !C
  }
}

// -----

// `(4, "left")` on the same grid: only A blocks count, so rows merge and the
// two row tasks stay apart although they share B blocks (each keeps its own
// copies of them). Without a side restriction all four tasks form one task
// with two A and two B loads (next test).

!A = !pto.tensor<32x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<32x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @left(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A0:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           pto.assemble {{.*}} %c [0, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [0, 16]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[16, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           pto.assemble {{.*}} %c [16, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A1]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} %c [16, 16]
// CHECK-NEXT:    }
// expected-remark@+1 {{before 4096, after 3072 (saved 25.0%)}}
pto.kernel @left(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : (4, "left")}>} {
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 4 (cube_l1_reuse_setting), sides left, 2 tasks after, 2 loads removed (1024 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 16] : !R, !C
  }
}

// -----

// `"auto"` sides (and plain counts) share both: t01 joins t00 through A,
// t10 through B, t11 through both; 4 of 8 loads go.

!A = !pto.tensor<32x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<32x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @both(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-COUNT-4:   pto.view
// CHECK-NOT:       pto.view
// CHECK:           pto.assemble {{.*}} %c [16, 16]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{before 4096, after 2048 (saved 50.0%)}}
pto.kernel @both(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {-1 : (4, "auto")}>} {
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 4 (cube_l1_reuse_setting), sides auto (A and B blocks), 1 tasks after, 4 loads removed (2048 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[16, 16] : !R, !C
  }
}

// -----

// `"auto"` picks the sides that remove the most bytes. Tasks come column by
// column (as expansion emits them) and A blocks (32x16, 1 KiB) are larger
// than B blocks (512 B): sharing both would pair each column's tasks through
// their B block (2 x 512 B removed), sharing only A blocks pairs rows
// (2 x 1 KiB removed).

!A = !pto.tensor<64x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<64x32xf32>
!TA = !pto.tile<32x16xbf16>
!TB = !pto.tile<16x16xbf16>
!R = !pto.tile<32x16xf32>
#ct = #pto.cube_tile<m = [32, 32], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @auto_side(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A0:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B1]]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[32, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A1]], %[[B1]]
// expected-remark@+1 {{before 6144, after 4096 (saved 33.3%)}}
pto.kernel @auto_side(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : (2, "auto")}>} {
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 2 (cube_l1_reuse_setting), sides auto (A blocks), 2 tasks after, 2 loads removed (2048 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 0] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[32, 0] : !A -> !TA
    %y = pto.view %b[0, 0] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[32, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 16] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[32, 0] : !A -> !TA
    %y = pto.view %b[0, 16] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[32, 16] : !R, !C
  }
}

// -----

// Automatic mode (no setting): a group of at most 2 x cube cores tasks (48 on
// DAV_2201) keeps all its tasks. Larger groups: see the generated kernels at
// the end of this file.

!A = !pto.tensor<32x16xbf16>
!B = !pto.tensor<16x32xbf16>
!C = !pto.tensor<32x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>

// CHECK-LABEL: pto.kernel @auto_small(
// CHECK-COUNT-2: pto.task #pto.core<cube>
// expected-remark@+1 {{before 2048, after 2048 (saved 0.0%)}}
pto.kernel @auto_small(%a: !A, %b: !B, %c: !C) {
  // expected-remark@+1 {{group 0 (2 x "C1"): merge count 1 (automatic, keeping >= 2 tasks), 2 tasks after, 0 loads removed (0 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %c[0, 16] : !R, !C
  }
}

// -----

// L1 capacity (512 KiB on DAV_2201): each task loads a 128 KiB A block
// (128x512 bf16) and a 128 KiB B block. Three tasks sharing A need
// 128 + 3 x 128 = 512 KiB and merge; a fourth would need 640 KiB and stays
// apart although the count 4 allows it.

!A = !pto.tensor<128x512xbf16>
!B = !pto.tensor<512x512xbf16>
!C = !pto.tensor<128x512xf32>
!TA = !pto.tile<128x512xbf16>
!TB = !pto.tile<512x128xbf16>
!R = !pto.tile<128x128xf32>
#ct = #pto.cube_tile<m = [128, 128], k = [128, 512], n = [128, 128]>

// CHECK-LABEL: pto.kernel @l1_capacity(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           pto.view %b[0, 128]
// CHECK:           pto.view %b[0, 256]
// CHECK:           pto.assemble {{.*}} %c [0, 256]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 384]
// expected-remark@+1 {{before 1048576, after 786432 (saved 25.0%)}}
pto.kernel @l1_capacity(%a: !A, %b: !B, %c: !C) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : 4}>} {
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 4 (cube_l1_reuse_setting), 2 tasks after, 2 loads removed (262144 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 0] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 0] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 128] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 128] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 256] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 256] : !R, !C
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !TA
    %y = pto.view %b[0, 384] : !B -> !TB
    %p = pto.matmul %x, %y {cube_tile = #ct} : !TA, !TB -> !R
    pto.assemble %p, %c[0, 384] : !R, !C
  }
}

// -----

// Dependencies. A merged task takes the position of its later member (the
// earlier moves down) or, if that would move it across a task touching its
// GM regions, of its earlier member (the later moves up). Here t1 shares the
// A block of t0, but V0 reads what t0 writes (t0 cannot move down past it)
// and writes what t1 reads (t1 cannot move up past it): no merge. t2 and t3
// share A block 1, and V1 between them reads a workspace region that t2 does
// not write: they merge, after V1. Only A blocks count (`"left"`), so t2
// does not look at t0's B block.

!A = !pto.tensor<32x16xbf16>
!B = !pto.tensor<16x32xbf16>
!W = !pto.tensor<32x32xf32>
!O = !pto.tensor<32x32xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>
#vt = #pto.vec_tile<[16, 16]>

// CHECK-LABEL: pto.kernel @dependency(
// CHECK:         %[[WS:.*]] = pto.workspace : !pto.tensor<32x32xf32>
// CHECK-NEXT:    %[[WB:.*]] = pto.workspace : !pto.tensor<16x32xbf16>
// CHECK-NEXT:    pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %[[WS]][0, 0]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %[[WB]][0, 0]
// CHECK:         pto.task #pto.core<vector> "V1" {
// CHECK-NEXT:      pto.view %[[WS]][0, 16]
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A1:.*]] = pto.view %a[16, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           pto.assemble {{.*}} %[[WS]] [16, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A1]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} %[[WS]] [16, 16]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// expected-remark@+1 {{before 4096, after 3584 (saved 12.5%)}}
pto.kernel @dependency(%a: !A, %b: !B, %o: !O) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : (2, "left")}>} {
  %ws = pto.workspace : !W
  %wb = pto.workspace : !B
  // expected-remark@+1 {{group 0 (4 x "C1"): merge count 2 (cube_l1_reuse_setting), sides left, 3 tasks after, 1 loads removed (512 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.cast %s {vec_tile = #vt} : !R -> !T
    pto.assemble %n, %wb[0, 0] : !T, !B
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %wb[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 16] : !R, !W
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[16, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 16] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %o[0, 16] : !R, !O
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[16, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[16, 16] : !R, !W
  }
}

// -----

// The later member moves up: V reads what t0 writes, so t0 cannot move down
// past it, but t1 touches nothing V touches. The merged task takes t0's
// place, before V.

!A = !pto.tensor<16x16xbf16>
!B = !pto.tensor<16x32xbf16>
!W = !pto.tensor<16x32xf32>
!O = !pto.tensor<16x16xf32>
!T = !pto.tile<16x16xbf16>
!R = !pto.tile<16x16xf32>
#ct = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>
#vt = #pto.vec_tile<[16, 16]>

// CHECK-LABEL: pto.kernel @move_up(
// CHECK:         pto.task #pto.core<cube> "C1" {
// CHECK-NEXT:      %[[A0:.*]] = pto.view %a[0, 0]
// CHECK-NEXT:      pto.view %b[0, 0]
// CHECK:           pto.assemble {{.*}} [0, 0]
// CHECK-NEXT:      %[[B1:.*]] = pto.view %b[0, 16]
// CHECK-NEXT:      pto.matmul %[[A0]], %[[B1]]
// CHECK-NEXT:      pto.assemble {{.*}} [0, 16]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.task #pto.core<vector> "V1" {
// expected-remark@+1 {{before 2048, after 1536 (saved 25.0%)}}
pto.kernel @move_up(%a: !A, %b: !B, %o: !O) attributes {
    pass_options = #pto.pass_options<cube_l1_reuse_setting = {0 : 2}>} {
  %ws = pto.workspace : !W
  // expected-remark@+1 {{group 0 (2 x "C1"): merge count 2 (cube_l1_reuse_setting), 1 tasks after, 1 loads removed (512 B)}}
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 0] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 0] : !R, !W
  }
  pto.task #pto.core<vector> "V1" {
    %s = pto.view %ws[0, 0] : !W -> !R
    %n = pto.neg %s {vec_tile = #vt} : !R -> !R
    pto.assemble %n, %o[0, 0] : !R, !O
  }
  pto.task #pto.core<cube> "C1" {
    %x = pto.view %a[0, 0] : !A -> !T
    %y = pto.view %b[0, 16] : !B -> !T
    %p = pto.matmul %x, %y {cube_tile = #ct} : !T, !T -> !R
    pto.assemble %p, %ws[0, 16] : !R, !W
  }
}
