# paperlib: `make reproduce` rebuilds every figure, `make test` runs the tests.
# Needs only Python 3.11 and pip: the first target bootstraps .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test check-citation check-results check-archive reproduce smoke codegen check-codegen bench clean-venv kernel container

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "paperlib needs Python 3.11, found " + sys.version'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m ipykernel install --prefix $(VENV) --name paperlib --display-name "paperlib (Python 3.11)" > /dev/null
	touch $(STAMP)

kernel: $(STAMP)

# pytest on both cores: two workers (pytest-xdist), each taking whole test files (module fixtures built once),
# in the collection order (tests/conftest.py puts the longest files first). TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(PY) -m paperlib.codegen --check
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# the checks of a build's results (after make reproduce or make smoke); fails when nothing is built
# CITATION.cff against the Citation File Format schema, by cffconvert itself (its own venv: it pins jsonschema < 4)
check-citation:
	test -x .venv-cff/bin/cffconvert || ($(PYTHON) -m venv .venv-cff && .venv-cff/bin/pip install -q cffconvert==2.0.0)
	.venv-cff/bin/cffconvert --validate -i CITATION.cff

check-results: $(STAMP)
	$(PY) -m pytest -q -m results tests/results

# every room built from its twin, released, rebuilt from the release with the twin forbidden (~15 min)
check-archive: $(STAMP)
	$(PY) -m pytest -q -m archive tests/contracts/test_archive_roundtrip.py

codegen: $(STAMP)
	$(PY) -m paperlib.codegen

check-codegen: $(STAMP)
	$(PY) -m paperlib.codegen --check

bench: $(STAMP)
	$(VENV)/bin/paperlib bench --json

reproduce: $(STAMP)
	$(VENV)/bin/paperlib reproduce --cores 2

smoke: $(STAMP)
	$(VENV)/bin/paperlib reproduce --cores 2 --config config/smoke.yaml

# the compendium's container image, built from a debootstrapped Debian 12 base and checked (container/build)
container:
	bash container/build

clean-venv:
	rm -rf $(VENV)
