// Misuses of the documented API that must not compile (checked by
// compile.test); each function triggers one diagnostic.
#include <pto/pto-inst.hpp>

using namespace pto;

void shape_count() { Shape<1, 1, 1, DYNAMIC, DYNAMIC> s(5); }
void stride_count() { Stride<1, 1, 1, DYNAMIC, 1> s(5, 1); }
void unboxed_row_major() { Tile<TileType::Vec, float, 16, 4> t; }
void unboxed_col_major() { Tile<TileType::Vec, float, 4, 1, BLayout::ColMajor> t; }
void valid_too_big() { Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, 17, 16> t; }
void boxed_rows() { TileLeft<half, 20, 32> t; }
void matmul_types() {
  TileAcc<float, 16, 16> c;
  TileLeft<float, 16, 16> a;
  TileRight<half, 16, 16> b;
  TMATMUL(c, a, b);
}
void bf16_arith() {
  Tile<TileType::Vec, bfloat16_t, 16, 16> a;
  TADD(a, a, a);
}
void dn_into_row_major() {
  Tile<TileType::Vec, float, 16, 16> t;
  GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 1, 16>, Layout::DN> g(nullptr);
  TLOAD(t, g);
}
void dynamic_ctor() { Tile<TileType::Vec, float, 16, 16> t(3, 4); }
void matmul_acc_three_operands() {
  TileAcc<float, 16, 16> c;
  TileLeft<float, 16, 16> a;
  TileRight<float, 16, 16> b;
  TMATMUL_ACC(c, a, b); // pto-isa's CPU back end has only TMATMUL_ACC(cOut, cIn, a, b)
}
