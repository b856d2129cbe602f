//===- PTOMaskOps.td - pto comparisons and select ----------*- tablegen -*-===//
//
// PyPTO's DT_BOOL masks: comparisons produce an `i1` tile, `pto.where`
// consumes one. Included by PTOOps.td (one op list per dialect).
//
//===----------------------------------------------------------------------===//
#ifndef PTO_MASK_OPS_TD
#define PTO_MASK_OPS_TD

def PTO_CompareOp : PTO_VectorOp<"compare", [PTO_ElementwiseOpTrait]> {
  let summary = "pypto.eq/ne/lt/gt/ge/le: elementwise comparison into a DT_BOOL tile";
  let description = [{
    PyPTO's comparisons (`hicann/pypto/docs/api/operation/pypto-ge.md` and
    its siblings; `python/pypto/op/comparison.py`): `result[i]` is 1 where
    `lhs[i] <mode> rhs[i]` holds and 0 elsewhere, an `i1` tile (PyPTO's
    DT_BOOL). The right operand is a tile of the left's element type and
    rank, broadcast along its size-1 dims as in the binary arithmetic ops,
    or a scalar of the element type (`pypto.ge(x, 0.0)`). NaN compares
    unequal to everything (IEEE): `ne` is true, every other mode false.
    The operands are f16, bf16, f32 or i32 (pto-isa's `TCMP`/`TCMPS`;
    PyPTO lists the float types).

    ```mlir
    %pos = pto.compare ge, %x, %zero : !pto.tile<64xf32>, f32 -> !pto.tile<64xi1>
    ```
  }];
  let arguments = (ins PTO_CmpMode:$mode, PTO_AnyTile:$lhs,
                       PTO_TileOrScalar:$rhs,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $mode `,` $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_WhereOp : PTO_VectorOp<"where", [PTO_ElementwiseOpTrait]> {
  let summary = "pypto.where: picks `on_true` where the DT_BOOL mask is set, `on_false` elsewhere";
  let description = [{
    PyPTO's `where(condition, input, other)`
    (`hicann/pypto/docs/api/operation/pypto-where.md`):
    `result[i] = condition[i] ? on_true[i] : on_false[i]`. `condition` is an
    `i1` tile; `on_true` and `on_false` are tiles or scalars of one element
    type (f16, bf16, f32, i16 or i32). Tile operands have the condition's
    rank, and every dim is the same size in all of them or 1 in some
    (broadcast, data and valid extent, as in the binary ops); the result
    has the broadcast shape.

    ```mlir
    %r = pto.where %pos, %s, %n : !pto.tile<64xi1>, !pto.tile<64xf32>, !pto.tile<64xf32> -> !pto.tile<64xf32>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$condition, PTO_TileOrScalar:$on_true,
                       PTO_TileOrScalar:$on_false,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` qualified(type($condition)) `,` qualified(type($on_true)) `,` qualified(type($on_false)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // PTO_MASK_OPS_TD
