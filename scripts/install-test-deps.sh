#!/usr/bin/env bash
# Installs, outside the repo, what `pnpm test` needs besides the workspace's own packages:
# bubblewrap (the command sandbox) and tmux (the TUI acceptance test) with apt-get when it is
# available (as root, or with sudo), and the pinned official Codex TUI(s) with
# scripts/install-codex-tui.sh (an npm install into ~/.cache/deputy). Idempotent: what is
# already installed is left alone. Called by scripts/quickstart.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="-"; fi
    if [ "$SUDO" = "-" ]; then
      echo "install-test-deps: ${missing[*]} missing and neither root nor sudo is available; install them to run every test." >&2
    else
      echo "install-test-deps: installing ${missing[*]} with apt-get" >&2
      $SUDO apt-get update -qq >&2
      $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
  else
    echo "install-test-deps: ${missing[*]} missing and apt-get is not available; install them to run every test." >&2
  fi
fi

# The pinned Codex TUI(s) the acceptance test and the benches run (prints each binary's path).
bash scripts/install-codex-tui.sh >&2
