//===- InsertSync.cpp -------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

namespace mlir::ptoisa {
#define GEN_PASS_DEF_INSERTSYNCPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;

namespace {
struct InsertSyncPass : public ptoisa::impl::InsertSyncPassBase<InsertSyncPass> {
  // TODO(InsertSync): being written.
  void runOnOperation() override {}
};
} // namespace
