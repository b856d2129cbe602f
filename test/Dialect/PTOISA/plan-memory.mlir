// RUN: pto-opt %s --pto-isa-plan-memory -split-input-file | FileCheck %s
// RUN: pto-opt %s --pto-isa-plan-memory=report -split-input-file -verify-diagnostics -o /dev/null

// Buffer reuse: %a is dead once %c is first written, so %c takes its bytes;
// %b overlaps both and gets its own. Live ranges run from the first to the
// last use, not from the alloc.
// CHECK-LABEL: func.func @reuse
// CHECK:         pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 4096 : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<ub, 16x64xf32>
// expected-remark @+1 {{memory plan of @reuse: ub 8192 B peak live, 8192 B used of 188416}}
func.func @reuse(%in: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  %b = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  %c = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a : !pto.tensor<16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.texp %b into %c : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %c into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// Alignment: tiles sit at multiples of the platform's 32-byte buffer
// alignment, packed first fit (small [R, 8] f32 tiles of 64 and 32 bytes).
// CHECK-LABEL: func.func @alignment
// CHECK:         pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<ub, 2x8xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 64 : !pto_isa.tile<ub, 1x8xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 96 : !pto_isa.tile<ub, 2x8xf32>
// expected-remark @+1 {{memory plan of @alignment: ub 160 B peak live, 160 B used of 188416}}
func.func @alignment(%in: !pto.tensor<16x8xf32>, %out: !pto.tensor<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = pto_isa.alloc_tile valid [%c2, %c1] : !pto_isa.tile<ub, 2x8xf32>
  %b = pto_isa.alloc_tile valid [%c1, %c1] : !pto_isa.tile<ub, 1x8xf32>
  %c = pto_isa.alloc_tile valid [%c2, %c1] : !pto_isa.tile<ub, 2x8xf32>
  pto_isa.tload %in[%c0, %c0] into %a : !pto.tensor<16x8xf32>, !pto_isa.tile<ub, 2x8xf32>
  pto_isa.tload %in[%c0, %c0] into %b : !pto.tensor<16x8xf32>, !pto_isa.tile<ub, 1x8xf32>
  pto_isa.tload %in[%c0, %c0] into %c : !pto.tensor<16x8xf32>, !pto_isa.tile<ub, 2x8xf32>
  pto_isa.tstore %a into %out[%c0, %c0] : !pto_isa.tile<ub, 2x8xf32>, !pto.tensor<16x8xf32>
  pto_isa.tstore %b into %out[%c0, %c0] : !pto_isa.tile<ub, 1x8xf32>, !pto.tensor<16x8xf32>
  pto_isa.tstore %c into %out[%c0, %c0] : !pto_isa.tile<ub, 2x8xf32>, !pto.tensor<16x8xf32>
  return
}

// -----

// Each space is planned on its own: a cube leaf's l0a, l0b and l0c tiles
// all start at 0, and the two L1 images (one dead before the other is
// loaded) share offset 0.
// CHECK-LABEL: func.func @spaces
// CHECK-COUNT-5: at 0 :
// expected-remark @+1 {{memory plan of @spaces: l1 2048 B peak live, 2048 B used of 524288, l0a 2048 B peak live, 2048 B used of 65536, l0b 2048 B peak live, 2048 B used of 65536, l0c 1024 B peak live, 1024 B used of 131072}}
func.func @spaces(%a: !pto.tensor<16x64xbf16>, %ws: !pto.tensor<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %l1 = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<l1, 16x64xbf16>
  %l1t = pto_isa.alloc_tile valid [%c64, %c16] : !pto_isa.tile<l1, 64x16xbf16, zn>
  %l0a = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<l0a, 16x64xbf16>
  %l0b = pto_isa.alloc_tile valid [%c64, %c16] : !pto_isa.tile<l0b, 64x16xbf16>
  %acc = pto_isa.alloc_tile valid [%c16, %c16] : !pto_isa.tile<l0c, 16x16xf32>
  pto_isa.tload %a[%c0, %c0] into %l1 : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 16x64xbf16>
  pto_isa.textract %l1 into %l0a : !pto_isa.tile<l1, 16x64xbf16>, !pto_isa.tile<l0a, 16x64xbf16>
  pto_isa.tload %a[%c0, %c0] into %l1t transpose : !pto.tensor<16x64xbf16>, !pto_isa.tile<l1, 64x16xbf16, zn>
  pto_isa.textract %l1t into %l0b : !pto_isa.tile<l1, 64x16xbf16, zn>, !pto_isa.tile<l0b, 64x16xbf16>
  pto_isa.tmatmul %l0a, %l0b into %acc : !pto_isa.tile<l0a, 16x64xbf16>, !pto_isa.tile<l0b, 64x16xbf16>, !pto_isa.tile<l0c, 16x16xf32>
  pto_isa.tstore %acc into %ws[%c0, %c0] : !pto_isa.tile<l0c, 16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

// Capacities come from the function's architecture: on DAV_3510 two live
// 128 KiB accumulators fit its 256 KiB L0C, and a 200 KiB ub tile fits its
// 248 KiB UB (no implicit scratch is reserved there). Both overflow DAV_2201
// (plan-memory-invalid.mlir).
// CHECK-LABEL: func.func @dav3510
// CHECK:         pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 128x256xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 131072 : !pto_isa.tile<l0c, 128x256xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<ub, 50x1024xf32>
// expected-remark @+1 {{memory plan of @dav3510: ub 204800 B peak live, 204800 B used of 253952, l0c 262144 B peak live, 262144 B used of 262144}}
func.func @dav3510(%ws: !pto.tensor<256x256xf32>, %x: !pto.tensor<50x1024xf32>) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c50 = arith.constant 50 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %acc0 = pto_isa.alloc_tile valid [%c128, %c256] : !pto_isa.tile<l0c, 128x256xf32>
  %acc1 = pto_isa.alloc_tile valid [%c128, %c256] : !pto_isa.tile<l0c, 128x256xf32>
  %big = pto_isa.alloc_tile valid [%c50, %c1024] : !pto_isa.tile<ub, 50x1024xf32>
  pto_isa.tstore %acc0 into %ws[%c0, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  pto_isa.tstore %acc1 into %ws[%c128, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  pto_isa.tstore %acc0 into %ws[%c0, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  pto_isa.tload %x[%c0, %c0] into %big : !pto.tensor<50x1024xf32>, !pto_isa.tile<ub, 50x1024xf32>
  return
}

// -----

// Regions: %a is read inside the loop, so it is live across the whole loop
// and %d, first written inside the loop after %a's last read in the body,
// must not take %a's bytes (the next iteration reads %a again).
// CHECK-LABEL: func.func @regions
// CHECK:         pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 4096 : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         scf.for
// CHECK-NEXT:      pto_isa.alloc_tile {{.*}} at 8192 : !pto_isa.tile<ub, 16x64xf32>
// expected-remark @+1 {{memory plan of @regions: ub 12288 B peak live, 12288 B used of 188416}}
func.func @regions(%in: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  %b = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tload %in[%c0, %c0] into %a : !pto.tensor<16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %d = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
    pto_isa.texp %a into %b : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.texp %b into %d : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    pto_isa.tstore %d into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
  }
  return
}

// -----

// In-place reuse, only when separate bytes do not fit: the three 96 KiB
// tiles of a chain (192 KiB for two live at once, over the 184 KiB) each
// take the bytes of the source dying at the elementwise instruction that
// first writes them. %keep stays live across the chain and keeps its own.
// CHECK-LABEL: func.func @in_place
// CHECK:         pto_isa.alloc_tile {{.*}} at 8192 : !pto_isa.tile<ub, 96x256xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 8192 : !pto_isa.tile<ub, 96x256xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 8192 : !pto_isa.tile<ub, 96x256xf32>
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<ub, 8x256xf32>
// expected-remark @+1 {{memory plan of @in_place: ub 106496 B peak live, 106496 B used of 188416 (dying sources reused in place)}}
func.func @in_place(%x: !pto.tensor<96x256xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c96 = arith.constant 96 : index
  %c256 = arith.constant 256 : index
  %s = arith.constant 2.0 : f32
  %a = pto_isa.alloc_tile valid [%c96, %c256] : !pto_isa.tile<ub, 96x256xf32>
  %b = pto_isa.alloc_tile valid [%c96, %c256] : !pto_isa.tile<ub, 96x256xf32>
  %c = pto_isa.alloc_tile valid [%c96, %c256] : !pto_isa.tile<ub, 96x256xf32>
  %keep = pto_isa.alloc_tile valid [%c8, %c256] : !pto_isa.tile<ub, 8x256xf32>
  pto_isa.tload %x[%c0, %c0] into %keep : !pto.tensor<96x256xf32>, !pto_isa.tile<ub, 8x256xf32>
  pto_isa.tload %x[%c0, %c0] into %a : !pto.tensor<96x256xf32>, !pto_isa.tile<ub, 96x256xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 96x256xf32>, !pto_isa.tile<ub, 96x256xf32>
  pto_isa.tmuls %b, %s into %c : !pto_isa.tile<ub, 96x256xf32>, f32, !pto_isa.tile<ub, 96x256xf32>
  pto_isa.tstore %c into %x[%c0, %c0] : !pto_isa.tile<ub, 96x256xf32>, !pto.tensor<96x256xf32>
  pto_isa.tstore %keep into %x[%c0, %c0] : !pto_isa.tile<ub, 8x256xf32>, !pto.tensor<96x256xf32>
  return
}

// -----

// L0C ping-pong: each accumulator avoids the bytes of the one that died
// last while another fit exists, so three 64 KiB accumulators stored in turn
// take 0, 64 KiB, 0 (the next TMATMUL need not wait for the previous
// TSTORE). A 128 KiB one has no other fit and takes 0 after all.
// CHECK-LABEL: func.func @l0c_ping_pong
// CHECK:         pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tstore
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 65536 : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tstore
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 128x128xf32>
// CHECK-NEXT:    pto_isa.tstore
// CHECK-NEXT:    pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l0c, 256x128xf32>
// expected-remark @+1 {{memory plan of @l0c_ping_pong: l0c 131072 B peak live, 131072 B used of 131072}}
func.func @l0c_ping_pong(%ws: !pto.tensor<512x128xf32>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %a = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %a into %ws[%c0, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<512x128xf32>
  %b = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %b into %ws[%c128, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<512x128xf32>
  %c = pto_isa.alloc_tile valid [%c128, %c128] : !pto_isa.tile<l0c, 128x128xf32>
  pto_isa.tstore %c into %ws[%c256, %c0] : !pto_isa.tile<l0c, 128x128xf32>, !pto.tensor<512x128xf32>
  %d = pto_isa.alloc_tile valid [%c256, %c128] : !pto_isa.tile<l0c, 256x128xf32>
  pto_isa.tstore %d into %ws[%c256, %c0] : !pto_isa.tile<l0c, 256x128xf32>, !pto.tensor<512x128xf32>
  return
}

// -----

// A MIX leaf's UB ring slot: the windows the AIC moves into slot 0 share one
// address, live from the entry to the last read of the slot's last tile, so
// %t (read between the two moves) gets bytes of its own.
// CHECK-LABEL: func.func @ring_slot
// CHECK:         pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 4096 : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x64xf32>
// expected-remark @+1 {{memory plan of @ring_slot: ub 8192 B peak live, 8192 B used of}}
func.func @ring_slot(%out: !pto.tensor<16x64xf32>) attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %acc = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<l0c, 16x64xf32>
  %w0 = pto_isa.alloc_tile valid [%c16, %c64] {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.textract %acc into %w0 : !pto_isa.tile<l0c, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  %t = pto_isa.alloc_tile valid [%c16, %c64] : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tmuls %w0, %two into %t : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %t into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
  %w1 = pto_isa.alloc_tile valid [%c16, %c64] {pto_isa.ring_slot = 0 : i64} : !pto_isa.tile<ub, 16x64xf32>
  pto_isa.textract %acc into %w1 : !pto_isa.tile<l0c, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  pto_isa.tstore %w1 into %out[%c0, %c0] : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// TRESHAPE points its destination at its source's bytes: %b gets %a's
// offset, and the two are one buffer live until %b's last use, so %e
// (loaded after %a's last read but while %b is still stored) does not take
// those bytes.
// CHECK-LABEL: func.func @treshape_alias
// CHECK:         pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<ub, 16x32xi8>
// CHECK-NEXT:    pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 512 : !pto_isa.tile<ub, 16x8xf32>
// expected-remark @+1 {{memory plan of @treshape_alias: ub 1024 B peak live, 1024 B used of 188416}}
func.func @treshape_alias(%in: !pto.tensor<32x8xf32>, %out: !pto.tensor<16x32xi8>, %out2: !pto.tensor<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %a = pto_isa.alloc_tile valid [%c16, %c8] : !pto_isa.tile<ub, 16x8xf32>
  %b = pto_isa.alloc_tile valid [%c16, %c32] : !pto_isa.tile<ub, 16x32xi8>
  %e = pto_isa.alloc_tile valid [%c16, %c8] : !pto_isa.tile<ub, 16x8xf32>
  pto_isa.tload %in[%c0, %c0] into %a : !pto.tensor<32x8xf32>, !pto_isa.tile<ub, 16x8xf32>
  pto_isa.treshape %a into %b : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x32xi8>
  pto_isa.tload %in[%c16, %c0] into %e : !pto.tensor<32x8xf32>, !pto_isa.tile<ub, 16x8xf32>
  pto_isa.tstore %b into %out[%c0, %c0] : !pto_isa.tile<ub, 16x32xi8>, !pto.tensor<16x32xi8>
  pto_isa.tstore %e into %out2[%c0, %c0] : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<16x8xf32>
  return
}

// -----

// L1 windows loaded again instead of kept (docs/ISA.md, "Memory planning"):
// %a and %b are read again after %c is loaded, and the three 256 KiB
// windows do not fit the 512 KiB of L1 together. They are copies of GM the
// function does not write, so the planner drops the one read again furthest
// ahead (%b) after its first read and loads it again, a clone of its alloc
// and tload, just before the later read, which then reads the copy. %c
// takes %b's bytes in between, the copy %a's after its last read.
// CHECK-LABEL: func.func @reload_l1_window
// CHECK:         %[[A:.*]] = pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l1, 256x512xbf16>
// CHECK-NEXT:    %[[B:.*]] = pto_isa.alloc_tile {{.*}} at 262144 : !pto_isa.tile<l1, 256x512xbf16>
// CHECK-NEXT:    %[[C:.*]] = pto_isa.alloc_tile {{.*}} at 262144 : !pto_isa.tile<l1, 256x512xbf16>
// CHECK:         pto_isa.tload %{{.*}}[%[[C256:.*]], %[[C0:.*]]] into %[[B]]
// CHECK:         pto_isa.textract %[[B]] into
// CHECK:         pto_isa.tload %{{.*}} into %[[C]]
// CHECK:         pto_isa.textract %[[C]] into
// CHECK-NEXT:    pto_isa.textract %[[A]] into
// CHECK-NEXT:    %[[B2:.*]] = pto_isa.alloc_tile {{.*}} at 0 : !pto_isa.tile<l1, 256x512xbf16>
// CHECK-NEXT:    pto_isa.tload %{{.*}}[%[[C256]], %[[C0]]] into %[[B2]]
// CHECK-NEXT:    pto_isa.textract %[[B2]] into
// CHECK-NEXT:    return
// expected-remark @+1 {{memory plan of @reload_l1_window: l1 524288 B peak live, 524288 B used of 524288 (GM windows loaded again: 1), l0a 32768 B peak live, 32768 B used of 65536}}
func.func @reload_l1_window(%x: !pto.tensor<1024x512xbf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %a = pto_isa.alloc_tile valid [%c256, %c512] : !pto_isa.tile<l1, 256x512xbf16>
  %b = pto_isa.alloc_tile valid [%c256, %c512] : !pto_isa.tile<l1, 256x512xbf16>
  %c = pto_isa.alloc_tile valid [%c256, %c512] : !pto_isa.tile<l1, 256x512xbf16>
  %l0 = pto_isa.alloc_tile valid [%c64, %c256] : !pto_isa.tile<l0a, 64x256xbf16>
  pto_isa.tload %x[%c0, %c0] into %a : !pto.tensor<1024x512xbf16>, !pto_isa.tile<l1, 256x512xbf16>
  pto_isa.tload %x[%c256, %c0] into %b : !pto.tensor<1024x512xbf16>, !pto_isa.tile<l1, 256x512xbf16>
  pto_isa.textract %a into %l0 : !pto_isa.tile<l1, 256x512xbf16>, !pto_isa.tile<l0a, 64x256xbf16>
  pto_isa.textract %b into %l0 : !pto_isa.tile<l1, 256x512xbf16>, !pto_isa.tile<l0a, 64x256xbf16>
  pto_isa.tload %x[%c512, %c0] into %c : !pto.tensor<1024x512xbf16>, !pto_isa.tile<l1, 256x512xbf16>
  pto_isa.textract %c into %l0 : !pto_isa.tile<l1, 256x512xbf16>, !pto_isa.tile<l0a, 64x256xbf16>
  pto_isa.textract %a into %l0 : !pto_isa.tile<l1, 256x512xbf16>, !pto_isa.tile<l0a, 64x256xbf16>
  pto_isa.textract %b into %l0 : !pto_isa.tile<l1, 256x512xbf16>, !pto_isa.tile<l0a, 64x256xbf16>
  return
}
