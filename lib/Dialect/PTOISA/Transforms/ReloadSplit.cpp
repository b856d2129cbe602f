//===- ReloadSplit.cpp - reload GM-backed tiles instead of keeping them ---===//
//
// A cube leaf loads each GM window into L1 once and keeps it for every later
// matmul that reads it (pto-lower-to-isa's window deduplication). When those
// windows together exceed L1 (SK-01's P V at the A3 tiles and D = 128: eight
// 64 KiB blocks of V, each read by eight row pieces, plus the P block being
// streamed), keeping all of them is not needed: a window is a copy of GM
// that the leaf does not write, so it can be dropped after a read and loaded
// again before the next one. This is the spill choice of a register
// allocator where the spill is free (the value is still in GM) and only the
// reload costs: a sweep in program order keeps the live bytes within the
// capacity, dropping the tile read again furthest ahead (Belady), which
// needs the fewest reloads for the leaf's order.
//
//===----------------------------------------------------------------------===//

#include "ReloadSplit.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <queue>
#include <set>

using namespace mlir;
using namespace mlir::ptoisa;

namespace {

/// One tile of the space: the points (pre-order op numbers) where it is
/// used, as intervals of the anchor ops (a use inside a region is a use of
/// the region's op in the alloc's block). A reloadable tile has one interval
/// per reading op, the first its tload; any other tile one interval from its
/// first use to its last.
struct Tile {
  AllocTileOp alloc;
  TLoadOp load; // null unless reloadable
  int64_t bytes;
  SmallVector<std::pair<int64_t, int64_t>> uses; // sorted, disjoint
  SmallVector<Operation *> anchors;              // the op of each use
  SmallVector<unsigned> reloads; // indices into `uses` loaded again
};

} // namespace

/// Whether every use of `tile` other than `load` only reads it.
static bool onlyRead(Value tile, Operation *load) {
  for (OpOperand &use : tile.getUses()) {
    Operation *user = use.getOwner();
    if (user == load)
      continue;
    auto iface = dyn_cast<MemoryEffectOpInterface>(user);
    if (!iface)
      return false;
    SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> effects;
    iface.getEffectsOnValue(tile, effects);
    if (effects.empty() || llvm::any_of(effects, [](const auto &effect) {
          return !isa<MemoryEffects::Read>(effect.getEffect());
        }))
      return false;
  }
  return true;
}

DenseMap<Operation *, std::pair<int64_t, int64_t>>
mlir::ptoisa::numberOpsInPreOrder(FunctionOpInterface func) {
  DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
  int64_t counter = 0;
  std::function<void(Operation *)> visit = [&](Operation *op) {
    int64_t first = counter++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          visit(&inner);
    span[op] = {first, counter - 1};
  };
  for (Region &region : func->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        visit(&op);
  return span;
}

int64_t mlir::ptoisa::splitLiveRangesByReload(FunctionOpInterface func,
                                              MemorySpace space,
                                              int64_t capacity, int64_t align) {
  Region &body = func->getRegion(0);
  if (!body.hasOneBlock())
    return 0;
  Block &entry = body.front();
  DenseMap<Operation *, std::pair<int64_t, int64_t>> span =
      numberOpsInPreOrder(func);
  // GM tensors the function writes (through in-place reshapes): a window of
  // one of them may change between two reads, so it is never reloaded.
  llvm::DenseSet<Value> written;
  func->walk([&](MemoryEffectOpInterface iface) {
    SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> effects;
    iface.getEffects(effects);
    for (auto &effect : effects)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue() &&
          !isa<TileType>(effect.getValue().getType()))
        written.insert(pto::getAliasedTensor(effect.getValue()));
  });

  std::vector<Tile> tiles;
  func->walk([&](AllocTileOp alloc) {
    if (alloc.getTileType().getSpace() != space)
      return;
    Tile tile{alloc,
              TLoadOp(),
              (alloc.getTileType().getByteSize() + align - 1) / align * align,
              {},
              {},
              {}};
    Block *block = alloc->getBlock();
    std::map<int64_t, std::pair<int64_t, Operation *>> anchors; // by first
    TLoadOp load;
    int loads = 0;
    for (Operation *user : alloc->getUsers()) {
      Operation *anchor = block->findAncestorOpInBlock(*user);
      if (!anchor)
        anchor = user;
      anchors[span.lookup(anchor).first] = {span.lookup(anchor).second, anchor};
      if (auto l = dyn_cast<TLoadOp>(user); l && l.getDst() == alloc) {
        load = l;
        ++loads;
      }
    }
    if (anchors.empty()) {
      int64_t at = span.lookup(alloc).first;
      anchors[at] = {at, alloc};
    }
    bool reloadable = block == &entry && loads == 1 &&
                      load->getBlock() == &entry &&
                      span.lookup(load).first == anchors.begin()->first &&
                      !written.contains(pto::getAliasedTensor(load.getSrc())) &&
                      onlyRead(alloc.getResult(), load);
    if (reloadable) {
      tile.load = load;
      for (auto &[first, use] : anchors) {
        tile.uses.push_back({first, use.first});
        tile.anchors.push_back(use.second);
      }
    } else {
      int64_t last = anchors.begin()->second.first;
      for (auto &[first, use] : anchors)
        last = std::max(last, use.first);
      tile.uses.push_back({anchors.begin()->first, last});
    }
    tiles.push_back(std::move(tile));
  });

  // The sweep: at each interval start, the tile becomes resident (a reload
  // if it was dropped), tiles past their last use leave, and while the
  // resident bytes exceed the capacity the reloadable tile not in use whose
  // next read is furthest ahead is dropped.
  struct Event {
    int64_t point;
    size_t tile;
    unsigned use;
    bool operator<(const Event &o) const {
      return std::tie(point, tile, use) < std::tie(o.point, o.tile, o.use);
    }
  };
  std::vector<Event> events;
  for (size_t t = 0; t < tiles.size(); ++t)
    for (unsigned u = 0; u < tiles[t].uses.size(); ++u)
      events.push_back({tiles[t].uses[u].first, t, u});
  llvm::sort(events);
  std::vector<bool> resident(tiles.size(), false);
  std::vector<unsigned> cursor(tiles.size(), 0);
  std::set<std::pair<int64_t, size_t>> byNextUse;
  std::priority_queue<std::pair<int64_t, size_t>,
                      std::vector<std::pair<int64_t, size_t>>, std::greater<>>
      byEnd;
  int64_t total = 0;
  int64_t reloads = 0;
  auto nextUse = [&](size_t t) -> std::optional<int64_t> {
    unsigned next = cursor[t] + 1;
    if (!tiles[t].load || next >= tiles[t].uses.size())
      return std::nullopt;
    return tiles[t].uses[next].first;
  };
  auto leave = [&](size_t t) {
    if (std::optional<int64_t> n = nextUse(t))
      byNextUse.erase({*n, t});
    resident[t] = false;
    total -= tiles[t].bytes;
  };
  for (size_t e = 0; e < events.size();) {
    int64_t point = events[e].point;
    while (!byEnd.empty() && byEnd.top().first < point) {
      size_t t = byEnd.top().second;
      byEnd.pop();
      if (resident[t] && tiles[t].uses.back().second < point)
        leave(t);
    }
    for (; e < events.size() && events[e].point == point; ++e) {
      auto [_, t, u] = events[e];
      if (resident[t]) {
        if (std::optional<int64_t> n = nextUse(t))
          byNextUse.erase({*n, t});
      } else {
        if (u > 0) {
          tiles[t].reloads.push_back(u);
          ++reloads;
        }
        resident[t] = true;
        total += tiles[t].bytes;
        byEnd.push({tiles[t].uses.back().second, t});
      }
      cursor[t] = u;
      if (std::optional<int64_t> n = nextUse(t))
        byNextUse.insert({*n, t});
    }
    while (total > capacity) {
      auto victim = byNextUse.rbegin();
      while (victim != byNextUse.rend() &&
             tiles[victim->second].uses[cursor[victim->second]].second >= point)
        ++victim;
      if (victim == byNextUse.rend())
        return 0; // even dropping every idle window does not fit
      leave(victim->second);
    }
  }
  if (!reloads)
    return 0;

  // Each reload: a fresh alloc and a clone of the tload right before the
  // reading op; that read and the later ones (up to the next reload) use it.
  OpBuilder builder(func->getContext());
  for (Tile &tile : tiles) {
    if (tile.reloads.empty())
      continue;
    // Start points (increasing: reloads are recorded in program order) and
    // the tile each segment reads.
    SmallVector<int64_t> starts;
    SmallVector<Value> segments;
    for (unsigned u : tile.reloads) {
      builder.setInsertionPoint(tile.anchors[u]);
      auto copy = cast<AllocTileOp>(builder.clone(*tile.alloc));
      copy.removeOffsetAttr();
      IRMapping map;
      map.map(tile.alloc.getResult(), copy.getResult());
      builder.clone(*tile.load, map);
      starts.push_back(tile.uses[u].first);
      segments.push_back(copy.getResult());
    }
    for (OpOperand &use : llvm::make_early_inc_range(tile.alloc->getUses())) {
      Operation *anchor = entry.findAncestorOpInBlock(*use.getOwner());
      if (!anchor || use.getOwner() == tile.load)
        continue;
      auto after = llvm::upper_bound(starts, span.lookup(anchor).first);
      if (after != starts.begin())
        use.set(segments[after - starts.begin() - 1]);
    }
  }
  return reloads;
}
