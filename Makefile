# pto-mlir: the two README commands are `make sk16` (main job) and `make test`.
BUILD ?= build
BUILD_TYPE ?= Release
# Debian's NumPy and pytest belong to the system interpreter; a python3 earlier
# on PATH (pyenv, venv) may lack them.
PYTHON ?= /usr/bin/python3
LLVM_DIR ?= /usr/lib/llvm-22

.PHONY: all deps configure build test check-lit check-python sk16 bench docs clean

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

check-python:
	cd python && PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pytest -q tests

# The main job: SK-16 through the toolchain (today: parse, verify, round trip,
# summary, and numerics through pto-run against the NumPy golden).
sk16: build
	PYTHON=$(PYTHON) ./scripts/run-sk16.sh $(BUILD)

# Regenerates docs/ from ODS and Passes.td (a lit test checks they are current).
docs: build
	ninja -C $(BUILD) mlir-doc
	cp $(BUILD)/docs/Dialects/PTODialect.md docs/Dialects/PTODialect.md
	cp $(BUILD)/docs/PTOPasses.md docs/PTOPasses.md
	cp $(BUILD)/docs/Dialects/PTOISADialect.md docs/Dialects/PTOISADialect.md
	cp $(BUILD)/docs/PTOISAPasses.md docs/PTOISAPasses.md
	cp $(BUILD)/docs/PTOConversionPasses.md docs/PTOConversionPasses.md

# The benchmark suite (benchmarks/README.md): compile-time ratios, the cost
# model on SK-16, pto-run vs the NumPy golden, the SK-01 calibration table;
# writes benchmarks/results.md. BENCH_FLAGS=--quick for the short version.
bench: build
	PTO_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) benchmarks/run $(BENCH_FLAGS)

clean:
	rm -rf $(BUILD)
