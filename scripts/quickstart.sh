#!/usr/bin/env bash
# The README quick start: installs what Deputy needs (pnpm, dependencies, bubblewrap for the
# sandbox when apt-get is available), builds, and runs one real turn. With no API key it uses
# the built-in offline demo model; with OPENAI_API_KEY set it uses OpenAI.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-toolchain.sh >/dev/null
if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "installing bubblewrap (the command sandbox)…" >&2
    apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "note: bubblewrap (bwrap) is not installed; sandboxed commands will fail until you install it (e.g. sudo apt-get install bubblewrap)." >&2
  fi
fi
# Build native addons against the machine's Node headers when present (no header download).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
pnpm install --frozen-lockfile >&2
pnpm build >&2
node apps/cli/dist/deputy.js exec --sandbox read-only "${1:-Look around this repository and tell me what it is.}"
