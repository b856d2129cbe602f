//===- Platform.cpp - per-architecture facts ------------------------------===//
//
// Numbers from shared/reference/ascend-target.md (§2 core counts and clocks,
// §3 buffers, §4 data paths) and pypto-model.md (§3.8 reduction tile limit,
// §3.9 precision support, §3.13 vector tile rank).
//
//===----------------------------------------------------------------------===//

#include "pto/Dialect/PTO/IR/Platform.h"

using namespace mlir::pto;

static constexpr int64_t KiB = 1024;

static const PlatformInfo kDav2201 = {
    /*arch=*/Arch::DAV_2201,
    /*name=*/"DAV_2201 (A2/A3: 910B/910C)",
    /*l1Bytes=*/512 * KiB,
    /*l0aBytes=*/64 * KiB,
    /*l0bBytes=*/64 * KiB,
    /*l0cBytes=*/128 * KiB,
    /*ubBytes=*/192 * KiB,
    /*biasTableBytes=*/1 * KiB,
    /*fixpipeBufferBytes=*/2 * KiB,
    /*bufferAlignBytes=*/32,
    /*reduceTileMaxBytes=*/64 * KiB,
    /*maxVecTileRank=*/4,
    /*hasL0CToUB=*/false,
    /*hasUBToL1=*/false,
    /*cubeCores=*/24,
    /*vectorCores=*/48,
    /*clockGHz=*/1.85,
    /*supportsHighPrecision=*/false,
    /*supportsFP8=*/false,
    /*vectorBF16Arithmetic=*/false,
    /*mixedScopes=*/false,
};

static const PlatformInfo kDav3510 = {
    /*arch=*/Arch::DAV_3510,
    /*name=*/"DAV_3510 (950)",
    /*l1Bytes=*/512 * KiB,
    /*l0aBytes=*/64 * KiB,
    /*l0bBytes=*/64 * KiB,
    /*l0cBytes=*/256 * KiB,
    // 256 KiB physical; 8 KiB are reserved for the compiler (PyPTO ini,
    // AscendNPU-IR), so 248 KiB are plannable.
    /*ubBytes=*/248 * KiB,
    /*biasTableBytes=*/4 * KiB,
    /*fixpipeBufferBytes=*/4 * KiB,
    /*bufferAlignBytes=*/32,
    /*reduceTileMaxBytes=*/64 * KiB,
    /*maxVecTileRank=*/4,
    /*hasL0CToUB=*/true,
    /*hasUBToL1=*/true,
    /*cubeCores=*/32,
    /*vectorCores=*/64,
    /*clockGHz=*/1.65,
    /*supportsHighPrecision=*/true,
    /*supportsFP8=*/true,
    /*vectorBF16Arithmetic=*/true,
    /*mixedScopes=*/true,
};

const PlatformInfo &mlir::pto::getPlatformInfo(Arch arch) {
  switch (arch) {
  case Arch::DAV_2201:
    return kDav2201;
  case Arch::DAV_3510:
    return kDav3510;
  }
  return kDav2201;
}
