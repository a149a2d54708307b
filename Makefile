# Makefile: the short way in. Everything here is plain CMake underneath; see the README.
#
#   make run        configure (Release) into build/, build, run `pdesolve demo`
#   make test       build with -Werror and run the whole test suite (sets up NumPy/SciPy if missing)
#   make sanitize   the same suite in build-asan/ under AddressSanitizer + UBSan (Debug)
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
VENV       := $(BUILD)/venv
# The interpreter the verification tests use; written by the python-env target.
PYFILE     := $(BUILD)/python-for-tests

.PHONY: all run test sanitize bench install clean configure build python-env test-build sanitize-build

all: build

configure:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/pdesolve demo

# The tests need NumPy and SciPy (tests/verify compares against SciPy). Use $(PYTHON) if it has them,
# else a virtual environment in build/venv filled from PyPI.
python-env:
	@mkdir -p $(BUILD)
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
	  echo "make: '$(PYTHON)' not found. Install Python 3 (Debian/Ubuntu: apt-get install python3 python3-venv)," \
	       "or point PYTHON= at one that has NumPy and SciPy." >&2; exit 1; }
	@if $(PYTHON) -c 'import numpy, scipy' 2>/dev/null; then \
	  $(PYTHON) -c 'import sys; print(sys.executable)' > $(PYFILE); \
	elif $(VENV)/bin/python -c 'import numpy, scipy' 2>/dev/null; then \
	  echo "$(CURDIR)/$(VENV)/bin/python" > $(PYFILE); \
	else \
	  echo "make: $(PYTHON) has no SciPy; installing NumPy and SciPy from PyPI into $(VENV)"; \
	  { $(PYTHON) -m venv $(VENV) && $(VENV)/bin/python -m pip --version >/dev/null 2>&1; } || { \
	    echo "make: could not create a virtual environment in $(VENV). Install the venv module" \
	         "(Debian/Ubuntu: apt-get install python3-venv) or NumPy and SciPy themselves" \
	         "(apt-get install python3-numpy python3-scipy), then run make test again." >&2; \
	    rm -rf $(VENV); exit 1; }; \
	  $(VENV)/bin/python -m pip install --quiet numpy scipy || { \
	    echo "make: pip could not install numpy and scipy into $(VENV) (no network?)." \
	         "Install python3-numpy and python3-scipy instead, then run make test again." >&2; exit 1; }; \
	  echo "$(CURDIR)/$(VENV)/bin/python" > $(PYFILE); \
	fi
	@echo "make: tests use Python $$(cat $(PYFILE))"

test-build: python-env
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPDS_WERROR=ON \
	  -DPDS_PYTHON="$$(cat $(PYFILE))" $(CMAKE_ARGS)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

test: test-build
	cd $(BUILD) && $(TEST_ENV) $(CTEST) --output-on-failure -j 2

sanitize-build: python-env
	$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPDS_SANITIZE=ON -DPDS_WERROR=ON \
	  -DPDS_PYTHON="$$(cat $(PYFILE))" $(CMAKE_ARGS)
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

sanitize: sanitize-build
	cd $(ASAN_BUILD) && $(TEST_ENV) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
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
