#!/usr/bin/env bash
# Prints one colon-separated classpath: what code compiled together with
# sdk/kotlin/src/main/kotlin needs besides those sources (Robolectric's android-all jar for
# compileSdk, the declared dependencies' classes, AARs' classes.jar included, and
# kotlinx-coroutines core and android). Fetches them from Maven Central first if needed, at the
# versions of gradle/libs.versions.toml. Kotlin's standard library is the compiler's own.
#   kotlinc -cp "$(sdk/kotlin/classpath.sh)" sdk/kotlin/src/main/kotlin my/plugin/src
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tools/deps.sh"
fetch_deps
echo "$consumer_classpath"
