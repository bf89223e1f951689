# Two entry points: `make run` (set up, then a small sweep on the embedded default) and
# `make test` (set up, then the offline test suite). Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-8)
SWEEP ?= recommender=popularity,bm25,dense

.PHONY: setup run test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: it is a local CPU wheel here; letting pip resolve it pulls CUDA.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[test]"
	rm -f $(VENV)/.installed-* && touch $(STAMP)

run: setup
	$(BIN)/crsim run -m $(SWEEP)

test: setup
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python scripts/bench_episodes.py

clean:
	rm -rf $(VENV) outputs
