#!/usr/bin/env bash
# Builds the Kotlin SDK (core, Android layer against its compile-only declarations, tests) and
# runs every test: unit tests, the shared conformance vectors and end-to-end tests against the
# real embedded service, which this script starts on free ports with a fresh data folder.
# Ends with one line: `N passed, N failed`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kotlin="$root/node_modules/kotlin-compiler"
build="$here/build"
classes="$build/classes"
lib="$kotlin/lib"
junit="/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar"
runtime="$lib/kotlin-stdlib.jar:$lib/kotlinx-coroutines-core-jvm.jar:$lib/kotlin-test.jar:$lib/kotlin-test-junit.jar"

sources=("$here/src/main/kotlin" "$here/src/android/kotlin" "$here/src/androidStubs/java" "$here/src/test/kotlin")

# One compiler run for everything (the JVM start dominates); skipped while no source changed.
stamp="$build/compiled.stamp"
if [[ ! -f "$stamp" ]] || [[ -n "$(find "${sources[@]}" -newer "$stamp" -type f | head -1)" ]]; then
  rm -rf "$classes"
  mkdir -p "$classes"
  "$kotlin/bin/kotlinc" -jvm-target 17 -Werror \
    -cp "$runtime:$junit" -d "$classes" "${sources[@]}" 2>&1 | grep -v '^warning: unable to find kotlin-stdlib' || true
  [[ -f "$classes/com/service/attribution/TestMainKt.class" ]] || { echo "compilation failed"; echo "0 passed, 1 failed"; exit 1; }
  touch "$stamp"
fi

# The service, once for the whole run.
data="$(mktemp -d)"
log="$data/service.log"
service_pid=""
stop_service() {
  if [[ -n "$service_pid" ]]; then
    kill -INT "$service_pid" 2>/dev/null || true
    # A clean stop takes a moment; one that hangs is not allowed to hold the run.
    for _ in $(seq 1 40); do
      kill -0 "$service_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL "$service_pid" 2>/dev/null || true
    wait "$service_pid" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap stop_service EXIT
(
  cd "$root"
  ATTRIBUTION_FLUSH_INTERVAL_MS=200 ATTRIBUTION_APP_CACHE_MS=0 \
    exec node --max-semi-space-size=64 bin/attribution.js start --port 0 --link-port 0 --data-dir "$data/service"
) >"$log" 2>&1 &
service_pid=$!
for _ in $(seq 1 120); do
  grep -q 'Attribution service listening on' "$log" && break
  kill -0 "$service_pid" 2>/dev/null || { cat "$log"; echo "0 passed, 1 failed"; exit 1; }
  sleep 0.5
done
SERVICE_URL="$(grep -o 'listening on http://[0-9.:]*' "$log" | sed 's/listening on //')"
[[ -n "$SERVICE_URL" ]] || { cat "$log"; echo "0 passed, 1 failed"; exit 1; }
export SERVICE_URL SERVICE_DATA_DIR="$data/service"

set +e
java -cp "$classes:$runtime:$junit" -Drepo.root="$root" \
  com.service.attribution.TestMainKt "$classes" ${1:+"$1"}
status=$?
set -e
exit $status
