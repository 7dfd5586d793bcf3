# Two commands on a fresh machine (only Python >= 3.11 needed):
#   make report   build .venv, install ambiglib, write the report on the example data to reports/
#   make test     build .venv, install ambiglib with its test tools, run pytest and nbval
# Both create the virtualenv on first use and reinstall when pyproject.toml changes.

# The first Python >= 3.11 on PATH; override with `make PYTHON=/path/to/python3.12 ...`.
PYTHON ?= $(shell for p in python3 python3.13 python3.12 python3.11 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: report test lint example notebooks bench clean

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "ambiglib needs Python >= 3.11 on PATH (or make PYTHON=/path/to/python3.11)" >&2; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

report: $(STAMP)
	$(BIN)/ambiglib report --runs data/example --out reports

test: $(STAMP)
	$(BIN)/python -m pytest tests notebooks --nbval-lax --nbval-current-env -p no:cacheprovider \
		-n auto --dist loadfile --durations=10

# Lint and type-check (.ci/run runs this after the tests; configured in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check ambiglib tests bench scripts
	$(BIN)/mypy

# Regenerate data/example/ (canonical) and data/example-native/ (each harness's own layout) from the
# seeded simulator (the same bytes every time), and data/paper/ from the papers' published aggregates.
example: $(STAMP)
	$(BIN)/python -m ambiglib.simulate data/example --native data/example-native
	$(BIN)/python scripts/make_paper_fixtures.py

# Re-execute the notebooks in place: refreshes the outputs nbval compares against.
notebooks: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace notebooks/*.ipynb

bench: $(STAMP)
	$(BIN)/python bench/load.py
	$(BIN)/python bench/imports.py
	$(BIN)/python bench/stats.py
	$(BIN)/python bench/coverage.py
	$(BIN)/python bench/ranking.py
	$(BIN)/python bench/report.py --scale 1000
	$(BIN)/python bench/inspect_logs.py

clean:
	rm -rf $(VENV) reports bench/out
