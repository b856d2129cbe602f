//===- Platform.h - per-architecture facts ----------------------*- C++ -*-===//
//
// The one place holding buffer sizes, alignments, data paths, core counts and
// limits of each Ascend architecture. Verifiers, tiling checks, memory planning
// and the cost model read it; no other file spells these numbers. Sources:
// shared/reference/ascend-target.md §2-§4 and pypto-model.md §3.12-§3.13.
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
  llvm::StringRef name;        // e.g. "DAV_2201 (A2/A3)"
  // On-chip buffer sizes in bytes, per core.
  int64_t l1Bytes;
  int64_t l0aBytes;
  int64_t l0bBytes;
  int64_t l0cBytes;
  int64_t ubBytes;             // per vector core
  int64_t biasTableBytes;
  int64_t fixpipeBufferBytes;
  int64_t bufferAlignBytes;    // alignment of every on-chip buffer
  int64_t reduceTileMaxBytes;  // largest vector tile a reduction may use
  int64_t maxVecTileRank;
  // Data paths (ascend-target.md §4).
  bool hasL0CToUB;
  bool hasUBToL1;
  // Core counts and clock of the reference SKU.
  int64_t cubeCores;
  int64_t vectorCores;
  double clockGHz;
  // Features.
  bool supportsHighPrecision;  // PrecisionType::HIGH_PRECISION for div/exp/...
  bool supportsFP8;
  bool vectorBF16Arithmetic;   // elementwise arithmetic directly on bf16
  bool mixedScopes;            // cube and vector ops in one scope (MIX)
};

const PlatformInfo &getPlatformInfo(Arch arch);

} // namespace mlir::pto

#endif // PTO_DIALECT_PTO_IR_PLATFORM_H
