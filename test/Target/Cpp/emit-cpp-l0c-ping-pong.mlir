// L0C ping-pong in a rolled piece loop, on the host emulation. Five pieces
// of a cube leaf, each a 128 x 128 FP32 accumulator (half of DAV_2201's
// L0C): pto-isa-roll-pieces rolls them two per iteration (the fifth after
// the loop), pto-isa-plan-memory puts the two accumulators of the body at
// L0C offsets 0 and 64 KiB, and pto-isa-insert-sync orders each store before
// the next iteration's matmul into the same half by its own loop-carried
// FIX -> M flag (primed before the loop, drained after it). The emulation
// runs it clean and the product matches NumPy.
// RUN: pto-opt %s --pto-isa-roll-pieces --pto-isa-plan-memory --pto-isa-insert-sync | pto-translate --pto-to-cpp -o %t.good.cpp
// RUN: pto-opt %s --pto-isa-roll-pieces --pto-isa-plan-memory --pto-isa-insert-sync -o %t.good.mlir
// RUN: FileCheck %s --check-prefix=SYNC < %t.good.mlir
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.good.cpp -o %t.good
// RUN: rm -rf %t.in %t.out && mkdir -p %t.in %t.out
// RUN: %python -c "import numpy as n; r = n.random.default_rng(3); n.save('%t.in/a.npy', r.standard_normal((640, 64)).astype(n.float16)); n.save('%t.in/b.npy', r.standard_normal((64, 128)).astype(n.float16)); n.save('%t.in/out.npy', n.zeros((640, 128), n.float32))"
// RUN: %t.good --inputs %t.in --outputs %t.out
// RUN: %python -c "import numpy as n; a = n.load('%t.in/a.npy').astype(n.float64); b = n.load('%t.in/b.npy').astype(n.float64); o = n.load('%t.out/out.npy'); assert n.allclose(o, a @ b, rtol=1e-5, atol=1e-4); print('ok')" | FileCheck %s --check-prefix=GOLD
// GOLD: ok

// Without the wait of the second half's loop-carried flag, its set in the
// first iteration finds the primed flag still pending: the emulation's flag
// checker and pto-isa-verify-sync both report it.
// RUN: sed -e '/scf.for/,/^ *}$/{/wait_flag FIX -> M, 1$/d}' %t.good.mlir > %t.nowait.mlir
// RUN: not pto-opt %t.nowait.mlir --pto-isa-verify-sync -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: {{.*}}set_flag FIX -> M, 1{{.*}}pending
// RUN: pto-translate --pto-to-cpp %t.nowait.mlir -o %t.nowait.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.nowait.cpp -o %t.nowait
// RUN: not %t.nowait --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=PAIRING
// PAIRING: pto-sim error: set_flag(PIPE_FIX, PIPE_M, EVENT_ID1): triple reused while pending

// Without that flag altogether (prime, wait, set and drain), the second
// half's matmul of iteration 1 overwrites L0C bytes its store of iteration
// 0 may still read: the hazard checker names both instructions.
// RUN: sed -e '/FIX -> M, 1$/d' %t.good.mlir > %t.noflag.mlir
// RUN: pto-translate --pto-to-cpp %t.noflag.mlir -o %t.noflag.cpp
// RUN: %{cxx} -std=c++20 -D__CPU_SIM -DPTO_HOST_MAIN -O0 -pthread -I%{pto_src_root}/runtime/include %t.noflag.cpp -o %t.noflag
// RUN: not %t.noflag --inputs %t.in --outputs %t.out 2>&1 | FileCheck %s --check-prefix=HAZARD
// HAZARD: pto-sim error: hazard WAR on L0C byte offset 65536 {{.*}}TMATMUL on PIPE_M writes bytes read by TSTORE on PIPE_FIX

// SYNC-LABEL: func.func private @k_leaf_C2_0(
// SYNC:         pto_isa.set_flag FIX -> M, [[F0:[0-7]]]
// SYNC-NEXT:    pto_isa.set_flag FIX -> M, [[F1:[0-7]]]
// SYNC-NEXT:    scf.for
// SYNC:           %[[A:.*]] = pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:           pto_isa.wait_flag FIX -> M, [[F0]]
// SYNC-NEXT:      pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[A]]
// SYNC:           pto_isa.tstore %[[A]]
// SYNC-NEXT:      pto_isa.set_flag FIX -> M, [[F0]]
// SYNC:           %[[B:.*]] = pto_isa.alloc_tile {{.*}} at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// SYNC:           pto_isa.wait_flag FIX -> M, [[F1]]
// SYNC-NEXT:      pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[B]]
// SYNC:           pto_isa.tstore %[[B]]
// SYNC-NEXT:      pto_isa.set_flag FIX -> M, [[F1]]
// SYNC-NEXT:    }
// SYNC:         pto_isa.wait_flag FIX -> M, [[F0]]
// SYNC-NEXT:    pto_isa.wait_flag FIX -> M, [[F1]]
// SYNC:         pto_isa.tstore %{{.*}}[%c512, %c0]

func.func private @k_leaf_C2_0(%a: !pto.tensor<640x64xf16>, %b: !pto.tensor<64x128xf16>,
    %out: !pto.tensor<640x128xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %c512 = arith.constant 512 : index
  %rl1 = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l1, 64x128xf16>
  pto_isa.tload %b[%c0, %c0] into %rl1 : !pto.tensor<64x128xf16>, !pto_isa.tile<l1, 64x128xf16>
  %r = pto_isa.alloc_tile valid [%c64, %c128] : !pto_isa.tile<l0b, 64x128xf16>
  pto_isa.textract %rl1 into %r : !pto_isa.tile<l1, 64x128xf16>, !pto_isa.tile<l0b, 64x128xf16>
  %l1_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xf16>
  pto_isa.tload %a[%c0, %c0] into %l1_0 : !pto.tensor<640x64xf16>, !pto_isa.tile<l1, 128x64xf16>
  %l0a_0 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xf16>
  pto_isa.textract %l1_0 into %l0a_0 : !pto_isa.tile<l1, 128x64xf16>, !pto_isa.tile<l0a, 128x64xf16>
  %acc0 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_0, %r into %acc0 : !pto_isa.tile<l0a, 128x64xf16>, !pto_isa.tile<l0b, 64x128xf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc0 into %out[%c0, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xf16>
  pto_isa.tload %a[%c128, %c0] into %l1_1 : !pto.tensor<640x64xf16>, !pto_isa.tile<l1, 128x64xf16>
  %l0a_1 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xf16>
  pto_isa.textract %l1_1 into %l0a_1 : !pto_isa.tile<l1, 128x64xf16>, !pto_isa.tile<l0a, 128x64xf16>
  %acc1 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_1, %r into %acc1 : !pto_isa.tile<l0a, 128x64xf16>, !pto_isa.tile<l0b, 64x128xf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc1 into %out[%c128, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xf16>
  pto_isa.tload %a[%c256, %c0] into %l1_2 : !pto.tensor<640x64xf16>, !pto_isa.tile<l1, 128x64xf16>
  %l0a_2 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xf16>
  pto_isa.textract %l1_2 into %l0a_2 : !pto_isa.tile<l1, 128x64xf16>, !pto_isa.tile<l0a, 128x64xf16>
  %acc2 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_2, %r into %acc2 : !pto_isa.tile<l0a, 128x64xf16>, !pto_isa.tile<l0b, 64x128xf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc2 into %out[%c256, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_3 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xf16>
  pto_isa.tload %a[%c384, %c0] into %l1_3 : !pto.tensor<640x64xf16>, !pto_isa.tile<l1, 128x64xf16>
  %l0a_3 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xf16>
  pto_isa.textract %l1_3 into %l0a_3 : !pto_isa.tile<l1, 128x64xf16>, !pto_isa.tile<l0a, 128x64xf16>
  %acc3 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_3, %r into %acc3 : !pto_isa.tile<l0a, 128x64xf16>, !pto_isa.tile<l0b, 64x128xf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc3 into %out[%c384, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  %l1_4 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l1, 128x64xf16>
  pto_isa.tload %a[%c512, %c0] into %l1_4 : !pto.tensor<640x64xf16>, !pto_isa.tile<l1, 128x64xf16>
  %l0a_4 = pto_isa.alloc_tile valid [%c128, %c64] : !pto_isa.tile<l0a, 128x64xf16>
  pto_isa.textract %l1_4 into %l0a_4 : !pto_isa.tile<l1, 128x64xf16>, !pto_isa.tile<l0a, 128x64xf16>
  %acc4 = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tmatmul %l0a_4, %r into %acc4 : !pto_isa.tile<l0a, 128x64xf16>, !pto_isa.tile<l0b, 64x128xf16>, !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %acc4 into %out[%c512, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<640x128xf32>
  return
}

func.func private @k_root_main(%a: !pto.tensor<640x64xf16>, %b: !pto.tensor<64x128xf16>, %out: !pto.tensor<640x128xf32>) attributes {pto.root} {
  %t = pto.launch @k_leaf_C2_0(%a, %b, %out) : (!pto.tensor<640x64xf16>, !pto.tensor<64x128xf16>, !pto.tensor<640x128xf32>) -> !pto.token
  return
}

pto.kernel @k(%a: !pto.tensor<640x64xf16>, %b: !pto.tensor<64x128xf16>, %out: !pto.tensor<640x128xf32>) {
  pto.root_call @k_root_main(%a, %b, %out) : (!pto.tensor<640x64xf16>, !pto.tensor<64x128xf16>, !pto.tensor<640x128xf32>) -> ()
  pto.return
}
