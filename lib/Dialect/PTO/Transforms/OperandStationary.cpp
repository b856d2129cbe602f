//===- OperandStationary.cpp - extents of operand-stationary cube tasks ---===//

#include "OperandStationary.h"

#include "pto/Support/UnionFind.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>

using namespace mlir;
using namespace mlir::pto::detail;

namespace {

/// Row and column coordinates of every task inside its component.
struct Layout {
  SmallVector<unsigned> component, row, col;
  /// Per component: its row and column counts.
  SmallVector<unsigned> rows, cols;
};

Layout layoutOf(const StationaryProblem &p) {
  // Components: union of A block i (id i) and B block j (id |A| + j).
  unsigned numA = p.aBlocks.size();
  pto::UnionFind classes(numA + p.bBlocks.size());
  for (auto [a, b] : p.tasks)
    classes.unite(a, numA + b);
  Layout layout;
  llvm::DenseMap<unsigned, unsigned> componentIds;
  llvm::DenseMap<unsigned, unsigned> rowIds, colIds; // block -> coordinate
  llvm::DenseMap<unsigned, unsigned> rowsIn, colsIn; // component -> count
  for (auto [a, b] : p.tasks) {
    unsigned leader = classes.find(a);
    auto [cit, newComponent] =
        componentIds.try_emplace(leader, componentIds.size());
    unsigned c = cit->second;
    auto [rit, newRow] = rowIds.try_emplace(a, rowsIn[c]);
    if (newRow)
      ++rowsIn[c];
    auto [kit, newCol] = colIds.try_emplace(b, colsIn[c]);
    if (newCol)
      ++colsIn[c];
    layout.component.push_back(c);
    layout.row.push_back(rit->second);
    layout.col.push_back(kit->second);
  }
  layout.rows.assign(componentIds.size(), 0);
  layout.cols.assign(componentIds.size(), 0);
  for (auto [c, n] : rowsIn)
    layout.rows[c] = n;
  for (auto [c, n] : colsIn)
    layout.cols[c] = n;
  return layout;
}

/// The rectangle column of column `index` of `count` cut into slices of at
/// most `extent`: runs of consecutive columns, or with `interleaved` every
/// ceil(count / extent)-th column (the same number of slices), so that the
/// leading columns of a block, all a short valid extent covers, fall into
/// different rectangles.
unsigned columnSlice(unsigned index, unsigned count, unsigned extent,
                     bool interleaved) {
  if (!interleaved)
    return index / extent;
  return index % ((count + extent - 1) / extent);
}

unsigned stageOf(const StationaryProblem &p, unsigned task) {
  return p.stage.empty() ? 0 : p.stage[task];
}

/// The rectangles of extent a x b and their time; none if one does not fit
/// L1.
std::optional<StationaryPlan> evaluate(const StationaryProblem &p,
                                       const Layout &layout, unsigned a,
                                       unsigned b) {
  struct Rect {
    // Each side's distinct blocks (in first-use order until sorted below).
    SmallVector<unsigned, 8> aBlocks, bBlocks;
    unsigned tasks = 0, stage = 0;
    // Whether the members, in program order (the merged body's order), take
    // each A (B) block in one run: then a block of that side is needed only
    // during its run, the next one loading meanwhile.
    bool aRuns = true, bRuns = true;
    std::optional<unsigned> lastA, lastB;
  };
  // The rectangle of each (component, row slice, column slice), in order of
  // first appearance: a table indexed by the slices where it stays near the
  // task count (this runs for every candidate extent), else hashed.
  SmallVector<unsigned> firstCell;
  uint64_t cells = 0;
  for (auto [rows, cols] : llvm::zip_equal(layout.rows, layout.cols)) {
    firstCell.push_back(cells);
    cells += uint64_t((rows + a - 1) / a) * ((cols + b - 1) / b);
  }
  bool table = cells <= 4 * p.tasks.size() + 64;
  SmallVector<unsigned> rectOfCell(table ? cells : 0, ~0u);
  llvm::DenseMap<std::tuple<unsigned, unsigned, unsigned>, unsigned> ids;
  SmallVector<Rect> rects;
  StationaryPlan plan;
  plan.a = a;
  plan.b = b;
  for (auto [i, task] : llvm::enumerate(p.tasks)) {
    unsigned c = layout.component[i];
    unsigned rowSlice = layout.row[i] / a;
    unsigned colSlice =
        columnSlice(layout.col[i], layout.cols[c], b, p.interleaveColumns);
    unsigned id;
    if (table) {
      unsigned &cell =
          rectOfCell[firstCell[c] + rowSlice * ((layout.cols[c] + b - 1) / b) +
                     colSlice];
      if (cell == ~0u) {
        cell = rects.size();
        rects.emplace_back();
      }
      id = cell;
    } else {
      auto [it, inserted] =
          ids.try_emplace(std::make_tuple(c, rowSlice, colSlice), rects.size());
      if (inserted)
        rects.emplace_back();
      id = it->second;
    }
    Rect &rect = rects[id];
    // A rectangle holds at most `a` A blocks and `b` B blocks (a row is an
    // A block, a column a B block): membership is a short scan.
    if (!llvm::is_contained(rect.aBlocks, task.first))
      rect.aBlocks.push_back(task.first);
    else if (rect.lastA != task.first)
      rect.aRuns = false;
    if (!llvm::is_contained(rect.bBlocks, task.second))
      rect.bBlocks.push_back(task.second);
    else if (rect.lastB != task.second)
      rect.bRuns = false;
    rect.lastA = task.first;
    rect.lastB = task.second;
    ++rect.tasks;
    // A later K part's blocks are its own, so a rectangle has one stage.
    rect.stage = std::max(rect.stage, stageOf(p, i));
    plan.slotOf.push_back(id);
  }
  // Sums in block order, as they always were.
  for (Rect &rect : rects) {
    std::sort(rect.aBlocks.begin(), rect.aBlocks.end());
    std::sort(rect.bBlocks.begin(), rect.bBlocks.end());
  }
  SmallVector<double> times;
  SmallVector<unsigned> stages;
  for (const Rect &rect : rects) {
    int64_t resident = 0, aStep = 0, bStep = 0, aBytes = 0, bBytes = 0;
    int64_t aLargest = 0, bLargest = 0;
    double load = 0.0;
    for (unsigned x : rect.aBlocks) {
      aBytes += p.aBlocks[x].bytes;
      aStep = std::max(aStep, p.aBlocks[x].stepBytes);
      aLargest = std::max(aLargest, p.aBlocks[x].bytes);
      load += p.aBlocks[x].loadCycles;
    }
    for (unsigned x : rect.bBlocks) {
      bBytes += p.bBlocks[x].bytes;
      bStep = std::max(bStep, p.bBlocks[x].stepBytes);
      bLargest = std::max(bLargest, p.bBlocks[x].bytes);
      load += p.bBlocks[x].loadCycles;
    }
    // The shared block stays; the other side streams one K step at a time
    // through two buffers (double buffering: MTE2 overlaps M). With several
    // blocks on both sides, the side whose blocks come in runs streams by
    // whole blocks (a block serves every task of its run) through two
    // buffers while the other side stays resident; else all are resident.
    if (rect.tasks == 1)
      resident = 0; // not merged: the task's own schedule
    else if (rect.bBlocks.size() == 1)
      resident = bBytes + 2 * aStep;
    else if (rect.aBlocks.size() == 1)
      resident = aBytes + 2 * bStep;
    else {
      resident = aBytes + bBytes;
      if (rect.aRuns)
        resident = std::min(resident, bBytes + 2 * aLargest);
      if (rect.bRuns)
        resident = std::min(resident, aBytes + 2 * bLargest);
    }
    int64_t footprint = resident;
    double work = rect.tasks * p.pieceCycles;
    if (footprint > p.l1Bytes)
      return std::nullopt;
    plan.largestFootprint = std::max(plan.largestFootprint, footprint);
    plan.loadCycles += load;
    plan.pieceCycles += work;
    times.push_back(std::max(load, work));
    stages.push_back(rect.stage);
  }
  plan.rectangles = rects.size();
  plan.cycles = groupCycles(p, times, stages);
  return plan;
}

} // namespace

double mlir::pto::detail::groupCycles(const StationaryProblem &problem,
                                      ArrayRef<double> times,
                                      ArrayRef<unsigned> stages) {
  unsigned cores = std::max(1u, problem.cores);
  double total = 0.0;
  std::map<unsigned, SmallVector<double>> byStage;
  for (auto [time, stage] : llvm::zip_equal(times, stages)) {
    total += time + problem.launchCycles;
    byStage[stage].push_back(time + problem.launchCycles);
  }
  // One instance alone: each stage's tasks longest first, each on the core
  // that frees first; a stage starts when the one before has finished.
  double latency = 0.0;
  for (auto &[stage, stageTimes] : byStage) {
    llvm::sort(stageTimes, std::greater<>());
    std::priority_queue<double, std::vector<double>, std::greater<>> free;
    for (unsigned c = 0; c < std::min<size_t>(cores, stageTimes.size()); ++c)
      free.push(0.0);
    double end = 0.0;
    for (double t : stageTimes) {
      double start = free.top();
      free.pop();
      free.push(start + t);
      end = std::max(end, start + t);
    }
    latency += end;
  }
  double overlap = problem.overlapCycles;
  return std::max((total + overlap) / cores,
                  latency / std::max(1.0, problem.instances)) -
         overlap / cores;
}

double mlir::pto::detail::slotsCycles(const StationaryProblem &problem,
                                      ArrayRef<unsigned> slotOf, bool shareA,
                                      bool shareB) {
  struct Slot {
    std::set<unsigned> aBlocks, bBlocks;
    double load = 0.0;
    unsigned tasks = 0, stage = 0;
  };
  std::map<unsigned, Slot> slots;
  for (auto [i, task] : llvm::enumerate(problem.tasks)) {
    Slot &slot = slots[slotOf[i]];
    if (!shareA || slot.aBlocks.insert(task.first).second)
      slot.load += problem.aBlocks[task.first].loadCycles;
    if (!shareB || slot.bBlocks.insert(task.second).second)
      slot.load += problem.bBlocks[task.second].loadCycles;
    ++slot.tasks;
    slot.stage = std::max(slot.stage, stageOf(problem, i));
  }
  SmallVector<double> times;
  SmallVector<unsigned> stages;
  for (auto &[id, slot] : slots) {
    times.push_back(std::max(slot.load, slot.tasks * problem.pieceCycles));
    stages.push_back(slot.stage);
  }
  return groupCycles(problem, times, stages);
}

bool mlir::pto::detail::isBetterPlan(const StationaryPlan &plan,
                                     const StationaryPlan &best) {
  double slack = kSameCycles * best.cycles;
  if (plan.cycles < best.cycles - slack)
    return true;
  if (plan.cycles > best.cycles + slack)
    return false;
  // Equal time: the fewer copy-in cycles (GM->L1: the kernel tensors'
  // copy-ins share the chip's DDR bandwidth, which the group time leaves
  // out), then the fewest tasks per rectangle (the most parallel).
  double loadSlack = kSameCycles * best.loadCycles;
  if (plan.loadCycles < best.loadCycles - loadSlack)
    return true;
  if (plan.loadCycles > best.loadCycles + loadSlack)
    return false;
  return plan.a * plan.b < best.a * best.b;
}

std::optional<StationaryPlan>
mlir::pto::detail::planStationary(const StationaryProblem &problem,
                                  double baseline) {
  if (problem.tasks.size() < 2 || problem.pieceCycles <= 0.0)
    return std::nullopt;
  Layout layout = layoutOf(problem);
  if (!evaluate(problem, layout, 1, 1))
    return std::nullopt; // one task alone does not fit L1
  // An extent past a component's rows (columns) cuts it like its row
  // (column) count: the rectangles, and so the plan but for its extents, are
  // those of the clamped extents, evaluated once.
  unsigned rows = 1, cols = 1;
  for (auto [row, col] : llvm::zip_equal(layout.row, layout.col)) {
    rows = std::max(rows, row + 1);
    cols = std::max(cols, col + 1);
  }
  std::map<std::pair<unsigned, unsigned>, std::optional<StationaryPlan>> cuts;
  std::optional<StationaryPlan> best;
  for (unsigned a = 1; a <= problem.maxExtent; ++a)
    for (unsigned b = 1; b <= problem.maxExtent; ++b) {
      if (a * b < 2)
        continue;
      std::pair<unsigned, unsigned> cut(std::min(a, rows), std::min(b, cols));
      auto [it, inserted] = cuts.try_emplace(cut);
      if (inserted)
        it->second = evaluate(problem, layout, cut.first, cut.second);
      std::optional<StationaryPlan> plan = it->second;
      if (plan) {
        plan->a = a;
        plan->b = b;
      }
      if (!plan || plan->rectangles == problem.tasks.size())
        continue;
      if (!best || isBetterPlan(*plan, *best))
        best = std::move(plan);
    }
  // Merging must shorten the group.
  if (!best || best->cycles >= baseline * (1 - kSameCycles))
    return std::nullopt;
  return best;
}

double mlir::pto::detail::stationaryCycles(const StationaryProblem &problem) {
  SmallVector<unsigned> own;
  for (unsigned i = 0; i < problem.tasks.size(); ++i)
    own.push_back(i);
  return slotsCycles(problem, own);
}
