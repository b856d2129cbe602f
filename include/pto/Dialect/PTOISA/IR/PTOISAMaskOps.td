//===- PTOISAMaskOps.td - pto_isa compare and select -------*- tablegen -*-===//
//
// pto-isa's comparisons into a packed bit mask and the selects that read one
// (include/pto/common/pto_instr.hpp: TCMP, TCMPS, TSEL, TSELS). Included by
// PTOISAOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef PTOISA_MASK_OPS_TD
#define PTOISA_MASK_OPS_TD

def PTOISA_TCmpOp : PTOISA_VectorOp<"tcmp"> {
  let summary = "TCMP: mask bit (i, j) = lhs[i, j] <mode> rhs[i, j] (V)";
  let description = [{
    Writes a packed bit mask (docs/ISA.md, "DT_BOOL masks"): row `i` of
    `dst`, a row-major ub tile of `ui8`, holds bit `j % 8` of byte `j / 8`
    for column `j` of the sources' valid region; `dst`'s valid columns are
    `ceil(validCols / 8)`, its valid rows the sources'. Sources are
    row-major ub tiles of one type (f16, f32 or i32) with equal valid
    extents; bits past the valid columns are 0.

    ```mlir
    pto_isa.tcmp %a, %b into %m ge : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xui8>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$lhs,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$rhs,
                       Arg<PTOISA_AnyTile, "packed mask", [MemWrite]>:$dst,
                       PTO_CmpMode:$mode);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $dst $mode attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `,` qualified(type($dst))
  }];
}

def PTOISA_TCmpSOp : PTOISA_VectorOp<"tcmps"> {
  let summary = "TCMPS: mask bit (i, j) = src[i, j] <mode> scalar (V)";
  let description = [{
    `pto_isa.tcmp` against a scalar of the source's element type.

    ```mlir
    pto_isa.tcmps %a, %zero into %m ge : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x32xui8>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$scalar,
                       Arg<PTOISA_AnyTile, "packed mask", [MemWrite]>:$dst,
                       PTO_CmpMode:$mode);
  let assemblyFormat = [{
    $src `,` $scalar `into` $dst $mode attr-dict `:` qualified(type($src)) `,` qualified(type($scalar)) `,` qualified(type($dst))
  }];
}

def PTOISA_TSelOp : PTOISA_VectorOp<"tsel"> {
  let summary = "TSEL: dst[i, j] = mask bit (i, j) ? on_true[i, j] : on_false[i, j] (V)";
  let description = [{
    Reads a packed bit mask written by `tcmp`/`tcmps` (row `i` of `mask`
    holds the bits of row `i`). `dst`, `on_true` and `on_false` are
    row-major ub tiles of one 2- or 4-byte type with equal valid extents;
    the mask has their valid rows and at least `ceil(validCols / 8)` valid
    columns. `tmp` is the scratch pto-isa's A2/A3 TSEL stages the mask row
    in (one 32-byte block).

    ```mlir
    pto_isa.tsel %m, %a, %b, %tmp into %d : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "packed mask", [MemRead]>:$mask,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$on_true,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$on_false,
                       Arg<PTOISA_AnyTile, "scratch", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $mask `,` $on_true `,` $on_false `,` $tmp `into` $dst attr-dict `:` qualified(type($mask)) `,` qualified(type($on_true)) `,` qualified(type($on_false)) `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}

def PTOISA_TSelSOp : PTOISA_VectorOp<"tsels"> {
  let summary = "TSELS: dst[i, j] = mask bit (i, j) ? src[i, j] : scalar (V)";
  let description = [{
    `pto_isa.tsel` with a scalar of the element type where the mask bit is
    0. `tmp` holds the scalar for the vector unit (one 32-byte block).

    ```mlir
    pto_isa.tsels %m, %a, %zero, %tmp into %d : !pto_isa.tile<ub, 16x32xui8>, !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "packed mask", [MemRead]>:$mask,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$scalar,
                       Arg<PTOISA_AnyTile, "scratch", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $mask `,` $src `,` $scalar `,` $tmp `into` $dst attr-dict `:` qualified(type($mask)) `,` qualified(type($src)) `,` qualified(type($scalar)) `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}

#endif // PTOISA_MASK_OPS_TD
