// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per rule of the sort instructions' verifiers.

func.func @tci_rows(%r: index) {
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 2x64xui32>
  // expected-error @+1 {{'pto_isa.tci' op destination has 2 rows; pto-isa takes one-row tiles here: extract the row first}}
  pto_isa.tci %i start = 0 : !pto_isa.tile<ub, 2x64xui32>
  return
}

// -----

func.func @tci_f32(%r: index) {
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  // expected-error @+1 {{'pto_isa.tci' op fills 'f32'; the index row is a 32-bit integer tile (ui32 for TSORT32)}}
  pto_isa.tci %i start = 0 : !pto_isa.tile<ub, 1x64xf32>
  return
}

// -----

func.func @tsort32_signed_index(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xi32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %p = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x128xf32>
  // expected-error @+1 {{'pto_isa.tsort32' op index row is 'i32'; TSORT32 takes uint32 indices (ui32)}}
  pto_isa.tsort32 %x, %i, %t into %p : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xi32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x128xf32>
  return
}

// -----

func.func @tsort32_narrow_destination(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xui32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %p = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  // expected-error @+1 {{'pto_isa.tsort32' op destination '!pto_isa.tile<ub, 16x64xf32>' cannot hold the 16 x 64 (value, index) structures of the source (two f32 each): give it at least 16 x 128}}
  pto_isa.tsort32 %x, %i, %t into %p : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func @tsort32_f16(%r: index) {
  %x = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf16>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xui32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf16>
  %p = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x256xf16>
  // expected-error @+1 {{'pto_isa.tsort32' op sorts 'f16' into 'f16'; this lowering sorts f32 into f32 structures}}
  pto_isa.tsort32 %x, %i, %t into %p : !pto_isa.tile<ub, 16x64xf16>, !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 1x64xf16>, !pto_isa.tile<ub, 16x256xf16>
  return
}

// -----

func.func @tmrgsort_one_list(%r: index) {
  %l = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xf32>
  // expected-error @+1 {{'pto_isa.tmrgsort' op merges 1 lists; TMRGSORT's list form merges 2 to 4}}
  pto_isa.tmrgsort %l tmp %t into %d : (!pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x16xf32>
  return
}

// -----

func.func @tmrgsort_two_rows(%r: index) {
  %l = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 2x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x128xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xf32>
  // expected-error @+1 {{'pto_isa.tmrgsort' op source has 2 rows; pto-isa takes one-row tiles here: extract the row first}}
  pto_isa.tmrgsort %l, %m tmp %t into %d : (!pto_isa.tile<ub, 2x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
  return
}

// -----

func.func @tmrgsort_mixed(%r: index) {
  %l = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %m = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xi32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x128xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xf32>
  // expected-error @+1 {{'pto_isa.tmrgsort' op mixes 'i32' and 'f32' tiles; all are one element type}}
  pto_isa.tmrgsort %l, %m tmp %t into %d : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xi32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
  return
}

// -----

func.func @tgather_mask_width(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xi16>
  // expected-error @+1 {{'pto_isa.tgather_mask' op source ('f32') and destination ('i16') must have the same element width; the mask TGATHER moves bits}}
  pto_isa.tgather_mask %s into %d pattern = 1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xi16>
  return
}
