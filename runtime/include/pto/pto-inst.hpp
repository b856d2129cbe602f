// pto-mlir's host emulation of the pto-isa C++ API (the subset pto-mlir
// emits). Kernel sources written against pto-isa compile unchanged with
//   clang++ -std=c++20 -D__CPU_SIM -I<pto-mlir>/runtime/include
// and run on host threads (see docs/Runtime.md). Only the CPU simulation is
// provided: device builds must use the real pto-isa headers.
#pragma once

#ifndef __CPU_SIM
// clang-format off
#error "pto-mlir ships only the host emulation of pto-isa: compile with -D__CPU_SIM (device builds need the real pto-isa headers)"
// clang-format on
#endif

#if __cplusplus < 202002L
#error "the pto-isa host emulation needs C++20 (-std=c++20)"
#endif

// Emitted code tells this emulation from pto-isa's own CPU back end by it.
#define PTO_MLIR_HOST_EMULATION 1

#include <pto/sim/base.hpp>
#include <pto/sim/core.hpp>
#include <pto/sim/gather.hpp>
#include <pto/sim/instr.hpp>
#include <pto/sim/mask.hpp>
#include <pto/sim/scatter.hpp>
#include <pto/sim/sort.hpp>
#include <pto/sim/tile.hpp>
