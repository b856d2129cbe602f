//===- HeapDefaults.h - how the compiler tools set up malloc --*- C++ -*-===//
#ifndef PTO_TOOLS_HEAPDEFAULTS_H
#define PTO_TOOLS_HEAPDEFAULTS_H

namespace mlir::pto {

/// Whether the tools' heap settings apply: not when the environment `envp`
/// (null-terminated `NAME=value` strings) has `PTO_HEAP_DEFAULTS=0`. Takes
/// the environment as an argument because jemalloc's settings are chosen
/// before the C library has run any initializer
/// (lib/Tools/Jemalloc/JemallocSettings.cpp).
bool heapDefaultsEnabled(char *const *envp);

/// Call first thing in a compiler tool's main (pto-opt, pto-translate).
///
/// Tools linked with jemalloc (cmake/PTOAllocator.cmake) take their heap
/// settings from JemallocSettings.cpp before main, and this does nothing.
/// Under glibc's malloc, reserves the main heap in one large step and asks
/// the kernel to back it with transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`, effective when
/// /sys/kernel/mm/transparent_hugepage/enabled is `always` or `madvise`),
/// and serves large blocks from that heap rather than from fresh mmaps. The
/// IR of a module of many kernels is hundreds of MB of small objects; with
/// 4 KiB pages the TLB misses of every walk and of malloc's free lists grew
/// the time per kernel with the module
/// (docs/TileGraph.md#cost-in-the-number-of-kernels). Does nothing when
/// `PTO_HEAP_DEFAULTS=0` or on platforms without these calls.
void setHeapDefaults();

} // namespace mlir::pto

#endif // PTO_TOOLS_HEAPDEFAULTS_H
