#!/usr/bin/env bash
# The iOS SDK's checks on a machine without a Swift compiler or Xcode: every Swift file of the
# package and of the Flutter plugin's iOS side parses (tree-sitter's Swift grammar, from npm at
# the repository root), the wire values written in Swift are the conformance vectors', the
# packaging names what is there, and the Flutter plugin answers every method the Dart side
# invokes (tool/check.mjs). The XCTest suite under Tests/ runs on a Mac: `swift test` at the
# repository's root (Package.swift is there), or Xcode. Ends with one line: `N passed, N failed`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [[ ! -f "$root/node_modules/tree-sitter-wasms/out/tree-sitter-swift.wasm" ]]; then
  echo "FAIL tree-sitter's Swift grammar is not installed: run npm ci at the repository root"
  echo "0 passed, 1 failed"
  exit 1
fi

set +e
checks="$(cd "$here" && node "$here/tool/check.mjs")"
status=$?
set -e
echo "$checks"
counts="$(echo "$checks" | tail -n 1)"
if ! [[ "$counts" =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
  echo "0 passed, 1 failed"
  exit 1
fi
[[ "$status" -eq 0 ]]
