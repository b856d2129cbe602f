// RUN: pto-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the pto_isa dialect (the verifiers in
// lib/Dialect/PTOISA/IR/ and the ODS constraints of its flag ops). Every
// case is valid except for the one rule it breaks; a few cases without an
// expected diagnostic pin down the other side of an architecture-dependent
// rule.

//===----------------------------------------------------------------------===//
// Tile type: parser
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown memory space 'gm'; expected ub, l1, l0a, l0b or l0c}}
func.func private @unknown_space(%t: !pto_isa.tile<gm, 32x64xf32>)

// -----

// expected-error @+1 {{unknown tile layout 'col'; expected nd, dn, nz or zn}}
func.func private @unknown_layout(%t: !pto_isa.tile<ub, 32x64xf32, col>)

// -----

// expected-error @+1 {{a pto_isa tile is 2-D (rows x cols), got rank 3}}
func.func private @rank_3(%t: !pto_isa.tile<ub, 2x32x64xf32>)

// -----

// expected-error @+1 {{a pto_isa tile is 2-D (rows x cols), got rank 1}}
func.func private @rank_1(%t: !pto_isa.tile<ub, 64xf32>)

// -----

//===----------------------------------------------------------------------===//
// Tile type: verifier
//===----------------------------------------------------------------------===//

// expected-error @+1 {{tile capacity 0x64 must be positive in both dimensions}}
func.func private @zero_rows(%t: !pto_isa.tile<ub, 0x64xf32>)

// -----

// expected-error @+1 {{element type 'f64' is not a pto-isa tile element type (bf16, f16, f32, i8, i16, i32, ui32; ui8 for packed masks)}}
func.func private @f64_tile(%t: !pto_isa.tile<ub, 32x64xf64>)

// -----

// expected-error @+1 {{a row-major ub tile needs Cols * sizeof(T) % 32 == 0}}
func.func private @ub_nd_cols(%t: !pto_isa.tile<ub, 32x4xf32>)

// -----

// expected-error @+1 {{a column-major ub tile needs Rows * sizeof(T) % 32 == 0}}
func.func private @ub_dn_rows(%t: !pto_isa.tile<ub, 4x1xf32, dn>)

// -----

// expected-error @+1 {{a ub tile is nd or dn, not nz; fractal layouts live in l1 and l0}}
func.func private @ub_nz(%t: !pto_isa.tile<ub, 32x64xf32, nz>)

// -----

// expected-error @+1 {{an nz L1 tile holds whole 16 x (32/sizeof(T)) fractals}}
func.func private @l1_nz_fractal(%t: !pto_isa.tile<l1, 8x64xbf16>)

// -----

// expected-error @+1 {{a zn L1 tile holds whole (32/sizeof(T)) x 16 fractals}}
func.func private @l1_zn_fractal(%t: !pto_isa.tile<l1, 64x8xbf16, zn>)

// -----

// expected-error @+1 {{an l1 tile is nz or zn, not nd; plain row/column-major tiles live in ub}}
func.func private @l1_nd(%t: !pto_isa.tile<l1, 64x64xbf16, nd>)

// -----

// expected-error @+1 {{an l0a tile has the fixed layout of its pto-isa alias; drop the layout parameter}}
func.func private @l0a_layout(%t: !pto_isa.tile<l0a, 64x64xbf16, zn>)

// -----

// expected-error @+1 {{a Left tile holds whole 16 x (32/sizeof(T)) fractals}}
func.func private @l0a_fractal(%t: !pto_isa.tile<l0a, 8x64xbf16>)

// -----

// expected-error @+1 {{a Right tile holds whole (32/sizeof(T)) x 16 fractals}}
func.func private @l0b_fractal(%t: !pto_isa.tile<l0b, 64x8xbf16>)

// -----

// expected-error @+1 {{an Acc tile holds whole 16 x 16 fractals}}
func.func private @l0c_fractal(%t: !pto_isa.tile<l0c, 64x8xf32>)

// -----

//===----------------------------------------------------------------------===//
// alloc_tile
//===----------------------------------------------------------------------===//

func.func @valid_rows_too_large() {
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{valid rows 40 outside [0, 32] of the tile capacity}}
  %t = pto_isa.alloc_tile valid [%c40, %c64] : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @valid_cols_negative() {
  %c32 = arith.constant 32 : index
  %cm1 = arith.constant -1 : index
  // expected-error @+1 {{valid cols -1 outside [0, 64] of the tile capacity}}
  %t = pto_isa.alloc_tile valid [%c32, %cm1] : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @offset_misaligned(%r: index) {
  // expected-error @+1 {{offset 16 in ub must be a non-negative multiple of 32 bytes (TASSIGN alignment)}}
  %t = pto_isa.alloc_tile valid [%r, %r] at 16 : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @offset_negative(%r: index) {
  // expected-error @+1 {{offset -32 in ub must be a non-negative multiple of 32 bytes}}
  %t = pto_isa.alloc_tile valid [%r, %r] at -32 : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// 192 KiB of UB on DAV_2201: 188 KiB + 8 KiB does not fit.
func.func @offset_past_ub(%r: index) {
  // expected-error @+1 {{tile of 8192 bytes at offset 192512 ends past the 196608-byte ub of DAV_2201}}
  %t = pto_isa.alloc_tile valid [%r, %r] at 192512 : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// The same tile fits the 256 KiB UB of DAV_3510 ...
func.func @offset_fits_ub_3510(%r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %t = pto_isa.alloc_tile valid [%r, %r] at 192512 : !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

// ... but its L0C ends at 256 KiB too.
func.func @offset_past_l0c_3510(%r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{tile of 16384 bytes at offset 253952 ends past the 262144-byte l0c of DAV_3510}}
  %t = pto_isa.alloc_tile valid [%r, %r] at 253952 : !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tload
//===----------------------------------------------------------------------===//

func.func @tload_rank(%g: !pto.tensor<2x32x64xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{source '!pto.tensor<2x32x64xf32>' must be 2-D; reshape the GM tensor first}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<2x32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @tload_dtype(%g: !pto.tensor<?x64xf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{source element type 'f16' differs from the tile's 'f32'; TLOAD does not convert (load, then tcvt)}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<?x64xf16>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @tload_space(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  // expected-error @+1 {{destination is an l0a tile, but this instruction takes ub or l1 here}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<?x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>
  return
}

// -----

func.func @tload_transpose_nz(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  // expected-error @+1 {{a transposing load (DN -> ZN) writes a zn l1 tile}}
  pto_isa.tload %g[%r, %r] into %t transpose : !pto.tensor<?x64xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  return
}

// -----

func.func @tload_plain_zn(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16, zn>
  // expected-error @+1 {{a plain load writes an nd ub tile or an nz l1 tile}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<?x64xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
  return
}

// -----

func.func @tload_plain_dn(%g: !pto.tensor<?x1xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x1xf32, dn>
  // expected-error @+1 {{a plain load writes an nd ub tile or an nz l1 tile}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<?x1xf32>, !pto_isa.tile<ub, 32x1xf32, dn>
  return
}

// -----

func.func @tload_rows(%g: !pto.tensor<?x8xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 4096x8xf32>
  // expected-error @+1 {{a TLOAD into ub moves at most 4095 rows, the tile has 4096; split the tile}}
  pto_isa.tload %g[%r, %r] into %t : !pto.tensor<?x8xf32>, !pto_isa.tile<ub, 4096x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tstore
//===----------------------------------------------------------------------===//

func.func @tstore_rank(%g: !pto.tensor<2x32x64xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{destination '!pto.tensor<2x32x64xf32>' must be 2-D; reshape the GM tensor first}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<2x32x64xf32>
  return
}

// -----

func.func @tstore_space(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xbf16>
  // expected-error @+1 {{source is an l0b tile, but this instruction takes ub or l1 or l0c here}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<l0b, 64x64xbf16>, !pto.tensor<?x64xbf16>
  return
}

// -----

func.func @tstore_fixpipe_dtype(%g: !pto.tensor<?x64xi32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{the fixpipe stores an f32 accumulator as f32, f16 or bf16 (i32 as i32), not 'f32' as 'i32'}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<?x64xi32>
  return
}

// -----

func.func @tstore_acc_cols(%g: !pto.tensor<?x4096xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 16x4096xf32>
  // expected-error @+1 {{an Acc store moves at most 4095 columns, the tile has 4096}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<l0c, 16x4096xf32>, !pto.tensor<?x4096xf32>
  return
}

// -----

func.func @tstore_dtype(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{storing a ub tile of 'f32' into a tensor of 'bf16' needs equal element types; convert with tcvt first}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x64xbf16>
  return
}

// -----

// L1 -> GM exists on DAV_2201 ...
func.func @tstore_l1_2201(%g: !pto.tensor<?x64xbf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<l1, 64x64xbf16>, !pto.tensor<?x64xbf16>
  return
}

// -----

// ... but not on DAV_3510.
func.func @tstore_l1_3510(%g: !pto.tensor<?x64xbf16>, %r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  // expected-error @+1 {{DAV_3510 (950) has no L1 -> GM path; store from ub or l0c}}
  pto_isa.tstore %t into %g[%r, %r] : !pto_isa.tile<l1, 64x64xbf16>, !pto.tensor<?x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// textract
//===----------------------------------------------------------------------===//

func.func @textract_src(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xf32>
  // expected-error @+1 {{destination is an l0a tile, but this instruction takes ub here; move the data with a supported path first}}
  pto_isa.textract %s into %d : !pto_isa.tile<l0c, 64x64xf32>, !pto_isa.tile<l0a, 64x64xf32>
  return
}

// -----

// An accumulator window reaches UB only on DAV_3510 (MIX leaves).
func.func @textract_l0c_ub_a3(%r: index) attributes {pto.arch = #pto.arch<DAV_2201>} {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  // expected-error @+1 {{there is no l0c -> ub path on DAV_2201 (A2/A3: 910B/910C); go through GM (tstore, then tload)}}
  pto_isa.textract %s into %d : !pto_isa.tile<l0c, 64x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

// A ub source copies into a ub tile (a sub-tile), not into a cube operand.
func.func @textract_ub_to_l0a(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xbf16>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  // expected-error @+1 {{destination is an l0a tile, but this instruction takes ub here}}
  pto_isa.textract %s into %d : !pto_isa.tile<ub, 64x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>
  return
}

// -----

func.func @textract_ub_unaligned_column(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x32xf32>
  // expected-error @+1 {{index_col 4 is 16 bytes into the row; pto-isa's ub -> ub TEXTRACT starts on a 32-byte boundary}}
  pto_isa.textract %s into %d {index_row = 3 : i64, index_col = 4 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x32xf32>
  return
}

// -----

// A run-time row or column is for ub -> ub copies (views of tiles), not
// L1 -> L0.
func.func @textract_l1_runtime_row(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xf32>
  // expected-error @+1 {{a run-time row or column offset is for ub -> ub copies; an L1 -> L0 extraction starts at static indices}}
  pto_isa.textract %s[%r] into %d : !pto_isa.tile<l1, 64x64xf32>, !pto_isa.tile<l0a, 64x64xf32>
  return
}

// -----

func.func @textract_l1_runtime_column(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xf32>
  // expected-error @+1 {{a run-time row or column offset is for ub -> ub copies; an L1 -> L0 extraction starts at static indices}}
  pto_isa.textract %s cols[%r] into %d : !pto_isa.tile<l1, 64x64xf32>, !pto_isa.tile<l0a, 64x64xf32>
  return
}

// -----

func.func @textract_dst(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{destination is an l0c tile, but this instruction takes l0a or l0b here}}
  pto_isa.textract %s into %d : !pto_isa.tile<l1, 64x64xf32>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

func.func @textract_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xf16>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  // expected-error @+1 {{source ('f16') and destination ('bf16') must have the same element type; insert a pto_isa.tcvt}}
  pto_isa.textract %s into %d : !pto_isa.tile<l1, 64x64xf16>, !pto_isa.tile<l0a, 64x64xbf16>
  return
}

// -----

func.func @textract_window(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 32x64xbf16>
  // expected-error @+1 {{the 32x64 window at [48, 0] does not fit the 64x64 source tile}}
  pto_isa.textract %s into %d {index_row = 48 : i64} : !pto_isa.tile<l1, 64x64xbf16>, !pto_isa.tile<l0a, 32x64xbf16>
  return
}

// -----

func.func @textract_negative_index(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 32x64xbf16>
  // expected-error @+1 {{the 32x64 window at [0, -16] does not fit the 64x64 source tile}}
  pto_isa.textract %s into %d {index_col = -16 : i64} : !pto_isa.tile<l1, 64x64xbf16>, !pto_isa.tile<l0a, 32x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tmov
//===----------------------------------------------------------------------===//

func.func @tmov_no_path(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xbf16>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  // expected-error @+1 {{there is no ub -> l1 path on DAV_2201 (A2/A3: 910B/910C); go through GM (tstore, then tload)}}
  pto_isa.tmov %s into %d : !pto_isa.tile<ub, 64x64xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  return
}

// -----

// L0C -> UB does not exist on DAV_2201 ...
func.func @tmov_l0c_ub_2201(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  // expected-error @+1 {{there is no l0c -> ub path on DAV_2201 (A2/A3: 910B/910C); go through GM (tstore, then tload)}}
  pto_isa.tmov %s into %d : !pto_isa.tile<l0c, 64x64xf32>, !pto_isa.tile<ub, 64x64xf32>
  return
}

// -----

// ... but does on DAV_3510.
func.func @tmov_l0c_ub_3510(%r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  pto_isa.tmov %s into %d : !pto_isa.tile<l0c, 64x64xf32>, !pto_isa.tile<ub, 64x64xf32>
  return
}

// -----

func.func @tmov_capacity(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  // expected-error @+1 {{TMOV needs equal capacities, got 32x64 and 16x64}}
  pto_isa.tmov %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 16x64xf32>
  return
}

// -----

func.func @tmov_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf16>
  // expected-error @+1 {{source ('f32') and destination ('f16') must have the same element type}}
  pto_isa.tmov %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tmatmul / tmatmul_acc
//===----------------------------------------------------------------------===//

func.func @tmatmul_lhs(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xbf16>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xbf16>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{left operand is an l0b tile, but this instruction takes l0a here}}
  pto_isa.tmatmul %a, %b into %c : !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

func.func @tmatmul_rhs(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{right operand is an l0a tile, but this instruction takes l0b here}}
  pto_isa.tmatmul %a, %b into %c : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

func.func @tmatmul_acc_space(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xf32>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  // expected-error @+1 {{accumulator is a ub tile, but this instruction takes l0c here}}
  pto_isa.tmatmul_acc %a, %b into %c : !pto_isa.tile<l0a, 64x64xf32>, !pto_isa.tile<l0b, 64x64xf32>, !pto_isa.tile<ub, 64x64xf32>
  return
}

// -----

func.func @tmatmul_chain(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x32xbf16>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xbf16>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{capacities must chain as (m x k) . (k x n) -> (m x n), got 64x32 . 64x64 -> 64x64}}
  pto_isa.tmatmul %a, %b into %c : !pto_isa.tile<l0a, 64x32xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

func.func @tmatmul_triple(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xbf16>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xf16>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{(acc, lhs, rhs) = ('f32', 'bf16', 'f16') is not a cube dtype triple; supported: (f32, bf16, bf16), (f32, f16, f16), (f32, f32, f32), (i32, i8, i8)}}
  pto_isa.tmatmul %a, %b into %c : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xf16>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

func.func @tmatmul_acc_i8(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0a, 64x64xi8>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0b, 64x64xi8>
  %c = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l0c, 64x64xf32>
  // expected-error @+1 {{(acc, lhs, rhs) = ('f32', 'i8', 'i8') is not a cube dtype triple}}
  pto_isa.tmatmul_acc %a, %b into %c : !pto_isa.tile<l0a, 64x64xi8>, !pto_isa.tile<l0b, 64x64xi8>, !pto_isa.tile<l0c, 64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

// bf16 arithmetic does not exist on DAV_2201 ...
func.func @tadd_bf16_2201(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xbf16>
  // expected-error @+1 {{vector arithmetic on DAV_2201 (A2/A3: 910B/910C) supports f32, f16, i32 and i16, not 'bf16'; convert with pto_isa.tcvt to f32 first}}
  pto_isa.tadd %a, %a into %a : !pto_isa.tile<ub, 32x64xbf16>, !pto_isa.tile<ub, 32x64xbf16>, !pto_isa.tile<ub, 32x64xbf16>
  return
}

// -----

// ... but does on DAV_3510.
func.func @tadd_bf16_3510(%r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xbf16>
  pto_isa.tadd %a, %a into %a : !pto_isa.tile<ub, 32x64xbf16>, !pto_isa.tile<ub, 32x64xbf16>, !pto_isa.tile<ub, 32x64xbf16>
  return
}

// -----

func.func @tadd_i8(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi8>
  // expected-error @+1 {{supports f32, f16, i32 and i16, not 'i8'}}
  pto_isa.tadd %a, %a into %a : !pto_isa.tile<ub, 32x64xi8>, !pto_isa.tile<ub, 32x64xi8>, !pto_isa.tile<ub, 32x64xi8>
  return
}

// -----

func.func @tdiv_i32(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi32>
  // expected-error @+1 {{vector arithmetic on DAV_2201 (A2/A3: 910B/910C) supports f32 and f16, not 'i32'}}
  pto_isa.tdiv %a, %a into %a : !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 32x64xi32>
  return
}

// -----

func.func @texp_i32(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi32>
  // expected-error @+1 {{supports f32 and f16, not 'i32'}}
  pto_isa.texp %a into %a : !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 32x64xi32>
  return
}

// -----

func.func @tadd_space(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{lhs is an l1 tile, but this instruction takes ub here}}
  pto_isa.tadd %a, %b into %b : !pto_isa.tile<l1, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @tadd_dn(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32, dn>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  // expected-error @+1 {{rhs must be a row-major (nd) ub tile, not '!pto_isa.tile<ub, 64x64xf32, dn>'}}
  pto_isa.tadd %b, %a into %b : !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 64x64xf32, dn>, !pto_isa.tile<ub, 64x64xf32>
  return
}

// -----

func.func @tadd_mixed(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf16>
  // expected-error @+1 {{lhs ('f32') and destination ('f16') must have the same element type; insert a pto_isa.tcvt}}
  pto_isa.tmul %a, %a into %b : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf16>
  return
}

// -----

func.func @tmuls_scalar(%r: index) {
  %s = arith.constant 2.0 : f16
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{scalar of type 'f16' must have the tile element type 'f32'}}
  pto_isa.tmuls %a, %s into %a : !pto_isa.tile<ub, 32x64xf32>, f16, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @texpands_scalar(%r: index) {
  %s = arith.constant 2 : i32
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{scalar of type 'i32' must have the tile element type 'f32'}}
  pto_isa.texpands %s into %a : i32, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @texpands_dn(%r: index) {
  %s = arith.constant 2.0 : f32
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x1xf32, dn>
  // expected-error @+1 {{destination must be a row-major (nd) ub tile}}
  pto_isa.texpands %s into %a : f32, !pto_isa.tile<ub, 32x1xf32, dn>
  return
}

// -----

func.func @tcolexpand_dst(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32, dn>
  // expected-error @+1 {{destination must be a row-major (nd) ub tile}}
  pto_isa.tcolexpand %a into %b : !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 32x64xf32, dn>
  return
}

// -----

func.func @tcolexpand_mul_dtype(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %g = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf16>
  // expected-error @+1 {{full operand ('f32') and column operand ('f16') must have the same element type}}
  pto_isa.tcolexpand_mul %a, %g into %a : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 1x64xf16>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @tcolexpand_div_int(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi32>
  %g = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xi32>
  // expected-error @+1 {{vector arithmetic on DAV_2201 (A2/A3: 910B/910C) supports f32 and f16, not 'i32'}}
  pto_isa.tcolexpand_div %a, %g into %a : !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 1x64xi32>, !pto_isa.tile<ub, 32x64xi32>
  return
}

// -----

func.func @tcolsum_cols(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x32xf32>
  // expected-error @+1 {{destination has 32 columns, the source 64; a column reduction needs equal column capacities}}
  pto_isa.tcolsum %a into %s : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 1x32xf32>
  return
}

// -----

func.func @tcolmax_space(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 32x64xf32>
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  // expected-error @+1 {{source is an l1 tile, but this instruction takes ub here}}
  pto_isa.tcolmax %a into %s : !pto_isa.tile<l1, 32x64xf32>, !pto_isa.tile<ub, 1x64xf32>
  return
}

// -----

func.func @trowexpand_src(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 32x8xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{source is an l1 tile, but this instruction takes ub here}}
  pto_isa.trowexpand %a into %b : !pto_isa.tile<l1, 32x8xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @trowexpand_dst(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x1xf32, dn>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32, dn>
  // expected-error @+1 {{destination must be a row-major (nd) ub tile}}
  pto_isa.trowexpand %a into %b : !pto_isa.tile<ub, 32x1xf32, dn>, !pto_isa.tile<ub, 32x64xf32, dn>
  return
}

// -----

func.func @trowexpand_dtype(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x1xf32, dn>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf16>
  // expected-error @+1 {{source ('f32') and destination ('f16') must have the same element type}}
  pto_isa.trowexpand %a into %b : !pto_isa.tile<ub, 32x1xf32, dn>, !pto_isa.tile<ub, 32x64xf16>
  return
}

// -----

func.func @tcvt_capacity(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xbf16>
  // expected-error @+1 {{TCVT converts elementwise between equal capacities, got 32x64 and 16x64}}
  pto_isa.tcvt %a into %b mode <RINT> : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 16x64xbf16>
  return
}

// -----

func.func @tcvt_src_dn(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32, dn>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xbf16>
  // expected-error @+1 {{source must be a row-major (nd) ub tile}}
  pto_isa.tcvt %a into %b mode <RINT> : !pto_isa.tile<ub, 64x64xf32, dn>, !pto_isa.tile<ub, 64x64xbf16>
  return
}

// -----

func.func @tcvt_dst_space(%r: index) {
  %a = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  %b = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 64x64xbf16>
  // expected-error @+1 {{destination is an l1 tile, but this instruction takes ub here}}
  pto_isa.tcvt %a into %b mode <RINT> : !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<l1, 64x64xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Row reductions and row-value operands
//===----------------------------------------------------------------------===//

func.func @ttrans_dst_too_narrow(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x16xf32>
  // expected-error @+1 {{'pto_isa.ttrans' op destination 64x16 cannot hold the transpose of a 32x64 source: it needs at least 32 columns}}
  pto_isa.ttrans %s, %d into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 64x16xf32>, !pto_isa.tile<ub, 64x16xf32>
  return
}

// -----

func.func @ttrans_scratch_shape(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x32xf32>
  // expected-error @+1 {{'pto_isa.ttrans' op scratch must be shaped like the destination (64x32), got 32x64; allocate the scratch with the destination's type}}
  pto_isa.ttrans %s, %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 64x32xf32>
  return
}

// -----

func.func @ttrans_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x32xbf16>
  // expected-error @+1 {{'pto_isa.ttrans' op}}
  pto_isa.ttrans %s, %d into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 64x32xbf16>, !pto_isa.tile<ub, 64x32xbf16>
  return
}

// -----

func.func @trowsum_not_row_value(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x16xf32>
  // expected-error @+1 {{destination '!pto_isa.tile<ub, 32x16xf32>' is not a per-row tile: use a dn tile with one column or an nd tile with 8 columns (one 32-byte block per row)}}
  pto_isa.trowsum %s, %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x16xf32>
  return
}

// -----

func.func @trowsum_dn_cols(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x2xf32, dn>
  // expected-error @+1 {{is not a per-row tile}}
  pto_isa.trowmax %s, %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x2xf32, dn>
  return
}

// -----

func.func @trowsum_src_dn(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32, dn>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  // expected-error @+1 {{source must be a row-major (nd) ub tile}}
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 32x64xf32, dn>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x8xf32>
  return
}

// -----

func.func @trowsum_tmp_dn(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32, dn>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  // expected-error @+1 {{scratch must be a row-major (nd) ub tile}}
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32, dn>, !pto_isa.tile<ub, 32x8xf32>
  return
}

// -----

func.func @trowsum_dst_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x16xf16>
  // expected-error @+1 {{source ('f32') and destination ('f16') must have the same element type}}
  pto_isa.trowsum %s, %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x16xf16>
  return
}

// -----

func.func @trowsum_tmp_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  // expected-error @+1 {{source ('f32') and scratch ('i32') must have the same element type}}
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 32x8xf32>
  return
}

// -----

func.func @trowsum_i8(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi8>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x32xi8>
  // expected-error @+1 {{supports f32, f16, i32 and i16, not 'i8'}}
  pto_isa.trowsum %s, %s into %d : !pto_isa.tile<ub, 32x64xi8>, !pto_isa.tile<ub, 32x64xi8>, !pto_isa.tile<ub, 32x32xi8>
  return
}

// -----

// The scratch must hold what pto-isa's A2/A3 TROWSUM writes: the pairwise
// sums of a row's 256-byte repeats, [32, 128] for a [32, 256] f32 source.
func.func @trowsum_tmp_shape(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x256xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  // expected-error @+1 {{scratch 32x64 is smaller than the 32x128 that pto-isa's TROWSUM writes for a 32x256 source on DAV_2201; allocate at least 32x128}}
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 32x256xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x8xf32>
  return
}

// -----

// TROWMAX folds into the first repeat of each row: [32, 64] rows are needed.
func.func @trowmax_tmp_rows(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x256xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  // expected-error @+1 {{scratch 16x64 is smaller than the 32x64 that pto-isa's TROWMAX writes for a 32x256 source on DAV_2201; allocate at least 32x64}}
  pto_isa.trowmax %s, %t into %d : !pto_isa.tile<ub, 32x256xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 32x8xf32>
  return
}

// -----

func.func @trowsum_dst_rows(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xf32>
  // expected-error @+1 {{destination has 16 rows, fewer than the source's 32; give it at least the source's rows}}
  pto_isa.trowsum %s, %s into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 16x8xf32>
  return
}

// -----

func.func @trowexpand_sub_full(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32, dn>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  // expected-error @+1 {{full operand must be a row-major (nd) ub tile}}
  pto_isa.trowexpand_sub %f, %v into %d : !pto_isa.tile<ub, 64x64xf32, dn>, !pto_isa.tile<ub, 64x8xf32>, !pto_isa.tile<ub, 64x64xf32>
  return
}

// -----

func.func @trowexpand_mul_rowval(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  // expected-error @+1 {{row operand '!pto_isa.tile<ub, 32x64xf32>' is not a per-row tile}}
  pto_isa.trowexpand_mul %f, %v into %f : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @trowexpand_div_rowval_space(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<l1, 32x8xf32>
  // expected-error @+1 {{row operand is an l1 tile, but this instruction takes ub here}}
  pto_isa.trowexpand_div %f, %v into %f : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<l1, 32x8xf32>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @trowexpand_sub_dst(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 64x64xf32, dn>
  // expected-error @+1 {{destination must be a row-major (nd) ub tile}}
  pto_isa.trowexpand_sub %f, %v into %d : !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 64x8xf32>, !pto_isa.tile<ub, 64x64xf32, dn>
  return
}

// -----

func.func @trowexpand_sub_rowval_dtype(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x16xf16>
  // expected-error @+1 {{full operand ('f32') and row operand ('f16') must have the same element type}}
  pto_isa.trowexpand_sub %f, %v into %f : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x16xf16>, !pto_isa.tile<ub, 32x64xf32>
  return
}

// -----

func.func @trowexpand_sub_dst_dtype(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xf16>
  // expected-error @+1 {{full operand ('f32') and destination ('f16') must have the same element type}}
  pto_isa.trowexpand_sub %f, %v into %d : !pto_isa.tile<ub, 32x64xf32>, !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x64xf16>
  return
}

// -----

func.func @trowexpand_sub_i32(%r: index) {
  %f = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x64xi32>
  %v = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 32x8xi32>
  // expected-error @+1 {{supports f32 and f16, not 'i32'}}
  pto_isa.trowexpand_sub %f, %v into %f : !pto_isa.tile<ub, 32x64xi32>, !pto_isa.tile<ub, 32x8xi32>, !pto_isa.tile<ub, 32x64xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

func.func @flag_all() {
  // expected-error @+1 {{flags connect two real pipes; use pto_isa.pipe_barrier ALL for a full barrier}}
  pto_isa.set_flag ALL -> V, 0
  return
}

// -----

func.func @flag_self() {
  // expected-error @+1 {{a flag from V to itself orders nothing; use pto_isa.pipe_barrier V}}
  pto_isa.wait_flag V -> V, 0
  return
}

// -----

func.func @flag_event_id() {
  // expected-error @+1 {{attribute 'event' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 7}}
  pto_isa.set_flag MTE2 -> V, 8
  return
}

// -----

func.func @tgather_mask_pattern(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xf32>
  // expected-error @+1 {{'pto_isa.tgather_mask' op pattern 0 is not a MaskPattern; use 1 (P0101) to 7 (P1111)}}
  pto_isa.tgather_mask %s into %d pattern = 0 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xf32>
  return
}

// -----

func.func @tgather_mask_i8(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xi8>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xi8>
  // expected-error @+1 {{'pto_isa.tgather_mask' op gathers 'i8'; the mask-pattern TGATHER moves 2- and 4-byte elements}}
  pto_isa.tgather_mask %s into %d pattern = 1 : !pto_isa.tile<ub, 16x64xi8>, !pto_isa.tile<ub, 16x32xi8>
  return
}

// -----

func.func @tgather_mask_rows(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 8x32xf32>
  // expected-error @+1 {{'pto_isa.tgather_mask' op destination has 8 rows for the 16 rows of the source; give it at least as many}}
  pto_isa.tgather_mask %s into %d pattern = 1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 8x32xf32>
  return
}

// -----

func.func @tgather_mask_dtype(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xbf16>
  // expected-error @+1 {{'pto_isa.tgather_mask' op}}
  pto_isa.tgather_mask %s into %d pattern = 1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// mscatter
//===----------------------------------------------------------------------===//

func.func @mscatter_dtype(%g: !pto.tensor<?x64xf16>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xi32>
  // expected-error @+1 {{scatters 'f32' rows into a tensor of 'f16'; MSCATTER needs equal element types (tcvt first)}}
  pto_isa.mscatter %t into %g[%i] [%r, %r] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x16xi32>, !pto.tensor<?x64xf16>
  return
}

// -----

func.func @mscatter_index_type(%g: !pto.tensor<?x64xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xf32>
  // expected-error @+1 {{indices are 'f32'; the A2/A3 MSCATTER takes i32 indices}}
  pto_isa.mscatter %t into %g[%i] [%r, %r] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x16xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @mscatter_index_shape(%g: !pto.tensor<?x64xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 2x8xi32>
  // expected-error @+1 {{index tile '!pto_isa.tile<ub, 2x8xi32>' must be one row of at least 16 indices (one per source row)}}
  pto_isa.mscatter %t into %g[%i] [%r, %r] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 2x8xi32>, !pto.tensor<?x64xf32>
  return
}

// -----

func.func @mscatter_rank(%g: !pto.tensor<2x16x64xf32>, %r: index) {
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %i = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x16xi32>
  // expected-error @+1 {{destination '!pto.tensor<2x16x64xf32>' must be 2-D; reshape the GM tensor first}}
  pto_isa.mscatter %t into %g[%i] [%r, %r] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x16xi32>, !pto.tensor<2x16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Intra-block flags (MIX leaves, DAV_3510)
//===----------------------------------------------------------------------===//

// -----

func.func @set_intra_block_outside_mix() attributes {pto.leaf = #pto.core<cube>, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{signals between the cores of a MIX block; it belongs in the AIC part of a MIX leaf (pto.leaf = #pto.core<mix>) or its AIV part, which pto-isa-split-mix forms}}
  pto_isa.set_intra_block FIX, 0
  return
}

// -----

func.func @set_intra_block_on_v() attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{is issued by the AIC, which has no V pipe; set it on the pipe of the instruction it follows (FIX after an L0C -> UB tmov)}}
  pto_isa.set_intra_block V, 0
  return
}

// -----

func.func @set_intra_block_id() attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 31}}
  pto_isa.set_intra_block FIX, 32
  return
}

// -----

func.func @wait_intra_block_outside_mix() attributes {pto.leaf = #pto.core<vector>, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{waits for another core of a MIX block; it belongs in the vector part of a MIX leaf (a vector leaf with 'pto.mix_aic') or its AIC part, which pto-isa-split-mix forms}}
  pto_isa.wait_intra_block S, 0
  return
}

// -----

func.func @wait_intra_block_id() attributes {pto.leaf = #pto.core<vector>, pto.mix_aic = @m, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{uses flag 16 on an AIV, which has flags 0..15 (the AIC addresses AIV 1's as 16..31)}}
  pto_isa.wait_intra_block S, 16
  return
}

// -----

func.func @set_intra_block_aiv_id() attributes {pto.leaf = #pto.core<vector>, pto.mix_aic = @m, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{uses flag 17 on an AIV, which has flags 0..15 (the AIC addresses AIV 1's as 16..31)}}
  pto_isa.set_intra_block V, 17
  return
}

// -----

func.func @wait_intra_block_id_range() attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  // expected-error @+1 {{attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 31}}
  pto_isa.wait_intra_block FIX, 32
  return
}

// -----

func.func @intra_block_ok() attributes {pto.leaf = #pto.core<vector>, pto.mix_aic = @m, pto.arch = #pto.arch<DAV_3510>} {
  pto_isa.wait_intra_block S, 15
  return
}

// -----

func.func @treshape_rows(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 8x64xi8>
  // expected-error @+1 {{'pto_isa.treshape' op renames the bytes of '!pto_isa.tile<ub, 16x8xf32>' as '!pto_isa.tile<ub, 8x64xi8>': TRESHAPE needs the same rows (16 vs 8) and bytes per row (32 vs 64) so that every element keeps its place}}
  pto_isa.treshape %s into %d : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 8x64xi8>
  return
}
