//===- Pipelines.cpp - the registered pass pipelines ----------------------===//

#include "pto/Dialect/PTO/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::pto;

void mlir::pto::buildTileGraphUnitPipeline(
    OpPassManager &unit, const TileGraphPipelineOptions &options) {
  // The passes up to pto-mix-exchange rewrite inside one kernel: nested on
  // pto.kernel, the verifier after each reads that kernel, not its unit.
  OpPassManager &kernel = unit.nest<KernelOp>();
  kernel.addPass(createLegalizePass());
  kernel.addPass(createFlattenScopesPass());
  if (!options.unrollCarried.empty()) {
    UnrollCarriedLoopsPassOptions unroll;
    unroll.factors.assign(options.unrollCarried.begin(),
                          options.unrollCarried.end());
    kernel.addPass(createUnrollCarriedLoopsPass(unroll));
  }
  if (options.hoist)
    kernel.addPass(createHoistInvariantsPass());
  kernel.addPass(createExpandTilesPass());
  PartitionPassOptions partition;
  partition.splitMix = options.splitMix;
  partition.sinkViews = options.sinkViews;
  kernel.addPass(createPartitionPass(partition));
  if (options.nbuffer)
    kernel.addPass(createNBufferMergePass());
  if (options.l1Reuse) {
    L1ReusePassOptions l1Reuse;
    l1Reuse.stationary = options.cubeStationary;
    l1Reuse.mix = options.mixExchange;
    l1Reuse.dynamicTripCount = options.dynamicTripCount;
    kernel.addPass(createL1ReusePass(l1Reuse));
  }
  // After the merges, which concatenate bodies: each vector task in an order
  // whose live pieces fit UB (docs/TileGraph.md).
  if (options.schedulePieces)
    kernel.addPass(createSchedulePiecesPass());
  // Kernel-local too: nested, it neither walks the whole module for its
  // kernels nor has the whole module verified after it.
  if (options.mixExchange)
    kernel.addPass(createMixExchangePass());
  if (options.outline) {
    unit.addPass(createOutlinePass());
    unit.addPass(createPlanStitchPass());
    unit.addPass(createMergeLeafArgumentsPass());
  }
  // Expansion, partitioning and outlining each materialise the constants,
  // pto.dim and views they need where they need them: CSE uniques them once
  // at the end, and merges identical GM views of a leaf with no store between
  // them (pto.view only reads GM; pto-merge-leaf-arguments made their offsets
  // one value), so a leaf loads each GM window once. Not the canonicalizer:
  // it rewrites scf.if over tiles into arith.select, which neither pto-run
  // nor the ISA lowering takes. CSE works within each function and kernel
  // (isolated from above): nested, each is verified on its own, not the
  // module after one sweep over all of them.
  unit.nest<func::FuncOp>().addPass(createCSEPass());
  unit.nest<KernelOp>().addPass(createCSEPass());
}

void mlir::pto::buildTileGraphPipeline(
    OpPassManager &pm, const TileGraphPipelineOptions &options) {
  // Each kernel goes through every pass, the module-level ones included,
  // while its IR is in cache: in a unit of its own, one after the other (in
  // parallel when threading is on), instead of each pass sweeping all
  // kernels (docs/CompileTime.md, "kernel-units").
  pm.addPass(createSplitKernelUnitsPass());
  buildTileGraphUnitPipeline(pm.nest<ModuleOp>(), options);
  pm.addPass(createJoinKernelUnitsPass());
}

void mlir::pto::registerTileGraphPipeline() {
  PassPipelineRegistration<TileGraphPipelineOptions>(
      "pto-tile-graph-pipeline",
      "Program level to outlined, stitched tile graph: legalize, flatten "
      "scopes, hoist "
      "invariants, expand tiles, partition into tasks, n-buffer merge, L1 "
      "reuse, schedule pieces, outline, plan stitching, merge leaf arguments, "
      "CSE",
      buildTileGraphPipeline);
}
