# Quick start: `make run` (install, check every ruleset, play a seeded demo game of each in
# rulesets/ and classics/) and `make test` (install with the test extras, run the whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# every ruleset is checked; the games of rulesets/ and classics/ are played (the literal
# readings in variants/literal/ are there for the fuzzer to find their holes)
CHECKED := $(sort $(wildcard rulesets/*.gdl rulesets/*/*.gdl rulesets/*/*/*.gdl))
PLAYED := $(sort $(wildcard rulesets/*.gdl rulesets/classics/*.gdl))

.PHONY: run test bench clean

$(BIN)/gdl: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test-extras: $(BIN)/gdl
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet -e '.[openspiel]' || echo "open_spiel could not be installed: tests against it use recorded figures"
	$(BIN)/python -m pip install --quiet -e '.[pettingzoo]' || echo "pettingzoo could not be installed: its tests are skipped"
	$(BIN)/python -m pip install --quiet -e '.[pbn]' || echo "endplay could not be installed: its tests are skipped"
	touch $@

run: $(BIN)/gdl
	$(BIN)/gdl check $(CHECKED)
	@for f in $(PLAYED); do echo; echo "=== $$f"; $(BIN)/gdl run $$f -n 1 --seed 1 || exit 1; done

test: $(VENV)/.test-extras
	$(BIN)/python -m pytest -q

bench: $(BIN)/gdl
	@for f in $(PLAYED); do $(BIN)/gdl bench $$f --seconds 3; done

clean:
	rm -rf $(VENV) build *.egg-info
