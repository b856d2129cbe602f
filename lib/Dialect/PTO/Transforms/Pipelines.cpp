//===- Pipelines.cpp - the registered pass pipelines ----------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::pto;

void mlir::pto::buildTileGraphPipeline(
    OpPassManager &pm, const TileGraphPipelineOptions &options) {
  pm.addPass(createLegalizePass());
  pm.addPass(createFlattenScopesPass());
  if (options.hoist)
    pm.addPass(createHoistInvariantsPass());
  pm.addPass(createExpandTilesPass());
  PartitionPassOptions partition;
  partition.splitMix = options.splitMix;
  pm.addPass(createPartitionPass(partition));
  if (options.nbuffer)
    pm.addPass(createNBufferMergePass());
  if (options.l1Reuse)
    pm.addPass(createL1ReusePass());
  if (options.outline) {
    pm.addPass(createOutlinePass());
    pm.addPass(createPlanStitchPass());
  }
}

void mlir::pto::registerTileGraphPipeline() {
  PassPipelineRegistration<TileGraphPipelineOptions>(
      "pto-tile-graph-pipeline",
      "Program level to outlined, stitched tile graph: legalize, flatten scopes, hoist "
      "invariants, expand tiles, partition into tasks, n-buffer merge, L1 "
      "reuse, outline, plan stitching",
      buildTileGraphPipeline);
}
