# dmlkit: `make demo` and `make test` do all the set-up on a fresh Debian machine.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
DEMO_OUT ?= out/demo

# CI (CI=true) turns warnings into errors: the build stays at zero (cmake/DmlkitBuild.cmake).
CMAKE_FLAGS ?= $(if $(CI),-DDMLKIT_WERROR=ON)
# ctest's arguments: `make test CTEST_ARGS="-L quick"` is the half-minute smoke run.
CTEST_ARGS ?=

.PHONY: all deps deps-demo configure build demo test test-quick bench tsan install clean build-budget \
        format format-check

all: build

deps:
	bash scripts/install-deps.sh

# Only what the demo needs to build and run (no test frameworks, libtorch, Python, Slurm, browser).
deps-demo:
	bash scripts/install-deps.sh --demo

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

# Configured again after `deps`: what `make demo` did not install (GoogleTest, libtorch, Python)
# is found then, and the suites and plugins appear.
configure: deps
	cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo builds only the program (no tests, benchmarks, plugins or Python module), then runs.
demo: deps-demo $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target dmlkit
	$(BUILD_DIR)/bin/dmlkit cluster compare --workload pollux-6 --cluster 16x4 \
	  --policies fifo,srtf,drf,tetris,tiresias --seed 1 --out $(DEMO_OUT)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

test-quick: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L quick

# Every C++ file as the repository's .clang-format writes it (clang-format 14); `make test` checks.
format-check:
	bash scripts/format-check.sh

format:
	bash scripts/format-check.sh --fix

# The 20 slowest translation units of the last build and the seconds per part of the tree.
build-budget:
	bash scripts/build-budget.sh $(BUILD_DIR)

bench: build
	bash bench/run.sh $(BUILD_DIR)

# ThreadSanitizer: the `tsan` preset (CMakePresets.json) in build-tsan/, then the suites that run
# without libtorch (docs/testing.md). TSAN_TESTS picks the suites, TSAN_FILTER a gtest filter.
TSAN_TESTS ?= test_core test_cluster test_comm test_influence
TSAN_FILTER ?= *
tsan:
	cmake --preset tsan
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)
	for t in $(TSAN_TESTS); do \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $(TSAN_OPTIONS)" \
	    build-tsan/tests/$$t --gtest_filter='$(TSAN_FILTER)' || exit 1; \
	done

# Installs the program, its data and presets, the bash completion and the man page under PREFIX
# (default /usr/local); DESTDIR stages it (packaging). The installed program finds its data beside
# itself (PREFIX/share/dmlkit/data), or $$DMLKIT_DATA_DIR.
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix $(PREFIX)
	@echo "installed under $(DESTDIR)$(PREFIX)"

clean:
	rm -rf $(BUILD_DIR)
