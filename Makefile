# The two commands the README promises: `make book` and `make test`.
# Both start from nothing but Python 3.11: the first run creates .venv and installs everything.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
BOOK := nbs/_build/html

.PHONY: setup export check-export test test-notebooks test-suites book tags readme clean

setup: $(STAMP)

$(STAMP): pyproject.toml settings.ini
	@echo "==> creating $(VENV) and installing climbing_trees with its tools (first run only)"
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "climbing-trees needs Python 3.11 or newer, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

export: setup
	$(BIN)/nbdev_export

# The committed package must be exactly what the notebooks export.
check-export: export
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
	  drift=$$(git status --porcelain -- climbing_trees); \
	  if [ -n "$$drift" ]; then \
	    echo "climbing_trees/ differs from what nbdev_export writes from nbs/:"; echo "$$drift"; \
	    echo "Run 'make export' and commit climbing_trees/ (never edit it by hand)."; exit 1; \
	  fi; \
	  echo "==> climbing_trees/ is in sync with the notebooks"; \
	fi

test-notebooks: setup
	$(BIN)/nbdev_test --n_workers 2 --timing

test-suites: setup
	$(BIN)/python -m pytest tests -q

test: check-export test-notebooks test-suites

tags: setup
	$(BIN)/python tools/nbtags.py nbs

readme: setup
	$(BIN)/python tools/readme.py nbs/index.ipynb README.md

book: export tags
	rm -rf nbs/_build
	$(BIN)/jupyter-book build nbs --all --keep-going
	$(BIN)/python tools/check_build.py $(BOOK)
	@echo
	@echo "The book is built: open $(CURDIR)/$(BOOK)/index.html"

clean:
	rm -rf nbs/_build _proc _docs .pytest_cache
