// RUN: pto-opt %s -split-input-file '-pto-unroll-carried-loops=factors=2' | FileCheck %s
// RUN: pto-opt %s -split-input-file -pto-unroll-carried-loops | FileCheck %s --check-prefix=OFF
// RUN: pto-opt %s -split-input-file '-pto-unroll-carried-loops=factors=4,2' | FileCheck %s --check-prefix=LIST
// RUN: not pto-opt %s '-pto-unroll-carried-loops=factors=4,0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: pto-unroll-carried-loops: factor 0 is not a positive unroll factor; give factors >= 1 (1 leaves the loops as written)

// A loop carrying a tile: whole chunks of 2 iterations, then the rest. In the
// chunk body is_loop_begin is false in the second copy, is_loop_end false in
// the first; the branches on a constant are gone; the second copy's
// carry-independent exp moves above the first copy's branch.

// CHECK-LABEL: pto.kernel @carried(
// CHECK:         %[[SPAN:.*]] = arith.maxsi
// CHECK-NEXT:    %[[N:.*]] = arith.ceildivsi %[[SPAN]], %c1
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[N]], %[[C2]]
// CHECK-NEXT:    %[[W:.*]] = arith.muli %[[Q]], %[[C2]]
// CHECK-NEXT:    %[[WS:.*]] = arith.muli %[[W]], %c1
// CHECK-NEXT:    %[[END:.*]] = arith.addi %c0, %[[WS]]
// CHECK-NEXT:    %[[STEP:.*]] = arith.muli %c1, %[[C2]]
// CHECK-NEXT:    %[[CH:.*]] = pto.loop "L" %i = %c0 to %[[END]] step %[[STEP]] iter_args(%[[A:.*]] = %{{.*}})
// CHECK-NEXT:      %[[BEGIN:.*]] = arith.cmpi eq, %i, %c0
// CHECK-NEXT:      %[[OFF0:.*]] = arith.muli %i, %c64
// CHECK-NEXT:      %[[V0:.*]] = pto.view %x[%[[OFF0]], 0]
// CHECK-NEXT:      %[[E0:.*]] = pto.exp %[[V0]]
// CHECK:           %[[I1:.*]] = arith.addi %i,
// CHECK-NEXT:      %[[OFF1:.*]] = arith.muli %[[I1]], %c64
// CHECK-NEXT:      %[[V1:.*]] = pto.view %x[%[[OFF1]], 0]
// CHECK-NEXT:      %[[E1:.*]] = pto.exp %[[V1]]
// CHECK-NEXT:      %[[IF:.*]] = scf.if %[[BEGIN]]
// CHECK-NEXT:        scf.yield %[[E0]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        pto.add %[[A]], %[[E0]]
// CHECK:           %[[S1:.*]] = pto.add %[[IF]], %[[E1]]
// CHECK-NEXT:      pto.yield %[[S1]]
// CHECK:         %[[REST:.*]] = pto.loop "L" %[[J:.*]] = %[[END]] to %c5 step %c1 iter_args(%{{.*}} = %[[CH]])
// CHECK-NOT:       pto.is_loop_begin
// CHECK:           arith.cmpi eq, %[[J]], %c0
// CHECK:         pto.assemble %[[REST]], %out [0, 0]

// A list of factors unrolls the rest again: chunks of 4, then of 2, then
// single iterations; is_loop_begin tests the first index as written in each.
// LIST-LABEL: pto.kernel @carried(
// LIST:         %[[R4:.*]] = pto.loop "L" %i = %c0 to %[[E4:.*]] step %{{.*}} iter_args
// LIST:           arith.cmpi eq, %i, %c0
// LIST-COUNT-4:   pto.exp
// LIST:         %[[R2:.*]] = pto.loop "L" %i = %[[E4]] to %[[E2:.*]] step %{{.*}} iter_args(%{{.*}} = %[[R4]])
// LIST:           arith.cmpi eq, %i, %c0
// LIST-COUNT-2:   pto.exp
// LIST:         %[[R1:.*]] = pto.loop "L" %[[J:.*]] = %[[E2]] to %c5 step %c1 iter_args(%{{.*}} = %[[R2]])
// LIST:           arith.cmpi eq, %[[J]], %c0
// LIST:         pto.assemble %[[R1]], %out [0, 0]

// OFF-LABEL: pto.kernel @carried(
// OFF:         pto.loop "L"
// OFF:           pto.is_loop_begin
// OFF:           pto.yield
// OFF-NEXT:    }
// OFF-NEXT:    pto.assemble
pto.kernel @carried(%x: !pto.tensor<320x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %init = pto.full 0.0 : !pto.tile<64x64xf32>
  %r = pto.loop "L" %i = %c0 to %c5 step %c1 iter_args(%acc = %init) -> (!pto.tile<64x64xf32>) {
    %off = arith.muli %i, %c64 : index
    %v = pto.view %x[%off, 0] : !pto.tensor<320x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    %first = pto.is_loop_begin %i
    %next = scf.if %first -> (!pto.tile<64x64xf32>) {
      scf.yield %e : !pto.tile<64x64xf32>
    } else {
      %s = pto.add %acc, %e : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      scf.yield %s : !pto.tile<64x64xf32>
    }
    pto.yield %next : !pto.tile<64x64xf32>
  }
  pto.assemble %r, %out[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
}

// -----

// Accumulators in GM: the loop carries nothing through iter_args, but each
// iteration reads what the previous one wrote, so it is unrolled too. The
// second copy's view of the accumulator stays below the first copy's branch,
// which writes it; its view of %x moves.

// CHECK-LABEL: pto.kernel @gm_carried(
// CHECK:         pto.loop "L" %i = %c0 to %{{.*}} step %{{.*}} {
// CHECK:           pto.view %x
// CHECK:           pto.view %x
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        pto.assemble %{{.*}}, %acc [0, 0]
// CHECK-NEXT:      } else {
// CHECK:           }
// CHECK-NEXT:      pto.view %acc[0, 0]
// CHECK-NEXT:      pto.add
// CHECK-NEXT:      pto.assemble %{{.*}}, %acc [0, 0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.loop "L"
pto.kernel @gm_carried(%x: !pto.tensor<320x64xf32>, %acc: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  pto.loop "L" %i = %c0 to %c5 step %c1 {
    %off = arith.muli %i, %c64 : index
    %v = pto.view %x[%off, 0] : !pto.tensor<320x64xf32> -> !pto.tile<64x64xf32>
    %first = pto.is_loop_begin %i
    scf.if %first {
      pto.assemble %v, %acc[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
    } else {
      %a = pto.view %acc[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
      %s = pto.add %a, %v : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      pto.assemble %s, %acc[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
    }
  }
}

// -----

// Iterations that only read GM and carry nothing run as concurrent root
// instances already: left alone. So is a loop with a loop inside.

// CHECK-LABEL: pto.kernel @independent(
// CHECK:         pto.loop "L" %i = %c0 to %c5 step %c1 {
// CHECK-NOT:     pto.loop "L"
pto.kernel @independent(%x: !pto.tensor<320x64xf32>, %out: !pto.tensor<320x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  pto.loop "L" %i = %c0 to %c5 step %c1 {
    %off = arith.muli %i, %c64 : index
    %v = pto.view %x[%off, 0] : !pto.tensor<320x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %e, %out[%off, 0] : !pto.tile<64x64xf32>, !pto.tensor<320x64xf32>
  }
}

