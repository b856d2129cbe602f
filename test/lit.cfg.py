# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "PTO"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pto_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%{pto_src_root}", config.pto_src_root))
config.substitutions.append(("%{pto_obj_root}", config.pto_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%{cmake}", config.cmake_command))
config.substitutions.append(("%{cmake_generator}", config.cmake_generator))
config.substitutions.append(("%{cmake_make_program}", config.cmake_make_program))
config.substitutions.append(("%{cc}", config.cmake_c_compiler))
config.substitutions.append(("%{cxx}", config.cmake_cxx_compiler))
config.substitutions.append(("%{mlir_dir}", config.mlir_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.pto_tools_dir, config.llvm_tools_dir]
tools = ["pto-opt", "pto-run", "pto-translate", "pto-lsp-server", "pto-capi-test",
         "pto-fuzz-replay", "pto-union-find-test", "not", "count", "split-file", "llvm-nm"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PYTHONPATH",
                             os.path.join(config.pto_src_root, "python"),
                             append_path=True)

# test/Docs/doc-references.test reads the tracked files through git.
import subprocess
if subprocess.run(["git", "-C", config.pto_src_root, "rev-parse", "--is-inside-work-tree"],
                  capture_output=True).returncode == 0:
    config.available_features.add("git-checkout")

# scripts/check-format.sh checks with clang-format-22 (scripts/install-deps.sh).
import shutil
if shutil.which("clang-format-22"):
    config.available_features.add("clang-format-22")
else:
    lit_config.note("no clang-format-22: test/Tools/check-format.test is UNSUPPORTED")

# Sanitizer build (make test-asan): tests that cannot run instrumented say
# `UNSUPPORTED: asan` with the reason.
if getattr(config, "pto_sanitize", False):
    config.available_features.add("asan")

# The real pto-isa (CMake PTO_ISA_DIR): tests that compile emitted kernels
# against it say `REQUIRES: pto-isa`; without it they are UNSUPPORTED, and
# this note says why.
pto_isa_dir = getattr(config, "pto_isa_dir", "")
if pto_isa_dir and os.path.exists(os.path.join(pto_isa_dir, "include", "pto", "pto-inst.hpp")):
    config.available_features.add("pto-isa")
    config.substitutions.append(("%{pto_isa_include}", os.path.join(pto_isa_dir, "include")))
else:
    lit_config.note("no pto-isa checkout (CMake PTO_ISA_DIR='%s'): tests that need the real "
                    "pto-isa are UNSUPPORTED" % pto_isa_dir)
