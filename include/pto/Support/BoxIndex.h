//===- BoxIndex.h - overlap queries on boxes of one tensor ------*- C++ -*-===//
//
// A grid index of static boxes (offsets, sizes) in one tensor, shared by the
// code that relates GM accesses pairwise (GMAccessIndex, pto-partition's
// store edges, pto-nbuffer-merge's conflict checks), so that it stays
// near-linear.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_SUPPORT_BOXINDEX_H
#define PTO_SUPPORT_BOXINDEX_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <utility>

namespace mlir::pto::detail {

/// Whether two boxes of the same rank overlap.
inline bool boxesOverlap(ArrayRef<int64_t> aOff, ArrayRef<int64_t> aSize,
                         ArrayRef<int64_t> bOff, ArrayRef<int64_t> bSize) {
  for (size_t d = 0; d < aOff.size(); ++d)
    if (aOff[d] + aSize[d] <= bOff[d] || bOff[d] + bSize[d] <= aOff[d])
      return false;
  return true;
}

using Box = std::pair<SmallVector<int64_t>, SmallVector<int64_t>>;

/// The static boxes stored into one tensor so far, for overlap queries
/// without a scan of every earlier store. A box is filed under each cell it
/// touches of a grid whose cell is, per dim, the smallest power of two not
/// below the box's extent (at most two cells per dim); a query visits the
/// cells it touches in each grid, or that grid's boxes when they are fewer.
class BoxIndex {
public:
  BoxIndex() = default;
  // A copy or move starts without the last-grid cache (it points into the
  // source's grids).
  BoxIndex(const BoxIndex &other) : grids(other.grids) {}
  BoxIndex(BoxIndex &&other) : grids(std::move(other.grids)) {
    other.lastGrid = nullptr;
  }
  BoxIndex &operator=(const BoxIndex &other) {
    grids = other.grids;
    lastGrid = nullptr;
    return *this;
  }
  BoxIndex &operator=(BoxIndex &&other) {
    grids = std::move(other.grids);
    lastGrid = other.lastGrid = nullptr;
    return *this;
  }

  void insert(unsigned node, const Box &box) {
    SmallVector<unsigned, 4> shifts;
    for (int64_t size : box.second)
      shifts.push_back(llvm::Log2_64_Ceil(std::max<int64_t>(size, 1)));
    Grid &grid = gridOf(shifts);
    unsigned entry = grid.nodes.size();
    grid.nodes.push_back(node);
    grid.coords.append(box.first.begin(), box.first.end());
    grid.coords.append(box.second.begin(), box.second.end());
    forEachCell(shifts, box.first, box.second, [&](ArrayRef<int64_t> cell) {
      grid.cells[cellKey(cell)].push_back(entry);
    });
  }

  /// Calls `fn(node)` for every stored box overlapping `box` (possibly more
  /// than once), and for every box of another rank (offsets of another
  /// rank are not comparable).
  void forEachOverlap(const Box &box, function_ref<void(unsigned)> fn) const {
    for (const auto &shiftsAndGrid : grids) {
      ArrayRef<unsigned> shifts = shiftsAndGrid.first;
      const Grid &grid = shiftsAndGrid.second;
      if (shifts.size() != box.first.size()) {
        for (unsigned node : grid.nodes)
          fn(node);
        continue;
      }
      unsigned rank = shifts.size();
      auto check = [&](unsigned entry) {
        ArrayRef<int64_t> other(grid.coords.data() + 2 * rank * entry,
                                2 * rank);
        if (boxesOverlap(box.first, box.second, other.take_front(rank),
                         other.drop_front(rank)))
          fn(grid.nodes[entry]);
      };
      uint64_t cells = 1;
      for (auto [d, shift] : llvm::enumerate(shifts)) {
        uint64_t span = uint64_t((box.first[d] + box.second[d] - 1) >> shift) -
                        uint64_t(box.first[d] >> shift) + 1;
        cells = std::min<uint64_t>(cells * span, uint64_t(1) << 62);
      }
      if (cells >= grid.nodes.size()) {
        for (unsigned entry = 0; entry < grid.nodes.size(); ++entry)
          check(entry);
        continue;
      }
      forEachCell(shifts, box.first, box.second, [&](ArrayRef<int64_t> cell) {
        auto it = grid.cells.find(cellKey(cell));
        if (it != grid.cells.end())
          for (unsigned entry : it->second)
            check(entry);
      });
    }
  }

  /// Every stored box.
  void forEach(function_ref<void(unsigned)> fn) const {
    for (const auto &[shifts, grid] : grids)
      for (unsigned node : grid.nodes)
        fn(node);
  }

private:
  /// The boxes of one cell size, flat (per entry: its node, and its offsets
  /// then sizes), and per cell (by the hash of its coordinates) the entries
  /// touching it: filing a box allocates nothing per box once the vectors
  /// have grown. Two cells sharing a hash share a list; every candidate is
  /// compared exactly, so that costs a comparison, never an answer.
  struct Grid {
    SmallVector<unsigned> nodes;
    SmallVector<int64_t> coords;
    llvm::DenseMap<uint64_t, SmallVector<unsigned, 1>> cells;
  };

  /// A multiply-xorshift mix of the cell's coordinates: cheaper than
  /// hash_combine_range for the few coordinates of a cell, and as good for
  /// telling cells apart.
  static uint64_t cellKey(ArrayRef<int64_t> cell) {
    uint64_t key = cell.size();
    for (int64_t c : cell) {
      key = (key ^ uint64_t(c)) * 0x9e3779b97f4a7c15ULL;
      key ^= key >> 29;
    }
    // Clear of DenseMap's empty and tombstone keys.
    return std::min(key, ~uint64_t(0) - 2);
  }

  /// Consecutive boxes mostly share a cell size: the last grid looked up is
  /// kept (std::map nodes do not move).
  Grid &gridOf(ArrayRef<unsigned> shifts) {
    if (lastGrid && ArrayRef<unsigned>(lastShifts) == shifts)
      return *lastGrid;
    lastShifts.assign(shifts.begin(), shifts.end());
    lastGrid = &grids[lastShifts];
    return *lastGrid;
  }

  /// The cells of the grid `shifts` that the box touches.
  template <typename Fn>
  static void forEachCell(ArrayRef<unsigned> shifts, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes, Fn fn) {
    unsigned rank = shifts.size();
    SmallVector<int64_t, 4> lo, hi;
    for (unsigned d = 0; d < rank; ++d) {
      lo.push_back(offsets[d] >> shifts[d]);
      hi.push_back((offsets[d] + std::max<int64_t>(sizes[d], 1) - 1) >>
                   shifts[d]);
    }
    SmallVector<int64_t, 4> cell = lo;
    while (true) {
      fn(cell);
      unsigned d = 0;
      for (; d < rank; ++d) {
        if (cell[d] < hi[d]) {
          ++cell[d];
          break;
        }
        cell[d] = lo[d];
      }
      if (d == rank)
        return;
    }
  }

  // Ordered by cell size: queries visit the grids in this order.
  std::map<SmallVector<unsigned, 4>, Grid> grids;
  SmallVector<unsigned, 4> lastShifts;
  Grid *lastGrid = nullptr;
};

} // namespace mlir::pto::detail

#endif // PTO_SUPPORT_BOXINDEX_H
