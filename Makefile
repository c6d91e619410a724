# The two commands of the README; both do all set-up on a fresh machine (scripts/setup.sh is idempotent).
PYTHON ?= python3

.PHONY: demo test

demo:  ## run the embedded demo benchmark with the gold agent and print the rewards
	bash scripts/setup.sh
	$(PYTHON) -m pytest benchmarks/demo.yaml --junitxml=demo-rewards.xml
	$(PYTHON) -m pytest_swe.cli report demo-rewards.xml

test:  ## run the project's test suite
	bash scripts/setup.sh --tests
	$(PYTHON) -m pytest -n 2
