//===- Numerics.h - bit-exact scalar conversions ----------------*- C++ -*-===//
//
// BF16 conversions follow docs/AscendTarget.md#bf16-conversions exactly, on
// the FP32 bit pattern; NaN is handled first in every mode.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_INTERPRETER_NUMERICS_H
#define PTO_INTERPRETER_NUMERICS_H

#include "pto/Dialect/PTO/IR/PTODialect.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mlir::pto::interp {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// BF16 -> FP32 is exact: the 16 bits become the upper half.
inline float bf16ToFloat(uint16_t b) { return bitsToFloat(uint32_t(b) << 16); }

/// FP32 -> BF16 bit pattern under `mode` (NONE means RINT).
uint16_t floatToBF16(float f, CastMode mode);

/// FP32 -> FP16 -> FP32 under `mode` (NONE means RINT).
float roundToF16(float f, CastMode mode);

/// FP32 -> an integral FP32 value under `mode` (NONE means RINT).
float roundToIntegral(float f, CastMode mode);

} // namespace mlir::pto::interp

#endif // PTO_INTERPRETER_NUMERICS_H
