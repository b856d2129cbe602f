//===- Platform.h - per-architecture facts ----------------------*- C++ -*-===//
//
// The one place holding buffer sizes, alignments, data paths, core counts and
// limits of each Ascend architecture. Verifiers, tiling checks, memory planning
// and the cost model read it; no other file spells these numbers. Sources:
// docs/AscendTarget.md and docs/PyPTOModel.md#cube-tile-shapes.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_DIALECT_PTO_IR_PLATFORM_H
#define PTO_DIALECT_PTO_IR_PLATFORM_H

#include "mlir/IR/DialectImplementation.h"
#include "pto/Dialect/PTO/IR/PTOEnums.h.inc"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace mlir::pto {

struct PlatformInfo {
  Arch arch;
  llvm::StringRef name; // e.g. "DAV_2201 (A2/A3)"
  // On-chip buffer sizes in bytes, per core.
  int64_t l1Bytes;
  int64_t l0aBytes;
  int64_t l0bBytes;
  int64_t l0cBytes;
  int64_t ubBytes; // per vector core
  int64_t biasTableBytes;
  int64_t fixpipeBufferBytes;
  int64_t bufferAlignBytes;   // alignment of every on-chip buffer
  int64_t reduceTileMaxBytes; // largest vector tile a reduction may use
  int64_t maxVecTileRank;
  // Data paths (docs/AscendTarget.md#data-paths).
  bool hasL0CToUB;
  bool hasUBToL1;
  // Core counts and clock of the reference SKU.
  int64_t cubeCores;
  int64_t vectorCores;
  double clockGHz;
  // Features.
  bool supportsHighPrecision; // PrecisionType::HIGH_PRECISION for div/exp/...
  bool supportsFP8;
  bool vectorBF16Arithmetic; // elementwise arithmetic directly on bf16
  bool mixedScopes;          // cube and vector ops in one scope (MIX)

  /// Performance numbers for the cost model (lib/CostModel), from
  /// docs/AscendTarget.md: bandwidths, per-core memory rates (PyPTO ini
  /// `[AICoreMemoryRates]`, units unstated, read as bytes/cycle/core) and
  /// peak compute. Derived or uncertain figures are marked in Platform.cpp.
  struct MemoryRates {        // bytes per cycle per core
    double ddrRead, ddrWrite; // GM (HBM) <-> core
    double l2Read, l2Write;   // GM served by L2 <-> core
  };
  struct PerfInfo {
    double gmBytesPerSec;         // chip HBM bandwidth
    double l2BytesPerSec;         // chip L2 bandwidth
    MemoryRates aicRates;         // MTE2 into L1, FIX out of L0C
    MemoryRates aivRates;         // MTE2 into UB
    double l1ToL0ABytesPerCycle;  // MTE1
    double l1ToL0BBytesPerCycle;  // MTE1
    double ubToDdrBytesPerCycle;  // MTE3
    double ubToL2BytesPerCycle;   // MTE3
    double cubeFlopsPerCycle;     // per AIC, fp16/bf16 operands
    double cubeFp32Factor;        // fp32-operand matmul rate / fp16 rate
    double vectorBytesPerCycle;   // per AIV (128 fp16 or 64 fp32 lanes)
    double publishedPeakClockGHz; // clock of the published cube peak
  };
  PerfInfo perf;

  /// UB bytes at the top of the buffer that some pto-isa instructions use as
  /// implicit scratch when called without a tmp tile (A2/A3: 8 KiB at
  /// 184 KiB, `TMP_UB_OFFSET`, docs/AscendTarget.md#on-chip-buffers); 0 where
  /// none is known.
  int64_t ubImplicitScratchBytes = 0;

  /// L0C -> UB through the fixpipe, bytes per cycle per AIC: how a MIX task
  /// hands a cube result to its vector cores (docs/TileGraph.md, "On-chip
  /// exchanges"); 0 where the chip has no such path (hasL0CToUB false).
  double l0cToUBBytesPerCycle = 0;
};

const PlatformInfo &getPlatformInfo(Arch arch);

/// Whether `pred(arch)` holds for every architecture. An op verifier that
/// accepts what every architecture accepts needs no walk up to the kernel
/// for the op's own (getArchFor), which it would do after every pass.
template <typename Pred> bool holdsOnEveryArch(Pred pred) {
  for (uint32_t value = 0; value <= getMaxEnumValForArch(); ++value)
    if (std::optional<Arch> arch = symbolizeArch(value); arch && !pred(*arch))
      return false;
  return true;
}

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_IR_PLATFORM_H
