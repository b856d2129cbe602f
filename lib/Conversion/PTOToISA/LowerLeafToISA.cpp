//===- LowerLeafToISA.cpp - one tile-graph leaf to pto_isa ----------------===//
//
// The function part of pto-lower-to-isa: lowers one vector or cube leaf with
// the launch constants pto-lower-to-isa{defer-leaves} recorded on it, so a
// pipeline nested on func.func takes each leaf through the lowering and the
// passes after it (roll, plan, sync) while its IR is in cache
// (docs/TileGraph.md, "Cost in the number of kernels").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"
#include "pto/Conversion/Passes.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LOWERLEAFTOISAPASS
#include "pto/Conversion/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace {
struct LowerLeafToISAPass
    : public pto::impl::LowerLeafToISAPassBase<LowerLeafToISAPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto kind = func->getAttrOfType<CoreKindAttr>("pto.leaf");
    Attribute recorded = func->removeAttr(kLaunchConstantsAttrName);
    auto constants = dyn_cast_or_null<ArrayAttr>(recorded);
    if (recorded && (!kind || !constants || kind.getValue() == CoreKind::mix)) {
      func.emitOpError() << "has a `" << kLaunchConstantsAttrName
                         << "` that pto-lower-to-isa{defer-leaves} did not "
                            "write: it records an array attribute on vector "
                            "and cube leaves (`pto.leaf`) only";
      return signalPassFailure();
    }
    if (!constants) {
      // Not a leaf, a lowered leaf, or a MIX leaf (lowered by
      // pto-lower-to-isa, which has its launches): nothing to do.
      if (kind && kind.getValue() != CoreKind::mix && holdsTiles(func)) {
        func.emitOpError()
            << "is a leaf holding pto tiles without `"
            << kLaunchConstantsAttrName
            << "`: run pto-lower-to-isa{defer-leaves} on the module first "
               "(it records the constants the launches pass), or "
               "pto-lower-to-isa to lower every leaf";
        return signalPassFailure();
      }
      return markAllAnalysesPreserved();
    }
    if (holdsTiles(func))
      useConstantArguments(func, constants.getValue());
    LeafLowering lowering(func, kind.getValue());
    if (failed(lowering.run()))
      signalPassFailure();
  }
};
} // namespace
