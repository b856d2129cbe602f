//===- Platform.cpp - per-architecture facts ------------------------------===//
//
// Numbers from docs/AscendTarget.md (core counts and clocks, buffers, data
// paths, memory rates, peak compute) and docs/PyPTOModel.md (reduction tile
// limit, precision support, vector tile rank).
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
    /*perf=*/
    {
        // ≈1.6 TB/s: CANN guide figure for A2 (910B); not published per A3
        // device (uncertain for A3).
        /*gmBytesPerSec=*/1.6e12,
        // Not published. Derived: every core's port at the ini L2 read rate,
        // 110 B/cycle x (24 AIC + 48 AIV) x 1.85 GHz ≈ 14.7 TB/s (an upper
        // estimate). Calibration: the pto-isa FA forward's S = 16384 row
        // moves ≥ 5.4 GB through the L2 in 909 us, so the chip sustains
        // ≥ 5.9 TB/s; the earlier 24-port figure (4.9 TB/s) is ruled out
        // (docs/CostModel.md, "Calibration").
        /*l2BytesPerSec=*/110.0 * (24 + 48) * 1.85e9,
        // Memory rates: DDR 32/32, L2 110/86. The A2/A3 ini has one
        // column; the AIV share it (uncertain).
        /*aicRates=*/{32, 32, 110, 86},
        /*aivRates=*/{32, 32, 110, 86},
        /*l1ToL0ABytesPerCycle=*/512,
        /*l1ToL0BBytesPerCycle=*/256,
        /*ubToDdrBytesPerCycle=*/64,
        /*ubToL2BytesPerCycle=*/64,
        // A 16x16x16 fp16/bf16 block per cycle = 4096 MAC = 8192 FLOP;
        // 24 x 8192 x 1.8 GHz = 353.9 TFLOPS (CANN guide, pto-isa FA README).
        /*cubeFlopsPerCycle=*/8192,
        // fp32 operands at half rate: stated for the 950 (K of 8), not for
        // A2/A3 (uncertain).
        /*cubeFp32Factor=*/0.5,
        // 256 B/cycle per AIV (vec_calc_size 128 fp16 lanes).
        /*vectorBytesPerCycle=*/256,
        /*publishedPeakClockGHz=*/1.8,
    },
    /*ubImplicitScratchBytes=*/8 * KiB,
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
    /*perf=*/
    {
        // Not published. Derived from the ini AIC DDR rate: 31 B/cycle x 32
        // AIC x 1.65 GHz ≈ 1.64 TB/s (uncertain).
        /*gmBytesPerSec=*/31.0 * 32 * 1.65e9,
        // Not published. Derived as for A2/A3, every core's port at the ini
        // L2 rate: 100 B/cycle x (32 AIC + 64 AIV) x 1.65 GHz (uncertain).
        /*l2BytesPerSec=*/100.0 * (32 + 64) * 1.65e9,
        // Memory rates, 950: AIC DDR 31, L2 100; AIV DDR 16, L2 100.
        /*aicRates=*/{31, 31, 100, 100},
        /*aivRates=*/{16, 16, 100, 100},
        /*l1ToL0ABytesPerCycle=*/256,
        /*l1ToL0BBytesPerCycle=*/256,
        // Memory rates, 950 AIV: UB -> DDR 40, UB -> L2 42.
        /*ubToDdrBytesPerCycle=*/40,
        /*ubToL2BytesPerCycle=*/42,
        // 4096 MAC/cycle per AIC; 32 x 8192 x 1.65 GHz ≈ 432.5 TFLOPS
        // (derived, not published).
        /*cubeFlopsPerCycle=*/8192,
        /*cubeFp32Factor=*/0.5, // ini: fp32 K of 8 (half of 16)
        /*vectorBytesPerCycle=*/256,
        /*publishedPeakClockGHz=*/1.65,
    },
    /*ubImplicitScratchBytes=*/0,
    // Memory rates, 950 AIC: L0C -> UB 128 (PyPTO ini Ascend950PR_9589,
    // l0_c_to_ub_rate; docs/AscendTarget.md#memory-rates).
    /*l0cToUBBytesPerCycle=*/128,
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
