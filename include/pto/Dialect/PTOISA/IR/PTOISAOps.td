//===- PTOISAOps.td - pto_isa operations -------------------*- tablegen -*-===//
//
// One op per pto-isa instruction (docs/AscendTarget.md#instructions). Operands that an
// instruction reads carry [MemRead], the destination [MemWrite]: sync
// insertion and memory planning read the hazards from the side effects.
//
//===----------------------------------------------------------------------===//
#ifndef PTOISA_OPS_TD
#define PTOISA_OPS_TD

include "pto/Dialect/PTOISA/IR/PTOISADialect.td"
include "pto/Dialect/PTOISA/IR/PTOISATypes.td"
include "pto/Dialect/PTOISA/IR/PTOISAInterfaces.td"
include "pto/Dialect/PTO/IR/PTOTypes.td"
include "pto/Dialect/PTO/IR/PTOAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class PTOISA_PipeOp<string mnemonic, list<Trait> traits = []>
    : PTOISA_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<PTOISA_PipeOpInterface>])>;

// An instruction on a fixed pipe.
class PTOISA_FixedPipeOp<string mnemonic, string pipe, list<Trait> traits = []>
    : PTOISA_Op<mnemonic, !listconcat(traits, [PTOISA_PipeOpInterface])> {
  let extraClassDeclaration = [{
    ::mlir::ptoisa::Pipe getPipe() { return ::mlir::ptoisa::Pipe::}] # pipe # [{; }
  }];
}

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

def PTOISA_AllocTileOp : PTOISA_Op<"alloc_tile", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "a tile object: run-time valid extents and (once planned) its place";
  let description = [{
    Declares one pto-isa `Tile` with dynamic valid extents `[rows, cols]`
    (each at most the type's capacity). `at` is its byte offset in the
    core's buffer of the type's space (`TASSIGN`), set by
    `pto-isa-plan-memory`; the verifier checks alignment and capacity against
    the platform description of the governing architecture.

    ```mlir
    %t = pto_isa.alloc_tile valid [%r, %c] at 1024 : !pto_isa.tile<ub, 32x128xf32>
    ```
  }];
  let arguments = (ins Index:$validRows, Index:$validCols,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs PTOISA_AnyTile:$result);
  let assemblyFormat = [{
    `valid` ` ` `[` $validRows `,` $validCols `]` (`at` $offset^)? attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    TileType getTileType() { return ::llvm::cast<TileType>(getResult().getType()); }
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def PTOISA_TLoadOp : PTOISA_FixedPipeOp<"tload", "MTE2"> {
  let summary = "TLOAD: a GM window -> a ub or l1 tile (MTE2)";
  let description = [{
    Loads the window of `src` at `[row, col]` whose extent is the valid
    region of `dst`. With `transpose` the window is read column-major (a DN
    GlobalTensor) into a `zn` L1 tile, which then holds the transpose:
    `dst[i][j] = src[row + j][col + i]` (how `b_trans`/`a_trans` cube operands
    are realised, docs/AscendTarget.md#operand-transposes).

    ```mlir
    pto_isa.tload %q[%r, %c] into %t : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
    pto_isa.tload %k[%r, %c] into %kt transpose : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
    ```
  }];
  let arguments = (ins Arg<PTO_AnyTensor, "GM source", [MemRead]>:$src,
                       Index:$row, Index:$col,
                       Arg<PTOISA_AnyTile, "destination", [MemWrite]>:$dst,
                       UnitAttr:$transpose);
  let assemblyFormat = [{
    $src `[` $row `,` $col `]` `into` $dst (`transpose` $transpose^)? attr-dict
    `:` qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def PTOISA_TStoreOp : PTOISA_PipeOp<"tstore"> {
  let summary = "TSTORE: a tile's valid region -> a GM window (FIX from l0c, else MTE3)";
  let description = [{
    Writes (with `atomic_add`: adds, `AtomicType::AtomicAdd`) the valid region
    of `src` into `dst` at `[row, col]`. From `l0c` the fixpipe converts the
    f32 accumulator to the GM element type (round to nearest even); from `ub`
    the element types must match.

    ```mlir
    pto_isa.tstore %acc into %ws[%r, %c] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<96x112xf32>
    pto_isa.tstore %t into %dq[%r, %c] atomic_add : !pto_isa.tile<ub, 32x64xf32>, !pto.tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "source", [MemRead]>:$src,
                       Arg<PTO_AnyTensor, "GM destination", [MemWrite]>:$dst,
                       Index:$row, Index:$col,
                       UnitAttr:$atomic_add);
  let assemblyFormat = [{
    $src `into` $dst `[` $row `,` $col `]` (`atomic_add` $atomic_add^)? attr-dict
    `:` qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def PTOISA_MScatterOp : PTOISA_FixedPipeOp<"mscatter", "MTE3"> {
  let summary = "MSCATTER<Coalesce::Row>: ub tile rows -> GM rows an index tile names (MTE3)";
  let description = [{
    pto-isa's row-mode `MSCATTER(table, src, indexes)` (with `atomic_add`:
    `ScatterAtomicOp::Add`): valid row `i` of `src` goes to row
    `row + indices[i]` of the GM window `dst[row:, col:]`, its valid columns
    at `col` on. `indices` is a row-major ub `[1, N]` tile of i32 (the
    pto-isa A2/A3 index tile); `src` a row-major ub tile of `dst`'s element
    type. An index outside the tensor is a fault at the op's location in
    the host emulation (`pto-run`'s rule).

    ```mlir
    pto_isa.mscatter %t into %out[%idx] [%r, %c] atomic_add : !pto_isa.tile<ub, 16x16xf32>, !pto_isa.tile<ub, 1x16xi32>, !pto.tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "source rows", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "row indices", [MemRead]>:$indices,
                       Arg<PTO_AnyTensor, "GM destination", [MemWrite]>:$dst,
                       Index:$row, Index:$col,
                       UnitAttr:$atomic_add);
  let assemblyFormat = [{
    $src `into` $dst `[` $indices `]` `[` $row `,` $col `]` (`atomic_add` $atomic_add^)? attr-dict
    `:` qualified(type($src)) `,` qualified(type($indices)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def PTOISA_TExtractOp : PTOISA_PipeOp<"textract", [AttrSizedOperandSegments]> {
  let summary = "TEXTRACT: a tile window -> an l0a/l0b operand tile (MTE1) or a ub tile (V)";
  let description = [{
    Copies the window of `src` starting at `[index_row, index_col]` with the
    shape of `dst`'s valid region into `dst`. l1 -> l0a/l0b (MTE1) converts
    the fractal layout (a `zn` source into `l0a`, or an `nz` source into
    `l0b`, uses the transposing L1->L0 load; the logical matrix is
    preserved). ub -> ub (V) copies an nd sub-tile, e.g. a view of a tile;
    pto-isa (A2/A3) wants `index_col` on a 32-byte boundary. A ub -> ub copy
    may add a run-time `row_offset` to `index_row` and a run-time
    `col_offset` to `index_col` (pto-isa's TEXTRACT takes its window start
    as run-time values; a view `t[l - 1:l, :]` at a run-time row, or a view
    at a column a shared leaf receives as an argument); the host emulation
    faults on a window past the source or a column off a 32-byte boundary.

    ```mlir
    pto_isa.textract %t[%r] into %row : !pto_isa.tile<ub, 128x8xf32>, !pto_isa.tile<ub, 1x8xf32>
    pto_isa.textract %t cols[%c] into %half : !pto_isa.tile<ub, 8x64xf16>, !pto_isa.tile<ub, 8x32xf16>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "source", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "destination", [MemWrite]>:$dst,
                       DefaultValuedAttr<I64Attr, "0">:$index_row,
                       DefaultValuedAttr<I64Attr, "0">:$index_col,
                       Optional<Index>:$row_offset,
                       Optional<Index>:$col_offset);
  let assemblyFormat = [{
    $src (`[` $row_offset^ `]`)? (`cols` `[` $col_offset^ `]`)? `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::Value":$dst,
                   "int64_t":$indexRow, "int64_t":$indexCol,
                   CArg<"::mlir::Value", "{}">:$rowOffset,
                   CArg<"::mlir::Value", "{}">:$colOffset), [{
      build($_builder, $_state, src, dst,
            $_builder.getI64IntegerAttr(indexRow),
            $_builder.getI64IntegerAttr(indexCol), rowOffset, colOffset);
    }]>
  ];
  let hasVerifier = 1;
}

def PTOISA_TInsertOp : PTOISA_FixedPipeOp<"tinsert", "V"> {
  let summary = "TINSERT: a ub tile -> a window of a ub tile (V)";
  let description = [{
    Copies `src`'s valid region into `dst` starting at
    `[index_row, index_col]`; the rest of `dst` keeps its contents. The
    window must lie within `dst`'s valid region (pto-isa asserts it);
    pto-isa (A2/A3) wants `index_col` on a 32-byte boundary. Used with ub ->
    ub `textract` to run an instruction once per leading index of an N-D
    tile.
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "source", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "destination", [MemRead, MemWrite]>:$dst,
                       DefaultValuedAttr<I64Attr, "0">:$index_row,
                       DefaultValuedAttr<I64Attr, "0">:$index_col);
  let assemblyFormat = [{
    $src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def PTOISA_TMovOp : PTOISA_PipeOp<"tmov"> {
  let summary = "TMOV: tile -> tile on an existing data path";
  let description = [{
    Copies `src` into `dst` (equal capacities). Paths and pipes: l1 -> l0a/l0b
    (MTE1), ub -> ub (V), l0c -> l1 (FIX); l0c -> ub (FIX) only where the
    architecture has that path (DAV_3510, not DAV_2201).
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "source", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "destination", [MemWrite]>:$dst);
  let assemblyFormat = "$src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Cube
//===----------------------------------------------------------------------===//

class PTOISA_MatmulOp<string mnemonic, bit accumulate>
    : PTOISA_FixedPipeOp<mnemonic, "M"> {
  let arguments = (ins Arg<PTOISA_AnyTile, "left operand (l0a)", [MemRead]>:$lhs,
                       Arg<PTOISA_AnyTile, "right operand (l0b)", [MemRead]>:$rhs,
                       !if(accumulate,
                           Arg<PTOISA_AnyTile, "accumulator (l0c)", [MemRead, MemWrite]>,
                           Arg<PTOISA_AnyTile, "accumulator (l0c)", [MemWrite]>):$acc);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $acc attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def PTOISA_TMatmulOp : PTOISA_MatmulOp<"tmatmul", 0> {
  let summary = "TMATMUL: acc = lhs . rhs (M)";
  let description = [{
    `m = lhs.validRows`, `k = lhs.validCols`, `n = rhs.validCols`, each in
    [1, 4095] at run time; FP32 accumulation. A2/A3 (acc, lhs, rhs) dtype
    triples: (f32, bf16, bf16), (f32, f16, f16), (f32, f32, f32), (i32, i8, i8).
  }];
}

def PTOISA_TMatmulAccOp : PTOISA_MatmulOp<"tmatmul_acc", 1> {
  let summary = "TMATMUL_ACC: acc += lhs . rhs (M), K-loop accumulation";
}

//===----------------------------------------------------------------------===//
// Vector (all on the V pipe, all over ub tiles)
//===----------------------------------------------------------------------===//

class PTOISA_VectorOp<string mnemonic, list<Trait> traits = []>
    : PTOISA_FixedPipeOp<mnemonic, "V", traits> {
  let hasVerifier = 1;
}

// The `precision` of TDIV / TDIVS / TEXP / TLOG: pto-isa's algorithm template
// argument (DivAlgorithm / ExpAlgorithm / LogAlgorithm,
// include/pto/common/type.hpp),
// INTRINSIC being its DEFAULT.
defvar PTOISA_PrecisionArg = (ins DefaultValuedAttr<PTO_PrecisionAttr,
                                  "::mlir::pto::PrecisionType::INTRINSIC">:$precision);

class PTOISA_BinaryOp<string mnemonic, string instr, dag extraArgs = (ins)>
    : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst = lhs op rhs, elementwise (V)";
  let description = [{
    Operands and destination are row-major ub tiles with equal element types
    and equal valid extents. DAV_2201 has no bf16 vector arithmetic.
  }];
  let arguments = !con((ins Arg<PTOISA_AnyTile, "", [MemRead]>:$lhs,
                            Arg<PTOISA_AnyTile, "", [MemRead]>:$rhs,
                            Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst), extraArgs);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $dst attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `,` qualified(type($dst))
  }];
}
def PTOISA_TAddOp : PTOISA_BinaryOp<"tadd", "TADD">;
def PTOISA_TSubOp : PTOISA_BinaryOp<"tsub", "TSUB">;
def PTOISA_TMulOp : PTOISA_BinaryOp<"tmul", "TMUL">;
def PTOISA_TDivOp : PTOISA_BinaryOp<"tdiv", "TDIV", PTOISA_PrecisionArg>;
def PTOISA_TMaxOp : PTOISA_BinaryOp<"tmax", "TMAX">;
def PTOISA_TMinOp : PTOISA_BinaryOp<"tmin", "TMIN">;

class PTOISA_ScalarOp<string mnemonic, string instr, dag extraArgs = (ins)>
    : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst = src op scalar, elementwise (V)";
  let arguments = !con((ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                            AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$scalar,
                            Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst), extraArgs);
  let assemblyFormat = [{
    $src `,` $scalar `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($scalar)) `,` qualified(type($dst))
  }];
}
def PTOISA_TAddSOp : PTOISA_ScalarOp<"tadds", "TADDS">;
def PTOISA_TSubSOp : PTOISA_ScalarOp<"tsubs", "TSUBS">;
def PTOISA_TMulSOp : PTOISA_ScalarOp<"tmuls", "TMULS">;
def PTOISA_TDivSOp : PTOISA_ScalarOp<"tdivs", "TDIVS", PTOISA_PrecisionArg>;
def PTOISA_TMaxSOp : PTOISA_ScalarOp<"tmaxs", "TMAXS">;
def PTOISA_TMinSOp : PTOISA_ScalarOp<"tmins", "TMINS">;

class PTOISA_UnaryOp<string mnemonic, string instr, dag extraArgs = (ins)>
    : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst = op(src), elementwise (V)";
  let arguments = !con((ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                            Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst), extraArgs);
  let assemblyFormat = "$src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
}
def PTOISA_TExpOp : PTOISA_UnaryOp<"texp", "TEXP", PTOISA_PrecisionArg>;
def PTOISA_TAbsOp : PTOISA_UnaryOp<"tabs", "TABS">;
def PTOISA_TSqrtOp : PTOISA_UnaryOp<"tsqrt", "TSQRT">;
def PTOISA_TRsqrtOp : PTOISA_UnaryOp<"trsqrt", "TRSQRT">;
def PTOISA_TRecipOp : PTOISA_UnaryOp<"trecip", "TRECIP">;
def PTOISA_TLogOp : PTOISA_UnaryOp<"tlog", "TLOG", PTOISA_PrecisionArg>;
def PTOISA_TNegOp : PTOISA_UnaryOp<"tneg", "TNEG">;
def PTOISA_TRowExpandOp : PTOISA_UnaryOp<"trowexpand", "TROWEXPAND"> {
  let summary = "TROWEXPAND: dst[i, j] = src[i, 0] (V)";
}

def PTOISA_TCvtOp : PTOISA_VectorOp<"tcvt"> {
  let summary = "TCVT: elementwise conversion with a rounding mode (V)";
  let description = [{
    `satmode` is pto-isa's `SaturationMode`: `ON` clamps an out-of-range
    value to the destination's range, `OFF` wraps it to the destination's
    width (the pto dialect's `pto.cast` decides which applies).
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst,
                       PTO_CastModeAttr:$mode,
                       DefaultValuedAttr<PTO_SaturationModeAttr,
                           "::mlir::pto::SaturationMode::ON">:$satmode);
  let assemblyFormat = [{
    $src `into` $dst `mode` $mode attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
}

def PTOISA_TExpandSOp : PTOISA_VectorOp<"texpands"> {
  let summary = "TEXPANDS: fills the valid region of dst with a scalar (V)";
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$scalar,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = "$scalar `into` $dst attr-dict `:` qualified(type($scalar)) `,` qualified(type($dst))";
}

class PTOISA_RowReduceOp<string mnemonic, string instr> : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst[i, 0] = reduce_j src[i, j] over the valid columns (V)";
  let description = [{
    `tmp` is scratch shaped like `src` (the A2/A3 float tree reduction).
    `dst` is a row-major tile (one 32-byte block per row) or a column-major
    tile with one column; equal element types; equal valid rows.
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "scratch", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `,` $tmp `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}
def PTOISA_TRowSumOp : PTOISA_RowReduceOp<"trowsum", "TROWSUM">;
def PTOISA_TRowMaxOp : PTOISA_RowReduceOp<"trowmax", "TROWMAX">;

def PTOISA_TTransOp : PTOISA_VectorOp<"ttrans"> {
  let summary = "TTRANS: dst[j, i] = src[i, j] over src's valid region (V)";
  let description = [{
    Transposes the valid region of a row-major ub tile into a row-major ub
    tile whose valid extents are the source's exchanged. `tmp` is the
    scratch the A2/A3 implementation transposes into before copying to
    `dst` (pto-isa `TTRANS(dst, src, tmp)`), shaped like `dst`. Element
    types are equal and 1, 2 or 4 bytes wide.

    ```mlir
    pto_isa.ttrans %src, %tmp into %dst : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 64x16xf32>, !pto_isa.tile<ub, 64x16xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "scratch", [MemRead, MemWrite]>:$tmp,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `,` $tmp `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($tmp)) `,` qualified(type($dst))
  }];
}

def PTOISA_TReshapeOp : PTOISA_VectorOp<"treshape"> {
  let summary = "TRESHAPE: dst names src's bytes as another element type";
  let description = [{
    pto-isa's `TRESHAPE(dst, src)` on A2/A3 points `dst` at `src`'s bytes
    (`TASSIGN(dst, src.data())`, include/pto/npu/a2a3/TReshape.hpp): no data
    moves, and any element types of equal total bytes qualify. Both tiles
    are row-major ub tiles with the same rows and the same bytes per row.
    `pto-isa-plan-memory` gives `dst` the offset of `src` and one live range
    for both, so the bytes stay put while either is used; the sync model
    then sees the two as the same bytes.

    ```mlir
    pto_isa.treshape %src into %dst : !pto_isa.tile<ub, 4x8xf32>, !pto_isa.tile<ub, 4x32xi8>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
}

def PTOISA_TGatherMaskOp : PTOISA_VectorOp<"tgather_mask"> {
  let summary = "TGATHER<..., MaskPattern>: keeps the columns a fixed bit pattern selects (V)";
  let description = [{
    pto-isa's mask-pattern form of `TGATHER(dst, src)` with
    `MaskPattern::P0101` (pattern 1, columns `0::2`), `P1010` (2, `1::2`),
    `P0001` .. `P1000` (3 to 6, `0::4` .. `3::4`) or `P1111` (7, all), over
    the source's valid region (`vreducev2` on A2/A3). The selected elements
    of all valid rows are written packed, one after another, so the
    destination's valid columns must equal its capacity (pto-isa asserts
    it; the host emulation reports it). Row-major ub tiles of one 2- or
    4-byte element type.

    ```mlir
    pto_isa.tgather_mask %src into %dst pattern = 1 : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst,
                       I64Attr:$pattern);
  let assemblyFormat = [{
    $src `into` $dst `pattern` `=` $pattern attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
}

class PTOISA_RowExpandBinaryOp<string mnemonic, string instr>
    : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst[i, j] = full[i, j] op rowval[i] (V)";
  let description = [{
    `rowval` is the expanded operand: a column-major tile with one valid
    column (mode 1) or a row-major tile with one 32-byte block per row whose
    every element holds the row's value (mode 2, what `trowexpand` of a
    column makes).
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$full,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$rowval,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $full `,` $rowval `into` $dst attr-dict `:` qualified(type($full)) `,` qualified(type($rowval)) `,` qualified(type($dst))
  }];
}
def PTOISA_TRowExpandSubOp : PTOISA_RowExpandBinaryOp<"trowexpand_sub", "TROWEXPANDSUB">;
def PTOISA_TRowExpandMulOp : PTOISA_RowExpandBinaryOp<"trowexpand_mul", "TROWEXPANDMUL">;
def PTOISA_TRowExpandDivOp : PTOISA_RowExpandBinaryOp<"trowexpand_div", "TROWEXPANDDIV">;

// Column broadcasts and reductions: the [1, C] counterparts of the per-row
// forms above (pto-isa TCOLEXPAND*, TCOLSUM, TCOLMAX; A2/A3 implementations
// in include/pto/npu/a2a3/TColExpand*.hpp, TColSum.hpp, TColMax.hpp).

def PTOISA_TColExpandOp : PTOISA_VectorOp<"tcolexpand"> {
  let summary = "TCOLEXPAND: dst[i, j] = src[0, j] (V)";
  let description = [{
    Copies row 0 of `src` (a row-major ub tile) into every valid row of
    `dst`; the valid columns of both are equal.

    ```mlir
    pto_isa.tcolexpand %g into %full : !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = "$src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
}

class PTOISA_ColExpandBinaryOp<string mnemonic, string instr>
    : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst[i, j] = full[i, j] op colval[0, j] (V)";
  let description = [{
    `colval` is a row-major ub tile whose row 0 holds one value per column
    (a `[1, C]` operand broadcast over the rows of `full`); `full` and `dst`
    have equal valid extents, `colval` the same valid columns.

    ```mlir
    pto_isa.tcolexpand_mul %x, %g into %y : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$full,
                       Arg<PTOISA_AnyTile, "", [MemRead]>:$colval,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $full `,` $colval `into` $dst attr-dict `:` qualified(type($full)) `,` qualified(type($colval)) `,` qualified(type($dst))
  }];
}
def PTOISA_TColExpandAddOp : PTOISA_ColExpandBinaryOp<"tcolexpand_add", "TCOLEXPANDADD">;
def PTOISA_TColExpandSubOp : PTOISA_ColExpandBinaryOp<"tcolexpand_sub", "TCOLEXPANDSUB">;
def PTOISA_TColExpandMulOp : PTOISA_ColExpandBinaryOp<"tcolexpand_mul", "TCOLEXPANDMUL">;
def PTOISA_TColExpandDivOp : PTOISA_ColExpandBinaryOp<"tcolexpand_div", "TCOLEXPANDDIV">;
def PTOISA_TColExpandMaxOp : PTOISA_ColExpandBinaryOp<"tcolexpand_max", "TCOLEXPANDMAX">;
def PTOISA_TColExpandMinOp : PTOISA_ColExpandBinaryOp<"tcolexpand_min", "TCOLEXPANDMIN">;

class PTOISA_ColReduceOp<string mnemonic, string instr> : PTOISA_VectorOp<mnemonic> {
  let summary = instr # ": dst[0, j] = reduce_i src[i, j] over the valid rows (V)";
  let description = [{
    Reduces each valid column of `src` into row 0 of `dst` (row-major ub
    tiles of one element type and equal column capacity; equal valid
    columns). The two-operand pto-isa form: no scratch tile.

    ```mlir
    pto_isa.tcolsum %x into %s : !pto_isa.tile<ub, 64x16xf32>, !pto_isa.tile<ub, 1x16xf32>
    ```
  }];
  let arguments = (ins Arg<PTOISA_AnyTile, "", [MemRead]>:$src,
                       Arg<PTOISA_AnyTile, "", [MemWrite]>:$dst);
  let assemblyFormat = "$src `into` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
}
def PTOISA_TColSumOp : PTOISA_ColReduceOp<"tcolsum", "TCOLSUM">;
def PTOISA_TColMaxOp : PTOISA_ColReduceOp<"tcolmax", "TCOLMAX">;

include "pto/Dialect/PTOISA/IR/PTOISAMaskOps.td"

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

class PTOISA_FlagOp<string mnemonic> : PTOISA_Op<mnemonic> {
  let arguments = (ins PTOISA_Pipe:$src, PTOISA_Pipe:$dst,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$event);
  let assemblyFormat = "$src `->` $dst `,` $event attr-dict";
  let hasVerifier = 1;
}

def PTOISA_SetFlagOp : PTOISA_FlagOp<"set_flag"> {
  let summary = "set_flag(src, dst, event): src pipe signals dst pipe";
  let description = [{
    Signals the flag identified by the triple (src pipe, dst pipe, event id
    0..7) once every instruction issued on `src` so far has completed. Each
    set is consumed by exactly one `wait_flag` of the same triple; a triple
    must not be set again while a set is pending.

    ```mlir
    pto_isa.set_flag MTE2 -> V, 0
    ```
  }];
}

def PTOISA_WaitFlagOp : PTOISA_FlagOp<"wait_flag"> {
  let summary = "wait_flag(src, dst, event): dst pipe waits for the flag";
}

def PTOISA_PipeBarrierOp : PTOISA_Op<"pipe_barrier"> {
  let summary = "pipe_barrier(pipe): orders the instructions of one pipe";
  let description = [{
    Every instruction issued on `pipe` after the barrier starts after those
    issued before it completed (`ALL`: every pipe). Needed between dependent
    instructions of the vector pipe.

    ```mlir
    pto_isa.pipe_barrier V
    ```
  }];
  let arguments = (ins PTOISA_Pipe:$pipe);
  let assemblyFormat = "$pipe attr-dict";
}

//===----------------------------------------------------------------------===//
// Intra-block synchronisation (MIX leaves, DAV_3510)
//===----------------------------------------------------------------------===//

def PTOISA_SetIntraBlockOp : PTOISA_Op<"set_intra_block"> {
  let summary = "set_intra_block(pipe, id): one core of a MIX block signals another";
  let description = [{
    In the AIC part of a MIX leaf (`pto.leaf = #pto.core<mix>`, DAV_3510):
    signals flag `id` of AIV 0 (ids 0..15; AIV 1's are 16..31) once every
    instruction issued on `pipe` so far has completed. In the AIV part (a
    vector leaf with `pto.mix_aic`): signals the AIC's flag `id` (0..15;
    the AIC sees AIV 1's as 16..31). Each set is consumed by one
    `wait_intra_block` of the other core (pto-isa A5 `set_intra_block`,
    used by `include/pto/npu/a5/TSync.hpp` for its cross-core events and by
    `TPush.hpp` / `TPop.hpp` for their ring FIFOs). `pto-isa-split-mix`
    puts one after each move into a ring slot (AIC, FIX: the slot is
    filled) and one after the AIV's last read of a slot that is filled
    again later (on that read's pipe: the slot is free).

    ```mlir
    pto_isa.set_intra_block FIX, 0
    ```
  }];
  let arguments = (ins PTOISA_Pipe:$pipe,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<31>]>:$id);
  let assemblyFormat = "$pipe `,` $id attr-dict";
  let hasVerifier = 1;
}

def PTOISA_WaitIntraBlockOp : PTOISA_Op<"wait_intra_block"> {
  let summary = "wait_intra_block(pipe, id): one core of a MIX block waits for another";
  let description = [{
    In the vector part of a MIX leaf (a vector leaf with `pto.mix_aic`):
    holds `pipe` (`S`: the scalar unit, so every later instruction) until
    the AIC's `set_intra_block` of flag `id` (0..15) has fired, consuming
    it. In the AIC part: holds `pipe` (FIX before a move into a ring slot)
    until AIV 0's set of flag `id` (0..15) or AIV 1's set of flag
    `id - 16` (16..31) has fired.

    ```mlir
    pto_isa.wait_intra_block S, 0
    ```
  }];
  let arguments = (ins PTOISA_Pipe:$pipe,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<31>]>:$id);
  let assemblyFormat = "$pipe `,` $id attr-dict";
  let hasVerifier = 1;
}

include "pto/Dialect/PTOISA/IR/PTOISASortOps.td"

#endif // PTOISA_OPS_TD
