# The allocator of the compiler tools (pto-opt, pto-translate): jemalloc from
# Debian's libjemalloc-dev when it is found, glibc's malloc otherwise. Under
# glibc's, each kernel of a large module costs the nested passes more than the
# one before; under jemalloc, what the first costs
# (docs/TileGraph.md#the-tools-allocator).
#
# Only executables link it: a library loaded into another program (the C API,
# the Python module) must use that program's malloc. Never under PTO_SANITIZE,
# whose runtime replaces malloc itself.
#
# pto_link_tool_allocator(target) links it into a tool, with the settings of
# lib/Tools/Jemalloc/JemallocSettings.cpp; setHeapDefaults() (HeapDefaults.cpp)
# then leaves glibc's heap alone.
set(_pto_jemalloc_default ON)
if(PTO_SANITIZE)
  set(_pto_jemalloc_default OFF)
endif()
option(PTO_USE_JEMALLOC
  "Link jemalloc (Debian libjemalloc-dev) into pto-opt and pto-translate where it is found"
  ${_pto_jemalloc_default})
if(PTO_USE_JEMALLOC AND PTO_SANITIZE)
  message(STATUS "PTO_USE_JEMALLOC: off under PTO_SANITIZE (ASan replaces malloc)")
  set(PTO_USE_JEMALLOC OFF CACHE BOOL "" FORCE)
endif()

set(PTO_JEMALLOC OFF)
if(PTO_USE_JEMALLOC)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(PTO_JEMALLOC_PC QUIET IMPORTED_TARGET jemalloc)
  endif()
  if(PTO_JEMALLOC_PC_FOUND)
    add_library(pto_jemalloc INTERFACE IMPORTED)
    target_link_libraries(pto_jemalloc INTERFACE PkgConfig::PTO_JEMALLOC_PC)
    set(PTO_JEMALLOC ON)
    message(STATUS "Tools' allocator: jemalloc ${PTO_JEMALLOC_PC_VERSION} (pkg-config)")
  else()
    find_library(PTO_JEMALLOC_LIBRARY NAMES jemalloc)
    if(PTO_JEMALLOC_LIBRARY)
      add_library(pto_jemalloc INTERFACE IMPORTED)
      target_link_libraries(pto_jemalloc INTERFACE ${PTO_JEMALLOC_LIBRARY})
      set(PTO_JEMALLOC ON)
      message(STATUS "Tools' allocator: jemalloc ${PTO_JEMALLOC_LIBRARY}")
    endif()
  endif()
  if(NOT PTO_JEMALLOC)
    message(WARNING "PTO_USE_JEMALLOC: jemalloc not found (install libjemalloc-dev, "
                    "scripts/install-deps.sh): the tools use glibc's malloc, and "
                    "compile time grows faster than the number of kernels")
  endif()
endif()
if(NOT PTO_JEMALLOC)
  message(STATUS "Tools' allocator: glibc malloc")
endif()
# Read by python/tests/test_heap_defaults.py.
if(PTO_JEMALLOC)
  set(PTO_TOOLS_ALLOCATOR jemalloc CACHE INTERNAL "malloc of pto-opt and pto-translate")
else()
  set(PTO_TOOLS_ALLOCATOR glibc CACHE INTERNAL "malloc of pto-opt and pto-translate")
endif()

function(pto_link_tool_allocator target)
  if(PTO_JEMALLOC)
    target_link_libraries(${target} PRIVATE PTOJemallocSettings)
  endif()
endfunction()
