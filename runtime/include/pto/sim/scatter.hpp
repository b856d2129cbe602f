// pto-mlir host emulation: the row-mode scatter into GM, MSCATTER
// (docs/AscendTarget.md#instructions). Part of <pto/pto-inst.hpp>.
#pragma once

#include <pto/runtime/checks.hpp>
#include <pto/sim/instr.hpp>

namespace pto {

// pto-isa include/pto/common/type.hpp.
enum class Coalesce : uint8_t { Row = 0, Elem = 1 };
enum class ScatterAtomicOp : uint8_t { None = 0, Add = 1, Max = 2, Min = 3 };

namespace sim {
// The op an emitted leaf is about to scatter for (its source location and
// the tensor's name), set by PTOGEN_SCATTER_SITE before each MSCATTER: a row
// index outside the tensor is then reported as pto-run reports it.
struct ScatterSite {
  const char *where = "unknown location";
  const char *tensor = "tensor";
};
inline thread_local ScatterSite scatter_site;
} // namespace sim

// MSCATTER<Coalesce::Row, Atomic>(table, src, indexes) (pto-isa
// common/pto_instr.hpp, A2/A3 row mode): valid row i of src goes to row
// indexes[0, i] of the GM table, its valid columns from the table's column
// 0 on; with ScatterAtomicOp::Add it is added. The table's rows are its
// shape's dim 3 with stride 3 as row pitch. Unlike pto-isa (undefined), an
// index outside the table is a fault at the scatter site.
template <Coalesce Mode = Coalesce::Row,
          ScatterAtomicOp Atomic = ScatterAtomicOp::None, class GlobalData,
          class TileS, class TileI, class... E>
  requires(sim::is_tile_v<TileS> && sim::is_tile_v<TileI> &&
           sim::events_v<E...>)
inline RecordEvent MSCATTER(GlobalData &table, TileS &src, TileI &indexes,
                            E &...) {
  static const char *I =
      Atomic == ScatterAtomicOp::Add ? "MSCATTER(Add)" : "MSCATTER";
  using T = typename TileS::DType;
  using G = typename GlobalData::DType;
  static_assert(Mode == Coalesce::Row,
                "MSCATTER: the emulation has the row mode only");
  static_assert(Atomic == ScatterAtomicOp::None ||
                    Atomic == ScatterAtomicOp::Add,
                "MSCATTER A2/A3: Max/Min not supported");
  static_assert(std::is_same_v<T, G>,
                "MSCATTER: tile and GlobalTensor element types must match");
  static_assert(TileS::Loc == TileType::Vec && TileI::Loc == TileType::Vec,
                "MSCATTER A2/A3: source and indices are Vec tiles (UB)");
  static_assert(TileS::isRowMajor && TileI::isRowMajor,
                "MSCATTER: row-major (ND) tiles");
  static_assert(std::is_same_v<typename TileI::DType, int32_t> ||
                    std::is_same_v<typename TileI::DType, uint32_t>,
                "MSCATTER A2/A3: int32 or uint32 indices");
  static_assert(GlobalData::layout == Layout::ND, "MSCATTER: an ND table");
  const int vr = src.GetValidRow(), vc = src.GetValidCol();
  if (vr <= 0 || vc <= 0)
    return {};
  if (indexes.GetValidRow() != 1 || indexes.GetValidCol() < vr)
    sim::fatal("MSCATTER: row mode needs a [1, %d] index tile, got valid %dx%d",
               vr, indexes.GetValidRow(), indexes.GetValidCol());
  sim::Core &C = sim::core();
  C.begin(I, PIPE_MTE3);
  const T *s = src.data(I);
  const auto *idx = indexes.data(I);
  sim::touch(C, src, vr, vc, false);
  sim::touch(C, indexes, 1, vr, false);
  const int64_t rows = table.GetShape(3), cols = table.GetShape(4);
  const int64_t pitch = table.GetStride(3), step = table.GetStride(4);
  G *g = table.data();
  const sim::ScatterSite &site = sim::scatter_site;
  for (int r = 0; r < vr; ++r) {
    const int64_t row = int64_t(idx[r]);
    std::string rule =
        pto_check::index_put_row(site.tensor, r, row, 0, rows, 0, vc, cols);
    if (!rule.empty()) {
      std::fprintf(stderr, "%s: %s\n", site.where, rule.c_str());
      std::fflush(stderr);
      std::fflush(stdout);
      std::_Exit(pto_check::kFault);
    }
    if constexpr (Atomic == ScatterAtomicOp::Add) {
      std::lock_guard<std::mutex> lock(sim::gm_atomic_lock());
      for (int c = 0; c < vc; ++c) {
        G &o = g[row * pitch + c * step];
        const T v = s[r * TileS::Cols + c];
        if constexpr (std::is_integral_v<G>)
          o = G(int64_t(o) + int64_t(v));
        else
          o = sim::st<G>(float(sim::ld(o)) + float(sim::ld(v)));
      }
    } else {
      for (int c = 0; c < vc; ++c)
        g[row * pitch + c * step] = s[r * TileS::Cols + c];
    }
  }
  return {};
}

} // namespace pto
