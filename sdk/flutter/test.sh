#!/usr/bin/env bash
# The Flutter package's checks on a machine without Flutter or a Dart SDK: every Dart file
# parses, the Dart side's rule tables are the conformance vectors', and the Android side of the
# plugin compiles against the Kotlin SDK (with compile-only declarations of Flutter's and
# Android's classes). The Dart tests under test/ run with `flutter test` where Flutter is.
# Ends with one line: `N passed, N failed`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kotlin="$root/node_modules/kotlin-compiler"
build="$here/build"

passed=0
failed=0
rm -rf "$build"
mkdir -p "$build/stubs" "$build/classes"
compile() {
  javac -nowarn -d "$build/stubs" \
    $(find "$here/android/stubs" "$here/../kotlin/src/androidStubs/java" -name '*.java') || return 1
  "$kotlin/bin/kotlinc" -jvm-target 17 -Werror \
    -cp "$build/stubs:$kotlin/lib/kotlinx-coroutines-core-jvm.jar" -d "$build/classes" \
    "$here/android/src/main/kotlin" "$here/../kotlin/src/main/kotlin" "$here/../kotlin/src/android/kotlin" \
    2>&1 | { grep -v '^warning: unable to find kotlin-stdlib' || true; }
  [[ -f "$build/classes/com/service/attribution/flutter/ServiceAttributionPlugin.class" ]]
}
if compile; then
  echo "ok   android/ compiles against the Kotlin SDK"
  passed=1
else
  echo "FAIL android/ compiles against the Kotlin SDK"
  failed=1
fi

set +e
checks="$(node "$here/tool/check.mjs")"
status=$?
set -e
echo "$checks" | sed '$d'
read -r more _ less _ <<<"$(echo "$checks" | tail -n 1)"
echo "$((passed + more)) passed, $((failed + less)) failed"
[[ "$status" -eq 0 && "$failed" -eq 0 ]]
