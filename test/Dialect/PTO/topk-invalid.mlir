// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per pto.topk verifier rule (PyPTO's topk constraints,
// https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-topk.md).

func.func @topk_bf16(%a: !pto.tile<16x64xbf16>) {
  // expected-error @+1 {{'pto.topk' op input is 'bf16'; PyPTO's topk sorts DT_FP32 only: cast the input to f32 first}}
  %v, %i = pto.topk %a, k = 4 : !pto.tile<16x64xbf16> -> !pto.tile<16x4xbf16>, !pto.tile<16x4xi32>
  return
}

// -----

func.func @topk_rank1(%a: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.topk' op input has rank 1; PyPTO's topk takes tiles of rank 2 to 4: reshape it (e.g. a row to [1, n])}}
  %v, %i = pto.topk %a, k = 4 : !pto.tile<64xf32> -> !pto.tile<4xf32>, !pto.tile<4xi32>
  return
}

// -----

func.func @topk_k_zero(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.topk' op k = 0 is out of range for rows of 64 elements; PyPTO requires 1 <= k <= input.shape[-1] = 64}}
  %v, %i = pto.topk %a, k = 0 : !pto.tile<16x64xf32> -> !pto.tile<16x4xf32>, !pto.tile<16x4xi32>
  return
}

// -----

func.func @topk_k_over_row(%a: !pto.tile<16x8xf32>) {
  // expected-error @+1 {{'pto.topk' op k = 9 is out of range for rows of 8 elements; PyPTO requires 1 <= k <= input.shape[-1] = 8}}
  %v, %i = pto.topk %a, k = 9 : !pto.tile<16x8xf32> -> !pto.tile<16x9xf32>, !pto.tile<16x9xi32>
  return
}

// -----

func.func @topk_values_shape(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.topk' op values type '!pto.tile<16x8xf32>' must have shape [16, 4] (the input's with the last dim k) and element type f32}}
  %v, %i = pto.topk %a, k = 4 : !pto.tile<16x64xf32> -> !pto.tile<16x8xf32>, !pto.tile<16x4xi32>
  return
}

// -----

func.func @topk_indices_dtype(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.topk' op indices type '!pto.tile<16x4xi64>' must have shape [16, 4] (the input's with the last dim k) and element type i32}}
  %v, %i = pto.topk %a, k = 4 : !pto.tile<16x64xf32> -> !pto.tile<16x4xf32>, !pto.tile<16x4xi64>
  return
}

// -----

func.func @topk_tile_below_k(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.topk' op vector tile [16, 8] splits the last dim into pieces of 8 elements, fewer than k = 16; PyPTO requires the tile's last dim to hold k: use at least 16}}
  %v, %i = pto.topk %a, k = 16 {vec_tile = #pto.vec_tile<[16, 8]>} : !pto.tile<16x64xf32> -> !pto.tile<16x16xf32>, !pto.tile<16x16xi32>
  return
}

// -----

func.func @topk_tile_unaligned(%a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.topk' op vector tile [16, 12]: last dim 12 x 4 B ('f32') = 48 B is not 32-byte aligned and splits the 64 columns of the tile}}
  %v, %i = pto.topk %a, k = 4 {vec_tile = #pto.vec_tile<[16, 12]>} : !pto.tile<16x64xf32> -> !pto.tile<16x4xf32>, !pto.tile<16x4xi32>
  return
}

// -----

func.func @topk_row_too_long(%a: !pto.tile<1x6144xf32>) {
  // expected-error @+1 {{'pto.topk' op vector tile [1, 6144]: a piece of 6144 f32 = 24576 B per row; PyPTO's topk requires under 22528 B (22 KiB): use a last dim below 5632}}
  %v, %i = pto.topk %a, k = 4 {vec_tile = #pto.vec_tile<[1, 6144]>} : !pto.tile<1x6144xf32> -> !pto.tile<1x4xf32>, !pto.tile<1x4xi32>
  return
}
