#!/usr/bin/env bash
# Installs the official Codex CLI 0.130.0 (the TUI and the reference app-server) from npm into a
# cache folder outside the repo, and prints the path of the native binary inside the package (the
# platform-specific optional dependency), which the TUI e2e test and `pnpm bench` run directly,
# bypassing the node launcher. Idempotent: a second run finds the binary and only prints its path.
#
#   bash scripts/install-codex-tui.sh            # installs if needed, prints the binary path
#   DEPUTY_CODEX_CACHE=/some/dir bash scripts/install-codex-tui.sh
#
# The TUI test and the benches look in the same folder (DEPUTY_CODEX_CACHE, else
# $HOME/.cache/deputy/codex-0.130.0), or take the binary from DEPUTY_CODEX_BIN.
set -euo pipefail

VERSION="0.130.0"
CACHE="${DEPUTY_CODEX_CACHE:-$HOME/.cache/deputy/codex-$VERSION}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM="linux-x64"; TRIPLE="x86_64-unknown-linux-musl" ;;
  Linux-aarch64 | Linux-arm64) PLATFORM="linux-arm64"; TRIPLE="aarch64-unknown-linux-musl" ;;
  Darwin-x86_64) PLATFORM="darwin-x64"; TRIPLE="x86_64-apple-darwin" ;;
  Darwin-arm64) PLATFORM="darwin-arm64"; TRIPLE="aarch64-apple-darwin" ;;
  *) echo "install-codex-tui: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

PKG_DIR="$CACHE/node_modules/@openai/codex-$PLATFORM"

find_binary() {
  # The package layout is vendor/<target triple>/codex/codex; search rather than trust it blindly.
  local candidate="$PKG_DIR/vendor/$TRIPLE/codex/codex"
  if [ -x "$candidate" ]; then printf '%s\n' "$candidate"; return 0; fi
  [ -d "$PKG_DIR" ] || return 1
  candidate="$(find "$PKG_DIR" -type f -name codex -perm -u+x 2>/dev/null | head -n 1)"
  [ -n "$candidate" ] || return 1
  printf '%s\n' "$candidate"
}

installed_version() {
  node -e 'try { console.log(require(process.argv[1]).version) } catch { console.log("") }' \
    "$CACHE/node_modules/@openai/codex/package.json"
}

if BIN="$(find_binary)" && [ "$(installed_version)" = "$VERSION" ]; then
  printf '%s\n' "$BIN"
  exit 0
fi

mkdir -p "$CACHE"
# A private package.json keeps npm from walking up into some enclosing project.
[ -f "$CACHE/package.json" ] || printf '{ "name": "deputy-codex-cache", "private": true }\n' >"$CACHE/package.json"
echo "install-codex-tui: installing @openai/codex@$VERSION into $CACHE" >&2
npm install --prefix "$CACHE" --include=optional --no-audit --no-fund --no-save --loglevel=error \
  "@openai/codex@$VERSION" >&2

if ! BIN="$(find_binary)"; then
  echo "install-codex-tui: installed, but found no native binary under $PKG_DIR" >&2
  exit 1
fi
chmod +x "$BIN"
"$BIN" --version >&2
printf '%s\n' "$BIN"
