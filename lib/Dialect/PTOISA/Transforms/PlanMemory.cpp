//===- PlanMemory.cpp - TASSIGN offsets for pto_isa tiles -----------------===//
//
// Liveness-based placement of every pto_isa.alloc_tile of a function in its
// on-chip buffer. Live range: the first to the last use of the tile, where a
// use inside a region counts as a use by the region's op in the alloc's
// block (a tile read inside a loop is live across the whole loop). Tiles are
// placed in program order of their first use, first fit by offset, aligned
// to the platform's buffer alignment; tiles whose live ranges are disjoint
// share bytes. When that overflows a space, the plan is redone with in-place
// reuse: the destination of an elementwise instruction may take the bytes of
// a source of the same tile type that dies at that instruction. Rules and
// decisions: docs/ISA.md ("Memory planning").
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

#include "ReloadSplit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>

namespace mlir::ptoisa {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;

namespace {

struct Buffer {
  AllocTileOp alloc;
  int64_t bytes; // rounded up to the alignment
  // Live range in half program points, inclusive: op n covers 2n; a tile
  // reused in place by op n's destination ends at 2n - 1, before it.
  int64_t start, end;
  int64_t offset = -1;
  /// Other tiles placed at these bytes: the rest of a MIX leaf's UB ring
  /// slot, and tiles that TRESHAPE points here.
  SmallVector<AllocTileOp> sharing = {};
};

static int64_t roundUp(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

static constexpr MemorySpace kSpaces[] = {MemorySpace::ub, MemorySpace::l1,
                                          MemorySpace::l0a, MemorySpace::l0b,
                                          MemorySpace::l0c};

struct FunctionPlanner {
  FunctionPlanner(FunctionOpInterface func, bool reserveScratch, bool report)
      : func(func), reserveScratch(reserveScratch), report(report),
        arch(pto::getArchFor(func)), platform(pto::getPlatformInfo(arch)) {}

  LogicalResult run();

private:
  void numberOps();
  std::vector<Buffer> buffersOf(ArrayRef<AllocTileOp> allocs, bool inPlace);
  void mergeRenamed(std::vector<Buffer> &buffers,
                    const DenseMap<Value, size_t> &index);
  int64_t capacity(MemorySpace space) const;
  /// First fit; false if the space overflows. With `pingPong`, a tile
  /// avoids the bytes of the tile that died last when it fits elsewhere.
  bool place(MemorySpace space, std::vector<Buffer> &buffers, int64_t &end,
             bool pingPong);
  LogicalResult reportOverflow(MemorySpace space, std::vector<Buffer> &buffers,
                               int64_t end);
  /// The largest total of simultaneously live bytes, and the tiles then live.
  int64_t peak(MutableArrayRef<Buffer> buffers,
               SmallVectorImpl<Buffer *> *live);

  FunctionOpInterface func;
  bool reserveScratch, report;
  pto::Arch arch;
  const pto::PlatformInfo &platform;
  /// Pre-order index of each op and the last index inside its regions.
  DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
};

} // namespace

void FunctionPlanner::numberOps() { span = numberOpsInPreOrder(func); }

int64_t FunctionPlanner::capacity(MemorySpace space) const {
  int64_t bytes = getSpaceCapacity(arch, space);
  // The implicit scratch sits at the top of UB ([184 KiB, 192 KiB) on
  // DAV_2201): tiles stay below it.
  if (space == MemorySpace::ub && reserveScratch)
    bytes -= platform.ubImplicitScratchBytes;
  return bytes;
}

int64_t FunctionPlanner::peak(MutableArrayRef<Buffer> buffers,
                              SmallVectorImpl<Buffer *> *live) {
  // The live bytes at a point t: the bytes of tiles starting at or before t
  // less those of tiles ending before t (a sweep, not a scan per point). A
  // tile reused in place at its first use ends before it starts: live at no
  // point.
  std::vector<std::pair<int64_t, int64_t>> starts, ends; // (point, bytes)
  for (Buffer &b : buffers)
    if (b.start <= b.end) {
      starts.push_back({b.start, b.bytes});
      ends.push_back({b.end, b.bytes});
    }
  llvm::sort(starts);
  llvm::sort(ends);
  std::vector<int64_t> startSums(starts.size() + 1, 0),
      endSums(ends.size() + 1, 0);
  for (size_t i = 0; i < starts.size(); ++i) {
    startSums[i + 1] = startSums[i] + starts[i].second;
    endSums[i + 1] = endSums[i] + ends[i].second;
  }
  auto liveAt = [&](int64_t t) {
    auto startedUpTo = llvm::upper_bound(
        starts, std::make_pair(t, std::numeric_limits<int64_t>::max()));
    auto endedBefore = llvm::lower_bound(
        ends, std::make_pair(t, std::numeric_limits<int64_t>::min()));
    return startSums[startedUpTo - starts.begin()] -
           endSums[endedBefore - ends.begin()];
  };
  int64_t best = 0, bestPoint = -1;
  for (Buffer &at : buffers) {
    int64_t total = liveAt(at.start);
    if (total > best) {
      best = total;
      bestPoint = at.start;
    }
  }
  if (live)
    for (Buffer &b : buffers)
      if (b.start <= bestPoint && bestPoint <= b.end)
        live->push_back(&b);
  return best;
}

bool FunctionPlanner::place(MemorySpace space, std::vector<Buffer> &buffers,
                            int64_t &end, bool pingPong) {
  int64_t align = platform.bufferAlignBytes;
  // Program order of first use; the larger tile first on a tie.
  llvm::stable_sort(buffers, [](const Buffer &a, const Buffer &b) {
    return a.start != b.start ? a.start < b.start : a.bytes > b.bytes;
  });
  end = 0;
  // The placed tiles not yet dead, by byte range; their last uses. Placed
  // tiles start no later than the current one, so those live at the same
  // time are the ones that do not end before it starts (and that start by
  // its end, which only a tile reused in place at its first use misses).
  std::set<std::tuple<int64_t, int64_t, size_t>> taken; // (lo, hi, index)
  std::priority_queue<std::pair<int64_t, size_t>,
                      std::vector<std::pair<int64_t, size_t>>, std::greater<>>
      byEnd;
  // The tile that died last (popped last: deaths pop in order of end).
  std::optional<size_t> lastDead;
  auto firstFit = [&](const Buffer &buf,
                      std::optional<std::pair<int64_t, int64_t>> avoid) {
    int64_t offset = 0;
    auto skip = [&](int64_t lo, int64_t hi) {
      if (offset + buf.bytes <= lo)
        return true;
      offset = std::max(offset, roundUp(hi, align));
      return false;
    };
    bool avoided = !avoid;
    for (auto [lo, hi, j] : taken) {
      if (buffers[j].start > buf.end)
        continue;
      // `avoid` as one more taken range, in its place in offset order.
      if (!avoided && avoid->first <= lo) {
        avoided = true;
        if (skip(avoid->first, avoid->second))
          return offset;
      }
      if (skip(lo, hi))
        return offset;
    }
    if (!avoided)
      skip(avoid->first, avoid->second);
    return offset;
  };
  for (size_t i = 0; i < buffers.size(); ++i) {
    Buffer &buf = buffers[i];
    while (!byEnd.empty() && byEnd.top().first < buf.start) {
      const Buffer &dead = buffers[byEnd.top().second];
      taken.erase({dead.offset, dead.offset + dead.bytes, byEnd.top().second});
      lastDead = byEnd.top().second;
      byEnd.pop();
    }
    // Ping-pong (L0C): the tile that died last may still be draining (its
    // FIX store), so the next accumulator takes other bytes where there are
    // some, and its TMATMUL need not wait for that store.
    int64_t offset = firstFit(buf, std::nullopt);
    if (pingPong && lastDead) {
      const Buffer &dead = buffers[*lastDead];
      int64_t apart =
          firstFit(buf, std::make_pair(dead.offset, dead.offset + dead.bytes));
      if (apart + buf.bytes <= capacity(space))
        offset = apart;
    }
    buf.offset = offset;
    end = std::max(end, offset + buf.bytes);
    taken.insert({offset, offset + buf.bytes, i});
    byEnd.push({buf.end, i});
  }
  return end <= capacity(space);
}

LogicalResult FunctionPlanner::reportOverflow(MemorySpace space,
                                              std::vector<Buffer> &buffers,
                                              int64_t end) {
  int64_t cap = capacity(space);
  SmallVector<Buffer *> live;
  int64_t peakBytes = peak(buffers, &live);
  auto name = func->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  InFlightDiagnostic diag = mlir::emitError(func->getLoc());
  diag << "leaf @" << (name ? name.getValue() : StringRef("?"))
       << " does not fit " << stringifyMemorySpace(space) << " of "
       << platform.name << ": needs " << end << " bytes, capacity " << cap
       << " bytes";
  if (space == MemorySpace::ub && reserveScratch &&
      platform.ubImplicitScratchBytes)
    diag << " (" << getSpaceCapacity(arch, space) << " less the "
         << platform.ubImplicitScratchBytes << "-byte implicit scratch)";
  diag << "; " << live.size() << " tiles of " << peakBytes
       << " bytes are live at the peak:";
  for (Buffer *b : live)
    diag << " " << b->alloc.getTileType() << " (" << b->bytes << " B)";
  if (space == MemorySpace::ub)
    diag << "; fix: give the leaf's ops a smaller vec_tile (pto-expand-tiles "
            "then cuts smaller pieces) or split the task";
  else if (space == MemorySpace::l1)
    diag << "; fix: a smaller L1 cube_tile for the leaf's matmuls, or less "
            "L1 reuse (cube_l1_reuse_setting)";
  else
    diag << "; fix: a smaller L0 cube_tile (m, k, n) for the leaf's matmuls";
  for (Buffer *b : live)
    diag.attachNote(b->alloc.getLoc())
        << "live at the peak: " << b->alloc.getTileType() << ", " << b->bytes
        << " bytes";
  return failure();
}

/// The operands of an elementwise instruction whose bytes its destination
/// may take when they die there: element (i, j) is read before it is
/// written, at the same offset (equal tile types). Broadcast operands are
/// excluded: their elements are read again for later rows or columns.
static SmallVector<Value> inPlaceSources(Operation *op, Value &dst) {
  return TypeSwitch<Operation *, SmallVector<Value>>(op)
      .Case<TAddOp, TSubOp, TMulOp, TDivOp, TMaxOp, TMinOp>([&](auto o) {
        dst = o.getDst();
        return SmallVector<Value>{o.getLhs(), o.getRhs()};
      })
      .Case<TAddSOp, TSubSOp, TMulSOp, TDivSOp, TMaxSOp, TMinSOp, TExpOp,
            TAbsOp, TSqrtOp, TRsqrtOp, TRecipOp, TLogOp, TNegOp>([&](auto o) {
        dst = o.getDst();
        return SmallVector<Value>{o.getSrc()};
      })
      .Case<TRowExpandSubOp, TRowExpandMulOp, TRowExpandDivOp>([&](auto o) {
        dst = o.getDst();
        return SmallVector<Value>{o.getFull()};
      })
      .Case<TColExpandAddOp, TColExpandSubOp, TColExpandMulOp, TColExpandDivOp,
            TColExpandMaxOp, TColExpandMinOp>([&](auto o) {
        dst = o.getDst();
        return SmallVector<Value>{o.getFull()};
      })
      .Default([](Operation *) { return SmallVector<Value>{}; });
}

/// A ub tile that a MIX leaf's cube part writes from L0C (tmov or
/// textract).
static bool isMovedFromL0C(AllocTileOp alloc) {
  auto func = alloc->getParentOfType<func::FuncOp>();
  auto kind = func ? func->getAttrOfType<pto::CoreKindAttr>("pto.leaf")
                   : pto::CoreKindAttr();
  if (!kind || kind.getValue() != pto::CoreKind::mix)
    return false;
  return llvm::any_of(alloc->getUsers(), [&](Operation *user) {
    Value src, dst;
    if (auto move = dyn_cast<TMovOp>(user))
      src = move.getSrc(), dst = move.getDst();
    else if (auto extract = dyn_cast<TExtractOp>(user))
      src = extract.getSrc(), dst = extract.getDst();
    return dst == alloc.getResult() &&
           cast<TileType>(src.getType()).getSpace() == MemorySpace::l0c;
  });
}

std::vector<Buffer> FunctionPlanner::buffersOf(ArrayRef<AllocTileOp> allocs,
                                               bool inPlace) {
  int64_t align = platform.bufferAlignBytes;
  std::vector<Buffer> buffers;
  DenseMap<Value, size_t> index;
  std::map<int64_t, size_t> ringSlots;
  for (AllocTileOp alloc : allocs) {
    Block *block = alloc->getBlock();
    int64_t start = std::numeric_limits<int64_t>::max(), end = -1;
    for (Operation *user : alloc->getUsers()) {
      Operation *anchor = block->findAncestorOpInBlock(*user);
      if (!anchor)
        anchor = user;
      auto [first, last] = span.lookup(anchor);
      start = std::min(start, 2 * first);
      end = std::max(end, 2 * last);
    }
    if (end < 0) // never used: occupies its own point only
      start = end = 2 * span.lookup(alloc).first;
    // In a MIX leaf the AIC's L0C -> UB moves run ahead of the AIV's
    // program order: such a tile is live from the entry on, so no tile of
    // the vector part shares its bytes before its last read.
    if (isMovedFromL0C(alloc))
      start = -2;
    // The tiles of one ring slot are one buffer, live until the last read
    // of the slot's last tile (pto-isa-split-mix orders the refills).
    if (auto slot = alloc->getAttrOfType<IntegerAttr>(kRingSlotAttrName)) {
      auto [it, first] = ringSlots.try_emplace(slot.getInt(), buffers.size());
      if (!first) {
        Buffer &shared = buffers[it->second];
        shared.bytes = std::max(
            shared.bytes, roundUp(alloc.getTileType().getByteSize(), align));
        shared.start = std::min(shared.start, start);
        shared.end = std::max(shared.end, end);
        shared.sharing.push_back(alloc);
        continue;
      }
    }
    index[alloc.getResult()] = buffers.size();
    buffers.push_back(
        {alloc, roundUp(alloc.getTileType().getByteSize(), align), start, end});
  }
  if (!inPlace) {
    mergeRenamed(buffers, index);
    return buffers;
  }
  // A source dying at the instruction that first writes a destination of
  // its type ends just before it, so the destination may take its bytes.
  // Only instructions in the allocs' block: inside a loop body the source
  // would be needed again by the next iteration.
  for (Buffer &buf : buffers) {
    Operation *writer = nullptr;
    for (Operation *user : buf.alloc->getUsers())
      if (user->getBlock() == buf.alloc->getBlock() &&
          2 * span.lookup(user).first == buf.start)
        writer = user;
    if (!writer)
      continue;
    Value dst;
    SmallVector<Value> sources = inPlaceSources(writer, dst);
    if (dst != buf.alloc.getResult())
      continue;
    for (Value source : sources) {
      auto it = index.find(source);
      if (it == index.end() || source.getType() != dst.getType())
        continue;
      Buffer &src = buffers[it->second];
      if (src.end == buf.start &&
          src.alloc->getBlock() == buf.alloc->getBlock()) {
        src.end = buf.start - 1;
        break;
      }
    }
  }
  mergeRenamed(buffers, index);
  return buffers;
}

/// TRESHAPE points its destination at its source's bytes (pto-isa A2/A3):
/// the two tiles are one buffer, live from the first use of either to the
/// last, so no other tile takes those bytes while either is read.
void FunctionPlanner::mergeRenamed(std::vector<Buffer> &buffers,
                                   const DenseMap<Value, size_t> &index) {
  std::vector<size_t> parent(buffers.size());
  for (size_t i = 0; i < parent.size(); ++i)
    parent[i] = i;
  std::function<size_t(size_t)> root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  bool merged = false;
  func->walk([&](TReshapeOp reshape) {
    auto src = index.find(reshape.getSrc()), dst = index.find(reshape.getDst());
    if (src == index.end() || dst == index.end())
      return;
    size_t a = root(src->second), b = root(dst->second);
    if (a == b)
      return;
    Buffer &keep = buffers[a], &gone = buffers[b];
    keep.start = std::min(keep.start, gone.start);
    keep.end = std::max(keep.end, gone.end);
    keep.bytes = std::max(keep.bytes, gone.bytes);
    keep.sharing.push_back(gone.alloc);
    keep.sharing.append(gone.sharing.begin(), gone.sharing.end());
    parent[b] = a;
    merged = true;
  });
  if (!merged)
    return;
  std::vector<Buffer> kept;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (root(i) == i)
      kept.push_back(std::move(buffers[i]));
  buffers = std::move(kept);
}

LogicalResult FunctionPlanner::run() {
  std::map<MemorySpace, SmallVector<AllocTileOp>> bySpace;
  func->walk([&](AllocTileOp alloc) {
    bySpace[alloc.getTileType().getSpace()].push_back(alloc);
  });
  if (bySpace.empty())
    return success();
  numberOps();
  std::string summary;
  llvm::raw_string_ostream os(summary);
  Builder b(func->getContext());
  for (MemorySpace space : kSpaces) {
    auto it = bySpace.find(space);
    if (it == bySpace.end())
      continue;
    // Separate bytes for every live tile keep the pipes free to overlap;
    // in-place reuse (which orders a source's readers before the
    // destination's write) only where that does not fit.
    int64_t end = 0, reloads = 0;
    bool inPlace = false;
    // Accumulators ping-pong between L0C offsets (docs/ISA.md, "Memory
    // planning") unless that alone makes the space overflow.
    bool pingPong = space == MemorySpace::l0c;
    std::vector<Buffer> buffers = buffersOf(it->second, /*inPlace=*/false);
    if (!place(space, buffers, end, pingPong) &&
        !(pingPong && place(space, buffers, end, /*pingPong=*/false))) {
      inPlace = true;
      buffers = buffersOf(it->second, /*inPlace=*/true);
      if (!place(space, buffers, end, /*pingPong=*/false)) {
        // L1 windows are copies of GM the leaf does not write: drop some
        // between reads and load them again (docs/ISA.md, "Memory
        // planning"), then plan the space anew.
        if (space == MemorySpace::l1)
          reloads = splitLiveRangesByReload(func, space, capacity(space),
                                            platform.bufferAlignBytes);
        if (!reloads)
          return reportOverflow(space, buffers, end);
        numberOps();
        it->second.clear();
        func->walk([&](AllocTileOp alloc) {
          if (alloc.getTileType().getSpace() == space)
            it->second.push_back(alloc);
        });
        inPlace = false;
        buffers = buffersOf(it->second, /*inPlace=*/false);
        if (!place(space, buffers, end, /*pingPong=*/false))
          return reportOverflow(space, buffers, end);
      }
    }
    for (Buffer &buf : buffers) {
      buf.alloc.setOffsetAttr(b.getI64IntegerAttr(buf.offset));
      for (AllocTileOp alloc : buf.sharing)
        alloc.setOffsetAttr(b.getI64IntegerAttr(buf.offset));
    }
    os << (summary.empty() ? "" : ", ") << stringifyMemorySpace(space) << " "
       << peak(buffers, nullptr) << " B peak live, " << end << " B used of "
       << capacity(space)
       << (inPlace ? " (dying sources reused in place)" : "");
    if (reloads)
      os << " (GM windows loaded again: " << reloads << ")";
  }
  if (report)
    mlir::emitRemark(func->getLoc())
        << "memory plan of @" << SymbolTable::getSymbolName(func).getValue()
        << ": " << summary;
  return success();
}

namespace {
struct PlanMemoryPass
    : public ptoisa::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;
  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](FunctionOpInterface func) {
      FunctionPlanner planner(func, reserveUbScratch, report);
      if (failed(planner.run()))
        failedAny = true;
      return WalkResult::skip();
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
