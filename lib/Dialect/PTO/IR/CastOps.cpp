//===- CastOps.cpp - pto.cast and pto.bitcast -----------------------------===//
//
// The cast table per architecture (supported pairs, their rounding modes
// and default mode) and the bitcast rules. Verifiers name the offending value,
// the rule and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include <numeric>

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::archName;
using mlir::pto::detail::isFP8;
using mlir::pto::detail::shapeStr;
using mlir::pto::detail::verifyVecTile;

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

namespace {
/// One row of the cast table: the supported explicit modes and the default.
struct CastRule {
  bool supported = false;
  SmallVector<CastMode, 6> modes; // empty: exact widening, mode must be NONE
  CastMode defaultMode = CastMode::NONE;
};
} // namespace

/// docs/PyPTOModel.md#casts (A2/A3 table; the 950 adds bf16<->f16 and fp8).
static CastRule getCastRule(Type from, Type to, Arch arch) {
  using M = CastMode;
  SmallVector<CastMode, 6> rintToTrunc = {M::RINT, M::ROUND, M::FLOOR, M::CEIL,
                                          M::TRUNC};
  auto isInt = [](Type t, std::initializer_list<unsigned> widths) {
    return llvm::any_of(widths,
                        [&](unsigned w) { return t.isSignlessInteger(w); });
  };
  bool is950 = arch == Arch::DAV_3510;
  if ((from.isBF16() || from.isF16()) && to.isF32())
    return {true, {}, M::NONE};
  if (from.isF32() && to.isBF16())
    return {true, rintToTrunc, M::RINT};
  if (from.isF32() && to.isF16()) {
    auto modes = rintToTrunc;
    modes.push_back(M::ODD);
    return {true, modes, M::RINT};
  }
  if (from.isF32() && to.isF32())
    return {true, rintToTrunc, M::RINT};
  if (from.isF32() && isInt(to, {16, 32, 64}))
    return {true, rintToTrunc, M::TRUNC};
  if (from.isF16() && isInt(to, {8, 16, 32}))
    return {true, rintToTrunc, M::TRUNC};
  if (from.isBF16() && isInt(to, {32}))
    return {true, rintToTrunc, M::TRUNC};
  if (isInt(from, {16, 32, 64}) && to.isF32())
    return {true, rintToTrunc, M::RINT};
  // pto-isa a2a3 TCvt.hpp converts int32 to half (PyPTO: DT_INT32 -> DT_FP16).
  if (isInt(from, {32}) && to.isF16())
    return {true, rintToTrunc, M::RINT};
  if (is950 && from.isBF16() && to.isF16())
    return {true, rintToTrunc, M::RINT};
  if (is950 && from.isF32() && isFP8(to))
    return {true, {M::RINT, M::ROUND}, M::RINT};
  if (is950 && isFP8(from) && (to.isF32() || to.isF16() || to.isBF16()))
    return {true, {}, M::NONE};
  return {};
}

LogicalResult BitcastOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  Type from = input.getElementType(), to = result.getElementType();
  if (from.isInteger(1) || to.isInteger(1))
    return emitOpError() << "reinterprets " << from << " as " << to
                         << ": an i1 mask is packed bits on chip, not bytes; "
                            "cast it (pto.cast, pypto.cast) instead";
  int64_t fromBytes = input.getElementByteSize();
  int64_t toBytes = result.getElementByteSize();
  int64_t last = input.getShape().back();
  if ((last * fromBytes) % toBytes != 0)
    return emitOpError() << "reads the " << last << " x " << fromBytes
                         << " B of the input's last dim (" << from << ") as "
                         << to << " elements of " << toBytes
                         << " B, which is not a whole number; PyPTO requires "
                            "last dim x bytes("
                         << from << ") to be a multiple of bytes(" << to
                         << "): view a last dim that is a multiple of "
                         << toBytes / std::gcd(fromBytes, toBytes);
  SmallVector<int64_t> expected(input.getShape());
  expected.back() = last * fromBytes / toBytes;
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result type " << result << " must have shape "
                         << shapeStr(expected) << " (the last dim of "
                         << shapeStr(input.getShape()) << " scaled by "
                         << fromBytes << " / " << toBytes
                         << ", the element sizes)";
  // The vector tile governs the input; its 32-byte-aligned splits of the
  // last dim hold whole result elements (at most 8 bytes each).
  return verifyVecTile(*this, getVecTileAttr(), input);
}

LogicalResult CastOp::verify() {
  TileType input = getInput().getType(), result = getResult().getType();
  if (input.getShape() != result.getShape())
    return emitOpError() << "changes the shape from "
                         << shapeStr(input.getShape()) << " to "
                         << shapeStr(result.getShape())
                         << "; a cast keeps the shape";
  if (failed(verifyVecTile(*this, getVecTileAttr(), input)))
    return failure();
  // The 950's casts extend the A2/A3 table and are listed after it
  // (getCastRule), so a pair A2/A3 supports has the same rule on every
  // architecture: the kernel's architecture (a walk up the parents, after
  // every pass) is looked up only for the other pairs and for diagnostics.
  Type from = input.getElementType(), to = result.getElementType();
  CastRule rule = getCastRule(from, to, Arch::DAV_2201);
  std::optional<Arch> kernelArch;
  auto arch = [&] {
    if (!kernelArch)
      kernelArch = getArchFor(*this);
    return *kernelArch;
  };
  if (!rule.supported && arch() != Arch::DAV_2201)
    rule = getCastRule(from, to, arch());
  if (!rule.supported)
    return emitOpError() << "casts " << from << " to " << to << ", which "
                         << archName(arch())
                         << " does not support; go through f32";
  CastMode mode = getMode();
  if (mode == CastMode::NONE)
    return success();
  if (rule.modes.empty())
    return emitOpError() << "gives rounding mode " << stringifyCastMode(mode)
                         << " to the exact widening " << from << " -> " << to
                         << "; drop the mode";
  if (!llvm::is_contained(rule.modes, mode)) {
    InFlightDiagnostic diag =
        emitOpError() << "rounding mode " << stringifyCastMode(mode)
                      << " is not supported for " << from << " -> " << to
                      << " on " << archName(arch()) << "; use one of ";
    llvm::interleaveComma(rule.modes, diag,
                          [&](CastMode m) { diag << stringifyCastMode(m); });
    return diag;
  }
  return success();
}

CastMode CastOp::getEffectiveMode() {
  if (getMode() != CastMode::NONE)
    return getMode();
  return getCastRule(getInput().getType().getElementType(),
                     getResult().getType().getElementType(), getArchFor(*this))
      .defaultMode;
}

bool CastOp::wrapsWithoutSaturation(Type from, Type to) {
  // hicann/pypto/docs/api/operation/pypto-cast.md, "saturation mode
  // defaults": these pairs wrap (PyTorch's behaviour) unless ON is asked for.
  if (from.isF16())
    return to.isSignlessInteger(8) || to.isSignlessInteger(16);
  if (from.isF32() || from.isSignlessInteger(32))
    return to.isSignlessInteger(16);
  if (from.isSignlessInteger(64))
    return to.isSignlessInteger(32);
  return false;
}

bool CastOp::saturates() {
  return getSatmode() == SaturationMode::ON ||
         !wrapsWithoutSaturation(getInput().getType().getElementType(),
                                 getResult().getType().getElementType());
}
