#!/usr/bin/env bash
# Installs the pinned pnpm (and node-gyp, which builds better-sqlite3 against Node's own headers)
# through npm when they are missing. Used by .ci/run and the README quick start.
set -euo pipefail
PNPM_VERSION=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi
if ! command -v node-gyp >/dev/null 2>&1; then
  npm install -g node-gyp@12 >/dev/null
fi
pnpm --version
