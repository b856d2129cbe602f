// pto-mlir host emulation: the sort instructions TCI, TSORT32 and TMRGSORT
// (docs/Runtime.md, "Sort instructions"). Part of <pto/pto-inst.hpp>.
//
// Semantics as pto-isa states them (include/pto/common/pto_instr.hpp, the
// A2/A3 versions in include/pto/npu/a2a3/TSort32.hpp and TMrgSort.hpp):
// sorted data are (value, index) structures of 8 bytes, the value first and
// the uint32 index in the last 4 bytes (f32: [value, index bits]; f16:
// [value, 0, index low half, index high half]), in descending value order.
// Equal values keep their order: TSORT32 by ascending index, TMRGSORT by
// taking the earlier list.
#pragma once

#include <pto/sim/instr.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>

namespace pto {

// pto-isa common/pto_instr.hpp: what a multi-list TMRGSORT consumed of each
// list.
struct MrgSortExecutedNumList {
  uint16_t mrgSortList0;
  uint16_t mrgSortList1;
  uint16_t mrgSortList2;
  uint16_t mrgSortList3;
};

namespace sim {

template <class T> constexpr int sort_struct_elems() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "sort instructions: half or float values");
  return 8 / int(sizeof(T));
}

// A (value, index) structure in place: `at` points to its first element.
template <class T> inline uint32_t struct_index(const T *at) {
  uint32_t index;
  std::memcpy(&index, reinterpret_cast<const char *>(at) + 4, 4);
  return index;
}
template <class T> inline void write_struct(T *at, T value, uint32_t index) {
  char bytes[8] = {};
  std::memcpy(bytes, &value, sizeof(T));
  std::memcpy(bytes + 4, &index, 4);
  std::memcpy(at, bytes, 8);
}

template <class TT> constexpr void check_sort_tile(const char *instr) {
  static_assert(TT::Loc == TileType::Vec && TT::isRowMajor,
                "sort instructions: row-major Vec tiles");
  (void)instr;
}

} // namespace sim

// TCI<Tile, T, descending>(dst, start): dst[0][j] = start + j (start - j when
// descending) over the valid columns of a one-row tile.
template <class TileD, class T, int descending = 0, class... E>
  requires(sim::is_tile_v<TileD> && sim::events_v<E...>)
inline RecordEvent TCI(TileD &dst, T start, E &...) {
  static const char *I = "TCI";
  sim::check_sort_tile<TileD>(I);
  static_assert(TileD::Rows == 1, "TCI: one-row tiles only (pto-isa)");
  static_assert(std::is_same_v<typename TileD::DType, T>,
                "TCI: the start value's type is the tile's element type");
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  auto *d = dst.data(I);
  sim::touch_valid(C, dst, true);
  for (int j = 0; j < dst.GetValidCol(); ++j)
    d[j] = descending ? T(start - T(j)) : T(start + T(j));
  return {};
}

// TSORT32(dst, src, idx[, tmp]): every 32-element block of each valid row of
// src, with the indices idx holds for its elements, sorted descending into
// (value, index) structures: dst row r holds src row r's blocks one after
// another, 8 bytes per element. An idx tile with one valid row serves every
// row (the A2/A3 version steps idx by 0 then). Without tmp the valid columns
// must be whole blocks (the A2/A3 form sorts only those); with tmp the last
// partial block is sorted as well.
template <class TileD, class TileS, class TileI, class... Rest>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::is_tile_v<TileI>)
inline RecordEvent TSORT32(TileD &dst, TileS &src, TileI &idx, Rest &...rest) {
  static const char *I = "TSORT32";
  using T = typename TileS::DType;
  static_assert(sizeof...(Rest) <= 1 && (sim::is_tile_v<Rest> && ...),
                "TSORT32(dst, src, idx) or TSORT32(dst, src, idx, tmp)");
  sim::check_sort_tile<TileD>(I), sim::check_sort_tile<TileS>(I),
      sim::check_sort_tile<TileI>(I);
  static_assert(std::is_same_v<typename TileD::DType, T>,
                "TSORT32: dst and src have one element type");
  static_assert(std::is_same_v<typename TileI::DType, uint32_t>,
                "TSORT32: idx is uint32");
  constexpr int per = sim::sort_struct_elems<T>();
  const int R = src.GetValidRow(), Cn = src.GetValidCol();
  if (sizeof...(Rest) == 0 && Cn % 32 != 0)
    sim::fatal("TSORT32: %d valid columns are not whole 32-element blocks; "
               "the form without tmp sorts whole blocks only",
               Cn);
  if (idx.GetValidCol() < Cn ||
      (idx.GetValidRow() != 1 && idx.GetValidRow() < R))
    sim::fatal("TSORT32: idx valid %dx%d does not cover src valid %dx%d (one "
               "row serves all)",
               idx.GetValidRow(), idx.GetValidCol(), R, Cn);
  if (dst.GetValidRow() < R || dst.GetValidCol() < Cn * per)
    sim::fatal("TSORT32: dst valid %dx%d cannot hold %dx%d structures of %d "
               "elements",
               dst.GetValidRow(), dst.GetValidCol(), R, Cn, per);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *s = src.data(I);
  const uint32_t *ix = idx.data(I);
  T *d = dst.data(I);
  sim::touch_valid(C, src, false), sim::touch_valid(C, idx, false),
      sim::touch(C, dst, R, Cn * per, true);
  int order[32];
  for (int r = 0; r < R; ++r) {
    const T *row = s + r * TileS::Cols;
    const uint32_t *irow = ix + (idx.GetValidRow() == 1 ? 0 : r * TileI::Cols);
    for (int b = 0; b < Cn; b += 32) {
      int n = std::min(32, Cn - b);
      std::iota(order, order + n, b);
      std::stable_sort(order, order + n, [&](int x, int y) {
        if (row[x] != row[y])
          return float(row[x]) > float(row[y]);
        return irow[x] < irow[y];
      });
      for (int j = 0; j < n; ++j)
        sim::write_struct(d + r * TileD::Cols + (b + j) * per, row[order[j]],
                          irow[order[j]]);
    }
  }
  return {};
}

namespace sim {
// Merges sorted lists of structures into out: the largest head first, the
// earlier list on a tie; stops when `limit` structures are out or, with
// `exhausted`, when a list runs out. Returns the count written; `taken`
// gets each list's consumed count.
template <class T>
inline int merge_lists(const T *const *lists, const int *sizes, int count,
                       T *out, int limit, bool exhausted, int *taken) {
  constexpr int per = sort_struct_elems<T>();
  int written = 0;
  std::fill(taken, taken + count, 0);
  while (written < limit) {
    int pick = -1;
    for (int l = 0; l < count; ++l)
      if (taken[l] < sizes[l] &&
          (pick < 0 || float(lists[l][taken[l] * per]) >
                           float(lists[pick][taken[pick] * per])))
        pick = l;
    if (pick < 0)
      break;
    std::memcpy(out + written * per, lists[pick] + taken[pick] * per, 8);
    ++written;
    if (++taken[pick] == sizes[pick] && exhausted)
      break;
  }
  return written;
}
} // namespace sim

// TMRGSORT(dst, src, blockLen): src's one valid row is groups of 4 sorted
// blocks of blockLen elements (blockLen / per structures each); each group is
// merged into dst at the same columns. blockLen is a multiple of 64 and the
// valid columns a multiple of 4 * blockLen (pto-isa asserts both).
template <class TileD, class TileS, class... E>
  requires(sim::is_tile_v<TileD> && sim::is_tile_v<TileS> &&
           sim::events_v<E...>)
inline RecordEvent TMRGSORT(TileD &dst, TileS &src, uint32_t blockLen, E &...) {
  static const char *I = "TMRGSORT";
  using T = typename TileS::DType;
  sim::check_sort_tile<TileD>(I), sim::check_sort_tile<TileS>(I);
  static_assert(TileD::Rows == 1 && TileS::Rows == 1,
                "TMRGSORT: one-row tiles");
  static_assert(std::is_same_v<typename TileD::DType, T>,
                "TMRGSORT: one element type");
  constexpr int per = sim::sort_struct_elems<T>();
  const int Cn = src.GetValidCol();
  if (blockLen == 0 || blockLen % 64 != 0 || Cn % (4 * int(blockLen)) != 0)
    sim::fatal("TMRGSORT: blockLen %u must be a multiple of 64 and the %d "
               "valid columns a multiple of 4 * blockLen",
               blockLen, Cn);
  if (dst.GetValidCol() < Cn)
    sim::fatal("TMRGSORT: dst valid columns %d < src valid columns %d",
               dst.GetValidCol(), Cn);
  sim::Core &C = sim::core();
  C.begin(I, PIPE_V);
  const T *s = src.data(I);
  T *d = dst.data(I);
  sim::touch_valid(C, src, false), sim::touch(C, dst, 1, Cn, true);
  const int structs = int(blockLen) / per;
  for (int g = 0; g < Cn; g += 4 * int(blockLen)) {
    const T *lists[4];
    int sizes[4], taken[4];
    for (int l = 0; l < 4; ++l)
      lists[l] = s + g + l * int(blockLen), sizes[l] = structs;
    sim::merge_lists(lists, sizes, 4, d + g, 4 * structs, false, taken);
  }
  return {};
}

// TMRGSORT<Dst, Tmp, Src0, Src1[, Src2[, Src3]], exhausted>(dst, executed,
// tmp, src0, src1[, src2[, src3]]): merges 2 to 4 sorted one-row lists (each
// list's valid columns / per structures) into dst until dst's valid columns
// are full or, with `exhausted`, a list runs out; `executed` gets how many
// structures of each list were taken.
namespace sim {
template <bool exhausted, class TileD, class TileT, class... TileSrc>
inline void merge_sort_lists(TileD &dst, MrgSortExecutedNumList &executed,
                             TileT &tmp, TileSrc &...srcs) {
  static const char *I = "TMRGSORT";
  using T = typename TileD::DType;
  check_sort_tile<TileD>(I), check_sort_tile<TileT>(I);
  static_assert(TileD::Rows == 1 && TileT::Rows == 1 &&
                    ((TileSrc::Rows == 1) && ...),
                "TMRGSORT: one-row tiles");
  static_assert((std::is_same_v<typename TileSrc::DType, T> && ...),
                "TMRGSORT: one element type");
  constexpr int per = sort_struct_elems<T>();
  constexpr int count = int(sizeof...(TileSrc));
  Core &C = core();
  C.begin(I, PIPE_V);
  const T *lists[4] = {};
  int sizes[4] = {}, taken[4] = {}, l = 0;
  ((lists[l] = srcs.data(I), sizes[l] = srcs.GetValidCol() / per,
    touch_valid(C, srcs, false), ++l),
   ...);
  (void)tmp.data(I);
  T *d = dst.data(I);
  touch_valid(C, dst, true);
  merge_lists(lists, sizes, count, d, dst.GetValidCol() / per, exhausted,
              taken);
  executed = {uint16_t(taken[0]), uint16_t(taken[1]), uint16_t(taken[2]),
              uint16_t(taken[3])};
}
} // namespace sim

template <class TileD, class TileT, class TileS0, class TileS1,
          bool exhausted = false, class... E>
  requires(sim::is_tile_v<TileS1> && sim::events_v<E...>)
inline RecordEvent TMRGSORT(TileD &dst, MrgSortExecutedNumList &executed,
                            TileT &tmp, TileS0 &src0, TileS1 &src1, E &...) {
  sim::merge_sort_lists<exhausted>(dst, executed, tmp, src0, src1);
  return {};
}
template <class TileD, class TileT, class TileS0, class TileS1, class TileS2,
          bool exhausted = false, class... E>
  requires(sim::is_tile_v<TileS2> && sim::events_v<E...>)
inline RecordEvent TMRGSORT(TileD &dst, MrgSortExecutedNumList &executed,
                            TileT &tmp, TileS0 &src0, TileS1 &src1,
                            TileS2 &src2, E &...) {
  sim::merge_sort_lists<exhausted>(dst, executed, tmp, src0, src1, src2);
  return {};
}
template <class TileD, class TileT, class TileS0, class TileS1, class TileS2,
          class TileS3, bool exhausted = false, class... E>
  requires(sim::is_tile_v<TileS3> && sim::events_v<E...>)
inline RecordEvent TMRGSORT(TileD &dst, MrgSortExecutedNumList &executed,
                            TileT &tmp, TileS0 &src0, TileS1 &src1,
                            TileS2 &src2, TileS3 &src3, E &...) {
  sim::merge_sort_lists<exhausted>(dst, executed, tmp, src0, src1, src2, src3);
  return {};
}

} // namespace pto
