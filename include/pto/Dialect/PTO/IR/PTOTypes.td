//===- PTOTypes.td - pto types -----------------------------*- tablegen -*-===//
#ifndef PTO_TYPES_TD
#define PTO_TYPES_TD

include "pto/Dialect/PTO/IR/PTODialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def PTO_ElementType : AnyTypeOf<[BF16, F16, F32, I1, I8, I16, I32, I64,
                                 F8E4M3FN, F8E5M2],
                                "pto element type (bf16, f16, f32, i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2)">;

class PTO_ShapedTypeDef<string name, string typeMnemonic>
    : TypeDef<PTO_Dialect, name, [ShapedTypeInterface]> {
  let mnemonic = typeMnemonic;
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using ::mlir::ShapedType::Trait<}] # name # [{Type>::getRank;
    using ::mlir::ShapedType::Trait<}] # name # [{Type>::getNumElements;
    bool hasRank() const { return true; }
    }] # name # [{Type cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;
    /// Size in bytes of one element.
    int64_t getElementByteSize() const;
  }];
}

def PTO_TensorType : PTO_ShapedTypeDef<"GMTensor", "tensor"> {
  let summary = "a tensor in global memory (GM), static or dynamic dims";
  let description = [{
    A kernel argument or a reshaped alias of one: `!pto.tensor<?x8x64xbf16>`.
    `?` marks a dimension only known at run time (PyPTO's `DYN`).
  }];
}

def PTO_TileType : PTO_ShapedTypeDef<"Tile", "tile"> {
  let summary = "a value-semantic tile with a static shape";
  let description = [{
    `!pto.tile<2048x128xbf16>`: the static window of a view or the result of a
    compute op. Every dimension is static; how much of it holds real data (the
    valid shape) is reified through `ValidShapeInferenceOpInterface`.
  }];
  let extraClassDeclaration = [{
    using ::mlir::ShapedType::Trait<TileType>::getRank;
    using ::mlir::ShapedType::Trait<TileType>::getNumElements;
    bool hasRank() const { return true; }
    TileType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                       ::mlir::Type elementType) const;
    int64_t getElementByteSize() const;
    /// Bytes of the static tile.
    int64_t getByteSize() const { return getNumElements() * getElementByteSize(); }
  }];
}

def PTO_TokenType : TypeDef<PTO_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "completion of a launched task (an execute-graph edge)";
}

def PTO_AnyTile : Type<CPred<"::llvm::isa<::mlir::pto::TileType>($_self)">,
                       "pto tile", "::mlir::pto::TileType">;
def PTO_AnyTensor : Type<CPred<"::llvm::isa<::mlir::pto::GMTensorType>($_self)">,
                         "pto GM tensor", "::mlir::pto::GMTensorType">;
def PTO_TileOrTensor : AnyTypeOf<[PTO_AnyTile, PTO_AnyTensor]>;
def PTO_TileOrScalar : AnyTypeOf<[PTO_AnyTile, AnyFloat, AnySignlessInteger]>;

#endif // PTO_TYPES_TD
