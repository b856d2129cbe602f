//===- PTOISATypes.td - pto_isa types ----------------------*- tablegen -*-===//
#ifndef PTOISA_TYPES_TD
#define PTOISA_TYPES_TD

include "pto/Dialect/PTOISA/IR/PTOISADialect.td"

def PTOISA_TileType : TypeDef<PTOISA_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "a tile buffer in one on-chip memory space";
  let description = [{
    `!pto_isa.tile<ub, 32x128xf32>`, `!pto_isa.tile<l1, 64x64xbf16, zn>`:
    the static capacity (`Rows x Cols`, pto-isa's `Tile` template extents),
    the element type, the space and the layout (printed only when it is not
    the space's default: `nd` for `ub`, `nz` for `l1`). The verifier enforces
    pto-isa's static tile constraints, so every type the IR holds is a type
    the emitted C++ can instantiate: row-major unboxed tiles need
    `Cols * sizeof(T) % 32 == 0`, column-major ones `Rows * sizeof(T) % 32 == 0`,
    fractal (boxed) tiles whole fractals in both dimensions.
  }];
  let parameters = (ins "::mlir::ptoisa::MemorySpace":$space,
                        "int64_t":$rows, "int64_t":$cols,
                        "::mlir::Type":$elementType,
                        "::mlir::ptoisa::TileLayout":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static TileLayout getDefaultLayout(MemorySpace space);
    int64_t getElementByteSize() const;
    /// Bytes of the static capacity.
    int64_t getByteSize() const { return getRows() * getCols() * getElementByteSize(); }
  }];
}

def PTOISA_AnyTile : Type<CPred<"::llvm::isa<::mlir::ptoisa::TileType>($_self)">,
                          "pto_isa tile", "::mlir::ptoisa::TileType">;

#endif // PTOISA_TYPES_TD
