# The two commands the README promises: `make book` and `make test`.
# Both need Python 3.11+ (with venv), make and npm. Both install graphviz (the book draws trees with its `dot`), and `make test`
# also Chromium and R's rpart, with apt-get unless one is on the path. The first run creates .venv and installs the package
# and its tools.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
BOOK := nbs/_build/html
# MathJax for offline equations (npm, package.json), Chromium for the browser tests and R's rpart for the
# rpart oracle tests (Debian packages)
MATHJAX := node_modules/mathjax/es5/tex-chtml.js
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup export check-export check-width test test-notebooks test-suites book book-html mathjax graphviz chromium rpart tags readme clean

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

# Code that reads on the page: no line of any notebook's code past 88 characters (the page shows 88).
check-width: setup
	$(BIN)/python tools/check_width.py

# Every notebook's tests, with nbdev (two at a time; no book). `make test` does not need this: the book
# build below runs every notebook once, and a failing cell fails it (tools/check_build.py).
test-notebooks: setup
	$(BIN)/nbdev_test --n_workers 2 --timing

# Two processes (pytest-xdist), each given whole files: a file's fixtures (R's fits, the browser) are set up once
test-suites: setup
	$(BIN)/python -m pytest tests -q -n 2 --dist loadfile

# The book build is the notebooks' test: every chapter runs once, from scratch (two at a time), and a cell that raises
# (a failing assertion included) fails book-html. The suites then check the configuration, the README
# and the package's properties, and the browser test reads the book that book-html just built.
test: BOOK_JOBS = 2
test: check-export check-width book-html chromium rpart test-suites

tags: setup
	$(BIN)/python tools/nbtags.py nbs

# README.md from nbs/index.ipynb, with what its snippets print (they run in a fresh process)
readme: setup
	$(BIN)/python tools/readme.py nbs/index.ipynb README.md

book: export tags book-html readme
	@echo
	@echo "The book is built: open $(CURDIR)/$(BOOK)/index.html"

# The HTML book from the notebooks as they are (`make test` builds this one: it does not retag).
# .book-ok, stamped with the build's start, tells the browser test that this build is fresh.
# BOOK_JOBS chapters run at once (tools/build_book.py): one for `make book`, so that the timings the book publishes have
# the machine to themselves; two for `make test`, one per core of a 2-core machine, where the build is a test.
BOOK_JOBS ?= 1
book-html: setup mathjax graphviz
	rm -rf nbs/_build
	mkdir -p nbs/_build && touch nbs/_build/.build-started
	set -o pipefail; $(BIN)/python tools/build_book.py $(BOOK_JOBS) nbs --all --keep-going 2>&1 | tee nbs/_build/build.log
	$(BIN)/python tools/check_build.py $(BOOK) nbs/_build/build.log
	mv nbs/_build/.build-started nbs/_build/.book-ok

mathjax: $(MATHJAX)

$(MATHJAX): package.json package-lock.json
	@echo "==> installing MathJax (npm ci) so that the book renders equations offline"
	npm ci --no-audit --no-fund
	@touch $@

# graphviz's `dot` turns the DOT text of `export_graphviz` into the SVG drawings of chapter 13
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  echo "==> installing graphviz (Debian package) for the book's tree drawings (dot)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq graphviz >/dev/null; }

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "==> installing Chromium (Debian package) for the browser tests"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

rpart:
	@command -v Rscript >/dev/null 2>&1 && Rscript -e 'library(rpart)' >/dev/null 2>&1 || { \
	  echo "==> installing R and rpart (Debian packages r-base-core, r-cran-rpart) for the rpart oracle tests"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq r-base-core r-cran-rpart >/dev/null; }

clean:
	rm -rf nbs/_build _proc _docs .pytest_cache tests/screenshots
