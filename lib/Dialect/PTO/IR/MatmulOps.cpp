//===- MatmulOps.cpp - pto.matmul and pto.matmul_acc ----------------------===//
//
// The cube ops: supported dtype triples per architecture, shapes, cube
// tiles and their fit in L0/L1. Verifiers name the offending value, the rule
// and the fix.
//
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::pto;
using mlir::pto::detail::archName;
using mlir::pto::detail::isFP8;
using mlir::pto::detail::isSignlessInt;
using mlir::pto::detail::shapeStr;

static int64_t byteSize(Type elementType) {
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Whether `lhs x rhs -> out` is a supported matmul dtype triple on `arch`
/// (docs/PyPTOModel.md#matmul): the cube accumulates floats in f32 and the
/// fixpipe rounds to any of f16, bf16, f32 on the way out.
static bool isSupportedMatmulTriple(Type in, Type out, Arch arch) {
  if (in.isF16() || in.isBF16() || in.isF32())
    return out.isF16() || out.isBF16() || out.isF32();
  if (isSignlessInt(in, 8))
    return isSignlessInt(out, 32);
  if (isFP8(in))
    return getPlatformInfo(arch).supportsFP8 &&
           (out.isF16() || out.isBF16() || out.isF32());
  return false;
}

/// Shapes, dtypes and cube tile of a matmul or one K step of it.
static LogicalResult verifyMatmulLike(Operation *op, TileType lhs, TileType rhs,
                                      TileType result, bool aTrans, bool bTrans,
                                      CubeTileAttr tile) {
  auto emitOpError = [&]() { return op->emitOpError(); };
  auto getATrans = [&]() { return aTrans; };
  auto getBTrans = [&]() { return bTrans; };
  auto getCubeTile = [&]() { return tile; };
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError() << "supports 2-D tiles only, got ranks "
                         << lhs.getRank() << ", " << rhs.getRank() << " -> "
                         << result.getRank();
  int64_t m = getATrans() ? lhs.getDimSize(1) : lhs.getDimSize(0);
  int64_t kA = getATrans() ? lhs.getDimSize(0) : lhs.getDimSize(1);
  int64_t kB = getBTrans() ? rhs.getDimSize(1) : rhs.getDimSize(0);
  int64_t n = getBTrans() ? rhs.getDimSize(0) : rhs.getDimSize(1);
  if (kA != kB)
    return emitOpError() << "contracts K = " << kA << " of the left operand "
                         << shapeStr(lhs.getShape())
                         << (getATrans() ? " (a_trans)" : "")
                         << " with K = " << kB << " of the right operand "
                         << shapeStr(rhs.getShape())
                         << (getBTrans() ? " (b_trans)" : "")
                         << "; the contracted dims must be equal (check "
                            "a_trans/b_trans)";
  if (result.getDimSize(0) != m || result.getDimSize(1) != n)
    return emitOpError() << "result " << shapeStr(result.getShape())
                         << " must be [M, N] = " << shapeStr({m, n});

  Type inType = lhs.getElementType(), outType = result.getElementType();
  // The kernel's architecture (a walk up the parents, after every pass) is
  // looked up only where it decides: fp8 operands and cube tiles that some
  // architecture's buffers do not hold.
  std::optional<Arch> kernelArch;
  auto getArch = [&] {
    if (!kernelArch)
      kernelArch = getArchFor(op);
    return *kernelArch;
  };
  bool fp8Pair = isFP8(inType) && isFP8(rhs.getElementType());
  if (inType != rhs.getElementType() && !fp8Pair)
    return emitOpError() << "multiplies " << inType << " by "
                         << rhs.getElementType()
                         << "; both operands must have the same dtype (cast "
                            "one of them)";
  // Only fp8 support differs between architectures.
  Arch arch = isFP8(inType) ? getArch() : Arch::DAV_2201;
  if (!isSupportedMatmulTriple(inType, outType, arch) &&
      !isSupportedMatmulTriple(inType, outType, arch = getArch()))
    return emitOpError() << "dtype triple " << inType << " x "
                         << rhs.getElementType() << " -> " << outType
                         << " is not supported on " << archName(arch)
                         << "; supported: f16|bf16|f32->f16|bf16|f32, "
                            "i8->i32"
                         << (getPlatformInfo(arch).supportsFP8
                                 ? ", fp8->f16|bf16|f32"
                                 : "");

  // Cube tile alignment and capacity (docs/PyPTOModel.md#cube-tile-shapes).
  (void)getCubeTile;
  if (tile.getSplitK() && !outType.isF32() && !isSignlessInt(outType, 32))
    return emitOpError() << "uses split_k with out dtype " << outType
                         << "; split-K accumulates in GM and needs f32 or "
                            "i32 output";
  int64_t aBytes = byteSize(inType), bBytes = byteSize(rhs.getElementType());
  int64_t align = aBytes == 1 ? 32 : 16; // elements; 32 B for 8-bit types
  // L1 is a multiple of L0 (CubeTileAttr), so aligning L0 aligns L1 too.
  auto checkAligned = [&](StringRef axis,
                          ArrayRef<int64_t> values) -> LogicalResult {
    if (values[0] % align != 0)
      return emitOpError() << "cube tile " << axis << " = [" << values[0]
                           << ", " << values[1] << "]: " << axis
                           << "L0 = " << values[0] << " is not a multiple of "
                           << align << " elements (32-byte alignment for "
                           << inType << "); round it to a multiple of "
                           << align;
    return success();
  };
  // mL0 is free unless A is transposed (PyPTO's CheckCubeTiling): the L1
  // and L0A images round M up to whole fractals (16 rows) either way.
  if ((aTrans && failed(checkAligned("m", tile.getM()))) ||
      failed(checkAligned("k", tile.getK())) ||
      failed(checkAligned("n", tile.getN())))
    return failure();
  auto ca = [&](int64_t x) { return (x + align - 1) / align * align; };
  int64_t l0a = ca(tile.getML0()) * ca(tile.getKL0()) * aBytes;
  int64_t l0b = ca(tile.getNL0()) * ca(tile.getKL0()) * bBytes;
  int64_t l0c = ca(tile.getML0()) * ca(tile.getNL0()) * 4;
  // L1 holds what PyPTO's matmul expansion stages there: per output tile an
  // A block [mL0, kL1] and a B block [kL1, nL0], each clamped to the operand
  // (docs/PyPTOModel.md#cube-tile-shapes); mL1 and nL1 size no matmul block.
  int64_t mBlock = std::min(tile.getML0(), m),
          nBlock = std::min(tile.getNL0(), n);
  int64_t kBlock = std::min(tile.getKL1(), kA);
  int64_t l1 =
      ca(mBlock) * ca(kBlock) * aBytes + ca(nBlock) * ca(kBlock) * bBytes;
  auto fitsOn = [&](Arch a) {
    const PlatformInfo &p = getPlatformInfo(a);
    return l0a <= p.l0aBytes && l0b <= p.l0bBytes && l0c <= p.l0cBytes &&
           l1 <= p.l1Bytes;
  };
  if (holdsOnEveryArch(fitsOn))
    return success();
  arch = getArch();
  const PlatformInfo &platform = getPlatformInfo(arch);
  auto overflow = [&](StringRef buffer, const std::string &formula,
                      int64_t bytes, int64_t limit,
                      StringRef fix) -> LogicalResult {
    return emitOpError() << "cube tile does not fit " << buffer << " on "
                         << archName(arch) << ": " << formula << " = " << bytes
                         << " B > " << limit << " B (" << limit / 1024
                         << " KiB); " << fix;
  };
  if (l0a > platform.l0aBytes)
    return overflow("L0A",
                    llvm::formatv("mL0 x kL0 x {0} B = {1} x {2} x {0}", aBytes,
                                  tile.getML0(), tile.getKL0())
                        .str(),
                    l0a, platform.l0aBytes, "lower mL0 or kL0");
  if (l0b > platform.l0bBytes)
    return overflow("L0B",
                    llvm::formatv("nL0 x kL0 x {0} B = {1} x {2} x {0}", bBytes,
                                  tile.getNL0(), tile.getKL0())
                        .str(),
                    l0b, platform.l0bBytes, "lower nL0 or kL0");
  if (l0c > platform.l0cBytes)
    return overflow("L0C",
                    llvm::formatv("mL0 x nL0 x 4 B = {0} x {1} x 4",
                                  tile.getML0(), tile.getNL0())
                        .str(),
                    l0c, platform.l0cBytes, "lower mL0 or nL0");
  if (l1 > platform.l1Bytes)
    return overflow("L1",
                    llvm::formatv("A block [mL0, kL1] + B block [kL1, nL0] "
                                  "(clamped to M, K, N) = ({2} x {3} x {0} + "
                                  "{4} x {3} x {1}) B",
                                  aBytes, bBytes, mBlock, kBlock, nBlock)
                        .str(),
                    l1, platform.l1Bytes, "lower kL1 (or mL0, nL0)");
  return success();
}

LogicalResult MatmulOp::verify() {
  return verifyMatmulLike(*this, getLhs().getType(), getRhs().getType(),
                          getResult().getType(), getATrans(), getBTrans(),
                          getCubeTile());
}

LogicalResult MatmulAccOp::verify() {
  TileType acc = getAcc().getType(), result = getResult().getType();
  if (failed(verifyMatmulLike(*this, getLhs().getType(), getRhs().getType(),
                              result, getATrans(), getBTrans(), getCubeTile())))
    return failure();
  Type accElement = acc.getElementType();
  bool intInputs = isa<IntegerType>(getLhs().getType().getElementType());
  if (acc.getShape() != result.getShape() ||
      !(intInputs ? isSignlessInt(accElement, 32) : accElement.isF32()))
    return emitOpError() << "accumulator " << acc
                         << " must be [M, N] = " << shapeStr(result.getShape())
                         << " of " << (intInputs ? "i32" : "f32")
                         << " (partial results stay in L0C precision)";
  return success();
}
