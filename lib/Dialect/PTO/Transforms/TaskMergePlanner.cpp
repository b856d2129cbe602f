//===- TaskMergePlanner.cpp - the greedy merge of one isomorphism group ---===//
//
// GroupPlanner (TaskMergeSupport.h): which tasks of a group pto-l1-reuse and
// pto-nbuffer-merge merge into one, and where the merged task goes, without
// reordering GM accesses that conflict.
//
//===----------------------------------------------------------------------===//

#include "TaskMergeSupport.h"

using namespace mlir;
using namespace mlir::pto;

namespace mlir::pto::taskmerge {

GroupPlanner::GroupPlanner(BlockAccesses &accesses, ArrayRef<TaskInfo> group,
                           int64_t l1Bytes)
    : accesses(accesses), group(group), l1Bytes(l1Bytes) {
  // The ops from the group's first task to its last, numbered as
  // `taskInfos` numbers them (from the earliest task): only units between
  // two members are ever compared.
  unsigned last = 0;
  Operation *first = nullptr;
  for (const TaskInfo &info : group) {
    last = std::max(last, info.node);
    if (info.node == 0)
      first = info.task;
  }
  for (Operation *op = first; op && nodes.size() <= last;
       op = op->getNextNode())
    nodes.push_back(op);
  summaries.assign(nodes.size(), nullptr);
  accessIds.resize(nodes.size());
  byBase.resize(nodes.size());
}

Plan GroupPlanner::plan(int64_t n, unsigned sideMask, unsigned minTasks,
                        bool requireSharing, ArrayRef<unsigned> slots) {
  struct Target {
    SmallVector<unsigned, 4> members; // group indices
    unsigned host;                    // the member whose position it holds
    DenseSet<unsigned> features;      // allowed-side features
    Footprint footprint;
    unsigned conflictClass = 0; // first fit: see `open` below
    AccessIndex accesses;       // first fit: its members' GM accesses
  };
  // Units in block order: the original node indices a node's position
  // holds (empty once moved into a later merged task).
  std::vector<SmallVector<unsigned, 4>> units(nodes.size());
  for (unsigned i = 0; i < nodes.size(); ++i)
    units[i] = {i};
  std::map<unsigned, Target> targets; // node index of its position -> target
  Plan result;
  unsigned tasks = group.size();
  uint64_t uniqueKey = uint64_t(1) << 40;

  // First fit (without `requireSharing`) takes the earliest target that
  // may take the task. Scanning every target per task is quadratic when
  // most refuse (e.g. tasks that all write one region conflict with each
  // other and never merge), so the targets that are not full yet are kept
  // by conflict class: whether a target's unit conflicts with a task
  // depends only on its set of GM accesses, so one check per class skips
  // every target of a conflicting class.
  bool bySlot = !slots.empty();
  bool firstFit = !requireSharing && !bySlot;
  DenseMap<unsigned, std::set<unsigned>> openByClass; // class -> positions
  DenseMap<unsigned, unsigned> openBySlot;            // slot -> position
  // A target that a later unit conflicts with can no longer move down to a
  // task past that unit (units only ever move down, except the task being
  // placed, which moves up): it is *up-only*, kept apart from the classes
  // above and checked from the task backwards, where a conflicting unit
  // ends the search (no task may move up across it). Once every later task
  // captures a value defined at or after it, no task can move up to it
  // either and it is dropped. Without this, targets that refuse every task
  // are checked again per task (quadratic when all tasks conflict).
  // `laterCapture[gi]`: the earliest last capture of group[gi..].
  std::vector<int64_t> laterCapture;
  if (firstFit) {
    laterCapture.assign(group.size() + 1, std::numeric_limits<int64_t>::max());
    for (unsigned gi = group.size(); gi-- > 0;)
      laterCapture[gi] = std::min(laterCapture[gi + 1], group[gi].lastCapture);
  }
  std::set<unsigned> upOnly; // positions of open up-only targets
  auto open = [&](unsigned pos, Target &target) {
    if (!firstFit || static_cast<int64_t>(target.members.size()) >= n)
      return;
    target.conflictClass = conflictClassOf(units[pos]);
    openByClass[target.conflictClass].insert(pos);
  };
  auto close = [&](unsigned pos, Target &target) {
    if (!firstFit)
      return;
    upOnly.erase(pos);
    auto it = openByClass.find(target.conflictClass);
    if (it == openByClass.end())
      return;
    it->second.erase(pos);
    if (it->second.empty())
      openByClass.erase(it);
  };
  // Made up-only after the task is placed (the cursors below iterate the
  // open sets): the targets of classes that conflict with the task, before
  // the task's unit, and the targets found blocked by a unit between them
  // and the task.
  SmallVector<unsigned> conflicting;
  SmallVector<unsigned> blocked;
  auto demote = [&](unsigned gi, unsigned pos) {
    if (static_cast<int64_t>(pos) > laterCapture[gi + 1])
      upOnly.insert(pos);
  };
  auto closeBlocked = [&](unsigned gi, unsigned placedAt) {
    if (!firstFit)
      return;
    for (unsigned conflictClass : conflicting) {
      auto it = openByClass.find(conflictClass);
      if (it == openByClass.end())
        continue;
      std::set<unsigned> &positions = it->second;
      auto end = positions.lower_bound(placedAt);
      for (auto p = positions.begin(); p != end; ++p)
        demote(gi, *p);
      positions.erase(positions.begin(), end);
      if (positions.empty())
        openByClass.erase(it);
    }
    for (unsigned pos : blocked) {
      auto target = targets.find(pos);
      if (target == targets.end())
        continue;
      auto it = openByClass.find(target->second.conflictClass);
      if (it == openByClass.end() || !it->second.erase(pos))
        continue; // full, or already up-only
      if (it->second.empty())
        openByClass.erase(it);
      demote(gi, pos);
    }
    int64_t captured = laterCapture[gi + 1];
    if (captured >= std::numeric_limits<unsigned>::max())
      upOnly.clear();
    else if (captured >= 0)
      upOnly.erase(upOnly.begin(),
                   upOnly.upper_bound(static_cast<unsigned>(captured)));
    conflicting.clear();
    blocked.clear();
  };

  for (unsigned gi = 0; gi < group.size(); ++gi) {
    const TaskInfo &info = group[gi];
    Target mine;
    mine.members = {gi};
    mine.host = gi;
    for (const Load &load : info.loads) {
      bool allowed = load.sides & sideMask;
      uint64_t key = allowed ? load.feature : uniqueKey++;
      if (allowed)
        mine.features.insert(load.feature);
      for (int64_t step : load.steps)
        mine.footprint[step][key] = load.bytes;
      if (load.steps.empty())
        mine.footprint[kEveryStep][key] = load.bytes;
    }
    unsigned here = info.node;
    // A task yielding values stays where it is, alone.
    if (info.task->getNumResults() != 0)
      continue;
    std::optional<unsigned> best;
    bool bestMovesUp = false;
    int64_t bestShared = 0;
    bool mayMerge = tasks > minTasks && n > 1;
    // Whether the task may join the target at `pos`, and how.
    auto consider = [&](unsigned pos, Target &target) {
      int64_t shared = 0;
      for (const Load &load : info.loads)
        if ((load.sides & sideMask) && target.features.contains(load.feature))
          shared += load.bytes;
      if (requireSharing && !bySlot && shared <= bestShared)
        return;
      // A slot's rectangle was checked against L1 in its members' order,
      // where a streamed block is live during its run only
      // (OperandStationary.h); all of them at once may not fit.
      if (!bySlot &&
          mergedFootprintBytes(target.footprint, mine.footprint) > l1Bytes)
        return;
      // The target moves down to the task; failing that, the task moves up
      // to the target.
      bool movesUp = false;
      if (firstFit ? target.accesses.conflicts(summary(here))
                   : conflictsWith(units[pos], units[here]))
        return;
      if (conflictsBetween(units[pos], pos, here, units)) {
        if (firstFit)
          blocked.push_back(pos);
        if (info.lastCapture >= static_cast<int64_t>(pos) ||
            conflictsBetween(units[here], pos, here, units))
          return;
        movesUp = true;
      }
      best = pos;
      bestMovesUp = movesUp;
      bestShared = shared;
    };
    if (mayMerge && firstFit) {
      // The open targets of the classes that do not conflict with the
      // task, in position order, until one takes it.
      using Cursor = std::pair<unsigned, std::set<unsigned>::const_iterator>;
      SmallVector<const std::set<unsigned> *> classes;
      std::priority_queue<std::pair<unsigned, unsigned>,
                          std::vector<std::pair<unsigned, unsigned>>,
                          std::greater<>>
          next; // (position, index into `cursors`)
      SmallVector<Cursor> cursors;
      for (auto &[conflictClass, positions] : openByClass) {
        if (targets.find(*positions.begin())
                ->second.accesses.conflicts(summary(here))) {
          conflicting.push_back(conflictClass);
          continue;
        }
        cursors.push_back({0, positions.begin()});
        classes.push_back(&positions);
        next.push({*positions.begin(), cursors.size() - 1});
      }
      // The up-only targets the task may move up to: back from the task
      // to the first unit it conflicts with, or to its last capture.
      std::set<unsigned> upCandidates;
      if (!upOnly.empty()) {
        int64_t lowest =
            std::max<int64_t>(*upOnly.begin(), info.lastCapture + 1);
        for (int64_t k = static_cast<int64_t>(here) - 1; k >= lowest; --k) {
          auto target = targets.find(k);
          if (target != targets.end()
                  ? target->second.accesses.conflicts(summary(here))
                  : conflictsWith(units[k], units[here]))
            break;
          if (upOnly.count(k))
            upCandidates.insert(k);
        }
      }
      if (!upCandidates.empty()) {
        cursors.push_back({0, upCandidates.begin()});
        classes.push_back(&upCandidates);
        next.push({*upCandidates.begin(), cursors.size() - 1});
      }
      while (!best && !next.empty()) {
        auto [pos, c] = next.top();
        next.pop();
        consider(pos, targets.find(pos)->second);
        auto &it = cursors[c].second;
        if (++it != classes[c]->end())
          next.push({*it, c});
      }
    } else if (mayMerge && bySlot) {
      if (auto it = openBySlot.find(slots[gi]); it != openBySlot.end()) {
        Target &target = targets.find(it->second)->second;
        if (static_cast<int64_t>(target.members.size()) < n)
          consider(it->second, target);
      }
    } else if (mayMerge) {
      for (auto &[pos, target] : targets)
        if (static_cast<int64_t>(target.members.size()) < n)
          consider(pos, target);
    }
    if (!best) {
      // The task's accesses are filed where it ends up: here, or in the
      // target it joins (below).
      if (firstFit)
        mine.accesses.add(summary(here));
      auto [it, inserted] = targets.emplace(here, std::move(mine));
      open(here, it->second);
      if (bySlot)
        openBySlot[slots[gi]] = here;
      closeBlocked(gi, here);
      continue;
    }
    close(*best, targets[*best]);
    Target target = std::move(targets[*best]);
    targets.erase(*best);
    target.members.push_back(gi);
    if (firstFit)
      target.accesses.add(summary(here));
    for (unsigned f : mine.features)
      target.features.insert(f);
    for (auto &[step, loads] : mine.footprint)
      for (auto &[key, bytes] : loads)
        target.footprint[step][key] = bytes;
    unsigned from = bestMovesUp ? here : *best;
    unsigned to = bestMovesUp ? *best : here;
    SmallVector<unsigned, 4> moved = std::move(units[from]);
    units[from].clear();
    if (bestMovesUp) {
      units[to].append(moved.begin(), moved.end());
    } else {
      units[to].insert(units[to].begin(), moved.begin(), moved.end());
      target.host = gi;
    }
    auto [placed, inserted] = targets.emplace(to, std::move(target));
    open(to, placed->second);
    if (bySlot)
      openBySlot[slots[gi]] = to;
    result.savedBytes += bestShared;
    --tasks;
    closeBlocked(gi, to);
  }
  for (auto &[pos, target] : targets) {
    result.largest = std::max<unsigned>(result.largest, target.members.size());
    result.targets.push_back(std::move(target.members));
    result.hosts.push_back(target.host);
  }
  result.tasksAfter = tasks;
  return result;
}

const GMAccessSummary &GroupPlanner::summary(unsigned node) {
  const GMAccessSummary *&known = summaries[node];
  if (!known)
    known = &accesses.summary(nodes[node]);
  return *known;
}

bool GroupPlanner::conflicts(unsigned a, unsigned b) {
  auto key = std::make_pair(std::min(a, b), std::max(a, b));
  if (auto it = conflictMemo.find(key); it != conflictMemo.end())
    return it->second;
  const AccessesByBase &ba = accessesByBase(a), &bb = accessesByBase(b);
  bool c = ba.anything || bb.anything
               ? conflict(summary(a), summary(b))
               : sameBaseConflict(summary(a), ba, summary(b), bb);
  conflictMemo[key] = c;
  return c;
}

const GroupPlanner::AccessesByBase &
GroupPlanner::accessesByBase(unsigned node) {
  std::optional<AccessesByBase> &sorted = byBase[node];
  if (sorted)
    return *sorted;
  sorted.emplace();
  const GMAccessSummary &s = summary(node);
  sorted->anything = s.unknown;
  for (auto [i, access] : llvm::enumerate(s.accesses)) {
    if (!access.storage)
      sorted->anything = true;
    sorted->entries.push_back({access.base.getAsOpaquePointer(),
                               access.kind == GMAccess::kRead,
                               static_cast<unsigned>(i)});
  }
  std::stable_sort(sorted->entries.begin(), sorted->entries.end(),
                   [](const auto &x, const auto &y) {
                     if (x.base != y.base)
                       return std::less<const void *>()(x.base, y.base);
                     return x.read < y.read;
                   });
  return *sorted;
}

bool GroupPlanner::sameBaseConflict(const GMAccessSummary &a,
                                    const AccessesByBase &ba,
                                    const GMAccessSummary &b,
                                    const AccessesByBase &bb) {
  std::less<const void *> before;
  auto x = ba.entries.begin(), y = bb.entries.begin();
  while (x != ba.entries.end() && y != bb.entries.end()) {
    if (before(x->base, y->base)) {
      ++x;
      continue;
    }
    if (before(y->base, x->base)) {
      ++y;
      continue;
    }
    const void *base = x->base;
    auto xEnd = x, yEnd = y;
    while (xEnd != ba.entries.end() && xEnd->base == base)
      ++xEnd;
    while (yEnd != bb.entries.end() && yEnd->base == base)
      ++yEnd;
    for (auto i = x; i != xEnd; ++i)
      for (auto j = y; j != yEnd; ++j) {
        // The rest of `b`'s accesses of the base are plain reads too.
        if (i->read && j->read)
          break;
        const GMAccess &p = a.accesses[i->index], &q = b.accesses[j->index];
        if (GMAccessAnalysis::mustOrder(p.kind, q.kind) &&
            GMAccessAnalysis::mayOverlap(p, q))
          return true;
      }
    x = xEnd;
    y = yEnd;
  }
  return false;
}

unsigned GroupPlanner::conflictClassOf(ArrayRef<unsigned> unit) {
  constexpr size_t kMaxAccesses = 64;
  ClassKey key;
  for (unsigned node : unit) {
    key.first |= summary(node).unknown;
    ArrayRef<unsigned> ids = accessIdsOf(node);
    if (key.second.size() + ids.size() > kMaxAccesses)
      return (1u << 31) + uniqueClasses++;
    key.second.append(ids.begin(), ids.end());
  }
  llvm::sort(key.second);
  key.second.erase(std::unique(key.second.begin(), key.second.end()),
                   key.second.end());
  return classes.try_emplace(std::move(key), classes.size() + 1).first->second;
}

ArrayRef<unsigned> GroupPlanner::accessIdsOf(unsigned node) {
  std::optional<SmallVector<unsigned, 4>> &ids = accessIds[node];
  if (ids)
    return *ids;
  ids.emplace();
  for (const GMAccess &a : summary(node).accesses) {
    AccessKey access{
        a.base.getAsOpaquePointer(), a.tensor.getAsOpaquePointer(), a.kind, {}};
    for (const GMAccess::Range &d : a.dims)
      std::get<3>(access).emplace_back(
          d.unknown, d.symbolic.getAsOpaquePointer(), d.lo, d.size);
    ids->push_back(accessKeys.try_emplace(std::move(access), accessKeys.size())
                       .first->second);
  }
  return *ids;
}

bool GroupPlanner::conflictsWith(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  for (unsigned x : a)
    for (unsigned y : b)
      if (conflicts(x, y))
        return true;
  return false;
}

bool GroupPlanner::conflictsBetween(
    ArrayRef<unsigned> members, unsigned from, unsigned to,
    const std::vector<SmallVector<unsigned, 4>> &units) {
  for (unsigned k = from + 1; k < to; ++k)
    if (conflictsWith(members, units[k]))
      return true;
  return false;
}

} // namespace mlir::pto::taskmerge
