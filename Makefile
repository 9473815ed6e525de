# blanket: development tasks. Every target sets itself up on a fresh machine:
# it creates $(VENV) and installs the package (editable) with its dev tools.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo docs lint matrix stress dist smoke cookbook clean bench bench10 realbugs

# Create the virtual environment and install blanket with the [dev] extra;
# redone whenever the packaging files change.
$(STAMP): pyproject.toml setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

# Run the whole suite under branch coverage (the report fails the target
# under 100%) and, at the same time in other workers, with typeguard checking
# blanket's annotations; then the README's ScenarioTestCase module under
# pytest. The test modules are shared out among $(JOBS) worker processes at a
# time (0: one per core), each replaced by a fresh one after 30 s of modules
# and given to the pass with the most left; each module done prints a line.
JOBS ?= 0
test: $(STAMP)
	$(BIN)/python -m coverage erase
	$(BIN)/python -m coverage run --parallel-mode -m tests -j $(JOBS) --typeguard-beside
	$(BIN)/python -m coverage combine --quiet
	$(BIN)/python -m coverage report
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_readme_testcase.py

# Show plain threading vs blanket on a three-thread lock race, then
# exploration finding five classic bugs and four data races.
demo: $(STAMP)
	$(BIN)/python examples/demo.py
	$(BIN)/python examples/explore_bugs.py

# Build the HTML documentation from scratch (-E: a warning in a page left
# unchanged since the last build is not lost); any Sphinx warning is an error.
docs: $(STAMP)
	$(BIN)/python -m sphinx -E -W --keep-going -b html docs docs/_build/html

# Style, import order and strict typing checks.
lint: $(STAMP)
	$(BIN)/python -m ruff check blanket tests stress bench examples/cookbook
	$(BIN)/python -m mypy

# The interpreter matrix: the pyenv builds of 3.11, 3.12 and 3.13, and
# CPython 3.13 built with the GIL disabled (built once per machine when absent).
PYENV_ROOT ?= /root/.pyenv
FT_PYTHON ?= /opt/py313t/bin/python3.13t
FT_BUILDER ?= $(abspath $(firstword $(wildcard ../shared/tools/free-threaded-python /work/shared/tools/free-threaded-python) ../shared/tools/free-threaded-python))
MATRIX ?= 3.11 3.12 3.13 3.13t

$(FT_PYTHON):
	PREFIX=$(patsubst %/bin/python3.13t,%,$(FT_PYTHON)) $(FT_BUILDER)

# The interpreter for version $(1): the free-threaded build or a pyenv one.
interpreter = $(if $(filter 3.13t,$(1)),$(FT_PYTHON),$(lastword $(sort $(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python$(1)))))

# A virtual environment per interpreter with blanket installed in it, and
# pytest (with pytest-xdist) for the tests of the pytest plugin.
.venv-%/.installed: pyproject.toml setup.cfg | $(FT_PYTHON)
	$(call interpreter,$*) -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-$*/bin/python -m pip install --quiet -e '.[pytest]'
	touch $@

# The whole suite under every interpreter of the matrix.
matrix: $(foreach v,$(MATRIX),.venv-$(v)/.installed)
	@for v in $(MATRIX); do \
	  echo "== python $$v"; \
	  if .venv-$$v/bin/python -m tests -j $(JOBS) >.venv-$$v/suite.log 2>&1; \
	  then tail -n 2 .venv-$$v/suite.log; \
	  else tail -n 60 .venv-$$v/suite.log; echo "python $$v: the suite failed"; exit 1; fi; \
	done

# The scripted scenarios and the README's and tutorial's scripts, 1000 times
# each on the free-threaded build with the other cores kept busy (fails on
# the first run whose order, output or log differs), after 5,000 scenarios
# in a loop whose memory must not grow by 5 MB (stress/memory.py).
STRESS_RUNS ?= 1000
stress: .venv-3.13t/.installed
	.venv-3.13t/bin/python -m stress.memory
	.venv-3.13t/bin/python -m stress --runs $(STRESS_RUNS) --load

# The cookbook of concurrency bugs (examples/cookbook), each buggy and fixed
# version under its test: on 3.11 (.venv) and on the free-threaded 3.13t.
COOKBOOK_TESTS := -m unittest discover -s examples/cookbook -t examples
cookbook: $(STAMP) .venv-3.13t/.installed
	$(BIN)/python $(COOKBOOK_TESTS)
	.venv-3.13t/bin/python $(COOKBOOK_TESTS)

# The benchmarks of issue #7 (timings, not tests): every figure with its
# target. BENCH_PYTHON=3.13t (or 3.12, ...) runs them in that interpreter's
# .venv-$(BENCH_PYTHON); blanket 1.0's figures are printed alongside once
# `make bench10` (same BENCH_PYTHON) has built its environment.
BENCH_PYTHON ?=
BENCH_ARGS ?=
BENCH_VENV := $(if $(BENCH_PYTHON),.venv-$(BENCH_PYTHON),$(VENV))
BENCH10_VENV := .venv-bench10-$(or $(BENCH_PYTHON),3.11)
bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m bench $(if $(wildcard $(BENCH10_VENV)/.installed),--blanket10 $(BENCH10_VENV)/bin/python) $(BENCH_ARGS)

# An environment with blanket 1.0 (and its dependencies) from PyPI, for
# `make bench` to measure side by side; never used by anything else.
bench10: $(BENCH10_VENV)/.installed
.venv-bench10-%/.installed: | $(FT_PYTHON)
	$(call interpreter,$*) -m venv .venv-bench10-$*
	.venv-bench10-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-bench10-$*/bin/python -m pip install --quiet 'blanket==1.0'
	touch $@

# The corpus of documented thread-safety bugs in released libraries
# (wip/realbugs): installs the pinned buggy and fixed versions, then runs every
# case under dfs on 3.11 and 3.13t, each written test 3 times as a user runs it;
# the table goes to wip/realbugs/table-corpus.txt.
realbugs:
	wip/realbugs/setup_libs.sh
	cd wip/realbugs && $(PYTHON) run.py --blanket $(CURDIR) --pythons 3.11,3.13t --strategies dfs \
	  -j 2 --run-timeout 120 --json out-corpus.json >table-corpus.txt
	cat wip/realbugs/table-corpus.txt

# The audit corpus (wip/audit): `python -m blanket audit` on real classes of the standard
# library and of released libraries (pinned in wip/audit/requirements.txt, installed into
# a venv per interpreter), on 3.11 and 3.13t; each failure's tests run 3 times as a user
# runs them. The table goes to wip/audit/table.txt.
AUDIT_PYTHONS ?= 3.11 3.13t
.PHONY: audit-corpus
wip/audit/venv-%/.installed: wip/audit/requirements.txt | $(FT_PYTHON)
	$(call interpreter,$*) -m venv wip/audit/venv-$*
	wip/audit/venv-$*/bin/python -m pip install --quiet -r wip/audit/requirements.txt
	touch $@
audit-corpus: $(foreach v,$(AUDIT_PYTHONS),wip/audit/venv-$(v)/.installed)
	for v in $(AUDIT_PYTHONS); do \
	  wip/audit/venv-$$v/bin/python wip/audit/run.py --blanket $(CURDIR) --label $$v || status=1; \
	done >wip/audit/table.txt; cat wip/audit/table.txt; exit $${status:-0}

# An sdist and a wheel in dist/.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# Install the wheel into a clean virtual environment of each interpreter of
# the matrix and run examples/smoke.py against the installed package.
define smoke_one
	rm -rf .venv-smoke-$(1)
	$(call interpreter,$(1)) -m venv .venv-smoke-$(1)
	.venv-smoke-$(1)/bin/python -m pip install --quiet dist/*.whl
	cd examples && ../.venv-smoke-$(1)/bin/python smoke.py

endef
smoke: dist | $(FT_PYTHON)
	$(foreach v,$(MATRIX),$(call smoke_one,$(v)))

# Remove the virtual environment and everything built or measured.
clean:
	rm -rf $(VENV) .venv-* build dist *.egg-info docs/_build htmlcov .coverage .coverage.*
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
