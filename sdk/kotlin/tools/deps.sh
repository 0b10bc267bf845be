# Sourced by test.sh and classpath.sh: reads gradle/libs.versions.toml and fetches, with Maven
# from Maven Central, the artifacts at the versions it names (into ~/.m2, as any Maven build
# does). Fetched again only when the catalog or build.gradle.kts changes.
#
# Sets: catalog, build, deps (folder), and after fetch_deps:
#   android_all_jar     Robolectric's android-all for compileSdk (compiled against)
#   android_all_instrumented_jar  the same, instrumented (what Robolectric runs tests on)
#   kotlin_stdlib_jar   the standard library the library is compiled against (the POM's)
#   main_classpath      what the library's sources compile against (android-all, declared deps)
#   consumer_classpath  main_classpath plus kotlinx-coroutines-android (for code built on the SDK)
#   test_classpath      the declared deps' runtime, JUnit and Robolectric (no android-all:
#                       Robolectric loads it itself)
# Every Maven message goes to stderr, so a caller's stdout stays its own.

kotlin_sdk="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$kotlin_sdk/tools/jvm.sh"
catalog="$kotlin_sdk/gradle/libs.versions.toml"
build="$kotlin_sdk/build"
deps="$build/deps"

# catalog_version NAME: the value of NAME in [versions].
catalog_version() {
  awk -v name="$1" '
    /^\[/ { section = $0; next }
    section == "[versions]" && $1 == name { match($0, /"[^"]*"/); print substr($0, RSTART + 1, RLENGTH - 2); exit }
  ' "$catalog"
}

# catalog_library ALIAS: group:artifact:version of ALIAS in [libraries].
catalog_library() {
  local line module ref
  line="$(awk -v name="$1" '
    /^\[/ { section = $0; next }
    section == "[libraries]" && $1 == name { print; exit }
  ' "$catalog")"
  [[ -n "$line" ]] || { echo "no library $1 in $catalog" >&2; return 1; }
  module="$(sed -E 's/.*module *= *"([^"]*)".*/\1/' <<<"$line")"
  ref="$(sed -E 's/.*version\.ref *= *"([^"]*)".*/\1/' <<<"$line")"
  echo "$module:$(catalog_version "$ref")"
}

# The dependencies build.gradle.kts declares: lines "configuration alias", e.g. "implementation
# kotlinx-coroutines-core" (Gradle's accessor libs.a.b.c is the catalog's alias a-b-c).
declared_dependencies() {
  sed -nE 's/^ *(api|implementation|compileOnly|runtimeOnly|testImplementation)\(libs\.([A-Za-z0-9.]+)\).*/\1 \2/p' \
    "$kotlin_sdk/build.gradle.kts" | sed -E 's/\./-/g'
}

# maven_type GROUP: the packaging of an artifact Maven is asked for (Android libraries are AARs).
maven_type() {
  case "$1" in
    com.android.installreferrer | com.google.android.gms) echo aar ;;
    *) echo jar ;;
  esac
}

# pom_dependency G:A:V SCOPE
pom_dependency() {
  local g a v
  IFS=: read -r g a v <<<"$1"
  printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version><type>%s</type><scope>%s</scope></dependency>\n' \
    "$g" "$a" "$v" "$(maven_type "$g")" "$2"
}

# Maven's output is shown only when it fails.
mvn_quiet() {
  local log="$deps/mvn.log"
  if ! mvn -B -q -Dstyle.color=never "$@" >"$log" 2>&1; then
    cat "$log" >&2
    return 1
  fi
}

# aar_classes FILE: a jar of the AAR's classes (its classes.jar), extracted once.
aar_classes() {
  local out="$deps/aar/$(basename "$1" .aar).jar"
  if [[ ! -f "$out" ]]; then
    mkdir -p "$deps/aar"
    unzip -p "$1" classes.jar >"$out.tmp" && mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# fetch_deps: one at a time, as the Kotlin SDK's and the Flutter plugin's checks may run side by
# side: the second waits for the first's fetch, then reads its list.
fetch_deps() {
  local lock status=0
  mkdir -p "$deps"
  exec {lock}>"$deps/fetch.lock"
  flock "$lock"
  fetch_deps_now || status=$?
  exec {lock}>&-
  return "$status"
}

fetch_deps_now() {
  local stamp="$deps/fetched.stamp"
  if [[ ! -f "$stamp" || "$catalog" -nt "$stamp" || "$kotlin_sdk/build.gradle.kts" -nt "$stamp" || ! -f "$deps/list.txt" ]]; then
    {
      echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
      echo '  <groupId>local</groupId><artifactId>attribution-sdk-deps</artifactId><version>0</version><packaging>pom</packaging>'
      echo '  <dependencies>'
      pom_dependency "$(catalog_library android-all)" provided
      pom_dependency "$(catalog_library robolectric-android-all)" test
      pom_dependency "$(catalog_library kotlinx-coroutines-android)" provided
      pom_dependency "$(catalog_library kotlin-stdlib)" provided
      local configuration alias
      while read -r configuration alias; do
        case "$configuration" in
          api | implementation | compileOnly) pom_dependency "$(catalog_library "$alias")" compile ;;
          testImplementation) pom_dependency "$(catalog_library "$alias")" test ;;
        esac
      done < <(declared_dependencies)
      echo '  </dependencies>'
      echo '</project>'
    } >"$deps/pom.xml"
    echo "fetching the SDK's dependencies from Maven Central (versions from gradle/libs.versions.toml)" >&2
    rm -f "$deps/list.txt" "$deps/tree.tgf"
    mvn_quiet -f "$deps/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list \
      -DoutputAbsoluteArtifactFilename=true -DoutputFile="$deps/list.txt" -DexcludeTransitive=false || return 1
    mvn_quiet -f "$deps/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:tree \
      -DoutputType=tgf -DoutputFile="$deps/tree.tgf" || return 1
    touch "$stamp"
  fi

  local path scope group artifact jar
  android_all_jar=""
  kotlin_stdlib_jar=""
  local compile=() provided=() test=()
  while read -r scope group artifact path; do
    [[ "$group:$artifact" == org.jetbrains.kotlin:kotlin-stdlib ]] && kotlin_stdlib_jar="$path"
    # Kotlin's own runtime comes with the compiler that test.sh runs, at the catalog's version.
    [[ "$group" == org.jetbrains.kotlin || "$group:$artifact" == org.jetbrains:annotations ]] && continue
    jar="$path"
    [[ "$path" == *.aar ]] && jar="$(aar_classes "$path")"
    if [[ "$artifact" == android-all ]]; then
      android_all_jar="$jar"
    elif [[ "$artifact" == android-all-instrumented ]]; then
      android_all_instrumented_jar="$jar"
    elif [[ "$scope" == provided ]]; then
      provided+=("$jar")
    elif [[ "$scope" == test ]]; then
      test+=("$jar")
    else
      compile+=("$jar")
    fi
  done < <(dependencies)
  [[ -n "$android_all_jar" ]] || { echo "android-all was not fetched" >&2; return 1; }
  [[ -n "$kotlin_stdlib_jar" ]] || { echo "kotlin-stdlib was not fetched" >&2; return 1; }
  main_classpath="$(IFS=:; echo "$android_all_jar${compile[*]:+:${compile[*]}}")"
  consumer_classpath="$main_classpath${provided[*]:+:$(IFS=:; echo "${provided[*]}")}"
  test_classpath="$(IFS=:; echo "${compile[*]}:${test[*]}")"
}

# dependencies: the fetched list (fetch_deps), a dependency a line: "SCOPE GROUP ARTIFACT PATH".
dependencies() {
  # Its lines: "   group:artifact:type[:classifier]:version:scope:/path[ -- module …]".
  local line coordinates group artifact
  while read -r line; do
    line="${line%% -- *}"
    [[ "$line" == *:/* ]] || continue
    coordinates="${line%%:/*}"
    IFS=: read -r group artifact _ <<<"$coordinates"
    echo "${coordinates##*:} $group $artifact /${line#*:/}"
  done <"$deps/list.txt"
}

# fetch_consumer_compiler: the older Kotlin compiler an app of the catalog's kotlinStdlib era
# builds with (kotlin-compiler-embeddable and its runtime, from Maven Central), for the consumer
# apps. Sets consumer_kotlinc_classpath (run org.jetbrains.kotlin.cli.jvm.K2JVMCompiler on it).
fetch_consumer_compiler() {
  local dir="$deps/consumer-compiler"
  if [[ ! -f "$dir/list.txt" || "$catalog" -nt "$dir/list.txt" ]]; then
    mkdir -p "$dir"
    {
      echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
      echo '  <groupId>local</groupId><artifactId>attribution-sdk-consumer-compiler</artifactId><version>0</version><packaging>pom</packaging>'
      echo '  <dependencies>'
      pom_dependency "$(catalog_library kotlin-compiler-embeddable)" compile
      echo '  </dependencies>'
      echo '</project>'
    } >"$dir/pom.xml"
    rm -f "$dir/list.txt"
    mvn_quiet -f "$dir/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list \
      -DoutputAbsoluteArtifactFilename=true -DoutputFile="$dir/list.txt.tmp" -DexcludeTransitive=false || return 1
    mv "$dir/list.txt.tmp" "$dir/list.txt"
  fi
  consumer_kotlinc_classpath="$(sed -nE 's/.*:(\/[^ ]*\.jar).*/\1/p' "$dir/list.txt" | tr '\n' ':' | sed 's/:$//')"
  [[ -n "$consumer_kotlinc_classpath" ]]
}
