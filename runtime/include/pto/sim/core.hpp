// pto-mlir host emulation: the emulated core (buffers, identity) and the
// synchronisation / hazard checkers. Part of <pto/pto-inst.hpp>.
#pragma once

#include <pto/sim/base.hpp>

#include <condition_variable>
#include <functional>
#include <thread>

namespace pto::sim {

enum class Arch { A3, A950 };
enum class CoreKind { Cube, Vector, Both };

// On-chip spaces, indexed like this everywhere.
enum Space : int { UB = 0, L1, L0A, L0B, L0C, BT, FB, kNumSpaces };

inline const char *space_name(int s) {
  static const char *n[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
  return s >= 0 && s < kNumSpaces ? n[s] : "?";
}

inline uint32_t space_capacity(Arch a, int s) {
  const bool b950 = a == Arch::A950;
  switch (s) {
  case UB:
    return (b950 ? 256u : 192u) * 1024u;
  case L1:
    return 512u * 1024u;
  case L0A:
    return 64u * 1024u;
  case L0B:
    return 64u * 1024u;
  case L0C:
    return (b950 ? 256u : 128u) * 1024u;
  case BT:
    return b950 ? 4096u : 1024u;
  case FB:
    return b950 ? 4096u : 2048u;
  }
  return 0;
}

inline bool space_on(CoreKind k, int s) {
  if (k == CoreKind::Both)
    return true;
  return k == CoreKind::Vector ? s == UB : s != UB;
}

inline const char *core_kind_name(CoreKind k) {
  return k == CoreKind::Cube     ? "cube"
         : k == CoreKind::Vector ? "vector"
                                 : "cube+vector";
}

// One emulated AI core: its buffers, identity and checker state.
class Core {
public:
  Core(Arch arch, CoreKind kind) : arch_(arch), kind_(kind) {
    for (int s = 0; s < kNumSpaces; ++s) {
      if (!space_on(kind, s))
        continue;
      cap_[s] = space_capacity(arch, s);
      mem_[s].reset(new uint8_t[cap_[s]]());
      segs_[s].emplace(0u, Seg{cap_[s], State{}});
    }
  }
  Arch arch() const { return arch_; }
  CoreKind kind() const { return kind_; }
  // The AIC of a MIX launch reaches the UB of the AIV it is paired with
  // (L0C -> UB, DAV_3510): its Vec tiles live there.
  uint32_t capacity(int s) const {
    return !cap_[s] && s == UB && ub_peer_ ? ub_peer_->capacity(s) : cap_[s];
  }
  uint8_t *base(int s) const {
    return !mem_[s] && s == UB && ub_peer_ ? ub_peer_->base(s) : mem_[s].get();
  }

  // identity (get_block_idx & co.)
  int block_idx = 0, block_num = 1, subblock = 0;
  // The MIX block this core runs in (its AIC and two AIVs), or null.
  class MixBlock *mix = nullptr;
  bool check_sync = true, check_hazards = true;
  const char *kernel() const {
    return kernel_.empty() ? nullptr : kernel_.c_str();
  }

  // ---- kernel lifetime -----------------------------------------------------
  void begin_kernel(const char *name) {
    kernel_ = name ? name : "";
    for (int s = 0; s < kNumSpaces; ++s) {
      segs_[s].clear();
      if (cap_[s])
        segs_[s].emplace(0u, Seg{cap_[s], State{}});
    }
    std::memset(flags_, 0, sizeof flags_);
    std::memset(issued_, 0, sizeof issued_);
    std::memset(seen_, 0, sizeof seen_);
    for (auto &n : names_)
      n.clear();
  }
  // Runs after the kernel function returned: no flag may still be pending.
  void end_kernel() {
    if (check_sync) {
      std::string pend;
      for (int s = 0; s < 8; ++s)
        for (int d = 0; d < 8; ++d)
          for (int e = 0; e < 8; ++e)
            if (flags_[s][d][e].pending) {
              char b[96];
              std::snprintf(b, sizeof b, "%s(%s, %s, EVENT_ID%d)",
                            pend.empty() ? "" : ", ", pipe_name(s),
                            pipe_name(d), e);
              pend += b;
            }
      if (!pend.empty())
        fatal("kernel returned with pending flag(s) (set_flag without "
              "wait_flag): %s",
              pend.c_str());
    }
    kernel_.clear();
  }

  // ---- flags ----------------------------------------------------------------
  void set_flag(int src, int dst, int ev) {
    check_flag_args("set_flag", src, dst, ev);
    join_scalar(src);
    Flag &f = flags_[src][dst][ev];
    if (f.pending && check_sync)
      fatal("set_flag(%s, %s, EVENT_ID%d): triple reused while pending (the "
            "previous "
            "set_flag of this triple has not been waited for)",
            pipe_name(src), pipe_name(dst), ev);
    f.pending = true;
    std::memcpy(f.snap, seen_[src], sizeof f.snap);
    f.snap[src] = issued_[src];
  }
  void wait_flag(int src, int dst, int ev) {
    check_flag_args("wait_flag", src, dst, ev);
    Flag &f = flags_[src][dst][ev];
    if (!f.pending) {
      if (check_sync)
        fatal("wait_flag(%s, %s, EVENT_ID%d) without a pending set_flag of "
              "this triple",
              pipe_name(src), pipe_name(dst), ev);
      return;
    }
    f.pending = false;
    for (int q = 0; q < 8; ++q)
      if (f.snap[q] > seen_[dst][q])
        seen_[dst][q] = f.snap[q];
  }
  void pipe_barrier(int p) {
    if (p < 0 || p > 7)
      fatal("pipe_barrier: invalid pipe %d", p);
    if (p == PIPE_ALL) {
      for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 8; ++b)
          seen_[a][b] = issued_[b];
    } else {
      join_scalar(p);
      seen_[p][p] = issued_[p];
    }
  }

  // ---- hazard tracking
  // -------------------------------------------------------- An instruction:
  // begin(), then read()/write() of each on-chip byte range (reads first), then
  // it is complete (executed immediately on the host).
  void begin(const char *name, int pipe) {
    cur_pipe_ = pipe;
    cur_name_ = name;
    if (!check_hazards)
      return;
    join_scalar(pipe);
    cur_idx_ = ++issued_[pipe];
    names_[pipe].push_back(name);
  }
  const char *current_instr() const { return cur_name_; }
  int current_pipe() const { return cur_pipe_; }
  // `internal`: the range is an implementation scratch that the instruction
  // orders against itself on its own pipe (e.g. the implicit UB scratch).
  // Tracking is at 32-byte granularity: [off, off+len) is widened to whole
  // granules.
  void access(int s, uint32_t off, uint32_t len, bool write,
              bool internal = false) {
    if (!cap_[s] && s == UB && ub_peer_) {
      ub_peer_->remote_access(cur_name_, cur_pipe_, off, len, write);
      return;
    }
    if (!check_hazards || len == 0 || !cap_[s])
      return;
    const uint32_t lo = off & ~31u;
    const uint32_t hi = uint32_t(std::min<uint64_t>(
        cap_[s], (uint64_t(off) + len + 31) & ~uint64_t(31)));
    if (lo >= hi)
      return;
    SegMap &m = segs_[s];
    auto first = split(m, lo);
    auto last = hi < cap_[s] ? split(m, hi) : m.end();
    const uint32_t p = uint32_t(cur_pipe_);
    for (auto it = first; it != last; ++it) {
      const State &S = it->second.st;
      if (S.widx && !(S.wpipe == p && S.widx == cur_idx_))
        order(int(S.wpipe), S.widx, write ? "WAW" : "RAW",
              write ? "writes" : "reads", "written", s, it->first, internal);
      if (write)
        for (int q = 0; q < 8; ++q)
          if (S.ridx[q] && !(uint32_t(q) == p && S.ridx[q] == cur_idx_))
            order(q, S.ridx[q], "WAR", "writes", "read", s, it->first,
                  internal);
    }
    if (write) { // the range now has one history: this write
      State ns{};
      ns.widx = cur_idx_;
      ns.wpipe = p;
      first->second = Seg{hi, ns};
      m.erase(std::next(first), last);
    } else {
      for (auto it = first; it != last; ++it)
        it->second.st.ridx[p] = cur_idx_;
    }
  }

  // ---- the paired cores of a MIX launch (DAV_3510) -------------------------
  // An AIC instruction on `pipe` (FIX: TMOV Acc -> Vec) accessing this AIV's
  // UB. It counts as an instruction of this core's `pipe` (an AIV has no
  // FIX pipe of its own), so this core's own accesses order against it only
  // through an intra-block flag (wait_intra_block).
  void remote_access(const char *name, int pipe, uint32_t off, uint32_t len,
                     bool write) {
    if (!check_hazards)
      return;
    const int pipe0 = cur_pipe_;
    const uint32_t idx0 = cur_idx_;
    const char *name0 = cur_name_;
    cur_pipe_ = pipe;
    cur_name_ = name;
    cur_idx_ = ++issued_[pipe];
    names_[pipe].push_back(name);
    access(UB, off, len, write);
    cur_pipe_ = pipe0, cur_idx_ = idx0, cur_name_ = name0;
  }
  void set_ub_peer(Core *peer) { ub_peer_ = peer; }
  Core *ub_peer() const { return ub_peer_; }
  // Remote instructions of `pipe` issued on this core so far.
  uint32_t issued(int pipe) const { return issued_[pipe]; }
  // What `pipe` of this core has seen of its own pipe `q`.
  uint32_t seen(int pipe, int q) const { return seen_[pipe][q]; }
  // wait_intra_block: `pipe` (and, through the scalar unit, every later
  // instruction when it is PIPE_S) is ordered after the first `upto`
  // instructions counted on `q`.
  void order_after(int pipe, int q, uint32_t upto) {
    if (upto > seen_[pipe][q])
      seen_[pipe][q] = upto;
  }
  // set_intra_block on an AIV (a ring slot freed for the AIC): what `pipe`
  // has completed and is ordered after, as set_flag snapshots it.
  void snapshot(int pipe, uint32_t (&snap)[8]) {
    join_scalar(pipe);
    std::memcpy(snap, seen_[pipe], sizeof snap);
    snap[pipe] = issued_[pipe];
  }
  // The AIC's wait for that flag: its FIX instructions reaching this UB are
  // ordered after everything the snapshot holds.
  void order_remote_after(int pipe, const uint32_t (&snap)[8]) {
    for (int q = 0; q < 8; ++q)
      order_after(pipe, q, snap[q]);
  }

private:
  struct Flag {
    bool pending;
    uint32_t snap[8];
  };
  // History of a byte range: last writer, last reader index per pipe.
  struct State {
    uint32_t widx;
    uint32_t wpipe;
    uint32_t ridx[8];
  };
  struct Seg {
    uint32_t end;
    State st;
  };
  using SegMap =
      std::map<uint32_t, Seg>; // start -> segment; covers [0, capacity)
  static SegMap::iterator split(SegMap &m, uint32_t x) {
    auto it = std::prev(m.upper_bound(x));
    if (it->first == x)
      return it;
    Seg tail = it->second;
    it->second.end = x;
    return m.emplace_hint(std::next(it), x, tail);
  }

  void check_flag_args(const char *what, int src, int dst, int ev) {
    if (src < 0 || src > 7 || src == PIPE_ALL || dst < 0 || dst > 7 ||
        dst == PIPE_ALL || ev < 0 || ev > 7)
      fatal("%s(%d, %d, %d): invalid pipe or event id", what, src, dst, ev);
  }
  // Everything is issued by the scalar unit: once it has waited for
  // something, every later instruction starts after it.
  void join_scalar(int p) {
    if (p == PIPE_S)
      return;
    for (int q = 0; q < 8; ++q)
      if (seen_[PIPE_S][q] > seen_[p][q])
        seen_[p][q] = seen_[PIPE_S][q];
  }
  void order(int q, uint32_t t, const char *kind, const char *verb,
             const char *past, int s, uint32_t at, bool internal) {
    const int p = cur_pipe_;
    if (q == p) {
      if (p != PIPE_V || internal || seen_[p][p] >= t)
        return;
      fatal("hazard %s on %s byte offset %u (0x%x): %s on %s %s bytes %s by %s "
            "on %s "
            "(same pipe) with no pipe_barrier(PIPE_V) in between",
            kind, space_name(s), at, at, cur_name_, pipe_name(p), verb, past,
            names_[q][t - 1], pipe_name(q));
    }
    if (seen_[p][q] >= t)
      return;
    if (kind_ == CoreKind::Vector && p == PIPE_FIX)
      fatal("hazard %s on AIV%d's %s byte offset %u (0x%x): %s on the AIC's "
            "FIX pipe %s bytes %s by %s on %s without synchronisation (this "
            "AIV's read and the AIC's move into the ring slot are not "
            "ordered: missing wait_intra_block on this AIV before it reads a "
            "filled slot, or on the AIC before it refills a slot the AIV "
            "frees with set_intra_block)",
            kind, subblock, space_name(s), at, at, cur_name_, verb, past,
            names_[q][t - 1], pipe_name(q));
    if (kind_ == CoreKind::Vector && q == PIPE_FIX)
      fatal("hazard %s on AIV%d's %s byte offset %u (0x%x): %s on %s %s bytes "
            "%s by %s on the AIC's FIX pipe without synchronisation (missing "
            "set_intra_block on the AIC / wait_intra_block on this AIV)",
            kind, subblock, space_name(s), at, at, cur_name_, pipe_name(p),
            verb, past, names_[q][t - 1]);
    fatal("hazard %s on %s byte offset %u (0x%x): %s on %s %s bytes %s by %s "
          "on %s "
          "without synchronisation (missing set_flag/wait_flag %s -> %s)",
          kind, space_name(s), at, at, cur_name_, pipe_name(p), verb, past,
          names_[q][t - 1], pipe_name(q), pipe_name(q), pipe_name(p));
  }

  Arch arch_;
  CoreKind kind_;
  uint32_t cap_[kNumSpaces] = {};
  std::unique_ptr<uint8_t[]> mem_[kNumSpaces];
  SegMap segs_[kNumSpaces];
  std::string kernel_;
  Flag flags_[8][8][8] = {};
  uint32_t issued_[8] = {};
  uint32_t seen_[8][8] = {};
  std::vector<const char *> names_[8];
  int cur_pipe_ = PIPE_S;
  uint32_t cur_idx_ = 0;
  const char *cur_name_ = "";
  Core *ub_peer_ = nullptr;
};

// The cores of one MIX launch on DAV_3510: an AIC and its two AIVs, and the
// intra-block flags between them (pto-isa A5 `set_intra_block` /
// `wait_intra_block`, include/pto/npu/a5/TSync.hpp and TPush.hpp: the AIC
// addresses AIV1's flag `id` as `id + 16`, and sees AIV1's flag `id` as
// `id + 16`; each AIV sets and waits its own `id`). A flag counts: every set
// is consumed by one wait. An AIC set snapshots how many of its remote UB
// writes (FIX) have completed and the AIV's wait orders its pipe after
// them; an AIV set (a ring slot freed) snapshots what its pipe has
// completed and the AIC's wait orders its later FIX writes into that UB
// after it. The three cores run as threads that hand one baton around
// (docs/Runtime.md, "MIX launches"): the AIVs start; a core runs until it
// waits for a flag nobody set yet, then a core that can go on runs; a set
// for a core waiting on that flag passes the baton to it (the consumer
// reads a slot before the producer may touch it again, so a missing wait
// shows as a hazard on the slot). No core able to go on is a deadlock.
class MixBlock {
public:
  static constexpr int kFlags = 16;
  Core *aic = nullptr;
  Core *aiv[2] = {nullptr, nullptr};

  void set(Core &from, int pipe, int id) {
    if (id < 0 || id >= (&from == aic ? 2 * kFlags : kFlags))
      fatal("set_intra_block(%s, %d): flag id outside [0, %d)", pipe_name(pipe),
            id, &from == aic ? 2 * kFlags : kFlags);
    Pending p{};
    int queue;
    if (&from == aic) {
      Core &to = *aiv[id / kFlags];
      // The AIC's FIX instructions reached the AIV as remote FIX accesses,
      // in issue order; `pipe` has completed all of them when it is FIX.
      p.fix = pipe == PIPE_FIX || pipe == PIPE_ALL ? to.issued(PIPE_FIX)
                                                   : fix_seen(from, pipe, to);
      queue = id;
    } else {
      from.snapshot(pipe, p.snap);
      queue = 2 * kFlags + sub_of(from) * kFlags + id;
    }
    pending_[queue].push_back(p);
    // The core waiting for this flag goes on first.
    int target = &from == aic ? 1 + id / kFlags : 0;
    if (state_[target] == Blocked && waits_on_[target] == queue)
      pass_baton(index_of(from), /*blocked=*/false);
  }
  void wait(Core &at, int pipe, int id) {
    const bool onAic = &at == aic;
    if (id < 0 || id >= (onAic ? 2 * kFlags : kFlags))
      fatal("wait_intra_block(%s, %d): flag id outside [0, %d)",
            pipe_name(pipe), id, onAic ? 2 * kFlags : kFlags);
    const int sub = onAic ? id / kFlags : sub_of(at);
    const int queue = onAic ? 2 * kFlags + id : sub * kFlags + id % kFlags;
    const int me = index_of(at);
    while (pending_[queue].empty()) {
      waits_on_[me] = queue;
      pass_baton(me, /*blocked=*/true);
    }
    Pending p = pending_[queue].front();
    pending_[queue].erase(pending_[queue].begin());
    if (!onAic)
      at.order_after(pipe, PIPE_FIX, p.fix);
    else if (pipe == PIPE_FIX || pipe == PIPE_S || pipe == PIPE_ALL)
      aiv[sub]->order_remote_after(PIPE_FIX, p.snap);
  }
  // GM bytes [first, end) an AIV's TLOAD (0) / TSTORE (1) / atomic TSTORE
  // (2) touched in this launch. Only the moves are ordered between the
  // cores, so the two AIVs must not write bytes the other touches
  // (pto-lower-to-isa keeps such pieces on one AIV); end() checks it.
  enum GmKind { GmRead = 0, GmWrite = 1, GmAtomic = 2 };
  void gm_access(Core &c, const char *instr, uintptr_t first, uintptr_t end,
                 GmKind kind) {
    if (&c == aic || first >= end)
      return;
    gm_[sub_of(c)].push_back({first, end, kind, instr});
  }

  // After the launch: a set nobody waited for would leak into the next one.
  void end() {
    check_gm();
    for (int q = 0; q < kQueues; ++q)
      if (!pending_[q].empty()) {
        const bool toAic = q >= 2 * kFlags;
        const int id = toAic ? (q - 2 * kFlags) % kFlags : q % kFlags;
        const int sub = toAic ? (q - 2 * kFlags) / kFlags : q / kFlags;
        if (toAic)
          fatal("MIX launch ended with %zu pending set_intra_block(%d) from "
                "AIV%d (no wait_intra_block(%d) on the AIC consumed it)",
                pending_[q].size(), id, sub, id + sub * kFlags);
        fatal("MIX launch ended with %zu pending set_intra_block(%d) (no "
              "wait_intra_block on AIV%d consumed it)",
              pending_[q].size(), id, sub);
      }
  }
  void reset() {
    for (auto &q : pending_)
      q.clear();
    for (auto &spans : gm_)
      spans.clear();
    for (int i = 0; i < 3; ++i)
      state_[i] = Runnable, waits_on_[i] = -1;
    turn_ = 1;
  }

  // ---- the baton ------------------------------------------------------------
  // Runs `bodies[i]` (0: AIC, 1: AIV 0, 2: AIV 1) on threads of their own,
  // one at a time, and returns when all have finished.
  void run(const std::function<void(int)> &body) {
    std::thread threads[3];
    for (int i = 0; i < 3; ++i)
      threads[i] = std::thread([this, i, &body] {
        {
          std::unique_lock<std::mutex> l(mu_);
          cv_.wait(l, [&] { return turn_ == i; });
        }
        body(i);
        state_[i] = Done;
        pass_baton(i, /*blocked=*/false);
      });
    for (auto &t : threads)
      t.join();
  }

private:
  enum State { Runnable, Blocked, Done };
  struct Pending {
    uint32_t fix;     // AIC -> AIV: remote FIX writes completed
    uint32_t snap[8]; // AIV -> AIC: what the AIV's pipe had completed
  };
  static constexpr int kQueues = 4 * kFlags;

  int sub_of(Core &c) const { return &c == aiv[1] ? 1 : 0; }
  int index_of(Core &c) const { return &c == aic ? 0 : 1 + sub_of(c); }
  bool can_run(int i) const {
    return state_[i] == Runnable ||
           (state_[i] == Blocked && !pending_[waits_on_[i]].empty());
  }
  // Hands the baton from `me` to the next core that can go on (the one
  // waiting for the flag just set, when `me` set it) and, unless `me` has
  // finished, waits until it comes back.
  void pass_baton(int me, bool blocked) {
    std::unique_lock<std::mutex> l(mu_);
    if (state_[me] != Done)
      state_[me] = blocked ? Blocked : Runnable;
    int next = -1;
    if (!blocked && state_[me] == Runnable) {
      // A set: the waiting core first.
      for (int k = 1; k < 3 && next < 0; ++k) {
        int i = (me + k) % 3;
        if (state_[i] == Blocked && can_run(i))
          next = i;
      }
    } else {
      for (int k = 1; k <= 3 && next < 0; ++k) {
        int i = (me + k) % 3;
        if (state_[i] != Done && can_run(i))
          next = i;
      }
    }
    if (next < 0) {
      if (state_[me] != Done && can_run(me))
        return; // nobody else to run: go on
      bool all = true;
      std::string who;
      for (int i = 0; i < 3; ++i) {
        if (state_[i] == Done)
          continue;
        all = false;
        const int q = waits_on_[i];
        char b[160];
        std::snprintf(b, sizeof b, "%s%s waits for flag %d%s",
                      who.empty() ? "" : "; ",
                      i == 0   ? "the AIC"
                      : i == 1 ? "AIV0"
                               : "AIV1",
                      q >= 2 * kFlags ? q - 2 * kFlags : q % kFlags,
                      q >= 2 * kFlags ? " (from an AIV)" : " (from the AIC)");
        who += b;
      }
      if (!all)
        fatal("MIX launch deadlocked: every core waits for a flag nobody "
              "will set (wait_intra_block without a set_intra_block the "
              "other core reaches first): %s",
              who.c_str());
      turn_ = -1;
      cv_.notify_all();
      return;
    }
    if (next == me)
      return;
    turn_ = next;
    cv_.notify_all();
    if (state_[me] == Done)
      return;
    cv_.wait(l, [&] { return turn_ == me; });
  }

  // Remote FIX writes the AIC's `pipe` is known to be ordered after: all
  // of them once it saw every FIX instruction issued so far.
  uint32_t fix_seen(Core &from, int pipe, Core &to) {
    return from.seen(pipe, PIPE_FIX) >= from.issued(PIPE_FIX)
               ? to.issued(PIPE_FIX)
               : 0;
  }
  struct GmSpan {
    uintptr_t first, end;
    GmKind kind;
    const char *instr;
  };
  // A write (or atomic) of one AIV overlapping an access of the other that
  // is not an atomic of the same kind: the two are not ordered.
  void check_gm() {
    for (int a = 0; a < 2; ++a) {
      std::vector<GmSpan> other = gm_[1 - a];
      if (other.empty())
        continue;
      std::sort(
          other.begin(), other.end(),
          [](const GmSpan &x, const GmSpan &y) { return x.first < y.first; });
      // reach[i]: the furthest end among other[0..i].
      std::vector<uintptr_t> reach(other.size());
      for (size_t i = 0; i < other.size(); ++i)
        reach[i] = std::max(other[i].end, i ? reach[i - 1] : uintptr_t(0));
      for (const GmSpan &w : gm_[a]) {
        if (w.kind == GmRead)
          continue;
        size_t n = std::lower_bound(other.begin(), other.end(), w.end,
                                    [](const GmSpan &x, uintptr_t e) {
                                      return x.first < e;
                                    }) -
                   other.begin();
        if (n == 0 || reach[n - 1] <= w.first)
          continue;
        for (size_t i = n; i-- > 0;) {
          const GmSpan &o = other[i];
          if (o.end <= w.first || (o.kind == GmAtomic && w.kind == GmAtomic))
            continue;
          const uintptr_t from = std::max(w.first, o.first);
          fatal("MIX launch: %s on AIV%d %s %llu GM bytes at %s that %s on "
                "AIV%d %s, and only the L0C -> UB moves are ordered between "
                "the cores (the vector part's pieces that share GM bytes "
                "belong on one AIV)",
                w.instr, a, w.kind == GmAtomic ? "adds into" : "writes",
                (unsigned long long)(std::min(w.end, o.end) - from),
                gm_where(from).c_str(), o.instr, 1 - a,
                o.kind == GmRead ? "reads" : "writes");
        }
      }
    }
  }
  std::vector<GmSpan> gm_[2];
  std::vector<Pending> pending_[kQueues];
  State state_[3] = {Runnable, Runnable, Runnable};
  int waits_on_[3] = {-1, -1, -1};
  int turn_ = 1;
  std::mutex mu_;
  std::condition_variable cv_;
};

// ---- The current core (thread-local) ----------------------------------------
inline thread_local Core *tls_core = nullptr;

// Architecture of the stand-alone core used when no runtime worker is active.
inline Arch default_arch = Arch::A3;

inline Core &core() {
  if (!tls_core) {
    thread_local std::unique_ptr<Core> standalone;
    if (!standalone)
      standalone.reset(new Core(default_arch, CoreKind::Both));
    tls_core = standalone.get();
  }
  return *tls_core;
}

inline std::string error_context() {
  Core *c = tls_core;
  if (!c || !c->kernel())
    return "";
  char b[256];
  std::snprintf(b, sizeof b, " [in leaf '%s' on %s core %d]", c->kernel(),
                core_kind_name(c->kind()), c->block_idx);
  return b;
}

// Runs `f` as a kernel on the current core with the end-of-kernel check.
template <class F> inline void run_kernel(const char *name, F &&f) {
  Core &c = core();
  c.begin_kernel(name);
  f();
  c.end_kernel();
}

} // namespace pto::sim

// ---- Device intrinsics -----------------------------------------------------
inline void set_flag(pipe_t src, pipe_t dst, event_t id) {
  pto::sim::core().set_flag(src, dst, id);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id) {
  pto::sim::core().wait_flag(src, dst, id);
}
inline void pipe_barrier(pipe_t p) { pto::sim::core().pipe_barrier(p); }
inline int64_t get_block_idx() { return pto::sim::core().block_idx; }
inline int64_t get_block_num() { return pto::sim::core().block_num; }
inline int64_t get_subblockid() { return pto::sim::core().subblock; }
inline void set_ffts_base_addr(uint64_t) {}
inline void set_intra_block(pipe_t pipe, int id) {
  pto::sim::Core &c = pto::sim::core();
  if (!c.mix)
    pto::sim::fatal("set_intra_block outside a MIX launch");
  c.mix->set(c, pipe, id);
}
inline void wait_intra_block(pipe_t pipe, int id) {
  pto::sim::Core &c = pto::sim::core();
  if (!c.mix)
    pto::sim::fatal("wait_intra_block outside a MIX launch");
  c.mix->wait(c, pipe, id);
}
