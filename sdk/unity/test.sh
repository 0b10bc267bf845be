#!/usr/bin/env bash
# Builds the Unity SDK with Debian's mono (C# 7.2) and runs its NUnit tests: the core's rules,
# every shared conformance vector, and end-to-end tests against the real embedded service,
# which this script starts on free ports with a fresh data folder. The core is built without
# UnityEngine; the Unity layer, the Editor code and the README's snippets (Samples~/) are
# compiled against compile-only declarations (UnityStubs~/), and so are the README's C# blocks
# as they stand (Tools~/readme-blocks.awk). Then the package as Unity reads it
# (Tools~/check-package.mjs):
# every asset's .meta, the External Dependency Manager's declarations, the iOS plugins parsed as
# Objective-C and Swift, their privacy manifest against the iOS SDK's, the license. Unity never
# imports a folder whose name ends in ~, so the declarations, the checks, the tests and the build
# output (build~/) stay out of an app.
# Ends with one line: `N passed, N failed`, over the tests and the package checks.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$here/build~"
rm -rf "$build"
mkdir -p "$build"
cd "$here"

fail() {
  echo "$1"
  echo "0 passed, 1 failed"
  exit 1
}
mcs -langversion:7.2 -target:library -warnaserror -out:"$build/Service.Unity.dll" \
  -r:System.Net.Http -pkg:newtonsoft-json $(find Runtime/Core Runtime/ServiceSDK.cs -name '*.cs') ||
  fail "the core does not compile"
mcs -langversion:7.2 -target:library -out:"$build/UnityEngine.dll" 'UnityStubs~/UnityEngine.cs' ||
  fail "the UnityEngine declarations do not compile"
mcs -langversion:7.2 -target:library -out:"$build/UnityEditor.dll" -r:"$build/UnityEngine.dll" 'UnityStubs~/UnityEditor.cs' ||
  fail "the UnityEditor declarations do not compile"
# The Unity layer as the Editor, an Android player and an iOS player build it.
for target in EDITOR ANDROID IOS WEBGL; do
  mcs -langversion:7.2 -target:library -warnaserror -define:"UNITY_$target" \
    -out:"$build/Service.Unity.Layer.dll" \
    -r:"$build/UnityEngine.dll" -r:"$build/Service.Unity.dll" $(find Runtime/Unity -name '*.cs') ||
    fail "the Unity layer does not compile for UNITY_$target"
done
# The README's snippets as an app's script holds them (Samples~/ReadmeUsage.cs), with
# `using UnityEngine;`, whose EventType the SDK's must not clash with.
mcs -langversion:7.2 -target:library -nowarn:219 -out:"$build/ReadmeUsage.dll" \
  -r:"$build/UnityEngine.dll" -r:"$build/Service.Unity.dll" 'Samples~/ReadmeUsage.cs' ||
  fail "the README's snippets do not compile in an app's script"
# The README's C# blocks themselves, as they stand, in one app script (Tools~/readme-blocks.awk).
[[ "$(grep -c '^```csharp$' README.md)" -gt 0 ]] || fail "the README has no C# block"
awk -f 'Tools~/readme-blocks.awk' README.md >"$build/ReadmeBlocks.cs" 2>/dev/null ||
  fail "the README's C# blocks could not be read"
mcs -langversion:7.2 -target:library -nowarn:219,1998 -out:"$build/ReadmeBlocks.dll" \
  -r:"$build/UnityEngine.dll" -r:"$build/Service.Unity.dll" "$build/ReadmeBlocks.cs" ||
  fail "the README's C# blocks do not compile in an app's script"
# Each sample package.json offers (Samples~/<name>/), as an app's scripts build it once imported.
for sample in Samples~/*/; do
  mcs -langversion:7.2 -target:library -warnaserror -out:"$build/Sample.dll" \
    -r:"$build/UnityEngine.dll" -r:"$build/Service.Unity.dll" $(find "$sample" -name '*.cs') ||
    fail "the sample $sample does not compile in an app"
done
# The Editor code as the Editor builds it with iOS, then Android, as the build target.
for target in IOS ANDROID; do
  mcs -langversion:7.2 -target:library -warnaserror -define:UNITY_EDITOR -define:"UNITY_$target" \
    -out:"$build/Service.Unity.Editor.dll" -r:"$build/UnityEngine.dll" -r:"$build/UnityEditor.dll" \
    $(find Editor -name '*.cs') ||
    fail "the Editor code does not compile with UNITY_$target"
done
mcs -langversion:7.2 -target:library -out:"$build/Service.Unity.Tests.dll" \
  -r:"$build/Service.Unity.dll" -r:System.Net.Http -pkg:newtonsoft-json -pkg:nunit $(find 'Tests~' -name '*.cs') ||
  fail "the tests do not compile"

# The package as Unity, its External Dependency Manager and Xcode read it.
set +e
node 'Tools~/check-package.mjs' >"$build/package-checks.log" 2>&1
set -e
cat "$build/package-checks.log"
checks="$(grep -E '^package checks: [0-9]+ passed, [0-9]+ failed$' "$build/package-checks.log" | tail -1)"
[[ -n "$checks" ]] || fail "the package checks did not finish"
checks_passed="$(echo "$checks" | cut -d' ' -f3)"
checks_failed="$(echo "$checks" | cut -d' ' -f5)"

# The service, once for the whole run.
source "$root/sdk/service.sh"
start_service "$root"
export REPO_ROOT="$root"

set +e
# A device is seldom on UTC: the tests run 13 h 45 min ahead of it (Chatham Islands, with its own
# daylight saving), where a time read as local rather than universal is off by hours, not by none.
(cd "$build" && TZ=Pacific/Chatham nunit-console -nologo -noshadow -result="$build/TestResult.xml" Service.Unity.Tests.dll ${1:+-run="$1"}) >"$build/nunit.log" 2>&1
status=$?
set -e
grep -E "^(Tests run|Errors and Failures|[0-9]+\) )" -A3 "$build/nunit.log" | head -60 || true
[[ -f "$build/TestResult.xml" ]] || { cat "$build/nunit.log"; fail "nunit wrote no result"; }
total="$(grep -o 'total="[0-9]*"' "$build/TestResult.xml" | head -1 | tr -dc 0-9)"
failures="$(grep -o ' failures="[0-9]*"' "$build/TestResult.xml" | head -1 | tr -dc 0-9)"
errors="$(grep -o ' errors="[0-9]*"' "$build/TestResult.xml" | head -1 | tr -dc 0-9)"
not_run="$(grep -o 'not-run="[0-9]*"' "$build/TestResult.xml" | head -1 | tr -dc 0-9)"
failed=$((failures + errors))
echo "$((total - failed + checks_passed)) passed, $((failed + not_run + checks_failed)) failed"
[[ "$status" -eq 0 && "$failed" -eq 0 && "$not_run" -eq 0 && "$checks_failed" -eq 0 ]]
