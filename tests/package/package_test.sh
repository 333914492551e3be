#!/usr/bin/env bash
# The Debian package end to end (docs/operations.md#installing-the-package): builds it
# with scripts/package, lints the .deb, installs it with dpkg, checks the unit, the user
# and the conffile, runs the installed binary against the test cluster until /readyz
# answers 200, then purges the package. Installing needs root: skipped otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

skip() {
  echo "belay-test-skipped: $*"
  exit 0
}
[ "$(id -u)" = 0 ] || skip "the packaging test installs a package with dpkg: run scripts/test as root"
[ -n "${BELAY_TEST_DATABASE_URL:-}" ] || skip "BELAY_TEST_DATABASE_URL is not set: run it with scripts/test"

# One package installed on this machine at a time, whichever worktree tests it.
exec 9>/tmp/belay-package-test.lock
flock 9
if dpkg-query -W -f='${Status}' belay 2>/dev/null | grep -q "install ok installed"; then
  skip "a belay package is installed on this machine already; this test would remove it"
fi

work=$(mktemp -d /tmp/belay-package-test.XXXXXX)
schema=pkg_$$
belay_pid=""
cleanup() {
  [ -n "$belay_pid" ] && kill "$belay_pid" 2>/dev/null && wait "$belay_pid" || true
  dpkg --purge belay >/dev/null 2>&1 || true
  psql -q "$BELAY_TEST_DATABASE_URL" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# Without a debug-symbols package, optimising or debug information: what is checked here
# is the packaging, and scripts/test pays the build on every fresh machine (cold, -O0:
# 503 s of CPU with -g, 440 s with -g0, 6 Dec).
deb=$(BELAY_DEB_DIR=$work DEB_BUILD_OPTIONS="noddebs noopt" DEB_CXXFLAGS_APPEND=-g0 \
  "$root/scripts/package" | tail -1)
[ -f "$deb" ] || fail "scripts/package made no .deb"
echo "--- lintian $deb"
lintian --fail-on error,warning --display-info "$deb" || fail "lintian"

echo "--- dpkg -i"
dpkg -i "$deb"
unit=/lib/systemd/system/belay.service
[ -x /usr/bin/belay ] || fail "no /usr/bin/belay"
[ -f "$unit" ] || fail "no $unit"
id belay >/dev/null || fail "no belay user"
dpkg-query -W -f='${Conffiles}\n' belay | grep -q "/etc/belay/belay.conf" ||
  fail "/etc/belay/belay.conf is not a conffile"
[ "$(stat -c '%U:%G %a' /etc/belay/belay.conf)" = "root:belay 640" ] ||
  fail "/etc/belay/belay.conf is $(stat -c '%U:%G %a' /etc/belay/belay.conf), not root:belay 640"

echo "--- systemd-analyze verify $unit"
verify=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $verify"
# Lines about belay.service itself; the rest is about the host's other units.
if grep -i "belay" <<<"$verify"; then fail "systemd-analyze verify complains"; fi
echo "--- systemd-analyze security belay.service"
systemd-analyze security --offline=true --threshold=20 "$unit" | tail -1 ||
  fail "the unit's exposure is above 2.0 (systemd-analyze security)"

echo "--- the installed binary, with the settings the unit gives it"
psql -q "$BELAY_TEST_DATABASE_URL" -c "CREATE SCHEMA $schema"
# Below the ephemeral ports (32768 on) the other tests' connections take, and apart from
# scripts/test's PostgreSQL (20000 on) and failover cluster (10000-15020).
port=$((16000 + RANDOM % 2000))
(
  set -a
  source /etc/belay/belay.conf
  set +a
  export DATABASE_URL="$BELAY_TEST_DATABASE_URL options='-c search_path=$schema'"
  export BELAY_PORT=$port BELAY_NODE_ID=package-test
  exec /usr/bin/belay serve
) >"$work/belay.log" 2>&1 &
belay_pid=$!
status=""
for _ in $(seq 1 300); do
  status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz" || true)
  [ "$status" = 200 ] && break
  kill -0 "$belay_pid" 2>/dev/null || break
  sleep 0.2
done
if [ "$status" != 200 ]; then
  cat "$work/belay.log" >&2
  fail "the installed belay's /readyz answered '$status', not 200"
fi
/usr/bin/belay --version
kill "$belay_pid"
wait "$belay_pid" || fail "belay exited $? on SIGTERM"
belay_pid=""

echo "--- dpkg --purge"
dpkg --purge belay
[ ! -e /usr/bin/belay ] && [ ! -e "$unit" ] && [ ! -e /etc/belay ] ||
  fail "the purge left files behind"
echo "package: built, lint-clean, installed, served /readyz 200, purged"
