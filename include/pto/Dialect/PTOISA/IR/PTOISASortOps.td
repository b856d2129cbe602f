//===- PTOISASortOps.td - pto_isa sort instructions --------*- tablegen -*-===//
//
// Included by PTOISAOps.td (uses its PTOISA_VectorOp class). The
// instructions of a row top-k (docs/ISA.md, "topk").
//
//===----------------------------------------------------------------------===//
#ifndef PTOISA_SORT_OPS_TD
#define PTOISA_SORT_OPS_TD

def PTOISA_TCIOp : PTOISA_VectorOp<"tci"> {
  let summary = "TCI: dst[0, j] = start + j over a one-row tile's valid columns (V)";
  let description = [{
    pto-isa's `TCI<Tile, T, 0>(dst, start)`: the index row a sort pairs
    with its values. A one-row ub tile of a 32-bit integer type (`ui32` for
    TSORT32's indices).

    ```mlir
    pto_isa.tci %idx start = 0 : !pto_isa.tile<ub, 1x64xui32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst,
                       I64Attr:$start);
  let assemblyFormat = "$dst `start` `=` $start attr-dict `:` qualified(type($dst))";
}

def PTOISA_TSort32Op : PTOISA_VectorOp<"tsort32"> {
  let summary = "TSORT32: 32-element blocks of each row sorted into (value, index) structures (V)";
  let description = [{
    pto-isa's `TSORT32(dst, src, idx, tmp)`: every 32-element block of each
    valid row of `src` (f32), with its uint32 indices from `idx` (one row
    serving every row), sorted descending into 8-byte (value, index bits)
    structures, two f32 per element, in place of the block in `dst`; equal
    values by ascending index. A last partial block is sorted too (the
    form with `tmp`, one row as wide as `src`).

    ```mlir
    pto_isa.tsort32 %src, %idx, %tmp into %pairs : !pto_isa.tile<ub, 64x64xf32>, !pto_isa.tile<ub, 1x64xui32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 64x128xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$idx,
                       Arg<PTOISA_AnyTile, "", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `,` $idx `,` $tmp `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($idx)) `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}

def PTOISA_TMrgSortOp : PTOISA_VectorOp<"tmrgsort"> {
  let summary = "TMRGSORT: 2 to 4 sorted one-row lists of structures merged (V)";
  let description = [{
    pto-isa's list form `TMRGSORT<Dst, Tmp, Src0, Src1[, Src2[, Src3]],
    false>(dst, executed, tmp, src0, ...)`: merges the sorted (value, index)
    structures of the one-row `srcs` (each valid column pair one structure)
    into `dst` until its valid columns are full, the larger value first and
    the earlier list on a tie. `tmp` is one row as wide as the sources
    together.

    ```mlir
    pto_isa.tmrgsort %l0, %l1 tmp %t into %top : (!pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 1x64xf32>), !pto_isa.tile<ub, 1x128xf32>, !pto_isa.tile<ub, 1x16xf32>
    ```
  }];
  let arguments = (ins Arg<Variadic<PTOISA_AnyTile>, "", [MemRead]>:$srcs,
                       Arg<PTOISA_AnyTile, "", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $srcs `tmp` $tmp `into` $dst attr-dict `:` `(` qualified(type($srcs)) `)` `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}

#endif // PTOISA_SORT_OPS_TD
