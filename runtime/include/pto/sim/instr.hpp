// pto-mlir host emulation: the instructions
// (docs/AscendTarget.md#instructions). Part of <pto/pto-inst.hpp>.
#pragma once

#include <mutex>

#include <pto/sim/tile.hpp>

namespace pto {
namespace sim {

inline std::mutex &gm_atomic_lock() {
  static std::mutex m;
  return m;
}

// Data movement with an optional fixpipe conversion (round to nearest even).
template <class D, class S> inline D fix_convert(S v) {
  if constexpr (std::is_same_v<D, S>)
    return v;
  else
    return convert<D>(v, RoundMode::CAST_RINT);
}

template <class TT> inline int vrow(const TT &t) { return t.GetValidRow(); }
template <class TT> inline int vcol(const TT &t) { return t.GetValidCol(); }

// Records the access of a tile's region [0,r) x [0,c) (row-major storage).
// The range is contiguous from the first element to the last one: within a
// tile, columns beyond the region count as accessed too (the sync model
// works on whole buffers; tiles never share rows).
template <class TT>
inline void touch(Core &C, const TT &t, int r, int c, bool write) {
  if (!C.check_hazards || r <= 0 || c <= 0)
    return;
  constexpr uint32_t esz = sizeof(typename TT::DType), pitch = TT::Cols * esz;
  C.access(space_of(TT::Loc), t.addr(),
           uint32_t(r - 1) * pitch + uint32_t(c) * esz, write);
}
template <class TT> inline void touch_valid(Core &C, const TT &t, bool write) {
  touch(C, t, vrow(t), vcol(t), write);
}

inline void need_extent(const char *instr, const char *what, int v, int lo,
                        int hi) {
  if (v < lo || v > hi)
    fatal("%s: %s = %d is outside [%d, %d]", instr, what, v, lo, hi);
}

template <class TT>
inline void need_nonempty(const char *instr, const TT &t, const char *role) {
  if (vrow(t) <= 0 || vcol(t) <= 0)
    fatal("%s: %s %s has an empty valid region %dx%d", instr, role,
          TT::describe().c_str(), vrow(t), vcol(t));
}

template <class A, class B>
inline void need_same_valid(const char *instr, const A &a, const char *an,
                            const B &b, const char *bn) {
  if (vrow(a) != vrow(b) || vcol(a) != vcol(b))
    fatal("%s: %s valid shape %dx%d differs from %s valid shape %dx%d", instr,
          an, vrow(a), vcol(a), bn, vrow(b), vcol(b));
}

template <class T>
constexpr bool vec_arith_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, _Float16> ||
    std::is_same_v<T, int32_t> || std::is_same_v<T, int16_t>;

// Arithmetic in the element type; half and bf16 round once per operation.
template <class T> inline double ld(T v) { return to_double(v); }
template <class T> inline T st(double v) {
  if constexpr (std::is_same_v<T, float>)
    return float(v);
  else if constexpr (std::is_same_v<T, _Float16>)
    return _Float16(float(v));
  else if constexpr (std::is_same_v<T, bfloat16_t>)
    return bfloat16_t(float(v));
  else
    return T(int64_t(v)); // integers wrap
}

// Element-wise map over dst's valid region; f(i, j) -> DType.
template <class TD, class F>
inline void map_valid(TD &dst, const char *instr, F &&f) {
  typename TD::DType *d = dst.data(instr);
  const int R = vrow(dst), C = vcol(dst);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      d[i * TD::Cols + j] = f(i, j);
}

template <class TT> inline void vec_tile_check(const char *instr) {
  static_assert(TT::Loc == TileType::Vec,
                "vector instructions operate on Vec tiles");
  (void)instr;
}

template <class TD, class TS0, class TS1, class Op>
inline RecordEvent binary(const char *instr, TD &dst, TS0 &s0, TS1 &s1, Op op) {
  vec_tile_check<TD>(instr), vec_tile_check<TS0>(instr),
      vec_tile_check<TS1>(instr);
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS0::DType> &&
                    std::is_same_v<T, typename TS1::DType>,
                "binary vector op: equal element types");
  static_assert(vec_arith_type_v<T>,
                "binary vector op: element type must be float, half, "
                "int32_t or int16_t (no bf16 arithmetic on A2/A3)");
  need_same_valid(instr, s0, "src0", dst, "dst");
  need_same_valid(instr, s1, "src1", dst, "dst");
  Core &C = core();
  C.begin(instr, PIPE_V);
  const T *a = s0.data(instr), *b = s1.data(instr);
  touch_valid(C, s0, false), touch_valid(C, s1, false),
      touch_valid(C, dst, true);
  map_valid(dst, instr, [&](int i, int j) {
    return op(a[i * TS0::Cols + j], b[i * TS1::Cols + j]);
  });
  return {};
}

template <class TD, class TS, class Op>
inline RecordEvent unary(const char *instr, TD &dst, TS &src, Op op) {
  vec_tile_check<TD>(instr), vec_tile_check<TS>(instr);
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS::DType>,
                "unary vector op: equal element types");
  static_assert(vec_arith_type_v<T>,
                "unary vector op: element type must be float, half, "
                "int32_t or int16_t");
  need_same_valid(instr, src, "src", dst, "dst");
  Core &C = core();
  C.begin(instr, PIPE_V);
  const T *a = src.data(instr);
  touch_valid(C, src, false), touch_valid(C, dst, true);
  map_valid(dst, instr, [&](int i, int j) { return op(a[i * TS::Cols + j]); });
  return {};
}

// GM addressing of logical element (r, c) of a 2-D window
// (docs/AscendTarget.md#globaltensor).
template <class G> struct GmWindow {
  int64_t rows, cols;
  int64_t shp[5], str[5];
  bool flat; // dims 0-2 are 1
  GmWindow(const G &g) {
    for (int i = 0; i < 5; ++i)
      shp[i] = g.GetShape(i), str[i] = g.GetStride(i);
    flat = shp[0] == 1 && shp[1] == 1 && shp[2] == 1;
    if constexpr (G::layout == Layout::NZ) {
      // [1, cols / C0, rows / 16, 16, C0] fractals (pto-isa's NZ -> NZ path).
      flat = false;
      rows = shp[2] * shp[3];
      cols = shp[0] * shp[1] * shp[4];
    } else if constexpr (G::layout == Layout::DN) {
      rows = shp[3];
      cols = shp[0] * shp[1] * shp[2] * shp[4];
    } else {
      rows = shp[0] * shp[1] * shp[2] * shp[3];
      cols = shp[4];
    }
  }
  int64_t offset(int64_t r, int64_t c) const {
    if (flat)
      return r * str[3] + c * str[4];
    if constexpr (G::layout == Layout::NZ) {
      return c / shp[4] * str[1] + r / shp[3] * str[2] + r % shp[3] * str[3] +
             c % shp[4] * str[4];
    } else if constexpr (G::layout == Layout::DN) {
      int64_t d4 = c % shp[4], q = c / shp[4];
      int64_t d2 = q % shp[2];
      q /= shp[2];
      int64_t d1 = q % shp[1], d0 = q / shp[1];
      return d0 * str[0] + d1 * str[1] + d2 * str[2] + r * str[3] + d4 * str[4];
    } else {
      int64_t d3 = r % shp[3], q = r / shp[3];
      int64_t d2 = q % shp[2];
      q /= shp[2];
      int64_t d1 = q % shp[1], d0 = q / shp[1];
      return d0 * str[0] + d1 * str[1] + d2 * str[2] + d3 * str[3] + c * str[4];
    }
  }
};

// The window's first and last byte must lie in one registered GM range.
template <class G>
inline void check_gm_bounds(const char *instr, const GmWindow<G> &w,
                            const G &g) {
  using T = typename G::DType;
  int64_t lo = 0, hi = 0;
  for (int64_t r : {int64_t(0), w.rows - 1})
    for (int64_t c : {int64_t(0), w.cols - 1}) {
      lo = std::min(lo, w.offset(r, c));
      hi = std::max(hi, w.offset(r, c));
    }
  const uintptr_t base = uintptr_t(g.data());
  gm_check(instr, base + uintptr_t(lo * int64_t(sizeof(T))),
           base + uintptr_t((hi + 1) * int64_t(sizeof(T))) - 1);
}

// On an AIV of a MIX launch: the GM bytes a transfer touches, row by row,
// for the launch's check that the two AIVs do not race on GM.
template <class G>
inline void mix_gm_rows(const char *instr, const GmWindow<G> &w, const G &g,
                        int vr, int vc, MixBlock::GmKind kind) {
  Core &C = core();
  if (!C.mix || C.kind() != CoreKind::Vector || !C.check_hazards || vr <= 0 ||
      vc <= 0)
    return;
  using T = typename G::DType;
  const uintptr_t base = uintptr_t(g.data());
  for (int64_t r = 0; r < vr; ++r) {
    const int64_t a = w.offset(r, 0), b = w.offset(r, vc - 1);
    C.mix->gm_access(
        C, instr, base + uintptr_t(std::min(a, b) * int64_t(sizeof(T))),
        base + uintptr_t((std::max(a, b) + 1) * int64_t(sizeof(T))), kind);
  }
}

template <class TT, class G>
inline void check_window(const char *instr, const TT &t, const GmWindow<G> &w,
                         const G &g) {
  static_assert(
      G::layout == Layout::ND || G::layout == Layout::DN ||
          G::layout == Layout::NZ,
      "TLOAD/TSTORE: only ND, DN and NZ GlobalTensor layouts are emulated");
  const int vr = vrow(t), vc = vcol(t);
  if (vr <= 0 || vc <= 0)
    fatal("%s: %s has an empty valid region %dx%d", instr,
          TT::describe().c_str(), vr, vc);
  for (int i = 0; i < 5; ++i)
    if (w.shp[i] <= 0)
      fatal("%s: GlobalTensor shape entry %d is %lld (must be > 0)", instr, i,
            (long long)w.shp[i]);
  if constexpr (G::layout == Layout::NZ) {
    constexpr int c0 = 32 / int(sizeof(typename G::DType));
    if (w.shp[0] != 1 || w.shp[3] != 16 || w.shp[4] != c0 ||
        w.str[2] != 16 * c0 || w.str[3] != c0 || w.str[4] != 1)
      fatal("%s: an NZ GlobalTensor is [1, cols / %d, rows / 16, 16, %d] "
            "fractals with strides [-, -, %d, %d, 1], got shape "
            "%lld,%lld,%lld,%lld,%lld strides %lld,%lld,%lld,%lld,%lld",
            instr, c0, c0, 16 * c0, c0, (long long)w.shp[0],
            (long long)w.shp[1], (long long)w.shp[2], (long long)w.shp[3],
            (long long)w.shp[4], (long long)w.str[0], (long long)w.str[1],
            (long long)w.str[2], (long long)w.str[3], (long long)w.str[4]);
  }
  if (w.rows != vr || w.cols != vc)
    fatal("%s: the %s GlobalTensor window is %lldx%lld (shape "
          "%lld,%lld,%lld,%lld,%lld) but "
          "the tile's valid region is %dx%d",
          instr,
          G::layout == Layout::DN   ? "DN"
          : G::layout == Layout::NZ ? "NZ"
                                    : "ND",
          (long long)w.rows, (long long)w.cols, (long long)w.shp[0],
          (long long)w.shp[1], (long long)w.shp[2], (long long)w.shp[3],
          (long long)w.shp[4], vr, vc);
  if (!g.data())
    fatal("%s: GlobalTensor has a null pointer", instr);
}

// GM <-> tile layout paths of A2/A3 (docs/AscendTarget.md#globaltensor): same
// layout (ND <-> ND row-major, DN <-> DN column-major) and, for Mat tiles, ND
// <-> Nz, DN <-> Zn.
template <class TT, class G> constexpr void layout_path_checks() {
  constexpr bool nd = G::layout == Layout::ND, dn = G::layout == Layout::DN;
  constexpr bool gmNz = G::layout == Layout::NZ;
  constexpr bool unboxed = TT::SFractal == SLayout::NoneBox;
  constexpr bool rowmaj = TT::BFractal == BLayout::RowMajor;
  constexpr bool nz =
      TT::BFractal == BLayout::ColMajor && TT::SFractal == SLayout::RowMajor;
  constexpr bool zn =
      TT::BFractal == BLayout::RowMajor && TT::SFractal == SLayout::ColMajor;
  static_assert(!gmNz || (TT::Loc == TileType::Mat &&
                          TT::BFractal == BLayout::ColMajor &&
                          TT::SFractal == SLayout::RowMajor),
                "TLOAD: an NZ GlobalTensor needs an Nz Mat tile (NZ -> NZ)");
  if constexpr (TT::Loc == TileType::Vec) {
    // A column-major [R, 1] tile is byte-identical to an ND column with row
    // stride 1 (checked at run time by column_window_check).
    static_assert(!nd || rowmaj || TT::Rows == 1 || TT::Cols == 1,
                  "TLOAD/TSTORE: an ND GlobalTensor needs a row-major Vec tile "
                  "(ND -> ND)");
    static_assert(!dn || !rowmaj || TT::Cols == 1,
                  "TLOAD/TSTORE: a DN GlobalTensor needs a column-major Vec "
                  "tile (DN -> DN)");
  } else if constexpr (TT::Loc == TileType::Mat) {
    static_assert(!nd || (unboxed && rowmaj) || nz,
                  "TLOAD/TSTORE: an ND GlobalTensor needs a row-major or Nz "
                  "Mat tile (ND -> ND, ND -> NZ)");
    static_assert(!dn || (unboxed && !rowmaj) || zn,
                  "TLOAD/TSTORE: a DN GlobalTensor needs a column-major or Zn "
                  "Mat tile (DN -> DN, DN -> ZN)");
  }
}

// An ND window moved into / out of a column-major [R, 1] Vec tile: only a
// contiguous column (row stride 1) is the same bytes as the DN -> DN path.
template <class TT, class G>
inline void column_window_check(const char *instr, const GmWindow<G> &w) {
  if constexpr (TT::Loc == TileType::Vec && G::layout == Layout::ND &&
                !TT::isRowMajor && TT::Cols == 1 && TT::Rows != 1) {
    if (w.rows > 1 && (!w.flat || w.str[3] != 1))
      fatal("%s: an ND window with row stride %lld cannot move a column-major "
            "[R, 1] tile "
            "(the DN -> DN path needs contiguous rows); use a row-major [R, 8] "
            "tile with "
            "validCol 1 for a strided column "
            "(docs/AscendTarget.md#strided-column-operands)",
            instr, (long long)w.str[3]);
  }
}

} // namespace sim

// ---------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------

template <class TileData, class GlobalData, class... E>
  requires(sim::is_tile_v<TileData> && sim::is_global_v<GlobalData> &&
           sim::events_v<E...>)
inline RecordEvent TLOAD(TileData &dst, GlobalData &src, E &...) {
  static const char *I = "TLOAD";
  using T = typename TileData::DType;
  static_assert(TileData::Loc == TileType::Vec ||
                    TileData::Loc == TileType::Mat,
                "TLOAD: dst must be a Vec or Mat tile");
  static_assert(std::is_same_v<T, typename GlobalData::DType>,
                "TLOAD: tile and GlobalTensor element types must match");
  sim::layout_path_checks<TileData, GlobalData>();
  sim::GmWindow<GlobalData> w(src);
  sim::check_window(I, dst, w, src);
  sim::column_window_check<TileData>(I, w);
  sim::check_gm_bounds(I, w, src);
  const int vr = dst.GetValidRow(), vc = dst.GetValidCol();
  sim::mix_gm_rows(I, w, src, vr, vc, sim::MixBlock::GmRead);
  constexpr bool boxed = TileData::SFractal != SLayout::NoneBox;
  if constexpr (GlobalData::layout == Layout::NZ) {
    sim::need_extent(I, "rows", vr, 1, 16384);
    sim::need_extent(I, "columns", vc, 1, 65535);
  } else if constexpr (TileData::Loc == TileType::Mat && boxed) {
    if (!w.flat)
      sim::fatal("TLOAD: the ND->NZ / DN->ZN path needs a 2-D GlobalTensor "
                 "(dims 0-2 equal to 1)");
    sim::need_extent(I, "rows", vr, 1, 16384);
    sim::need_extent(I, "columns", vc, 1, 65535);
  } else {
    sim::need_extent(I, "rows per transfer", vr, 1, 4095);
  }
  sim::Core &C = sim::core();
  C.begin(I, PIPE_MTE2);
  T *d = dst.data(I);
  const T *g = src.data();
  // Pad the partial 32-byte block after the valid columns when asked to.
  int padc = vc;
  T padv{};
  if constexpr (TileData::PadVal != PadValue::Null) {
    constexpr int per = 32 / sizeof(T);
    padc = std::min<int>(TileData::Cols, (vc + per - 1) / per * per);
    if constexpr (TileData::PadVal == PadValue::Zero)
      padv = sim::st<T>(0.0);
    else if constexpr (TileData::PadVal == PadValue::Max) {
      if constexpr (sim::is_float_like_v<T>)
        padv = sim::st<T>(INFINITY);
      else
        padv = std::numeric_limits<T>::max();
    } else if constexpr (TileData::PadVal == PadValue::Min) {
      if constexpr (sim::is_float_like_v<T>)
        padv = sim::st<T>(-INFINITY);
      else
        padv = std::numeric_limits<T>::lowest();
    } else {
      float f = sim::bitcast<float>(uint32_t(uint64_t(TileData::PadVal) >> 32));
      padv = sim::st<T>(f);
    }
  }
  sim::touch(C, dst, vr, padc, true);
  for (int r = 0; r < vr; ++r) {
    for (int c = 0; c < vc; ++c)
      d[r * TileData::Cols + c] = g[w.offset(r, c)];
    for (int c = vc; c < padc; ++c)
      d[r * TileData::Cols + c] = padv;
  }
  return {};
}

template <class TileData, class GlobalData,
          AtomicType Atomic = AtomicType::AtomicNone, class... E>
  requires(sim::is_tile_v<TileData> && sim::is_global_v<GlobalData> &&
           sim::events_v<E...>)
inline RecordEvent TSTORE(GlobalData &dst, TileData &src, E &...) {
  static const char *I =
      Atomic == AtomicType::AtomicAdd ? "TSTORE(AtomicAdd)" : "TSTORE";
  using T = typename TileData::DType;
  using G = typename GlobalData::DType;
  constexpr bool fromAcc = TileData::Loc == TileType::Acc;
  static_assert(TileData::Loc == TileType::Vec ||
                    TileData::Loc == TileType::Mat || fromAcc,
                "TSTORE: src must be a Vec, Mat or Acc tile");
  static_assert(GlobalData::layout != Layout::NZ,
                "TSTORE: storing to an NZ GlobalTensor is not emulated");
  if constexpr (fromAcc) {
    static_assert(
        (std::is_same_v<T, float> &&
         (std::is_same_v<G, float> || std::is_same_v<G, _Float16> ||
          std::is_same_v<G, bfloat16_t>)) ||
            (std::is_same_v<T, int32_t> && std::is_same_v<G, int32_t>),
        "TSTORE from Acc: float -> float/half/bf16 or int32 -> int32");
    static_assert(TileData::Cols >= 1 && TileData::Cols <= 4095,
                  "TSTORE from Acc: Cols must be in [1, 4095]");
    static_assert(GlobalData::layout == Layout::ND,
                  "TSTORE from Acc: only NZ->ND is supported");
    static_assert(TileData::Rows <= 8192,
                  "TSTORE from Acc: ND Rows must be <= 8192");
  } else {
    static_assert(std::is_same_v<T, G>,
                  "TSTORE: tile and GlobalTensor element types must match");
    sim::layout_path_checks<TileData, GlobalData>();
  }
  if constexpr (Atomic == AtomicType::AtomicAdd)
    static_assert(std::is_same_v<G, float> || std::is_same_v<G, _Float16> ||
                      std::is_same_v<G, bfloat16_t> ||
                      std::is_same_v<G, int32_t> ||
                      std::is_same_v<G, int16_t> || std::is_same_v<G, int8_t>,
                  "TSTORE AtomicAdd: GM type must be float, half, bf16, int32, "
                  "int16 or int8");
  sim::GmWindow<GlobalData> w(dst);
  sim::check_window(I, src, w, dst);
  sim::column_window_check<TileData>(I, w);
  sim::check_gm_bounds(I, w, dst);
  const int vr = src.GetValidRow(), vc = src.GetValidCol();
  sim::mix_gm_rows(I, w, dst, vr, vc,
                   Atomic == AtomicType::AtomicAdd ? sim::MixBlock::GmAtomic
                                                   : sim::MixBlock::GmWrite);
  if constexpr (fromAcc)
    sim::need_extent(I, "validCol", vc, 1, 4095);
  else
    sim::need_extent(I, "rows per transfer", vr, 1, 4095);
  sim::Core &C = sim::core();
  C.begin(I, fromAcc ? PIPE_FIX : PIPE_MTE3);
  const T *s = src.data(I);
  sim::touch(C, src, vr, vc, false);
  G *g = dst.data();
  auto elem = [&](int r, int c) -> G {
    return sim::fix_convert<G>(s[r * TileData::Cols + c]);
  };
  if constexpr (Atomic == AtomicType::AtomicAdd) {
    std::lock_guard<std::mutex> lock(sim::gm_atomic_lock());
    for (int r = 0; r < vr; ++r)
      for (int c = 0; c < vc; ++c) {
        G &o = g[w.offset(r, c)];
        if constexpr (std::is_integral_v<G>)
          o = G(int64_t(o) + int64_t(elem(r, c)));
        else
          o = sim::st<G>(float(sim::ld(o)) + float(sim::ld(elem(r, c))));
      }
  } else {
    for (int r = 0; r < vr; ++r)
      for (int c = 0; c < vc; ++c)
        g[w.offset(r, c)] = elem(r, c);
  }
  return {};
}

// L1 -> L0A/L0B window copy, Vec -> Vec, or (DAV_3510, the AIC of a MIX
// launch) an Acc window through the fixpipe into its AIV's UB (pto-isa A5
// TExtractAccToVec, SingleModeVec0, include/pto/npu/a5/TExtract.hpp).
template <class DstTile, class SrcTile, class... E>
  requires(sim::is_tile_v<DstTile> && sim::is_tile_v<SrcTile> &&
           sim::events_v<E...>)
inline RecordEvent TEXTRACT(DstTile &dst, SrcTile &src, uint16_t indexRow = 0,
                            uint16_t indexCol = 0, E &...) {
  static const char *I = "TEXTRACT";
  constexpr bool toUb =
      SrcTile::Loc == TileType::Acc && DstTile::Loc == TileType::Vec;
  static_assert(
      toUb || std::is_same_v<typename DstTile::DType, typename SrcTile::DType>,
      "TEXTRACT: equal element types");
  constexpr bool cube =
      SrcTile::Loc == TileType::Mat &&
      (DstTile::Loc == TileType::Left || DstTile::Loc == TileType::Right);
  constexpr bool vec =
      SrcTile::Loc == TileType::Vec && DstTile::Loc == TileType::Vec;
  static_assert(cube || vec || toUb,
                "TEXTRACT: Mat -> Left/Right, Vec -> Vec or Acc -> Vec");
  if constexpr (toUb) {
    if (sim::core().arch() != sim::Arch::A950 || !sim::core().ub_peer())
      sim::fatal("TEXTRACT Acc -> Vec: the L0C -> UB path exists on DAV_3510 "
                 "only, from the AIC of a MIX launch to its AIV");
    sim::need_nonempty(I, dst, "dst");
    if (indexRow + dst.GetValidRow() > src.GetValidRow() ||
        indexCol + dst.GetValidCol() > src.GetValidCol())
      sim::fatal("TEXTRACT Acc -> Vec: window (%u, %u) + %dx%d exceeds the "
                 "accumulator's valid %dx%d",
                 indexRow, indexCol, dst.GetValidRow(), dst.GetValidCol(),
                 src.GetValidRow(), src.GetValidCol());
  } else {
    if constexpr (cube)
      static_assert(SrcTile::SFractal != SLayout::NoneBox,
                    "TEXTRACT: the Mat source must be Nz or Zn");
    if (indexRow + DstTile::Rows > SrcTile::Rows ||
        indexCol + DstTile::Cols > SrcTile::Cols)
      sim::fatal("TEXTRACT: window (%u, %u) + %dx%d exceeds the source %s",
                 indexRow, indexCol, DstTile::Rows, DstTile::Cols,
                 SrcTile::describe().c_str());
    sim::need_nonempty(I, dst, "dst");
    // pto-isa's A2/A3 ND Vec -> Vec TEXTRACT asserts a 32-byte aligned column
    // (a run-time column is checked only here).
    if constexpr (vec)
      if ((indexCol * sizeof(typename SrcTile::DType)) % 32 != 0)
        sim::fatal("TEXTRACT: indexCol %u is not on a 32-byte boundary",
                   indexCol);
  }
  const int vr = dst.GetValidRow(), vc = dst.GetValidCol();
  sim::Core &C = sim::core();
  C.begin(I, toUb ? PIPE_FIX : cube ? PIPE_MTE1 : PIPE_V);
  const auto *s = src.data(I);
  if (C.check_hazards)
    C.access(sim::space_of(SrcTile::Loc),
             src.addr() +
                 uint32_t((indexRow * SrcTile::Cols + indexCol) * sizeof(*s)),
             uint32_t(((vr - 1) * SrcTile::Cols + vc) * sizeof(*s)), false);
  sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int r, int c) {
    const auto value = s[(indexRow + r) * SrcTile::Cols + indexCol + c];
    // L0C -> UB converts on the way out, as the fixpipe does.
    if constexpr (toUb)
      return sim::fix_convert<typename DstTile::DType>(value);
    else
      return value;
  });
  return {};
}

// An Acc window into the UB of the AIV `Mode` names (pto-isa A5
// TEXTRACT<Dst, Src, AccToVecMode>): SingleModeVec0 as above, SingleModeVec1
// into AIV 1's UB, recorded in AIV 1's hazard state. The AIC's Vec tiles
// are offsets into its paired AIV's UB, so the move reads the tile's offset
// in AIV 1's. The dual modes (one window split over both AIVs) are not
// emulated.
template <class DstTile, class SrcTile, AccToVecMode Mode, class... E>
  requires(sim::is_tile_v<DstTile> && sim::is_tile_v<SrcTile> &&
           sim::events_v<E...>)
inline RecordEvent TEXTRACT(DstTile &dst, SrcTile &src, uint16_t indexRow,
                            uint16_t indexCol, E &...events) {
  static_assert(SrcTile::Loc == TileType::Acc && DstTile::Loc == TileType::Vec,
                "TEXTRACT<..., AccToVecMode>: Acc -> Vec only");
  static_assert(Mode == AccToVecMode::SingleModeVec0 ||
                    Mode == AccToVecMode::SingleModeVec1,
                "TEXTRACT: the dual AccToVecModes are not emulated");
  if constexpr (Mode == AccToVecMode::SingleModeVec0) {
    return TEXTRACT(dst, src, indexRow, indexCol, events...);
  } else {
    sim::Core &C = sim::core();
    if (!C.mix || !C.ub_peer())
      sim::fatal("TEXTRACT Acc -> Vec (SingleModeVec1): the L0C -> UB path "
                 "exists on DAV_3510 only, from the AIC of a MIX launch to "
                 "its AIVs");
    sim::Core *aiv0 = C.ub_peer();
    C.set_ub_peer(C.mix->aiv[1]);
    TEXTRACT(dst, src, indexRow, indexCol, events...);
    C.set_ub_peer(aiv0);
    return {};
  }
}

// Vec -> Vec window insert (pto-isa common/pto_instr.hpp TINSERT; A2/A3
// include/pto/npu/a2a3/TInsert.hpp): src's valid region into dst at
// (indexRow, indexCol), the rest of dst unchanged. The window must lie in
// dst's valid region (the CPU back end asserts it) and start on a 32-byte
// column boundary (A2/A3).
template <class DstTile, class SrcTile, class... E>
  requires(sim::is_tile_v<DstTile> && sim::is_tile_v<SrcTile> &&
           sim::events_v<E...>)
inline RecordEvent TINSERT(DstTile &dst, SrcTile &src, uint16_t indexRow,
                           uint16_t indexCol, E &...) {
  static const char *I = "TINSERT";
  using T = typename DstTile::DType;
  static_assert(std::is_same_v<T, typename SrcTile::DType>,
                "TINSERT: equal element types");
  static_assert(DstTile::Loc == TileType::Vec && SrcTile::Loc == TileType::Vec,
                "TINSERT: Vec -> Vec");
  sim::need_nonempty(I, src, "src");
  const int vr = src.GetValidRow(), vc = src.GetValidCol();
  if (indexRow + vr > dst.GetValidRow() || indexCol + vc > dst.GetValidCol())
    sim::fatal("TINSERT: the %dx%d source at (%u, %u) exceeds the dst valid "
               "shape %dx%d",
               vr, vc, indexRow, indexCol, dst.GetValidRow(),
               dst.GetValidCol());
  if ((indexCol * sizeof(T)) % 32 != 0)
    sim::fatal("TINSERT: indexCol %u is not on a 32-byte boundary", indexCol);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *s = src.data(I);
  T *d = dst.data(I);
  sim::touch_valid(C, src, false);
  if (C.check_hazards)
    C.access(sim::space_of(DstTile::Loc),
             dst.addr() +
                 uint32_t((indexRow * DstTile::Cols + indexCol) * sizeof(T)),
             uint32_t(((vr - 1) * DstTile::Cols + vc) * sizeof(T)), true);
  for (int r = 0; r < vr; ++r)
    for (int c = 0; c < vc; ++c)
      d[(indexRow + r) * DstTile::Cols + indexCol + c] =
          s[r * SrcTile::Cols + c];
  return {};
}

// TRESHAPE(dst, src) (pto-isa include/pto/npu/a2a3/TReshape.hpp): dst is
// pointed at src's bytes (TASSIGN to src's address); nothing moves. Same
// tile type location, equal total bytes, both boxed or both not; the
// element types are free (a2a3), so the bytes are read as dst's type.
template <class DstTile, class SrcTile, class... E>
  requires(sim::is_tile_v<DstTile> && sim::is_tile_v<SrcTile> &&
           sim::events_v<E...>)
inline RecordEvent TRESHAPE(DstTile &dst, SrcTile &src, E &...) {
  static_assert(DstTile::Loc == SrcTile::Loc,
                "TRESHAPE: src and dst live in the same buffer (tile type)");
  static_assert(
      sizeof(typename DstTile::DType) * DstTile::Rows * DstTile::Cols ==
          sizeof(typename SrcTile::DType) * SrcTile::Rows * SrcTile::Cols,
      "TRESHAPE: src and dst must span the same number of bytes");
  static_assert((DstTile::SFractal == SLayout::NoneBox) ==
                    (SrcTile::SFractal == SLayout::NoneBox),
                "TRESHAPE: a boxed and a plain tile do not share a layout");
  if (!src.assigned())
    sim::fatal("TRESHAPE: %s is used before TASSIGN",
               SrcTile::describe().c_str());
  dst.bind(src.addr());
  return {};
}

template <class DstTile, class SrcTile, class... E>
  requires(sim::is_tile_v<DstTile> && sim::is_tile_v<SrcTile> &&
           sim::events_v<E...>)
inline RecordEvent TMOV(DstTile &dst, SrcTile &src, E &...) {
  static const char *I = "TMOV";
  constexpr TileType D = DstTile::Loc, S = SrcTile::Loc;
  static_assert(DstTile::Rows == SrcTile::Rows &&
                    DstTile::Cols == SrcTile::Cols,
                "TMOV: Rows and Cols must match");
  constexpr bool mte1 =
      S == TileType::Mat &&
      (D == TileType::Left || D == TileType::Right || D == TileType::Bias);
  // Acc -> Vec: DAV_3510's L0C -> UB path, run by the AIC of a MIX launch
  // into the UB of its AIV 0 (pto-isa A5 TMovCcToUb, SingleModeVec0).
  constexpr bool toUb = S == TileType::Acc && D == TileType::Vec;
  constexpr bool fix = (S == TileType::Acc && D == TileType::Mat) ||
                       (S == TileType::Mat && D == TileType::Scaling) || toUb;
  constexpr bool vec = S == TileType::Vec && D == TileType::Vec;
  static_assert(mte1 || fix || vec,
                "TMOV: supported pairs are Mat->Left/Right/Bias/Scaling, "
                "Vec->Vec, Acc->Mat, Acc->Vec");
  if constexpr (toUb)
    if (sim::core().arch() != sim::Arch::A950 || !sim::core().ub_peer())
      sim::fatal("TMOV Acc -> Vec: the L0C -> UB path exists on DAV_3510 "
                 "only, from the AIC of a MIX launch to its AIV");
  if constexpr (!(S == TileType::Acc))
    static_assert(
        std::is_same_v<typename DstTile::DType, typename SrcTile::DType>,
        "TMOV: equal element types");
  sim::need_nonempty(I, dst, "dst");
  const int vr = dst.GetValidRow(), vc = dst.GetValidCol();
  if (vr > src.GetValidRow() || vc > src.GetValidCol())
    sim::fatal("TMOV: dst valid shape %dx%d exceeds src valid shape %dx%d", vr,
               vc, src.GetValidRow(), src.GetValidCol());
  sim::Core &C = sim::core();
  C.begin(I, mte1 ? PIPE_MTE1 : fix ? PIPE_FIX : PIPE_V);
  const auto *s = src.data(I);
  sim::touch(C, src, vr, vc, false), sim::touch_valid(C, dst, true);
  using DT = typename DstTile::DType;
  sim::map_valid(dst, I, [&](int r, int c) -> DT {
    return sim::fix_convert<DT>(s[r * SrcTile::Cols + c]);
  });
  return {};
}

// ---------------------------------------------------------------------------
// Cube
// ---------------------------------------------------------------------------
namespace sim {
template <class TC, class TA, class TB> constexpr void matmul_static_checks() {
  static_assert(TC::Loc == TileType::Acc && TA::Loc == TileType::Left &&
                    TB::Loc == TileType::Right,
                "TMATMUL: operands must be Acc, Left, Right tiles");
  using C = typename TC::DType;
  using A = typename TA::DType;
  using B = typename TB::DType;
  static_assert(std::is_same_v<A, B>,
                "TMATMUL: Left and Right element types must match");
  static_assert(
      (std::is_same_v<C, int32_t> && std::is_same_v<A, int8_t>) ||
          (std::is_same_v<C, float> &&
           (std::is_same_v<A, _Float16> || std::is_same_v<A, float> ||
            std::is_same_v<A, bfloat16_t>)),
      "TMATMUL: (C, A, B) must be (int32, int8, int8), (float, half, half), "
      "(float, float, float) or (float, bf16, bf16)");
  static_assert(TA::Rows == TC::Rows, "TMATMUL: a.Rows == c.Rows");
  static_assert(TA::Cols == TB::Rows, "TMATMUL: a.Cols == b.Rows");
  static_assert(TB::Cols == TC::Cols, "TMATMUL: b.Cols == c.Cols");
}

template <class TC, class TCI, class TA, class TB>
inline void matmul(const char *I, TC &c, TCI *cin, TA &a, TB &b) {
  const int m = a.GetValidRow(), k = a.GetValidCol(), n = b.GetValidCol();
  need_extent(I, "m (a.validRow)", m, 1, 4095);
  need_extent(I, "k (a.validCol)", k, 1, 4095);
  need_extent(I, "n (b.validCol)", n, 1, 4095);
  if (b.GetValidRow() < k)
    fatal("%s: b.validRow = %d is smaller than k = a.validCol = %d", I,
          b.GetValidRow(), k);
  Core &C = core();
  C.begin(I, PIPE_M);
  using CT = typename TC::DType;
  const auto *A = a.data(I);
  const auto *B = b.data(I);
  const CT *Ci = cin ? cin->data(I) : nullptr;
  CT *Co = c.data(I);
  touch(C, a, m, k, false), touch(C, b, k, n, false);
  if (cin)
    touch(C, *cin, m, n, false);
  touch(C, c, m, n, true);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      if constexpr (std::is_same_v<CT, int32_t>) {
        int32_t acc = Ci ? Ci[i * TCI::Cols + j] : 0;
        for (int kk = 0; kk < k; ++kk)
          acc += int32_t(A[i * TA::Cols + kk]) * int32_t(B[kk * TB::Cols + j]);
        Co[i * TC::Cols + j] = acc;
      } else {
        // As pto-isa's CPU back end: this call's products summed with fma in
        // k order from 0, then added to the accumulator once.
        float acc = 0.0f;
        for (int kk = 0; kk < k; ++kk)
          acc = std::fma(float(ld(A[i * TA::Cols + kk])),
                         float(ld(B[kk * TB::Cols + j])), acc);
        Co[i * TC::Cols + j] = Ci ? Ci[i * TCI::Cols + j] + acc : acc;
      }
    }
}
} // namespace sim

template <class TileRes, class TileLeft, class TileRight, class... E>
  requires(sim::is_tile_v<TileRes> && sim::is_tile_v<TileLeft> &&
           sim::is_tile_v<TileRight> && sim::events_v<E...>)
inline RecordEvent TMATMUL(TileRes &c, TileLeft &a, TileRight &b, E &...) {
  sim::matmul_static_checks<TileRes, TileLeft, TileRight>();
  sim::matmul<TileRes, TileRes>("TMATMUL", c, nullptr, a, b);
  return {};
}

// Only the four-operand form: pto-isa's CPU back end has no TMATMUL_ACC(c, a,
// b) (its public header declares one, whose instantiation fails there), so
// accumulating in place is spelled TMATMUL_ACC(c, c, a, b).
template <class TileRes, class TileIn, class TileLeft, class TileRight,
          class... E>
  requires(sim::is_tile_v<TileRes> && sim::is_tile_v<TileIn> &&
           sim::is_tile_v<TileLeft> && sim::is_tile_v<TileRight> &&
           sim::events_v<E...> && TileIn::Loc == TileType::Acc)
inline RecordEvent TMATMUL_ACC(TileRes &cOut, TileIn &cIn, TileLeft &a,
                               TileRight &b, E &...) {
  sim::matmul_static_checks<TileRes, TileLeft, TileRight>();
  static_assert(std::is_same_v<typename TileRes::DType, typename TileIn::DType>,
                "TMATMUL_ACC: cIn and cOut element types must match");
  sim::matmul<TileRes, TileIn>("TMATMUL_ACC", cOut, &cIn, a, b);
  return {};
}

// ---------------------------------------------------------------------------
// Vector element-wise
// ---------------------------------------------------------------------------
#define PTO_SIM_BINARY(NAME, EXPR)                                             \
  template <class TileD, class TileS0, class TileS1, class... E>               \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&                \
             sim::is_tile_v<TileS1> && sim::events_v<E...>)                    \
  inline RecordEvent NAME(TileD &dst, TileS0 &src0, TileS1 &src1, E &...) {    \
    using T = typename TileD::DType;                                           \
    return sim::binary(#NAME, dst, src0, src1,                                 \
                       [](T a, T b) -> T { return EXPR; });                    \
  }
PTO_SIM_BINARY(TADD, sim::st<T>(sim::ld(a) + sim::ld(b)))
PTO_SIM_BINARY(TSUB, sim::st<T>(sim::ld(a) - sim::ld(b)))
PTO_SIM_BINARY(TMUL, std::is_integral_v<T>
                         ? T(int64_t(a) * int64_t(b))
                         : sim::st<T>(float(sim::ld(a)) * float(sim::ld(b))))
PTO_SIM_BINARY(TMAX, a < b ? b : a)
PTO_SIM_BINARY(TMIN, b < a ? b : a)
#undef PTO_SIM_BINARY

template <DivAlgorithm Alg = DivAlgorithm::DEFAULT, class TileD, class TileS0,
          class TileS1, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&
           sim::is_tile_v<TileS1> && sim::events_v<E...>)
inline RecordEvent TDIV(TileD &dst, TileS0 &src0, TileS1 &src1, E &...) {
  using T = typename TileD::DType;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16>,
                "TDIV: half or float");
  return sim::binary("TDIV", dst, src0, src1, [](T a, T b) -> T {
    return sim::st<T>(float(sim::ld(a)) / float(sim::ld(b)));
  });
}

#define PTO_SIM_SCALAR(NAME, EXPR)                                             \
  template <class TileD, class TileS, class... E>                              \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&                 \
             sim::events_v<E...>)                                              \
  inline RecordEvent NAME(TileD &dst, TileS &src,                              \
                          typename TileS::DType scalar, E &...) {              \
    using T = typename TileD::DType;                                           \
    static_assert(std::is_same_v<T, typename TileS::DType>,                    \
                  #NAME ": equal element types");                              \
    const T b = scalar;                                                        \
    return sim::unary(#NAME, dst, src, [b](T a) -> T { return EXPR; });        \
  }
PTO_SIM_SCALAR(TADDS, sim::st<T>(sim::ld(a) + sim::ld(b)))
PTO_SIM_SCALAR(TSUBS, sim::st<T>(sim::ld(a) - sim::ld(b)))
PTO_SIM_SCALAR(TMULS, std::is_integral_v<T>
                          ? T(int64_t(a) * int64_t(b))
                          : sim::st<T>(float(sim::ld(a)) * float(sim::ld(b))))
PTO_SIM_SCALAR(TMAXS, a < b ? b : a)
PTO_SIM_SCALAR(TMINS, b < a ? b : a)
#undef PTO_SIM_SCALAR

// TDIVS<Alg>(dst, src, scalar): dst = src / scalar; the algorithm (pto-isa's
// DivAlgorithm template argument) does not change the emulated result.
template <DivAlgorithm Alg = DivAlgorithm::DEFAULT, class TileD, class TileS,
          class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TDIVS(TileD &dst, TileS &src, typename TileS::DType scalar,
                         E &...) {
  using T = typename TileD::DType;
  static_assert(std::is_same_v<T, typename TileS::DType>,
                "TDIVS: equal element types");
  const T b = scalar;
  return sim::unary("TDIVS", dst, src, [b](T a) -> T {
    return sim::st<T>(float(sim::ld(a)) / float(sim::ld(b)));
  });
}

// scalar / tile form of TDIVS
template <DivAlgorithm Alg = DivAlgorithm::DEFAULT, class TileD, class TileS,
          class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TDIVS(TileD &dst, typename TileS::DType scalar, TileS &src,
                         E &...) {
  using T = typename TileD::DType;
  const T b = scalar;
  return sim::unary("TDIVS", dst, src, [b](T a) -> T {
    return sim::st<T>(float(sim::ld(b)) / float(sim::ld(a)));
  });
}

#define PTO_SIM_UNARY(NAME, EXPR)                                              \
  template <class TileD, class TileS, class... E>                              \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&                 \
             sim::events_v<E...>)                                              \
  inline RecordEvent NAME(TileD &dst, TileS &src, E &...) {                    \
    using T = typename TileD::DType;                                           \
    return sim::unary(#NAME, dst, src, [](T a) -> T { return EXPR; });         \
  }
PTO_SIM_UNARY(TABS, a < T(0) ? T(-a) : a)
PTO_SIM_UNARY(TNEG, T(-a))
PTO_SIM_UNARY(TSQRT, sim::st<T>(std::sqrt(float(sim::ld(a)))))
// As pto-isa's CPU back end: 1/sqrt in double, rounded once to T.
PTO_SIM_UNARY(TRSQRT, sim::st<T>(float(1.0 / std::sqrt(double(sim::ld(a))))))
PTO_SIM_UNARY(TRECIP, sim::st<T>(1.0f / float(sim::ld(a))))
#undef PTO_SIM_UNARY

template <ExpAlgorithm Alg = ExpAlgorithm::DEFAULT, class TileD, class TileS,
          class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TEXP(TileD &dst, TileS &src, E &...) {
  using T = typename TileD::DType;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16>,
                "TEXP: half or float");
  // As pto-isa's CPU back end: float through exp in double (rounded once),
  // half through expf.
  return sim::unary("TEXP", dst, src, [](T a) -> T {
    if constexpr (std::is_same_v<T, float>)
      return float(std::exp(double(a)));
    else
      return sim::st<T>(std::exp(float(sim::ld(a))));
  });
}

template <LogAlgorithm Alg = LogAlgorithm::DEFAULT, class TileD, class TileS,
          class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TLOG(TileD &dst, TileS &src, E &...) {
  using T = typename TileD::DType;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16>,
                "TLOG: half or float");
  // As pto-isa's CPU back end: log in double, rounded once to T.
  return sim::unary("TLOG", dst, src, [](T a) -> T {
    return sim::st<T>(float(std::log(double(sim::ld(a)))));
  });
}

namespace sim {
// One conversion over the valid region: clamping to an integer destination's
// range, or (wrap) wrapping to its width.
template <class TileD, class TileS>
inline void convert_tile(TileD &dst, TileS &src, RoundMode mode, bool wrap) {
  static const char *I = "TCVT";
  static_assert(TileD::Loc == TileType::Vec && TileS::Loc == TileType::Vec,
                "TCVT: Vec tiles");
  need_same_valid(I, src, "src", dst, "dst");
  Core &C = core();
  C.begin(I, PIPE_V);
  const auto *s = src.data(I);
  touch_valid(C, src, false), touch_valid(C, dst, true);
  using DT = typename TileD::DType;
  map_valid(dst, I, [&](int i, int j) {
    if constexpr (std::is_integral_v<DT>)
      if (wrap)
        return convert_wrapping<DT>(s[i * TileS::Cols + j], mode);
    return convert<DT>(s[i * TileS::Cols + j], mode);
  });
}
} // namespace sim

template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TCVT(TileD &dst, TileS &src, RoundMode mode, E &...) {
  sim::convert_tile(dst, src, mode, /*wrap=*/false);
  return {};
}

// ON clamps an out-of-range value to an integer destination's range (what
// the three-argument form does); OFF wraps it to the destination's width,
// two's complement (PyTorch's conversion; NaN gives 0). Float destinations
// convert the same way under either mode.
template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TCVT(TileD &dst, TileS &src, RoundMode mode,
                        SaturationMode sat, E &...) {
  sim::convert_tile(dst, src, mode, sat == SaturationMode::OFF);
  return {};
}

template <class TileData, class... E>
  requires(sim::is_tile_v<TileData> && sim::events_v<E...>)
inline RecordEvent TEXPANDS(TileData &dst, typename TileData::DType scalar,
                            E &...) {
  static const char *I = "TEXPANDS";
  static_assert(TileData::Loc == TileType::Vec ||
                    TileData::Loc == TileType::Mat,
                "TEXPANDS: Vec or Mat tile");
  constexpr bool mat = TileData::Loc == TileType::Mat;
  sim::Core &C = sim::core();
  C.begin(I, mat ? PIPE_MTE2 : PIPE_V);
  auto *d = dst.data(I);
  const int R = mat ? TileData::Rows : dst.GetValidRow(),
            Cc = mat ? TileData::Cols : dst.GetValidCol();
  sim::touch(C, dst, R, Cc, true);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < Cc; ++j)
      d[i * TileData::Cols + j] = scalar;
  return {};
}

// ---------------------------------------------------------------------------
// Row reductions and broadcasts
// ---------------------------------------------------------------------------
namespace sim {
template <bool IsMax, class TD, class TS, class TT>
inline void rowreduce(const char *I, TD &dst, TS &src, TT &tmp) {
  static_assert(TD::Loc == TileType::Vec && TS::Loc == TileType::Vec &&
                    TT::Loc == TileType::Vec,
                "row reductions operate on Vec tiles");
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS::DType>,
                "row reduction: equal element types");
  static_assert(vec_arith_type_v<T>,
                "row reduction: half, float, int32_t or int16_t");
  static_assert(TS::isRowMajor && TS::SFractal == SLayout::NoneBox,
                "row reduction: src must be ND");
  static_assert((TD::isRowMajor && TD::SFractal == SLayout::NoneBox) ||
                    TD::Cols == 1,
                "row reduction: dst must be ND or DN with Cols == 1");
  const int R = src.GetValidRow(), Cn = src.GetValidCol();
  need_nonempty(I, src, "src");
  if (dst.GetValidRow() != R)
    fatal("%s: dst validRow %d differs from src validRow %d", I,
          dst.GetValidRow(), R);
  Core &C = core();
  C.begin(I, PIPE_V);
  const T *s = src.data(I);
  T *d = dst.data(I);
  (void)tmp.data(I);
  // The part of the scratch pto-isa's implementation writes for this source
  // (ptoisa::getRowReduceScratchShape, with the valid columns in place of
  // the capacity): none on DAV_3510; on A2/A3 one 32-byte block for
  // integers, and for a float row longer than one 256-byte repeat the first
  // repeat of each row (TROWMAX) or half of the row's repeats (TROWSUM, which
  // adds them in pairs first).
  int tmpRows = 0, tmpCols = 0;
  if (C.arch() == Arch::A3) {
    constexpr int block = 32 / sizeof(T), repeat = 256 / sizeof(T);
    if constexpr (std::is_integral_v<T>) {
      tmpRows = 1;
      tmpCols = block;
    } else if (Cn > repeat) {
      tmpRows = R;
      tmpCols = IsMax ? repeat : std::max(1, Cn / repeat / 2) * repeat;
    }
  }
  if (tmpRows > TT::Rows || tmpCols > TT::Cols)
    fatal("%s: scratch %dx%d is smaller than the %dx%d that pto-isa's A2/A3 "
          "implementation writes for a source of %d valid columns",
          I, TT::Rows, TT::Cols, tmpRows, tmpCols, Cn);
  touch_valid(C, src, false);
  touch(C, tmp, tmpRows, tmpCols, true);
  touch(C, dst, R, 1, true);
  for (int i = 0; i < R; ++i) {
    if constexpr (IsMax) {
      T m = s[i * TS::Cols];
      for (int j = 1; j < Cn; ++j)
        if (m < s[i * TS::Cols + j])
          m = s[i * TS::Cols + j];
      d[i * TD::Cols] = m;
    } else if constexpr (std::is_integral_v<T>) {
      int64_t acc = 0;
      for (int j = 0; j < Cn; ++j)
        acc += s[i * TS::Cols + j];
      d[i * TD::Cols] = T(acc);
    } else {
      float acc = 0.0f;
      for (int j = 0; j < Cn; ++j)
        acc += float(ld(s[i * TS::Cols + j]));
      d[i * TD::Cols] = st<T>(acc);
    }
  }
}

// Row-broadcast binary op (TROWEXPANDSUB/MUL/DIV,
// docs/AscendTarget.md#instructions). The operand that does not have dst's
// valid shape is the expanded one (mode 1 or mode 2).
template <class TD, class TS0, class TS1, class TT, class Op>
inline void rowexpand_binary(const char *I, TD &dst, TS0 &s0, TS1 &s1, TT *tmp,
                             Op op) {
  const bool have_tmp = tmp != nullptr;
  static_assert(TD::Loc == TileType::Vec && TS0::Loc == TileType::Vec &&
                    TS1::Loc == TileType::Vec,
                "row-broadcast ops operate on Vec tiles");
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS0::DType> &&
                    std::is_same_v<T, typename TS1::DType>,
                "row-broadcast op: equal element types");
  static_assert(vec_arith_type_v<T>,
                "row-broadcast op: half, float, int32_t or int16_t");
  constexpr int per = 32 / sizeof(T);
  need_nonempty(I, dst, "dst");
  const int R = dst.GetValidRow(), Cn = dst.GetValidCol();
  auto full = [&](const auto &t) {
    return vrow(t) == R && vcol(t) == Cn &&
           std::remove_cvref_t<decltype(t)>::isRowMajor;
  };
  // mode of an operand as the expanded one: 1, 2 or 0 (not an expanded operand)
  auto mode = [&](const auto &t) {
    using X = std::remove_cvref_t<decltype(t)>;
    if (vrow(t) != R)
      return 0;
    if (!X::isRowMajor && vcol(t) == 1)
      return 1;
    if (X::isRowMajor && X::SFractal == SLayout::NoneBox && vcol(t) == per)
      return 2;
    return 0;
  };
  int m1 = mode(s1), m0 = mode(s0);
  bool expand1;
  if (m1 && full(s0))
    expand1 = true;
  else if (m0 && full(s1))
    expand1 = false;
  else {
    fatal("%s: needs one full operand with dst's valid shape %dx%d and one "
          "expanded operand "
          "(mode 1: column-major, validCol == 1; mode 2: row-major, validCol "
          "== %d); got src0 "
          "%dx%d%s, src1 %dx%d%s",
          I, R, Cn, per, vrow(s0), vcol(s0),
          TS0::isRowMajor ? "" : " column-major", vrow(s1), vcol(s1),
          TS1::isRowMajor ? "" : " column-major");
  }
  const int md = expand1 ? m1 : m0;
  Core &C = core();
  C.begin(I, PIPE_V);
  const T *a = s0.data(I), *b = s1.data(I);
  touch_valid(C, s0, false), touch_valid(C, s1, false);
  if (md == 1 && !have_tmp && C.arch() == Arch::A3 && C.check_hazards)
    C.access(UB, 184 * 1024, 8 * 1024, true,
             /*internal=*/true); // implicit scratch
  if (have_tmp) {
    (void)tmp->data(I);
    touch_valid(C, *tmp, true);
  }
  touch_valid(C, dst, true);
  auto ex = [&](const T *p, int cols, int i, int j) {
    return md == 1 ? p[i * cols] : p[i * cols + j % per];
  };
  map_valid(dst, I, [&](int i, int j) -> T {
    T x = expand1 ? a[i * TS0::Cols + j] : ex(a, TS0::Cols, i, j);
    T y = expand1 ? ex(b, TS1::Cols, i, j) : b[i * TS1::Cols + j];
    return op(x, y);
  });
}
} // namespace sim

template <class TileOut, class TileIn, class TileTmp, class... E>
  requires(sim::is_tile_v<TileOut> && sim::is_tile_v<TileIn> &&
           sim::is_tile_v<TileTmp> && sim::events_v<E...>)
inline RecordEvent TROWSUM(TileOut &dst, TileIn &src, TileTmp &tmp, E &...) {
  sim::rowreduce<false>("TROWSUM", dst, src, tmp);
  return {};
}
template <class TileOut, class TileIn, class TileTmp, class... E>
  requires(sim::is_tile_v<TileOut> && sim::is_tile_v<TileIn> &&
           sim::is_tile_v<TileTmp> && sim::events_v<E...>)
inline RecordEvent TROWMAX(TileOut &dst, TileIn &src, TileTmp &tmp, E &...) {
  sim::rowreduce<true>("TROWMAX", dst, src, tmp);
  return {};
}

template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TROWEXPAND(TileD &dst, TileS &src, E &...) {
  static const char *I = "TROWEXPAND";
  static_assert(TileD::Loc == TileType::Vec && TileS::Loc == TileType::Vec,
                "TROWEXPAND: Vec tiles");
  static_assert(std::is_same_v<typename TileD::DType, typename TileS::DType>,
                "TROWEXPAND: equal element types");
  const int R = dst.GetValidRow(), Cn = dst.GetValidCol();
  if (R == 0 || Cn == 0 || src.GetValidRow() == 0 || src.GetValidCol() == 0)
    return {};
  // pto-isa asserts equal valid rows (A2/A3 TRowExpand.hpp), so a wider
  // source is a fault here too, not a prefix read.
  if (src.GetValidRow() != R)
    sim::fatal("TROWEXPAND: src validRow %d differs from dst validRow %d",
               src.GetValidRow(), R);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const auto *s = src.data(I);
  sim::touch(C, src, R, 1, false), sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int i, int) { return s[i * TileS::Cols]; });
  return {};
}

// TTRANS (pto-isa common/pto_instr.hpp: TTRANS(dst, src, tmp)): dst[j][i] =
// src[i][j] over src's valid region. Row-major Vec tiles of one 1/2/4-byte
// element width; dst's valid shape is src's exchanged. tmp is the scratch the
// A2/A3 implementation transposes into before its ub -> ub copy.
template <class TileD, class TileS, class TileTmp, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::is_tile_v<TileTmp> && sim::events_v<E...>)
inline RecordEvent TTRANS(TileD &dst, TileS &src, TileTmp &tmp, E &...) {
  static const char *I = "TTRANS";
  static_assert(TileD::Loc == TileType::Vec && TileS::Loc == TileType::Vec &&
                    TileTmp::Loc == TileType::Vec,
                "TTRANS: Vec tiles");
  static_assert(sizeof(typename TileD::DType) == sizeof(typename TileS::DType),
                "TTRANS: equal element widths");
  static_assert(sizeof(typename TileS::DType) == 1 ||
                    sizeof(typename TileS::DType) == 2 ||
                    sizeof(typename TileS::DType) == 4,
                "TTRANS: 1-, 2- or 4-byte elements");
  static_assert(TileS::isRowMajor && TileD::isRowMajor && TileTmp::isRowMajor,
                "TTRANS: row-major (ND) tiles");
  const int R = src.GetValidRow(), Cn = src.GetValidCol();
  if (dst.GetValidRow() != Cn || dst.GetValidCol() != R)
    sim::fatal("TTRANS: dst valid shape %dx%d is not the transpose of src "
               "valid shape %dx%d",
               dst.GetValidRow(), dst.GetValidCol(), R, Cn);
  if (tmp.GetValidRow() < Cn || tmp.GetValidCol() < R)
    sim::fatal("TTRANS: tmp valid shape %dx%d cannot hold the %dx%d transpose",
               tmp.GetValidRow(), tmp.GetValidCol(), Cn, R);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const auto *s = src.data(I);
  (void)tmp.data(I);
  sim::touch_valid(C, src, false), sim::touch(C, tmp, Cn, R, true),
      sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int i, int j) { return s[j * TileS::Cols + i]; });
  return {};
}

#define PTO_SIM_ROWEXPAND(NAME, EXPR, ...)                                     \
  template <__VA_ARGS__ class TileD, class TileS0, class TileS1, class... E>   \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&                \
             sim::is_tile_v<TileS1> && sim::events_v<E...>)                    \
  inline RecordEvent NAME(TileD &dst, TileS0 &src0, TileS1 &src1, E &...) {    \
    using T = typename TileD::DType;                                           \
    sim::rowexpand_binary(#NAME, dst, src0, src1, (TileD *)nullptr,            \
                          [](T a, T b) -> T { return EXPR; });                 \
    return {};                                                                 \
  }                                                                            \
  template <__VA_ARGS__ class TileD, class TileS0, class TileS1,               \
            class TileTmp, class... E>                                         \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&                \
             sim::is_tile_v<TileS1> && sim::is_tile_v<TileTmp> &&              \
             sim::events_v<E...>)                                              \
  inline RecordEvent NAME(TileD &dst, TileS0 &src0, TileS1 &src1,              \
                          TileTmp &tmp, E &...) {                              \
    using T = typename TileD::DType;                                           \
    sim::rowexpand_binary(#NAME, dst, src0, src1, &tmp,                        \
                          [](T a, T b) -> T { return EXPR; });                 \
    return {};                                                                 \
  }
PTO_SIM_ROWEXPAND(TROWEXPANDSUB, sim::st<T>(sim::ld(a) - sim::ld(b)), )
PTO_SIM_ROWEXPAND(TROWEXPANDMUL,
                  std::is_integral_v<T>
                      ? T(int64_t(a) * int64_t(b))
                      : sim::st<T>(float(sim::ld(a)) * float(sim::ld(b))), )
PTO_SIM_ROWEXPAND(TROWEXPANDDIV,
                  sim::st<T>(float(sim::ld(a)) / float(sim::ld(b))),
                  DivAlgorithm Alg = DivAlgorithm::DEFAULT, )
#undef PTO_SIM_ROWEXPAND

// ---------------------------------------------------------------------------
// Column broadcasts and reductions (pto-isa TCOLEXPAND*, TCOLSUM, TCOLMAX): a
// [1, C] row of per-column values, row-major Vec tiles throughout.
// ---------------------------------------------------------------------------
template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TCOLEXPAND(TileD &dst, TileS &src, E &...) {
  static const char *I = "TCOLEXPAND";
  static_assert(TileD::Loc == TileType::Vec && TileS::Loc == TileType::Vec,
                "TCOLEXPAND: Vec tiles");
  static_assert(TileD::isRowMajor && TileS::isRowMajor,
                "TCOLEXPAND: row-major (ND) tiles");
  static_assert(std::is_same_v<typename TileD::DType, typename TileS::DType>,
                "TCOLEXPAND: equal element types");
  const int R = dst.GetValidRow(), Cn = dst.GetValidCol();
  if (R == 0 || Cn == 0 || src.GetValidRow() == 0 || src.GetValidCol() == 0)
    return {};
  if (src.GetValidCol() != Cn)
    sim::fatal("TCOLEXPAND: src validCol %d differs from dst validCol %d",
               src.GetValidCol(), Cn);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const auto *s = src.data(I);
  sim::touch(C, src, 1, Cn, false), sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int, int j) { return s[j]; });
  return {};
}

namespace sim {
// dst[i][j] = op(full[i][j], row[0][j]); `full` has dst's valid shape, `row`
// its valid columns (at least one valid row).
template <class TD, class TS0, class TS1, class Op>
inline void colexpand_binary(const char *I, TD &dst, TS0 &full, TS1 &row,
                             Op op) {
  static_assert(TD::Loc == TileType::Vec && TS0::Loc == TileType::Vec &&
                    TS1::Loc == TileType::Vec,
                "column-broadcast ops operate on Vec tiles");
  static_assert(TD::isRowMajor && TS0::isRowMajor && TS1::isRowMajor,
                "column-broadcast ops: row-major (ND) tiles");
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS0::DType> &&
                    std::is_same_v<T, typename TS1::DType>,
                "column-broadcast op: equal element types");
  static_assert(vec_arith_type_v<T>,
                "column-broadcast op: half, float, int32_t or int16_t");
  need_nonempty(I, dst, "dst");
  need_same_valid(I, full, "src0", dst, "dst");
  const int Cn = dst.GetValidCol();
  if (row.GetValidRow() < 1 || row.GetValidCol() != Cn)
    fatal("%s: src1 must be one row of dst's %d valid columns, got valid shape "
          "%dx%d",
          I, Cn, row.GetValidRow(), row.GetValidCol());
  Core &C = core();
  C.begin(I, PIPE_V);
  const T *a = full.data(I), *b = row.data(I);
  touch_valid(C, full, false), touch(C, row, 1, Cn, false),
      touch_valid(C, dst, true);
  map_valid(dst, I,
            [&](int i, int j) -> T { return op(a[i * TS0::Cols + j], b[j]); });
}

template <bool IsMax, class TD, class TS>
inline void colreduce(const char *I, TD &dst, TS &src) {
  static_assert(TD::Loc == TileType::Vec && TS::Loc == TileType::Vec,
                "column reductions operate on Vec tiles");
  static_assert(TD::isRowMajor && TS::isRowMajor,
                "column reductions: row-major (ND) tiles");
  static_assert(TD::Cols == TS::Cols,
                "column reduction: src and dst Cols must match");
  using T = typename TD::DType;
  static_assert(std::is_same_v<T, typename TS::DType>,
                "column reduction: equal element types");
  static_assert(vec_arith_type_v<T>,
                "column reduction: half, float, int32_t or int16_t");
  need_nonempty(I, src, "src");
  const int R = src.GetValidRow(), Cn = src.GetValidCol();
  if (dst.GetValidCol() != Cn)
    fatal("%s: dst validCol %d differs from src validCol %d", I,
          dst.GetValidCol(), Cn);
  Core &C = core();
  C.begin(I, PIPE_V);
  const T *s = src.data(I);
  T *d = dst.data(I);
  touch_valid(C, src, false), touch(C, dst, 1, Cn, true);
  // Row by row, as the A2/A3 two-operand form accumulates (one vector op
  // per source row), in the element type.
  for (int j = 0; j < Cn; ++j) {
    T acc = s[j];
    for (int i = 1; i < R; ++i) {
      const T x = s[i * TS::Cols + j];
      if constexpr (IsMax)
        acc = acc < x ? x : acc;
      else
        acc = st<T>(ld(acc) + ld(x));
    }
    d[j] = acc;
  }
}
} // namespace sim

#define PTO_SIM_COLEXPAND(NAME, EXPR, ...)                                     \
  template <__VA_ARGS__ class TileD, class TileS0, class TileS1, class... E>   \
    requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&                \
             sim::is_tile_v<TileS1> && sim::events_v<E...>)                    \
  inline RecordEvent NAME(TileD &dst, TileS0 &src0, TileS1 &src1, E &...) {    \
    using T = typename TileD::DType;                                           \
    sim::colexpand_binary(#NAME, dst, src0, src1,                              \
                          [](T a, T b) -> T { return EXPR; });                 \
    return {};                                                                 \
  }
PTO_SIM_COLEXPAND(TCOLEXPANDADD, sim::st<T>(sim::ld(a) + sim::ld(b)), )
PTO_SIM_COLEXPAND(TCOLEXPANDSUB, sim::st<T>(sim::ld(a) - sim::ld(b)), )
PTO_SIM_COLEXPAND(TCOLEXPANDMUL,
                  std::is_integral_v<T>
                      ? T(int64_t(a) * int64_t(b))
                      : sim::st<T>(float(sim::ld(a)) * float(sim::ld(b))), )
PTO_SIM_COLEXPAND(TCOLEXPANDDIV,
                  sim::st<T>(float(sim::ld(a)) / float(sim::ld(b))),
                  DivAlgorithm Alg = DivAlgorithm::DEFAULT, )
PTO_SIM_COLEXPAND(TCOLEXPANDMAX, a < b ? b : a, )
PTO_SIM_COLEXPAND(TCOLEXPANDMIN, b < a ? b : a, )
#undef PTO_SIM_COLEXPAND

template <class TileOut, class TileIn, class... E>
  requires(sim::is_tile_v<TileOut> && sim::is_tile_v<TileIn> &&
           sim::events_v<E...>)
inline RecordEvent TCOLSUM(TileOut &dst, TileIn &src, E &...) {
  sim::colreduce<false>("TCOLSUM", dst, src);
  return {};
}
template <class TileOut, class TileIn, class... E>
  requires(sim::is_tile_v<TileOut> && sim::is_tile_v<TileIn> &&
           sim::events_v<E...>)
inline RecordEvent TCOLMAX(TileOut &dst, TileIn &src, E &...) {
  sim::colreduce<true>("TCOLMAX", dst, src);
  return {};
}

} // namespace pto
