#!/usr/bin/env bash
# Installs the official Codex CLIs the TUI acceptance test drives (the TUI, and the reference
# app-server) from npm into cache folders outside the repo, one per version, and prints the path
# of each native binary inside its package (the platform-specific optional dependency), one line
# per version in the order given: 0.130.0 (the 0.130 clients' TUI; also what `pnpm bench` compares
# against) and 0.171.0 (a current TUI). Idempotent: a version already installed is only found and
# printed.
#
#   bash scripts/install-codex-tui.sh                  # both versions
#   bash scripts/install-codex-tui.sh 0.171.0          # one version
#   DEPUTY_CODEX_CACHE=/some/dir bash scripts/install-codex-tui.sh 0.130.0
#
# Cache folders: $DEPUTY_CODEX_CACHE_ROOT/codex-<version> (default $HOME/.cache/deputy); for
# 0.130.0, DEPUTY_CODEX_CACHE still names the folder itself, as before. The TUI test and the
# benches look in the same folders, or take the binaries from DEPUTY_CODEX_BIN (0.130.0) and
# DEPUTY_CODEX_171_BIN (0.171.0).
set -euo pipefail

VERSIONS=("$@")
[ "${#VERSIONS[@]}" -gt 0 ] || VERSIONS=(0.130.0 0.171.0)
ROOT="${DEPUTY_CODEX_CACHE_ROOT:-$HOME/.cache/deputy}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM="linux-x64"; TRIPLE="x86_64-unknown-linux-musl" ;;
  Linux-aarch64 | Linux-arm64) PLATFORM="linux-arm64"; TRIPLE="aarch64-unknown-linux-musl" ;;
  Darwin-x86_64) PLATFORM="darwin-x64"; TRIPLE="x86_64-apple-darwin" ;;
  Darwin-arm64) PLATFORM="darwin-arm64"; TRIPLE="aarch64-apple-darwin" ;;
  *) echo "install-codex-tui: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

cache_of() {
  if [ "$1" = "0.130.0" ] && [ -n "${DEPUTY_CODEX_CACHE:-}" ]; then printf '%s\n' "$DEPUTY_CODEX_CACHE"
  else printf '%s/codex-%s\n' "$ROOT" "$1"; fi
}

find_binary() {
  # 0.130 ships vendor/<triple>/codex/codex, 0.169+ vendor/<triple>/bin/codex; search rather than
  # trust either layout blindly.
  local pkg_dir="$1" candidate
  for candidate in "$pkg_dir/vendor/$TRIPLE/codex/codex" "$pkg_dir/vendor/$TRIPLE/bin/codex"; do
    if [ -x "$candidate" ]; then printf '%s\n' "$candidate"; return 0; fi
  done
  [ -d "$pkg_dir" ] || return 1
  candidate="$(find "$pkg_dir" -type f -name codex -perm -u+x 2>/dev/null | head -n 1)"
  [ -n "$candidate" ] || return 1
  printf '%s\n' "$candidate"
}

installed_version() {
  node -e 'try { console.log(require(process.argv[1]).version) } catch { console.log("") }' \
    "$1/node_modules/@openai/codex/package.json"
}

install_one() {
  local version="$1" cache pkg_dir bin
  case "$version" in
    0.130.0 | 0.171.0) ;;
    *) echo "install-codex-tui: version $version is not one the tests use (0.130.0, 0.171.0)" >&2; exit 2 ;;
  esac
  cache="$(cache_of "$version")"
  pkg_dir="$cache/node_modules/@openai/codex-$PLATFORM"
  if bin="$(find_binary "$pkg_dir")" && [ "$(installed_version "$cache")" = "$version" ]; then
    printf '%s\n' "$bin"
    return 0
  fi
  mkdir -p "$cache"
  # A private package.json keeps npm from walking up into some enclosing project.
  [ -f "$cache/package.json" ] || printf '{ "name": "deputy-codex-cache", "private": true }\n' >"$cache/package.json"
  echo "install-codex-tui: installing @openai/codex@$version into $cache" >&2
  npm install --prefix "$cache" --include=optional --no-audit --no-fund --no-save --loglevel=error \
    "@openai/codex@$version" >&2
  if ! bin="$(find_binary "$pkg_dir")"; then
    echo "install-codex-tui: installed, but found no native binary under $pkg_dir" >&2
    exit 1
  fi
  chmod +x "$bin"
  "$bin" --version >&2
  printf '%s\n' "$bin"
}

for version in "${VERSIONS[@]}"; do install_one "$version"; done
