# blanket: development tasks. Every target sets itself up on a fresh machine:
# it creates $(VENV) and installs the package (editable) with its dev tools.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo docs lint clean

# Create the virtual environment and install blanket with the [dev] extra;
# redone whenever the packaging files change.
$(STAMP): pyproject.toml setup.cfg
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@

# Run the whole suite under branch coverage (typeguard checks blanket's
# annotations); the report fails the target under 100% coverage.
test: $(STAMP)
	$(BIN)/python -m coverage erase
	$(BIN)/python -m coverage run -m tests
	$(BIN)/python -m coverage report

# Show plain threading vs blanket on a three-thread lock race.
demo: $(STAMP)
	$(BIN)/python examples/demo.py

# Build the HTML documentation; any Sphinx warning is an error.
docs: $(STAMP)
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

# Style, import order and strict typing checks.
lint: $(STAMP)
	$(BIN)/python -m ruff check blanket tests
	$(BIN)/python -m mypy

# Remove the virtual environment and everything built or measured.
clean:
	rm -rf $(VENV) build dist *.egg-info docs/_build htmlcov .coverage .coverage.*
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
