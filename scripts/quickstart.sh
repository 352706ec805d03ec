#!/usr/bin/env bash
# The README quick start: installs what Deputy needs (pnpm, dependencies, bubblewrap for the
# sandbox when apt-get is available), builds, and runs one real turn. With no API key it uses
# the built-in offline demo model; with OPENAI_API_KEY set it uses OpenAI. It also installs,
# outside the repo, what the README's second command (`pnpm test`) needs: tmux and the pinned
# Codex TUI (scripts/install-test-deps.sh), so that `pnpm test` passes with nothing else installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-toolchain.sh >/dev/null
bash scripts/install-test-deps.sh
if ! command -v bwrap >/dev/null 2>&1; then
  echo "note: bubblewrap (bwrap) is not installed; sandboxed commands will fail until you install it (e.g. sudo apt-get install bubblewrap)." >&2
fi
# Build native addons against the machine's Node headers when present (no header download).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
pnpm install --frozen-lockfile >&2
pnpm build >&2
node apps/cli/dist/deputy.cjs exec --skip-git-repo-check --sandbox read-only "${1:-Look around this repository and tell me what it is.}"
