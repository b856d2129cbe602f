# PTO_SANITIZE=ON: the project's own code (libraries, tools, C API, Python
# module) is built with AddressSanitizer + UndefinedBehaviorSanitizer
# (`make test-asan`, build dir build-asan; docs/Guarantees.md).
#
# - Debian's libMLIR.so / libLLVM.so are not instrumented. ASan still sees
#   every heap allocation (malloc is intercepted) but not their accesses, so it
#   cannot tell container bounds that libMLIR code annotates: run with
#   ASAN_OPTIONS=detect_container_overflow=0 (scripts/sanitizer-env.sh).
# - LLVM is built without RTTI: UBSan's `vptr` check needs it and is off.
# - The ASan runtime is the shared one (-shared-libsan) in every binary, so
#   that the Python module, loaded into the uninstrumented /usr/bin/python3
#   with LD_PRELOAD of that same runtime, and the tools the Python tests start
#   (which inherit LD_PRELOAD) share one runtime.
# - UBSan findings abort (-fno-sanitize-recover): a report fails the test.
# - When libFuzzer is available (Debian's libclang-rt-22-dev), the code also
#   gets libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link) so
#   that this one build also serves tools/pto-fuzz (PTO_FUZZ).
option(PTO_SANITIZE "Build with -fsanitize=address,undefined" OFF)

set(PTO_FUZZ OFF)
if(PTO_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PTO_SANITIZE needs clang (CMAKE_CXX_COMPILER=clang++-22)")
  endif()
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
    OUTPUT_VARIABLE PTO_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${PTO_ASAN_RUNTIME}")
    message(FATAL_ERROR "PTO_SANITIZE: no ASan runtime (${PTO_ASAN_RUNTIME}); "
                        "install libclang-rt-22-dev")
  endif()
  get_filename_component(PTO_SANITIZER_RUNTIME_DIR "${PTO_ASAN_RUNTIME}" DIRECTORY)
  set(PTO_ASAN_RUNTIME "${PTO_ASAN_RUNTIME}" CACHE INTERNAL "")
  set(pto_san_flags
    "-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer -shared-libsan")
  if(NOT CMAKE_BUILD_TYPE MATCHES "Deb")
    string(APPEND pto_san_flags " -gline-tables-only")
  endif()
  if(EXISTS "${PTO_SANITIZER_RUNTIME_DIR}/libclang_rt.fuzzer-x86_64.a")
    set(PTO_FUZZ ON)
    string(APPEND pto_san_flags " -fsanitize=fuzzer-no-link")
  endif()
  string(APPEND CMAKE_C_FLAGS " ${pto_san_flags}")
  string(APPEND CMAKE_CXX_FLAGS " ${pto_san_flags}")
  foreach(kind EXE SHARED MODULE)
    string(APPEND CMAKE_${kind}_LINKER_FLAGS
      " -fsanitize=address,undefined -shared-libsan -Wl,-rpath,${PTO_SANITIZER_RUNTIME_DIR}")
  endforeach()
  message(STATUS "PTO_SANITIZE: ${pto_san_flags} (runtime ${PTO_ASAN_RUNTIME}); libFuzzer: ${PTO_FUZZ}")
endif()
