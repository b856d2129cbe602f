//===- JemallocSettings.cpp - jemalloc's settings in the compiler tools ---===//
//
// Linked only into the tools that link jemalloc (cmake/PTOAllocator.cmake);
// the rationale and the measurements are in
// docs/TileGraph.md#the-tools-allocator.
//
//===----------------------------------------------------------------------===//

#include "pto/Tools/HeapDefaults.h"

// jemalloc reads the program's `malloc_conf` once, when it initializes
// (https://jemalloc.net/jemalloc.3.html#tuning); a MALLOC_CONF environment
// variable overrides it option by option.
// - thp:always: every extent is advised for transparent huge pages, so the IR
//   of a module sits on 2 MiB pages and walks over it miss the TLB less.
// - metadata_thp:always: jemalloc's own extent and bin metadata likewise.
// - dirty_decay_ms:-1, muzzy_decay_ms:-1: freed pages are kept for reuse,
//   never returned to the kernel (a tool's run is short; returning them costs
//   madvise calls and page faults when the next kernel's IR reuses them).
extern "C" const char *malloc_conf;
const char *malloc_conf = "thp:always,metadata_thp:always,"
                          "dirty_decay_ms:-1,muzzy_decay_ms:-1";

namespace {
// Runs before any shared library's initializer, so before jemalloc's first
// allocation reads malloc_conf; getenv may not work yet, hence envp.
void chooseJemallocSettings(int, char **, char **envp) {
  if (!mlir::pto::heapDefaultsEnabled(envp))
    malloc_conf = nullptr;
}
} // namespace

[[gnu::section(".preinit_array"),
  gnu::used]] static void (*const choosePreinit)(int, char **, char **) =
    chooseJemallocSettings;
