# Sourced by test.sh after fetch_deps and the compilation of src/main: builds the library's
# artifact as `./gradlew publishReleasePublicationToLocalRepository` would lay it out, and
# checks it. Uses ok/fail from test.sh.

sdk_version="$(catalog_version sdk)"
repo="$build/repo"
artifact_dir="$repo/com/service/attribution-sdk/$sdk_version"
aar="$artifact_dir/attribution-sdk-$sdk_version.aar"
pom="$artifact_dir/attribution-sdk-$sdk_version.pom"

# The dependencies a Gradle publication writes into the POM: the standard library of
# coreLibrariesVersion (compile), each api (compile) and implementation (runtime) of build.gradle.kts.
# Lines "group:artifact:version scope".
pom_dependencies() {
  echo "$(catalog_library kotlin-stdlib) compile"
  local configuration alias
  while read -r configuration alias; do
    case "$configuration" in
      api) echo "$(catalog_library "$alias") compile" ;;
      implementation) echo "$(catalog_library "$alias") runtime" ;;
    esac
  done < <(declared_dependencies)
}

build_artifact() {
  local stage="$build/aar"
  rm -rf "$stage" "$repo"
  mkdir -p "$stage" "$artifact_dir"
  jar --create --no-manifest --file "$stage/classes.jar" -C "$main_classes" .
  # The library's manifest as AGP writes it into an AAR: its namespace as package, and minSdk.
  sed -E "s|<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">|<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"\n    package=\"com.service.attribution\">\n\n    <uses-sdk android:minSdkVersion=\"$(catalog_version minSdk)\" />|" \
    "$kotlin_sdk/src/main/AndroidManifest.xml" >"$stage/AndroidManifest.xml"
  cp "$kotlin_sdk/consumer-rules.pro" "$stage/proguard.txt"
  : >"$stage/R.txt"
  (cd "$stage" && jar --create --no-manifest --file "$aar" AndroidManifest.xml classes.jar proguard.txt R.txt)
  jar --create --no-manifest --file "$artifact_dir/attribution-sdk-$sdk_version-sources.jar" -C "$kotlin_sdk/src/main/kotlin" .

  local name description
  name="$(sed -nE 's/.*name\.set\("([^"]*)"\).*/\1/p' "$kotlin_sdk/build.gradle.kts" | head -1)"
  description="$(sed -nE 's/.*description\.set\("([^"]*)"\).*/\1/p' "$kotlin_sdk/build.gradle.kts" | head -1)"
  # The licence block's name and URL (the first name.set is the POM's own).
  local license_name license_url
  license_name="$(sed -nE '/license \{/,/\}/ s/.*name\.set\("([^"]*)"\).*/\1/p' "$kotlin_sdk/build.gradle.kts")"
  license_url="$(sed -nE '/license \{/,/\}/ s/.*url\.set\("([^"]*)"\).*/\1/p' "$kotlin_sdk/build.gradle.kts")"
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">'
    echo '  <modelVersion>4.0.0</modelVersion>'
    echo '  <groupId>com.service</groupId>'
    echo '  <artifactId>attribution-sdk</artifactId>'
    echo "  <version>$sdk_version</version>"
    echo '  <packaging>aar</packaging>'
    echo "  <name>$name</name>"
    echo "  <description>$description</description>"
    echo '  <licenses>'
    echo '    <license>'
    echo "      <name>$license_name</name>"
    echo "      <url>$license_url</url>"
    echo '    </license>'
    echo '  </licenses>'
    echo '  <dependencies>'
    local coordinates scope g a v
    while read -r coordinates scope; do
      IFS=: read -r g a v <<<"$coordinates"
      echo '    <dependency>'
      echo "      <groupId>$g</groupId>"
      echo "      <artifactId>$a</artifactId>"
      echo "      <version>$v</version>"
      echo "      <scope>$scope</scope>"
      [[ "$(maven_type "$g")" == aar ]] && echo '      <type>aar</type>'
      echo '    </dependency>'
    done < <(pom_dependencies)
    echo '  </dependencies>'
    echo '</project>'
  } >"$pom"
}

# jar_packages JAR...: the packages (a.b.c) with a class in any of the jars.
jar_packages() {
  local jar
  for jar in "$@"; do
    # A jar with no class (a Kotlin multiplatform library's root) gives no package.
    unzip -Z1 "$jar" 2>/dev/null | { grep '\.class$' || true; } | { grep -v '^META-INF/' || true; } | sed -E 's|/[^/]*$||; s|/|.|g'
  done | sort -u
}

check_artifact() {
  local entries
  entries="$(unzip -Z1 "$aar" | sort | tr '\n' ' ')"
  if [[ "$entries" == "AndroidManifest.xml R.txt classes.jar proguard.txt " ]]; then
    ok "the AAR holds classes.jar, AndroidManifest.xml, proguard.txt and R.txt"
  else
    fail "the AAR holds classes.jar, AndroidManifest.xml, proguard.txt and R.txt" "$entries"
  fi

  local manifest
  manifest="$(unzip -p "$aar" AndroidManifest.xml)"
  if grep -q 'android.permission.INTERNET' <<<"$manifest" && grep -q 'com.google.android.gms.permission.AD_ID' <<<"$manifest" \
    && grep -q "minSdkVersion=\"$(catalog_version minSdk)\"" <<<"$manifest" && grep -q 'package="com.service.attribution"' <<<"$manifest"; then
    ok "the AAR's manifest: package, minSdk $(catalog_version minSdk), INTERNET and AD_ID"
  else
    fail "the AAR's manifest: package, minSdk $(catalog_version minSdk), INTERNET and AD_ID"
  fi
  local classes
  classes="$(unzip -p "$aar" classes.jar >"$build/aar/check.jar" && unzip -Z1 "$build/aar/check.jar")"
  if grep -qx 'com/service/attribution/ServiceAttributionSdk.class' <<<"$classes" \
    && grep -qx 'com/service/attribution/AppLinkResult.class' <<<"$classes" \
    && ! grep -qE 'Test(Kt)?\.class$|/support/|/e2e/' <<<"$classes"; then
    ok "classes.jar holds the SDK's classes and none of its tests"
  else
    fail "classes.jar holds the SDK's classes and none of its tests"
  fi

  # The provider that gives the SDK its Context as the process starts: declared, not exported,
  # under an authority of the app's own id (the app's manifest merger fills ${applicationId} in).
  local provider
  provider="$(tr '\n' ' ' <<<"$manifest" | grep -oE '<provider[^>]*>' || true)"
  if grep -q 'android:name="com.service.attribution.android.ServiceAttributionInitProvider"' <<<"$provider" \
    && grep -q 'android:exported="false"' <<<"$provider" && grep -q 'android:authorities="\${applicationId}\.' <<<"$provider" \
    && grep -qx 'com/service/attribution/android/ServiceAttributionInitProvider.class' <<<"$classes"; then
    ok "the AAR's manifest declares the SDK's start-up provider, not exported, under the app's id, and classes.jar holds it"
  else
    fail "the AAR's manifest declares the SDK's start-up provider, not exported, under the app's id, and classes.jar holds it" "$provider"
  fi

  # What a consumer of the POM gets, resolved by Maven from build/repo and Maven Central.
  local consumer="$build/consumer"
  rm -rf "$consumer" "$HOME/.m2/repository/com/service/attribution-sdk"
  mkdir -p "$consumer"
  cat >"$consumer/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>attribution-sdk-consumer</artifactId><version>0</version><packaging>pom</packaging>
  <repositories><repository><id>attribution-sdk-local</id><url>file://$repo</url></repository></repositories>
  <dependencies>
    <dependency><groupId>com.service</groupId><artifactId>attribution-sdk</artifactId><version>$sdk_version</version><type>aar</type></dependency>
  </dependencies>
</project>
EOF
  local resolved=1
  deps_saved="$deps"
  deps="$consumer"
  mvn_quiet -f "$consumer/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:tree -DoutputType=tgf -DoutputFile="$consumer/tree.tgf" \
    && mvn_quiet -f "$consumer/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list \
      -DoutputAbsoluteArtifactFilename=true -DoutputFile="$consumer/list.txt" || resolved=0
  deps="$deps_saved"
  rm -rf "$HOME/.m2/repository/com/service/attribution-sdk"
  if [[ "$resolved" -eq 0 ]]; then
    fail "the POM resolves with its dependencies"
    return
  fi
  ok "the POM resolves with its dependencies"

  # Every artifact a consumer gets, but the SDK itself, came from Maven Central (Maven records
  # where each came from); none is served only by Google's repository.
  local path not_central=()
  while read -r path; do
    [[ -f "$(dirname "$path")/_remote.repositories" ]] && grep -q "^$(basename "$path")>central=" "$(dirname "$path")/_remote.repositories" \
      || not_central+=("$path")
  done < <(grep -v ' com\.service:attribution-sdk:' "$consumer/list.txt" | sed -nE 's/.*:(\/[^ ]*\.(jar|aar)).*/\1/p')
  if [[ "${#not_central[@]}" -eq 0 ]]; then
    ok "every dependency of the POM resolves from Maven Central ($(grep -c ':/' "$consumer/list.txt") artifacts)"
  else
    fail "every dependency of the POM resolves from Maven Central" "${not_central[*]}"
  fi

  # The POM's dependencies are build.gradle.kts's (and the Kotlin plugin's standard library).
  local in_pom expected
  in_pom="$(tr -d ' \n' <"$pom" | grep -oE '<dependency><groupId>[^<]*</groupId><artifactId>[^<]*</artifactId><version>[^<]*</version><scope>[^<]*</scope>' \
    | sed -E 's|<dependency><groupId>([^<]*)</groupId><artifactId>([^<]*)</artifactId><version>([^<]*)</version><scope>([^<]*)</scope>|\1:\2:\3 \4|' | sort)"
  expected="$(pom_dependencies | sort)"
  if [[ "$in_pom" == "$expected" ]]; then
    ok "the POM's dependencies are those build.gradle.kts declares"
  else
    fail "the POM's dependencies are those build.gradle.kts declares" "$in_pom"
  fi

  # Each import of src/main from outside the SDK, the JDK, Android and Kotlin's standard library
  # is in a declared dependency (or what it brings); each declared dependency is imported.
  local tree="$consumer/tree.tgf" root_id
  root_id="$(awk '$2 ~ /^com\.service:attribution-sdk:/ { print $1; exit }' "$tree")"
  local imports
  imports="$(grep -rhoE '^import [A-Za-z0-9_.]+' "$kotlin_sdk/src/main/kotlin" | sed 's/^import //' | sort -u \
    | grep -vE '^(java|javax|android|kotlin|com\.service\.attribution)\.' || true)"
  local covered="" unused=() child coordinates ga jars packages import package
  for child in $(awk -v r="$root_id" '$0 == "#" { edges = 1; next } edges && $1 == r { print $2 }' "$tree"); do
    coordinates="$(awk -v id="$child" '$1 == id { print $2; exit }' "$tree")"
    ga="$(cut -d: -f1-2 <<<"$coordinates")"
    [[ "$ga" == org.jetbrains.kotlin:kotlin-stdlib ]] && continue
    # The child's closure in the tree, and the files of its members.
    jars="$(awk -v start="$child" '
      $0 == "#" { edges = 1; next }
      !edges { name[$1] = $2; next }
      edges { out[$1] = out[$1] " " $2 }
      END {
        queue[1] = start; n = 1; seen[start] = 1
        for (i = 1; i <= n; i++) { split(out[queue[i]], next_ids, " "); for (k in next_ids) if (!(next_ids[k] in seen)) { seen[next_ids[k]] = 1; queue[++n] = next_ids[k] } }
        for (id in seen) { split(name[id], c, ":"); print c[1] ":" c[2] ":" }
      }' "$tree" | while read -r prefix; do grep -F " $prefix" "$consumer/list.txt" | sed -nE 's/.*:(\/[^ ]*\.(jar|aar)).*/\1/p'; done)"
    packages="$(for path in $jars; do [[ "$path" == *.aar ]] && path="$(aar_classes "$path")"; jar_packages "$path"; done | sort -u)"
    local used=0
    for import in $imports; do
      package="${import%.*}"
      if grep -qxF "$package" <<<"$packages" || grep -qxF "$import" <<<"$packages"; then
        covered="$covered $import"
        used=1
      fi
    done
    [[ "$used" -eq 1 ]] || unused+=("$ga")
  done
  local undeclared=()
  for import in $imports; do
    [[ " $covered " == *" $import "* ]] || undeclared+=("$import")
  done
  if [[ "${#undeclared[@]}" -eq 0 ]]; then
    ok "every outside package src/main imports is a declared dependency's"
  else
    fail "every outside package src/main imports is a declared dependency's" "not declared: ${undeclared[*]}"
  fi
  if [[ "${#unused[@]}" -eq 0 ]]; then
    ok "every declared dependency is imported by src/main"
  else
    fail "every declared dependency is imported by src/main" "not imported: ${unused[*]}"
  fi
  if grep -q '<artifactId>kotlin-stdlib</artifactId>' "$pom"; then
    ok "the POM carries Kotlin's standard library, as the Kotlin plugin publishes it"
  else
    fail "the POM carries Kotlin's standard library, as the Kotlin plugin publishes it"
  fi
}

# The version every install reports as its sdk_version (core/Requests.kt) is the artifact's: a
# release that raised one and not the other would have its installs reported under the old version.
check_sdk_version() {
  local reported
  reported="$(sed -nE 's/^ *const val SDK_VERSION = "([^"]*)"$/\1/p' "$kotlin_sdk/src/main/kotlin/com/service/attribution/core/Requests.kt")"
  if [[ "$reported" == "$sdk_version" ]]; then
    ok "the sdk_version installs report is the artifact's version ($sdk_version)"
  else
    fail "the sdk_version installs report is the artifact's version ($sdk_version)" "Requests.SDK_VERSION is ${reported:-not found}"
  fi
}

# The classes an app's Kotlin 2.0 compiler reads: every class of the AAR's classes.jar that
# carries kotlin.Metadata says version 2.0.x (javap prints it as mv=[2,0,N]); the POM names the
# standard library they were compiled against.
check_kotlin_metadata() {
  local jar="$build/aar/check.jar" names versions
  names="$(unzip -Z1 "$jar" | grep '\.class$' | sed 's/\.class$//; s|/|.|g')"
  versions="$(javap -v -cp "$jar" $names 2>/dev/null | grep -oE 'mv=\[[0-9, ]+\]' | tr -d ' ' | sort | uniq -c)"
  if [[ -n "$versions" ]] && ! grep -vqE ' mv=\[2,0,[0-9]+\]$' <<<"$versions"; then
    ok "classes.jar's Kotlin metadata is 2.0.x ($(echo $versions))"
  else
    fail "classes.jar's Kotlin metadata is 2.0.x" "$(echo $versions)"
  fi
  local stdlib
  stdlib="$(tr -d ' \n' <"$pom" | grep -oE '<artifactId>kotlin-stdlib</artifactId><version>[^<]*' | sed 's/.*<version>//')"
  if [[ "$stdlib" == "$(catalog_version kotlinStdlib)" ]]; then
    ok "the POM's kotlin-stdlib is $stdlib, what the classes were compiled against"
  else
    fail "the POM's kotlin-stdlib is $(catalog_version kotlinStdlib)" "it says ${stdlib:-none}"
  fi
}
