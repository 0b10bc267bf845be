#!/usr/bin/env bash
# The Flutter package's checks on a machine without a Dart SDK: every Dart file parses, and
# the Dart side's rule tables are the conformance vectors'. The Dart tests under test/ run with
# `flutter test` where Flutter is installed.
set -euo pipefail
cd "$(dirname "$0")"
node tool/check.mjs
