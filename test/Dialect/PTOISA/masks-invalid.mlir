// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of tcmp, tcmps, tsel and tsels.

func.func @tcmp_mask_not_ui8(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xi8>
  // expected-error @+1 {{'pto_isa.tcmp' op destination '!pto_isa.tile<ub, 16x32xi8>' must hold ui8: the packed bit mask (8 columns per byte)}}
  pto_isa.tcmp %x, %x into %m ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xi8>
  return
}

// -----

func.func @tcmp_mask_too_small(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x512xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  // expected-error @+1 {{'pto_isa.tcmp' op destination '!pto_isa.tile<ub, 16x32xui8>' cannot hold one bit per element of '!pto_isa.tile<ub, 16x512xf32>'; it needs at least 16 rows and 64 columns}}
  pto_isa.tcmp %x, %x into %m ge : !pto_isa.tile<ub, 16x512xf32>, !pto_isa.tile<ub, 16x512xf32>, !pto_isa.tile<ub, 16x32xui8>
  return
}

// -----

func.func @tcmp_bf16(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xbf16>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  // expected-error @+1 {{'pto_isa.tcmp' op lhs holds 'bf16'; pto-isa compares f32, f16 or i32 (convert with pto_isa.tcvt first)}}
  pto_isa.tcmp %x, %x into %m ge : !pto_isa.tile<ub, 16x64xbf16>, !pto_isa.tile<ub, 16x64xbf16>, !pto_isa.tile<ub, 16x32xui8>
  return
}

// -----

func.func @tcmp_mixed(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %y = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xi32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  // expected-error @+1 {{'pto_isa.tcmp' op compares 'f32' with 'i32'; both sources have one element type}}
  pto_isa.tcmp %x, %y into %m ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xi32>, !pto_isa.tile<ub, 16x32xui8>
  return
}

// -----

func.func @tcmp_not_ub(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 16x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  // expected-error @+1 {{'pto_isa.tcmp' op lhs must be a row-major (nd) ub tile, not '!pto_isa.tile<l1, 16x64xf32>'}}
  pto_isa.tcmp %x, %x into %m ge : !pto_isa.tile<l1, 16x64xf32>, !pto_isa.tile<l1, 16x64xf32>, !pto_isa.tile<ub, 16x32xui8>
  return
}

// -----

func.func @tcmps_scalar(%r: index, %s: f16) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  // expected-error @+1 {{'pto_isa.tcmps' op scalar of type 'f16' differs from the source element type 'f32'}}
  pto_isa.tcmps %x, %s into %m ge : !pto_isa.tile<ub, 16x64xf32>, f16, !pto_isa.tile<ub, 16x32xui8>
  return
}

// -----

func.func @tsel_i8(%r: index) {
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xi8>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x8xi32>
  // expected-error @+1 {{'pto_isa.tsel' op destination holds 'i8'; TSEL selects 2- or 4-byte elements}}
  pto_isa.tsel %m, %x, %x, %t into %x : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xi8>, !pto_isa.tile<ub, 16x64xi8>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xi8>
  return
}

// -----

func.func @tsel_mixed(%r: index) {
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %y = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xi32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x8xi32>
  // expected-error @+1 {{'pto_isa.tsel' op on_false holds 'i32' but the destination holds 'f32'; TSEL selects within one element type}}
  pto_isa.tsel %m, %x, %y, %t into %x : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xi32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func @tsel_mask_not_ui8(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x32xi8>
  // expected-error @+1 {{'pto_isa.tsel' op mask '!pto_isa.tile<ub, 1x32xi8>' must hold ui8: the packed bit mask (8 columns per byte)}}
  pto_isa.tsel %t, %x, %x, %t into %x : !pto_isa.tile<ub, 1x32xi8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x32xi8>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func @tsel_scratch_layout(%r: index) {
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 8x1xi32, dn>
  // expected-error @+1 {{'pto_isa.tsel' op scratch must be a row-major (nd) ub tile, not '!pto_isa.tile<ub, 8x1xi32, dn>'}}
  pto_isa.tsel %m, %x, %x, %t into %x : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 8x1xi32, dn>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func @tsels_scalar(%r: index, %s: f16) {
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xui8>
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x8xi32>
  // expected-error @+1 {{'pto_isa.tsels' op scalar of type 'f16' differs from the element type 'f32'}}
  pto_isa.tsels %m, %x, %s, %t into %x : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, f16, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
  return
}
