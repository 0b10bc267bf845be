#!/usr/bin/env bash
# The SQL the AWS runtime sends to Athena, parsed by Trino's own parser (Athena engine version 3
# is Trino): statements.ts writes every statement the service's builders make in the Athena
# dialect, and ParseAthenaSql.java parses each. Nothing here runs Athena, which this machine
# cannot reach: a parse catches what DuckDB's tests cannot, SQL that is DuckDB's alone or not
# SQL at all, and leaves names and types to Athena. Needs Maven (the parser from Maven Central)
# and Java 25 (ATHENA_SQL_JAVA, else temurin-25's, else `java` on the PATH).
# Ends with one line: `N passed, N failed`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

fail() {
  echo "FAIL $1"
  echo "0 passed, 1 failed"
  exit 1
}

java="${ATHENA_SQL_JAVA:-}"
if [[ -z "$java" && -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then
  java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
fi
java="${java:-java}"
version="$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
[[ -n "$version" && "$version" -ge 25 ]] || fail "Trino's parser needs Java 25; ${java} is ${version:-none}: set ATHENA_SQL_JAVA"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt" >"$work/maven.log" 2>&1) ||
  { cat "$work/maven.log"; fail "Maven could not resolve io.trino:trino-parser"; }
(cd "$root" && npx tsx test/athena/statements.ts "$work/sql") || fail "the statements could not be written"
"$java" -cp "$(cat "$work/classpath.txt")" "$here/ParseAthenaSql.java" "$work/sql"
