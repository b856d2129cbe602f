// RUN: pto-opt %s --pto-lower-to-isa -split-input-file | FileCheck %s
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory --pto-isa-insert-sync --pto-isa-verify-sync -split-input-file | FileCheck %s --check-prefix=SYNC

// L0C double buffering (docs/ISA.md, "Accumulator row halves"): a 256 x 128
// FP32 accumulator is all of DAV_2201's 128 KiB L0C, so each is cut into two
// 128-row halves, each a tmatmul from its own L0A rows (textract at row 0 and
// at row 128 of the L1 image, shared by both pieces) and stored by its own
// tstore 128 rows further down. Valid rows: min(v, 128) and max(v - 128, 0).
// CHECK-LABEL: func.func private @acc_halves(
// CHECK-SAME:    %[[WS:[^:]*]]: !pto.tensor<512x256xf32>, %[[R:[^:]*]]: index, %{{[^:]*}}: index)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         %[[A1:.*]] = pto_isa.alloc_tile valid [%[[VR:[^,]*]], %[[C128]]] : !pto_isa.tile<l1, 256x128xbf16>
// CHECK:         %[[TOPV:.*]] = arith.minsi %[[VR]], %[[C128]] : index
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %[[VR]], %[[C128]] : index
// CHECK-NEXT:    %[[BOTV:.*]] = arith.maxsi %[[REST]], %[[C0]] : index
// CHECK-NEXT:    %[[AT:.*]] = pto_isa.alloc_tile valid [%[[TOPV]], %[[C128]]] : !pto_isa.tile<l0a, 128x128xbf16>
// CHECK-NEXT:    %[[AB:.*]] = pto_isa.alloc_tile valid [%[[BOTV]], %[[C128]]] : !pto_isa.tile<l0a, 128x128xbf16>
// CHECK-NEXT:    pto_isa.textract %[[A1]] into %[[AT]] : !pto_isa.tile<l1, 256x128xbf16>, !pto_isa.tile<l0a, 128x128xbf16>
// CHECK-NEXT:    pto_isa.textract %[[A1]] into %[[AB]] {index_row = 128 : i64} : !pto_isa.tile<l1, 256x128xbf16>, !pto_isa.tile<l0a, 128x128xbf16>
// CHECK:         %[[B0:.*]] = pto_isa.alloc_tile valid [%[[C128]], %[[C128]]] : !pto_isa.tile<l0b, 128x128xbf16>
// CHECK:         %[[CT:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %[[C128]]] : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    %[[CB:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %[[C128]]] : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tmatmul %[[AT]], %[[B0]] into %[[CT]]
// CHECK-NEXT:    pto_isa.tmatmul %[[AB]], %[[B0]] into %[[CB]]
// CHECK-NEXT:    pto_isa.tstore %[[CT]] into %[[WS]][%[[R]], %[[C0]]] : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    %[[R2:.*]] = arith.addi %[[R]], %[[C128]] : index
// CHECK-NEXT:    pto_isa.tstore %[[CB]] into %[[WS]][%[[R2]], %[[C0]]] : !pto_isa.tile<l0c, 128x128xf32>
// CHECK:         pto_isa.tmatmul %[[AT]], %{{.*}} into %{{.*}} : {{.*}}, !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tmatmul %[[AB]], %{{.*}} into %{{.*}} : {{.*}}, !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NOT:     tile<l0c, 256x128xf32>
// CHECK:         return

// The halves of one piece are live together, so they sit at two offsets;
// the next piece's top half waits only for this piece's top store (its own
// FIX -> M event), so the bottom half's M overlaps the top half's FIX.
// SYNC-LABEL: func.func private @acc_halves(
// SYNC:         %[[CT:.*]] = pto_isa.alloc_tile valid {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC-NEXT:    %[[CB:.*]] = pto_isa.alloc_tile valid {{.*}} at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:         pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[CT]]
// SYNC-NEXT:    pto_isa.set_flag M -> FIX, [[MT:[0-7]]]
// SYNC-NEXT:    pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[CB]]
// SYNC:         pto_isa.set_flag M -> FIX, [[MB:[0-7]]]
// SYNC-NEXT:    pto_isa.wait_flag M -> FIX, [[MT]]
// SYNC-NEXT:    pto_isa.tstore %[[CT]]
// SYNC-NEXT:    pto_isa.set_flag FIX -> M, [[FT:[0-7]]]
// SYNC:         pto_isa.wait_flag M -> FIX, [[MB]]
// SYNC-NEXT:    pto_isa.tstore %[[CB]]
// SYNC-NEXT:    pto_isa.set_flag FIX -> M, [[FB:[0-7]]]
// SYNC:         %[[CT2:.*]] = pto_isa.alloc_tile valid {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC-NEXT:    %[[CB2:.*]] = pto_isa.alloc_tile valid {{.*}} at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:         pto_isa.wait_flag FIX -> M, [[FT]]
// SYNC:         pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[CT2]]
// SYNC:         pto_isa.set_flag M -> FIX, {{[0-7]}}
// SYNC:         pto_isa.wait_flag FIX -> M, [[FB]]
// SYNC:         pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[CB2]]
func.func private @acc_halves(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<256x128xbf16>,
                              %ws: !pto.tensor<512x256xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a = pto.view %q[%r, %c0] valid [%v, 128] : !pto.tensor<?x128xbf16> -> !pto.tile<256x128xbf16>
  %b0 = pto.view %k[%c0, %c0] : !pto.tensor<256x128xbf16> -> !pto.tile<128x128xbf16>
  %b1 = pto.view %k[%c128, %c0] : !pto.tensor<256x128xbf16> -> !pto.tile<128x128xbf16>
  %s0 = pto.matmul %a, %b0 {b_trans, cube_tile = #pto.cube_tile<m = [256, 256], k = [128, 128], n = [128, 128]>} : !pto.tile<256x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<256x128xf32>
  pto.assemble %s0, %ws [%r, %c0] : !pto.tile<256x128xf32>, !pto.tensor<512x256xf32>
  %s1 = pto.matmul %a, %b1 {b_trans, cube_tile = #pto.cube_tile<m = [256, 256], k = [128, 128], n = [128, 128]>} : !pto.tile<256x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<256x128xf32>
  pto.assemble %s1, %ws [%r, %c128] : !pto.tile<256x128xf32>, !pto.tensor<512x256xf32>
  return
}

// -----

// A K chain (tmatmul, then tmatmul_acc per K step) into a 256 x 128
// accumulator added into GM: both halves step through K, each half's
// atomic tstore keeps atomic_add.
// CHECK-LABEL: func.func private @chain_halves(
// CHECK:         pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[T:[0-9]+]] : {{.*}}, !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[B:[0-9]+]] : {{.*}}, !pto_isa.tile<l0c, 128x128xf32>
// CHECK:         pto_isa.tmatmul_acc %{{.*}}, %{{.*}} into %[[T]] : !pto_isa.tile<l0a, 128x64xbf16>
// CHECK-NEXT:    pto_isa.tmatmul_acc %{{.*}}, %{{.*}} into %[[B]] : !pto_isa.tile<l0a, 128x64xbf16>
// CHECK-NEXT:    pto_isa.tstore %[[T]] into %{{.*}} atomic_add
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    pto_isa.tstore %[[B]] into %{{.*}} atomic_add
// SYNC-LABEL: func.func private @chain_halves(
func.func private @chain_halves(%p: !pto.tensor<256x128xbf16>, %k: !pto.tensor<128x128xbf16>,
                                %dq: !pto.tensor<?x128xf32>)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C2"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a0 = pto.view %p[%c0, %c0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x64xbf16>
  %a1 = pto.view %p[%c0, %c64] : !pto.tensor<256x128xbf16> -> !pto.tile<256x64xbf16>
  %b0 = pto.view %k[%c0, %c0] : !pto.tensor<128x128xbf16> -> !pto.tile<64x128xbf16>
  %b1 = pto.view %k[%c64, %c0] : !pto.tensor<128x128xbf16> -> !pto.tile<64x128xbf16>
  %s0 = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [256, 256], k = [64, 64], n = [128, 128]>} : !pto.tile<256x64xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x128xf32>
  %s1 = pto.matmul_acc %s0, %a1, %b1 {cube_tile = #pto.cube_tile<m = [256, 256], k = [64, 64], n = [128, 128]>} : !pto.tile<256x128xf32>, !pto.tile<256x64xbf16>, !pto.tile<64x128xbf16> -> !pto.tile<256x128xf32>
  pto.atomic_add %s1, %dq [%c0, %c0] : !pto.tile<256x128xf32>, !pto.tensor<?x128xf32>
  return
}

// -----

// Not cut: an accumulator of exactly half of L0C (128 x 128 FP32, two fit
// already), and one that feeds a later matmul (moved whole to an L1 image by
// the fixpipe); the later matmul's own accumulator is cut, its L0A halves
// extracted from that image.
// CHECK-LABEL: func.func private @not_cut(
// CHECK:         pto_isa.tmatmul {{.*}} : !pto_isa.tile<l0a, 128x128xbf16>, !pto_isa.tile<l0b, 128x128xbf16>, !pto_isa.tile<l0c, 128x128xf32>
// CHECK:         pto_isa.tmatmul {{.*}} !pto_isa.tile<l0c, 256x128xf32>
// CHECK:         pto_isa.tmov %{{.*}} into %[[IMG:[0-9]+]] : !pto_isa.tile<l0c, 256x128xf32>
// CHECK:         pto_isa.textract %[[IMG]] into %{{.*}} : !pto_isa.tile<l1, 256x128xbf16>, !pto_isa.tile<l0a, 128x128xbf16>
// CHECK-NEXT:    pto_isa.textract %[[IMG]] into %{{.*}} {index_row = 128 : i64}
// CHECK-NOT:     tile<l0c, 256x128xf32>
// CHECK:         return
// SYNC-LABEL: func.func private @not_cut(
func.func private @not_cut(%q: !pto.tensor<256x128xbf16>, %k: !pto.tensor<128x128xbf16>,
                           %ws: !pto.tensor<256x128xf32>, %out: !pto.tensor<128x128xf32>)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %a = pto.view %q[%c0, %c0] : !pto.tensor<256x128xbf16> -> !pto.tile<128x128xbf16>
  %b = pto.view %k[%c0, %c0] : !pto.tensor<128x128xbf16> -> !pto.tile<128x128xbf16>
  %s = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<128x128xf32>
  pto.assemble %s, %out [%c0, %c0] : !pto.tile<128x128xf32>, !pto.tensor<128x128xf32>
  %full = pto.view %q[%c0, %c0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x128xbf16>
  %t = pto.matmul %full, %b {cube_tile = #pto.cube_tile<m = [256, 256], k = [128, 128], n = [128, 128]>} : !pto.tile<256x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<256x128xbf16>
  %u = pto.matmul %t, %b {cube_tile = #pto.cube_tile<m = [256, 256], k = [128, 128], n = [128, 128]>} : !pto.tile<256x128xbf16>, !pto.tile<128x128xbf16> -> !pto.tile<256x128xf32>
  pto.assemble %u, %ws [%c0, %c0] : !pto.tile<256x128xf32>, !pto.tensor<256x128xf32>
  return
}
