//===- CostModelSimulate.cpp - the runtime as a discrete-event simulation -===//
//
// Part of the cost model (docs/CostModel.md): the recorded launches
// scheduled on the cores of the platform, sharing its L2 and HBM
// bandwidth, in the order and with the dependences the runtime keeps.
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cost;

namespace {
/// Max-min fair share of one bandwidth resource: the launches whose demand
/// is below the fair share get it, the rest split what remains equally.
/// Returns each launch's granted fraction of its demand (<= 1).
void shareBandwidth(ArrayRef<double> demand, double capacity,
                    SmallVectorImpl<double> &fraction, bool &saturated) {
  fraction.assign(demand.size(), 1.0);
  double total = 0;
  for (double d : demand)
    total += d;
  saturated = total > capacity * (1 + 1e-9);
  if (!saturated)
    return;
  SmallVector<unsigned> order(demand.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order,
             [&](unsigned a, unsigned b) { return demand[a] < demand[b]; });
  double left = capacity;
  size_t n = order.size();
  for (size_t j = 0; j < order.size(); ++j) {
    unsigned i = order[j];
    double share = left / double(n - j);
    if (demand[i] <= share) {
      left -= demand[i];
      continue;
    }
    fraction[i] = share / demand[i];
    left -= share;
  }
}
} // namespace

namespace {
/// The unfinished launches with one kind of access to one buffer, for the
/// readiness check: the earliest one a launch must wait for is found through
/// an index of their regions' first dim, not by visiting every unfinished
/// launch (a stitch of 1024 root instances storing disjoint rows of one
/// tensor made the check quadratic). Regions of the shape the index was
/// built for are filed by their row range in a grid whose cell is the
/// smallest power of two not below the range (at most two cells per region);
/// whole regions and other shapes of the storage are compared one by one.
class UnfinishedRegions {
public:
  void insert(size_t j, const GMRegion *region) {
    // A launch's first access to the buffer speaks for it (as a scan that
    // looks its access up by buffer would find).
    if (!regions.try_emplace(j, region).second || region->empty())
      return; // an empty region intersects nothing
    all.insert(j);
    if (region->whole)
      return void(wide.insert(j));
    if (shape.empty())
      shape = region->shape;
    if (!llvm::equal(shape, region->shape))
      return void(wide.insert(j));
    auto [shift, first, last] = cellsOf(*region);
    for (int64_t cell = first; cell <= last; ++cell)
      grids[shift][cell].insert(j);
  }

  void erase(size_t j) {
    auto it = regions.find(j);
    if (it == regions.end())
      return;
    const GMRegion *region = it->second;
    regions.erase(it);
    if (region->empty())
      return;
    all.erase(j);
    if (wide.erase(j))
      return;
    auto [shift, first, last] = cellsOf(*region);
    auto &grid = grids[shift];
    for (int64_t cell = first; cell <= last; ++cell) {
      auto c = grid.find(cell);
      c->second.erase(j);
      if (c->second.empty())
        grid.erase(c);
    }
  }

  /// The smallest j < i filed here whose region intersects `mine` and that
  /// `accept`s, or `none`.
  template <typename Accept>
  size_t first(size_t i, const GMRegion &mine, Accept accept,
               size_t none) const {
    size_t best = none;
    auto scan = [&](const std::set<size_t> &entries) {
      for (size_t j : entries) {
        if (j >= i || j >= best)
          break;
        if (accept(j) && mine.intersects(*regions.lookup(j))) {
          best = j;
          break;
        }
      }
    };
    if (mine.empty())
      return none;
    if (mine.whole || !llvm::equal(shape, mine.shape)) {
      scan(all);
      return best;
    }
    scan(wide);
    for (const auto &[shift, grid] : grids) {
      int64_t firstCell = mine.lo[0] >> shift,
              lastCell = (mine.hi[0] - 1) >> shift;
      if (uint64_t(lastCell - firstCell) >= grid.size()) {
        for (const auto &cell : grid)
          scan(cell.second);
        continue;
      }
      for (int64_t cell = firstCell; cell <= lastCell; ++cell)
        if (auto c = grid.find(cell); c != grid.end())
          scan(c->second);
    }
    return best;
  }

private:
  static std::tuple<unsigned, int64_t, int64_t>
  cellsOf(const GMRegion &region) {
    unsigned shift = llvm::Log2_64_Ceil(
        uint64_t(std::max<int64_t>(1, region.hi[0] - region.lo[0])));
    return {shift, region.lo[0] >> shift, (region.hi[0] - 1) >> shift};
  }

  SmallVector<int64_t, 4> shape; // the shape of the grid's regions
  std::set<size_t> all, wide;
  std::map<unsigned, std::map<int64_t, std::set<size_t>>> grids;
  llvm::DenseMap<size_t, const GMRegion *> regions;
};
} // namespace

// A discrete-event simulation of the runtime (docs/CostModel.md):
// - the control AICPU submits device tasks (a stitch, or an unstitched root
//   call) one after another, `submitUs` each;
// - a submitted launch is ready once its token deps and every earlier
//   launch of another root instance with a conflicting access to an
//   intersecting region of the same GM tensor have finished;
// - each pool (AIC, AIV) has a ready queue served by the device_sched_mode
//   policy whenever a core is free (lowest-numbered free core);
// - a running launch first pays its fixed overhead, then runs its body
//   (max over pipes) at a progress rate <= 1: the concurrently running
//   bodies share the chip's L2 and HBM bandwidth max-min fairly, and a
//   launch whose GM demand is not granted in full progresses at the
//   granted fraction.
void CostModel::simulate(Report &r) {
  size_t n = launches.size();
  bandwidth.clear();
  llvm::DenseMap<uint64_t, size_t> index;
  for (auto [i, launch] : llvm::enumerate(launches))
    index[launch.id] = i;
  std::vector<SmallVector<size_t, 2>> deps(n);
  for (size_t i = 0; i < n; ++i)
    for (uint64_t d : launches[i].deps)
      if (auto it = index.find(d); it != index.end() && it->second < i)
        deps[i].push_back(it->second);

  // Submission times, in execution order.
  llvm::DenseMap<uint64_t, double> stitchSubmit, instanceSubmit;
  double lastSubmit = 0;
  std::vector<std::pair<double, size_t>> releases; // (time, first launch)
  auto groupOf = [&](int64_t stitch) {
    auto it = stitchGroup.find(stitch);
    return it == stitchGroup.end() ? stitch : it->second;
  };
  for (size_t i = 0; i < n; ++i) {
    LaunchRecord &launch = launches[i];
    auto &map = launch.stitch >= 0 ? stitchSubmit : instanceSubmit;
    uint64_t key =
        launch.stitch >= 0 ? uint64_t(groupOf(launch.stitch)) : launch.instance;
    auto [it, inserted] = map.try_emplace(key, 0.0);
    if (inserted) {
      lastSubmit += options.submitUs * 1e-6;
      it->second = lastSubmit;
      ++r.deviceTasks;
    }
    launch.submit = it->second;
  }
  // Launches in order of submission (stable: execution order within).
  std::vector<size_t> bySubmit(n);
  for (size_t i = 0; i < n; ++i)
    bySubmit[i] = i;
  std::stable_sort(bySubmit.begin(), bySubmit.end(), [&](size_t a, size_t b) {
    return launches[a].submit < launches[b].submit;
  });

  // The buffer each access touches. The interpreter reuses a workspace
  // buffer across stitches; inside a merged device task each root instance
  // has its own (docs/PyPTOModel.md#stitching), so there a write by an instance
  // that has not written the current contents starts a new buffer, and reads
  // see the latest one. Elsewhere the tensor is its own key.
  struct Version {
    uint64_t key;
    int64_t group, stitch;
    SmallVector<uint64_t, 2> writers; // instances
  };
  struct Buffers {
    Version current;
    std::vector<std::pair<size_t, uint64_t>> starts; // (first launch, key)
  };
  llvm::DenseMap<const void *, Buffers> versions;
  uint64_t nextKey = 0;
  llvm::DenseMap<const void *, uint64_t> plainKeys;
  // A launch's accesses by buffer key: the kinds (bits 1 read, 2 write,
  // 4 atomic), the record's access they came from (-1: none) and whether a
  // tile read makes the read region the whole buffer.
  struct KeyedAccess {
    uint64_t key;
    uint8_t bits;
    int access;
    bool wholeRead;
  };
  std::vector<SmallVector<KeyedAccess, 4>> keyed(n);
  for (size_t i = 0; i < n; ++i) {
    const LaunchRecord &launch = launches[i];
    int64_t g = launch.stitch >= 0 ? groupOf(launch.stitch) : -1;
    for (auto [accessIndex, access] : llvm::enumerate(launch.accesses)) {
      auto [tensor, bits] = access;
      int a = int(accessIndex);
      auto t = traffic.find(tensor);
      bool workspace = t != traffic.end() && t->second.workspace;
      if (!workspace || g < 0) {
        auto [it, inserted] = plainKeys.try_emplace(tensor, nextKey);
        if (inserted)
          ++nextKey;
        keyed[i].push_back({it->second, bits, a, false});
        continue;
      }
      auto [it, inserted] = versions.try_emplace(tensor);
      Version &v = it->second.current;
      bool writes = bits & 6;
      if (!inserted && v.group != g) {
        // A new device task reuses the buffer (PyPTO's reuse edges): same
        // key, so it waits for the previous task's accesses.
        v.group = g;
        v.stitch = launch.stitch;
        v.writers.clear();
      }
      if (inserted || (writes && v.stitch != launch.stitch &&
                       !llvm::is_contained(v.writers, launch.instance))) {
        v = {nextKey++, g, launch.stitch, {}};
        it->second.starts.push_back({i, v.key});
      }
      if (writes && !llvm::is_contained(v.writers, launch.instance))
        v.writers.push_back(launch.instance);
      keyed[i].push_back({v.key, bits, a, false});
    }
    // A tile read sees the buffer current when the control program viewed
    // it (the launches before its snapshot), not a later instance's.
    for (const auto &read : launch.tileReads) {
      const void *tensor = read.first;
      uint64_t snapshot = read.second, key;
      auto it = versions.find(tensor);
      if (it != versions.end()) {
        auto &starts = it->second.starts;
        auto after = llvm::partition_point(
            starts, [&](auto &s) { return s.first < snapshot; });
        key = after == starts.begin() ? starts.front().second
                                      : std::prev(after)->second;
      } else {
        auto [plain, inserted] = plainKeys.try_emplace(tensor, nextKey);
        if (inserted)
          ++nextKey;
        key = plain->second;
      }
      auto &acc = keyed[i];
      auto existing = llvm::find_if(acc, [&](auto &a) { return a.key == key; });
      if (existing == acc.end()) {
        acc.push_back({key, 1, -1, true});
      } else {
        existing->bits |= 1;
        existing->wholeRead = true;
      }
    }
  }
  static const GMRegion wholeRegion = [] {
    GMRegion r;
    r.whole = true;
    return r;
  }();
  // The region of `access` (of launch i) with kind k (0 read, 1 write,
  // 2 atomic).
  auto regionOf = [&](size_t i, const KeyedAccess &access,
                      unsigned k) -> const GMRegion & {
    if ((k == 0 && access.wholeRead) || access.access < 0)
      return wholeRegion;
    return launches[i].accessRegions[access.access][k];
  };

  // Unfinished launches per (buffer, access kind), by execution index.
  std::vector<std::array<UnfinishedRegions, 3>> unfinished(nextKey);
  for (size_t i = 0; i < n; ++i)
    for (const KeyedAccess &access : keyed[i])
      for (unsigned k = 0; k < 3; ++k)
        if (access.bits & (1u << k))
          unfinished[access.key][k].insert(i, &regionOf(i, access, k));
  std::vector<char> finished(n, 0);
  // An unfinished launch `i` must wait for, or n if none.
  auto blocker = [&](size_t i) -> size_t {
    for (size_t d : deps[i])
      if (!finished[d])
        return d;
    const LaunchRecord &launch = launches[i];
    // Kinds an access of kind a conflicts with (bits 1 read, 2 write,
    // 4 atomic): reads commute with reads, atomics with atomics.
    static constexpr unsigned conflicts[3] = {6, 7, 3};
    for (const KeyedAccess &access : keyed[i]) {
      auto &sets = unfinished[access.key];
      for (unsigned a = 0; a < 3; ++a) {
        if (!(access.bits & (1u << a)))
          continue;
        const GMRegion &mine = regionOf(i, access, a);
        for (unsigned k = 0; k < 3; ++k) {
          if (!(conflicts[a] & (1u << k)))
            continue;
          size_t j = sets[k].first(
              i, mine,
              [&](size_t j) { return launches[j].instance != launch.instance; },
              n);
          if (j != n)
            return j;
        }
      }
    }
    return n;
  };

  unsigned mode = options.schedMode;
  bool lifo = mode == 1 || mode == 3;
  double overhead = options.launchOverheadUs * 1e-6 +
                    (mode >= 2 ? options.fairnessOverheadUs * 1e-6 : 0);
  for (LaunchRecord &launch : launches) {
    double slowest = 0;
    for (unsigned p = 0; p < kNumPipes; ++p)
      slowest = std::max(slowest, launch.pipeSeconds[p]);
    launch.body = slowest;
    launch.overhead = overhead;
  }

  std::vector<SmallVector<size_t, 2>> waiters(n);
  std::set<std::pair<double, size_t>> ready[2]; // (ready time, index)
  std::set<unsigned> freeCores[2];
  for (unsigned c = 0; c < std::max<int64_t>(1, platform.cubeCores); ++c)
    freeCores[0].insert(c);
  for (unsigned c = 0; c < std::max<int64_t>(1, platform.vectorCores); ++c)
    freeCores[1].insert(c);
  double now = 0;
  auto check = [&](size_t i) {
    size_t b = blocker(i);
    if (b == n) {
      launches[i].ready = now;
      ready[launches[i].cube ? 0 : 1].insert({now, i});
    } else {
      waiters[b].push_back(i);
    }
  };

  // Running launches: index, remaining body (uncontended seconds), the end
  // of the overhead phase, the progress rate.
  struct Running {
    size_t i;
    double remaining, bodyFrom, rate = 1;
  };
  std::vector<Running> running;
  size_t nextRelease = 0, done = 0;
  double l2 = l2BytesPerSec, hbm = platform.perf.gmBytesPerSec;
  SmallVector<double> demandL2, demandHbm, fracL2, fracHbm;
  auto computeRates = [&](bool &satL2, bool &satHbm) {
    demandL2.clear();
    demandHbm.clear();
    SmallVector<unsigned> active;
    for (auto [j, run] : llvm::enumerate(running)) {
      run.rate = 1;
      const LaunchRecord &launch = launches[run.i];
      if (now < run.bodyFrom || launch.body <= 0)
        continue;
      active.push_back(j);
      demandL2.push_back(double(launch.gmReadBytes + launch.gmWriteBytes) /
                         launch.body);
      demandHbm.push_back(double(launch.hbmBytes) / launch.body);
    }
    satL2 = satHbm = false;
    if (!options.contention || active.empty())
      return;
    shareBandwidth(demandL2, l2, fracL2, satL2);
    shareBandwidth(demandHbm, hbm, fracHbm, satHbm);
    for (auto [k, j] : llvm::enumerate(active))
      running[j].rate = std::min(fracL2[k], fracHbm[k]);
  };

  while (done < n) {
    // Release the device tasks submitted by now.
    while (nextRelease < n && launches[bySubmit[nextRelease]].submit <= now)
      check(bySubmit[nextRelease++]);
    // Dispatch.
    for (unsigned pool = 0; pool < 2; ++pool) {
      while (!freeCores[pool].empty() && !ready[pool].empty()) {
        auto it = ready[pool].begin();
        if (lifo) // the latest ready time, lowest index among those
          it =
              ready[pool].lower_bound({std::prev(ready[pool].end())->first, 0});
        size_t i = it->second;
        LaunchRecord &launch = launches[i];
        // A MIX launch takes an AIC and two AIVs (it waits for them, and
        // the launches queued behind it wait too).
        if (launch.mix && freeCores[1].size() < 2)
          break;
        ready[pool].erase(it);
        if (launch.mix)
          for (unsigned &core : launch.mixVectorCores) {
            core = *freeCores[1].begin();
            freeCores[1].erase(freeCores[1].begin());
          }
        launch.core = *freeCores[pool].begin();
        freeCores[pool].erase(freeCores[pool].begin());
        launch.start = now;
        running.push_back({i, launch.body, now + launch.overhead});
      }
    }
    bool satL2, satHbm;
    computeRates(satL2, satHbm);
    // The next event: a submission, an overhead phase ending, a body ending.
    double next = std::numeric_limits<double>::infinity();
    if (nextRelease < n)
      next = launches[bySubmit[nextRelease]].submit;
    for (const Running &run : running) {
      if (now < run.bodyFrom)
        next = std::min(next, run.bodyFrom);
      else
        next = std::min(next, now + run.remaining / run.rate);
    }
    if (!std::isfinite(next)) {
      // Nothing can run: a dependency cycle (should not happen); give up.
      break;
    }
    double dt = next - now;
    if (satL2)
      r.l2SaturatedSeconds += dt;
    if (satHbm)
      r.hbmSaturatedSeconds += dt;
    // The granted bandwidth, for the trace's counter track (changes only).
    double grantedL2 = 0, grantedHbm = 0;
    for (const Running &run : running)
      if (now >= run.bodyFrom && launches[run.i].body > 0) {
        const LaunchRecord &launch = launches[run.i];
        grantedL2 += run.rate *
                     double(launch.gmReadBytes + launch.gmWriteBytes) /
                     launch.body;
        grantedHbm += run.rate * double(launch.hbmBytes) / launch.body;
      }
    if (bandwidth.empty() ||
        std::abs(bandwidth.back().l2 - grantedL2) > 1e-3 * l2 ||
        std::abs(bandwidth.back().hbm - grantedHbm) > 1e-3 * hbm)
      bandwidth.push_back({now, grantedL2, grantedHbm});
    for (Running &run : running)
      if (now >= run.bodyFrom)
        run.remaining -= run.rate * dt;
    now = next;
    // Retire finished bodies.
    for (size_t j = 0; j < running.size();) {
      Running &run = running[j];
      double tolerance = 1e-12 + 1e-9 * launches[run.i].body;
      if (now < run.bodyFrom || run.remaining > tolerance) {
        ++j;
        continue;
      }
      size_t i = run.i;
      LaunchRecord &launch = launches[i];
      launch.end = now;
      launch.seconds = launch.end - launch.start;
      finished[i] = 1;
      ++done;
      freeCores[launch.cube ? 0 : 1].insert(launch.core);
      if (launch.mix)
        freeCores[1].insert(std::begin(launch.mixVectorCores),
                            std::end(launch.mixVectorCores));
      for (const KeyedAccess &access : keyed[i])
        for (unsigned k = 0; k < 3; ++k)
          if (access.bits & (1u << k))
            unfinished[access.key][k].erase(i);
      running[j] = running.back();
      running.pop_back();
      SmallVector<size_t, 2> wake = std::move(waiters[i]);
      waiters[i].clear();
      for (size_t w : wake)
        check(w);
    }
  }
  double makespan = 0, wait = 0;
  for (LaunchRecord &launch : launches) {
    makespan = std::max(makespan, launch.end);
    wait += launch.start - launch.ready;
    r.contentionDelaySeconds +=
        std::max(0.0, launch.seconds - launch.overhead - launch.body);
  }
  r.scheduleSeconds = makespan;
  r.meanReadyWaitSeconds = n ? wait / double(n) : 0;
}
