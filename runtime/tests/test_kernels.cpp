// Hand-written kernels in the documented pto-isa API, run on the emulation
// through pto_rt, compared with values computed here. One case per argv[1];
// negative cases must die with a pto-sim error (checked by lit).
#include <pto/runtime/pto_runtime.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

using namespace pto;

static int failures = 0;
#define EXPECT(c, ...)                                                         \
  do {                                                                         \
    if (!(c)) {                                                                \
      if (failures++ < 10) {                                                   \
        std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
        std::fprintf(stderr, __VA_ARGS__);                                     \
        std::fprintf(stderr, "\n");                                            \
      }                                                                        \
    }                                                                          \
  } while (0)

static bool close(float a, float b) {
  return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::fabs(b));
}

// Runs one leaf on a runtime of the given arch (sequential).
template <class F>
static void run_leaf(pto_rt::Core k, F f, const char *arch = "a3",
                     const char *leaf = "test_leaf") {
  pto_rt::Runtime::Options o;
  o.arch = arch;
  pto_rt::Runtime rt(o);
  rt.root_call("root", 0, 1,
               [&](pto_rt::RootInstance &ri) { ri.launch(k, leaf, {}, f); });
  rt.finish();
}

using G2f = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                         Stride<1, 1, 1, DYNAMIC, 1>>;
using G2b = GlobalTensor<bfloat16_t, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                         Stride<1, 1, 1, DYNAMIC, 1>>;
using G2bDN = GlobalTensor<bfloat16_t, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                           Stride<1, 1, 1, 1, DYNAMIC>, Layout::DN>;

// ---------------------------------------------------------------------------
// Vector kernel: softmax-like rows, atomically accumulated into GM twice.
// ---------------------------------------------------------------------------
constexpr int VR = 16, VC = 48;
using XB = Tile<TileType::Vec, bfloat16_t, VR, VC, BLayout::RowMajor, DYNAMIC,
                DYNAMIC>;
using XF =
    Tile<TileType::Vec, float, VR, VC, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
using COL = Tile<TileType::Vec, float, VR, 1, BLayout::ColMajor, DYNAMIC, 1>;
using ROW8 = Tile<TileType::Vec, float, VR, 8, BLayout::RowMajor, DYNAMIC, 8>;

static void softmax_kernel(bfloat16_t *x, float *out, int rows, int cols,
                           int ld) {
  XB xb(rows, cols);
  XF xf(rows, cols), y(rows, cols), tmp(rows, cols), z(rows, cols);
  COL m(rows), s(rows);
  ROW8 s8(rows);
  TASSIGN(xb, 0);
  TASSIGN(xf, 0x2000);
  TASSIGN(y, 0x4000);
  TASSIGN(tmp, 0x6000);
  TASSIGN(z, 0x8000);
  TASSIGN(m, 0xA000);
  TASSIGN(s, 0xA100);
  TASSIGN(s8, 0xA200);
  G2b gx(x, {rows, cols}, {ld});
  G2f go(out, {rows, cols}, {ld});
  TLOAD(xb, gx);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TCVT(xf, xb, RoundMode::CAST_NONE);
  pipe_barrier(PIPE_V);
  TROWMAX(m, xf, tmp);
  pipe_barrier(PIPE_V);
  TROWEXPANDSUB(y, xf, m); // mode 1, implicit scratch
  pipe_barrier(PIPE_V);
  TEXP(y, y);
  pipe_barrier(PIPE_V);
  TROWSUM(s, y, tmp);
  pipe_barrier(PIPE_V);
  TMULS(y, y, 0.5f);
  TROWEXPAND(s8, s);
  pipe_barrier(PIPE_V);
  TROWEXPANDDIV(z, y, s8); // mode 2
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE<XF, G2f, AtomicType::AtomicAdd>(go, z);
}

static void case_vector(int threads) {
  const int rows = 12, cols = 40, ld = 48;
  std::vector<bfloat16_t> x(size_t(rows * ld));
  std::vector<float> out(size_t(rows * ld), 1.0f);
  for (int i = 0; i < rows * ld; ++i)
    x[size_t(i)] = bfloat16_t(std::sin(0.37f * float(i)) * 3.0f);
  pto_rt::Runtime::Options o;
  o.threads = threads;
  o.shuffle_seed = threads ? 7 : 0;
  pto_rt::Runtime rt(o);
  rt.root_call("softmax", 1, 4, [&](pto_rt::RootInstance &ri) {
    ri.launch(pto_rt::Core::Vector, "softmax_a", {},
              [&] { softmax_kernel(x.data(), out.data(), rows, cols, ld); });
    ri.launch(pto_rt::Core::Vector, "softmax_b", {},
              [&] { softmax_kernel(x.data(), out.data(), rows, cols, ld); });
  });
  rt.finish();
  for (int r = 0; r < rows; ++r) {
    float xf[VC], mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      xf[c] = float(x[size_t(r * ld + c)]), mx = std::max(mx, xf[c]);
    float y[VC];
    for (int c = 0; c < cols; ++c)
      y[c] = std::exp(xf[c] - mx), sum += y[c];
    for (int c = 0; c < ld; ++c) {
      float want = c < cols ? 1.0f + 2.0f * ((y[c] * 0.5f) / sum) : 1.0f;
      EXPECT(close(out[size_t(r * ld + c)], want), "out[%d,%d] = %g, want %g",
             r, c, out[size_t(r * ld + c)], want);
    }
  }
}

// ---------------------------------------------------------------------------
// Cube kernel: C = A . B^T with B stored [N, K] (loaded through a DN view),
// K split in two chunks (TMATMUL then TMATMUL_ACC), stored f32 and bf16.
// ---------------------------------------------------------------------------
using MatA = Tile<TileType::Mat, bfloat16_t, 32, 64, BLayout::ColMajor, DYNAMIC,
                  DYNAMIC, SLayout::RowMajor, 512>; // Nz
using MatB = Tile<TileType::Mat, bfloat16_t, 64, 32, BLayout::RowMajor, DYNAMIC,
                  DYNAMIC, SLayout::ColMajor, 512>; // Zn
using L0A_t = TileLeft<bfloat16_t, 32, 32, DYNAMIC, DYNAMIC>;
using L0B_t = TileRight<bfloat16_t, 32, 32, DYNAMIC, DYNAMIC>;
using ACC_t = TileAcc<float, 32, 32, DYNAMIC, DYNAMIC>;

static void matmul_kernel(bfloat16_t *a, bfloat16_t *b, float *c,
                          bfloat16_t *cb, int M, int N, int K, bool four_arg) {
  MatA ma(M, K);
  MatB mb(K, N);
  TASSIGN(ma, 0);
  TASSIGN(mb, 0x10000);
  G2b ga(a, {M, K}, {K});
  G2bDN gb(b, {K, N}, {K}); // B^T: element (k, n) at b[n*K + k]
  TLOAD(ma, ga);
  TLOAD(mb, gb);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  const int k0 = std::min(K, 32), k1 = K - k0;
  L0A_t l0(M, k0), l1(M, k1 > 0 ? k1 : 1);
  L0B_t r0(k0, N), r1(k1 > 0 ? k1 : 1, N);
  TASSIGN(l0, 0);
  TASSIGN(l1, 0x2000);
  TASSIGN(r0, 0);
  TASSIGN(r1, 0x2000);
  TEXTRACT(l0, ma, 0, 0);
  TEXTRACT(r0, mb, 0, 0);
  if (k1 > 0) {
    TEXTRACT(l1, ma, 0, 32);
    TEXTRACT(r1, mb, 32, 0);
  }
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  ACC_t acc(M, N), acc2(M, N);
  TASSIGN(acc, 0);
  TASSIGN(acc2, 0x4000);
  TMATMUL(acc, l0, r0);
  if (k1 > 0) {
    if (four_arg)
      TMATMUL_ACC(acc2, acc, l1, r1);
    else
      TMATMUL_ACC(acc, acc, l1, r1);
  }
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  G2f gc(c, {M, N}, {N});
  G2b gcb(cb, {M, N}, {N});
  ACC_t &res = (four_arg && k1 > 0) ? acc2 : acc;
  TSTORE(gc, res);
  TSTORE(gcb, res);
}

static void case_cube(bool four_arg) {
  const int M = 20, N = 24, K = 40;
  std::vector<bfloat16_t> a(M * K), b(N * K), cb(M * N, bfloat16_t(-1.0f));
  std::vector<float> c(M * N, -1.0f);
  for (int i = 0; i < M * K; ++i)
    a[size_t(i)] = bfloat16_t(std::cos(0.11f * float(i)));
  for (int i = 0; i < N * K; ++i)
    b[size_t(i)] = bfloat16_t(std::sin(0.07f * float(i)) * 2.0f);
  run_leaf(pto_rt::Core::Cube, [&] {
    matmul_kernel(a.data(), b.data(), c.data(), cb.data(), M, N, K, four_arg);
  });
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      // Each matmul sums its K chunk with fma from 0; TMATMUL_ACC then adds
      // the accumulator (pto-isa's CPU back end does the same).
      float acc = 0, chunk = 0;
      for (int k = 0; k < K; ++k) {
        if (k == 32)
          acc = chunk, chunk = 0;
        chunk = std::fma(float(a[size_t(i * K + k)]),
                         float(b[size_t(j * K + k)]), chunk);
      }
      acc = K > 32 ? acc + chunk : chunk;
      EXPECT(c[size_t(i * N + j)] == acc, "c[%d,%d] = %.9g, want %.9g", i, j,
             c[size_t(i * N + j)], acc);
      EXPECT(cb[size_t(i * N + j)].value == bfloat16_t(acc).value,
             "cb[%d,%d] bits %04x, want %04x", i, j,
             cb[size_t(i * N + j)].value, bfloat16_t(acc).value);
    }
}

// ---------------------------------------------------------------------------
// Valid regions: elements outside the valid region stay untouched; TLOAD pads
// the partial 32-byte block with the tile's PadValue.
// ---------------------------------------------------------------------------
static void case_valid() {
  std::vector<float> out(16 * 16, 0.0f), in(16 * 16);
  for (int i = 0; i < 256; ++i)
    in[size_t(i)] = float(i);
  run_leaf(pto_rt::Core::Vector, [&] {
    using Full = Tile<TileType::Vec, float, 16, 16>;
    using Dyn = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC,
                     DYNAMIC, SLayout::NoneBox, 512, PadValue::Zero>;
    Full full;
    Dyn part(5, 3);
    TASSIGN(full, 0);
    TASSIGN(part, 0);
    TEXPANDS(full, 7.0f);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    G2f gi(in.data(), {5, 3}, {16});
    TLOAD(part, gi); // writes [5,3], pads cols 3..7 of rows 0..4 with 0
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(part, part, 100.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    G2f go(out.data(), {16, 16}, {16});
    TSTORE(go, full);
  });
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      float want = (r < 5 && c < 3)   ? in[size_t(r * 16 + c)] + 100.0f
                   : (r < 5 && c < 8) ? 0.0f
                                      : 7.0f;
      EXPECT(out[size_t(r * 16 + c)] == want, "out[%d,%d] = %g, want %g", r, c,
             out[size_t(r * 16 + c)], want);
    }
}

// ---------------------------------------------------------------------------
// TCVT round modes through the instruction (bit-level tests are in test_bf16)
// ---------------------------------------------------------------------------
static void case_cvt() {
  float in[8] = {1.00390625f, -1.00390625f, 1.01171875f, 2.5f,
                 -2.5f,       1e30f,        NAN,         3.7f};
  std::vector<float> src(8 * 16, 0.0f);
  for (int i = 0; i < 8; ++i)
    src[size_t(i)] = in[i];
  const RoundMode modes[] = {RoundMode::CAST_RINT,  RoundMode::CAST_ROUND,
                             RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                             RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
  for (RoundMode md : modes) {
    std::vector<bfloat16_t> ob(16);
    std::vector<int32_t> oi(8);
    run_leaf(pto_rt::Core::Vector, [&] {
      using TF = Tile<TileType::Vec, float, 1, 8>;
      using TB =
          Tile<TileType::Vec, bfloat16_t, 1, 16, BLayout::RowMajor, 1, 8>;
      using TI = Tile<TileType::Vec, int32_t, 1, 8>;
      TF f;
      TB b;
      TI i;
      TASSIGN(f, 0);
      TASSIGN(b, 64);
      TASSIGN(i, 128);
      GlobalTensor<float, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>> gf(
          src.data());
      GlobalTensor<bfloat16_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>> gb(
          ob.data());
      GlobalTensor<int32_t, Shape<1, 1, 1, 1, 8>, Stride<1, 1, 1, 8, 1>> gi(
          oi.data());
      TLOAD(f, gf);
      set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
      wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
      TCVT(b, f, md);
      TCVT(i, f, md);
      set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
      wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
      TSTORE(gb, b);
      TSTORE(gi, i);
    });
    for (int k = 0; k < 8; ++k) {
      uint16_t want = pto::sim::f32_to_bf16_bits(in[k], md);
      EXPECT(ob[size_t(k)].value == want, "mode %s: bf16(%g) = %04x, want %04x",
             pto::sim::round_name(md), in[k], ob[size_t(k)].value, want);
    }
    // f32 -> i32: 2.5 under each mode, NaN -> 0, 1e30 saturates
    const int32_t want25[] = {2, 3, 2, 3, 2, 3};
    EXPECT(oi[3] == want25[int(md) - 1], "mode %s: i32(2.5) = %d",
           pto::sim::round_name(md), oi[3]);
    EXPECT(oi[5] == INT32_MAX, "i32(1e30) = %d", oi[5]);
    EXPECT(oi[6] == 0, "i32(nan) = %d", oi[6]);
  }
  // the known RINT/ROUND/ODD/FLOOR/CEIL/TRUNC results for 1.00390625 (a tie)
  // and 1.01171875 (a tie)
  EXPECT(pto::sim::f32_to_bf16_bits(1.00390625f, RoundMode::CAST_RINT) ==
             0x3f80,
         "tie to even");
  EXPECT(pto::sim::f32_to_bf16_bits(1.00390625f, RoundMode::CAST_ROUND) ==
             0x3f81,
         "tie away");
  EXPECT(pto::sim::f32_to_bf16_bits(1.01171875f, RoundMode::CAST_RINT) ==
             0x3f82,
         "tie to even (up)");
}

// ---------------------------------------------------------------------------
// Correct double-buffered loop: WAR flags primed before and drained after.
// ---------------------------------------------------------------------------
static void case_double_buffer() {
  const int tiles = 5;
  std::vector<float> in(size_t(tiles) * 8 * 16), out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i);
  run_leaf(pto_rt::Core::Vector, [&] {
    using T = Tile<TileType::Vec, float, 8, 16>;
    T buf[2], res[2];
    TASSIGN(buf[0], 0);
    TASSIGN(buf[1], 512);
    TASSIGN(res[0], 1024);
    TASSIGN(res[1], 1536);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    for (int t = 0; t < tiles; ++t) {
      const int b = t % 2;
      const event_t ev = b ? EVENT_ID1 : EVENT_ID0;
      GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 16, 1>> gi(
          in.data() + t * 128),
          go(out.data() + t * 128);
      wait_flag(PIPE_V, PIPE_MTE2, ev);
      TLOAD(buf[b], gi);
      set_flag(PIPE_MTE2, PIPE_V, ev);
      wait_flag(PIPE_MTE2, PIPE_V, ev);
      wait_flag(PIPE_MTE3, PIPE_V, ev);
      TMULS(res[b], buf[b], 2.0f);
      set_flag(PIPE_V, PIPE_MTE2, ev);
      set_flag(PIPE_V, PIPE_MTE3, ev);
      wait_flag(PIPE_V, PIPE_MTE3, ev);
      TSTORE(go, res[b]);
      set_flag(PIPE_MTE3, PIPE_V, ev);
    }
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
  });
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT(out[i] == 2 * in[i], "out[%zu] = %g", i, out[i]);
}

// Independent vector ops on disjoint tiles need no barrier; PIPE_ALL orders
// everything.
static void case_no_false_positive() {
  std::vector<float> in(8 * 8, 1.0f), out(8 * 8);
  run_leaf(pto_rt::Core::Vector, [&] {
    using T = Tile<TileType::Vec, float, 8, 8>;
    T a, b, c, d;
    TASSIGN(a, 0), TASSIGN(b, 256), TASSIGN(c, 512), TASSIGN(d, 768);
    GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>> g(
        in.data()),
        go(out.data());
    TLOAD(a, g);
    pipe_barrier(PIPE_ALL);
    TADDS(b, a, 1.0f);
    TMULS(c, a, 3.0f); // reads a again: RAR needs nothing
    TADDS(a, a, 0.0f); // in place
    pipe_barrier(PIPE_V);
    TADD(d, b, c);
    pipe_barrier(PIPE_ALL);
    TSTORE(go, d);
  });
  for (float v : out)
    EXPECT(v == 5.0f, "out = %g", v);
}

// Row broadcasts: mode 1 with an explicit tmp, mode 2, the expanded operand
// first.
static void case_rowexpand() {
  std::vector<float> out(3 * 64);
  run_leaf(pto_rt::Core::Vector, [&] {
    using T = Tile<TileType::Vec, float, 8, 8>;
    using Col = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor>;
    T a, d, e, f, tmp;
    Col col;
    TASSIGN(a, 0), TASSIGN(d, 256), TASSIGN(e, 512), TASSIGN(f, 768),
        TASSIGN(tmp, 1024), TASSIGN(col, 1280);
    TEXPANDS(a, 2.0f);
    TEXPANDS(col, 3.0f);
    pipe_barrier(PIPE_V);
    TROWEXPANDMUL(d, a, col, tmp); // mode 1 with tmp: 6
    TROWEXPAND(e, col);            // [8, 8] of 3 = a mode-2 operand
    pipe_barrier(PIPE_V);
    TROWEXPANDSUB(f, e, a); // mode 2, expanded operand first: 3 - 2 = 1
    pipe_barrier(PIPE_V);
    TROWEXPANDDIV(e, a, e, tmp); // mode 2 in place: 2 / 3
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>> g0(
        out.data()),
        g1(out.data() + 64), g2(out.data() + 128);
    TSTORE(g0, d);
    TSTORE(g1, f);
    TSTORE(g2, e);
  });
  for (int i = 0; i < 64; ++i) {
    EXPECT(out[size_t(i)] == 6.0f, "mul %g", out[size_t(i)]);
    EXPECT(out[size_t(64 + i)] == 1.0f, "sub %g", out[size_t(64 + i)]);
    EXPECT(out[size_t(128 + i)] == 2.0f / 3.0f, "div %g", out[size_t(128 + i)]);
  }
}

// Row reductions with the scratch pto-isa's implementation writes, not one
// of the source's size (ptoisa::getRowReduceScratchShape): on A2/A3 a
// [16, 256] f32 row sum adds its four 64-element repeats in pairs into a
// [16, 128] scratch and a row max folds them into [16, 64]; a 200-column
// source (three repeats and a tail) needs [16, 64] for its sum; DAV_3510
// never touches the scratch (one block).
static void case_rowreduce_scratch() {
  constexpr int R = 16, C = 256;
  std::vector<float> x(size_t(R * C)), out(3 * R * 8, -1.0f);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      x[size_t(i * C + j)] = float((i * 7 + j * 3) % 17) - 8.0f + j / 256.0f;
  auto run = [&](const char *arch, auto tmpSum, auto tmpMax) {
    run_leaf(
        pto_rt::Core::Vector,
        [&] {
          using Src = Tile<TileType::Vec, float, R, C>;
          using Narrow =
              Tile<TileType::Vec, float, R, C, BLayout::RowMajor, R, DYNAMIC>;
          using Out = Tile<TileType::Vec, float, R, 8, BLayout::RowMajor, R, 1>;
          Src src;
          Narrow narrow(200);
          decltype(tmpSum) ts;
          decltype(tmpMax) tm;
          Out s, m, n;
          TASSIGN(src, 0), TASSIGN(narrow, 0), TASSIGN(ts, 16384),
              TASSIGN(tm, 32768), TASSIGN(s, 65536), TASSIGN(m, 66048),
              TASSIGN(n, 66560);
          GlobalTensor<float, Shape<1, 1, 1, R, C>, Stride<1, 1, 1, C, 1>> gx(
              x.data());
          TLOAD(src, gx);
          set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
          wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
          TROWSUM(s, src, ts);
          TROWMAX(m, src, tm);
          pipe_barrier(PIPE_V);
          TROWSUM(n, narrow, ts);
          set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
          wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
          GlobalTensor<float, Shape<1, 1, 1, R, 1>, Stride<1, 1, 1, 8, 1>> g0(
              out.data()),
              g1(out.data() + R * 8), g2(out.data() + 2 * R * 8);
          TSTORE(g0, s);
          TSTORE(g1, m);
          TSTORE(g2, n);
        },
        arch);
    for (int i = 0; i < R; ++i) {
      float sum = 0, narrowSum = 0, mx = x[size_t(i * C)];
      for (int j = 0; j < C; ++j) {
        float v = x[size_t(i * C + j)];
        sum += v, mx = std::max(mx, v);
        if (j < 200)
          narrowSum += v;
      }
      EXPECT(close(out[size_t(i * 8)], sum), "%s sum row %d: %g, want %g", arch,
             i, out[size_t(i * 8)], sum);
      EXPECT(out[size_t(R * 8 + i * 8)] == mx, "%s max row %d: %g, want %g",
             arch, i, out[size_t(R * 8 + i * 8)], mx);
      EXPECT(close(out[size_t(2 * R * 8 + i * 8)], narrowSum),
             "%s 200-column sum row %d: %g, want %g", arch, i,
             out[size_t(2 * R * 8 + i * 8)], narrowSum);
    }
  };
  run("a3", Tile<TileType::Vec, float, R, 128>{},
      Tile<TileType::Vec, float, R, 64>{});
  run("a5", Tile<TileType::Vec, float, 1, 8>{},
      Tile<TileType::Vec, float, 1, 8>{});
}

// Column broadcasts and reductions over a partially valid 5x12 region of
// 8x16 f32 tiles: x[i][j] = i + 1 + j / 16, g[0][j] = j + 1 (a [1, C] row).
static void case_colexpand() {
  constexpr int R = 5, C = 12;
  std::vector<float> x(8 * 16), g(16), out(9 * 8 * 16, -1.0f),
      red(2 * 16, -1.0f);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      x[size_t(i * 16 + j)] = float(i + 1) + float(j) / 16.0f;
  for (int j = 0; j < 16; ++j)
    g[size_t(j)] = float(j + 1);
  run_leaf(pto_rt::Core::Vector, [&] {
    using T =
        Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using Row =
        Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    T a(R, C), d0(R, C), d1(R, C), d2(R, C), d3(R, C), d4(R, C), d5(R, C),
        d6(R, C);
    T *d[7] = {&d0, &d1, &d2, &d3, &d4, &d5, &d6};
    Row row(1, C), sum(1, C), max(1, C);
    TASSIGN(a, 0), TASSIGN(row, 512), TASSIGN(sum, 576), TASSIGN(max, 640);
    for (int k = 0; k < 7; ++k)
      TASSIGN(*d[k], 1024 + 512 * k);
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                 Stride<1, 1, 1, DYNAMIC, 1>>
        gx(x.data(), Shape<1, 1, 1, DYNAMIC, DYNAMIC>(R, C),
           Stride<1, 1, 1, DYNAMIC, 1>(16));
    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                 Stride<1, 1, 1, DYNAMIC, 1>>
        gg(g.data(), Shape<1, 1, 1, DYNAMIC, DYNAMIC>(1, C),
           Stride<1, 1, 1, DYNAMIC, 1>(16));
    TLOAD(a, gx);
    TLOAD(row, gg);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TCOLEXPAND(d0, row);
    TCOLEXPANDADD(d1, a, row);
    TCOLEXPANDSUB(d2, a, row);
    TCOLEXPANDMUL(d3, a, row);
    TCOLEXPANDDIV(d4, a, row);
    TCOLEXPANDMAX(d5, a, row);
    TCOLEXPANDMIN(d6, a, row);
    TCOLSUM(sum, a);
    TCOLMAX(max, a);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    using GO = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>,
                            Stride<1, 1, 1, DYNAMIC, 1>>;
    for (int k = 0; k < 7; ++k) {
      GO go(out.data() + k * 128, Shape<1, 1, 1, DYNAMIC, DYNAMIC>(R, C),
            Stride<1, 1, 1, DYNAMIC, 1>(16));
      TSTORE(go, *d[k]);
    }
    GO gs(red.data(), Shape<1, 1, 1, DYNAMIC, DYNAMIC>(1, C),
          Stride<1, 1, 1, DYNAMIC, 1>(16));
    GO gm(red.data() + 16, Shape<1, 1, 1, DYNAMIC, DYNAMIC>(1, C),
          Stride<1, 1, 1, DYNAMIC, 1>(16));
    TSTORE(gs, sum);
    TSTORE(gm, max);
  });
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j) {
      const float a = x[size_t(i * 16 + j)], b = g[size_t(j)];
      const float want[7] = {b,     a + b,         a - b,        a * b,
                             a / b, a < b ? b : a, b < a ? b : a};
      for (int k = 0; k < 7; ++k) {
        const float got = out[size_t(k * 128 + i * 16 + j)];
        if (i < R && j < C)
          EXPECT(got == want[k], "op %d at (%d, %d): %g, want %g", k, i, j, got,
                 want[k]);
        else
          EXPECT(got == -1.0f,
                 "op %d wrote outside the valid region at (%d, %d)", k, i, j);
      }
    }
  for (int j = 0; j < 16; ++j) {
    float s = 0.0f;
    for (int i = 0; i < R; ++i)
      s += x[size_t(i * 16 + j)];
    const float m = x[size_t((R - 1) * 16 + j)];
    EXPECT(red[size_t(j)] == (j < C ? s : -1.0f), "colsum[%d] = %g", j,
           red[size_t(j)]);
    EXPECT(red[size_t(16 + j)] == (j < C ? m : -1.0f), "colmax[%d] = %g", j,
           red[size_t(16 + j)]);
  }
}

// TTRANS of a partially valid tile: a 5x12 region of a 16x16 tile (f32)
// and of a 16x32 tile (bf16) lands as 12x5; outside it dst is untouched.
static void case_trans() {
  std::vector<float> in(16 * 16), out(16 * 16, -1.0f);
  std::vector<bfloat16_t> inb(16 * 32), outb(32 * 16, bfloat16_t(-1.0f));
  for (int i = 0; i < 16 * 16; ++i)
    in[size_t(i)] = float(i);
  for (int i = 0; i < 16 * 32; ++i)
    inb[size_t(i)] = bfloat16_t(float(i % 200));
  run_leaf(pto_rt::Core::Vector, [&] {
    using S =
        Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using SB = Tile<TileType::Vec, bfloat16_t, 16, 32, BLayout::RowMajor,
                    DYNAMIC, DYNAMIC>;
    using DB = Tile<TileType::Vec, bfloat16_t, 32, 16, BLayout::RowMajor,
                    DYNAMIC, DYNAMIC>;
    S a(5, 12), d(12, 5), t(12, 5);
    SB ab(5, 12);
    DB db(12, 5), tb(12, 5);
    TASSIGN(a, 0), TASSIGN(d, 1024), TASSIGN(t, 2048), TASSIGN(ab, 3072),
        TASSIGN(db, 4096), TASSIGN(tb, 5120);
    GlobalTensor<float, Shape<1, 1, 1, 5, 12>, Stride<1, 1, 1, 16, 1>> gi(
        in.data());
    GlobalTensor<float, Shape<1, 1, 1, 12, 5>, Stride<1, 1, 1, 16, 1>> go(
        out.data());
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, 5, 12>, Stride<1, 1, 1, 32, 1>> gib(
        inb.data());
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, 12, 5>, Stride<1, 1, 1, 16, 1>> gob(
        outb.data());
    TLOAD(a, gi);
    TLOAD(ab, gib);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TTRANS(d, a, t);
    TTRANS(db, ab, tb);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, d);
    TSTORE(gob, db);
  });
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      float want = r < 12 && c < 5 ? in[size_t(c * 16 + r)] : -1.0f;
      EXPECT(out[size_t(r * 16 + c)] == want, "f32 out[%d][%d] = %g, want %g",
             r, c, out[size_t(r * 16 + c)], want);
      float wantb = r < 12 && c < 5 ? float(inb[size_t(c * 32 + r)]) : -1.0f;
      EXPECT(float(outb[size_t(r * 16 + c)]) == wantb,
             "bf16 out[%d][%d] = %g, want %g", r, c,
             float(outb[size_t(r * 16 + c)]), wantb);
    }
}

// TGATHER's mask form: the even columns of 5 valid rows of a 16x64 f32
// tile and the fourth of every four of a bf16 tile, packed row after row
// into destinations whose valid columns fill them; rows past the source's
// valid ones are untouched.
static void case_gather_mask() {
  std::vector<float> in(16 * 64), out(16 * 32, -1.0f);
  std::vector<bfloat16_t> inb(16 * 64), outb(16 * 16, bfloat16_t(-1.0f));
  for (int i = 0; i < 16 * 64; ++i)
    in[size_t(i)] = float(i), inb[size_t(i)] = bfloat16_t(float(i % 200));
  run_leaf(pto_rt::Core::Vector, [&] {
    using S =
        Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using D =
        Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using SB = Tile<TileType::Vec, bfloat16_t, 16, 64, BLayout::RowMajor,
                    DYNAMIC, DYNAMIC>;
    using DB = Tile<TileType::Vec, bfloat16_t, 16, 16, BLayout::RowMajor,
                    DYNAMIC, DYNAMIC>;
    S a(5, 64);
    D d(5, 32);
    SB ab(5, 64);
    DB db(5, 16);
    TASSIGN(a, 0), TASSIGN(d, 4096), TASSIGN(ab, 8192), TASSIGN(db, 12288);
    GlobalTensor<float, Shape<1, 1, 1, 5, 64>, Stride<1, 1, 1, 64, 1>> gi(
        in.data());
    GlobalTensor<float, Shape<1, 1, 1, 5, 32>, Stride<1, 1, 1, 32, 1>> go(
        out.data());
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, 5, 64>, Stride<1, 1, 1, 64, 1>> gib(
        inb.data());
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, 5, 16>, Stride<1, 1, 1, 16, 1>> gob(
        outb.data());
    TLOAD(a, gi);
    TLOAD(ab, gib);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TGATHER<D, S, MaskPattern::P0101>(d, a);
    TGATHER<DB, SB, MaskPattern::P1000>(db, ab);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, d);
    TSTORE(gob, db);
  });
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 32; ++c) {
      float want = r < 5 ? in[size_t(r * 64 + 2 * c)] : -1.0f;
      EXPECT(out[size_t(r * 32 + c)] == want, "f32 out[%d][%d] = %g, want %g",
             r, c, out[size_t(r * 32 + c)], want);
    }
    for (int c = 0; c < 16; ++c) {
      float want = r < 5 ? float(inb[size_t(r * 64 + 4 * c + 3)]) : -1.0f;
      EXPECT(float(outb[size_t(r * 16 + c)]) == want,
             "bf16 out[%d][%d] = %g, want %g", r, c,
             float(outb[size_t(r * 16 + c)]), want);
    }
  }
}

// TRESHAPE names the loaded f32 tile's bytes as i8: the destination, assigned
// elsewhere first, is re-pointed at the source (pto-isa A2/A3), so storing it
// writes the f32 values' bytes.
static void case_treshape() {
  std::vector<float> in(4 * 8);
  std::vector<int8_t> out(4 * 32, 0);
  for (int i = 0; i < 4 * 8; ++i)
    in[size_t(i)] = float(i) * 1.25f - 7.0f;
  run_leaf(pto_rt::Core::Vector, [&] {
    using S =
        Tile<TileType::Vec, float, 4, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using D =
        Tile<TileType::Vec, int8_t, 4, 32, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    S a(4, 8);
    D b(4, 32);
    TASSIGN(a, 0), TASSIGN(b, 4096);
    GlobalTensor<float, Shape<1, 1, 1, 4, 8>, Stride<1, 1, 1, 8, 1>> gi(
        in.data());
    GlobalTensor<int8_t, Shape<1, 1, 1, 4, 32>, Stride<1, 1, 1, 32, 1>> go(
        out.data());
    TLOAD(a, gi);
    TRESHAPE(b, a);
    EXPECT(b.addr() == a.addr(), "TRESHAPE: dst at offset %u, src at %u",
           b.addr(), a.addr());
    set_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, b);
  });
  EXPECT(std::memcmp(out.data(), in.data(), out.size()) == 0,
         "TRESHAPE: the stored bytes differ from the f32 tile's");
}

// The sort instructions as a row top-k uses them: TCI makes the index row,
// TSORT32 sorts 32-element blocks into (value, index) pairs (one idx row for
// every row), a 2-list TMRGSORT merges a 64-element row's two blocks and the
// single-list TMRGSORT merges groups of four blocks per row. Values come
// from a small set, so equal values must keep ascending index order.
static std::vector<std::pair<float, uint32_t>> stable_desc(const float *row,
                                                           int n) {
  std::vector<std::pair<float, uint32_t>> v;
  for (int i = 0; i < n; ++i)
    v.push_back({row[i], uint32_t(i)});
  std::stable_sort(v.begin(), v.end(),
                   [](auto a, auto b) { return a.first > b.first; });
  return v;
}
static uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

static void case_sort() {
  constexpr int R = 4, N = 128;
  std::vector<float> in(R * N), merged2(2 * 64, -1.0f), rows(R * 2 * N, -1.0f);
  for (int i = 0; i < R * N; ++i)
    in[size_t(i)] = float((i * 37) % 11) * 0.5f - 2.0f;
  run_leaf(pto_rt::Core::Vector, [&] {
    using S =
        Tile<TileType::Vec, float, R, N, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    using P = Tile<TileType::Vec, float, R, 2 * N, BLayout::RowMajor, DYNAMIC,
                   DYNAMIC>;
    using Idx = Tile<TileType::Vec, uint32_t, 1, N, BLayout::RowMajor, DYNAMIC,
                     DYNAMIC>;
    using Row = Tile<TileType::Vec, float, 1, 2 * N, BLayout::RowMajor, DYNAMIC,
                     DYNAMIC>;
    using List =
        Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
    S a(R, N);
    P pairs(R, 2 * N);
    Idx idx(1, N);
    Row out(1, 2 * N), tmp(1, 2 * N);
    TASSIGN(a, 0), TASSIGN(pairs, 4096), TASSIGN(idx, 12288),
        TASSIGN(out, 16384), TASSIGN(tmp, 20480);
    GlobalTensor<float, Shape<1, 1, 1, R, N>, Stride<1, 1, 1, N, 1>> gi(
        in.data());
    TLOAD(a, gi);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TCI<Idx, uint32_t, 0>(idx, 0u);
    pipe_barrier(PIPE_V);
    TSORT32(pairs, a, idx);
    pipe_barrier(PIPE_V);
    // Row 0's first 64 elements: two sorted lists of 32 pairs, merged.
    List l0(1, 64), l1(1, 64);
    TASSIGN(l0, 4096), TASSIGN(l1, 4096 + 64 * 4);
    Row m(1, 128);
    TASSIGN(m, 24576);
    MrgSortExecutedNumList executed;
    TMRGSORT<Row, Row, List, List, false>(m, executed, tmp, l0, l1);
    pipe_barrier(PIPE_V);
    EXPECT(executed.mrgSortList0 == 32 && executed.mrgSortList1 == 32,
           "executed %d, %d", executed.mrgSortList0, executed.mrgSortList1);
    // Every row: its 4 blocks (blockLen 64 elements) merged into out.
    for (int r = 0; r < R; ++r) {
      Row src(1, 2 * N);
      TASSIGN(src, 4096 + r * 2 * N * 4);
      TMRGSORT(out, src, 64);
      GlobalTensor<float, Shape<1, 1, 1, 1, 2 * N>, Stride<1, 1, 1, 2 * N, 1>>
          go(rows.data() + r * 2 * N);
      set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
      wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
      TSTORE(go, out);
      set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
      wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    }
    GlobalTensor<float, Shape<1, 1, 1, 1, 128>, Stride<1, 1, 1, 128, 1>> gm(
        merged2.data());
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(gm, m);
  });
  auto want2 = stable_desc(in.data(), 64);
  for (int j = 0; j < 64; ++j)
    EXPECT(merged2[size_t(2 * j)] == want2[size_t(j)].first &&
               bits_of(merged2[size_t(2 * j + 1)]) == want2[size_t(j)].second,
           "2-list merge [%d] = (%g, %u), want (%g, %u)", j,
           merged2[size_t(2 * j)], bits_of(merged2[size_t(2 * j + 1)]),
           want2[size_t(j)].first, want2[size_t(j)].second);
  for (int r = 0; r < R; ++r) {
    auto want = stable_desc(in.data() + r * N, N);
    for (int j = 0; j < N; ++j) {
      float v = rows[size_t(r * 2 * N + 2 * j)];
      uint32_t ix = bits_of(rows[size_t(r * 2 * N + 2 * j + 1)]);
      EXPECT(v == want[size_t(j)].first && ix == want[size_t(j)].second,
             "row %d [%d] = (%g, %u), want (%g, %u)", r, j, v, ix,
             want[size_t(j)].first, want[size_t(j)].second);
    }
  }
}

// Orderings through the scalar pipe and flag round trips are recognised.
static void case_transitive() {
  std::vector<float> in(8 * 8, 2.0f), out(8 * 8);
  run_leaf(pto_rt::Core::Vector, [&] {
    using T = Tile<TileType::Vec, float, 8, 8>;
    T a, b;
    TASSIGN(a, 0), TASSIGN(b, 256);
    GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>> g(
        in.data()),
        go(out.data());
    TLOAD(a, g);
    set_flag(PIPE_MTE2, PIPE_S,
             EVENT_ID0); // the scalar unit waits for the load
    wait_flag(PIPE_MTE2, PIPE_S, EVENT_ID0);
    TMULS(b, a, 3.0f);
    set_flag(PIPE_V, PIPE_MTE3,
             EVENT_ID0); // V -> MTE3 -> V orders V with itself
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
    TADDS(b, b, 1.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(go, b);
  });
  for (float v : out)
    EXPECT(v == 7.0f, "out = %g", v);
}

// ---------------------------------------------------------------------------
// Negative cases: each must end with a pto-sim error.
// ---------------------------------------------------------------------------
using V8 = Tile<TileType::Vec, float, 8, 8>;
using GV8 = GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<1, 1, 1, 8, 1>>;
static float gbuf[256]; // the largest window below is 16 x 16 floats

static std::map<std::string, void (*)()> negative = {
    {"tsort32_partial_block",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         using S = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC,
                        DYNAMIC>;
         using P = Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor,
                        DYNAMIC, DYNAMIC>;
         using Idx = Tile<TileType::Vec, uint32_t, 1, 64, BLayout::RowMajor,
                          DYNAMIC, DYNAMIC>;
         S a(1, 40);
         P p(1, 128);
         Idx i(1, 64);
         TASSIGN(a, 0), TASSIGN(p, 256), TASSIGN(i, 1024);
         TSORT32(p, a, i);
       });
     }},
    {"tgather_unpacked",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         using S8 = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor,
                         DYNAMIC, DYNAMIC>;
         using D8 = Tile<TileType::Vec, float, 8, 16, BLayout::RowMajor,
                         DYNAMIC, DYNAMIC>;
         S8 a(8, 16);
         D8 d(8, 8);
         TASSIGN(a, 0), TASSIGN(d, 512);
         TGATHER<D8, S8, MaskPattern::P0101>(d, a);
       });
     }},
    {"ttrans_shape",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         using D8 = Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC,
                         DYNAMIC>;
         D8 a(8, 4), d(8, 8), t(8, 8);
         TASSIGN(a, 0), TASSIGN(d, 256), TASSIGN(t, 512);
         TTRANS(d, a, t);
       });
     }},
    {"tassign_overflow",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         Tile<TileType::Vec, float, 64, 64> t;
         TASSIGN(t, 190 * 1024);
       });
     }},
    {"tassign_misaligned",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 t;
         TASSIGN(t, 16);
       });
     }},
    {"tassign_950_ok",
     [] {
       run_leaf(
           pto_rt::Core::Vector,
           [] {
             Tile<TileType::Vec, float, 64, 64> t;
             TASSIGN(t, 192 * 1024);
           },
           "950");
       std::printf("ok\n");
       std::exit(0);
     }},
    {"tassign_l0c_a3",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         TileAcc<float, 128, 128> t;
         TASSIGN(t, 96 * 1024);
       });
     }},
    {"tassign_wrong_core",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         V8 t;
         TASSIGN(t, 0);
       });
     }},
    {"unassigned",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 a, b;
         TASSIGN(b, 0);
         TADDS(b, a, 1.0f);
       });
     }},
    {"sync_reuse",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         set_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);
         set_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);
       });
     }},
    {"sync_wait_unset",
     [] {
       run_leaf(pto_rt::Core::Vector,
                [] { wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID2); });
     }},
    {"sync_pending",
     [] {
       run_leaf(
           pto_rt::Core::Vector, [] { set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1); },
           "a3", "leaf_pending");
     }},
    {"hazard_mte2_v",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 a, b;
         TASSIGN(a, 0), TASSIGN(b, 256);
         GV8 g(gbuf);
         TLOAD(a, g);
         TADDS(b, a, 1.0f);
       });
     }},
    {"hazard_v_barrier",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 a, b, c;
         TASSIGN(a, 0), TASSIGN(b, 256), TASSIGN(c, 512);
         TEXPANDS(a, 1.0f);
         pipe_barrier(PIPE_V);
         TADDS(b, a, 1.0f);
         TMULS(c, b, 2.0f);
       });
     }},
    {"hazard_war",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 a, b;
         TASSIGN(a, 0), TASSIGN(b, 256);
         GV8 g(gbuf);
         TLOAD(a, g);
         set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
         wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
         TADDS(b, a, 1.0f);
         TLOAD(a, g); // overwrites a while V may still read it: needs V -> MTE2
       });
     }},
    {"hazard_cube_fix",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         TileLeft<float, 16, 8> l;
         TileRight<float, 8, 16> r;
         TileAcc<float, 16, 16> c;
         TASSIGN(l, 0), TASSIGN(r, 0), TASSIGN(c, 0);
         TMATMUL(c, l, r);
         GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> g(
             gbuf);
         TSTORE(g, c); // missing M -> FIX
       });
     }},
    {"hazard_l0_war",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         Tile<TileType::Mat, float, 16, 8, BLayout::ColMajor, 16, 8,
              SLayout::RowMajor, 512>
             m;
         TileLeft<float, 16, 8> l;
         TileRight<float, 8, 16> r;
         TileAcc<float, 16, 16> c;
         TASSIGN(m, 0), TASSIGN(l, 0), TASSIGN(r, 0), TASSIGN(c, 0);
         TEXTRACT(l, m);
         set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
         wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
         TMATMUL(c, l, r);
         TEXTRACT(l, m); // next k step reuses L0A: needs M -> MTE1
       });
     }},
    {"hazard_acc_war",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         TileLeft<float, 16, 8> l;
         TileRight<float, 8, 16> r;
         TileAcc<float, 16, 16> c;
         TASSIGN(l, 0), TASSIGN(r, 0), TASSIGN(c, 0);
         GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> g(
             gbuf);
         TMATMUL(c, l, r);
         set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
         wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
         TSTORE(g, c);
         TMATMUL(c, l, r); // reuses the accumulator while FIX may still read
                           // it: needs FIX -> M
       });
     }},
    {"column_ok",
     [] {
       // a contiguous column through ND and through DN into a column-major [R,
       // 1] tile
       static float col[16] = {1, 2,  3,  4,  5,  6,  7,  8,
                               9, 10, 11, 12, 13, 14, 15, 16},
                    res[16];
       run_leaf(pto_rt::Core::Vector, [] {
         using C =
             Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, DYNAMIC, 1>;
         C a(13), b(13);
         TASSIGN(a, 0), TASSIGN(b, 64);
         GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 1>, Stride<1, 1, 1, 1, 1>>
             gnd(col, Shape<1, 1, 1, DYNAMIC, 1>(13));
         GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 1>, Stride<1, 1, 1, 1, 1>,
                      Layout::DN>
             gdn(res, Shape<1, 1, 1, DYNAMIC, 1>(13));
         TLOAD(a, gnd);
         set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
         wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
         TMULS(b, a, 2.0f);
         set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
         wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
         TSTORE(gdn, b);
       });
       for (int i = 0; i < 16; ++i)
         EXPECT(res[i] == (i < 13 ? 2.0f * col[i] : 0.0f), "res[%d] = %g", i,
                res[i]);
       std::printf(failures ? "FAIL\n" : "ok\n");
       std::exit(failures ? 1 : 0);
     }},
    {"column_strided",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> a;
         TASSIGN(a, 0);
         GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, 8, 1>> g(
             gbuf);
         TLOAD(a, g);
       });
     }},
    {"matmul_k_zero",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         TileLeft<float, 16, 8, 16, DYNAMIC> l(0);
         TileRight<float, 8, 16> r;
         TileAcc<float, 16, 16> c;
         TASSIGN(l, 0), TASSIGN(r, 0), TASSIGN(c, 0);
         TMATMUL(c, l, r);
       });
     }},
    {"tload_window",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         V8 a;
         TASSIGN(a, 0);
         G2f g(gbuf, {8, 4}, {8});
         TLOAD(a, g);
       });
     }},
    {"textract_bounds",
     [] {
       run_leaf(pto_rt::Core::Cube, [] {
         Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16,
              SLayout::RowMajor, 512>
             m;
         TileLeft<float, 16, 8> l;
         TASSIGN(m, 0), TASSIGN(l, 0);
         TEXTRACT(l, m, 0, 12);
       });
     }},
    {"valid_mismatch",
     [] {
       run_leaf(pto_rt::Core::Vector, [] {
         Tile<TileType::Vec, float, 8, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>
             a(4, 8), b(8, 8);
         TASSIGN(a, 0), TASSIGN(b, 256);
         TADD(b, a, a);
       });
     }},
    {"rowsum_small_scratch",
     [] {
       // A2/A3 TROWSUM of 256 f32 columns writes [16, 128] of its scratch.
       run_leaf(pto_rt::Core::Vector, [] {
         Tile<TileType::Vec, float, 16, 256> src;
         Tile<TileType::Vec, float, 16, 64> tmp;
         Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, 16, 1> dst;
         TASSIGN(src, 0), TASSIGN(tmp, 16384), TASSIGN(dst, 20480);
         TEXPANDS(src, 1.0f);
         pipe_barrier(PIPE_V);
         TROWSUM(dst, src, tmp);
       });
     }},
    {"scratch_hazard",
     [] {
       // mode-1 broadcast without tmp uses UB [184 KiB, 192 KiB) on A2/A3
       run_leaf(pto_rt::Core::Vector, [] {
         Tile<TileType::Vec, float, 8, 8> a, d;
         Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor> col;
         Tile<TileType::Vec, float, 8, 8> planned_in_scratch;
         TASSIGN(a, 0), TASSIGN(d, 256), TASSIGN(col, 512),
             TASSIGN(planned_in_scratch, 184 * 1024);
         GV8 g(gbuf);
         TLOAD(planned_in_scratch, g);
         pipe_barrier(PIPE_ALL);
         TLOAD(planned_in_scratch, g);
         TROWEXPANDSUB(d, a, col);
       });
     }},
};

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
  }
  std::string c = argv[1];
  if (c == "vector")
    case_vector(0);
  else if (c == "vector_threads")
    case_vector(2);
  else if (c == "cube")
    case_cube(false);
  else if (c == "cube4")
    case_cube(true);
  else if (c == "valid")
    case_valid();
  else if (c == "cvt")
    case_cvt();
  else if (c == "double_buffer")
    case_double_buffer();
  else if (c == "no_false_positive")
    case_no_false_positive();
  else if (c == "transitive")
    case_transitive();
  else if (c == "rowexpand")
    case_rowexpand();
  else if (c == "rowreduce_scratch")
    case_rowreduce_scratch();
  else if (c == "colexpand")
    case_colexpand();
  else if (c == "trans")
    case_trans();
  else if (c == "gather_mask")
    case_gather_mask();
  else if (c == "treshape")
    case_treshape();
  else if (c == "sort")
    case_sort();
  else if (negative.count(c)) {
    negative[c]();
    std::fprintf(stderr, "negative case '%s' did not fail\n", c.c_str());
    return 1;
  } else {
    std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
    return 2;
  }
  if (failures) {
    std::fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  std::printf("PASS %s\n", c.c_str());
  return 0;
}
