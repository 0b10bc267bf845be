#!/usr/bin/env bash
# The Flutter package's checks on a machine without Flutter or a Dart SDK:
#  - every Dart file parses, the Dart side's rule tables and names are the conformance vectors'
#    and docs/sdks.md's, every channel method it invokes is handled natively (and every call
#    back by Dart), and the Android library's levels, dependencies, paths and permissions are
#    the Kotlin SDK's (tool/check.mjs);
#  - the Android side compiles with the Kotlin SDK's sources against the real Android framework
#    and the SDK's dependencies (sdk/kotlin/classpath.sh) and compile-only declarations of
#    Flutter's embedding (android/stubs, which Maven Central does not serve); and on its own
#    against the SDK's classes jar, where the SDK's internal members are out of its reach;
#  - its JVM tests run under Robolectric against the real embedded service, which this script
#    starts on free ports with a fresh data folder (sdk/service.sh).
# The Dart tests under test/ run with `flutter test` where Flutter is.
# Ends with one line: `N passed, N failed`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kotlin="$root/node_modules/kotlin-compiler"
kotlin_sdk="$root/sdk/kotlin"
source "$kotlin_sdk/tools/jvm.sh"
build="$here/build"

passed=0
failed=0
# add_counts OUTPUT: prints OUTPUT but its closing count line, and adds that line's counts (a
# run that ended without one counts as one failure).
add_counts() {
  local last more less
  last="$(echo "$1" | tail -n 1)"
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "$1" | sed '$d'
    more="${BASH_REMATCH[1]}"
    less="${BASH_REMATCH[2]}"
  else
    echo "$1"
    echo "FAIL the run ended without its counts"
    more=0
    less=1
  fi
  passed=$((passed + more))
  failed=$((failed + less))
}
finish() {
  echo "$passed passed, $failed failed"
  [[ "$failed" -eq 0 ]]
  exit
}

set +e
add_counts "$(node "$here/tool/check.mjs")"
set -e

# kotlinc ARGS...: the npm Kotlin compiler, its note about the standard library left out.
kotlinc() {
  "$kotlin/bin/kotlinc" -jvm-target 17 -Werror "$@" 2>&1 | { grep -v '^warning: unable to find kotlin-stdlib' || true; }
}
# stale STAMP PATHS...: true when a file under PATHS is newer than STAMP, or STAMP is missing.
stale() {
  local stamp="$1"
  shift
  [[ ! -f "$stamp" ]] || [[ -n "$(find "$@" -newer "$stamp" -type f | head -1)" ]]
}

mkdir -p "$build"
if ! compile_classpath="$(bash "$kotlin_sdk/classpath.sh")"; then
  echo "FAIL the Kotlin SDK's classpath (sdk/kotlin/classpath.sh)"
  failed=$((failed + 1))
  finish
fi
# Robolectric, JUnit and the SDK's dependencies at run time, as the Kotlin SDK's tests have
# them, and the instrumented Android framework that Robolectric runs them on.
{
  read -r test_classpath
  read -r android_all_instrumented
} < <(source "$kotlin_sdk/tools/deps.sh" && fetch_deps && echo "$test_classpath" && echo "$android_all_instrumented_jar")
# The framework the sources compile against, last on the tests' classpath as android.jar is in a
# Gradle build's unit tests: JUnit reflects on the test class with it, Robolectric runs the
# tests on the instrumented one.
android_all="$(tr ':' '\n' <<<"$compile_classpath" | grep '/android-all-[^/]*\.jar$' | head -1)"

# The Kotlin language and API version the Kotlin SDK is built for (its catalog's kotlinLanguage),
# which the plugin and the SDK's sources are compiled for here too: what an app's Kotlin Gradle
# plugin 2.0 or later compiles.
kotlin_language="$(sed -nE 's/^kotlinLanguage = "([^"]+)"/\1/p' "$kotlin_sdk/gradle/libs.versions.toml")"
kotlin_flags=(-language-version "$kotlin_language" -api-version "$kotlin_language" -Xsuppress-version-warnings)
# stamped STAMP WHAT: the check WHAT passed when STAMP, which its step touches once done, is there.
stamped() {
  if [[ -f "$1" ]]; then
    echo "ok   $2"
    passed=$((passed + 1))
  else
    echo "FAIL $2"
    failed=$((failed + 1))
    return 1
  fi
}
stubs="$build/flutter-stubs"
classes="$build/classes"
main_sources=("$here/android/src/main/kotlin" "$kotlin_sdk/src/main/kotlin")
if stale "$build/main.stamp" "$here/android/stubs" "${main_sources[@]}" "$kotlin_sdk/gradle" "$here/test.sh"; then
  rm -rf "$stubs" "$classes" "$build/main.stamp" "$build/test.stamp"
  mkdir -p "$stubs" "$classes"
  javac -nowarn -cp "$compile_classpath" -d "$stubs" $(find "$here/android/stubs" -name '*.java') &&
    kotlinc "${kotlin_flags[@]}" \
      -cp "$compile_classpath:$stubs" -d "$classes" "${main_sources[@]}" &&
    [[ -f "$classes/com/service/attribution/flutter/ServiceAttributionPlugin.class" ]] &&
    touch "$build/main.stamp"
fi
stamped "$build/main.stamp" "android/ compiles with the Kotlin SDK against the Android framework" || finish

# The plugin as a module of its own, against the Kotlin SDK's classes jar (the SDK's sources
# compiled as sdk/kotlin/test.sh compiles them for its AAR, under the release variant's module
# name): as an app's build compiles it when it depends on the SDK's published artifact. Compiled
# with the SDK's sources in one module, as above, the plugin could call a member internal to the
# SDK; against the jar that fails, as it would there. Wrappers call SdkWrapper instead.
artifact="$build/attribution-sdk"
if stale "$build/artifact.stamp" "$build/main.stamp"; then
  rm -rf "$artifact" "$build/artifact.stamp"
  mkdir -p "$artifact/classes" "$artifact/plugin"
  kotlinc "${kotlin_flags[@]}" \
    -jvm-default=no-compatibility -module-name attribution-sdk_release \
    -cp "$compile_classpath" -d "$artifact/classes" "$kotlin_sdk/src/main/kotlin" &&
    jar --create --no-manifest --file "$artifact/classes.jar" -C "$artifact/classes" . &&
    kotlinc "${kotlin_flags[@]}" \
      -cp "$artifact/classes.jar:$compile_classpath:$stubs" -d "$artifact/plugin" "$here/android/src/main/kotlin" &&
    [[ -f "$artifact/plugin/com/service/attribution/flutter/ServiceAttributionPlugin.class" ]] &&
    touch "$build/artifact.stamp"
fi
stamped "$build/artifact.stamp" "android/ compiles as a module of its own against the Kotlin SDK's classes jar (no internal member)" || true

test_classes="$build/test-classes"
if stale "$build/test.stamp" "$here/android/src/test" "$build/main.stamp"; then
  rm -rf "$test_classes"
  mkdir -p "$test_classes"
  kotlinc -cp "$classes:$stubs:$compile_classpath:$test_classpath" -d "$test_classes" "$here/android/src/test/kotlin" &&
    [[ -f "$test_classes/com/service/attribution/flutter/TestMainKt.class" ]] &&
    touch "$build/test.stamp"
fi
if [[ ! -f "$build/test.stamp" ]]; then
  echo "FAIL android/src/test compiles"
  failed=$((failed + 1))
  finish
fi

source "$root/sdk/service.sh"
start_service "$root"
# One JVM per test class: the SDK is one per process, as in an app, and the configuration
# errors need an SDK configured with a wrong address, a rejected key or no address from the start
# (and NetworkStackErrorTest a network stack of its own for the whole process).
for test_class in ServiceAttributionPluginTest ConfigurationErrorTest RejectedKeyTest NoServiceAddressTest LateErrorListenerTest HotRestartTest NetworkStackErrorTest; do
  set +e
  output="$(java -Xmx1g "${jvm_flags[@]}" -cp "$test_classes:$classes:$stubs:$here/android/src/test/resources:$test_classpath:$kotlin/lib/kotlin-stdlib.jar:$android_all" \
    -Drepo.root="$root" "${robolectric_flags[@]}" -Drobolectric.dependency.dir="$(dirname "$android_all_instrumented")" \
    com.service.attribution.flutter.TestMainKt "com.service.attribution.flutter.$test_class" 2>"$build/jvm-tests-$test_class.log")"
  set -e
  add_counts "$output"
done
finish
