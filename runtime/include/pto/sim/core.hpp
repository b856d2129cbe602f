// pto-mlir host emulation: the emulated core (buffers, identity) and the
// synchronisation / hazard checkers. Part of <pto/pto-inst.hpp>.
#pragma once

#include <pto/sim/base.hpp>

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
    if (kind_ == CoreKind::Vector && q == PIPE_FIX)
      fatal("hazard %s on %s byte offset %u (0x%x): %s on %s %s bytes %s by "
            "%s on the AIC's FIX pipe without synchronisation (missing "
            "set_intra_block on the AIC / wait_intra_block on this AIV)",
            kind, space_name(s), at, at, cur_name_, pipe_name(p), verb, past,
            names_[q][t - 1]);
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
// `wait_intra_block`, include/pto/npu/a5/TSync.hpp: the AIC addresses
// AIV1's flag `id` as `id + 16`; each AIV waits its own `id`). A flag
// counts: every set is consumed by one wait. A set snapshots how many of
// the AIC's remote UB writes its pipe has completed; the wait orders the
// AIV's pipe after them. The launch runs the AIC's part, then each AIV's
// (docs/Runtime.md, "MIX launches"): a valid schedule as long as the AIC
// never waits for an AIV, which the emitted MIX leaves never do.
class MixBlock {
public:
  static constexpr int kFlags = 16;
  Core *aic = nullptr;
  Core *aiv[2] = {nullptr, nullptr};

  void set(Core &from, int pipe, int id) {
    if (&from != aic)
      fatal("set_intra_block(%s, %d): only the AIC signals the AIVs in the "
            "emitted MIX leaves",
            pipe_name(pipe), id);
    if (id < 0 || id >= 2 * kFlags)
      fatal("set_intra_block(%s, %d): flag id outside [0, %d)", pipe_name(pipe),
            id, 2 * kFlags);
    Core &to = *aiv[id / kFlags];
    // The AIC's FIX instructions reached the AIV as remote FIX accesses, in
    // issue order; `pipe` has completed all of them when it is FIX itself.
    uint32_t done = pipe == PIPE_FIX || pipe == PIPE_ALL ? to.issued(PIPE_FIX)
                                                         : fix_seen(from, pipe);
    pending_[id].push_back(done);
  }
  void wait(Core &at, int pipe, int id) {
    if (id < 0 || id >= kFlags)
      fatal("wait_intra_block(%s, %d): flag id outside [0, %d)",
            pipe_name(pipe), id, kFlags);
    const int sub = &at == aiv[1] ? 1 : 0;
    auto &q = pending_[sub * kFlags + id];
    if (q.empty())
      fatal("wait_intra_block(%s, %d) on AIV%d without a pending "
            "set_intra_block from the AIC (it would wait forever)",
            pipe_name(pipe), id, sub);
    at.order_after(pipe, PIPE_FIX, q.front());
    q.erase(q.begin());
  }
  // After the launch: a set nobody waited for would leak into the next one.
  void end() {
    for (int id = 0; id < 2 * kFlags; ++id)
      if (!pending_[id].empty())
        fatal("MIX launch ended with %zu pending set_intra_block(%d) (no "
              "wait_intra_block on AIV%d consumed it)",
              pending_[id].size(), id % kFlags, id / kFlags);
  }
  void reset() {
    for (auto &q : pending_)
      q.clear();
  }

private:
  // Remote FIX writes the AIC's `pipe` is known to be ordered after: all
  // of them once it saw every FIX instruction issued so far.
  uint32_t fix_seen(Core &from, int pipe) {
    Core &to = *aiv[0];
    return from.seen(pipe, PIPE_FIX) >= from.issued(PIPE_FIX)
               ? to.issued(PIPE_FIX)
               : 0;
  }
  std::vector<uint32_t> pending_[2 * kFlags];
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
