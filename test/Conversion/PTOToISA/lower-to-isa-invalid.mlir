// RUN: pto-opt %s --pto-lower-to-isa -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{which has no L0C -> UB path; MIX leaves are lowered on DAV_3510 only}}
func.func private @mix(%a: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_2201>} {
  return
}

// -----

// A MIX leaf's vector part reads only windows of what its cube part left
// in L0C.
func.func private @mix_unstored(%a: !pto.tensor<16x16xf32>, %ws: !pto.tensor<32x16xf32>, %y: !pto.tensor<32x16xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  // expected-error @+1 {{views an on-chip exchange at a window that no earlier accumulator of this MIX leaf stored at launch 0; the vector part reads only windows of what its cube part left in L0C: compile with mix-exchange=false}}
  %v = pto.view %ws[%c16, %c0] : !pto.tensor<32x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %v, %y [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  return
}

func.func private @mix_unstored_root(%a: !pto.tensor<16x16xf32>, %y: !pto.tensor<32x16xf32>)
    attributes {pto.root, pto.arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x16xf32>
  %t = pto.launch @mix_unstored(%a, %ws, %y) : (!pto.tensor<16x16xf32>, !pto.tensor<32x16xf32>, !pto.tensor<32x16xf32>) -> !pto.token
  return
}

// -----

// expected-error @+1 {{has more than one block; pto-lower-to-isa lowers straight-line leaves}}
func.func private @blocks(%a: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  "test.br"() [^bb1] : () -> ()
^bb1:
  return
}

// -----

// expected-error @+1 {{takes a tile argument ('!pto.tile<16x16xf32>')}}
func.func private @tile_arg(%t: !pto.tile<16x16xf32>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  pto.assemble %t, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

func.func private @regions(%a: !pto.tensor<16x16xf32>, %b: i1) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @+1 {{has regions; pto-lower-to-isa lowers straight-line leaves}}
  scf.if %b {
  }
  return
}

// -----

func.func private @rank3_strided_columns(%a: !pto.tensor<16x16x2xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{reads or writes a '!pto.tensor<16x16x2xf32>' window whose columns (dim 1) are strided: the tensor's dim 2 is 2, not 1}}
  %t = pto.view %a[%c0, %c0, %c0] : !pto.tensor<16x16x2xf32> -> !pto.tile<16x16x1xf32>
  return
}

// -----

// -----

// Rows with gaps (dim 1 valid in part) reach row-local ops, loads and
// stores (lower-to-isa.mlir @rows_in_runs); a reduction over the rows would
// read the gaps.
func.func private @rank3_partially_valid(%a: !pto.tensor<4x16x16xf32>, %o: !pto.tensor<2x1x16xf32>, %v: index) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %t = pto.view %a[%c0, %c0, %c0] valid [2, %v, 16] : !pto.tensor<4x16x16xf32> -> !pto.tile<2x16x16xf32>
  // expected-error @+1 {{has a [2, 16, 16] tile whose dim 1 is not statically valid in full; pto-lower-to-isa collapses the dims before the last non-unit one into rows only when every one after the first is whole (elementwise ops, loads and stores take such tiles; this op does not)}}
  %s = pto.sum %t dim = 1 keepdim : !pto.tile<2x16x16xf32> -> !pto.tile<2x1x16xf32>
  pto.assemble %s, %o [0, 0, 0] : !pto.tile<2x1x16xf32>, !pto.tensor<2x1x16xf32>
  return
}

// -----

// Rows in runs are unrolled, one load or store per run, up to 1024 runs.
func.func private @too_many_runs(%a: !pto.tensor<2048x3x32xf32>) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @+1 {{loads a [2048, 2, 32] tile as 2048 separate runs of rows (its rows have gaps or are not evenly strided in GM past dim 1); pto-lower-to-isa unrolls at most 1024 runs}}
  %t = pto.view %a[0, 0, 0] : !pto.tensor<2048x3x32xf32> -> !pto.tile<2048x2x32xf32>
  return
}

// -----

func.func private @rank3_transpose(%a: !pto.tensor<2x16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %t = pto.view %a[%c0, %c0, %c0] : !pto.tensor<2x16x16xf32> -> !pto.tile<2x16x16xf32>
  // expected-error @+1 {{transposes dims 1 and 2 of a [2, 16, 16] tile, reordering its non-unit dims}}
  %u = pto.transpose %t, 1, 2 : !pto.tile<2x16x16xf32> -> !pto.tile<2x16x16xf32>
  return
}

// -----

func.func private @cube_in_vector(%a: !pto.tensor<16x16xbf16>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  // expected-error @+1 {{is a cube op in a vector leaf; DAV_2201 leaves are pure cube or pure vector}}
  %s = pto.matmul %x, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.assemble %s, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

func.func private @vector_in_cube(%a: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  // expected-error @+1 {{is a vector op in a cube leaf}}
  %e = pto.exp %x : !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %e, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

// Views of tiles are TEXTRACT copies of one rectangle of the source's 2-D
// form at a 32-byte aligned start, static but for run-time rows and columns
// (lower-to-isa.mlir @tile_views, @tile_view_runtime_offsets); the rest is
// an error naming the rule: here an offset in a unit dim after the columns.
func.func private @view_of_tile_runtime_offset_after_columns(%a: !pto.tensor<16x16x1xf32>, %out: !pto.tensor<16x16x1xf32>, %r: index) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0, %c0] : !pto.tensor<16x16x1xf32> -> !pto.tile<16x16x1xf32>
  %e = pto.exp %x : !pto.tile<16x16x1xf32> -> !pto.tile<16x16x1xf32>
  // expected-error @+1 {{views a [16, 16, 1] tile at a run-time offset in dim 2, after its column dim 1; pto-lower-to-isa copies sub-tiles of tiles (TEXTRACT) at run-time offsets in the row dims and the column dim only}}
  %y = pto.view %e[%c0, %c0, %r] : !pto.tile<16x16x1xf32> -> !pto.tile<16x16x1xf32>
  pto.assemble %y, %out [%c0, %c0, %c0] : !pto.tile<16x16x1xf32>, !pto.tensor<16x16x1xf32>
  return
}

// -----

func.func private @view_of_tile_other_columns(%a: !pto.tensor<2x4x16xf32>, %out: !pto.tensor<2x4x1xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %x = pto.view %a[0, 0, 0] : !pto.tensor<2x4x16xf32> -> !pto.tile<2x4x16xf32>
  %e = pto.exp %x : !pto.tile<2x4x16xf32> -> !pto.tile<2x4x16xf32>
  // expected-error @+1 {{views a [2, 4, 16] tile as a [2, 4, 1] tile whose last non-unit dim differs from the source's; pto-lower-to-isa copies sub-tiles that keep the source's columns (TEXTRACT)}}
  %y = pto.view %e[0, 0, 0] : !pto.tile<2x4x16xf32> -> !pto.tile<2x4x1xf32>
  pto.assemble %y, %out [0, 0, 0] : !pto.tile<2x4x1xf32>, !pto.tensor<2x4x1xf32>
  return
}

// -----

// A view off a 32-byte column boundary whose rows are several runs
// (x[:, 1, 4:12] of [2, 4, 16]): the transposes move one rectangle only.
func.func private @view_of_tile_unaligned_column_runs(%a: !pto.tensor<2x4x16xf32>, %out: !pto.tensor<2x1x8xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %x = pto.view %a[0, 0, 0] : !pto.tensor<2x4x16xf32> -> !pto.tile<2x4x16xf32>
  %e = pto.exp %x : !pto.tile<2x4x16xf32> -> !pto.tile<2x4x16xf32>
  // expected-error @+1 {{views a [2, 4, 16] tile from column 4 as 2 runs of rows; pto-isa's ub -> ub TEXTRACT starts on a 32-byte boundary (a multiple of 8 elements of 'f32') and pto-lower-to-isa moves an unaligned column start only for a view that is one rectangle}}
  %y = pto.view %e[0, 1, 4] : !pto.tile<2x4x16xf32> -> !pto.tile<2x1x8xf32>
  pto.assemble %y, %out [0, 0, 0] : !pto.tile<2x1x8xf32>, !pto.tensor<2x1x8xf32>
  return
}

// -----

func.func private @integer_tile(%a: !pto.tensor<16x16xi64>, %out: !pto.tensor<16x16xi64>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{cannot be lowered: element type 'i64' is not a pto-isa tile element type}}
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xi64> -> !pto.tile<16x16xi64>
  pto.assemble %x, %out [%c0, %c0] : !pto.tile<16x16xi64>, !pto.tensor<16x16xi64>
  return
}

// -----

func.func private @store_view_in_cube(%a: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  // expected-error @+1 {{uses a view directly; in a cube leaf views feed only matmul operands (GM -> L1 -> L0), and only matmul results (L0C) are stored}}
  pto.assemble %x, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

// A matmul result feeds a later matmul through an nz L1 image (TMOV), not
// transposed.
func.func private @operand_result_transposed(%a: !pto.tensor<16x16xbf16>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %s = pto.matmul %x, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xbf16>
  // expected-error @+1 {{takes the matmul result of this leaf transposed (b_trans); pto-lower-to-isa moves an L0C result to L1 as an nz image only}}
  %t = pto.matmul %x, %s {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.assemble %t, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

func.func private @acc_read_later(%a: !pto.tensor<16x32xbf16>, %out: !pto.tensor<16x16xf32>, %out2: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x32xbf16> -> !pto.tile<16x16xbf16>
  %y = pto.view %a[%c0, %c16] : !pto.tensor<16x32xbf16> -> !pto.tile<16x16xbf16>
  %s = pto.matmul %x, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  // expected-error @+1 {{accumulates into a partial result that is read again after this K step}}
  %t = pto.matmul_acc %s, %y, %y {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.assemble %t, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  pto.assemble %s, %out2 [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

func.func private @no_lowering(%a: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  // expected-error @+1 {{has no pto_isa lowering (pto-lower-to-isa lowers views, elementwise, unary, cast, row and column reductions, full, transpose, gathermask, compare, where, matmul chains, assemble, atomic_add and index_put)}}
  %d = pto.valid_dim %x, 0 : !pto.tile<16x16xf32>
  return
}


// -----

func.func private @gathermask_unaligned_result(%a: !pto.tensor<16x16xf32>, %out: !pto.tensor<16x4xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  // expected-error @+1 {{gathers 4 columns of 'f32', which is not a whole number of 32-byte blocks: the mask-pattern TGATHER packs its result rows, so the result's last dim must fill its ub rows; gather a wider input}}
  %g = pto.gathermask %x, pattern = 3 : !pto.tile<16x16xf32> -> !pto.tile<16x4xf32>
  pto.assemble %g, %out [%c0, %c0] : !pto.tile<16x4xf32>, !pto.tensor<16x4xf32>
  return
}

// -----

func.func private @gathermask_partial_columns(%a: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x32xf32>) attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] valid [16, 60] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  // expected-error @+1 {{gathers 30 valid columns of 32: the mask-pattern TGATHER packs its result rows, so the input's last dim must be fully valid (pto-run and the tile graph take a partial one); view the input with its whole last dim valid and cut the valid columns after the gather (pto.view of the result), or pad the tensor's rows}}
  %g = pto.gathermask %x, pattern = 1 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  pto.assemble %g, %out [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  return
}

// -----

// A row reduction without keepdim of a [2, 16, 64] tile: its [2, 16] result
// is neither the [32, 1] column TROWSUM writes nor a row holding it.
func.func private @reduce_rank3_nokeepdim(%x: !pto.tensor<2x16x64xf32>, %y: !pto.tensor<2x16xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0] : !pto.tensor<2x16x64xf32> -> !pto.tile<2x16x64xf32>
  // expected-error @+1 {{'pto.sum' op reduces the column dim of a [2, 16, 64] tile into a [2, 16] tile whose 2-D form is [2, 16], neither the [32, 1] column TROWSUM/TROWMAX produce nor a row holding it; pto-lower-to-isa cannot rearrange it: reduce with keepdim}}
  %s = pto.sum %t dim = 2 : !pto.tile<2x16x64xf32> -> !pto.tile<2x16xf32>
  pto.assemble %s, %y[0, 0] : !pto.tile<2x16xf32>, !pto.tensor<2x16xf32>
  return
}

// -----

// A reduction over a leading dim followed by another non-unit one whose
// rows have gaps (dim 2 valid in part): its blocks are no whole rows.
func.func private @reduce_blocks_with_gaps(%x: !pto.tensor<4x8x32xf32>, %y: !pto.tensor<1x8x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0] valid [4, 6, 32] : !pto.tensor<4x8x32xf32> -> !pto.tile<4x8x32xf32>
  // expected-error @+1 {{'pto.sum' op has a [4, 8, 32] tile whose dim 1 is not statically valid in full}}
  %s = pto.sum %t dim = 0 keepdim : !pto.tile<4x8x32xf32> -> !pto.tile<1x8x32xf32>
  pto.assemble %s, %y[0, 0, 0] : !pto.tile<1x8x32xf32>, !pto.tensor<1x8x32xf32>
  return
}

// -----

// A broadcast along two leading dims with a kept one between them
// ([1, 4, 1, 32] over [2, 4, 8, 32]) repeats rows in no pattern
// pto-lower-to-isa lowers: no 2-D broadcast, not one per leading index,
// not repeated blocks.
func.func private @broadcast_some_leading_dims(%x: !pto.tensor<2x4x8x32xf32>, %m: !pto.tensor<1x4x1x32xf32>, %y: !pto.tensor<2x4x8x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0, 0] : !pto.tensor<2x4x8x32xf32> -> !pto.tile<2x4x8x32xf32>
  %u = pto.view %m[0, 0, 0, 0] : !pto.tensor<1x4x1x32xf32> -> !pto.tile<1x4x1x32xf32>
  // expected-error @+1 {{'pto.sub' op broadcasts a [1, 4, 1, 32] operand over a [2, 4, 8, 32] result along some of the leading dims that pto-lower-to-isa folds into rows (dims 0..2); it lowers N-D broadcasts whose leading dims are all kept or all broadcast (a 2-D [R, 1] or [1, C] operand), or broadcast along one run of consecutive leading dims ([B, 1, D] or [1, S, D] over [B, S, D])}}
  %d = pto.sub %t, %u : !pto.tile<2x4x8x32xf32>, !pto.tile<1x4x1x32xf32> -> !pto.tile<2x4x8x32xf32>
  pto.assemble %d, %y[0, 0, 0, 0] : !pto.tile<2x4x8x32xf32>, !pto.tensor<2x4x8x32xf32>
  return
}

// -----

// One elementwise chain needing two 2-D forms: the keepdim sum makes %s a
// [8, 1] column (dim 2), the broadcast over [2, 4, 1, 16] wants %p with
// dim 3 as its single column.
func.func private @two_column_forms(%x: !pto.tensor<2x4x16x1xf32>, %z: !pto.tensor<2x4x1x16xf32>, %y: !pto.tensor<2x4x1x16xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0, 0] : !pto.tensor<2x4x16x1xf32> -> !pto.tile<2x4x16x1xf32>
  // expected-note @+1 {{the other form is here}}
  %s = pto.sum %t dim = 2 keepdim : !pto.tile<2x4x16x1xf32> -> !pto.tile<2x4x1x1xf32>
  %p = pto.mul %s, %s : !pto.tile<2x4x1x1xf32>, !pto.tile<2x4x1x1xf32> -> !pto.tile<2x4x1x1xf32>
  %u = pto.view %z[0, 0, 0, 0] : !pto.tensor<2x4x1x16xf32> -> !pto.tile<2x4x1x16xf32>
  // expected-error @+1 {{'pto.sub' op needs its [2, 4, 1, 1] tile held with dim 3 as the columns of a 2-D tile, but an elementwise chain joins it to a tile held with dim 2 as the columns}}
  %d = pto.sub %u, %p : !pto.tile<2x4x1x16xf32>, !pto.tile<2x4x1x1xf32> -> !pto.tile<2x4x1x16xf32>
  pto.assemble %d, %y[0, 0, 0, 0] : !pto.tile<2x4x1x16xf32>, !pto.tensor<2x4x1x16xf32>
  return
}

// -----

// Two launches share the leaf: at the first the view's window lies in the
// stored piece, at the second (the piece stored 16 rows further down) it
// does not: the pairing is per launch, and must hold at every launch.
func.func private @mix_shared(%a: !pto.tensor<16x16xf32>, %ws: !pto.tensor<32x16xf32>, %y: !pto.tensor<16x16xf32>, %r: index)
    attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %s, %ws [%r, %c0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  // expected-error @+1 {{views an on-chip exchange whose window lies in a different stored piece at launch 1 than at launch 0 (pto-outline shares this leaf between tasks with different piece layouts); compile with mix-exchange=false}}
  %v = pto.view %ws[%c0, %c0] : !pto.tensor<32x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %v, %y [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

func.func private @mix_shared_root(%a: !pto.tensor<16x16xf32>, %y: !pto.tensor<16x16xf32>)
    attributes {pto.root, pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x16xf32>
  %t0 = pto.launch @mix_shared(%a, %ws, %y, %c0) : (!pto.tensor<16x16xf32>, !pto.tensor<32x16xf32>, !pto.tensor<16x16xf32>, index) -> !pto.token
  %t1 = pto.launch @mix_shared(%a, %ws, %y, %c16) : (!pto.tensor<16x16xf32>, !pto.tensor<32x16xf32>, !pto.tensor<16x16xf32>, index) -> !pto.token
  return
}


// -----

// Two 64 KiB windows read together: the ring (half of UB: one such slot)
// cannot hold both while the AIV reads them.
func.func private @mix_ring_full(%a: !pto.tensor<128x128xf32>, %ws: !pto.tensor<256x128xf32>, %y: !pto.tensor<128x128xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<128x128xf32> -> !pto.tile<128x128xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<128x128xf32>, !pto.tensor<256x128xf32>
  %t = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [128, 128], k = [128, 128], n = [128, 128]>} : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %t, %ws [%c128, %c0] : !pto.tile<128x128xf32>, !pto.tensor<256x128xf32>
  %v0 = pto.view %ws[%c0, %c0] : !pto.tensor<256x128xf32> -> !pto.tile<128x128xf32>
  // expected-error @+1 {{needs a UB ring slot while AIV 0 still reads all 1 (65536 B each, half of UB and at most 8): the vector part holds too many moved windows at once; use smaller vector pieces (v_tile) or leave mix-exchange off}}
  %v1 = pto.view %ws[%c128, %c0] : !pto.tensor<256x128xf32> -> !pto.tile<128x128xf32>
  %d = pto.add %v0, %v1 : !pto.tile<128x128xf32>, !pto.tile<128x128xf32> -> !pto.tile<128x128xf32>
  pto.assemble %d, %y [%c0, %c0] : !pto.tile<128x128xf32>, !pto.tensor<128x128xf32>
  return
}

func.func private @mix_ring_full_root(%a: !pto.tensor<128x128xf32>, %y: !pto.tensor<128x128xf32>)
    attributes {pto.root, pto.arch = #pto.arch<DAV_3510>} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<256x128xf32>
  %t = pto.launch @mix_ring_full(%a, %ws, %y) : (!pto.tensor<128x128xf32>, !pto.tensor<256x128xf32>, !pto.tensor<128x128xf32>) -> !pto.token
  return
}

// -----

func.func private @arange_f16(%out: !pto.tensor<16xf16>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.arange' op is a 'f16' sequence; pto-lower-to-isa lowers i32 and f32 sequences (pto-isa's TCI, TMULS, TADDS): build it in f32 and cast it}}
  %t = pto.arange 0.0, 0.5 : !pto.tile<16xf16>
  pto.assemble %t, %out [%c0] : !pto.tile<16xf16>, !pto.tensor<16xf16>
  return
}

// -----

// Launches are read from the roots and kernels; a leaf issues none.
func.func private @inner(%a: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  return
}

func.func private @launching(%a: !pto.tensor<16x16xf32>) attributes {pto.leaf = #pto.core<vector>} {
  // expected-error @+1 {{in leaf @launching: a leaf is the body of one task, and tasks are issued by roots and kernels (pto-outline); move it there}}
  %t = pto.launch @inner(%a) : (!pto.tensor<16x16xf32>) -> !pto.token
  return
}
