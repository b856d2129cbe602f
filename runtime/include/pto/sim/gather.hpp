// pto-mlir host emulation: the gather instructions
// (docs/AscendTarget.md#instructions). Part of <pto/pto-inst.hpp>.
#pragma once

#include <pto/sim/instr.hpp>

#include <cstring>

namespace pto {

// pto-isa include/pto/common/type.hpp: the fixed patterns of the mask form
// of TGATHER (vreducev2's pattern modes 1..7).
enum class MaskPattern : uint8_t {
  P0101 = 1, // every 2 elements, the first
  P1010 = 2, // every 2 elements, the second
  P0001 = 3, // every 4 elements, the first
  P0010 = 4, // ... the second
  P0100 = 5, // ... the third
  P1000 = 6, // ... the fourth
  P1111 = 7, // all
};
enum class GatherAxis { GATHER_ROW, GATHER_COL };

namespace sim {
constexpr int mask_stride(MaskPattern p) {
  return p == MaskPattern::P1111 ? 1 : p <= MaskPattern::P1010 ? 2 : 4;
}
constexpr int mask_phase(MaskPattern p) {
  return p == MaskPattern::P1111   ? 0
         : p <= MaskPattern::P1010 ? int(p) - 1
                                   : int(p) - 3;
}
} // namespace sim

// TGATHER<Dst, Src, pattern>(dst, src) (pto-isa common/pto_instr.hpp, the
// mask form along rows): the columns of src's valid region the pattern
// selects, written packed one row after another into dst. As in pto-isa, dst
// holds them only if its valid columns equal its capacity (its rows are then
// contiguous); src and dst are row-major Vec tiles of one 2- or 4-byte width.
template <class TileD, class TileS, MaskPattern pattern = MaskPattern::P1111,
          auto axis = GatherAxis::GATHER_ROW, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TGATHER(TileD &dst, TileS &src, E &...) {
  static const char *I = "TGATHER";
  static_assert(TileD::Loc == TileType::Vec && TileS::Loc == TileType::Vec,
                "TGATHER: Vec tiles");
  static_assert(TileD::isRowMajor && TileS::isRowMajor,
                "TGATHER: row-major (ND) tiles");
  static_assert(sizeof(typename TileD::DType) == sizeof(typename TileS::DType),
                "TGATHER: equal element widths");
  static_assert(sizeof(typename TileS::DType) == 2 ||
                    sizeof(typename TileS::DType) == 4,
                "TGATHER: 16- or 32-bit elements");
  static_assert(axis == GatherAxis::GATHER_ROW,
                "TGATHER: the emulation has the row (last-dim) mask form only");
  constexpr int stride = sim::mask_stride(pattern),
                phase = sim::mask_phase(pattern);
  const int R = src.GetValidRow(), Cn = src.GetValidCol();
  const int selected = Cn > phase ? (Cn - phase + stride - 1) / stride : 0;
  if (dst.GetValidCol() != TileD::Cols)
    sim::fatal("TGATHER: dst valid columns %d differ from its capacity %d: the "
               "mask form packs "
               "its rows (pto-isa asserts contiguous dst)",
               dst.GetValidCol(), TileD::Cols);
  if (R * selected > dst.GetValidRow() * TileD::Cols)
    sim::fatal(
        "TGATHER: %d rows x %d selected columns do not fit dst valid %dx%d", R,
        selected, dst.GetValidRow(), dst.GetValidCol());
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const auto *s = src.data(I);
  auto *d = dst.data(I);
  sim::touch_valid(C, src, false), sim::touch_valid(C, dst, true);
  int at = 0;
  for (int r = 0; r < R; ++r)
    for (int c = phase; c < Cn; c += stride)
      // The bits move: a dst of another type of the same width
      // reinterprets them, as pto-isa's BitCastOrCast does (the int32
      // indices of sorted (value, index) structures come out this way).
      std::memcpy(&d[at++], &s[r * TileS::Cols + c], sizeof(d[0]));
  return {};
}

} // namespace pto
