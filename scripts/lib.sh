# Shared by scripts/run, scripts/test and scripts/bench: installing what is missing,
# building, and a private PostgreSQL cluster. Source it; do not run it.

BELAY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_BIN=/usr/lib/postgresql/15/bin

# Everything belay needs from Debian, in one list.
BELAY_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  libcaf-dev libpq-dev rapidjson-dev libcpp-httplib-dev catch2
  libcurl4-openssl-dev libssl-dev libspdlog-dev libfmt-dev
  postgresql python3-aiosmtpd curl
  libhowardhinnant-date-dev tzdata python3-icalendar libsystemd-dev
  libcjose-dev libargon2-dev
  chromium nodejs
)

# What the fuzz preset adds (clang and its libFuzzer runtime): scripts/fuzz and
# scripts/test install these too, scripts/run does not need them.
BELAY_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)

# What scripts/ha's failover cluster adds (Patroni, etcd, and the etcd v2 client library
# Debian's Patroni uses): scripts/ha installs these, and scripts/test when it can;
# scripts/run only with BELAY_HA=1.
BELAY_HA_PACKAGES=(patroni etcd-server etcd-client python3-etcd)

# What scripts/package adds: debhelper builds the .deb, lintian checks it (the packaging
# test), systemd-analyze checks the unit.
BELAY_PACKAGE_PACKAGES=(debhelper dpkg-dev lintian systemd adduser)

say() { printf '\033[1mbelay:\033[0m %s\n' "$*"; }

install_missing() {
  local wanted=("${BELAY_PACKAGES[@]}" "$@") missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "packages: all ${#wanted[@]} present"
    return
  fi
  say "packages: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The Node.js packages of the tests, each directory's pinned by its package-lock.json:
# tests/console's playwright-core (the browser test), tests/oidc's oidc-provider (the
# OpenID provider of the sign-in tests) and tests/http/openapi's
# @redocly/cli (the OpenAPI linter). A directory whose node_modules holds its package
# already is left alone, so a kept checkout (or a CI cache of node_modules keyed on the
# lock files) never installs again. npm comes with most Node.js builds (and conflicts
# with Debian's npm package there); Debian's npm only where the command is missing.
install_node_test_deps() {
  if ! command -v npm >/dev/null; then
    say "packages: installing npm"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  local dir_package dir package
  for dir_package in tests/console:playwright-core tests/http/openapi:@redocly/cli \
    tests/oidc:oidc-provider; do
    dir=$BELAY_ROOT/${dir_package%%:*} package=${dir_package#*:}
    if [ -d "$dir/node_modules/$package" ]; then
      say "node packages: $package present in ${dir_package%%:*}"
      continue
    fi
    say "node packages: npm ci in ${dir_package%%:*}"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  done
}

build_preset() {
  local preset=$1
  say "build: cmake preset '$preset' (ninja shows progress)"
  cmake --preset "$preset" -S "$BELAY_ROOT" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)"
}

# Settings for a durable belay database (scripts/run, scripts/bench). Linux writes a file's
# dirty pages back once the file has been dirty for 30 s, all at once, and every commit's
# fdatasync waits behind that burst. PostgreSQL writes each page it extends a table with into
# the page cache at once, and that page stays dirty there while it sits in shared_buffers, so
# the kernel holds about shared_buffers of dirty data: 256 MB stalled every request for ~130 ms
# every 30 s (p99 47 ms at 5,000 events/s over 70 s); 64 MB, with backend_flush_after asking the
# kernel to write an evicted page back at once, gave p99 12 ms and no stall. bench/README.md.
PG_DURABLE_SETTINGS="shared_buffers=64MB backend_flush_after=256kB"

# pg_start DIR PORT [extra postgres -c settings...]: initialise (once) and start a
# cluster owned by the postgres user, listening on a unix socket in DIR only.
pg_start() {
  local dir=$1 port=$2
  shift 2
  local opts="-c listen_addresses='' -k $dir -p $port"
  for o in "$@"; do opts+=" -c $o"; done
  mkdir -p "$dir"
  chown postgres:postgres "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    say "postgres: initialising a private cluster in $dir/data"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust \
      -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log"; return 1; }
  fi
  if runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    say "postgres: reusing the cluster already running in $dir"
  else
    say "postgres: starting on unix socket $dir port $port"
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" \
      -w -t 60 start >/dev/null || { tail -20 "$dir/server.log"; return 1; }
  fi
}

pg_stop() {
  local dir=$1
  [ -f "$dir/data/PG_VERSION" ] || return 0
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

# pg_ensure_db DIR PORT NAME: creates the database unless it exists.
pg_ensure_db() {
  local dir=$1 port=$2 name=$3
  if ! psql -h "$dir" -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" |
    grep -q 1; then
    psql -h "$dir" -p "$port" -U postgres -qc "CREATE DATABASE \"$name\"" >/dev/null
  fi
}

pg_url() { echo "host=$1 port=$2 dbname=$3 user=postgres"; }

# Fuzzing protocol/'s parsers (tests/fuzz): one libFuzzer executable per
# tests/fuzz/<target>_fuzz.cpp, built by the fuzz preset.
FUZZ_SOURCE_DIR=$BELAY_ROOT/tests/fuzz
FUZZ_BIN_DIR=$BELAY_ROOT/build/fuzz/tests/fuzz
FUZZ_CRASH_DIR=$BELAY_ROOT/build/fuzz/crashes

fuzz_targets() {
  local source
  for source in "$FUZZ_SOURCE_DIR"/*_fuzz.cpp; do basename "$source" _fuzz.cpp; done
}

# fuzz_run TARGET SECONDS WORK [libFuzzer flags...]: fuzzes TARGET for SECONDS on a copy
# of its committed corpus in WORK/corpus (new inputs land there, never in tests/), with
# the JSON dictionary when the target has one. Crash files go to FUZZ_CRASH_DIR/TARGET.
# Returns libFuzzer's status: non-zero on a crash, a leak, a timeout or running out of
# memory.
fuzz_run() {
  local target=$1 seconds=$2 work=$3
  shift 3
  local seeds=$FUZZ_SOURCE_DIR/corpus/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$FUZZ_CRASH_DIR/$target"
  if [ -d "$seeds" ]; then cp -r "$seeds/." "$work/corpus/"; fi
  local dict=()
  if [ -f "$FUZZ_SOURCE_DIR/dict/$target.dict" ]; then
    cat "$FUZZ_SOURCE_DIR/dict/json.dict" "$FUZZ_SOURCE_DIR/dict/$target.dict" >"$work/dict"
    dict=(-dict="$work/dict")
  fi
  UBSAN_OPTIONS=print_stacktrace=1 "$FUZZ_BIN_DIR/${target}_fuzz" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_CRASH_DIR/$target/" "${dict[@]}" "$@" "$work/corpus"
}

# fuzz_all SECONDS WORK: every target for SECONDS, as many at once as there are cores,
# each in WORK/TARGET with its output in WORK/TARGET.log. One line per target, and a
# failure's log tail. Sets FUZZ_PASSED and FUZZ_FAILED.
fuzz_all() {
  local seconds=$1 work=$2 jobs target k
  local targets=()
  mapfile -t targets < <(fuzz_targets)
  jobs=$(nproc)
  FUZZ_PASSED=0 FUZZ_FAILED=0
  mkdir -p "$work"
  for ((first = 0; first < ${#targets[@]}; first += jobs)); do
    local batch=("${targets[@]:first:jobs}") pids=()
    for target in "${batch[@]}"; do
      fuzz_run "$target" "$seconds" "$work/$target" >"$work/$target.log" 2>&1 &
      pids+=($!)
    done
    for k in "${!batch[@]}"; do
      target=${batch[k]}
      if wait "${pids[k]}"; then
        FUZZ_PASSED=$((FUZZ_PASSED + 1))
        say "fuzz: $target passed ($(fuzz_summary "$work/$target.log"))"
      else
        FUZZ_FAILED=$((FUZZ_FAILED + 1))
        say "fuzz: $target FAILED; the end of its log:"
        tail -40 "$work/$target.log"
        say "fuzz: $target's crash inputs are in $FUZZ_CRASH_DIR/$target/;" \
          "reproduce with $FUZZ_BIN_DIR/${target}_fuzz <input>"
      fi
    done
  done
}

# fuzz_summary LOG: "N runs, N exec/s, cov N" from a fuzz_run's output.
fuzz_summary() {
  local runs rate cov
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$1" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$1" | tail -1)
  echo "${runs:-?} runs, ${rate:-?} exec/s, ${cov:-cov: ?}"
}
