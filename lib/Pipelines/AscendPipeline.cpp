//===- AscendPipeline.cpp - program level to placed, synced pto_isa -------===//

#include "pto/Pipelines/AscendPipeline.h"

#include "mlir/Pass/PassRegistry.h"
#include "pto/Conversion/Passes.h"
#include "pto/Dialect/PTOISA/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pto;

void mlir::pto::buildAscendPipeline(OpPassManager &pm,
                                    const AscendPipelineOptions &options) {
  TileGraphPipelineOptions tileGraph;
  options.copySwitchesTo(tileGraph);
  // pto-lower-to-isa lowers pure cube and vector leaves only: a scope that
  // mixes them on DAV_3510 runs as cube and vector tasks through GM.
  tileGraph.splitMix = true;
  buildTileGraphPipeline(pm, tileGraph);
  pm.addPass(createLowerToISAPass());
  if (options.rollPieces)
    pm.addPass(ptoisa::createRollPiecesPass());
  pm.addPass(ptoisa::createPlanMemoryPass());
  pm.addPass(ptoisa::createSplitMixPass());
  pm.addPass(ptoisa::createInsertSyncPass());
}

void mlir::pto::registerAscendPipeline() {
  PassPipelineRegistration<AscendPipelineOptions>(
      "pto-ascend-pipeline",
      "Program level to Ascend kernels: the tile-graph pipeline, lowering of "
      "the leaves to pto_isa, rolling of repeated pieces into loops, memory "
      "planning and sync insertion",
      buildAscendPipeline);
}
