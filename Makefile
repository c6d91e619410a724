# The two commands of the README; both do all set-up on a fresh machine (scripts/setup.sh is idempotent).
# The package and pytest live in a virtual environment, $(VENV), made with $(PYTHON).
PYTHON ?= python3
VENV ?= .venv
# The oldest supported pytest, for `make test-oldest` (a small selection in an environment of its own).
OLDEST_PYTEST ?= pytest==8.0.*
OLDEST_VENV ?= .venv-pytest8
OLDEST_TESTS ?= tests/test_e2e_demo.py tests/test_config.py tests/test_collect.py tests/test_bad_input.py \
	tests/test_ledger_tools.py tests/test_predictions.py tests/test_startup.py
# Extra pytest arguments, e.g. make test TEST_ARGS="-k ledger"
TEST_ARGS ?=

.PHONY: demo test test-oldest lint

demo:  ## run the embedded demo benchmark with the gold agent and print the rewards
	PYTHON=$(PYTHON) PYTEST_SWE_VENV=$(VENV) bash scripts/setup.sh
	$(VENV)/bin/python -m pytest benchmarks/demo.yaml --junitxml=demo-rewards.xml
	$(VENV)/bin/python -m pytest_swe.tools.cli report demo-rewards.xml

test:  ## run the project's test suite on the newest pytest and pytest-xdist
	PYTHON=$(PYTHON) PYTEST_SWE_VENV=$(VENV) bash scripts/setup.sh --tests
	bash scripts/run-tests.sh $(VENV)/bin/python -n 2 $(TEST_ARGS)

test-oldest:  ## run a selection of the tests on the oldest supported pytest
	PYTHON=$(PYTHON) PYTEST_SWE_VENV=$(OLDEST_VENV) PYTEST_SWE_PIN="$(OLDEST_PYTEST)" bash scripts/setup.sh --tests
	bash scripts/run-tests.sh $(OLDEST_VENV)/bin/python -n 2 $(OLDEST_TESTS) $(TEST_ARGS)

lint:  ## the static gates: ruff check, ruff format --check, mypy (strict on api/ and grading/)
	PYTHON=$(PYTHON) PYTEST_SWE_VENV=$(VENV) bash scripts/setup.sh --lint
	$(VENV)/bin/python -m ruff check .
	$(VENV)/bin/python -m ruff format --check .
	bash scripts/typecheck.sh $(VENV)/bin/python
