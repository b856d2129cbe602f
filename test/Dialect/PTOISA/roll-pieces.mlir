// RUN: pto-opt %s --pto-isa-roll-pieces -split-input-file | FileCheck %s
// RUN: pto-opt %s --pto-isa-roll-pieces --pto-isa-plan-memory --pto-isa-insert-sync --pto-isa-verify-sync -split-input-file | FileCheck %s --check-prefix=SYNC

// Four row pieces of one vector op: load, exp, store per piece, the row
// offset a constant in arithmetic progression (0, 16, 32, 48) and the valid
// rows a leaf argument per piece. One loop: offset = %i * 16, the valid
// rows from a table.
// CHECK-LABEL: func.func @row_pieces
// CHECK-SAME:    (%[[IN:.*]]: !pto.tensor<64x64xf32>, %[[OUT:.*]]: !pto.tensor<64x64xf32>, %[[R0:.*]]: index, %[[R1:.*]]: index, %[[R2:.*]]: index, %[[R3:.*]]: index)
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[UB:.*]] = arith.constant 4 : index
// CHECK:         %[[ROWS:.*]] = tensor.from_elements %[[R0]], %[[R1]], %[[R2]], %[[R3]] : tensor<4xindex>
// CHECK:         scf.for %[[I:[^ ]*]] = %{{[^ ]*}} to %[[UB]] step %{{[^ ]*}} {
// CHECK-DAG:       %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-DAG:       %[[VALID:.*]] = tensor.extract %[[ROWS]][%[[I]]] : tensor<4xindex>
// CHECK:           %[[A:.*]] = pto_isa.alloc_tile valid [%[[VALID]], %[[C64]]]
// CHECK:           pto_isa.tload %[[IN]][%[[ROW]], %{{.*}}] into %[[A]]
// CHECK:           %[[B:.*]] = pto_isa.alloc_tile valid [%[[VALID]], %[[C64]]]
// CHECK:           pto_isa.texp %[[A]] into %[[B]]
// CHECK:           pto_isa.tstore %[[B]] into %[[OUT]][%[[ROW]], %{{.*}}]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @row_pieces(%in: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>,
                      %r0: index, %r1: index, %r2: index, %r3: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %a0 = pto_isa.alloc_tile valid [%r0, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a0 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b0 = pto_isa.alloc_tile valid [%r0, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a0 into %b0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b0 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a1 = pto_isa.alloc_tile valid [%r1, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a1 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b1 = pto_isa.alloc_tile valid [%r1, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a1 into %b1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b1 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a2 = pto_isa.alloc_tile valid [%r2, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c32, %c0] into %a2 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b2 = pto_isa.alloc_tile valid [%r2, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a2 into %b2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b2 into %out[%c32, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a3 = pto_isa.alloc_tile valid [%r3, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c48, %c0] into %a3 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b3 = pto_isa.alloc_tile valid [%r3, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a3 into %b3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b3 into %out[%c48, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  return
}

// -----

// A K chain: the first step (tmatmul) stays, the three accumulating steps
// roll into one loop that accumulates into the tile defined before it.
// CHECK-LABEL: func.func @k_chain
// CHECK:         pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[ACC:[^ ]*]]
// CHECK:         scf.for
// CHECK:           pto_isa.tload
// CHECK:           pto_isa.textract
// CHECK:           pto_isa.tmatmul_acc %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK:         }
// CHECK-NOT:     pto_isa.tmatmul_acc
// CHECK:         pto_isa.tstore %[[ACC]]
func.func @k_chain(%a: !pto.tensor<16x64xbf16>, %b: !pto.tensor<64x16xbf16>,
                   %c: !pto.tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %rb0 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %b[%c0, %c0] into %rb0 : !pto.tensor<64x16xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %r0 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0b, 16x16xbf16>
  pto_isa.textract %rb0 into %r0 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>
  %la0 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %a[%c0, %c0] into %la0 : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %l0 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.textract %la0 into %l0 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0a, 16x16xbf16>
  %acc = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0c, 16x16xf32>
  pto_isa.tmatmul %l0, %r0 into %acc : !pto_isa.tile<l0a, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>, !pto_isa.tile<l0c, 16x16xf32>
  %rb1 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %b[%c16, %c0] into %rb1 : !pto.tensor<64x16xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %r1 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0b, 16x16xbf16>
  pto_isa.textract %rb1 into %r1 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>
  %la1 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %a[%c0, %c16] into %la1 : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %l1 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.textract %la1 into %l1 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.tmatmul_acc %l1, %r1 into %acc : !pto_isa.tile<l0a, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>, !pto_isa.tile<l0c, 16x16xf32>
  %rb2 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %b[%c32, %c0] into %rb2 : !pto.tensor<64x16xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %r2 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0b, 16x16xbf16>
  pto_isa.textract %rb2 into %r2 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>
  %la2 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %a[%c0, %c32] into %la2 : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %l2 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.textract %la2 into %l2 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.tmatmul_acc %l2, %r2 into %acc : !pto_isa.tile<l0a, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>, !pto_isa.tile<l0c, 16x16xf32>
  %rb3 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %b[%c48, %c0] into %rb3 : !pto.tensor<64x16xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %r3 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0b, 16x16xbf16>
  pto_isa.textract %rb3 into %r3 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>
  %la3 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l1, 16x16xbf16>
  pto_isa.tload %a[%c0, %c48] into %la3 : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 16x16xbf16>
  %l3 = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.textract %la3 into %l3 : !pto_isa.tile<l1, 16x16xbf16>, !pto_isa.tile<l0a, 16x16xbf16>
  pto_isa.tmatmul_acc %l3, %r3 into %acc : !pto_isa.tile<l0a, 16x16xbf16>, !pto_isa.tile<l0b, 16x16xbf16>, !pto_isa.tile<l0c, 16x16xf32>
  pto_isa.tstore %acc into %c[%c0, %c0] : !pto_isa.tile<l0c, 16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

// Not rolled: the second piece reads the first piece's tile (a load shared
// between pieces), so the groups are not independent copies.
// CHECK-LABEL: func.func @shared_tile
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @shared_tile(%in: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a0 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a0 into %b0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b0 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a1 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b0 into %b1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b1 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a2 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b1 into %b2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %b2 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  return
}

// -----

// Not rolled: two pieces save fewer ops than min-saved-ops (8).
// CHECK-LABEL: func.func @too_small
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @too_small(%in: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a0 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %a0 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a1 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %a1 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  return
}

// -----

// Pieces whose L0C accumulator is at most half of L0C (128 x 128 FP32 of
// DAV_2201's 128 KiB) roll two per iteration, the fifth after the loop:
// the body holds two accumulators, which pto-isa-plan-memory places at two
// offsets, so one half's store overlaps the other half's matmul.
// CHECK-LABEL: func.func @acc_pairs
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         scf.for %{{[^ ]*}} = %{{[^ ]*}} to %[[TWO]]
// CHECK:           %[[A:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:      pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[A]]
// CHECK-NEXT:      pto_isa.tstore %[[A]]
// CHECK:           %[[B:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:      pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[B]]
// CHECK-NEXT:      pto_isa.tstore %[[B]]
// CHECK-NEXT:    }
// CHECK:         pto_isa.tload %{{.*}}[%c512, %c0]
// CHECK:         pto_isa.tstore %{{.*}} into %{{.*}}[%c512, %c0]
// CHECK-NEXT:    return
// SYNC-LABEL: func.func @acc_pairs
// SYNC:         scf.for
// SYNC:           pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:           pto_isa.wait_flag FIX -> M, [[F0:[0-7]]]
// SYNC-NEXT:      pto_isa.tmatmul
// SYNC:           pto_isa.alloc_tile {{.*}} at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:           pto_isa.wait_flag FIX -> M, [[F1:[0-7]]]
// SYNC-NEXT:      pto_isa.tmatmul
// SYNC:         }
func.func @acc_pairs(%a: !pto.tensor<640x64xbf16>, %b: !pto.tensor<64x128xbf16>,
    %out: !pto.tensor<640x128xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %c512 = arith.constant 512 : index
  %rl1 = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l1, 64x128xbf16>
  pto_isa.tload %b[%c0, %c0] into %rl1 : !pto.tensor<64x128xbf16>, !pto_isa.tile<l1, 64x128xbf16>
  %r = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l0b, 64x128xbf16>
  pto_isa.textract %rl1 into %r : !pto_isa.tile<l1, 64x128xbf16>, !pto_isa.tile<l0b, 64x128xbf16>
  %l1_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c0, %c0] into %l1_0 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_0 into %l0a_0 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc0 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_0, %r into %acc0 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc0 into %out[%c0, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c128, %c0] into %l1_1 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_1 into %l0a_1 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc1 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_1, %r into %acc1 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc1 into %out[%c128, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c256, %c0] into %l1_2 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_2 into %l0a_2 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc2 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_2, %r into %acc2 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc2 into %out[%c256, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_3 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c384, %c0] into %l1_3 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_3 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_3 into %l0a_3 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc3 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_3, %r into %acc3 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc3 into %out[%c384, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_4 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c512, %c0] into %l1_4 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_4 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_4 into %l0a_4 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc4 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_4, %r into %acc4 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc4 into %out[%c512, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  return
}

// -----

// Three such pieces stay straight-line (a loop of one pair would not be a
// loop); the planner alternates their accumulators all the same.
// CHECK-LABEL: func.func @acc_three
// CHECK-NOT:     scf.for
// CHECK:         return
// SYNC-LABEL: func.func @acc_three
// SYNC:         at 0 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:         at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:         at 0 : !pto_isa.tile<l0c, 128x128xf32>
func.func @acc_three(%a: !pto.tensor<640x64xbf16>, %b: !pto.tensor<64x128xbf16>,
    %out: !pto.tensor<640x128xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %c512 = arith.constant 512 : index
  %rl1 = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l1, 64x128xbf16>
  pto_isa.tload %b[%c0, %c0] into %rl1 : !pto.tensor<64x128xbf16>, !pto_isa.tile<l1, 64x128xbf16>
  %r = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l0b, 64x128xbf16>
  pto_isa.textract %rl1 into %r : !pto_isa.tile<l1, 64x128xbf16>, !pto_isa.tile<l0b, 64x128xbf16>
  %l1_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c0, %c0] into %l1_0 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_0 into %l0a_0 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc0 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_0, %r into %acc0 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc0 into %out[%c0, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c128, %c0] into %l1_1 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_1 into %l0a_1 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc1 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_1, %r into %acc1 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc1 into %out[%c128, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xbf16>
  pto_isa.tload %a[%c256, %c0] into %l1_2 : !pto.tensor<640x64xbf16>, !pto_isa.tile<l1, 128x64xbf16>
  %l0a_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xbf16>
  pto_isa.textract %l1_2 into %l0a_2 : !pto_isa.tile<l1, 128x64xbf16>, !pto_isa.tile<l0a, 128x64xbf16>
  %acc2 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_2, %r into %acc2 : !pto_isa.tile<l0a, 128x64xbf16>, !pto_isa.tile<l0b, 64x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc2 into %out[%c256, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  return
}

// -----

// The first piece also loads a tile %w that the later pieces reuse, so it is
// longer than they are and only its tail matches theirs: the matching
// stretch starts inside it, more than four ops before the second piece. The
// phase taken from the stretch's end finds the groups: the first piece
// stays, the other three roll, reading %w from before the loop.
// CHECK-LABEL: func.func @shared_first_piece
// CHECK:         pto_isa.tload %{{.*}} into %[[W:[^ ]*]] : !pto.tensor<16x64xf32>
// CHECK:         pto_isa.tstore
// CHECK:         scf.for
// CHECK:           pto_isa.tload
// CHECK:           pto_isa.tadd %{{.*}}, %[[W]] into
// CHECK:           pto_isa.texp
// CHECK:           pto_isa.tstore
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// SYNC-LABEL: func.func @shared_first_piece
// SYNC:         scf.for
func.func @shared_first_piece(%in: !pto.tensor<64x64xf32>, %win: !pto.tensor<16x64xf32>,
                              %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %a0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a0 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %w = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %win[%c0, %c0] into %w : !pto.tensor<16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %a0, %w into %b0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b0 into %e0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e0 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a1 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %a1, %w into %b1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b1 into %e1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e1 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c32, %c0] into %a2 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %a2, %w into %b2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b2 into %e2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e2 into %out[%c32, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c48, %c0] into %a3 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %a3, %w into %b3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b3 into %e3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e3 into %out[%c48, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  return
}

// -----

// As above, but the shared load sits inside the first piece, after ops that
// the later pieces also have: the stretch where op n matches op n + 9 starts
// five ops before the second piece. The phase whose last group ends where
// the stretch ends finds the groups.
// CHECK-LABEL: func.func @shared_mid_piece
// CHECK:         pto_isa.tload %{{.*}} into %[[W:[^ ]*]] : !pto.tensor<16x64xf32>
// CHECK:         pto_isa.tstore
// CHECK:         scf.for
// CHECK:           pto_isa.tload
// CHECK:           pto_isa.texp
// CHECK:           pto_isa.tadd %{{.*}}, %[[W]] into
// CHECK:           pto_isa.texp
// CHECK:           pto_isa.tstore
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// SYNC-LABEL: func.func @shared_mid_piece
// SYNC:         scf.for
func.func @shared_mid_piece(%in: !pto.tensor<64x64xf32>, %win: !pto.tensor<16x64xf32>,
                            %out: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %a0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a0 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a0 into %b0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %w = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %win[%c0, %c0] into %w : !pto.tensor<16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %s0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %b0, %w into %s0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e0 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %s0 into %e0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e0 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c16, %c0] into %a1 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a1 into %b1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %s1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %b1, %w into %s1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %s1 into %e1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e1 into %out[%c16, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c32, %c0] into %a2 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a2 into %b2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %s2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %b2, %w into %s2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e2 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %s2 into %e2 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e2 into %out[%c32, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  %a3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c48, %c0] into %a3 : !pto.tensor<64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %b3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a3 into %b3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %s3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tadd %b3, %w into %s3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %e3 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %s3 into %e3 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %e3 into %out[%c48, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<64x64xf32>
  return
}
