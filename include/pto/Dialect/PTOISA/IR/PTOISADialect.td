//===- PTOISADialect.td - the pto_isa dialect --------------*- tablegen -*-===//
#ifndef PTOISA_DIALECT_TD
#define PTOISA_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def PTOISA_Dialect : Dialect {
  let name = "pto_isa";
  let summary = "pto-isa instructions over placed on-chip tiles (ISA level)";
  let description = [{
    One op per pto-isa instruction a kernel needs, over tiles that live in an
    explicit on-chip memory space of one core: `l1` (Mat), `l0a` (Left),
    `l0b` (Right), `l0c` (Acc) on a cube core, `ub` (Vec) on a vector core.
    Global memory stays `!pto.tensor`. Ops are in destination-passing style:
    an instruction reads its source tiles and writes its destination tile,
    so tiles behave like buffers and memory planning and sync insertion can
    reason about them the way the hardware does.

    A tile is created by `pto_isa.alloc_tile`, which fixes its run-time valid
    extents (the tile's `RowValid`/`ColValid`) and, after memory planning, its
    byte offset in the space (`TASSIGN`). Every instruction computes over the
    valid region of its destination; an instruction whose destination valid
    region is empty does nothing (the emitted C++ guards it).

    Each instruction runs on one pipe (`PipeOpInterface`); ordering between
    pipes is explicit (`pto_isa.set_flag`/`wait_flag`), and dependent
    instructions on the vector pipe are separated by `pto_isa.pipe_barrier`.
  }];
  let cppNamespace = "::mlir::ptoisa";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::pto::PTODialect"];
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class PTOISA_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTOISA_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def PTOISA_MemorySpace : I32EnumAttr<"MemorySpace",
    "on-chip buffer of one core (pto-isa TileType)", [
    I32EnumAttrCase<"ub", 0>,    // Vec: unified buffer of a vector core
    I32EnumAttrCase<"l1", 1>,    // Mat: cube core L1
    I32EnumAttrCase<"l0a", 2>,   // Left: cube left operand
    I32EnumAttrCase<"l0b", 3>,   // Right: cube right operand
    I32EnumAttrCase<"l0c", 4>    // Acc: cube accumulator
  ]> {
  let cppNamespace = "::mlir::ptoisa";
  let genSpecializedAttr = 0;
}

// Values match pto-isa's pipe_t numbering (docs/AscendTarget.md#enumerations).
def PTOISA_Pipe : I32EnumAttr<"Pipe", "hardware pipe of an AI core", [
    I32EnumAttrCase<"S", 0>,
    I32EnumAttrCase<"V", 1>,
    I32EnumAttrCase<"MTE1", 2>,
    I32EnumAttrCase<"MTE2", 3>,
    I32EnumAttrCase<"MTE3", 4>,
    I32EnumAttrCase<"M", 5>,
    I32EnumAttrCase<"ALL", 6>,
    I32EnumAttrCase<"FIX", 7>
  ]> {
  let cppNamespace = "::mlir::ptoisa";
}

// The element order of a tile in its buffer. UB tiles are `nd` (row-major)
// or `dn` (column-major); L1 tiles are `nz` (the cube operand layout: outer
// column-major, inner row-major 512-byte fractals) or `zn` (outer row-major,
// inner column-major: holds the transpose of a DN load). L0 tiles have the
// fixed layouts of TileLeft/TileRight/TileAcc and always print as default.
def PTOISA_TileLayout : I32EnumAttr<"TileLayout", "tile layout", [
    I32EnumAttrCase<"nd", 0>,
    I32EnumAttrCase<"dn", 1>,
    I32EnumAttrCase<"nz", 2>,
    I32EnumAttrCase<"zn", 3>
  ]> {
  let cppNamespace = "::mlir::ptoisa";
  let genSpecializedAttr = 0;
}

#endif // PTOISA_DIALECT_TD
