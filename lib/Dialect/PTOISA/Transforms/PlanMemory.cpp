//===- PlanMemory.cpp -------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

namespace mlir::ptoisa {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;

namespace {
struct PlanMemoryPass : public ptoisa::impl::PlanMemoryPassBase<PlanMemoryPass> {
  // TODO(PlanMemory): being written.
  void runOnOperation() override {}
};
} // namespace
