# Writes OUT (pto/VersionInfo.inc): the project version and the git revision
# of SRC, rewritten only when they change (run at every build by the
# pto-version-info target, so `--version` names the commit that was built).
#   cmake -DSRC=<source dir> -DOUT=<file> -DVERSION=<x.y.z> -P PTOVersionInfo.cmake
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND out)
    set(revision "${out}")
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} status --porcelain
                            --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND changes)
      set(revision "${revision}-modified")
    endif()
  endif()
endif()
set(content "#define PTO_VERSION_STRING \"${VERSION}\"\n#define PTO_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE "${OUT}" "${content}")
endif()
