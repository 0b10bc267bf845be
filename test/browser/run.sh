#!/usr/bin/env bash
# The browser tests (the dashboard, the link host's landing page and its client hints): the
# dashboard built from dashboard/src, the embedded runtime on free ports, and the machine's Chromium
# (/usr/bin/chromium, or ATTRIBUTION_CHROMIUM) driven by playwright-core; no browser is
# downloaded. Each page's screenshot goes to test-results/browser/. Ends with one line:
# `N passed, N failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
chromium="${ATTRIBUTION_CHROMIUM:-/usr/bin/chromium}"
screenshots="$root/test-results/browser"

fail() {
  echo "$1"
  echo "0 passed, 1 failed"
  exit 1
}

[ -x "$chromium" ] ||
  fail "No Chromium at $chromium: install it (on Debian: apt-get install chromium), or name one in ATTRIBUTION_CHROMIUM."

npm run --silent build:dashboard || fail "the dashboard did not build"

rm -rf "$screenshots"
report="$(mktemp -d)/vitest.json"
status=0
ATTRIBUTION_CHROMIUM="$chromium" npx vitest run --config test/browser/vitest.config.ts \
  --reporter=default --reporter=json --outputFile="$report" "$@" || status=$?

passed=0
failed=0
if [ -f "$report" ]; then
  read -r passed failed < <(node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    console.log(`${r.numPassedTests} ${r.numFailedTests}`);
  ' "$report")
fi
rm -rf "$(dirname "$report")"
# A run that stopped before vitest reported (the config or an import failed) is a failure.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "Screenshots: $screenshots"
echo "${passed} passed, ${failed} failed"
exit "$status"
