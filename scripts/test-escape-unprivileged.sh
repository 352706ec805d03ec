#!/usr/bin/env bash
# Runs the escape suite (`pnpm test:escape`) a second time as an unprivileged numeric uid, because
# several sandbox rows differ between root and other users (file permissions, capabilities kept by
# bubblewrap, /proc/1/root, user namespaces). Called by .ci/run after `pnpm test`; a developer runs
# it as root with `pnpm test:escape:unprivileged [vitest args, e.g. -t tmux]`.
#
# As root it:
#   1. checks that the uid can create the sandbox: setpriv is present, unprivileged user namespaces
#      are allowed, and bwrap, run as the uid with the sandbox's own flags, works. Anything else
#      is a loud failure, never a skip;
#   2. copies the built repository (sources, dist/, bundles, node_modules with pnpm's relative
#      symlinks) with `cp -a` into a fresh temp dir owned by the uid. A copy, always: the clone may
#      sit under a directory the uid cannot traverse (/root is 0700), and the suite writes into the
#      repository (vitest's cache in node_modules/.vite, the e2e tests' build lock and rebuilds);
#   3. runs the package.json `test:escape` command there as the uid (setpriv, no groups, no
#      capabilities) with its own HOME and TMPDIR inside that temp dir and a clean environment;
#   4. removes the temp dir on every exit, and kills the run's process group if interrupted.
# Run as a non-root user, it just runs the suite in place: that user is already unprivileged.
#
# Environment: DEPUTY_ESCAPE_UID (default 65534) and DEPUTY_ESCAPE_GID (default: the uid's group,
# else the uid), DEPUTY_ESCAPE_TMP (default /tmp): where the temp dir goes; it must be traversable.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd -P)"
cd "$REPO"
started=$SECONDS

fail() {
  printf 'test-escape-unprivileged: %s\n' "$*" >&2
  exit 1
}

ESCAPE_COMMAND="$(node -p 'require("./package.json").scripts["test:escape"]')"
[ -n "$ESCAPE_COMMAND" ] && [ "$ESCAPE_COMMAND" != undefined ] || fail 'package.json has no "test:escape" script'

if [ "$(id -u)" != 0 ]; then
  echo "test-escape-unprivileged: already running as uid $(id -u); running the escape suite in place"
  PATH="$REPO/node_modules/.bin:$PATH" exec sh -c "$ESCAPE_COMMAND \"\$@\"" test-escape "$@"
fi

TEST_UID="${DEPUTY_ESCAPE_UID:-65534}"
case "$TEST_UID" in '' | *[!0-9]*) fail "DEPUTY_ESCAPE_UID must be a number, got '$TEST_UID'" ;; esac
[ "$TEST_UID" != 0 ] || fail 'DEPUTY_ESCAPE_UID must not be 0'
TEST_GID="${DEPUTY_ESCAPE_GID:-$(getent passwd "$TEST_UID" | cut -d: -f4 || true)}"
TEST_GID="${TEST_GID:-$TEST_UID}"
case "$TEST_GID" in *[!0-9]*) fail "DEPUTY_ESCAPE_GID must be a number, got '$TEST_GID'" ;; esac

command -v setpriv >/dev/null 2>&1 || fail 'setpriv (util-linux) is required to drop to an unprivileged uid'
BWRAP="$(command -v bwrap)" || fail 'bubblewrap (bwrap) is not installed'
NODE="$(command -v node)" || fail 'node is not on PATH'

# --inh-caps=-all: the uid gets no capabilities at all; the run's environment is rebuilt from scratch.
AS_UID=(setpriv --reuid="$TEST_UID" --regid="$TEST_GID" --clear-groups --inh-caps=-all)

# 1. Can this uid create the sandbox at all? Say why not, and fail.
userns_max="$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo missing)"
if ! [ "$userns_max" -gt 0 ] 2>/dev/null; then
  fail "user namespaces are disabled (/proc/sys/user/max_user_namespaces = $userns_max); bubblewrap cannot run unprivileged. Enable them: sysctl -w user.max_user_namespaces=15000"
fi
if [ -r /proc/sys/kernel/unprivileged_userns_clone ] && [ "$(cat /proc/sys/kernel/unprivileged_userns_clone)" != 1 ]; then
  fail 'unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0); enable them: sysctl -w kernel.unprivileged_userns_clone=1'
fi
if [ -r /proc/sys/kernel/apparmor_restrict_unprivileged_userns ] && [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns)" = 1 ]; then
  echo 'test-escape-unprivileged: note: kernel.apparmor_restrict_unprivileged_userns = 1; bwrap needs an AppArmor profile allowing userns'
fi
"${AS_UID[@]}" test -x "$NODE" || fail "uid $TEST_UID cannot execute $NODE"
probe_err="$(cd / && "${AS_UID[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin "$BWRAP" --new-session --die-with-parent \
  --ro-bind / / --dev /dev --unshare-pid --unshare-net --proc /proc -- true 2>&1)" ||
  fail "bwrap cannot create the sandbox as uid $TEST_UID (check user namespaces and AppArmor): ${probe_err:-no message}"

# 2. A fresh copy owned by the uid.
base="${DEPUTY_ESCAPE_TMP:-/tmp}"
work="$(mktemp -d "$base/dpx-escape.XXXXXX")"
run_pid=''
cleanup() {
  status=$?
  trap - EXIT INT TERM
  # The run is its own process group (setsid below): stop it, give it 5 s, then kill what is left,
  # so nothing of the uid's writes into the directory while it is removed.
  if [ -n "$run_pid" ] && kill -0 -- "-$run_pid" 2>/dev/null; then
    kill -TERM -- "-$run_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$run_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$run_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work/repo" "$work/home" "$work/tmp"
cp -a "$REPO/." "$work/repo/"
chown -R "$TEST_UID:$TEST_GID" "$work"
chmod 0700 "$work"
"${AS_UID[@]}" test -r "$work/repo/package.json" || fail "uid $TEST_UID cannot read the copy in $work (is $base traversable?)"
echo "test-escape-unprivileged: copied the repository to $work/repo in $((SECONDS - started))s; running '$ESCAPE_COMMAND' as uid $TEST_UID gid $TEST_GID"

# 3. The suite as the uid, in its own session so an interrupt can stop all of it. SHELL is set
# because the uid's login shell may be nologin (65534 is `nobody`), and tmux and others use it.
user_name="$(getent passwd "$TEST_UID" | cut -d: -f1 || true)"
user_name="${user_name:-uid$TEST_UID}"
run_env=(HOME="$work/home" TMPDIR="$work/tmp" USER="$user_name" LOGNAME="$user_name" SHELL=/bin/bash LANG=C.UTF-8)
run_env+=(PATH="$work/repo/node_modules/.bin:$(dirname "$NODE"):/usr/local/bin:/usr/bin:/bin")
for name in CI FORCE_COLOR NO_COLOR TERM; do
  if [ -n "${!name:-}" ]; then run_env+=("$name=${!name}"); fi
done
set +e
setsid "${AS_UID[@]}" env -i "${run_env[@]}" \
  sh -c "cd \"\$1\" && shift && $ESCAPE_COMMAND \"\$@\"" test-escape "$work/repo" "$@" &
run_pid=$!
wait "$run_pid"
status=$?
run_pid=''
set -e
echo "test-escape-unprivileged: the escape suite as uid $TEST_UID exited with $status after $((SECONDS - started))s"
exit "$status"
