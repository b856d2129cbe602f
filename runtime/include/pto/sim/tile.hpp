// pto-mlir host emulation: Shape, Stride, GlobalTensor, Tile, TASSIGN.
// Part of <pto/pto-inst.hpp>.
#pragma once

#include <pto/sim/core.hpp>

namespace pto {

namespace sim {
template <int... N> constexpr int count_dynamic() {
  return ((N == DYNAMIC ? 1 : 0) + ... + 0);
}

template <int N1, int N2, int N3, int N4, int N5> struct Dims5 {
  static constexpr int stat[5] = {N1, N2, N3, N4, N5};
  static constexpr int numDynamic = count_dynamic<N1, N2, N3, N4, N5>();
  int64_t v[5];
  constexpr Dims5() {
    for (int i = 0; i < 5; ++i)
      v[i] = stat[i] == DYNAMIC ? 1 : stat[i];
  }
  template <class... I> constexpr void set(I... vals) {
    int64_t in[] = {int64_t(vals)..., 0};
    int k = 0;
    for (int i = 0; i < 5; ++i)
      v[i] = stat[i] == DYNAMIC ? in[k++] : stat[i];
  }
};
} // namespace sim

// 5-D shape; exactly as many constructor arguments as DYNAMIC entries.
template <int N1, int N2, int N3, int N4, int N5>
struct Shape : sim::Dims5<N1, N2, N3, N4, N5> {
  using Base = sim::Dims5<N1, N2, N3, N4, N5>;
  constexpr Shape() = default;
  template <class... I>
    requires(sizeof...(I) > 0 && (std::is_integral_v<I> && ...))
  constexpr Shape(I... n) {
    static_assert(sizeof...(I) == Base::numDynamic,
                  "pto::Shape: the constructor takes exactly one value per "
                  "DYNAMIC entry");
    this->set(n...);
  }
};

// 5-D stride in elements; exactly as many constructor arguments as DYNAMIC
// entries.
template <int S1, int S2, int S3, int S4, int S5>
struct Stride : sim::Dims5<S1, S2, S3, S4, S5> {
  using Base = sim::Dims5<S1, S2, S3, S4, S5>;
  constexpr Stride() = default;
  template <class... I>
    requires(sizeof...(I) > 0 && (std::is_integral_v<I> && ...))
  constexpr Stride(I... n) {
    static_assert(sizeof...(I) == Base::numDynamic,
                  "pto::Stride: the constructor takes exactly one value per "
                  "DYNAMIC entry");
    this->set(n...);
  }
};

template <class T, int R, int C, Layout L = Layout::ND>
using TileShape2D = Shape<1, 1, 1, R, C>;
template <class T, int R, int C, Layout L = Layout::ND>
using BaseShape2D =
    std::conditional_t<L == Layout::DN, Stride<R * C, R * C, R * C, 1, R>,
                       Stride<R * C, R * C, R * C, C, 1>>;

template <class Element, class ShapeT, class StrideT, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = Element;
  using ShapeType = ShapeT;
  using StrideType = StrideT;
  static constexpr Layout layout = L;

  GlobalTensor(Element *ptr = nullptr, const ShapeT &shape = ShapeT{},
               const StrideT &stride = StrideT{})
      : ptr_(ptr), shape_(shape), stride_(stride) {}
  Element *data() const { return ptr_; }
  int GetShape(int dim) const { return int(shape_.v[dim]); }
  int GetStride(int dim) const { return int(stride_.v[dim]); }
  template <int Dim> static constexpr int GetShape() {
    static_assert(ShapeT::stat[Dim] != DYNAMIC,
                  "GetShape<dim>() needs a static entry");
    return ShapeT::stat[Dim];
  }
  template <int Dim> static constexpr int GetStride() {
    static_assert(StrideT::stat[Dim] != DYNAMIC,
                  "GetStride<dim>() needs a static entry");
    return StrideT::stat[Dim];
  }
  void SetAddr(Element *p) { ptr_ = p; }

  Element *ptr_;
  ShapeT shape_;
  StrideT stride_;
};

namespace sim {
constexpr int space_of(TileType t) {
  switch (t) {
  case TileType::Vec:
    return UB;
  case TileType::Mat:
    return L1;
  case TileType::Left:
    return L0A;
  case TileType::Right:
    return L0B;
  case TileType::Acc:
    return L0C;
  case TileType::Bias:
    return BT;
  case TileType::Scaling:
    return FB;
  default:
    return -1;
  }
}
inline const char *tile_type_name(TileType t) {
  static const char *n[] = {"Vec",        "Mat",  "Left",    "Right",
                            "Acc",        "Bias", "Scaling", "ScaleLeft",
                            "ScaleRight", "Ctrl"};
  return n[int(t)];
}
constexpr int box_rows(SLayout sl, int fractal, int esz) {
  return fractal == 1024 ? 16 : sl == SLayout::RowMajor ? 16 : 32 / esz;
}
constexpr int box_cols(SLayout sl, int fractal, int esz) {
  return fractal == 1024 ? 16 : sl == SLayout::RowMajor ? 32 / esz : 16;
}
struct TileTag {};
} // namespace sim

template <TileType Loc_, class Element_, int Rows_, int Cols_,
          BLayout BL_ = BLayout::RowMajor, int RowValid_ = Rows_,
          int ColValid_ = Cols_, SLayout SL_ = SLayout::NoneBox,
          int SFractalSize_ = 512, PadValue Pad_ = PadValue::Null,
          CompactMode Compact_ = CompactMode::Null>
struct Tile : sim::TileTag {
  using DType = Element_;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr int ValidRow = RowValid_;
  static constexpr int ValidCol = ColValid_;
  static constexpr BLayout BFractal = BL_;
  static constexpr SLayout SFractal = SL_;
  static constexpr int SFractalSize = SFractalSize_;
  static constexpr PadValue PadVal = Pad_;
  static constexpr CompactMode Compact = Compact_;
  static constexpr bool isRowMajor = BL_ == BLayout::RowMajor;
  static constexpr int Numel = Rows_ * Cols_;
  static constexpr uint32_t Bytes =
      uint32_t(Rows_) * uint32_t(Cols_) * sizeof(Element_);

  static_assert(Rows_ > 0, "Tile: Rows must be > 0");
  static_assert(Cols_ > 0, "Tile: Cols must be > 0");
  static_assert(RowValid_ == DYNAMIC || (RowValid_ >= 0 && RowValid_ <= Rows_),
                "Tile: RowValid must be <= Rows");
  static_assert(ColValid_ == DYNAMIC || (ColValid_ >= 0 && ColValid_ <= Cols_),
                "Tile: ColValid must be <= Cols");
  static_assert(
      SL_ != SLayout::NoneBox || BL_ != BLayout::RowMajor ||
          (Cols_ * sizeof(Element_)) % 32 == 0,
      "Tile: an unboxed row-major tile needs Cols * sizeof(Element) % 32 == 0");
  static_assert(SL_ != SLayout::NoneBox || BL_ != BLayout::ColMajor ||
                    (Rows_ * sizeof(Element_)) % 32 == 0,
                "Tile: an unboxed column-major tile needs Rows * "
                "sizeof(Element) % 32 == 0");
  static_assert(
      SL_ == SLayout::NoneBox || Loc_ == TileType::Vec || Rows_ == 1 ||
          Rows_ % sim::box_rows(SL_, SFractalSize_, sizeof(Element_)) == 0,
      "Tile: a boxed tile needs Rows to be a multiple of the fractal's rows");
  static_assert(SL_ == SLayout::NoneBox ||
                    Cols_ % sim::box_cols(SL_, SFractalSize_,
                                          sizeof(Element_)) ==
                        0,
                "Tile: a boxed tile needs Cols to be a multiple of the "
                "fractal's columns");

  Tile() = default;
  Tile(unsigned vr, unsigned vc)
    requires(RowValid_ == DYNAMIC && ColValid_ == DYNAMIC)
      : vr_(int(vr)), vc_(int(vc)) {
    check_valid();
  }
  explicit Tile(unsigned v)
    requires((RowValid_ == DYNAMIC) != (ColValid_ == DYNAMIC))
  {
    if constexpr (RowValid_ == DYNAMIC)
      vr_ = int(v);
    else
      vc_ = int(v);
    check_valid();
  }

  static constexpr int GetValidRow()
    requires(RowValid_ != DYNAMIC)
  {
    return RowValid_;
  }
  int GetValidRow() const
    requires(RowValid_ == DYNAMIC)
  {
    return vr_;
  }
  static constexpr int GetValidCol()
    requires(ColValid_ != DYNAMIC)
  {
    return ColValid_;
  }
  int GetValidCol() const
    requires(ColValid_ == DYNAMIC)
  {
    return vc_;
  }
  void SetValidRow(int v)
    requires(RowValid_ == DYNAMIC)
  {
    vr_ = v;
    check_valid();
  }
  void SetValidCol(int v)
    requires(ColValid_ == DYNAMIC)
  {
    vc_ = v;
    check_valid();
  }
  void SetValidShape(int r, int c)
    requires(RowValid_ == DYNAMIC && ColValid_ == DYNAMIC)
  {
    vr_ = r;
    vc_ = c;
    check_valid();
  }

  // ---- emulation internals ----
  static std::string describe() {
    char b[160];
    std::snprintf(b, sizeof b, "Tile<%s, %s, %d, %d>",
                  sim::tile_type_name(Loc_), sim::type_name<Element_>(), Rows_,
                  Cols_);
    return b;
  }
  void bind(uint32_t addr) {
    constexpr int s = sim::space_of(Loc_);
    if constexpr (s < 0) {
      sim::fatal("TASSIGN: %s: tile type %s is not emulated",
                 describe().c_str(), sim::tile_type_name(Loc_));
    } else {
      sim::Core &c = sim::core();
      if (!c.base(s))
        sim::fatal("TASSIGN: %s: a %s core has no %s buffer for tile type %s",
                   describe().c_str(), sim::core_kind_name(c.kind()),
                   sim::space_name(s), sim::tile_type_name(Loc_));
      if (addr % 32 != 0)
        sim::fatal("TASSIGN: %s at %s offset %u: offset is not 32-byte aligned",
                   describe().c_str(), sim::space_name(s), addr);
      if (uint64_t(addr) + Bytes > c.capacity(s))
        sim::fatal("TASSIGN: %s at %s offset %u, size %u bytes, exceeds the "
                   "capacity of "
                   "%u bytes",
                   describe().c_str(), sim::space_name(s), addr, Bytes,
                   c.capacity(s));
      addr_ = addr;
      assigned_ = true;
    }
  }
  bool assigned() const { return assigned_; }
  uint32_t addr() const { return addr_; }
  Element_ *data(const char *instr) const {
    if (!assigned_)
      sim::fatal("%s: %s is used before TASSIGN", instr, describe().c_str());
    return reinterpret_cast<Element_ *>(sim::core().base(sim::space_of(Loc_)) +
                                        addr_);
  }

private:
  void check_valid() const {
    if (vr_ < 0 || vr_ > Rows_ || vc_ < 0 || vc_ > Cols_)
      sim::fatal("%s: valid shape %dx%d exceeds the tile's %dx%d",
                 describe().c_str(), vr_, vc_, Rows_, Cols_);
  }
  int vr_ = RowValid_ == DYNAMIC ? Rows_ : RowValid_;
  int vc_ = ColValid_ == DYNAMIC ? Cols_ : ColValid_;
  uint32_t addr_ = 0;
  bool assigned_ = false;
};

// Matmul tile aliases, CPU-simulator column of
// docs/AscendTarget.md#matmul-tile-aliases.
template <class T, int R, int C, int RV = R, int CV = C>
using TileLeft = Tile<TileType::Left, T, R, C, BLayout::ColMajor, RV, CV,
                      SLayout::RowMajor, 512>;
template <class T, int R, int C, int RV = R, int CV = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, RV, CV,
                       SLayout::ColMajor, 512>;
template <class T, int R, int C, int RV = R, int CV = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, RV, CV,
                     SLayout::RowMajor, 1024>;
template <class T, int R, int C, int RV = R, int CV = C>
using TileLeftCompact =
    Tile<TileType::Left, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
         512, PadValue::Null, CompactMode::Normal>;
template <class T, int R, int C, int RV = R, int CV = C>
using TileRightCompact =
    Tile<TileType::Right, T, R, C, BLayout::RowMajor, RV, CV, SLayout::ColMajor,
         512, PadValue::Null, CompactMode::Normal>;
template <class T, int R, int C, int RV = R, int CV = C>
using TileAccCompact =
    Tile<TileType::Acc, T, R, C, BLayout::ColMajor, RV, CV, SLayout::RowMajor,
         1024, PadValue::Null, CompactMode::Normal>;

namespace sim {
template <class T>
constexpr bool is_tile_v = std::is_base_of_v<TileTag, std::remove_cvref_t<T>>;
template <class T> struct is_global_s : std::false_type {};
template <class E, class S, class St, Layout L>
struct is_global_s<GlobalTensor<E, S, St, L>> : std::true_type {};
template <class T>
constexpr bool is_global_v = is_global_s<std::remove_cvref_t<T>>::value;
// Trailing event arguments: anything that is not a tile.
template <class... E> constexpr bool events_v = (!is_tile_v<E> && ...);
} // namespace sim

// TASSIGN(tile, byte offset) / TASSIGN(globalTensor, pointer)
template <class T, class AddrType> inline void TASSIGN(T &obj, AddrType addr) {
  if constexpr (sim::is_tile_v<T>) {
    static_assert(std::is_integral_v<AddrType>,
                  "TASSIGN(tile, addr): addr is a byte offset");
    if (int64_t(addr) < 0 || int64_t(addr) > int64_t(UINT32_MAX))
      sim::fatal("TASSIGN: %s: offset %lld out of range", T::describe().c_str(),
                 (long long)addr);
    obj.bind(uint32_t(addr));
  } else if constexpr (sim::is_global_v<T>) {
    static_assert(std::is_convertible_v<AddrType, typename T::DType *>,
                  "TASSIGN(globalTensor, ptr): ptr must point to the tensor's "
                  "element type");
    obj.SetAddr(addr);
  } else {
    static_assert(sim::is_tile_v<T>,
                  "TASSIGN: expects a Tile or a GlobalTensor");
  }
}

template <auto Addr, class T> inline void TASSIGN(T &tile) {
  static_assert(sim::is_tile_v<T>, "TASSIGN<Addr>(tile) expects a Tile");
  static_assert(Addr % 32 == 0,
                "TASSIGN<Addr>: the offset must be 32-byte aligned");
  tile.bind(uint32_t(Addr));
}

} // namespace pto
