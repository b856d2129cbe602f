# `cmake --install build --prefix P` produces an installed package:
#
#   P/lib/libPTO*.a, libPTO-C.so     the libraries (static C++ libraries over
#                                    Debian's libMLIR.so; the C API shared)
#   P/include/pto, pto-c             headers, TableGen sources, generated .inc
#   P/lib/cmake/pto/PTOConfig.cmake  find_package(PTO): targets PTO::<library>
#                                    (PTODialect, PTOAnalysis, PTOChecks,
#                                    PTOTransforms, PTOInterpreter,
#                                    PTOEmbedding, PTOCAPI, ...)
#   P/bin/pto-opt, pto-run, pto-translate, pto-lsp-server
#   P/include/pto/pto-inst.hpp, pto/sim, pto/runtime
#                                    the host emulation and runtime that
#                                    emitted C++ compiles against
#   P/python_packages/pto_mlir       the Python package with its native module
#
# test/Integration/out-of-tree builds a tool against it and runs the installed
# tools from another folder with a clean environment.

include(CMakePackageConfigHelpers)

set(PTO_VERSION ${PROJECT_VERSION})
set(PTO_INSTALL_CMAKE_DIR lib/cmake/pto)
# Every library of the project (add_mlir_library records them in
# MLIR_ALL_LIBS), so a new library that an exported one depends on is exported
# too, plus the C API.
get_property(PTO_EXPORTED_LIBRARIES GLOBAL PROPERTY MLIR_ALL_LIBS)
list(FILTER PTO_EXPORTED_LIBRARIES INCLUDE REGEX "^PTO")
list(APPEND PTO_EXPORTED_LIBRARIES PTOCAPI)
list(REMOVE_DUPLICATES PTO_EXPORTED_LIBRARIES)

foreach(lib ${PTO_EXPORTED_LIBRARIES})
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:include>)
  # In the build tree the static libraries list the static MLIR archives they
  # use; tools link libMLIR.so first, so those archives are never pulled in.
  # Installed consumers get the shared libraries directly instead.
  get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  set(exported_deps "$<INSTALL_INTERFACE:MLIR>" "$<INSTALL_INTERFACE:LLVM>")
  foreach(dep ${deps})
    if(dep MATCHES "^(\\$<LINK_ONLY:)?(MLIR|LLVM)[A-Za-z0-9_]*>?$")
      list(APPEND exported_deps "$<BUILD_INTERFACE:${dep}>")
    else()
      list(APPEND exported_deps "${dep}")
    endif()
  endforeach()
  set_property(TARGET ${lib} PROPERTY INTERFACE_LINK_LIBRARIES "${exported_deps}")
endforeach()

# Installed tools and shared objects find libMLIR.so / libLLVM.so where they
# were linked (Debian's LLVM lives outside the loader's default path).
set(PTO_INSTALLED_TOOLS pto-opt pto-run pto-translate pto-lsp-server)
set_target_properties(PTOCAPI PTOPythonModule ${PTO_INSTALLED_TOOLS} PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS ${PTO_EXPORTED_LIBRARIES} EXPORT PTOTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin)
install(TARGETS ${PTO_INSTALLED_TOOLS} RUNTIME DESTINATION bin)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/pto DESTINATION include
  FILES_MATCHING PATTERN "*.hpp")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pto ${PROJECT_SOURCE_DIR}/include/pto-c
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/pto
  DESTINATION include
  FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.cpp.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT PTOTargets NAMESPACE PTO:: DESTINATION ${PTO_INSTALL_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/PTOConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/PTOConfig.cmake
  INSTALL_DESTINATION ${PTO_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/PTOConfigVersion.cmake
  VERSION ${PTO_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/PTOConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/PTOConfigVersion.cmake
  DESTINATION ${PTO_INSTALL_CMAKE_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/pto_mlir
  DESTINATION python_packages
  PATTERN "__pycache__" EXCLUDE
  PATTERN "*.pyc" EXCLUDE)
install(TARGETS PTOPythonModule LIBRARY DESTINATION python_packages/pto_mlir)
