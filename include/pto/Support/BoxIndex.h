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
  void insert(unsigned node, const Box &box) {
    SmallVector<unsigned, 4> shifts;
    for (int64_t size : box.second)
      shifts.push_back(llvm::Log2_64_Ceil(std::max<int64_t>(size, 1)));
    Grid &grid = grids[shifts];
    unsigned entry = grid.boxes.size();
    grid.boxes.push_back({node, box});
    forEachCell(shifts, box, [&](ArrayRef<int64_t> cell) {
      grid.cells[SmallVector<int64_t, 4>(cell)].push_back(entry);
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
        for (const auto &[node, other] : grid.boxes)
          fn(node);
        continue;
      }
      auto check = [&](unsigned entry) {
        const auto &[node, other] = grid.boxes[entry];
        if (boxesOverlap(box.first, box.second, other.first, other.second))
          fn(node);
      };
      uint64_t cells = 1;
      for (auto [d, shift] : llvm::enumerate(shifts)) {
        uint64_t span = uint64_t((box.first[d] + box.second[d] - 1) >> shift) -
                        uint64_t(box.first[d] >> shift) + 1;
        cells = std::min<uint64_t>(cells * span, uint64_t(1) << 62);
      }
      if (cells >= grid.boxes.size()) {
        for (unsigned entry = 0; entry < grid.boxes.size(); ++entry)
          check(entry);
        continue;
      }
      forEachCell(shifts, box, [&](ArrayRef<int64_t> cell) {
        auto it = grid.cells.find(SmallVector<int64_t, 4>(cell));
        if (it != grid.cells.end())
          for (unsigned entry : it->second)
            check(entry);
      });
    }
  }

  /// Every stored box.
  void forEach(function_ref<void(unsigned)> fn) const {
    for (const auto &[shifts, grid] : grids)
      for (const auto &[node, box] : grid.boxes)
        fn(node);
  }

private:
  struct Grid {
    SmallVector<std::pair<unsigned, Box>> boxes;
    std::map<SmallVector<int64_t, 4>, SmallVector<unsigned, 1>> cells;
  };

  /// The cells of the grid `shifts` that `box` touches.
  static void forEachCell(ArrayRef<unsigned> shifts, const Box &box,
                          function_ref<void(ArrayRef<int64_t>)> fn) {
    unsigned rank = shifts.size();
    SmallVector<int64_t, 4> lo, hi;
    for (unsigned d = 0; d < rank; ++d) {
      lo.push_back(box.first[d] >> shifts[d]);
      hi.push_back((box.first[d] + std::max<int64_t>(box.second[d], 1) - 1) >>
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

  std::map<SmallVector<unsigned, 4>, Grid> grids;
};

} // namespace mlir::pto::detail

#endif // PTO_SUPPORT_BOXINDEX_H
