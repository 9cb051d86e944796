# dmlkit: `make demo` and `make test` do all the set-up on a fresh Debian machine.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
DEMO_OUT ?= out/demo

.PHONY: all deps configure build demo test bench tsan install clean

all: build

deps:
	bash scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/bin/dmlkit cluster compare --workload pollux-6 --cluster 16x4 \
	  --policies fifo,srtf,drf,tetris,tiresias --seed 1 --out $(DEMO_OUT)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

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
