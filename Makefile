# The two commands: `make book` builds the book, `make test` runs every test.
# Both create .venv and install everything they need on a fresh machine.

PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
PY      := $(BIN)/python
STAMP   := $(VENV)/.installed
VENDOR  := _extra/_static/vendor/.stamp
# JupyterLab opens the chapters' text sources (notebooks/*.md) as notebooks, through jupytext.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export PATH := $(abspath $(BIN)):$(PATH)
export PYTHONWARNINGS :=

.PHONY: book test check colab-runtime prepare setup lab sync execute student assignments chromium unit notebooks book-strict browser js clean \
        test-colab dist zip-book screenshots recorded i18n

# The book shows the executed notebooks' stored outputs (nbval proves a fresh kernel reproduces
# them), so it first brings every notebook up to date with its .md source (make sync).
# The Chinese edition is built from the same sources and the catalogs in locales/ (scripts/i18n.py),
# beside the English one (each build uses one core), and then put at _build/html/zh.
book: sync
	@rm -rf _build/html _build/jupyter_execute _build/.doctrees _build/i18n/doctrees-zh _build/i18n/html-zh
	@$(PY) scripts/i18n.py build --no-place & zh=$$!; \
	  $(BIN)/jupyter-book build -W --keep-going --all . ; en=$$?; \
	  wait $$zh; zh=$$?; \
	  [ $$en -eq 0 ] || { echo "make book: the English build failed"; exit 1; }; \
	  [ $$zh -eq 0 ] || { echo "make book: the Chinese build failed (scripts/i18n.py build)"; exit 1; }
	$(PY) scripts/i18n.py place
	@echo "The book is at $(abspath _build/html/index.html), in Chinese at $(abspath _build/html/zh/index.html)"

# The Chinese catalogs follow the English pages (new messages added, changed ones fuzzy, gone ones
# removed); then lists what needs translating (scripts/i18n.py todo/fill, README).
i18n: setup
	$(PY) scripts/i18n.py update

# Every stage, one after the other but for the build and the Colab stage, side by side
# (scripts/test_stages.py, which runs on the system's Python: a log and the seconds of each):
# prepare, unit, notebooks, book-strict | test-colab, zip-book, browser, js. Each runs alone too.
test:
	$(PYTHON) scripts/test_stages.py
	@echo "make test: all test stages passed"

setup: $(STAMP) $(VENDOR) $(LAB_SETTINGS)

# What the stages need, installed side by side (make -j4 prepare, test_stages.py's first step):
# they wait on the network and the disk more than on the cores. On a fresh machine the venv,
# npm's packages and Debian's Chromium are ready while Colab's runtime still downloads (3 GB).
prepare: setup chromium colab-runtime

# uv installs the pins (about 26 s here, pip 75 s: it unpacks and byte-compiles on every core);
# a find-links folder set for pip (PIP_FIND_LINKS, such as one holding torch's CPU wheel) is used too.
UV      := $(BIN)/uv pip install -q --python $(PY) --compile-bytecode $(if $(PIP_FIND_LINKS),--find-links $(PIP_FIND_LINKS))
# The venv with uv alone comes first: Colab's runtime needs no more to start building (prepare).
UV_STAMP := $(VENV)/.uv
$(UV_STAMP):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q uv==0.13.9
	touch $@

$(STAMP): requirements.txt pyproject.toml | $(UV_STAMP)
	$(UV) -r requirements.txt
	$(UV) --no-deps -e .
	touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

$(VENDOR): node_modules/.package-lock.json scripts/vendor_widget_js.py scripts/vendor/widgets-config.js | $(STAMP)
	$(PY) scripts/vendor_widget_js.py
	touch $@

chromium:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# --dist loadfile: a test file runs on one worker, so the grading modules' expensive module fixtures
# (a grading run, otter run) are built once (with plain -n 2 both workers built them). Those
# modules are collected first (tests/conftest.py). pytest-xdist 3.8's loadgroup does nothing under
# pytest 9 (it renames nodeid, which pytest 9 no longer reads).
unit: setup
	$(PY) -m pytest -q -p no:cacheprovider --durations=20 -n 2 --dist loadfile --ignore=tests/browser --ignore=tests/colab tests

# The contributor's loop: the tests a change can break, for the pages changed since main (or
# PAGES="03-2-view-or-copy intro"). About 2 minutes for one page; make test is the full gate.
check: setup chromium
	$(PY) scripts/check.py $(PAGES)

# Each notebook in a fresh kernel, forked from one that has imported torch and ipykernel (about
# 3 CPU-seconds a notebook less; tests/kernel_zygote.py, tests/test_kernel_zygote.py), listening
# on unix sockets rather than TCP ports another process could take (tests/nbval_unix_sockets.py).
# Three workers on two cores: a kernel waits on its client between cells (measured: 77 s against 90 s).
notebooks: setup
	$(PY) tests/kernel_zygote.py run -- $(PY) -m pytest -q -p no:cacheprovider --durations=20 --nbval notebooks \
	    -p tests.nbval_unix_sockets --ignore=notebooks/zh --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=300 -n 3 --dist loadfile

book-strict: book

# Three workers on two cores: a page test waits on the page (loads, requests going quiet, axe's
# promise) much of the time, so a third keeps the cores busy (measured: 449 s against 550 s).
browser: setup chromium
	$(PY) -m pytest -q -p no:cacheprovider --durations=20 -n 3 tests/browser

js: setup
	node --test tests/js/

# The page tests in Chromium, keeping a full-page screenshot of every page in _build/screenshots/.
# (Chinese pages need a CJK font to be read in them: Debian's fonts-noto-cjk, installed when missing.)
screenshots: setup chromium
	@fc-list :lang=zh | grep -q . || { $(SUDO) apt-get update && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-noto-cjk; }
	TENSOR_VIEWS_SCREENSHOTS=1 $(PY) -m pytest -q -p no:cacheprovider -n 2 tests/browser/test_accessibility.py

# Every chapter on Colab's stack (tests/colab/stack.txt), tensorlens installed by the setup cell
# from a wheel of this checkout. Needs Python 3.13; the stack is cached in ~/.cache/tensor-views
# (about 6 GB: torch's CUDA build), so only the first run downloads it (about 3 GB).
test-colab: setup
	$(PY) -m pytest -q -p no:cacheprovider --durations=20 tests/colab

# The outputs the book shows as recorded (Inductor on the CPU in 09-4), re-run and re-checked
# against what the prose says of them: minutes, so not part of make test.
recorded: setup
	$(PY) scripts/check_recorded_outputs.py

# Colab's runtime in the cache (built only when tests/colab/stack.txt changed), ahead of test-colab.
colab-runtime: | $(UV_STAMP)
	$(PY) tests/colab/colab_runtime.py

# The built book as one zip, readable offline: unzip it and open tensor-views/index.html.
dist: book
	@$(MAKE) --no-print-directory zip-book

zip-book:
	$(PY) scripts/make_dist.py _build/html dist/tensor-views-html.zip

lab: setup
	$(BIN)/jupyter lab $(if $(SUDO),,--allow-root) notebooks

$(LAB_SETTINGS): scripts/lab-overrides.json $(STAMP)
	mkdir -p $(@D) && cp $< $@

# Regenerate each chapter's .ipynb from its text source and execute it, only where they differ;
# then the Chinese notebooks (notebooks/zh: markdown from the catalogs, the same code but for the
# setup cell's stated lines, check reports rendered in Chinese).
sync: setup
	$(PY) scripts/sync_notebooks.py
	$(PY) scripts/zh_notebooks.py

# The same for every chapter, changed or not (after a change to tensorlens).
execute: setup
	$(PY) scripts/sync_notebooks.py --all
	$(PY) scripts/zh_notebooks.py

# Class material in English, or with EDITION=zh in Chinese (from notebooks/zh, into dist/*-zh).
EDITION ?= en
CLASS_SRC := $(if $(filter zh,$(EDITION)),notebooks/zh,notebooks)
CLASS_SUFFIX := $(if $(filter zh,$(EDITION)),-zh,)
student: setup
	$(PY) -m tensorlens.classroom.student $(CLASS_SRC) dist/student$(CLASS_SUFFIX)

# An Otter-Grader assignment per chapter: student notebook, tests, Gradescope autograder.zip.
assignments: setup
	$(PY) -m tensorlens.classroom.assignments $(CLASS_SRC) dist/assignments$(CLASS_SUFFIX)

clean:
	rm -rf _build _extra dist
