# Makefile: the short way in. Everything here is plain CMake underneath; see the README.
#
#   make run        configure (Release) into build/, build, run `pdesolve demo`
#   make test       build with -Werror and run the whole test suite (sets up NumPy/SciPy, gmsh, pkg-config if missing)
#   make sanitize   the same suite in build-asan/ under AddressSanitizer + UBSan (Debug, -O1)
#   make bench      build and run the benchmarks that exist in build/bench/
#   make install    install into PREFIX (default /usr/local): make install PREFIX=$HOME/.local
#   make clean      remove build/ and build-asan/
#
# Variables: PYTHON (python3), PREFIX (/usr/local), JOBS (number of cores), CMAKE_ARGS (extra -D options).

PYTHON     ?= python3
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE      ?= cmake
CTEST      ?= ctest
CMAKE_ARGS ?=

# ctest runs two tests at once and each OpenMP test uses every core: with threads that sleep instead of spin
# while they wait, that oversubscription costs little (spinning made one test 5x slower on 2 cores).
TEST_ENV   := OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive}

BUILD      := build
ASAN_BUILD := build-asan
# The programs the tests run (Python with SciPy, gmsh, pkg-config), as a CMake initial cache; written by test-env.
TESTENV    := $(BUILD)/test-env.cmake

.PHONY: all run test sanitize bench install clean configure build test-env test-build sanitize-build

all: build

configure:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/pdesolve demo

# What the tests run besides the compiler and CMake: a Python with NumPy and SciPy (tests/verify), gmsh (tests/mesh
# and tests/disc mesh .geo files at test time) and pkg-config (tests/install). The script uses what is here and puts
# what is missing into build/venv from PyPI, then names all three in $(TESTENV), the builds' initial cache.
test-env:
	@sh tests/tools/setup-test-env.sh "$(BUILD)" "$(PYTHON)"

test-build: test-env
	$(CMAKE) -C $(TESTENV) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPDS_WERROR=ON $(CMAKE_ARGS)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

test: test-build
	cd $(BUILD) && $(TEST_ENV) $(CTEST) --output-on-failure -j 2

# The sanitizer build compiles what its tests run: not the benchmarks (no test runs them) and not /gpu/cuda (its tests
# need a GPU, and the sanitizers here are the host's; `make test`'s Release build compiles both with -Werror, and
# bench/gpu-check.sh runs /gpu/cuda's tests under compute-sanitizer on a GPU machine).
# -O1 (with -g): what the sanitizers' documentation recommends for speed; at -O0 the suite took 761 s instead of 419
# on CI's 2 cores, for 63 s more build.
sanitize-build: test-env
	$(CMAKE) -C $(TESTENV) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
	  -DPDS_SANITIZE=ON -DPDS_WERROR=ON -DPDS_BUILD_BENCH=OFF -DPDS_ENABLE_CUDA=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

# PDS_TEST_SMALL=1: the tests that take it (t302, t303, td12, td13) run their smaller sizes, as under
# compute-sanitizer: the same code paths, a fifth of the time in a Debug + ASan build (the Release run checks the sizes)
sanitize: sanitize-build
	cd $(ASAN_BUILD) && $(TEST_ENV) PDS_TEST_SMALL=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(CTEST) --output-on-failure -j 2

# Runs every executable that bench/CMakeLists.txt put in build/bench/; with none built yet it says so.
bench: build
	@found=0; for b in $(BUILD)/bench/*; do \
	  if [ -f "$$b" ] && [ -x "$$b" ]; then found=1; echo "== $$b"; "$$b" || exit 1; fi; \
	done; \
	[ $$found = 1 ] || echo "make: no benchmark executables in $(BUILD)/bench/ yet"

install: build
	$(CMAKE) --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
