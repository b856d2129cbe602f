# pto-mlir: the two README commands are `make sk16` (main job) and `make test`.
BUILD ?= build
BUILD_TYPE ?= Release
# Debian's NumPy and pytest belong to the system interpreter; a python3 earlier
# on PATH (pyenv, venv) may lack them.
PYTHON ?= /usr/bin/python3
LLVM_DIR ?= /usr/lib/llvm-22

.PHONY: all deps configure build test check-lit check-python sk16 bench docs clean \
        format format-check \
        build-asan test-asan test-asan-ci fuzz fuzz-libfuzzer fuzz-ci

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -G Ninja -B $(BUILD) -S . \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DPython3_EXECUTABLE=$(PYTHON)

configure: $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD)

# Every test: the lit suite (dialect, passes, tools, examples, docs) and pytest.
test: build
	$(MAKE) --no-print-directory check-lit check-python

check-lit:
	ninja -C $(BUILD) check-pto

# pytest in parallel (pytest-xdist, python3-pytest-xdist): one process per CPU
# (`logical`: a 2-vCPU machine of one physical core still gets two),
# each running whole test files (--dist loadfile keeps a file's module state,
# e.g. test_pypto_gym.py's corpus table, in one process). Most of pytest's time
# is pto-opt, pto-run and clang++ subprocesses, one core each. `deps` names the
# package when it is missing. PYTEST_XDIST= runs in one process.
# PYTEST_FLAGS: more pytest options (.ci/run: --durations=30).
PYTEST_XDIST ?= -n logical --dist loadfile
PYTEST_FLAGS ?=

check-python: deps
	cd python && PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pytest -q -rs $(PYTEST_XDIST) \
	  $(PYTEST_FLAGS) tests

# The main job: SK-16 through the toolchain (today: parse, verify, round trip,
# summary, and numerics through pto-run against the NumPy golden).
sk16: build
	PYTHON=$(PYTHON) ./scripts/run-sk16.sh $(BUILD)

# Regenerates docs/ from ODS and Passes.td (a lit test checks they are current).
docs: build
	ninja -C $(BUILD) mlir-doc
	./scripts/doc-filter.sh $(BUILD)/docs/Dialects/PTODialect.md > docs/Dialects/PTODialect.md
	./scripts/doc-filter.sh $(BUILD)/docs/PTOPasses.md > docs/PTOPasses.md
	./scripts/doc-filter.sh $(BUILD)/docs/PTOCheckPasses.md > docs/PTOCheckPasses.md
	./scripts/doc-filter.sh $(BUILD)/docs/Dialects/PTOISADialect.md > docs/Dialects/PTOISADialect.md
	./scripts/doc-filter.sh $(BUILD)/docs/PTOISAPasses.md > docs/PTOISAPasses.md
	./scripts/doc-filter.sh $(BUILD)/docs/PTOConversionPasses.md > docs/PTOConversionPasses.md

# The benchmark suite (benchmarks/README.md): compile-time ratios, the cost
# model on SK-16, pto-run vs the NumPy golden, the SK-01 calibration table;
# writes benchmarks/results.md. BENCH_FLAGS=--quick for the short version.
bench: build
	PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) benchmarks/run $(BENCH_FLAGS)

# C/C++ formatting (root .clang-format, LLVM style as upstream MLIR; test
# inputs excluded, scripts/cxx-files.sh): format-check lists the files
# clang-format-22 would change and fails if any (CI); format fixes them.
format-check:
	./scripts/check-format.sh

format:
	./scripts/format.sh

# Sanitizer build (docs/Guarantees.md): tools, libraries, C API and Python
# module with ASan + UBSan (cmake/PTOSanitize.cmake) in $(ASAN_BUILD); the lit
# suite and pytest (Python with the ASan runtime preloaded) under
# scripts/san-run. The same build holds the libFuzzer harness pto-fuzz.
ASAN_BUILD ?= build-asan
ASAN_PYTEST ?= tests
# CI's share of pytest under ASan (~1 min): every test file that drives the
# tools, the bindings, the cost model, the passes and the generator; the
# SK-16/SK-01 numerics matrices (~9 min instrumented) run in `make test-asan`.
ASAN_PYTEST_CI ?= tests/test_bindings.py tests/test_cost_model.py \
  tests/test_pto_run_errors.py tests/test_pto_run_hostile.py tests/test_fuzzgen.py \
  tests/test_tile_graph_passes.py tests/test_hoist_invariants.py tests/test_l1_reuse.py \
  tests/test_nbuffer_merge.py tests/test_persistent_fa.py \
  tests/test_frontend_tracer.py tests/test_frontend_run.py

$(ASAN_BUILD)/build.ninja: CMakeLists.txt cmake/PTOSanitize.cmake | deps
	cmake -G Ninja -B $(ASAN_BUILD) -S . \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DPTO_SANITIZE=ON \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DPython3_EXECUTABLE=$(PYTHON)

build-asan: $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

test-asan: build-asan deps
	./scripts/san-run ninja -C $(ASAN_BUILD) check-pto
	cd python && PTO_BUILD_DIR=$(abspath $(ASAN_BUILD)) ../scripts/san-run --python \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(PYTEST_XDIST) $(PYTEST_FLAGS) $(ASAN_PYTEST)

test-asan-ci:
	$(MAKE) --no-print-directory test-asan ASAN_PYTEST="$(ASAN_PYTEST_CI)"

# libFuzzer over parse -> verify -> round trip -> checkers -> pipeline
# (tools/pto-fuzz), seeded from the test inputs; crashes land in
# $(ASAN_BUILD)/fuzz/artifacts (add each, once fixed, to test/Fuzz/Inputs).
# `make fuzz` runs FUZZ_TIME seconds (default 10 min) with a fresh seed, then
# FUZZGEN_CASES kernels of the structure-aware generator through pto-run and
# FUZZGEN_CPP_CASES through the emitted C++ against pto-run; `make fuzz-ci` runs
# libFuzzer for 90 s with a fixed seed (CI). The per-input timeout is a hang
# detector, not a speed check (benchmarks/scaling.py measures that): the
# largest seed, expand-tiles-limits' @budget kernel near the 2^18-piece limit,
# runs its stages in ~6 s of release-build pipeline time and ~50 s under
# ASan + UBSan + coverage instrumentation on this 2-core machine.
FUZZ_TIME ?= 600
FUZZ_SEED ?= 0
FUZZGEN_CASES ?= 200
# Kernels of the generator through the C++ chain (25 per compiled program).
FUZZGEN_CPP_CASES ?= 100
FUZZ_DIR = $(ASAN_BUILD)/fuzz
fuzz-libfuzzer: build-asan
	rm -rf $(FUZZ_DIR)/seed && $(PYTHON) scripts/fuzz-corpus.py $(FUZZ_DIR)/seed
	mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	./scripts/san-run --preload $(ASAN_BUILD)/bin/pto-fuzz $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seed \
	  -dict=tools/pto-fuzz/pto.dict -max_total_time=$(FUZZ_TIME) -seed=$(FUZZ_SEED) \
	  -timeout=120 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
	  -artifact_prefix=$(abspath $(FUZZ_DIR)/artifacts)/

fuzz: fuzz-libfuzzer
	cd python && PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pto_mlir.fuzzgen \
	  --cases $(FUZZGEN_CASES) --seed $$(date +%s)
	cd python && PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pto_mlir.fuzzgen \
	  --cpp 25 --cases $(FUZZGEN_CPP_CASES) --seed $$(date +%s)

fuzz-ci:
	$(MAKE) --no-print-directory fuzz-libfuzzer FUZZ_TIME=90 FUZZ_SEED=1

clean:
	rm -rf $(BUILD)
