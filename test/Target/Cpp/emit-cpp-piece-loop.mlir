// RUN: pto-opt %s --pto-isa-roll-pieces --pto-isa-plan-memory --pto-isa-insert-sync | pto-translate --pto-to-cpp | FileCheck %s

// A leaf with four row pieces after pto-isa-roll-pieces: the loop, the
// per-piece valid rows as a local array read per iteration, the row offset
// from the induction variable, the loop-carried flags primed and drained.

// CHECK-LABEL: __global__ AICORE void k_leaf_V1_0(__gm__ float *a0, __gm__ float *a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5) {
// CHECK:         const int64_t [[TABLE:v[0-9]+]][4] = {a2, a3, a4, a5};
// CHECK:         set_flag(
// CHECK:         for (int64_t [[I:v[0-9]+]] = v{{[0-9]+}}; [[I]] < v{{[0-9]+}}; [[I]] += v{{[0-9]+}}) {
// CHECK-NEXT:      const int64_t [[ROWS:v[0-9]+]] = [[TABLE]][[[I]]];
// CHECK-NEXT:      const int64_t [[ROW:v[0-9]+]] = ptogen::wmul<int64_t>([[I]], v{{[0-9]+}});
// CHECK:           TLOAD(
// CHECK:           TEXP(
// CHECK:           TSTORE(
// CHECK:         }
// CHECK:         wait_flag(
func.func private @k_leaf_V1_0(%in: !pto.tensor<64x64xf32>, %out: !pto.tensor<64x64xf32>,
                              %r0: index, %r1: index, %r2: index, %r3: index)
    attributes {pto.leaf = #pto.core<vector>} {
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
