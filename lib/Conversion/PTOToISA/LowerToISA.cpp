//===- LowerToISA.cpp - tile-graph leaves to pto_isa ----------------------===//

#include "pto/Conversion/Passes.h"

namespace mlir::pto {
#define GEN_PASS_DEF_LOWERTOISAPASS
#include "pto/Conversion/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {
struct LowerToISAPass : public pto::impl::LowerToISAPassBase<LowerToISAPass> {
  // TODO(lower-to-isa): being written.
  void runOnOperation() override {}
};
} // namespace
