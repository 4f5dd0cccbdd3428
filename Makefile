# tenderflow's two commands: `make demo` (the whole pipeline end to end on the embedded defaults)
# and `make test` (the whole suite). Both install whatever is missing first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tesseract languages a tender pipeline reads (plus osd: orientation and script detection).
OCR_LANGUAGES := eng deu fra spa ita por nld pol ara hin osd
# What the pipeline needs (the demo installs only these); the tests add a browser for the dashboard.
RUNTIME_APT := tesseract-ocr $(addprefix tesseract-ocr-,$(OCR_LANGUAGES)) poppler-utils util-linux
TEST_APT := $(RUNTIME_APT) chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test lint typecheck unit runtime-deps system-deps install install-runtime bench chaos clean lock

demo: runtime-deps install-runtime
	$(BIN)/tenderflow demo

test: system-deps install lint typecheck unit

unit: system-deps install
	$(BIN)/pytest -q -p no:cacheprovider

lint: install
	$(BIN)/ruff check tenderflow tests bench
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# apt packages, installed only when a tool or a language pack is missing: $(1) the programs to look
# for, $(2) the packages. Tesseract with the OCR_LANGUAGES packs (English, German, French, Spanish,
# Italian, Portuguese, Dutch, Polish, Arabic, Hindi, orientation/script data), poppler, prlimit.
define apt_if_missing
	@need=""; \
	for tool in $(1); do command -v $$tool >/dev/null 2>&1 || need=1; done; \
	if [ -z "$$need" ]; then \
	  for lang in $(OCR_LANGUAGES); do tesseract --list-langs 2>/dev/null | grep -qx $$lang || need=1; done; \
	fi; \
	if [ -n "$$need" ]; then \
	  echo "installing $(2)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(2); \
	fi
endef

runtime-deps:
	$(call apt_if_missing,tesseract pdftoppm pdftotext pdfinfo prlimit,$(RUNTIME_APT))

system-deps:
	$(call apt_if_missing,tesseract pdftoppm pdftotext pdfinfo prlimit chromium,$(TEST_APT))

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

bench: system-deps install
	$(BIN)/python bench/queue_drain.py
	$(BIN)/python bench/queue_latency.py

# Issue 11: 1,000 documents without faults, then with them (SIGKILLed workers, PostgreSQL restarts,
# S3 stopped, the API killed, LLM faults); the checker's JSON line last. CHAOS_ARGS="--seed 2" etc.
chaos: system-deps install
	$(BIN)/python bench/chaos.py $(CHAOS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
