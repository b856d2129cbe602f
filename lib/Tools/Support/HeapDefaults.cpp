//===- HeapDefaults.cpp - how the compiler tools set up malloc ------------===//

#include "pto/Tools/HeapDefaults.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

bool mlir::pto::heapDefaultsEnabled(char *const *envp) {
  for (; envp && *envp; ++envp)
    if (std::strcmp(*envp, "PTO_HEAP_DEFAULTS=0") == 0)
      return false;
  return true;
}

void mlir::pto::setHeapDefaults() {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  if (!heapDefaultsEnabled(environ))
    return;
  // malloc is jemalloc (linked, or preloaded by the user): glibc's heap below
  // would hold nothing, and mallopt does not reach jemalloc.
  if (dlsym(RTLD_DEFAULT, "mallctl"))
    return;
  constexpr size_t kHugePage = size_t(2) << 20;
  // Grow the main heap 1 GiB at a time (address space only: pages are
  // committed when touched) and never give its top back, so that the region
  // advised below holds the whole IR of any module we compile, and blocks
  // up to 64 MiB (DenseMaps of a large module) come from it instead of from
  // mmaps of 4 KiB pages that are unmapped again on free.
  mallopt(M_TOP_PAD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  // One block larger than the heap's free top makes glibc extend it now,
  // by the block and the pad; freed, it returns to the top.
  void *block = malloc(32 << 20);
  if (!block)
    return;
  auto begin =
      (reinterpret_cast<uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
  free(block);
  auto end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (end > begin)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#endif
}
