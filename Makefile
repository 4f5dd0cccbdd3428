# tenderflow's two commands: `make demo` (the whole pipeline end to end on the embedded defaults)
# and `make test` (the whole suite). Both install whatever is missing first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tesseract languages a tender pipeline reads (plus osd: orientation and script detection).
OCR_LANGUAGES := eng deu fra spa ita por nld pol ara hin osd
APT_PACKAGES := tesseract-ocr $(addprefix tesseract-ocr-,$(OCR_LANGUAGES)) poppler-utils chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test lint typecheck unit system-deps install bench clean

demo: system-deps install
	$(BIN)/tenderflow demo

test: system-deps install lint typecheck unit

unit: system-deps install
	$(BIN)/pytest -q -p no:cacheprovider

lint: install
	$(BIN)/ruff check tenderflow tests bench
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# System packages: tesseract (with the OCR_LANGUAGES packs: English, German, French, Spanish, Italian,
# Portuguese, Dutch, Polish, Arabic, Hindi, and orientation/script data) and poppler.
system-deps:
	@need=""; \
	for tool in tesseract pdftoppm pdftotext pdfinfo chromium; do command -v $$tool >/dev/null 2>&1 || need=1; done; \
	if [ -z "$$need" ]; then \
	  for lang in $(OCR_LANGUAGES); do tesseract --list-langs 2>/dev/null | grep -qx $$lang || need=1; done; \
	fi; \
	if [ -n "$$need" ]; then \
	  echo "installing $(APT_PACKAGES)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(APT_PACKAGES); \
	fi

# The package and its dev tools in a virtualenv; redone when pyproject.toml changes.
install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

bench: system-deps install
	$(BIN)/python bench/queue_drain.py
	$(BIN)/python bench/queue_latency.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
