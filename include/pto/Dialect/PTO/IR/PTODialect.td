//===- PTODialect.td - the pto dialect ---------------------*- tablegen -*-===//
#ifndef PTO_DIALECT_TD
#define PTO_DIALECT_TD

include "mlir/IR/OpBase.td"

def PTO_Dialect : Dialect {
  let name = "pto";
  let summary = "PyPTO-style tile programs for Ascend NPUs (program level)";
  let description = [{
    The `pto` dialect is what a front end writes: value-semantic tiles
    (`!pto.tile<2048x128xbf16>`) computed from views of global-memory tensors
    (`!pto.tensor<?x1024xbf16>`), named dynamic loops, subgraph scopes and
    atomic accumulation into global memory. PyPTO's ambient `set_*` state
    (cube and vector tile shapes, pass options, operation options) becomes
    typed attributes on the ops it governs or on the enclosing `pto.kernel`.

    Valid extents (PyPTO's `valid_shape`) are not part of the tile type: the
    `ValidShapeInferenceOpInterface` reifies them from the producers of a
    value, the way `ReifyRankedShapedTypeOpInterface` reifies dynamic sizes.
  }];
  let cppNamespace = "::mlir::pto";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class PTO_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTO_Dialect, mnemonic, traits>;

#endif // PTO_DIALECT_TD
