# Set-up, build and test in one command each. `make demo` and `make test` install missing Debian
# packages with apt-get, configure with CMake and build; see README.md.

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# make test runs the sanitizer tier too; ASAN=0 skips it. It runs the WebAssembly tier (make web-test) too; WEB=0
# skips that.
ASAN       ?= 1
WEB        ?= 1
# Warnings are errors in the test build (CI).
WERROR     ?= ON

PACKAGES := cmake ninja-build g++ make libcli11-dev libtomlplusplus-dev libfmt-dev libboost-dev catch2 bsdutils
# zsh and fish: the completion tests load the generated scripts in each shell.
OPTIONAL_PACKAGES := libxlsxwriter-dev libbenchmark-dev libopenblas-dev zlib1g-dev zsh fish

CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release
# A new build folder is configured for Ninja when it is installed (the deps step installs it): Ninja compiles a
# layer's files while the layer below it still links, where Make waits for each library in turn (docs/PERFORMANCE.md).
# A folder keeps the generator it was configured with. Recursively expanded: it looks after deps has run.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja 2>/dev/null),-G Ninja,))

FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps build demo test unit asan asan-build bench fuzz coverage web web-test browser-test clean

all: build

# Installs what is missing (apt-get update first, as a fresh machine needs). Uses sudo when not root.
deps:
	@missing=""; for p in $(PACKAGES) $(OPTIONAL_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) $(CMAKE_FLAGS) -DINFRACALC_WERROR=$(WERROR)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS) --target infracalc
	./examples/demo.sh $(BUILD)/bin/infracalc

unit: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The sanitizer tier compiles at -O1 with line tables only (-g1): what ASan's documentation recommends for
# usable stack traces, at a third of the compile time of -O2 -g. The GPU tool is left out (no GPU code runs
# under the sanitizers).
ASAN_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
              -DINFRACALC_SANITIZE=ON -DINFRACALC_CUDA=OFF

asan-build: deps
	cmake -S . -B $(ASAN_BUILD) $(call generator,$(ASAN_BUILD)) $(ASAN_FLAGS) -DINFRACALC_WERROR=$(WERROR)
	cmake --build $(ASAN_BUILD) -j$(JOBS)

asan: asan-build
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

test: unit
	@if [ "$(WEB)" = "1" ]; then $(MAKE) --no-print-directory web-test browser-test; fi
	@if [ "$(ASAN)" = "1" ]; then $(MAKE) --no-print-directory asan; fi

bench: deps
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) $(CMAKE_FLAGS) -DINFRACALC_BENCH=ON
	cmake --build $(BUILD) -j$(JOBS)
	./bench/run.sh $(BUILD)

# Line coverage of every layer below cli/ (units/ to plan/) under the whole test suite, with gcov
# and gcovr (Debian packages); the summary and build-cov/coverage.txt give the figure per file and in total.
COV_BUILD ?= build-cov
coverage: deps
	@dpkg -s gcovr >/dev/null 2>&1 || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends gcovr; }
	cmake -S . -B $(COV_BUILD) $(call generator,$(COV_BUILD)) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g0 --coverage -fprofile-update=atomic" \
	  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DINFRACALC_CUDA=OFF -DINFRACALC_WERROR=OFF
	cmake --build $(COV_BUILD) -j$(JOBS)
	find $(COV_BUILD) -name '*.gcda' -delete
	cd $(COV_BUILD) && ctest -j$(JOBS) --timeout 1800
	gcovr --root . --object-directory $(COV_BUILD) --filter 'units/' --filter 'documents/' --filter 'catalog/' --filter 'host/' --filter 'plugins/' \
	  --filter 'validation/' --filter 'plan/' --exclude 'plugins/decode/cuda/' --exclude-unreachable-branches --gcov-ignore-parse-errors \
	  --print-summary --txt $(COV_BUILD)/coverage.txt -j$(JOBS)

# libFuzzer with ASan/UBSan (clang-14 and libclang-rt-14-dev from Debian); each target runs FUZZ_SECONDS,
# starting from the seed corpus in tests/fuzz/corpus/<target>/ (new inputs go to build-fuzz/corpus/).
fuzz: deps
	@dpkg -s clang-14 libclang-rt-14-dev >/dev/null 2>&1 || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq clang-14 libclang-rt-14-dev; }
	cmake -S . -B $(FUZZ_BUILD) $(call generator,$(FUZZ_BUILD)) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DINFRACALC_FUZZ=ON -DINFRACALC_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	./tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The WebAssembly engine (issue 25): units/ to plugins/ and the batch record of plan/, built with Debian's emscripten
# (its system libraries come prebuilt in the package) into $(WEB_BUILD)/infracalc_engine.{js,wasm} and the page
# $(WEB_BUILD)/site/; the generator of the embedded catalog is the native build's when it exists (make test), else it
# is built natively inside. `make web-test` checks the engine's result line for every calculator against the native
# `infracalc batch` (tests/web/).
WEB_BUILD ?= build-web
web: deps
	@dpkg -s emscripten >/dev/null 2>&1 || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends emscripten; }
	@test -f $(WEB_BUILD)/CMakeCache.txt || emcmake cmake -S web -B $(WEB_BUILD) $(call generator,$(WEB_BUILD)) -DCMAKE_BUILD_TYPE=Release \
	  $(if $(wildcard $(BUILD)/infracalc_embed_data),-DINFRACALC_EMBED_DATA_TOOL=$(abspath $(BUILD)/infracalc_embed_data))
	cmake --build $(WEB_BUILD) -j$(JOBS)

web-test: web build
	node tests/web/engine_test.mjs $(WEB_BUILD)/infracalc_engine.js $(BUILD)/bin/infracalc tests/golden $(WEB_BUILD)/site/index.html
	node tests/web/plan_engine_test.mjs $(WEB_BUILD)/infracalc_engine.js $(BUILD)/bin/infracalc examples

# The page in a real browser: Debian's chromium, headless, driven over its DevTools pipe by tests/web/browser_test.mjs
# (no npm package). It moves every control of every widget, and of the what-if panel of each BROWSER_PLAN's report (a
# serving, a training and a site plan), by keyboard and compares the numbers shown with the native binary's; it writes
# the README's screenshot to $(WEB_BUILD)/screenshot.png.
BROWSER_PLAN ?= examples/llama3-70b-h100.toml examples/llama3-405b-train-16k-h100.toml examples/site-100mw.toml
browser-test: web build
	@dpkg -s chromium >/dev/null 2>&1 || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium; }
	node tests/web/browser_test.mjs --chromium /usr/bin/chromium --site $(WEB_BUILD)/site/index.html \
	  --infracalc $(BUILD)/bin/infracalc $(foreach p,$(BROWSER_PLAN),--plan $(p)) --screenshot $(WEB_BUILD)/screenshot.png

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(WEB_BUILD)
