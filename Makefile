# `make demo` and `make test` do everything on a fresh machine.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
# glibc returning freed memory to the OS costs a lot in training (DEVELOPERS.md): keep it.
export MALLOC_MMAP_MAX_ ?= 0
export MALLOC_TRIM_THRESHOLD_ ?= 100000000000

.PHONY: setup demo test browser lint format bench clean

# The attention page's tests drive Debian's chromium through Playwright (never a downloaded
# browser): only `make test` needs it, so only `test` installs it (`make demo` installs no system
# package).
CHROMIUM := $(shell command -v chromium 2>/dev/null)

$(VENV)/.done: pyproject.toml
	@echo "setup: creating $(VENV) with torch==2.13.0 and heedful[dev] (pip, into $(VENV) only)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	@echo "setup: building heedful's native kernels (heedful.native; without a C compiler, a warning)"
	$(PY) -c "import heedful.native as n; n.build()"
	touch $@

setup: $(VENV)/.done

demo: setup
	$(PY) -m heedful.demo

lint: setup
	$(VENV)/bin/ruff check src tests bench scripts
	$(VENV)/bin/ruff format --check src tests bench scripts

format: setup
	$(VENV)/bin/ruff check --fix src tests bench scripts
	$(VENV)/bin/ruff format src tests bench scripts

browser:
ifeq ($(CHROMIUM),)
	@echo "test: installing the system package chromium with apt-get (root), for the page tests"
	apt-get update -qq && apt-get install -y -qq chromium
else
	@echo "test: the page tests use $(CHROMIUM) (nothing to install)"
endif

test: lint browser
	$(PY) -m pytest -q

bench: setup
	$(PY) bench/attention.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache
