// pto-mlir host emulation: comparisons into packed bit masks and the selects
// that read them (docs/ISA.md, "DT_BOOL masks"). Part of <pto/pto-inst.hpp>.
//
// The mask layout is pto-isa's A2/A3 one (include/pto/npu/a2a3/TCmp.hpp,
// TSel.hpp): a row-major Vec tile of uint8_t whose row i holds the bits of
// row i of the data, bit j % 8 of byte j / 8 for column j.
#pragma once

#include <pto/sim/instr.hpp>

namespace pto {

// pto-isa include/pto/common/type.hpp (the emitted code names the modes).
enum class CmpMode : uint8_t { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };

namespace sim {
template <class T> inline bool compare(T a, T b, CmpMode mode) {
  const double x = ld(a), y = ld(b); // IEEE: NaN is unordered
  switch (mode) {
  case CmpMode::EQ:
    return x == y;
  case CmpMode::NE:
    return x != y;
  case CmpMode::LT:
    return x < y;
  case CmpMode::LE:
    return x <= y;
  case CmpMode::GT:
    return x > y;
  case CmpMode::GE:
    return x >= y;
  }
  return false;
}

template <class TM> inline void mask_tile_check(const char *instr) {
  static_assert(TM::Loc == TileType::Vec && TM::isRowMajor,
                "mask: a row-major Vec tile");
  static_assert(std::is_same_v<typename TM::DType, uint8_t>,
                "mask: uint8_t (8 columns per byte)");
  (void)instr;
}

// Writes the packed mask of src's valid region: `bit(i, j)` for each valid
// element, 0 past the valid columns of every valid row.
template <class TM, class TS, class Bit>
inline void pack(const char *I, TM &mask, const TS &src, Bit &&bit) {
  mask_tile_check<TM>(I);
  const int R = vrow(src), Cn = vcol(src);
  const int bytes = (Cn + 7) / 8;
  if (vrow(mask) != R || vcol(mask) < bytes)
    fatal("%s: mask valid shape %dx%d cannot hold the %dx%d compared "
          "elements (%d rows of %d bytes)",
          I, vrow(mask), vcol(mask), R, Cn, R, bytes);
  uint8_t *m = mask.data(I);
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < vcol(mask); ++k) {
      uint8_t b = 0;
      for (int j = 8 * k; j < std::min(8 * k + 8, Cn); ++j)
        b |= uint8_t(bit(i, j) ? 1 : 0) << (j % 8);
      m[i * TM::Cols + k] = b;
    }
}

// Reads bit (i, j) of dst's valid region from the packed mask.
template <class TM, class TD>
inline void need_mask(const char *I, const TM &mask, const TD &dst) {
  mask_tile_check<TM>(I);
  if (vrow(mask) < vrow(dst) || vcol(mask) * 8 < vcol(dst))
    fatal("%s: mask valid shape %dx%d has no bit for every element of the "
          "%dx%d destination",
          I, vrow(mask), vcol(mask), vrow(dst), vcol(dst));
}
template <class TM> inline bool bit_at(const uint8_t *m, int i, int j) {
  return (m[i * TM::Cols + j / 8] >> (j % 8)) & 1;
}
} // namespace sim

// TCMP(dst, src0, src1, mode): the packed mask of src0 <mode> src1.
template <class TileD, class TileS0, class TileS1, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS0> &&
           sim::is_tile_v<TileS1> && sim::events_v<E...>)
inline RecordEvent TCMP(TileD &dst, TileS0 &src0, TileS1 &src1, CmpMode mode,
                        E &...) {
  static const char *I = "TCMP";
  using T = typename TileS0::DType;
  static_assert(std::is_same_v<T, typename TileS1::DType>,
                "TCMP: src0 and src1 must have same type");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16> ||
                    std::is_same_v<T, int32_t>,
                "TCMP: input data type must be one of int32_t, half, float");
  sim::need_same_valid(I, src0, "src0", src1, "src1");
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *a = src0.data(I), *b = src1.data(I);
  sim::touch_valid(C, src0, false), sim::touch_valid(C, src1, false),
      sim::touch_valid(C, dst, true);
  sim::pack(I, dst, src0, [&](int i, int j) {
    return sim::compare(a[i * TileS0::Cols + j], b[i * TileS1::Cols + j], mode);
  });
  return {};
}

// TCMPS(dst, src, scalar, mode): the packed mask of src <mode> scalar.
template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TCMPS(TileD &dst, TileS &src, typename TileS::DType scalar,
                         CmpMode mode, E &...) {
  static const char *I = "TCMPS";
  using T = typename TileS::DType;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, _Float16> ||
                    std::is_same_v<T, int32_t> || std::is_same_v<T, int16_t>,
                "TCMPS: Invalid data type.");
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *a = src.data(I);
  sim::touch_valid(C, src, false), sim::touch_valid(C, dst, true);
  sim::pack(I, dst, src, [&](int i, int j) {
    return sim::compare(a[i * TileS::Cols + j], scalar, mode);
  });
  return {};
}

// TSEL(dst, mask, src0, src1, tmp): src0 where the mask bit is set, else
// src1; `tmp` is the scratch the A2/A3 instruction stages mask rows in.
template <class TileD, class TileM, class TileT, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileM> &&
           sim::is_tile_v<TileT> && sim::events_v<E...>)
inline RecordEvent TSEL(TileD &dst, TileM &mask, TileD &src0, TileD &src1,
                        TileT &tmp, E &...) {
  static const char *I = "TSEL";
  using T = typename TileD::DType;
  static_assert(sizeof(T) == 4 || sizeof(T) == 2,
                "Fix: TSEL only support 16B and 32B data type.");
  static_assert(TileD::isRowMajor,
                "Fix: TSEL only support RowMajor layout type.");
  sim::need_same_valid(I, src0, "src0", dst, "dst");
  sim::need_same_valid(I, src1, "src1", dst, "dst");
  sim::need_mask(I, mask, dst);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *a = src0.data(I), *b = src1.data(I);
  const uint8_t *m = mask.data(I);
  (void)tmp.data(I);
  sim::touch_valid(C, mask, false), sim::touch_valid(C, src0, false),
      sim::touch_valid(C, src1, false), sim::touch_valid(C, tmp, true),
      sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int i, int j) {
    return sim::bit_at<TileM>(m, i, j) ? a[i * TileD::Cols + j]
                                       : b[i * TileD::Cols + j];
  });
  return {};
}

// TSELS(dst, mask, src, tmp, scalar): src where the mask bit is set, else
// scalar.
template <class TileD, class TileM, class TileS, class TileT, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileM> &&
           sim::is_tile_v<TileS> && sim::is_tile_v<TileT> &&
           sim::events_v<E...>)
inline RecordEvent TSELS(TileD &dst, TileM &mask, TileS &src, TileT &tmp,
                         typename TileS::DType scalar, E &...) {
  static const char *I = "TSELS";
  using T = typename TileD::DType;
  static_assert(sizeof(T) == 4 || sizeof(T) == 2,
                "Fix: TSEL only support 16B and 32B data type.");
  static_assert(std::is_same_v<T, typename TileS::DType>,
                "Fix: TSEL only support same data type between dst, src.");
  sim::need_same_valid(I, src, "src", dst, "dst");
  sim::need_mask(I, mask, dst);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *a = src.data(I);
  const uint8_t *m = mask.data(I);
  (void)tmp.data(I);
  sim::touch_valid(C, mask, false), sim::touch_valid(C, src, false),
      sim::touch_valid(C, tmp, true), sim::touch_valid(C, dst, true);
  sim::map_valid(dst, I, [&](int i, int j) {
    return sim::bit_at<TileM>(m, i, j) ? a[i * TileS::Cols + j] : scalar;
  });
  return {};
}

} // namespace pto
