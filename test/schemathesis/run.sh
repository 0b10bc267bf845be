#!/usr/bin/env bash
# Schemathesis against the service's own OpenAPI document: the embedded service on free ports
# with a fresh data folder (sdk/service.sh), one app made with the project's CLI, then every
# operation of its GET /v1/openapi.json, the SDK key sent to the operations tagged SDK, a
# signed-in admin's session to those tagged Dashboard, and the server key to the others
# (hooks.py). No answer may be a 5xx, and each answer's status,
# content type, headers and body must be ones the document declares for its operation.
#
# Schemathesis, pinned, is installed in .venv-schemathesis/ (git-ignored) on first use and
# reused after. SCHEMATHESIS_MAX_EXAMPLES bounds the cases per operation and phase (default
# 50: about a minute and a half on 2 cores, most of it Schemathesis's own generation; the
# coverage phase's boundary cases come whatever the bound); other arguments go to
# `schemathesis run` as they are.
# Ends with one line: `N passed, N failed`, counting operations and the stateful phase.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="4.32.5"
# The git-ignored .venv-schemathesis/, or one of this version's own in the folder that
# ATTRIBUTION_VENV_HOME names (CI keeps one between runs, as Maven keeps its repository).
venv="${ATTRIBUTION_VENV_HOME:+$ATTRIBUTION_VENV_HOME/schemathesis-$version}"
venv="${venv:-$root/.venv-schemathesis}"
max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-25}"

fail() {
  echo "$1"
  echo "0 passed, 1 failed"
  exit 1
}

if [[ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != *" $version" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv" || fail "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" ||
    fail "could not install schemathesis $version"
fi
# `run.sh --install` stops here: CI installs ahead of the run, while other work goes on.
[[ "${1:-}" != "--install" ]] || exit 0

# shellcheck source=../../sdk/service.sh
source "$root/sdk/service.sh"
start_service "$root"

# The app whose keys the run sends, and the spare app that takes the calls that would change it
# or revoke its keys (hooks.py).
app_id=com.example.schemathesis
spare_app_id=com.example.spare
created="$(cd "$root" && ATTRIBUTION_DATA_DIR="$SERVICE_DATA_DIR" node bin/attribution.js \
  apps create --app-id "$app_id" --name Schemathesis --platform android --json)" ||
  fail "could not create the app"
keys="$(node -e '
  const { keys } = JSON.parse(process.argv[1]);
  const of = (kind) => keys.find((key) => key.kind === kind).key;
  console.log(`${of("sdk")} ${of("server")}`);
' "$created")" || fail "the app's keys are not in: $created"
read -r sdk_key server_key <<<"$keys"
(cd "$root" && ATTRIBUTION_DATA_DIR="$SERVICE_DATA_DIR" node bin/attribution.js \
  apps create --app-id "$spare_app_id" --name Spare --platform ios >/dev/null) ||
  fail "could not create the spare app"

# A signed-in admin for the dashboard's operations: its cookie and CSRF token.
password="schemathesis-password-1"
(cd "$root" && ATTRIBUTION_DATA_DIR="$SERVICE_DATA_DIR" node bin/attribution.js \
  users add schemathesis@example.com --admin --password "$password" >/dev/null) ||
  fail "could not add the dashboard user"
signed_in="$(curl -sS -D - -H 'content-type: application/json' \
  -d "{\"email\":\"schemathesis@example.com\",\"password\":\"$password\"}" \
  "$SERVICE_URL/v1/session")" || fail "could not sign in"
session_cookie="$(grep -io 'attribution_session=[^;]*' <<<"$signed_in" | head -n 1)"
csrf="$(grep -o '"csrf_token":"[^"]*"' <<<"$signed_in" | cut -d'"' -f4)"
[[ -n "$session_cookie" && -n "$csrf" ]] || fail "sign-in gave no session: $signed_in"

# --include-path-regex: Schemathesis leaves out the operation that served the document unless a
#   filter names it, and GET /v1/openapi.json is one of the API's operations.
# --checks: the five that hold answers to the document. Of the others, negative_data_rejection
#   and positive_data_acceptance cannot apply: the batch routes answer 202 and reject a bad
#   event or touch by index in the body, and some rules are not schema's (an event time within
#   the server clock's bounds, a cursor from an earlier page). unsupported_method wants 405,
#   where API Gateway's REST API, and so the embedded gateway, answers 404 for a method and
#   path that match no operation (the document says so).
# --seed: the same cases on every run, so CI is green or red by the code alone; set
#   SCHEMATHESIS_SEED to explore others (a failure prints the seed that reproduces it).
# --workers 1: Python 3.11's ast.parse, which Hypothesis calls, fails now and then under
#   threads ("AST constructor recursion depth mismatch").
# --suppress-health-check too_slow: that check times the generation, which a busy machine
#   slows; the cases are the seed's either way.
# Hypothesis keeps its character tables with the virtualenv, out of the work tree.
report="$service_data/junit.xml"
set +e
(
  cd "$here"
  HYPOTHESIS_STORAGE_DIRECTORY="$venv/hypothesis" SCHEMATHESIS_HOOKS="$here/hooks.py" \
    SCHEMATHESIS_APP_ID="$app_id" SCHEMATHESIS_SPARE_APP_ID="$spare_app_id" \
    SCHEMATHESIS_SDK_KEY="$sdk_key" SCHEMATHESIS_SERVER_KEY="$server_key" \
    SCHEMATHESIS_SESSION_COOKIE="$session_cookie" SCHEMATHESIS_CSRF="$csrf" \
    SCHEMATHESIS_EMAIL=schemathesis@example.com \
    "$venv/bin/schemathesis" --config-file "$here/schemathesis.toml" \
    run "$SERVICE_URL/v1/openapi.json" --url "$SERVICE_URL" --include-path-regex '^/' \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
    --max-examples "$max_examples" --seed "${SCHEMATHESIS_SEED:-20261126}" --workers 1 \
    --generation-database none --suppress-health-check too_slow \
    --request-timeout 30 --no-color --report junit --report-junit-path "$report" "$@"
)
status=$?
set -e

[[ -f "$report" ]] || fail "schemathesis wrote no report (exit $status)"
# One test case per operation, and one for the stateful phase.
read -r passed failed < <("$venv/bin/python" - "$report" <<'PY'
import sys
import xml.etree.ElementTree as ET

cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
outcomes = [any(child.tag in ("failure", "error") for child in case) for case in cases]
print(outcomes.count(False), outcomes.count(True))
PY
)
if [[ "$status" -ne 0 && "$failed" -eq 0 ]]; then failed=1; fi
echo "$passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
