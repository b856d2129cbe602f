//===- Numerics.cpp - bit-exact scalar conversions ------------------------===//

#include "pto/Interpreter/Numerics.h"

using namespace mlir::pto;
using namespace mlir::pto::interp;

uint16_t interp::floatToBF16(float f, CastMode mode) {
  uint32_t u = floatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) // NaN: quiet it, keep the sign
    return uint16_t((u >> 16) | 0x0040u);
  uint32_t upper = u >> 16, lower = u & 0xFFFFu;
  bool negative = u >> 31;
  switch (mode) {
  case CastMode::NONE:
  case CastMode::RINT:
    return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  case CastMode::ROUND:
    return uint16_t((u + 0x8000u) >> 16);
  case CastMode::TRUNC:
    return uint16_t(upper);
  case CastMode::FLOOR:
    // Truncation rounds toward zero; step the magnitude up for negatives.
    return uint16_t(upper + (lower && negative ? 1 : 0));
  case CastMode::CEIL:
    return uint16_t(upper + (lower && !negative ? 1 : 0));
  case CastMode::ODD:
    return uint16_t(upper | (lower ? 1u : 0u));
  }
  return uint16_t(upper);
}

float interp::roundToF16(float f, CastMode mode) {
  // _Float16 conversion rounds to nearest even; the directed modes step from
  // the nearest value toward the wanted direction when it overshoots.
  _Float16 nearest = static_cast<_Float16>(f);
  float back = static_cast<float>(nearest);
  if (std::isnan(f) || back == f)
    return back;
  auto step = [](_Float16 h, bool up) {
    return static_cast<float>(static_cast<_Float16>(
        std::nextafter(static_cast<float>(h), up ? INFINITY : -INFINITY)));
  };
  switch (mode) {
  case CastMode::NONE:
  case CastMode::RINT:
    return back;
  case CastMode::FLOOR:
    return back > f ? step(nearest, false) : back;
  case CastMode::CEIL:
    return back < f ? step(nearest, true) : back;
  case CastMode::TRUNC:
    return std::fabs(back) > std::fabs(f) ? step(nearest, f < 0) : back;
  case CastMode::ROUND: {
    // Ties away from zero: nearest-even differs only on exact ties.
    float other = step(nearest, f > back);
    if (std::fabs(other - f) == std::fabs(back - f))
      return std::fabs(other) > std::fabs(back) ? other : back;
    return back;
  }
  case CastMode::ODD: {
    // Round to odd: truncate, then make the last bit odd if inexact.
    float truncated =
        std::fabs(back) > std::fabs(f) ? step(nearest, f < 0) : back;
    _Float16 t = static_cast<_Float16>(truncated);
    uint16_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    bits |= 1u;
    std::memcpy(&t, &bits, sizeof bits);
    return static_cast<float>(t);
  }
  }
  return back;
}

float interp::roundToIntegral(float f, CastMode mode) {
  switch (mode) {
  case CastMode::NONE:
  case CastMode::RINT:
    return std::nearbyint(f); // default FE_TONEAREST: ties to even
  case CastMode::ROUND:
    return std::round(f);
  case CastMode::FLOOR:
    return std::floor(f);
  case CastMode::CEIL:
    return std::ceil(f);
  case CastMode::TRUNC:
  case CastMode::ODD:
    return std::trunc(f);
  }
  return f;
}
