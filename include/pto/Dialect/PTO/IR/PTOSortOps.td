//===- PTOSortOps.td - pto sorting operations --------------*- tablegen -*-===//
//
// Included by PTOOps.td (uses its PTO_VectorOp class).
//
//===----------------------------------------------------------------------===//
#ifndef PTO_SORT_OPS_TD
#define PTO_SORT_OPS_TD

def PTO_TopKOp : PTO_VectorOp<"topk"> {
  let summary = "pypto.topk: the k largest (or smallest) of each last-dim row, with their indices";
  let description = [{
    PyPTO's `values, indices = topk(x, k, dim=-1, largest=True)`
    (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-topk.md):
    for every row of the last dim, the `k` largest elements (`largest = false`: the smallest) in
    order, largest first (smallest first), and their int32 positions in the
    row. PyPTO takes FP32 tiles of rank 2 to 4, sorts the last dim only
    (the front end rejects any other `dim`) and requires
    `1 <= k <= input.shape[-1]`.

    Equal values keep their order: the lower index comes first. This is the
    order of the hardware sort PyPTO lowers to (pto-isa `TSORT32` sorts
    32-element blocks descending and stably, `TMRGSORT` takes the earlier
    list on a tie), the order `np.argsort(-x, kind="stable")` gives for
    `largest` and `np.argsort(x, kind="stable")` for the smallest.

    Valid shape: the input's, with the last dim `min(valid, k)`: a row with
    fewer valid elements than `k` yields only its valid ones (padding is
    never ranked).

    A vector tile governs the input. As in PyPTO, its last dim must hold
    `k` and be a multiple of 32 bytes (8 f32) unless it covers the whole
    row, and a row must stay under 22 KiB. The tile graph keeps each row in
    one piece (`pto-expand-tiles` splits the leading dims only).

    ```mlir
    %v, %i = pto.topk %x, k = 8 : !pto.tile<64x64xf32> -> !pto.tile<64x8xf32>, !pto.tile<64x8xi32>
    %lo, %li = pto.topk %x, k = 2 {largest = false} : !pto.tile<4x64xf32> -> !pto.tile<4x2xf32>, !pto.tile<4x2xi32>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$input, I64Attr:$k,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$values, PTO_AnyTile:$indices);
  let assemblyFormat = [{
    $input `,` `k` `=` $k attr-dict `:` qualified(type($input)) `->` qualified(type($values)) `,` qualified(type($indices))
  }];
  let hasVerifier = 1;
}

#endif // PTO_SORT_OPS_TD
