// RUN: pto-opt %s --pto-isa-plan-memory -split-input-file -verify-diagnostics

// Two accumulators live at once need 256 KiB of L0C; DAV_2201 has 128 KiB.
// The error names the function, the space, the bytes, the tiles live at the
// peak and the fix; a note points at each of those tiles.
// expected-error @+1 {{leaf @two_accs does not fit l0c of DAV_2201 (A2/A3: 910B/910C): needs 262144 bytes, capacity 131072 bytes; 2 tiles of 262144 bytes are live at the peak: '!pto_isa.tile<l0c, 128x256xf32>' (131072 B) '!pto_isa.tile<l0c, 128x256xf32>' (131072 B); fix: a smaller L0 cube_tile (m, k, n) for the leaf's matmuls}}
func.func @two_accs(%ws: !pto.tensor<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // expected-note @+1 {{live at the peak: '!pto_isa.tile<l0c, 128x256xf32>', 131072 bytes}}
  %acc0 = pto_isa.alloc_tile valid [%c128, %c256] : !pto_isa.tile<l0c, 128x256xf32>
  // expected-note @+1 {{live at the peak: '!pto_isa.tile<l0c, 128x256xf32>', 131072 bytes}}
  %acc1 = pto_isa.alloc_tile valid [%c128, %c256] : !pto_isa.tile<l0c, 128x256xf32>
  pto_isa.tstore %acc0 into %ws[%c0, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  pto_isa.tstore %acc1 into %ws[%c128, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  pto_isa.tstore %acc0 into %ws[%c0, %c0] : !pto_isa.tile<l0c, 128x256xf32>, !pto.tensor<256x256xf32>
  return
}

// -----

// UB on DAV_2201: 192 KiB less the 8 KiB implicit scratch at 184 KiB. Two
// 96 KiB tiles live at once (192 KiB) do not fit: both are stored after the
// texp, so its source does not die there and cannot be reused in place.
// expected-error @+1 {{leaf @ub_overflow does not fit ub of DAV_2201 (A2/A3: 910B/910C): needs 196608 bytes, capacity 188416 bytes (196608 less the 8192-byte implicit scratch); 2 tiles of 196608 bytes are live at the peak: '!pto_isa.tile<ub, 96x256xf32>' (98304 B) '!pto_isa.tile<ub, 96x256xf32>' (98304 B); fix: give the leaf's ops a smaller vec_tile (pto-expand-tiles then cuts smaller pieces) or split the task}}
func.func @ub_overflow(%x: !pto.tensor<96x256xf32>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %c256 = arith.constant 256 : index
  // expected-note @+1 {{live at the peak}}
  %a = pto_isa.alloc_tile valid [%c96, %c256] : !pto_isa.tile<ub, 96x256xf32>
  // expected-note @+1 {{live at the peak}}
  %b = pto_isa.alloc_tile valid [%c96, %c256] : !pto_isa.tile<ub, 96x256xf32>
  pto_isa.tload %x[%c0, %c0] into %a : !pto.tensor<96x256xf32>, !pto_isa.tile<ub, 96x256xf32>
  pto_isa.texp %a into %b : !pto_isa.tile<ub, 96x256xf32>, !pto_isa.tile<ub, 96x256xf32>
  pto_isa.tstore %a into %x[%c0, %c0] : !pto_isa.tile<ub, 96x256xf32>, !pto.tensor<96x256xf32>
  pto_isa.tstore %b into %x[%c0, %c0] : !pto_isa.tile<ub, 96x256xf32>, !pto.tensor<96x256xf32>
  return
}

// -----

// An L1 window of a tensor the function also writes is not loaded again
// (GM may have changed between the reads): three 256 KiB windows read again
// after the last load overflow L1.
// expected-error @+1 {{leaf @no_reload_of_written_tensor does not fit l1 of DAV_2201 (A2/A3: 910B/910C): needs 786432 bytes, capacity 524288 bytes; 3 tiles of 786432 bytes are live at the peak}}
func.func @no_reload_of_written_tensor(%x: !pto.tensor<1024x512xbf16>, %ws: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  // expected-note @+1 {{live at the peak}}
  %a = pto_isa.alloc_tile valid [%c256, %c512] : !pto_isa.tile<l1, 256x512xbf16>
  // expected-note @+1 {{live at the peak}}
  %b = pto_isa.alloc_tile valid [%c256, %c512] : !pto_isa.tile<l1, 256x512xbf16>
  // expected-note @+1 {{live at the peak}}
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
  pto_isa.tstore %a into %x[%c0, %c0] : !pto_isa.tile<l1, 256x512xbf16>, !pto.tensor<1024x512xbf16>
  return
}
