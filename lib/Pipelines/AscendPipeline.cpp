//===- AscendPipeline.cpp - program level to placed, synced pto_isa -------===//

#include "pto/Pipelines/AscendPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "pto/Conversion/Passes.h"
#include "pto/Dialect/PTOISA/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pto;

void mlir::pto::buildAscendPipeline(OpPassManager &pm,
                                    const AscendPipelineOptions &options) {
  // One kernel at a time through the tile graph and the ISA passes alike
  // (docs/CompileTime.md, "kernel-units").
  pm.addPass(createSplitKernelUnitsPass());
  OpPassManager &unit = pm.nest<ModuleOp>();
  TileGraphPipelineOptions tileGraph;
  options.copySwitchesTo(tileGraph);
  // pto-lower-to-isa lowers pure cube and vector leaves only: a scope that
  // mixes them on DAV_3510 runs as cube and vector tasks through GM.
  tileGraph.splitMix = true;
  buildTileGraphUnitPipeline(unit, tileGraph);
  // Each leaf is lowered, rolled, planned and synchronised in turn, verifier
  // included, while its IR is in cache: those passes run nested on
  // func.func, and the verifier after each reads one function, not the
  // unit. The unit-level parts are small and leave the other leaves' bodies
  // unread: pto-lower-to-isa{defer-leaves} reads the launches in the roots
  // and kernels (and lowers MIX leaves, whose lowering needs them);
  // pto-isa-split-mix creates functions, so MIX leaves are synchronised
  // after it (docs/TileGraph.md, "Cost in the number of kernels").
  LowerToISAPassOptions lowerToISA;
  lowerToISA.deferLeaves = true;
  unit.addPass(createLowerToISAPass(lowerToISA));
  OpPassManager &leaf = unit.nest<func::FuncOp>();
  leaf.addPass(createLowerLeafToISAPass());
  if (options.rollPieces)
    leaf.addPass(ptoisa::createRollPiecesPass());
  leaf.addPass(ptoisa::createPlanMemoryPass());
  ptoisa::InsertSyncPassOptions exceptMix;
  exceptMix.mixLeaves = "skip";
  leaf.addPass(ptoisa::createInsertSyncPass(exceptMix));
  unit.addPass(ptoisa::createSplitMixPass());
  ptoisa::InsertSyncPassOptions mixParts;
  mixParts.mixLeaves = "only";
  unit.addPass(ptoisa::createInsertSyncPass(mixParts));
  pm.addPass(createJoinKernelUnitsPass());
}

void mlir::pto::registerAscendPipeline() {
  PassPipelineRegistration<AscendPipelineOptions>(
      "pto-ascend-pipeline",
      "Program level to Ascend kernels: the tile-graph pipeline, lowering of "
      "the leaves to pto_isa, rolling of repeated pieces into loops, memory "
      "planning and sync insertion",
      buildAscendPipeline);
}
