//===- Passes.td - conversions between pto levels ----------*- tablegen -*-===//
#ifndef PTO_CONVERSION_PASSES_TD
#define PTO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToISAPass : Pass<"pto-lower-to-isa", "::mlir::ModuleOp"> {
  let summary = "Lowers tile-graph leaf functions to pto_isa instructions";
  let description = [{
    Rewrites the body of every leaf function (`pto.leaf = #pto.core<cube>`
    or `<vector>`, straight-line after `pto-outline`) into `pto_isa`
    instructions over `pto_isa.alloc_tile`s (unplaced: `pto-isa-plan-memory`
    sets `at`). Roots, the kernel, index arithmetic and the function
    signature stay as they are; the replaced `pto` ops are erased.

    Every destination tile gets the valid extents of the `pto` value it
    holds (reified with `ValidShapeReifier`), so each instruction computes
    over the region `pto-run` computes. A tile's capacity is the `pto` tile
    shape rounded up to what `!pto_isa.tile` demands.

    Vector leaves (ub tiles):
    - `pto.view` of a GM tensor: `alloc_tile` + `tload` (identical windows
      are loaded once, until a store writes their tensor); a `[R, 1]` view is held in an nd `[R, 32/sizeof]`
      tile with one valid column;
    - elementwise: with a scalar `t{add,sub,mul,div,max,min}s`; equal shapes
      the plain instruction; a per-row `[R, 1]` right operand of sub/mul/div
      is `trowexpand`ed to one 32-byte block per row and applied with
      `trowexpand_{sub,mul,div}` (mode 2); other row broadcasts (add, max,
      min, or the per-row operand on the left) `trowexpand` to the full
      shape and use the plain instruction; a `[1, C]` operand over the
      rows: `tcolexpand_{add,sub,mul,div,max,min}` with the full operand
      first (swapped for commutative ops), otherwise (a `[1, C]` left
      operand of sub/div, a `[1, 1]` operand) `tcolexpand`/`trowexpand` to
      the full shape and the plain instruction;
    - `cast`: `tcvt` with the effective mode (NONE is RINT for f32 -> bf16);
      exp/abs/sqrt/rsqrt/reciprocal/neg/log: the unary instructions; tanh:
      `1 - 2 / (exp(2x) + 1)` in f32 (pto-isa has no tanh); `sum`/`amax`
      over dim 1 with keepdim: `trowsum`/`trowmax` into an nd
      `[R, 32/sizeof]` tile with the scratch the target's implementation
      writes (docs/ISA.md#row-reduction-scratch: half the repeats of an
      A2/A3 f32 row sum, one repeat per row for a row max);
      over dim 0 with keepdim: `tcolsum`/`tcolmax` into a `[1, C]` tile;
      without keepdim (rank-2 input) the rank-1 result is a `[1, N]` row:
      the column reduction's row as is, the row reduction's column
      transposed by `ttrans`;
      `full`: `texpands`;
    - `assemble`: `tstore`; `atomic_add`: `tstore ... atomic_add`;
      `index_put`: `mscatter` (pto-isa's row-mode `MSCATTER`, `atomic_add`
      when accumulating) with the index tile as a `[1, N]` ub row.
    - tiles of rank other than 2 (views, stores, shape-preserving vector
      ops, a transpose that keeps the order of the non-unit dims) collapse
      to 2-D: the dims before the last non-unit dim become rows, unit dims
      after it drop; their GM tensors are reshaped in place to the matching
      2-D shape, the offsets linearised. A window that is no 2-D rectangle
      in GM is an error.

    Cube leaves: each matmul operand view is loaded GM -> L1 (an nz tile; a
    `a_trans`/`b_trans` operand with a transposing DN -> ZN load into a zn
    tile, which holds the transpose) once per window and orientation, then
    `textract`ed into l0a/l0b, where a copy is kept for later matmuls of the
    same L1 image while the kept copies of that side fit its capacity (past
    that they are dropped and later users extract again, so a long shared K
    chain still fits); `pto.matmul` becomes `tmatmul` into a new l0c
    accumulator (f32, i32 for i8), each `pto.matmul_acc` a `tmatmul_acc`
    into the same accumulator; stores of a result `tstore` from l0c (the
    fixpipe converts to the GM element type). An accumulator larger than
    half of l0c that only `tstore`s read is then cut into two row halves
    (its l0a copies extracted as two half-height tiles, each instruction
    doubled, the bottom store h rows further down), so that
    `pto-isa-plan-memory` places the halves at two offsets and the fixpipe
    store of one overlaps the matmul of the other (L0C double buffering).

    A K chain's first step is a `tmatmul`: its k (valid columns of the left
    operand) is 0 only when the whole contraction is empty, and then the
    accumulator stays undefined while pto says zeros; the lowering relies on
    k > 0 there (SK-16's loops guarantee it). Errors name the op and what is
    supported: reductions of rank > 2 tiles without keepdim, N-D operands
    that cannot be collapsed, views of tiles, tile arguments, MIX leaves
    off DAV_3510, control flow in a leaf, an accumulator read after a later
    K step. (bf16 vector arithmetic on DAV_2201 is already rejected by the
    pto verifier, and the pto_isa verifiers back every instruction emitted.)

    MIX leaves (DAV_3510, pto-mix-exchange): op by op as in cube and vector
    leaves, except that a leaf argument every launch passes a `pto.on_chip`
    workspace for is an on-chip exchange: an accumulator stored into it
    moves L0C -> UB (`tmov` into a ub tile), and a vector view of it is a
    `textract` of the moved tile holding it. The vector part is divided
    between the two AIVs (groups of ops connected through tiles or
    overlapping GM windows, balanced by elements; each UB tile marked with
    its AIV, `pto_isa.subblock`), each AIV with its own ring of UB slots.
    `pto-isa-split-mix` then splits the leaf into its AIC and AIV parts
    (docs/ISA.md).

    With `defer-leaves` the pass lowers the MIX leaves only (their lowering
    reads their launches) and records on every other leaf the constants
    its launches pass (`pto.launch_constants`, a discardable attribute) for
    `pto-lower-leaf-to-isa`, which lowers that leaf on its own: the Ascend
    pipeline nests it on `func.func`, so each leaf goes through the
    lowering and the passes after it while it is in cache. The pass reads
    the launches from the roots and kernels, never from inside a leaf.
  }];
  let options = [
    Option<"deferLeaves", "defer-leaves", "bool", /*default=*/"false",
           "Lower only the MIX leaves; record the launch constants of the "
           "others for pto-lower-leaf-to-isa">,
  ];
  let dependentDialects = ["::mlir::ptoisa::PTOISADialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def LowerLeafToISAPass : Pass<"pto-lower-leaf-to-isa", "::mlir::func::FuncOp"> {
  let summary = "Lowers one vector or cube leaf to pto_isa, with its recorded "
                "launch constants";
  let description = [{
    The function part of `pto-lower-to-isa`: on a vector or cube leaf that
    `pto-lower-to-isa{defer-leaves}` prepared, replaces each index argument
    that every launch passes as one constant (`pto.launch_constants`) by
    that constant and lowers the leaf exactly as `pto-lower-to-isa` does,
    then removes the attribute. It reads and writes only its function, so
    it runs nested on `func.func` (in parallel under threading) and the
    verifier after it reads one leaf, not the module. Other functions, MIX
    leaves (lowered by `pto-lower-to-isa`, which has their launches) and
    lowered leaves are left as they are; a leaf still holding pto tiles
    without the attribute is an error.
  }];
  let dependentDialects = ["::mlir::ptoisa::PTOISADialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // PTO_CONVERSION_PASSES_TD
