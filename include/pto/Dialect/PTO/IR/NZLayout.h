//===- NZLayout.h - the fractal NZ layout of GM matrices --------*- C++ -*-===//
//
// A kernel argument marked `pto.layout = "nz"` is a matrix (the last two dims,
// rows x cols) stored the way Ascend's cube unit reads weights: as 16-row by
// 32-byte fractals, column blocks outermost. Element (r, c) of a rows x cols
// matrix lives at storage index [c / C0][r / 16][r % 16][c % C0], C0 = 32 /
// element bytes; the storage is that 4-D row-major array (leading batch dims
// stay outermost). See docs/Frontend.md, "NZ weights".
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_IR_NZLAYOUT_H
#define PTO_DIALECT_PTO_IR_NZLAYOUT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::pto {

/// The argument attribute naming a GM tensor's storage layout.
inline constexpr llvm::StringLiteral kLayoutAttrName = "pto.layout";
/// Its value for the fractal layout (`pypto.TileOpFormat.TILEOP_NZ`).
inline constexpr llvm::StringLiteral kLayoutNZ = "nz";

/// Rows of one NZ fractal.
inline constexpr int64_t kNZFractalRows = 16;
/// Bytes of one fractal row.
inline constexpr int64_t kNZFractalRowBytes = 32;

/// Columns of one NZ fractal (C0) for an element of `elementBytes` bytes, or
/// 0 when 32 bytes hold no whole number of such elements.
inline int64_t getNZFractalCols(int64_t elementBytes) {
  if (elementBytes <= 0 || kNZFractalRowBytes % elementBytes != 0)
    return 0;
  return kNZFractalRowBytes / elementBytes;
}

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_IR_NZLAYOUT_H
