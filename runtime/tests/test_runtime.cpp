// pto_rt: stitching, workspaces, dependencies under threads and shuffling,
// atomics, error attribution, and a HostMain program (case "host").
#include <pto/runtime/pto_runtime.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace pto;
using pto_rt::Core;

static int failures = 0;
#define EXPECT(c, ...)                                                         \
  do {                                                                         \
    if (!(c) && failures++ < 10) {                                             \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, "\n");                                              \
    }                                                                          \
  } while (0)

static pto_rt::Runtime::Options opts(int threads = 0, uint64_t seed = 0) {
  pto_rt::Runtime::Options o;
  o.threads = threads;
  o.shuffle_seed = seed;
  return o;
}

// Device tasks for 6 calls of one call site with a given depth; calls of
// several call sites that share one; the smallest depth of a task's calls,
// flush() and the launch cap close it.
static void case_stitch() {
  for (int depth : {1, 2, 4, 100}) {
    pto_rt::Runtime rt(opts());
    for (int i = 0; i < 6; ++i)
      rt.root_call("root_a", 1, depth, [&](pto_rt::RootInstance &ri) {
        pto_rt::Token t = ri.launch(Core::Cube, "c", {}, [] {});
        ri.launch(Core::Vector, "v", {t}, [] {});
      });
    rt.finish();
    auto s = rt.stats();
    std::printf(
        "depth=%d device_tasks=%lld root_instances=%lld launches=%lld\n", depth,
        (long long)s.device_tasks, (long long)s.root_instances,
        (long long)s.launches);
  }
  // Call sites alternate in one device task; flush() closes it.
  {
    pto_rt::Runtime rt(opts());
    std::vector<int> order;
    auto call = [&](int site, int depth) {
      rt.root_call("r", site, depth, [&, site](pto_rt::RootInstance &ri) {
        ri.launch(Core::Vector, "v", {},
                  [&order, site] { order.push_back(site); });
      });
    };
    call(1, 8), call(1, 8), call(2, 8), call(2, 8), call(3, 8), call(1, 8);
    const size_t before_flush = order.size();
    rt.flush();
    call(1, 8);
    rt.finish();
    std::printf("sites device_tasks=%lld ran_before_flush=%zu ran=%zu\n",
                (long long)rt.stats().device_tasks, before_flush, order.size());
  }
  // The smallest depth of the pending calls closes the task: 3 calls of
  // depth 8 and one of depth 2 (4 >= 2: the fifth call submits them), then
  // 3 of depth 3.
  {
    pto_rt::Runtime rt(opts());
    auto call = [&](int site, int depth) {
      rt.root_call("r", site, depth, [](pto_rt::RootInstance &ri) {
        ri.launch(Core::Vector, "v", {}, [] {});
      });
    };
    call(1, 8), call(1, 8), call(1, 8), call(2, 2);
    const long long after_four = rt.stats().device_tasks;
    call(1, 3);
    const long long after_five = rt.stats().device_tasks;
    call(2, 3), call(1, 3);
    rt.finish();
    std::printf("min depth: after four %lld, after five %lld, "
                "device_tasks=%lld\n",
                after_four, after_five, (long long)rt.stats().device_tasks);
  }
  // A call finding the pending task at 60000 launches submits it first.
  {
    pto_rt::Runtime rt(opts());
    rt.root_call("big", 1, 1024, [](pto_rt::RootInstance &ri) {
      for (int i = 0; i < 60000; ++i)
        ri.launch(Core::Vector, "v", {}, [] {});
    });
    rt.root_call("small", 2, 1024, [](pto_rt::RootInstance &ri) {
      ri.launch(Core::Vector, "v", {}, [] {});
    });
    rt.finish();
    std::printf("launch cap: device_tasks=%lld launches=%lld\n",
                (long long)rt.stats().device_tasks,
                (long long)rt.stats().launches);
  }
}

// Launch bodies run at flush time; per-instance workspaces are distinct,
// live until their device task completes and start poisoned (NaN).
static void case_workspace() {
  pto_rt::Runtime rt(opts(2));
  float *global = rt.workspace<float>(4);
  for (int i = 0; i < 4; ++i)
    global[i] = 0;
  std::vector<float *> seen;
  bool poisoned = true;
  for (int i = 0; i < 3; ++i)
    rt.root_call("root", 7, 3, [&, i](pto_rt::RootInstance &ri) {
      float *ws = ri.workspace<float>(16);
      seen.push_back(ws);
      poisoned = poisoned && std::isnan(ws[0]) && std::isnan(ws[15]);
      pto_rt::Token w = ri.launch(Core::Cube, "write", {}, [ws, i] {
        for (int k = 0; k < 16; ++k)
          ws[k] = float(i * 100 + k);
      });
      ri.launch(Core::Vector, "read", {w}, [ws, i, global] {
        float s = 0;
        for (int k = 0; k < 16; ++k)
          s += ws[k];
        global[i] = s;
      });
    });
  EXPECT(global[0] == 0, "launches ran before flush");
  rt.finish();
  EXPECT(poisoned, "workspace not poisoned");
  EXPECT(seen.size() == 3 && seen[0] != seen[1] && seen[1] != seen[2] &&
             seen[0] != seen[2],
         "workspaces not distinct");
  for (int i = 0; i < 3; ++i)
    EXPECT(global[i] == float(i * 1600 + 120), "instance %d sum %g", i,
           global[i]);
  EXPECT(rt.stats().device_tasks == 1, "tasks %lld",
         (long long)rt.stats().device_tasks);
  std::printf("workspace ok\n");
}

// Dependencies hold for every schedule; shuffling changes the order of
// independent launches.
static void case_deps() {
  std::vector<std::string> orders;
  for (int threads : {0, 2, 3})
    for (uint64_t seed : {0, 1, 2, 3, 4, 5}) {
      pto_rt::Runtime rt(opts(threads, seed));
      std::atomic<int> clock{0};
      const int N = 12;
      std::vector<int> start(N * 4, -1), end(N * 4, -1);
      std::mutex mu;
      std::string order;
      for (int r = 0; r < N; ++r)
        rt.root_call("diamond", 3, 4, [&, r](pto_rt::RootInstance &ri) {
          auto body = [&, r](int k) {
            return [&, r, k] {
              start[size_t(r * 4 + k)] = clock++;
              if (threads)
                std::this_thread::sleep_for(std::chrono::microseconds(200));
              {
                std::lock_guard<std::mutex> l(mu);
                order += char('a' + r % 26), order += char('0' + k);
              }
              end[size_t(r * 4 + k)] = clock++;
            };
          };
          pto_rt::Token a = ri.launch(Core::Cube, "a", {}, body(0));
          pto_rt::Token b = ri.launch(Core::Vector, "b", {a}, body(1));
          pto_rt::Token c = ri.launch(Core::Vector, "c", {a}, body(2));
          ri.launch(Core::Cube, "d", {b, c}, body(3));
        });
      rt.finish();
      for (int r = 0; r < N; ++r) {
        auto after = [&](int x, int y) {
          return start[size_t(r * 4 + x)] > end[size_t(r * 4 + y)];
        };
        EXPECT(after(1, 0) && after(2, 0) && after(3, 1) && after(3, 2),
               "threads=%d seed=%llu: dependency violated in instance %d",
               threads, (unsigned long long)seed, r);
      }
      if (threads == 0)
        orders.push_back(order);
    }
  std::string submission;
  for (int r = 0; r < 12; ++r)
    for (int k = 0; k < 4; ++k)
      submission += char('a' + r % 26), submission += char('0' + k);
  EXPECT(orders[0] == submission,
         "threads=0 without shuffle ran %s, not the submission order",
         orders[0].c_str());
  int distinct = 0;
  for (size_t i = 1; i < orders.size(); ++i)
    distinct += orders[i] != orders[0];
  EXPECT(distinct >= 4, "shuffle seeds gave only %d different orders",
         distinct);
  std::printf("deps ok\n");
}

// Atomic TSTORE from many vector launches, in shuffled order, on threads.
static void case_atomic() {
  for (int threads : {0, 2})
    for (uint64_t seed : {0, 9}) {
      pto_rt::Runtime rt(opts(threads, seed));
      std::vector<float> out(8 * 8, 0.5f);
      float *o = out.data();
      for (int r = 0; r < 10; ++r)
        rt.root_call("acc", 1, 16, [&, r](pto_rt::RootInstance &ri) {
          ri.launch(Core::Vector, "atomic_leaf", {}, [o, r] {
            Tile<TileType::Vec, float, 8, 8> t;
            TASSIGN(t, 0);
            TEXPANDS(t, float(r + 1));
            set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
            GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>> g(
                o);
            TSTORE<decltype(t), decltype(g), AtomicType::AtomicAdd>(g, t);
          });
        });
      rt.finish();
      for (float v : out)
        EXPECT(v == 55.5f, "threads=%d seed=%llu: %g", threads,
               (unsigned long long)seed, v);
    }
  std::printf("atomic ok\n");
}

// Launches of different root instances in one device task wait for each
// other where their GM regions intersect with conflicting kinds
// (docs/Runtime.md); `gm_waits` counts those waits. Each instance of a
// scenario is one launch per listed use, in one device task.
static void case_gm_regions() {
  static float a[16 * 64], b[16 * 64];
  using U = pto_rt::GmUse;
  const int R = 1, W = 2, A = 4, F = sizeof(float);
  struct Scenario {
    const char *name;
    std::vector<std::vector<U>> instances;
    int64_t waits;
    bool chain = false; // each instance waits for the one before
  };
  const std::vector<Scenario> scenarios = {
      {"disjoint rows",
       {{{a, W, F, 64, 0, 8, 0, 64}}, {{a, W, F, 64, 8, 16, 0, 64}}},
       0},
      {"overlapping rows",
       {{{a, W, F, 64, 0, 8, 0, 64}}, {{a, W, F, 64, 7, 9, 0, 64}}},
       1,
       true},
      {"disjoint columns",
       {{{a, W, F, 64, 0, 8, 0, 32}}, {{a, W, F, 64, 0, 8, 32, 64}}},
       0},
      {"overlapping columns",
       {{{a, W, F, 64, 0, 8, 0, 33}}, {{a, W, F, 64, 0, 8, 32, 64}}},
       1,
       true},
      // Two shapes of one buffer (a reshape): their byte spans intersect.
      {"other shape",
       {{{a, W, F, 64, 0, 8, 0, 32}}, {{a, W, F, 128, 0, 4, 64, 128}}},
       1,
       true},
      {"other shape apart",
       {{{a, W, F, 64, 0, 8, 0, 64}}, {{a, W, F, 128, 4, 8, 0, 128}}},
       0},
      {"reads commute",
       {{{a, R, F, 64, 0, 8, 0, 64}}, {{a, R, F, 64, 0, 8, 0, 64}}},
       0},
      {"atomics commute",
       {{{a, A, F, 64, 0, 8, 0, 64}}, {{a, A, F, 64, 0, 8, 0, 64}}},
       0},
      {"atomic after read",
       {{{a, R, F, 64, 0, 8, 0, 64}}, {{a, A, F, 64, 4, 12, 0, 64}}},
       1,
       true},
      {"whole buffer", {{{a, W, F, 64, 0, 8, 0, 64}}, {{a, R}}}, 1, true},
      {"other buffer", {{{a, W}}, {{b, W}}}, 0},
      {"empty region",
       {{{a, W, F, 64, 0, 8, 0, 64}}, {{a, W, F, 64, 4, 4, 0, 64}}},
       0},
      // Launches of one instance are ordered by their tokens only.
      {"one instance",
       {{{a, W, F, 64, 0, 8, 0, 64}, {a, W, F, 64, 0, 8, 0, 64}}},
       0},
      // Instance 1's write contains instance 0's: instance 2 waits for it
      // alone.
      {"contained",
       {{{a, W, F, 64, 0, 8, 0, 64}},
        {{a, W, F, 64, 0, 16, 0, 64}},
        {{a, R, F, 64, 0, 4, 0, 64}}},
       2,
       true},
      {"contained by whole",
       {{{a, R, F, 64, 0, 8, 0, 64}}, {{a, W}}, {{a, R}}},
       2,
       true},
      // Instance 1's write only overlaps instance 0's: instance 2's read of
      // rows instance 1 did not write waits for instance 0.
      {"not contained",
       {{{a, W, F, 64, 0, 8, 0, 64}},
        {{a, W, F, 64, 4, 12, 0, 64}},
        {{a, R, F, 64, 0, 2, 0, 64}}},
       2},
      // Every instance reads all of a and adds atomically into one row of
      // it: each read and each add waits for the earlier instances' adds
      // and reads (1 + 1 + 2 + 2).
      {"reads then atomics",
       {{{a, R}, {a, A, F, 64, 0, 1, 0, 64}},
        {{a, R}, {a, A, F, 64, 1, 2, 0, 64}},
        {{a, R}, {a, A, F, 64, 2, 3, 0, 64}}},
       6},
  };
  for (const Scenario &sc : scenarios)
    for (int threads : {0, 2})
      for (uint64_t seed : {0, 3, 8}) {
        pto_rt::Runtime rt(opts(threads, seed));
        std::mutex mu;
        std::vector<int> order;
        for (size_t i = 0; i < sc.instances.size(); ++i)
          rt.root_call("r", 1, 16, [&, i](pto_rt::RootInstance &ri) {
            for (const U &use : sc.instances[i])
              ri.launch(Core::Vector, "l", {}, {use}, [&, i] {
                std::lock_guard<std::mutex> l(mu);
                order.push_back(int(i));
              });
          });
        rt.finish();
        EXPECT(rt.stats().gm_waits == sc.waits,
               "%s: %lld cross-instance waits, expected %lld", sc.name,
               (long long)rt.stats().gm_waits, (long long)sc.waits);
        if (sc.chain)
          EXPECT(std::is_sorted(order.begin(), order.end()),
                 "%s: threads=%d seed=%llu ran the instances out of order",
                 sc.name, threads, (unsigned long long)seed);
      }
  std::printf("gm regions ok\n");
}

static void case_identity() {
  pto_rt::Runtime::Options o = opts();
  o.cube_cores = 2;
  o.vector_cores = 4;
  pto_rt::Runtime rt(o);
  std::vector<int> ids;
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    for (int i = 0; i < 5; ++i)
      ri.launch(Core::Vector, "v", {}, [&] {
        ids.push_back(int(get_block_idx() * 100 + get_block_num() * 10 +
                          get_subblockid()));
      });
    ri.launch(Core::Cube, "c", {}, [&] {
      ids.push_back(
          int(get_block_idx() * 100 + get_block_num() * 10 + get_subblockid()));
    });
  });
  rt.finish();
  for (int v : ids)
    std::printf("%d ", v);
  std::printf("\n");
}

static void case_leaf_error() {
  pto_rt::Runtime rt(opts(2));
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    pto_rt::Token a = ri.launch(Core::Cube, "fine_leaf", {}, [] {});
    ri.launch(Core::Vector, "bad_leaf", {a}, [] {
      Tile<TileType::Vec, float, 8, 8> t;
      TASSIGN(t, 1 << 20);
    });
  });
  rt.finish();
}

static void case_throwing_leaf() {
  pto_rt::Runtime rt(opts());
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    ri.launch(Core::Cube, "throwing_leaf", {},
              [] { throw std::runtime_error("boom"); });
  });
  rt.finish();
}

static void case_bad_token() {
  pto_rt::Runtime rt(opts());
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    ri.launch(Core::Cube, "early", {pto_rt::Token{99}}, [] {});
  });
  rt.finish();
}

static void case_stale_instance() {
  pto_rt::Runtime rt(opts());
  // launching from inside a launch body: the device task is already running
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    ri.launch(Core::Vector, "outer", {},
              [&ri] { ri.launch(Core::Cube, "late", {}, [] {}); });
  });
  rt.finish();
}

// A consumer launch that forgets its `after` token: correct in submission
// order, exposed by shuffled orders (it reads the poisoned workspace).
static void case_missing_dep() {
  for (uint64_t seed : {0, 1, 2, 3, 4, 5, 6, 7}) {
    pto_rt::Runtime rt(opts(0, seed));
    std::vector<float> out(4, 0.0f);
    float *o = out.data();
    for (int r = 0; r < 4; ++r)
      rt.root_call("r", 1, 4, [&, r](pto_rt::RootInstance &ri) {
        float *ws = ri.workspace<float>(1);
        ri.launch(Core::Cube, "producer", {}, [ws, r] { ws[0] = float(r); });
        ri.launch(Core::Vector, "consumer",
                  {/* missing: the producer's token */},
                  [ws, o, r] { o[r] = ws[0]; });
      });
    rt.finish();
    int nan = 0;
    for (float v : out)
      nan += std::isnan(v);
    std::printf("seed %llu: %s\n", (unsigned long long)seed,
                nan ? "stale workspace read" : "ok");
  }
}

// Checks can be switched off by the runtime.
static void case_checks_off() {
  pto_rt::Runtime::Options o = opts();
  o.check_sync = false;
  o.check_hazards = false;
  pto_rt::Runtime rt(o);
  rt.root_call("r", 1, 1, [&](pto_rt::RootInstance &ri) {
    ri.launch(Core::Vector, "sloppy", {}, [] {
      Tile<TileType::Vec, float, 8, 8> a, b;
      TASSIGN(a, 0), TASSIGN(b, 256);
      TEXPANDS(a, 1.0f);
      TADDS(b, a, 1.0f);
      set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    });
  });
  rt.finish();
  std::printf("checks off ok\n");
}

// An emitted-style host main: y[i, :] = x[i, :] (bf16 -> f32) * scale[0].
static int host_main(int argc, char **argv) {
  pto_rt::HostMain hm(argc, argv);
  auto &x = hm.input<bfloat16_t>("x", {-1, 16});
  auto &scale = hm.input<float>("scale", {1});
  auto &y = hm.alloc<float>({x.dim(0), 16});
  auto &rt = hm.runtime();
  const int rows = int(x.dim(0));
  for (int r0 = 0; r0 < rows; r0 += 8) {
    const int n = std::min(8, rows - r0);
    rt.root_call("scale_rows", 1, 2, [&, r0, n](pto_rt::RootInstance &ri) {
      bfloat16_t *xp = x.data() + r0 * 16;
      float *yp = y.data() + r0 * 16;
      float s = scale.data()[0];
      ri.launch(Core::Vector, "scale_leaf", {}, [=] {
        Tile<TileType::Vec, bfloat16_t, 8, 16, BLayout::RowMajor, DYNAMIC, 16>
            tb(n);
        Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, 16> tf(n);
        TASSIGN(tb, 0), TASSIGN(tf, 512);
        GlobalTensor<bfloat16_t, Shape<1, 1, 1, DYNAMIC, 16>,
                     Stride<1, 1, 1, 16, 1>>
            gx(xp, {n});
        GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 16>, Stride<1, 1, 1, 16, 1>>
            gy(yp, {n});
        TLOAD(tb, gx);
        set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
        TCVT(tf, tb, RoundMode::CAST_NONE);
        pipe_barrier(PIPE_V);
        TMULS(tf, tf, s);
        set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
        TSTORE(gy, tf);
      });
    });
  }
  hm.output("y", y);
  return hm.finish();
}

int main(int argc, char **argv) {
  std::string c = argc > 1 ? argv[1] : "";
  if (c == "host")
    return host_main(argc - 1, argv + 1);
  if (c == "stitch")
    case_stitch();
  else if (c == "workspace")
    case_workspace();
  else if (c == "deps")
    case_deps();
  else if (c == "atomic")
    case_atomic();
  else if (c == "gm_regions")
    case_gm_regions();
  else if (c == "identity")
    case_identity();
  else if (c == "leaf_error")
    case_leaf_error();
  else if (c == "throwing_leaf")
    case_throwing_leaf();
  else if (c == "bad_token")
    case_bad_token();
  else if (c == "checks_off")
    case_checks_off();
  else if (c == "stale_instance")
    case_stale_instance();
  else if (c == "missing_dep")
    case_missing_dep();
  else {
    std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
    return 2;
  }
  if (failures) {
    std::fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
