# The README's two commands are `make run` and `make test`; the rest serve them.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: screenshots run test lint types contracts pytest bench soak clean ui package appimage \
	bench-package ui-test ui-types test-deps real-clis builds \
	installer installer-check test-windows windows-build

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall when the project metadata changes.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The web UI (ui/, TypeScript + Vite) is built into ui/dist when missing or older than its sources.
UI_SOURCES := $(shell find ui/src -type f 2>/dev/null) ui/index.html ui/package.json \
	ui/package-lock.json ui/vite.config.ts ui/tsconfig.json
UI_MODULES := ui/node_modules/.package-lock.json

$(UI_MODULES): ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund --loglevel=error
	touch $(UI_MODULES)

ui/dist/index.html: $(UI_SOURCES) $(UI_MODULES)
	cd ui && npm run --silent build
	touch ui/dist/index.html

ui: ui/dist/index.html

# The UI boundary's TypeScript types, generated from the Python declarations (the UI methods'
# params and results, the pushed events): run after changing one; `make lint` fails when stale.
UI_TYPES := ui/src/model/api.gen.ts
ui-types: $(STAMP)
	$(PY) -m idea.app.ui.typegen $(UI_TYPES)

# The UI's unit tests (Vitest, ui/src/model/*.test.ts): pure modules, no browser.
ui-test: $(UI_MODULES)
	cd ui && npm test --silent

run: $(STAMP) ui
	$(VENV)/bin/idea open "$(CURDIR)"

# The UI's lint: eslint and prettier over ui/src (the generated api.gen.ts is checked by typegen).
lint: $(STAMP) $(UI_MODULES)
	$(VENV)/bin/ruff check idea tests bench
	$(VENV)/bin/ruff format --check idea tests bench
	$(PY) -m idea.app.ui.typegen --check $(UI_TYPES)
	cd ui && npm run --silent lint

types: $(STAMP)
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --platform win32

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

pytest: $(STAMP) ui
	$(PY) -m pytest $(PYTEST_ARGS)

# What the whole suite runs that installs without root, each only when missing or stale: the
# pinned real CLIs (npm), the frozen one-folder build and the AppImage. What needs root (Debian
# packages) is .ci/run's; a test that skips for want of one names the apt-get install.
test-deps: real-clis builds windows-build

real-clis: $(STAMP)
	@if command -v npm >/dev/null; then PYTHON=$(abspath $(PY)) tests/real_cli/install.sh; \
	else echo "make test: no npm (apt-get install npm): the real-CLI tests skip"; fi

PY_SOURCES := $(shell find idea -name '*.py' 2>/dev/null) build.spec
FROZEN := dist/idea/idea
APPIMAGE := dist/IdeA-x86_64.AppImage

$(FROZEN): $(PY_SOURCES) ui/dist/index.html $(STAMP)
	$(VENV)/bin/pyinstaller --noconfirm --log-level=WARN build.spec
	touch $(FROZEN)

$(APPIMAGE): $(FROZEN) $(wildcard packaging/linux/*)
	PY=$(PY) packaging/linux/build-appimage.sh
	touch $(APPIMAGE)

# PyInstaller's binary analysis needs objdump (Debian's binutils).
builds: $(STAMP) ui
	@if command -v objdump >/dev/null; then $(MAKE) --no-print-directory $(APPIMAGE); \
	else echo "make test: no objdump (apt-get install binutils): the packaging tests skip"; fi

test: lint types contracts ui-test test-deps pytest test-windows

# The Windows lane (tests/windows_lane/lane.py): the Windows tests under a real Windows CPython in
# wine; its prefix, interpreter and wheels are cached in .wine-lane/ and redone when stale.
# Without wine it prints a skip line, or fails with IDEA_REQUIRE_WINE=1 (.ci/run sets it).
test-windows: $(STAMP) windows-build
	$(PY) tests/windows_lane/lane.py test

# The frozen Windows build, made by PyInstaller on build.spec under wine (tests/windows_lane):
# dist/windows/idea/idea.exe; the NSIS installer's test installs it.
WIN_FROZEN := dist/windows/idea/idea.exe
$(WIN_FROZEN): $(PY_SOURCES) ui/dist/index.html tests/windows_lane/requirements-build.txt $(STAMP)
	$(PY) tests/windows_lane/lane.py build
	touch $(WIN_FROZEN)

windows-build: $(STAMP) ui
	@if command -v wine >/dev/null; then $(MAKE) --no-print-directory $(WIN_FROZEN); \
	else echo "make test: no wine (apt-get install wine wine64): the Windows build is not made"; fi

# The README's pictures, made by the end-to-end tests.
screenshots: $(STAMP) ui
	IDEA_SCREENSHOTS_DIR="$(CURDIR)/docs/screenshots" $(PY) -m pytest tests/e2e -q

# Each benchmark prints its figures and ratio last. remote_link.py needs root (it runs an sshd)
# and the frozen build (make package); without them it says it is left out.
bench: $(STAMP) ui
	$(PY) bench/asks_parallel.py
	$(PY) bench/file_door_latency.py
	$(PY) bench/door_flood.py
	$(PY) bench/session_memory.py
	$(PY) bench/mcp_spawn.py
	$(PY) bench/mcp_roundtrip.py
	$(PY) bench/remote_link.py
	$(PY) bench/pty_ws_throughput.py
	$(PY) bench/pty_ws_throughput.py --browser
	$(PY) bench/keystroke_latency.py
	$(PY) bench/keystroke_latency.py --browser
	$(PY) bench/chat_long_reply.py
	$(PY) bench/ui_start.py
	$(PY) bench/worktree_changes.py
	$(PY) bench/ask_hop_overhead.py
	$(PY) bench/wine_bridge_spawn.py

soak: $(STAMP)
	$(PY) bench/store_crash_soak.py

# The frozen ONE-FOLDER build (DESIGN.md §10, build.spec): dist/idea/idea.
package: $(STAMP) ui
	$(VENV)/bin/pyinstaller --noconfirm build.spec

# The AppImage (DESIGN.md §10, packaging/linux/README.md): dist/IdeA-x86_64.AppImage, the
# one-folder build packed by the appimagetool pinned in packaging/linux/build-appimage.sh.
appimage: package
	PY=$(PY) packaging/linux/build-appimage.sh

# Spawn -> initialize of the bridge from source, frozen and as an AppImage, beside python -c pass;
# the builds' sizes. Measures the builds that exist (make appimage first).
bench-package: $(STAMP)
	$(PY) bench/frozen_spawn.py

# The Windows installer (packaging/windows/README.md), compiled by Linux's makensis from a
# one-folder build made on Windows or under wine (make windows-build):
# make installer WIN_DIST=<folder holding idea.exe>.
WIN_DIST ?= dist/windows/idea
installer:
	makensis -V2 -WX -DVERSION=$$($(PYTHON) -c 'import idea; print(idea.__version__)') \
		-DDIST="$(abspath $(WIN_DIST))" packaging/windows/idea.nsi

# The installer's test under wine (Debian packages nsis, wine, wine64), required to run.
installer-check: $(STAMP)
	IDEA_REQUIRE_NSIS=1 $(PY) -m pytest tests/packaging/test_nsis_installer.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache ui/dist ui/node_modules
