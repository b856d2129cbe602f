//===- ExpandTilesVectorTiles.cpp - the vector tile of each op ------------===//
//
// Part of pto-expand-tiles (ExpandTiles.h): the vector tile an op is cut
// by, halved where its scoped task or its own working set would not fit
// in the unified buffer.
//
//===----------------------------------------------------------------------===//

#include "ExpandTiles.h"
#include "pto/Support/UnionFind.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::expand_tiles {

SmallVector<int64_t, 4> Expander::tileFor(Operation *op, VecTileAttr attr,
                                          ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> tile = vectorTileFor(attr, shape);
  for (unsigned i = 0, e = opHalvings.lookup(op); i < e; ++i)
    if (!halveOutermost(tile))
      break;
  return tile;
}

void Expander::planScopeTiles(ArrayRef<Operation *> ops) {
  // The vector ops of one scope become one task (or a few), whose leaf keeps
  // the pieces of several values in UB at once: after pto-lower-to-isa and
  // buffer reuse, a piece is live from its first to its last use among the
  // scope's ops (SK-16's V1 at the A3 config: P, dP - Dvec and dS, three
  // [64, 256] f32 pieces, 192 KiB > UB). Estimate that peak per scope at
  // program level and halve the vector tile of all the task's ops (so their
  // pieces still line up) until it fits UB less the implicit scratch.
  // A task is a scope's ops connected by data edges within one block
  // (pto-partition): estimate and halve per such group. Unscoped vector ops
  // connected by data edges form one task too (pto-partition merges them
  // along data edges; pto-schedule-pieces then runs it piece by piece, so
  // the same per-piece estimate applies): fused_swiglu_bwd_b_kernel's
  // SwiGLU chain keeps six [128, 128] f32 pieces live, 384 KiB.
  SmallVector<Operation *> scoped;
  llvm::DenseMap<Operation *, unsigned> scopedIndex;
  for (Operation *op : ops)
    if (!isa<MatmulOp>(op)) {
      scopedIndex[op] = scoped.size();
      scoped.push_back(op);
    }
  UnionFind groups(scoped.size());
  for (auto [i, op] : llvm::enumerate(scoped))
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (def->getBlock() == op->getBlock() &&
            def->getAttr(kScopeStampAttrName) ==
                op->getAttr(kScopeStampAttrName))
          if (auto it = scopedIndex.find(def); it != scopedIndex.end())
            groups.unite(it->second, i);
  llvm::MapVector<unsigned, SmallVector<Operation *>> tasks;
  for (auto [i, op] : llvm::enumerate(scoped))
    tasks[groups.find(i)].push_back(op);
  // A tile with no GM home (a loop-carried iter_arg or a region's result,
  // seen through views of tiles) reaches a task as a tile argument, which
  // pto-lower-to-isa does not lower: UB does not bind such an unscoped
  // task (SK-01's online-softmax update), so its tile stays as written.
  auto hasNoGMHome = [](Value value) {
    while (auto view = value.getDefiningOp<ViewOp>()) {
      if (!isa<TileType>(view.getSource().getType()))
        return false;
      value = view.getSource();
    }
    if (isa<BlockArgument>(value))
      return true;
    return value.getDefiningOp()->getNumRegions() != 0;
  };
  auto passedTiles = [&](ArrayRef<Operation *> taskOps) {
    return llvm::any_of(taskOps, [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value v) {
        return isa<TileType>(v.getType()) && hasNoGMHome(v);
      });
    });
  };
  for (auto &[leader, groupOps] : tasks) {
    // Of an unscoped task, only the ops that state a vec_tile are planned
    // here; the others keep their own rules (a store follows its source's
    // pieces).
    SmallVector<Operation *> scopeOps(groupOps);
    if (!groupOps.front()->getAttr(kScopeStampAttrName)) {
      if (passedTiles(groupOps))
        continue;
      llvm::erase_if(scopeOps,
                     [](Operation *op) { return !op->getAttr("vec_tile"); });
      if (scopeOps.empty())
        continue;
    }
    const PlatformInfo &platform =
        getPlatformInfo(getArchFor(scopeOps.front()));
    int64_t budget = platform.ubBytes - platform.ubImplicitScratchBytes;
    auto pieceBytes = [&](Operation *op, Value v, unsigned halvings) {
      auto type = cast<TileType>(v.getType());
      SmallVector<int64_t, 4> tile = vectorTileFor(
          op->getAttrOfType<VecTileAttr>("vec_tile"), type.getShape());
      for (unsigned i = 0; i < halvings; ++i)
        if (!halveOutermost(tile))
          break;
      int64_t rows = 1;
      for (int64_t d : ArrayRef<int64_t>(tile).drop_back())
        rows *= d;
      // A ub tile row is a whole number of 32-byte blocks.
      int64_t rowBytes =
          (tile.back() * type.getElementByteSize() + 31) / 32 * 32;
      return rows * rowBytes;
    };
    auto peakBytes = [&](unsigned halvings) {
      // Live interval of each tile value over the scope's ops, and the
      // scratch an op needs for itself (a reduction's tmp).
      llvm::MapVector<Value, std::pair<size_t, size_t>> live;
      llvm::DenseMap<Value, int64_t> bytes;
      SmallVector<int64_t> extra(scopeOps.size(), 0);
      for (auto [i, op] : llvm::enumerate(scopeOps)) {
        for (Value v :
             llvm::concat<Value>(op->getOperands(), op->getResults())) {
          if (!isa<TileType>(v.getType()))
            continue;
          auto [it, inserted] = live.insert({v, {i, i}});
          if (!inserted)
            it->second.second = i;
          bytes[v] = std::max(bytes.lookup(v), pieceBytes(op, v, halvings));
        }
        if (isReductionOp(op))
          extra[i] = pieceBytes(op, op->getOperand(0), halvings);
      }
      // One sweep over the intervals' ends (linear in the group's size).
      SmallVector<int64_t> delta(scopeOps.size() + 1, 0);
      for (auto &[v, range] : live) {
        delta[range.first] += bytes[v];
        delta[range.second + 1] -= bytes[v];
      }
      int64_t peak = 0, total = 0;
      for (size_t i = 0; i < scopeOps.size(); ++i) {
        total += delta[i];
        peak = std::max(peak, total + extra[i]);
      }
      return peak;
    };
    unsigned halvings = 0;
    while (peakBytes(halvings) > budget && halvings < 16 &&
           peakBytes(halvings + 1) < peakBytes(halvings))
      ++halvings;
    if (halvings)
      for (Operation *op : scopeOps)
        opHalvings[op] = halvings;
  }
}

void Expander::fitInUnifiedBuffer(Operation *op,
                                  SmallVectorImpl<int64_t> &tile) {
  // One piece keeps its operands and its result in UB at once. A vector tile
  // whose working set does not fit (SK-16's v_tile_d = [256, 256] clamps to
  // [256, 128] f32: 128 KiB in + 128 KiB out > 192 KiB,
  // docs/SK16.md#tiles-and-options) is halved along its outermost splittable
  // dim, as PyPTO must re-tile too.
  const PlatformInfo &platform = getPlatformInfo(getArchFor(op));
  auto workingSet = [&]() {
    int64_t elements = 1;
    for (int64_t d : tile)
      elements *= d;
    int64_t bytes = 0;
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto tileType = dyn_cast<TileType>(type))
        bytes += elements * tileType.getElementByteSize();
    return bytes;
  };
  int64_t before = workingSet();
  while (workingSet() > platform.ubBytes)
    if (!halveOutermost(tile))
      break; // only the aligned last dim is left: keep it whole
  if (workingSet() != before)
    ++numRetiled;
}

} // namespace mlir::pto::expand_tiles
