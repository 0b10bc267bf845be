#!/usr/bin/env bash
# Builds and tests the Kotlin SDK without Gradle or an Android SDK:
#  1. fetches from Maven Central, with Maven, the artifacts gradle/libs.versions.toml names
#     (Robolectric's android-all for compileSdk, the declared dependencies, JUnit, Robolectric);
#  2. compiles src/main/kotlin against the real android-all jar, then src/test/kotlin, with
#     npm's Kotlin compiler (each cached until its sources change);
#  3. builds the library's AAR and POM into build/repo, a local Maven repository, and checks
#     them: the imports of src/main against the declared dependencies, the POM's dependencies
#     resolving from Maven Central;
#  4. starts the real embedded service and runs every test: the JVM core, the conformance
#     vectors, end to end against the service, the Android layer under Robolectric, and the
#     consumer apps (one of them also shrunk by R8 with the consumer rules).
# Each check prints `ok  <name>` or `FAIL <name>`; ends with one line: `N passed, N failed`.
# `./test.sh Word` runs only the test classes whose name contains Word.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/tools/deps.sh"
kotlinc_home="$root/node_modules/kotlin-compiler"
lib="$kotlinc_home/lib"
kotlin_runtime="$lib/kotlin-stdlib.jar:$lib/kotlin-test.jar:$lib/kotlin-test-junit.jar"

passed=0
failed=0
ok() { echo "ok  $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [[ "$failed" -eq 0 ]]; exit $?; }

fetch_deps || { fail "fetch the dependencies from Maven Central"; finish; }
ok "fetch the dependencies from Maven Central"

# The Kotlin compiler here is the one the catalog's Kotlin plugin version names.
compiler_version="$(node -p "require('$kotlinc_home/package.json').version")"
if [[ "$compiler_version" == "$(catalog_version kotlin)" ]]; then
  ok "the Kotlin compiler is the catalog's version ($compiler_version)"
else
  fail "the Kotlin compiler is the catalog's version" "npm has $compiler_version, the catalog $(catalog_version kotlin)"
fi

# compile NAME OUT STAMP_INPUTS... -- KOTLINC_ARGS...: compiled again only when an input changed.
compile() {
  local name="$1" out="$2" stamp="$2.stamp" inputs=()
  shift 2
  while [[ "$1" != -- ]]; do inputs+=("$1"); shift; done
  shift
  if [[ ! -f "$stamp" ]] || [[ -n "$(find "${inputs[@]}" -newer "$stamp" -type f | head -1)" ]]; then
    rm -rf "$out" "$stamp"
    mkdir -p "$out"
    local log="$out.log"
    if "$kotlinc_home/bin/kotlinc" -jvm-target "$(catalog_version jvmTarget)" -Werror -d "$out" "$@" >"$log" 2>&1 \
      && [[ -n "$(find "$out" -name '*.class' | head -1)" ]]; then
      touch "$stamp"
    else
      grep -v '^warning: unable to find kotlin-stdlib' "$log" | head -60
      fail "compile $name"
      return 1
    fi
  fi
  ok "compile $name"
}

main_classes="$build/main-classes"
test_classes="$build/test-classes"
# src/main against android-all (as an app's build compiles it against android.jar) and the
# declared dependencies only: a class of a test library used there fails here.
# For Kotlin 2.0 (language and API version, the standard library 2.0.21 rather than the
# compiler's own), as build.gradle.kts sets it: an app still on Kotlin 2.0 reads the classes.
# An interface's members with a body are Java default methods (-jvm-default), so that Java
# passes a lambda where the interface has one abstract member (InitListener). The module is
# named as Gradle names the release variant's (its META-INF/*.kotlin_module in the AAR).
compile "src/main for Kotlin $(catalog_version kotlinLanguage) against android-all $(catalog_version compileSdk), kotlin-stdlib $(catalog_version kotlinStdlib) and the declared dependencies" "$main_classes" \
  "$here/src/main/kotlin" "$catalog" "$here/build.gradle.kts" -- \
  -language-version "$(catalog_version kotlinLanguage)" -api-version "$(catalog_version kotlinLanguage)" -Xsuppress-version-warnings \
  -jvm-default=no-compatibility -module-name attribution-sdk_release -no-stdlib -no-reflect -cp "$kotlin_stdlib_jar:$main_classpath" "$here/src/main/kotlin" || finish
compile "src/test" "$test_classes" "$here/src/test/kotlin" "$main_classes.stamp" -- -Xfriend-paths="$main_classes" \
  -cp "$main_classes:$main_classpath:$test_classpath:$kotlin_runtime" "$here/src/test/kotlin" || finish

source "$here/tools/artifact.sh"
build_artifact
check_artifact
check_kotlin_metadata
check_sdk_version

# No wrapper jar is committed: the README's `gradle wrapper --gradle-version` writes the wrapper
# for the Gradle the build names, and must say the same version.
wrapper_gradle="$(sed -nE 's|^distributionUrl=.*/gradle-([0-9.]+)-bin\.zip$|\1|p' "$here/gradle/wrapper/gradle-wrapper.properties")"
readme_gradle="$(sed -nE 's|^gradle wrapper --gradle-version ([0-9.]+).*|\1|p' "$here/README.md")"
if [[ -n "$wrapper_gradle" && "$readme_gradle" == "$wrapper_gradle" ]] && grep -q "Gradle $wrapper_gradle" "$here/README.md"; then
  ok "the README's gradle wrapper step names the build's Gradle ($wrapper_gradle)"
else
  fail "the README's gradle wrapper step names the build's Gradle" "wrapper properties: ${wrapper_gradle:-none}, README: ${readme_gradle:-none}"
fi

# The Robolectric tests run on the catalog's compileSdk.
robolectric_sdks="$(grep -rhoE '@Config\(sdk = \[[0-9]+\]' "$here/src/test/kotlin" | grep -oE '[0-9]+' | sort -u | tr '\n' ' ')"
if [[ "$robolectric_sdks" == "$(catalog_version compileSdk) " ]]; then
  ok "the Robolectric tests run on compileSdk ($(catalog_version compileSdk))"
else
  fail "the Robolectric tests run on compileSdk ($(catalog_version compileSdk))" "@Config(sdk) says $robolectric_sdks"
fi

# The service, once for the whole run; Robolectric never downloads: android-all comes from the
# folder Maven fetched it into.
source "$root/sdk/service.sh"
start_service "$root"

# The consumer apps (consumers/), as apps of the Kotlin 2.0 era build them: `./test.sh Consumer`.
if [[ -z "${1:-}" || "Consumer" == *"$1"* || "$1" == *Consumer* ]]; then
  source "$here/tools/consumers.sh"
  run_consumers
fi

log="$build/tests.log"
set +e
java -Xmx1g "${jvm_flags[@]}" -cp "$test_classes:$main_classes:$test_classpath:$kotlin_runtime:$android_all_jar" \
  -Drepo.root="$root" \
  "${robolectric_flags[@]}" -Drobolectric.dependency.dir="$(dirname "$android_all_instrumented_jar")" \
  com.service.attribution.TestMainKt "$test_classes" ${1:+"$1"} | tee "$log"
set -e
counts="$(grep -E '^junit: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)"
if [[ -z "$counts" ]]; then
  fail "the tests ran to their end"
else
  read -r _ p _ f _ <<<"$counts"
  passed=$((passed + p))
  failed=$((failed + f))
fi
finish
