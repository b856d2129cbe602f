// pto-mlir host emulation of the pto-isa API: qualifiers, pipes, enums,
// element types (bfloat16_t, half) and the bit-exact conversions.
// Part of <pto/pto-inst.hpp>; do not include directly.
#pragma once

// All standard headers the emulation needs, before the qualifier macros.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

// ---- Qualifiers of the device dialect: empty on the host. ----------------
#define __global__
#define AICORE
#define __aicore__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __biasbuf__
#define __in__
#define __out__
#define __tf__

// The CPU simulator compiles both the cube and the vector side of a kernel.
#ifndef __DAV_CUBE__
#define __DAV_CUBE__ 1
#endif
#ifndef __DAV_VEC__
#define __DAV_VEC__ 1
#endif

enum pipe_t : int {
  PIPE_S = 0,
  PIPE_V = 1,
  PIPE_MTE1 = 2,
  PIPE_MTE2 = 3,
  PIPE_MTE3 = 4,
  PIPE_M = 5,
  PIPE_ALL = 6,
  PIPE_FIX = 7,
};

enum event_t : int {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

// ---- half and bfloat16_t --------------------------------------------------
using half = _Float16;

// BF16 with 16-bit storage. Conversions go through the explicit bit-level
// routines of pto::sim (float -> bf16 rounds to nearest even); the type is
// never an alias of an IEEE half.
struct bfloat16_t {
  uint16_t value;
  bfloat16_t() = default;
  bfloat16_t(float f);    // CAST_RINT
  operator float() const; // exact
  static bfloat16_t from_bits(uint16_t b) {
    bfloat16_t r;
    r.value = b;
    return r;
  }
  uint16_t bits() const { return value; }
};
static_assert(sizeof(bfloat16_t) == 2 &&
              std::is_trivially_copyable_v<bfloat16_t>);

namespace pto {

constexpr int DYNAMIC = -1;

enum class TileType {
  Vec,
  Mat,
  Left,
  Right,
  Acc,
  Bias,
  Scaling,
  ScaleLeft,
  ScaleRight,
  Ctrl
};
// Which AIV's UB an L0C -> UB move fills (pto-isa include/pto/common/type.hpp):
// AIV 0's, AIV 1's, or both, split by rows or columns (not emulated).
enum class AccToVecMode : uint8_t {
  SingleModeVec0 = 0,
  SingleModeVec1 = 1,
  DualModeSplitM = 2,
  DualModeSplitN = 3
};
enum class BLayout { RowMajor = 0, ColMajor = 1 };
enum class SLayout { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue : uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3 };
enum class CompactMode {
  Null = 0,
  Normal = 1,
  RowPlusOne = 2,
  RowAlignedPadding = 3
};
enum class Layout {
  ND = 0,
  DN,
  NZ,
  ZN,
  SCALE,
  MX_A_ZZ,
  MX_A_ND,
  MX_A_DN,
  MX_B_NN,
  MX_B_ND,
  MX_B_DN,
  NC1HWC0,
  FRACTAL_Z,
  NDC1HWC0,
  FRACTAL_Z_3D
};
enum class RoundMode {
  CAST_NONE = 0,
  CAST_RINT = 1,
  CAST_ROUND = 2,
  CAST_FLOOR = 3,
  CAST_CEIL = 4,
  CAST_TRUNC = 5,
  CAST_ODD = 6
};
enum class SaturationMode { ON = 0, OFF = 1 };
enum class AtomicType { AtomicNone = 0, AtomicAdd = 1 };
enum class STPhase { Unspecified = 0, Partial = 2, Final = 3 };
enum class AccPhase { Unspecified = 0, Partial = 2, Final = 3 };
enum class DivAlgorithm { DEFAULT = 0, HIGH_PRECISION = 1 };
enum class ExpAlgorithm { DEFAULT = 0, HIGH_PRECISION = 1 };
enum class LogAlgorithm { DEFAULT = 0, HIGH_PRECISION = 1 };

// What every instruction returns. Typed events (Event<Op, Op>) are not
// modelled: the trailing event arguments of instructions are accepted and
// ignored.
struct RecordEvent {};

namespace sim {

// ---- Errors ---------------------------------------------------------------
// Prefix added to every message: the current leaf (kernel) and core.
std::string error_context();

[[noreturn]] inline void fatal_str(const std::string &msg) {
  std::string ctx = error_context();
  std::fprintf(stderr, "pto-sim error: %s%s\n", msg.c_str(), ctx.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(3);
}

[[noreturn]] __attribute__((format(printf, 1, 2))) inline void
fatal(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fatal_str(buf);
}

// ---- Global switches ------------------------------------------------------
// Flush subnormal inputs and results of bf16/f16 conversions to signed zero.
// Off by default (gradual underflow).
inline std::atomic<bool> flush_subnormals{false};

template <class T> inline T bitcast(auto v) {
  static_assert(sizeof(T) == sizeof(v));
  T r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

inline const char *pipe_name(int p) {
  static const char *n[] = {"PIPE_S",    "PIPE_V", "PIPE_MTE1", "PIPE_MTE2",
                            "PIPE_MTE3", "PIPE_M", "PIPE_ALL",  "PIPE_FIX"};
  return p >= 0 && p < 8 ? n[p] : "PIPE_?";
}

inline const char *round_name(RoundMode m) {
  static const char *n[] = {"CAST_NONE",  "CAST_RINT", "CAST_ROUND",
                            "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC",
                            "CAST_ODD"};
  int i = int(m);
  return i >= 0 && i < 7 ? n[i] : "CAST_?";
}

// ---- BF16 -----------------------------------------------------------------
// f32 -> bf16 on the bit pattern (docs/AscendTarget.md#bf16-conversions).
inline uint16_t f32_to_bf16_bits(float f,
                                 RoundMode mode = RoundMode::CAST_RINT) {
  uint32_t u = bitcast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, sign kept
    return uint16_t((u >> 16) | 0x0040u);
  if (flush_subnormals.load(std::memory_order_relaxed) &&
      (u & 0x7f800000u) == 0)
    u &= 0x80000000u;
  uint32_t t = u >> 16, low = u & 0xffffu;
  bool neg = (u >> 31) != 0;
  switch (mode) {
  case RoundMode::CAST_ROUND:
    return uint16_t((u + 0x8000u) >> 16);
  case RoundMode::CAST_TRUNC:
    return uint16_t(t);
  case RoundMode::CAST_FLOOR:
    return uint16_t(low && neg ? t + 1 : t);
  case RoundMode::CAST_CEIL:
    return uint16_t(low && !neg ? t + 1 : t);
  case RoundMode::CAST_ODD:
    return uint16_t(low ? (t | 1u) : t);
  case RoundMode::CAST_NONE:
  case RoundMode::CAST_RINT:
    break;
  }
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

inline float bf16_bits_to_f32(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  if (flush_subnormals.load(std::memory_order_relaxed) &&
      (u & 0x7f800000u) == 0)
    u &= 0x80000000u;
  return bitcast<float>(u);
}

// ---- FP16 -----------------------------------------------------------------
// Picks between the two candidates bracketing x: t0 with the smaller
// magnitude, t1 = the next larger; d0/d1 are the distances of |x| to them.
inline uint32_t pick_rounded(RoundMode m, bool neg, uint32_t t0, uint32_t t1,
                             double d0, double d1) {
  switch (m) {
  case RoundMode::CAST_ROUND:
    return d0 < d1 ? t0 : t1;
  case RoundMode::CAST_FLOOR:
    return neg ? t1 : t0;
  case RoundMode::CAST_CEIL:
    return neg ? t0 : t1;
  case RoundMode::CAST_TRUNC:
    return t0;
  case RoundMode::CAST_ODD:
    return (t0 & 1) ? t0 : t1;
  case RoundMode::CAST_NONE:
  case RoundMode::CAST_RINT:
    break;
  }
  return d0 < d1 ? t0 : d1 < d0 ? t1 : ((t0 & 1) ? t1 : t0);
}

inline uint16_t f32_to_f16_bits(float f,
                                RoundMode mode = RoundMode::CAST_RINT) {
  uint32_t u = bitcast<uint32_t>(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, sign and top payload kept
    return uint16_t(sign | 0x7e00u | ((u >> 13) & 0x1ffu));
  if ((u & 0x7fffffffu) == 0x7f800000u)
    return uint16_t(sign | 0x7c00u);
  const double ax = std::fabs(double(f));
  uint32_t r;
  if (ax > 65504.0) { // between the largest half and infinity (read as 2^16)
    r = pick_rounded(mode, sign != 0, 0x7bff, 0x7c00, ax - 65504.0,
                     65536.0 - ax);
  } else {
    // magnitude bits of the nearest half (host conversion: ties to even)
    uint32_t h = bitcast<uint16_t>(_Float16(float(ax)));
    double hv = double(float(bitcast<_Float16>(uint16_t(h))));
    if (hv == ax) {
      r = h;
    } else {
      uint32_t lo = hv < ax ? h : h - 1, hi = lo + 1;
      double lv = double(float(bitcast<_Float16>(uint16_t(lo))));
      double hiv = double(float(bitcast<_Float16>(uint16_t(hi))));
      r = pick_rounded(mode, sign != 0, lo, hi, ax - lv, hiv - ax);
    }
  }
  if (flush_subnormals.load(std::memory_order_relaxed) && (r & 0x7c00u) == 0)
    r = 0;
  return uint16_t(sign | r);
}

inline float f16_to_f32(_Float16 h) {
  uint16_t b = bitcast<uint16_t>(h);
  if (flush_subnormals.load(std::memory_order_relaxed) && (b & 0x7c00) == 0)
    b &= 0x8000;
  return float(bitcast<_Float16>(b));
}

// ---- Generic element conversion used by TCVT and the fixpipe ---------------
template <class T>
constexpr bool is_float_like_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, _Float16> || std::is_same_v<T, bfloat16_t>;

template <class T> inline double to_double(T v) {
  if constexpr (std::is_same_v<T, bfloat16_t>)
    return bf16_bits_to_f32(v.value);
  else if constexpr (std::is_same_v<T, _Float16>)
    return f16_to_f32(v);
  else
    return double(v);
}

inline double round_integral(double x, RoundMode m) {
  switch (m) {
  case RoundMode::CAST_ROUND:
    return std::round(x);
  case RoundMode::CAST_FLOOR:
    return std::floor(x);
  case RoundMode::CAST_CEIL:
    return std::ceil(x);
  case RoundMode::CAST_TRUNC:
    return std::trunc(x);
  case RoundMode::CAST_ODD: {
    double f = std::floor(x);
    if (f == x)
      return x;
    return std::fmod(f, 2.0) != 0 ? f : f + 1;
  }
  default:
    return std::nearbyint(x);
  }
}

template <class D, class S> inline D convert(S v, RoundMode m) {
  if constexpr (std::is_same_v<D, S> && !std::is_same_v<D, float>) {
    return v;
  } else if constexpr (std::is_same_v<D, bfloat16_t>) {
    if constexpr (std::is_same_v<S, float>)
      return bfloat16_t::from_bits(f32_to_bf16_bits(v, m));
    else if constexpr (std::is_same_v<S, _Float16>) // exact in f32
      return bfloat16_t::from_bits(f32_to_bf16_bits(f16_to_f32(v), m));
    else
      return bfloat16_t::from_bits(f32_to_bf16_bits(float(v), m));
  } else if constexpr (std::is_same_v<D, _Float16>) {
    if constexpr (std::is_same_v<S, bfloat16_t>)
      return bitcast<_Float16>(f32_to_f16_bits(bf16_bits_to_f32(v.value), m));
    else
      return bitcast<_Float16>(f32_to_f16_bits(float(v), m));
  } else if constexpr (std::is_same_v<D, float>) {
    if constexpr (std::is_same_v<S, float>) // f32 -> f32: round to integral
      return float(round_integral(v, m));
    else if constexpr (std::is_integral_v<S>)
      return float(v);
    else
      return float(to_double(v));
  } else if constexpr (std::is_integral_v<D>) {
    if constexpr (std::is_integral_v<S>) {
      using L = std::numeric_limits<D>;
      if constexpr (std::is_signed_v<S>) {
        int64_t x = int64_t(v);
        if (x < int64_t(L::min()))
          return L::min();
        if (x > 0 && uint64_t(x) > uint64_t(L::max()))
          return L::max();
        return D(x);
      } else {
        uint64_t x = uint64_t(v);
        if (x > uint64_t(L::max()))
          return L::max();
        return D(x);
      }
    } else {
      double x = to_double(v);
      if (std::isnan(x))
        return D(0);
      x = round_integral(x, m);
      using L = std::numeric_limits<D>;
      if (x <= double(L::min()))
        return L::min();
      if (x >= double(L::max()))
        return L::max();
      return D(x);
    }
  } else {
    static_assert(sizeof(D) == 0, "TCVT: unsupported destination element type");
  }
}

// An integer destination without saturation: the value rounded to an
// integer, then reduced modulo 2^bits (two's complement), as a C++/PyTorch
// narrowing conversion does; NaN gives 0, values beyond int64 clamp first.
template <class D, class S> inline D convert_wrapping(S v, RoundMode m) {
  static_assert(std::is_integral_v<D>,
                "convert_wrapping: integer destinations only");
  int64_t x;
  if constexpr (std::is_integral_v<S>) {
    x = int64_t(v);
  } else {
    double d = to_double(v);
    if (std::isnan(d))
      return D(0);
    d = round_integral(d, m);
    if (d <= -9223372036854775808.0)
      x = std::numeric_limits<int64_t>::min();
    else if (d >= 9223372036854775807.0)
      x = std::numeric_limits<int64_t>::max();
    else
      x = int64_t(d);
  }
  return D(static_cast<std::make_unsigned_t<D>>(uint64_t(x)));
}

template <class T> inline const char *type_name() {
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, _Float16>)
    return "half";
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return "bfloat16_t";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "int8_t";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "uint8_t";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "int16_t";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "uint16_t";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "int32_t";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "uint32_t";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "int64_t";
  else
    return "?";
}

// GM the host owns: kernel tensors and workspaces. Once anything is
// registered, every TLOAD/TSTORE window must lie inside one registered range,
// so an offset past a tensor's end (a bad actual_q, say) is a clear error
// instead of a stray host-memory access.
struct GmRange {
  uintptr_t end;
  std::string name;
};
struct GmRegistry {
  std::mutex mu;
  std::map<uintptr_t, GmRange> ranges; // keyed by start address
};
inline GmRegistry &gm_registry() {
  static GmRegistry r;
  return r;
}
inline void gm_register(const void *p, size_t bytes, std::string name) {
  if (!p || !bytes)
    return;
  GmRegistry &r = gm_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.ranges[uintptr_t(p)] = GmRange{uintptr_t(p) + bytes, std::move(name)};
}
inline void gm_unregister(const void *p) {
  GmRegistry &r = gm_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.ranges.erase(uintptr_t(p));
}
// Where `at` lies: "<range's name> + byte <offset>", or its address when no
// registered range holds it.
inline std::string gm_where(uintptr_t at) {
  GmRegistry &r = gm_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.ranges.upper_bound(at);
  char b[96];
  if (it != r.ranges.begin() && at < std::prev(it)->second.end) {
    --it;
    std::snprintf(b, sizeof b, " + byte %llu",
                  (unsigned long long)(at - it->first));
    return it->second.name + b;
  }
  std::snprintf(b, sizeof b, "%p", reinterpret_cast<void *>(at));
  return b;
}
// Checks the bytes [first, last] of an access.
inline void gm_check(const char *instr, uintptr_t first, uintptr_t last) {
  GmRegistry &r = gm_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.ranges.empty())
    return;
  auto it = r.ranges.upper_bound(first);
  if (it != r.ranges.begin()) {
    --it;
    if (first >= it->first && last < it->second.end)
      return;
    if (first >= it->first && first < it->second.end)
      fatal("%s: the GM window runs %llu bytes past the end of %s (%llu "
            "bytes); check the "
            "offsets and valid extents (e.g. actual_q/actual_kv against the "
            "tensor's rows)",
            instr, (unsigned long long)(last + 1 - it->second.end),
            it->second.name.c_str(),
            (unsigned long long)(it->second.end - it->first));
  }
  fatal("%s: the GM window at %p lies outside every kernel tensor and "
        "workspace; check the "
        "offsets (e.g. actual_q/actual_kv against the tensor's rows)",
        instr, reinterpret_cast<void *>(first));
}

} // namespace sim
} // namespace pto

inline bfloat16_t::bfloat16_t(float f) : value(pto::sim::f32_to_bf16_bits(f)) {}
inline bfloat16_t::operator float() const {
  return pto::sim::bf16_bits_to_f32(value);
}
