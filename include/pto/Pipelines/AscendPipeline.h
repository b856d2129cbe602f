//===- AscendPipeline.h - program level to placed, synced pto_isa -*- C++
//-*-===//
#ifndef PTO_PIPELINES_ASCENDPIPELINE_H
#define PTO_PIPELINES_ASCENDPIPELINE_H

#include "pto/Dialect/PTO/Transforms/Passes.h"

namespace mlir::pto {

/// Options of `--pto-ascend-pipeline`: those of the tile-graph pipeline
/// (outlining is always on: leaves are what gets lowered).
struct AscendPipelineOptions
    : public TileGraphPassSwitches<AscendPipelineOptions> {
  Option<bool> rollPieces{
      *this, "roll-pieces",
      llvm::cl::desc("Roll repeated piece sequences of the leaves into loops "
                     "(pto-isa-roll-pieces); off: straight-line leaves"),
      llvm::cl::init(true)};
};

/// The tile-graph pipeline, then pto-lower-to-isa{defer-leaves}, nested on
/// each func.func pto-lower-leaf-to-isa, pto-isa-roll-pieces,
/// pto-isa-plan-memory and pto-isa-insert-sync{mix-leaves=skip}, then
/// pto-isa-split-mix and pto-isa-insert-sync{mix-leaves=only}: a module
/// `pto-translate --pto-to-cpp` prints.
void buildAscendPipeline(OpPassManager &pm,
                         const AscendPipelineOptions &options);

/// Registers `--pto-ascend-pipeline`.
void registerAscendPipeline();

} // namespace mlir::pto

#endif // PTO_PIPELINES_ASCENDPIPELINE_H
