// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of pto.compare and pto.where.

func.func @compare_i8(%a: !pto.tile<16x64xi8>, %s: i8) {
  // expected-error @+1 {{'pto.compare' op compares 'i8' elements; comparisons take f16, bf16, f32 or i32 operands: cast to one of them first}}
  %r = pto.compare ge, %a, %s : !pto.tile<16x64xi8>, i8 -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @compare_mixed(%a: !pto.tile<16x64xf32>, %b: !pto.tile<16x64xf16>) {
  // expected-error @+1 {{'pto.compare' op compares 'f32' with 'f16'; cast one so both operands match}}
  %r = pto.compare ge, %a, %b : !pto.tile<16x64xf32>, !pto.tile<16x64xf16> -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @compare_rank(%a: !pto.tile<16x64xf32>, %b: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.compare' op rhs has rank 1 but lhs has rank 2; broadcast operands keep the rank with size-1 dims (e.g. [M, 1])}}
  %r = pto.compare ge, %a, %b : !pto.tile<16x64xf32>, !pto.tile<64xf32> -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @compare_broadcast(%a: !pto.tile<16x64xf32>, %b: !pto.tile<8x64xf32>) {
  // expected-error @+1 {{'pto.compare' op cannot broadcast rhs [8, 64] with [16, 64]: dim 0 is 8 vs 16; sizes must match or one must be 1}}
  %r = pto.compare ge, %a, %b : !pto.tile<16x64xf32>, !pto.tile<8x64xf32> -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @compare_scalar_type(%a: !pto.tile<16x64xf32>, %s: f16) {
  // expected-error @+1 {{'pto.compare' op scalar operand has type 'f16' but the tile holds 'f32'; the scalar must have the element type}}
  %r = pto.compare ge, %a, %s : !pto.tile<16x64xf32>, f16 -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @compare_result_not_bool(%a: !pto.tile<16x64xf32>, %s: f32) {
  // expected-error @+1 {{'pto.compare' op result type '!pto.tile<16x64xf32>' must be !pto.tile<16x64xi1> (a DT_BOOL mask of the broadcast shape)}}
  %r = pto.compare ge, %a, %s : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @compare_result_shape(%a: !pto.tile<16x64xf32>, %b: !pto.tile<16x1xf32>) {
  // expected-error @+1 {{'pto.compare' op result type '!pto.tile<16x1xi1>' must be !pto.tile<16x64xi1>}}
  %r = pto.compare ge, %a, %b : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x1xi1>
  return
}

// -----

func.func @compare_vec_tile_rank(%a: !pto.tile<16x64xf32>, %s: f32) {
  // expected-error @+1 {{'pto.compare' op}}
  %r = pto.compare ge, %a, %s {vec_tile = #pto.vec_tile<[64]>} : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xi1>
  return
}

// -----

func.func @where_condition_not_bool(%c: !pto.tile<16x64xf32>, %a: !pto.tile<16x64xf32>) {
  // expected-error @+1 {{'pto.where' op condition has element type 'f32'; it must be an i1 (DT_BOOL) mask, e.g. the result of pto.compare}}
  %r = pto.where %c, %a, %a : !pto.tile<16x64xf32>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @where_mixed(%c: !pto.tile<16x64xi1>, %a: !pto.tile<16x64xf32>, %s: f16) {
  // expected-error @+1 {{'pto.where' op selects between 'f32' and 'f16'; both values must have one element type}}
  %r = pto.where %c, %a, %s : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, f16 -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @where_i8(%c: !pto.tile<16x64xi1>, %a: !pto.tile<16x64xi8>) {
  // expected-error @+1 {{'pto.where' op selects 'i8' values; pto-isa's TSEL moves f16, bf16, f32, i16 or i32 elements: cast first}}
  %r = pto.where %c, %a, %a : !pto.tile<16x64xi1>, !pto.tile<16x64xi8>, !pto.tile<16x64xi8> -> !pto.tile<16x64xi8>
  return
}

// -----

func.func @where_rank(%c: !pto.tile<16x64xi1>, %a: !pto.tile<64xf32>) {
  // expected-error @+1 {{'pto.where' op on_true has rank 1 but condition has rank 2}}
  %r = pto.where %c, %a, %a : !pto.tile<16x64xi1>, !pto.tile<64xf32>, !pto.tile<64xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @where_broadcast(%c: !pto.tile<16x64xi1>, %a: !pto.tile<16x64xf32>, %b: !pto.tile<16x32xf32>) {
  // expected-error @+1 {{'pto.where' op cannot broadcast on_false [16, 32] with [16, 64]: dim 1 is 32 vs 64}}
  %r = pto.where %c, %a, %b : !pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x64xf32>
  return
}

// -----

func.func @where_result(%c: !pto.tile<16x1xi1>, %a: !pto.tile<1x64xf32>, %s: f32) {
  // expected-error @+1 {{'pto.where' op result type '!pto.tile<16x1xf32>' must be !pto.tile<16x64xf32> (the broadcast shape of the operands)}}
  %r = pto.where %c, %a, %s : !pto.tile<16x1xi1>, !pto.tile<1x64xf32>, f32 -> !pto.tile<16x1xf32>
  return
}
