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
source "$root/sdk/service.sh"
start_service "$root"

set +e
java -cp "$classes:$runtime:$junit" -Drepo.root="$root" \
  com.service.attribution.TestMainKt "$classes" ${1:+"$1"}
status=$?
set -e
exit $status
