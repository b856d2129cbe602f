//===- Passes.h - pto passes ------------------------------------*- C++ -*-===//
#ifndef PTO_DIALECT_PTO_TRANSFORMS_PASSES_H
#define PTO_DIALECT_PTO_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

namespace mlir::pto {

#define GEN_PASS_DECL
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pto/Dialect/PTO/Transforms/Passes.h.inc"

/// Unit attribute on a nested `builtin.module` holding one kernel and the
/// symbols only it uses, between pto-split-kernel-units and
/// pto-join-kernel-units.
inline constexpr llvm::StringLiteral kKernelUnitAttrName = "pto.kernel_unit";

/// The pass switches shared by the tile-graph pipeline and the pipelines
/// built on it (`--pto-ascend-pipeline`), declared once.
template <typename Derived>
struct TileGraphPassSwitches : public PassPipelineOptions<Derived> {
  template <typename T>
  using Option = typename PassPipelineOptions<Derived>::template Option<T>;
  template <typename T>
  using ListOption =
      typename PassPipelineOptions<Derived>::template ListOption<T>;
  Option<bool> hoist{*this, "hoist",
                     llvm::cl::desc("Hoist loop-invariant tile ops"),
                     llvm::cl::init(true)};
  Option<bool> nbuffer{
      *this, "nbuffer",
      llvm::cl::desc("Merge isomorphic vector tasks (vec_nbuffer_setting)"),
      llvm::cl::init(true)};
  Option<bool> l1Reuse{*this, "l1-reuse",
                       llvm::cl::desc("Merge cube tasks sharing L1 loads"),
                       llvm::cl::init(true)};
  Option<bool> cubeStationary{
      *this, "cube-stationary",
      llvm::cl::desc("Operand-stationary cube tasks where the model says "
                     "they shorten the group (pto-l1-reuse stationary=true; "
                     "docs/TileGraph.md)"),
      llvm::cl::init(true)};
  Option<bool> sinkViews{
      *this, "sink-views",
      llvm::cl::desc("Move control-program views of tiles down to the end "
                     "of their run of ops before partitioning (pto-partition "
                     "sink-views; docs/TileGraph.md)"),
      llvm::cl::init(true)};
  Option<bool> schedulePieces{
      *this, "schedule-pieces",
      llvm::cl::desc("Run each vector task's pieces one chain at a time where "
                     "their order does not fit UB (pto-schedule-pieces)"),
      llvm::cl::init(true)};
  Option<bool> mixExchange{
      *this, "mix-exchange",
      llvm::cl::desc("On DAV_3510, MIX tasks that hand cube results to the "
                     "vector cores through L0C -> UB (pto-mix-exchange; "
                     "docs/TileGraph.md#on-chip-exchanges; no effect on "
                     "architectures without that path)"),
      llvm::cl::init(true)};
  ListOption<int64_t> unrollCarried{
      *this, "unroll-carried",
      llvm::cl::desc("Iterations per body of each innermost loop whose "
                     "iterations are ordered, then of its rest, ... "
                     "(pto-unroll-carried-loops factors, e.g. 64,16,4; none: "
                     "as written)")};

  Option<int64_t> dynamicTripCount{
      *this, "dynamic-trip-count",
      llvm::cl::desc("Iterations at once that the operand-stationary planner "
                     "assumes for a loop with run-time bounds and no "
                     "iter_args (pto-l1-reuse dynamic-trip-count; default 1)"),
      llvm::cl::init(1)};

  /// Copies the switches into another pipeline's options.
  template <typename Other>
  void copySwitchesTo(TileGraphPassSwitches<Other> &other) const {
    other.hoist = hoist;
    other.nbuffer = nbuffer;
    other.l1Reuse = l1Reuse;
    other.cubeStationary = cubeStationary;
    other.sinkViews = sinkViews;
    other.schedulePieces = schedulePieces;
    other.mixExchange = mixExchange;
    other.dynamicTripCount = dynamicTripCount;
    other.unrollCarried = ArrayRef<int64_t>(llvm::to_vector(unrollCarried));
  }
};

/// Options of the tile-graph pipeline (docs/TileGraph.md).
struct TileGraphPipelineOptions
    : public TileGraphPassSwitches<TileGraphPipelineOptions> {
  Option<bool> outline{*this, "outline",
                       llvm::cl::desc("Outline leaves and roots, plan "
                                      "stitches"),
                       llvm::cl::init(true)};
  Option<bool> splitMix{
      *this, "split-mix",
      llvm::cl::desc("Pure cube and vector tasks where the architecture has "
                     "MIX tasks (pto-partition split-mix; the Ascend "
                     "pipeline sets it)"),
      llvm::cl::init(false)};
};

/// Appends legalize, flatten-scopes, hoist-invariants, expand-tiles,
/// partition, nbuffer-merge, l1-reuse, schedule-pieces, mix-exchange (when
/// asked), outline, plan-stitch, merge-leaf-arguments and cse to `unit`, a
/// pass manager on one kernel unit (a builtin.module made by
/// pto-split-kernel-units). Pipelines that continue per kernel after the
/// tile graph (`--pto-ascend-pipeline`) append their passes after these.
void buildTileGraphUnitPipeline(OpPassManager &unit,
                                const TileGraphPipelineOptions &options);

/// Appends pto-split-kernel-units, the passes above nested on each unit, and
/// pto-join-kernel-units to `pm` (a pass manager on builtin.module). Other
/// compilers call this to run the same pipeline.
void buildTileGraphPipeline(OpPassManager &pm,
                            const TileGraphPipelineOptions &options);

/// Registers `--pto-tile-graph-pipeline` with the options above.
void registerTileGraphPipeline();

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_TRANSFORMS_PASSES_H
