// pto-mlir runtime for emitted control programs, on the host emulation of
// pto-isa: device tasks stitched from root-function instances, leaf launches
// on emulated cube/vector cores, GM workspaces, host `main` helpers and .npy
// I/O. See docs/Runtime.md.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include <pto/pto-inst.hpp>
#include <pto/runtime/checks.hpp>

namespace pto_rt {

// Mix: a DAV_3510 MIX launch, one AIC and its two AIVs (body: the AIC's
// part, vec_body: each AIV's).
enum class Core { Cube, Vector, Mix };
struct Token {
  int64_t id;
};

namespace detail {
[[noreturn]] __attribute__((format(printf, 2, 3))) inline void
die(int code, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "pto_rt error: %s\n", buf);
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(code);
}

// GM allocation: 512-byte aligned; filled with 0xFF bytes (NaN for floating
// point, -1 for integers) so that reads of never-written workspace show up.
struct GmBlock {
  void *raw = nullptr;
  explicit GmBlock(size_t bytes, bool poison) {
    size_t n = (std::max<size_t>(bytes, 1) + 511) / 512 * 512;
    raw = std::aligned_alloc(512, n);
    if (!raw)
      die(3, "out of host memory allocating a %zu-byte workspace", bytes);
    std::memset(raw, poison ? 0xff : 0, n);
    pto::sim::gm_register(raw, bytes,
                          "a " + std::to_string(bytes) + "-byte GM workspace");
  }
  GmBlock(const GmBlock &) = delete;
  GmBlock &operator=(const GmBlock &) = delete;
  ~GmBlock() {
    pto::sim::gm_unregister(raw);
    std::free(raw);
  }
};

// One GM access of a launch, filed per access kind for the ordering of
// launches of different root instances (Runtime::order_gm).
struct GmEntry {
  int launch, instance;
  bool whole; // the whole buffer
  bool box;   // rows x columns in a row-major matrix of `row_elems`
  int64_t elem_bytes, row_elems, row_lo, row_hi, col_lo, col_hi;
  int64_t span_lo, span_hi; // its bytes lie in [span_lo, span_hi)
};

// Whether two accesses of one buffer may touch a common byte: their boxes
// intersect when both are boxes of one matrix shape, else their byte spans.
inline bool gm_intersect(const GmEntry &a, const GmEntry &b) {
  if (a.whole || b.whole)
    return true;
  if (a.span_hi <= b.span_lo || b.span_hi <= a.span_lo)
    return false;
  if (a.box && b.box && a.elem_bytes == b.elem_bytes &&
      a.row_elems == b.row_elems)
    return a.row_lo < b.row_hi && b.row_lo < a.row_hi && a.col_lo < b.col_hi &&
           b.col_lo < a.col_hi;
  return true;
}

// Whether every byte `inner` touches lies in `outer`.
inline bool gm_contains(const GmEntry &outer, const GmEntry &inner) {
  if (outer.whole)
    return true;
  if (inner.whole)
    return false;
  if (outer.box && inner.box && outer.elem_bytes == inner.elem_bytes &&
      outer.row_elems == inner.row_elems)
    return outer.row_lo <= inner.row_lo && inner.row_hi <= outer.row_hi &&
           outer.col_lo <= inner.col_lo && inner.col_hi <= outer.col_hi;
  // Whole rows: the span is exactly the bytes touched.
  const bool contiguous =
      outer.box && outer.col_lo == 0 && outer.col_hi == outer.row_elems;
  return contiguous && outer.span_lo <= inner.span_lo &&
         inner.span_hi <= outer.span_hi;
}

// The accesses of one GM buffer by the launches of one device task, per
// kind (0 read, 1 write, 2 atomic): those of the whole buffer, and the
// others by the first byte of their span, so that a query visits only the
// spans that start within the longest filed span before its end.
struct GmBuffer {
  std::vector<GmEntry> entries;
  std::vector<int> whole[3];
  std::multimap<int64_t, int> spans[3];
  int64_t longest[3] = {0, 0, 0};
  int instance = -1;       // the latest instance that touched the buffer
  std::vector<int> writes; // its write entries
};

struct Launch {
  int64_t id;
  Core core;
  std::string leaf;
  std::function<void()> body;
  std::function<void()> vec_body; // Core::Mix: the AIVs' part
  int waiting = 0;                // unfinished dependencies
  std::vector<int> dependents;    // indices in the device task
};

inline bool parse_arch(const std::string &a, pto::sim::Arch &out) {
  if (a == "a3" || a == "a2" || a == "A3" || a == "A2" || a == "910b" ||
      a == "910c" || a == "2201") {
    out = pto::sim::Arch::A3;
    return true;
  }
  if (a == "950" || a == "a5" || a == "A5" || a == "3510") {
    out = pto::sim::Arch::A950;
    return true;
  }
  return false;
}
} // namespace detail

// ---------------------------------------------------------------------------
// Checks of the control program (emitted by pto-translate --pto-to-cpp; the
// rules and messages are pto-run's, pto/runtime/checks.hpp). `where` is the
// op's source location. They run on the host, once per scalar op, never per
// element.
// ---------------------------------------------------------------------------
[[noreturn]] inline void fault(const char *where, const std::string &rule) {
  detail::die(pto_check::kFault, "%s: %s", where, rule.c_str());
}

// pto.read: bounds-checked, row-major; float elements convert saturating
// (NaN to 0), as in pto-run.
template <class T>
inline int64_t read_scalar(const char *where, const char *name, const T *data,
                           std::initializer_list<int64_t> index,
                           std::initializer_list<int64_t> dims) {
  std::string rule =
      pto_check::scalar_read(name, index.begin(), dims.begin(), index.size());
  if (__builtin_expect(!rule.empty(), 0))
    fault(where, rule);
  int64_t linear = 0;
  const int64_t *d = dims.begin();
  for (int64_t i : index)
    linear = linear * *d++ + i;
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bfloat16_t> ||
                std::is_same_v<T, _Float16>) {
    const double v = double(float(data[linear]));
    if (std::isnan(v))
      return 0;
    if (v >= 9223372036854775807.0)
      return INT64_MAX;
    if (v <= -9223372036854775808.0)
      return INT64_MIN;
    return int64_t(v);
  } else {
    return int64_t(data[linear]);
  }
}

// pto.reshape (zero-copy): the new sizes hold exactly the tensor's elements.
inline void check_reshape(const char *where, const char *name,
                          std::initializer_list<int64_t> from,
                          std::initializer_list<int64_t> to) {
  std::string rule = pto_check::reshape(name, std::vector<int64_t>(from),
                                        std::vector<int64_t>(to));
  if (__builtin_expect(!rule.empty(), 0))
    fault(where, rule);
}

// pto.check_view: the view's offsets and explicit valid extents lie inside
// the tensor.
inline void check_view(const char *where, const char *name,
                       std::initializer_list<int64_t> dims,
                       std::initializer_list<int64_t> offsets,
                       std::initializer_list<int64_t> valid) {
  std::string rule =
      pto_check::view("tensor", name, dims.begin(), offsets.begin(),
                      valid.size() ? valid.begin() : nullptr, offsets.size());
  if (__builtin_expect(!rule.empty(), 0))
    fault(where, rule);
}

inline void check_loop_step(const char *where, const char *name, int64_t step) {
  if (__builtin_expect(step <= 0, 0))
    fault(where, pto_check::loop_step(name, step));
}

// arith.divsi/remsi/ceildivsi/floordivsi whose divisor is not a constant
// other than 0 and -1.
inline void check_division(const char *where, int64_t a, int64_t b) {
  if (__builtin_expect(b == 0 || (b == -1 && a == INT64_MIN), 0))
    fault(where, pto_check::integer_division(a, b));
}

class Runtime;

// A GM buffer a launch's leaf touches with its access kinds (bits as the
// compiler's GMAccess: 1 read, 2 write, 4 atomic add) and, when the emitter
// knows it, the region: rows [row_lo, row_hi) x columns [col_lo, col_hi) of
// the buffer seen as a row-major matrix of `row_elems` elements of
// `elem_bytes` bytes per row. `row_elems == 0` (the two-field form) is the
// whole buffer; an empty region touches nothing.
struct GmUse {
  const void *base;
  int kind;
  int64_t elem_bytes = 0, row_elems = 0;
  int64_t row_lo = 0, row_hi = 0, col_lo = 0, col_hi = 0;
};

// The integer scalars of one root call (emitted code). The root instance
// holds them (RootInstance::hold) until its device task has run, so the
// launches it registers read them through a plain pointer.
using Scalars = std::shared_ptr<const std::vector<int64_t>>;

// One instance of a root function inside a stitched device task.
class RootInstance {
public:
  template <class T> T *workspace(int64_t elements);
  Token launch(Core core, const char *leaf_name,
               std::initializer_list<Token> after, std::function<void()> body);
  // `gm`: the GM buffers the leaf touches; the launch also waits for the
  // earlier launches of other root instances in its device task with a
  // conflicting access to one of them (docs/Runtime.md).
  Token launch(Core core, const char *leaf_name,
               std::initializer_list<Token> after,
               std::initializer_list<GmUse> gm, std::function<void()> body);
  // A MIX launch (DAV_3510): `aic` on the cube core, `aiv` on both vector
  // cores of its block.
  Token launch_mix(const char *leaf_name, std::initializer_list<Token> after,
                   std::function<void()> aic, std::function<void()> aiv);
  Token launch_mix(const char *leaf_name, std::initializer_list<Token> after,
                   std::initializer_list<GmUse> gm, std::function<void()> aic,
                   std::function<void()> aiv);
  // Keeps the root call's scalars alive as long as this instance (its
  // launches run when the device task runs); returns them.
  const int64_t *hold(Scalars scalars) {
    scalars_ = std::move(scalars);
    return scalars_->data();
  }
  // Position of this instance in its device task (0-based).
  int index() const { return index_; }
  const char *root_name() const { return root_; }

private:
  friend class Runtime;
  RootInstance(Runtime *rt, int64_t task, const char *root, int index)
      : rt_(rt), task_(task), root_(root), index_(index) {}
  Runtime *rt_;
  int64_t task_; // serial number of the device task this instance belongs to
  const char *root_;
  int index_;
  std::vector<std::unique_ptr<detail::GmBlock>> ws_;
  Scalars scalars_;
};

class Runtime {
public:
  struct Options {
    std::string arch = "a3";
    int threads = 0; // 0 = sequential, deterministic
    int cube_cores = 24, vector_cores = 48;
    bool check_sync = true;
    bool check_hazards = true;
    uint64_t shuffle_seed = 0;
    // additions: print Stats in finish(); poison (0xFF) new workspaces
    bool print_stats = false;
    bool poison_workspaces = true;
  };
  // gm_waits: the launches a launch waits for because an earlier root
  // instance of its device task touches an intersecting GM region.
  struct Stats {
    int64_t device_tasks, root_instances, launches, gm_waits;
  };

  explicit Runtime(Options o) : opt_(std::move(o)) {
    if (!detail::parse_arch(opt_.arch, arch_))
      detail::die(2, "unknown arch '%s' (expected a3 or 950)",
                  opt_.arch.c_str());
    if (opt_.threads < 0 || opt_.threads > pto_check::kMaxThreads)
      detail::die(2, "--threads expects an integer in 0..%lld, got '%d'",
                  (long long)pto_check::kMaxThreads, opt_.threads);
    if (opt_.cube_cores < 1 || opt_.vector_cores < 1)
      detail::die(2, "core counts must be >= 1");
    pto::sim::default_arch = arch_;
    rng_.seed(opt_.shuffle_seed);
  }
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;
  ~Runtime() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_work_.notify_all();
    for (auto &t : workers_)
      t.join();
  }

  const Options &options() const { return opt_; }

  // PyPTO's stitching limits (docs/PyPTOModel.md#stitching): root instances
  // and call tasks (launches) per device task.
  static constexpr int kMaxStitchInstances = 1024;
  static constexpr int64_t kMaxStitchLaunches = 60000;
  // pto-run's bound on the buffered instances' own workspaces
  // (docs/Interpreter.md).
  static constexpr int64_t kMaxStitchWorkspaceBytes = int64_t(1) << 30;

  // Consecutive root calls, of any root function and call site, join the
  // pending device task; `body` runs now and registers launches. A call
  // submits the pending task first when it holds `depth` instances (the
  // smallest depth of its calls), 60000 launches or 1 GiB of its instances'
  // workspaces; flush() submits it too (docs/Runtime.md, "Stitching").
  // `call_site` only names the call in errors.
  void root_call(const char *root_name, int call_site, int depth,
                 std::function<void(RootInstance &)> body) {
    if (depth < 1)
      detail::die(3,
                  "root_call of '%s' (call site %d): stitch depth %d, "
                  "expected at least 1",
                  root_name ? root_name : "?", call_site, depth);
    if (pending_ && (int(pending_->instances.size()) >= pending_->depth ||
                     int64_t(pending_->launches.size()) >= kMaxStitchLaunches ||
                     pending_->workspace_bytes >= kMaxStitchWorkspaceBytes))
      flush();
    if (!pending_) {
      pending_.reset(new Task);
      pending_->first_id = next_id_;
      pending_->serial = ++task_serial_;
    }
    Task &t = *pending_;
    t.depth = std::min({t.depth, depth, kMaxStitchInstances});
    t.instances.emplace_back(
        new RootInstance(this, t.serial, root_name, int(t.instances.size())));
    ++stats_.root_instances;
    stats_printed_ = false;
    body(*t.instances.back());
  }

  template <class T> T *workspace(int64_t elements) {
    if (elements < 0)
      detail::die(3, "workspace: negative element count %lld",
                  (long long)elements);
    ws_.emplace_back(new detail::GmBlock(size_t(elements) * sizeof(T),
                                         opt_.poison_workspaces));
    return static_cast<T *>(ws_.back()->raw);
  }

  // Submits the pending device task and waits for it.
  void flush() {
    if (!pending_)
      return;
    std::unique_ptr<Task> t = std::move(pending_);
    ++stats_.device_tasks;
    run(*t);
  }
  // flush; prints Stats when print_stats (once, however often finish() is
  // called)
  void finish() {
    flush();
    if (opt_.print_stats && !stats_printed_) {
      stats_printed_ = true;
      std::fprintf(
          stderr,
          "pto_rt stats: device_tasks=%lld root_instances=%lld launches=%lld "
          "gm_waits=%lld\n",
          (long long)stats_.device_tasks, (long long)stats_.root_instances,
          (long long)stats_.launches, (long long)stats_.gm_waits);
    }
  }
  Stats stats() const { return stats_; }

private:
  friend class RootInstance;
  struct Task {
    int64_t serial = 0;
    int64_t first_id = 0;
    int depth = kMaxStitchInstances; // the smallest depth of its root calls
    int64_t workspace_bytes = 0;     // of its instances' own workspaces
    std::vector<std::unique_ptr<RootInstance>> instances;
    std::vector<detail::Launch> launches;
    std::unordered_map<const void *, detail::GmBuffer> gm;
  };

  // Orders launch `me` of root instance `instance` after the earlier
  // launches of other instances in the pending device task whose access to
  // a buffer of `gm` intersects (gm_intersect) one of `me` with a
  // conflicting kind: write vs anything, atomic vs read (reads commute,
  // atomics commute). Instances register their launches in instance order.
  // When a new instance first touches a buffer, the writes of the previous
  // one drop the older accesses they contain: those writes follow them, so
  // whatever intersects a dropped access and must wait for it waits for the
  // write. A query visits the whole-buffer accesses of the kinds it waits
  // for and the spans starting within the longest span before its end.
  void order_gm(Task &t, int instance, int me, detail::Launch &L,
                std::initializer_list<GmUse> gm) {
    auto follow = [&](const detail::GmEntry &e) {
      if (e.instance == instance)
        return;
      // Only `me` is being registered, so a repeated edge is the last one.
      detail::Launch &D = t.launches[size_t(e.launch)];
      if (!D.dependents.empty() && D.dependents.back() == me)
        return;
      D.dependents.push_back(me);
      ++L.waiting;
      ++stats_.gm_waits;
    };
    for (const GmUse &use : gm) {
      if (!use.base || !(use.kind & 7))
        continue;
      detail::GmEntry u{
          me, instance, use.row_elems <= 0, false, 0, 0, 0, 0, 0, 0, 0, 0};
      if (!u.whole) {
        if (use.row_hi <= use.row_lo || use.col_hi <= use.col_lo ||
            use.elem_bytes <= 0)
          continue; // touches nothing
        u.elem_bytes = use.elem_bytes;
        u.row_elems = use.row_elems;
        u.row_lo = use.row_lo;
        u.row_hi = use.row_hi;
        u.col_lo = use.col_lo;
        u.col_hi = use.col_hi;
        u.box = use.col_lo >= 0 && use.col_hi <= use.row_elems;
        u.span_lo = (use.row_lo * use.row_elems + use.col_lo) * use.elem_bytes;
        u.span_hi =
            ((use.row_hi - 1) * use.row_elems + use.col_hi) * use.elem_bytes;
      }
      detail::GmBuffer &b = t.gm[use.base];
      if (b.instance != instance) {
        for (int w : b.writes)
          drop_contained(b, b.entries[size_t(w)]);
        b.writes.clear();
        b.instance = instance;
      }
      const bool read = use.kind & 1, write = use.kind & 2,
                 atomic = use.kind & 4;
      // Kind k's accesses are followed when the new access must wait for
      // them.
      const bool wait[3] = {write || atomic, true, write || read};
      for (int k = 0; k < 3; ++k) {
        if (!wait[k])
          continue;
        for (int e : b.whole[k])
          follow(b.entries[size_t(e)]);
        auto it = u.whole
                      ? b.spans[k].begin()
                      : b.spans[k].lower_bound(u.span_lo - b.longest[k] + 1);
        for (; it != b.spans[k].end() && (u.whole || it->first < u.span_hi);
             ++it) {
          const detail::GmEntry &e = b.entries[size_t(it->second)];
          if (detail::gm_intersect(u, e))
            follow(e);
        }
      }
      for (int k = 0; k < 3; ++k) {
        if (!(use.kind & (1 << k)))
          continue;
        const int id = int(b.entries.size());
        b.entries.push_back(u);
        if (u.whole) {
          b.whole[k].push_back(id);
        } else {
          b.spans[k].emplace(u.span_lo, id);
          b.longest[k] = std::max(b.longest[k], u.span_hi - u.span_lo);
        }
        if (k == 1)
          b.writes.push_back(id);
      }
    }
  }

  // Drops the accesses of instances before `w`'s that the write `w`
  // contains (gm_contains); `w` follows each of them.
  static void drop_contained(detail::GmBuffer &b, const detail::GmEntry &w) {
    auto dropped = [&](int e) {
      const detail::GmEntry &x = b.entries[size_t(e)];
      return x.instance < w.instance && detail::gm_contains(w, x);
    };
    for (int k = 0; k < 3; ++k) {
      if (w.whole)
        b.whole[k].erase(
            std::remove_if(b.whole[k].begin(), b.whole[k].end(), dropped),
            b.whole[k].end());
      auto it =
          w.whole ? b.spans[k].begin() : b.spans[k].lower_bound(w.span_lo);
      while (it != b.spans[k].end() && (w.whole || it->first < w.span_hi))
        it = dropped(it->second) ? b.spans[k].erase(it) : std::next(it);
    }
  }

  Token add_launch(int64_t task, Core core, const char *leaf,
                   std::initializer_list<Token> after,
                   std::function<void()> body,
                   std::function<void()> vec_body = {}, int instance = -1,
                   std::initializer_list<GmUse> gm = {}) {
    if (core == Core::Mix && arch_ != pto::sim::Arch::A950)
      detail::die(3,
                  "MIX launch of leaf '%s' on an architecture without MIX "
                  "tasks: run with --arch 950",
                  leaf ? leaf : "?");
    if (!pending_ || pending_->serial != task)
      detail::die(3,
                  "launch of leaf '%s' from a root instance whose device task "
                  "was already "
                  "submitted (launch inside the root_call body)",
                  leaf ? leaf : "?");
    Task &t = *pending_;
    detail::Launch L;
    L.id = next_id_++;
    L.core = core;
    L.leaf = leaf ? leaf : "?";
    L.body = std::move(body);
    L.vec_body = std::move(vec_body);
    const int me = int(t.launches.size());
    for (Token d : after) {
      if (d.id >= L.id)
        detail::die(3,
                    "launch of leaf '%s' depends on token %lld, which is not "
                    "an earlier launch",
                    L.leaf.c_str(), (long long)d.id);
      if (d.id < t.first_id)
        continue; // completed in an earlier device task
      detail::Launch &D = t.launches[size_t(d.id - t.first_id)];
      // Only `me` is being registered, so a repeated token is the last edge.
      if (!D.dependents.empty() && D.dependents.back() == me)
        continue;
      D.dependents.push_back(me);
      ++L.waiting;
    }
    order_gm(t, instance, me, L, gm);
    t.launches.push_back(std::move(L));
    ++stats_.launches;
    return Token{t.launches.back().id};
  }

  pto::sim::Core &seq_core(Core k) {
    auto &c = k != Core::Vector ? seq_cube_ : seq_vec_;
    if (!c)
      c.reset(new pto::sim::Core(arch_, k != Core::Vector
                                            ? pto::sim::CoreKind::Cube
                                            : pto::sim::CoreKind::Vector));
    return *c;
  }

  // The two AIVs paired with an AIC for MIX launches (one pair per cube
  // core: the sequential one or a worker's).
  struct MixPair {
    std::unique_ptr<pto::sim::Core> aiv[2];
    pto::sim::MixBlock block;
  };
  MixPair &mix_pair(pto::sim::Core &aic) {
    std::lock_guard<std::mutex> l(mix_mu_);
    std::unique_ptr<MixPair> &p = mix_pairs_[&aic];
    if (!p) {
      p.reset(new MixPair);
      for (auto &v : p->aiv)
        v.reset(new pto::sim::Core(arch_, pto::sim::CoreKind::Vector));
    }
    return *p;
  }

  // A MIX launch: the AIVs start their kernel (fresh checker state), then
  // the AIC's part (TMOV / TEXTRACT Acc -> Vec write the AIV's UB,
  // set_intra_block signals it) and the AIVs' parts run interleaved at the
  // intra-block flags; every set must be waited.
  void exec_mix(detail::Launch &L, pto::sim::Core &aic, int block) {
    MixPair &pair = mix_pair(aic);
    pto::sim::MixBlock &mb = pair.block;
    mb.reset();
    mb.aic = &aic;
    for (int i = 0; i < 2; ++i) {
      pto::sim::Core &v = *pair.aiv[i];
      mb.aiv[i] = &v;
      v.block_num = opt_.cube_cores;
      v.block_idx = block % opt_.cube_cores;
      v.subblock = i;
      v.check_sync = opt_.check_sync;
      v.check_hazards = opt_.check_hazards;
      v.mix = &mb;
      v.begin_kernel(L.leaf.c_str());
    }
    aic.mix = &mb;
    aic.set_ub_peer(pair.aiv[0].get());
    auto run = [&](pto::sim::Core &c, const std::function<void()> &body,
                   bool begin) {
      pto::sim::Core *prev = pto::sim::tls_core;
      pto::sim::tls_core = &c;
      if (begin)
        c.begin_kernel(L.leaf.c_str());
      try {
        body();
      } catch (const std::exception &e) {
        pto::sim::fatal("exception: %s", e.what());
      } catch (...) {
        pto::sim::fatal("unknown exception");
      }
      c.end_kernel();
      pto::sim::tls_core = prev;
    };
    aic.block_num = opt_.cube_cores;
    aic.block_idx = block % opt_.cube_cores;
    aic.subblock = 0;
    aic.check_sync = opt_.check_sync;
    aic.check_hazards = opt_.check_hazards;
    // The three cores as threads passing one baton (the AIC waits for ring
    // slots its AIVs free, docs/Runtime.md "MIX launches").
    mb.run([&](int who) {
      if (who == 0)
        run(aic, L.body, true);
      else
        run(*pair.aiv[who - 1], L.vec_body, false);
    });
    aic.set_ub_peer(nullptr);
    aic.mix = nullptr;
    for (auto &v : pair.aiv)
      v->mix = nullptr;
    mb.end();
  }

  void exec(detail::Launch &L, pto::sim::Core &c, int block) {
    if (L.core == Core::Mix)
      return exec_mix(L, c, block);
    const bool cube = L.core == Core::Cube;
    c.block_num = cube ? opt_.cube_cores : opt_.vector_cores;
    c.block_idx = block % c.block_num;
    c.subblock = cube ? 0 : c.block_idx % 2;
    c.check_sync = opt_.check_sync;
    c.check_hazards = opt_.check_hazards;
    pto::sim::Core *prev = pto::sim::tls_core;
    pto::sim::tls_core = &c;
    c.begin_kernel(L.leaf.c_str());
    try {
      L.body();
    } catch (const std::exception &e) {
      pto::sim::fatal("exception: %s", e.what());
    } catch (...) {
      pto::sim::fatal("unknown exception");
    }
    c.end_kernel();
    pto::sim::tls_core = prev;
  }

  // The oldest ready launch, or a random one with a shuffle seed.
  int pick(std::vector<int> &ready) {
    size_t i = 0;
    if (opt_.shuffle_seed)
      i = size_t(rng_() % ready.size());
    else
      i = size_t(std::min_element(ready.begin(), ready.end()) - ready.begin());
    int v = ready[i];
    ready[i] = ready.back();
    ready.pop_back();
    return v;
  }

  void run(Task &t) {
    const int n = int(t.launches.size());
    if (n == 0)
      return;
    if (opt_.threads == 0 && opt_.shuffle_seed == 0) {
      // submission order: a topological order, since `after` names earlier
      // launches
      int counter[2] = {0, 0};
      for (detail::Launch &L : t.launches)
        exec(L, seq_core(L.core), counter[L.core != Core::Vector ? 0 : 1]++);
      return;
    }
    if (opt_.threads == 0) {
      std::vector<int> ready;
      for (int i = 0; i < n; ++i)
        if (t.launches[size_t(i)].waiting == 0)
          ready.push_back(i);
      int counter[2] = {0, 0};
      int done = 0;
      while (!ready.empty()) {
        detail::Launch &L = t.launches[size_t(pick(ready))];
        const int k = L.core != Core::Vector ? 0 : 1;
        exec(L, seq_core(L.core), counter[k]++);
        ++done;
        for (int d : L.dependents)
          if (--t.launches[size_t(d)].waiting == 0)
            ready.push_back(d);
      }
      if (done != n)
        detail::die(3, "device task has a dependency cycle");
      return;
    }
    start_workers();
    std::unique_lock<std::mutex> l(mu_);
    task_ = &t;
    remaining_ = n;
    for (int i = 0; i < n; ++i)
      if (t.launches[size_t(i)].waiting == 0)
        ready_[t.launches[size_t(i)].core != Core::Vector ? 0 : 1].push_back(i);
    cv_work_.notify_all();
    cv_done_.wait(l, [&] { return remaining_ == 0; });
    task_ = nullptr;
  }

  void start_workers() {
    if (!workers_.empty())
      return;
    try {
      for (int k = 0; k < 2; ++k)
        for (int w = 0; w < opt_.threads; ++w)
          workers_.emplace_back([this, k, w] { worker(k, w); });
    } catch (const std::system_error &e) {
      // Before any worker ran a launch: report and leave (the started
      // workers are blocked on the empty queues).
      detail::die(2, "--threads %d: cannot start %d host threads: %s",
                  opt_.threads, 2 * opt_.threads, e.what());
    }
  }

  void worker(int kind, int index) {
    pto::sim::Core core(arch_, kind == 0 ? pto::sim::CoreKind::Cube
                                         : pto::sim::CoreKind::Vector);
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_work_.wait(l, [&] { return stop_ || !ready_[kind].empty(); });
      if (stop_)
        return;
      const int i = pick(ready_[kind]);
      detail::Launch &L = task_->launches[size_t(i)];
      l.unlock();
      exec(L, core, index);
      l.lock();
      bool wake = false;
      for (int d : L.dependents) {
        detail::Launch &D = task_->launches[size_t(d)];
        if (--D.waiting == 0) {
          ready_[D.core != Core::Vector ? 0 : 1].push_back(d);
          wake = true;
        }
      }
      if (wake)
        cv_work_.notify_all();
      if (--remaining_ == 0)
        cv_done_.notify_all();
    }
  }

  Options opt_;
  pto::sim::Arch arch_ = pto::sim::Arch::A3;
  Stats stats_{0, 0, 0, 0};
  bool stats_printed_ = false;
  std::unique_ptr<Task> pending_;
  int64_t next_id_ = 1;
  int64_t task_serial_ = 0;
  std::vector<std::unique_ptr<detail::GmBlock>> ws_;
  std::unique_ptr<pto::sim::Core> seq_cube_, seq_vec_;
  std::mutex mix_mu_;
  std::map<pto::sim::Core *, std::unique_ptr<MixPair>> mix_pairs_;
  std::mt19937_64 rng_;
  // worker pool (threads > 0)
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_work_, cv_done_;
  std::vector<int> ready_[2];
  Task *task_ = nullptr;
  int remaining_ = 0;
  bool stop_ = false;
};

template <class T> inline T *RootInstance::workspace(int64_t elements) {
  if (elements < 0)
    detail::die(3, "workspace: negative element count %lld",
                (long long)elements);
  ws_.emplace_back(new detail::GmBlock(size_t(elements) * sizeof(T),
                                       rt_->opt_.poison_workspaces));
  if (rt_->pending_ && rt_->pending_->serial == task_)
    rt_->pending_->workspace_bytes += elements * int64_t(sizeof(T));
  return static_cast<T *>(ws_.back()->raw);
}

inline Token RootInstance::launch_mix(const char *leaf_name,
                                      std::initializer_list<Token> after,
                                      std::function<void()> aic,
                                      std::function<void()> aiv) {
  return rt_->add_launch(task_, Core::Mix, leaf_name, after, std::move(aic),
                         std::move(aiv));
}

inline Token RootInstance::launch_mix(const char *leaf_name,
                                      std::initializer_list<Token> after,
                                      std::initializer_list<GmUse> gm,
                                      std::function<void()> aic,
                                      std::function<void()> aiv) {
  return rt_->add_launch(task_, Core::Mix, leaf_name, after, std::move(aic),
                         std::move(aiv), index_, gm);
}

inline Token RootInstance::launch(Core core, const char *leaf_name,
                                  std::initializer_list<Token> after,
                                  std::initializer_list<GmUse> gm,
                                  std::function<void()> body) {
  return rt_->add_launch(task_, core, leaf_name, after, std::move(body), {},
                         index_, gm);
}

inline Token RootInstance::launch(Core core, const char *leaf_name,
                                  std::initializer_list<Token> after,
                                  std::function<void()> body) {
  return rt_->add_launch(task_, core, leaf_name, after, std::move(body));
}

// ---------------------------------------------------------------------------
// Host tensors and .npy I/O
// ---------------------------------------------------------------------------
namespace detail {
struct HostTensorBase {
  virtual ~HostTensorBase() = default;
};

template <class T> inline const char *npy_descr() {
  if constexpr (std::is_same_v<T, float>)
    return "<f4";
  else if constexpr (std::is_same_v<T, double>)
    return "<f8";
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return "<u2";
  else if constexpr (std::is_same_v<T, _Float16>)
    return "<f2";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "<i4";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "<i8";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "<i2";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "<u2";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "|i1";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "|u1";
  else if constexpr (std::is_same_v<T, bool>) // DT_BOOL: a byte of 0 or 1
    return "|b1";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "<u4";
  else
    static_assert(sizeof(T) == 0, "no .npy dtype for this element type");
}

// pto-run's names of element kinds (messages shared with it).
template <class T> inline const char *kind_name() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, double>)
    return "f64";
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return "bf16";
  else if constexpr (std::is_same_v<T, _Float16>)
    return "f16";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "i32";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "i64";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "i16";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "u16";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "i8";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "u8";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "u32";
  else
    return pto::sim::type_name<T>();
}

inline std::string dims_str(const std::vector<int64_t> &d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(d[i]);
  }
  if (d.size() == 1)
    s += ",";
  return s + ")";
}
} // namespace detail

namespace detail {
// DT_BOOL elements are held as one-byte structs: std::vector<bool> packs
// bits and has no data(). A pointer to the struct is one to its member.
struct BoolByte {
  bool value;
};
template <class T>
using StorageOf = std::conditional_t<std::is_same_v<T, bool>, BoolByte, T>;
static_assert(sizeof(BoolByte) == 1, "DT_BOOL is one byte per element");
} // namespace detail

template <class T> class HostTensor : public detail::HostTensorBase {
public:
  HostTensor() = default;
  // `what` names the tensor in the out-of-memory message (exit 2).
  explicit HostTensor(std::vector<int64_t> dims,
                      const std::string &what = "a host tensor")
      : dims_(std::move(dims)) {
    std::string rule =
        pto_check::buffer_size(dims_, detail::kind_name<T>(), sizeof(T));
    if (!rule.empty())
      detail::die(2, "%s: %s", what.c_str(), rule.c_str());
    // Out of memory is an input error (exit 2, pto-run's message): probed
    // with malloc first, which fails cleanly where operator new may not
    // (sanitizer allocators).
    const uint64_t bytes = uint64_t(numel()) * sizeof(T);
    if (!pto_check::can_allocate(bytes))
      detail::die(2, "%s", pto_check::out_of_memory(bytes, what).c_str());
    try {
      storage_.resize(size_t(numel()));
    } catch (const std::bad_alloc &) {
      detail::die(2, "%s", pto_check::out_of_memory(bytes, what).c_str());
    }
  }
  T *data() { return reinterpret_cast<T *>(storage_.data()); }
  const T *data() const { return reinterpret_cast<const T *>(storage_.data()); }
  int64_t dim(int i) const { return dims_.at(size_t(i)); }
  int rank() const { return int(dims_.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims_)
      n *= d;
    return n;
  }
  const std::vector<int64_t> &dims() const { return dims_; }

  // .npy I/O; errors exit with status 2.
  static void load(const std::string &path, const char *what,
                   std::initializer_list<int64_t> want, HostTensor &out);
  void save(const std::string &path, const char *what) const;

private:
  std::vector<int64_t> dims_;
  std::vector<detail::StorageOf<T>> storage_;
};

template <class T>
inline void HostTensor<T>::load(const std::string &path, const char *what,
                                std::initializer_list<int64_t> want,
                                HostTensor &out) {
  // The header rules and their messages are pto-run's (pto/runtime/checks.hpp).
  auto fail = [&](const std::string &rule) {
    detail::die(2, "%s: '%s': %s", what, path.c_str(), rule.c_str());
  };
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    fail(std::string("cannot read: ") + std::strerror(errno));
  std::unique_ptr<FILE, int (*)(FILE *)> closer(f, &std::fclose);
  if (std::fseek(f, 0, SEEK_END) != 0)
    fail("cannot read: not a regular file");
  const long end = std::ftell(f);
  if (end < 0 || std::fseek(f, 0, SEEK_SET) != 0)
    fail("cannot read: not a regular file");
  const uint64_t file_size = uint64_t(end);
  // At most the largest header (format 2.0/3.0: 4 GiB) is read before the
  // payload; in practice a few hundred bytes.
  std::string head(size_t(std::min<uint64_t>(file_size, 12)), '\0');
  if (std::fread(&head[0], 1, head.size(), f) != head.size())
    fail("cannot read");
  pto_check::NpyHeader h;
  std::string rule = pto_check::parse_npy_header(head.data(), head.size(), h);
  if (rule == "truncated header" && head.size() == 12) {
    // Read the header proper, then parse again.
    size_t hlen = uint8_t(head[8]) | (size_t(uint8_t(head[9])) << 8);
    if (uint8_t(head[6]) != 1)
      hlen |=
          (size_t(uint8_t(head[10])) << 16) | (size_t(uint8_t(head[11])) << 24);
    const size_t total = (uint8_t(head[6]) == 1 ? 10 : 12) + hlen;
    if (total > 12 && total <= file_size) {
      head.resize(total);
      if (std::fread(&head[12], 1, total - 12, f) != total - 12)
        fail("cannot read");
    }
    rule = pto_check::parse_npy_header(head.data(), head.size(), h);
  }
  if (!rule.empty())
    fail(rule);
  const char *exp = detail::npy_descr<T>();
  if (h.type != std::string(exp + 1))
    detail::die(2, "%s: '%s' has dtype '%s', expected '%s' (%s)", what,
                path.c_str(), h.descr.c_str(), exp, pto::sim::type_name<T>());
  rule =
      pto_check::npy_payload(h, file_size, detail::kind_name<T>(), sizeof(T));
  if (!rule.empty())
    fail(rule);
  std::vector<int64_t> w(want);
  bool ok = w.size() == h.shape.size();
  for (size_t i = 0; ok && i < w.size(); ++i)
    ok = w[i] < 0 || w[i] == h.shape[i];
  if (!ok)
    detail::die(2, "%s: '%s' has shape %s, expected %s (-1 = any)", what,
                path.c_str(), detail::dims_str(h.shape).c_str(),
                detail::dims_str(w).c_str());
  {
    // pto-run's words: "input 'q': out of memory allocating N bytes for
    // 'PATH'".
    uint64_t bytes = 0;
    pto_check::storage_bytes(h.shape.data(), h.shape.size(), sizeof(T), bytes);
    if (!pto_check::can_allocate(bytes))
      detail::die(2, "%s: %s", what,
                  pto_check::out_of_memory(bytes, "'" + path + "'").c_str());
  }
  out = HostTensor(h.shape, std::string(what) + ": '" + path + "'");
  const size_t bytes = size_t(out.numel()) * sizeof(T);
  if (bytes && (std::fseek(f, long(h.data_offset), SEEK_SET) != 0 ||
                std::fread(out.data(), 1, bytes, f) != bytes))
    fail("cannot read the data");
}

template <class T>
inline void HostTensor<T>::save(const std::string &path,
                                const char *what) const {
  std::string h =
      "{'descr': '" + std::string(detail::npy_descr<T>()) +
      "', 'fortran_order': False, 'shape': " + detail::dims_str(dims_) + ", }";
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    detail::die(2, "%s: cannot write '%s': %s", what, path.c_str(),
                std::strerror(errno));
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           uint8_t(h.size() & 0xff),
                           uint8_t(h.size() >> 8)};
  bool ok = std::fwrite(pre, 1, 10, f) == 10 &&
            std::fwrite(h.data(), 1, h.size(), f) == h.size() &&
            std::fwrite(storage_.data(), sizeof(T), storage_.size(), f) ==
                storage_.size();
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok)
    detail::die(2, "%s: cannot write '%s': %s", what, path.c_str(),
                std::strerror(err));
}

// ---------------------------------------------------------------------------
// HostMain: what an emitted `main` (under #ifdef PTO_HOST_MAIN) uses.
// ---------------------------------------------------------------------------
class HostMain {
public:
  // `arch`: the architecture the kernel was compiled for (the default of
  // --arch).
  HostMain(int argc, char **argv, const char *arch = "a3") {
    prog_ = argc > 0 ? argv[0] : "pto-host";
    Runtime::Options o;
    o.arch = arch;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i], v;
      bool has_eq = false;
      if (size_t e = a.find('=');
          a.rfind("--", 0) == 0 && e != std::string::npos) {
        v = a.substr(e + 1);
        a = a.substr(0, e);
        has_eq = true;
      }
      auto value = [&]() -> std::string {
        if (has_eq)
          return v;
        if (i + 1 >= argc)
          usage("option '%s' needs a value", a.c_str());
        return argv[++i];
      };
      auto number = [&](const std::string &s, long long lo) -> long long {
        char *end = nullptr;
        long long x = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end || x < lo)
          usage("option '%s': bad value '%s'", a.c_str(), s.c_str());
        return x;
      };
      if (a == "--inputs")
        inputs_ = value();
      else if (a == "--outputs")
        outputs_ = value();
      else if (a == "--threads") {
        int64_t n = 0;
        std::string rule = pto_check::integer_option("--threads", value(), 0,
                                                     pto_check::kMaxThreads, n);
        if (!rule.empty())
          usage("%s", rule.c_str());
        o.threads = int(n);
      } else if (a == "--arch") {
        o.arch = value();
        pto::sim::Arch ar;
        if (!detail::parse_arch(o.arch, ar))
          usage("unknown arch '%s' (expected a3 or 950)", o.arch.c_str());
      } else if (a == "--no-check-sync" && !has_eq)
        o.check_sync = false;
      else if (a == "--no-check-hazards" && !has_eq)
        o.check_hazards = false;
      else if (a == "--shuffle-seed")
        o.shuffle_seed = uint64_t(number(value(), 0));
      else if (a == "--stats" && !has_eq)
        o.print_stats = true;
      else if (a == "--help" || a == "-h") {
        std::fprintf(stdout, "%s", usage_text().c_str());
        std::exit(0);
      } else
        usage("unknown option '%s'", argv[i]);
    }
    // Before the run, not after it: a typo in --outputs should not cost the
    // whole kernel's time.
    if (std::string rule = pto_check::output_folder(outputs_); !rule.empty())
      detail::die(2, "--outputs: %s", rule.c_str());
    rt_.reset(new Runtime(o));
  }

  // Loads INPUTS/name.npy; -1 in static_dims accepts any extent.
  template <class T>
  HostTensor<T> &input(const char *name,
                       std::initializer_list<int64_t> static_dims) {
    if (inputs_.empty())
      usage("input '%s' needs --inputs DIR", name);
    auto *t = new HostTensor<T>();
    tensors_.emplace_back(t);
    std::string what = std::string("input '") + name + "'";
    HostTensor<T>::load(inputs_ + "/" + name + ".npy", what.c_str(),
                        static_dims, *t);
    pto::sim::gm_register(t->data(), size_t(t->numel()) * sizeof(T),
                          "kernel argument '" + std::string(name) + "'");
    return *t;
  }
  // A zero-initialised host tensor owned by HostMain (for outputs).
  template <class T> HostTensor<T> &alloc(std::initializer_list<int64_t> dims) {
    auto *t = new HostTensor<T>(std::vector<int64_t>(dims), "an output tensor");
    tensors_.emplace_back(t);
    pto::sim::gm_register(t->data(), size_t(t->numel()) * sizeof(T),
                          "a host tensor");
    return *t;
  }
  // Flushes the runtime, then writes OUTPUTS/name.npy (nothing when
  // --outputs was not given).
  template <class T> void output(const char *name, HostTensor<T> &t) {
    rt_->flush();
    if (outputs_.empty())
      return;
    t.save(outputs_ + "/" + name + ".npy",
           ("output '" + std::string(name) + "'").c_str());
  }
  Runtime &runtime() { return *rt_; }
  // A varlen offsets argument (`pto.cumulative`): 1-D, starts at 0, never
  // decreases; violations are input errors (exit 2), as in pto-run. Offsets
  // past the end of the tensors they index fail at the first TLOAD/TSTORE
  // outside them (GM bounds check, exit 3).
  template <class T> void check_cumulative(const char *name, HostTensor<T> &t) {
    if (t.rank() != 1 || t.numel() < 1)
      detail::die(
          2, "input '%s': cumulative offsets must be a non-empty 1-D tensor",
          name);
    const T *v = t.data();
    if (v[0] != 0)
      detail::die(2, "input '%s': cumulative offsets must start at 0, got %lld",
                  name, (long long)v[0]);
    for (int64_t i = 1; i < t.numel(); ++i)
      if (v[i] < v[i - 1])
        detail::die(2,
                    "input '%s': cumulative offsets decrease at index %lld "
                    "(%lld after %lld)",
                    name, (long long)i, (long long)v[i], (long long)v[i - 1]);
  }
  int finish() {
    rt_->finish();
    return 0;
  }

private:
  std::string usage_text() const {
    return "usage: " + prog_ +
           " [--inputs DIR] [--outputs DIR] [--threads N] [--arch a3|950] "
           "[--no-check-sync] "
           "[--no-check-hazards] [--shuffle-seed S] [--stats]\n";
  }
  [[noreturn]] __attribute__((format(printf, 2, 3))) void usage(const char *fmt,
                                                                ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "%s: error: %s\n%s", prog_.c_str(), buf,
                 usage_text().c_str());
    std::fflush(stderr);
    std::exit(2);
  }
  std::string prog_, inputs_, outputs_;
  std::unique_ptr<Runtime> rt_;
  std::list<std::unique_ptr<detail::HostTensorBase>> tensors_;
};

} // namespace pto_rt
