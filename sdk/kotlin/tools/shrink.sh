# Sourced by tools/consumers.sh once the consumer apps are compiled: the Kotlin consumer app
# shrunk by R8 (full mode, as AGP runs it for a release build), then run as the consumer apps
# are. The program is what the app's APK would hold: its classes, the AAR's classes.jar,
# kotlin-stdlib, every runtime dependency of the POM and the R classes AGP generates for the
# libraries; android-all and the JDK's modules that Android has too are the library (android.jar's
# place). The rules are the ones AGP would hand R8 for an app with no rules of its own: the
# consumer rules of every AAR (the SDK's proguard.txt among them) and of every jar (META-INF),
# AAPT's rules for the merged manifest's components (the app's activity, the SDK's start-up
# provider), and the app's keep for what the harness calls by reflection. AGP's default file
# (proguard-android-optimize.txt) is left out: it only keeps more. So a class of the SDK that needs a rule and lacks one fails here:
# at the R8 run (a missing class) or in the app's run (a class or member removed or renamed).
# Uses ok/fail from test.sh and the variables of deps.sh and consumers.sh.

# fetch_r8: the catalog's R8 from Maven Central. Sets r8_jar.
fetch_r8() {
  local coordinates g a v
  coordinates="$(catalog_library r8)" || return 1
  IFS=: read -r g a v <<<"$coordinates"
  r8_jar="$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v.jar"
  [[ -f "$r8_jar" ]] || mvn_quiet org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get -Dartifact="$coordinates" -Dtransitive=false || return 1
  [[ -f "$r8_jar" ]]
}

# embedded_rules JAR: the keep rules a jar carries for R8 (META-INF/com.android.tools/r8…, else
# META-INF/proguard), as AGP takes them.
embedded_rules() {
  local jar="$1" names name
  names="$(unzip -Z1 "$jar" 2>/dev/null | grep -E '^META-INF/com\.android\.tools/r8(-from-[^/]*)?/[^/]+\.pro$' || true)"
  [[ -n "$names" ]] || names="$(unzip -Z1 "$jar" 2>/dev/null | grep -E '^META-INF/proguard/[^/]+\.pro$' || true)"
  for name in $names; do
    echo "# $(basename "$jar"): $name"
    unzip -p "$jar" "$name"
    echo
  done
}

# r_class AAR DIR: the R class of an AAR's package from its R.txt, as Java under DIR (none for
# an AAR without resources). A library's R fields are not final, as AGP writes them.
r_class() {
  local aar_file="$1" package
  [[ -n "$(unzip -p "$aar_file" R.txt 2>/dev/null)" ]] || return 0
  package="$(unzip -p "$aar_file" AndroidManifest.xml | tr '\n' ' ' | sed -nE 's/.*<manifest[^>]* package="([^"]*)".*/\1/p')"
  [[ -n "$package" ]] || return 0
  mkdir -p "$2/${package//.//}"
  unzip -p "$aar_file" R.txt | awk -v package="$package" '
    $1 == "int" { fields[$2] = fields[$2] "    public static int " $3 " = " $4 ";\n" }
    $1 == "int[]" { value = $0; sub(/^[^{]*/, "", value); fields[$2] = fields[$2] "    public static int[] " $3 " = " value ";\n" }
    END {
      print "package " package ";"
      print "public final class R {"
      for (type in fields) { print "  public static final class " type " {"; printf "%s", fields[type]; print "  }" }
      print "}"
    }' >"$2/${package//.//}/R.java"
}

# shrink_app OUT_JAR RULES WITH_OPTIONAL: R8 on the app, the SDK, kotlin-stdlib and the POM's
# runtime dependencies (the optional Google libraries and what they bring only when
# WITH_OPTIONAL is 1), writing RULES first; R8's output in OUT_JAR.log.
shrink_app() {
  local output="$1" rules="$2" with_optional="$3" out="$build/consumers/shrunk"
  local program=("$out/app.jar" "$build/aar/check.jar" "$kotlin_stdlib_jar")
  rm -rf "$out/r-src" "$out/r"
  mkdir -p "$out/r-src" "$out/r"
  {
    echo "# the SDK's AAR: proguard.txt"
    unzip -p "$aar" proguard.txt
    echo
    embedded_rules "$kotlin_stdlib_jar"
  } >"$rules"
  # deps.sh's list: its compile scope is the SDK's runtime dependencies and their own.
  local path scope group
  while read -r scope group _ path; do
    [[ "$scope" == compile ]] || continue
    # Without the optional libraries, an app's exclude takes what they bring too: all that is
    # left is Kotlin's.
    [[ "$with_optional" == 1 || "$group" == org.jetbrains* ]] || continue
    if [[ "$path" == *.aar ]]; then
      program+=("$(aar_classes "$path")")
      r_class "$path" "$out/r-src"
      if unzip -Z1 "$path" proguard.txt >/dev/null 2>&1; then
        { echo "# $(basename "$path"): proguard.txt"; unzip -p "$path" proguard.txt; echo; } >>"$rules"
      fi
    else
      program+=("$path")
      embedded_rules "$path" >>"$rules"
    fi
  done < <(dependencies)
  # The R classes AGP generates for the libraries (its R.jar), as the program holds them.
  local sources
  sources="$(find "$out/r-src" -name R.java)"
  if [[ -n "$sources" ]]; then
    javac -nowarn -d "$out/r" $sources >"$out/r.log" 2>&1 || { cat "$out/r.log" >&2; return 1; }
    jar --create --no-manifest --file "$out/r.jar" -C "$out/r" .
    program+=("$out/r.jar")
  fi
  # AAPT's rules for the merged manifest: each component is kept with its constructor, since
  # Android creates it by name.
  local component
  for component in com.example.consumer.KotlinConsumerActivity \
    $(unzip -p "$aar" AndroidManifest.xml | tr '\n' ' ' | grep -oE '<(activity|service|receiver|provider)[^>]*>' \
      | sed -nE 's/.*android:name="([^"]*)".*/\1/p'); do
    echo "-keep class $component { <init>(); }" >>"$rules"
  done
  # The app's own rule: the harness calls finishUp by reflection.
  echo "-keepclassmembers class com.example.consumer.KotlinConsumerActivity { public void finishUp(); }" >>"$rules"
  # The build without the optional libraries is only read for the classes R8 finds missing,
  # which its tracing reports before any optimization: it skips the optimizing and renaming
  # that would follow, for an output nothing runs. The build with them, which runs, has both.
  if [[ "$with_optional" != 1 ]]; then
    printf '%s\n' "# this check's own: its output is not run" -dontoptimize -dontobfuscate >>"$rules"
  fi

  java -Xmx1g "${jvm_flags[@]}" -cp "$r8_jar" com.android.tools.r8.R8 --release --classfile \
    --lib "$java_library" --lib "$android_all_jar" --classpath "$out/seen.jar" --pg-conf "$rules" \
    --output "$output" "${program[@]}" >"$output.log" 2>&1
}

# java_library: android-all holds the framework but not java.*, which Robolectric takes from the
# JVM. The JDK's modules whose packages android.jar has too (java.base, java.logging, java.sql,
# java.xml) stand in for the rest of it, as a jar made once from their jmods (R8 reads no
# jmod): so a class of java.desktop or java.management, which no phone has, is missing here as
# it is to AGP's R8, and R8 reads far less than the whole JDK, which it takes without the jmods.
# Sets java_library.
java_library() {
  local java_home module
  java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
  java_library="$java_home"
  local modules=(java.base java.logging java.sql java.xml)
  for module in "${modules[@]}"; do
    [[ -f "$java_home/jmods/$module.jmod" ]] || return 0
  done
  # Named by the JDK's own release file: a JDK updated in place makes its jar anew.
  local jar version
  version="$(sed -nE 's/^JAVA_VERSION="([^"]+)"$/\1/p' "$java_home/release" 2>/dev/null || true)"
  [[ -n "$version" ]] || return 0
  jar="$build/deps/java-library-$version.jar"
  if [[ ! -f "$jar" ]]; then
    local stage="$build/deps/java-library"
    rm -rf "$stage"
    mkdir -p "$stage/classes"
    local made=1
    for module in "${modules[@]}"; do
      "$java_home/bin/jmod" extract --dir "$stage/$module" "$java_home/jmods/$module.jmod" &&
        cp -r "$stage/$module/classes/." "$stage/classes/" || { made=0; break; }
    done
    rm -f "$stage/classes/module-info.class"
    [[ "$made" == 1 ]] && "$java_home/bin/jar" --create --no-manifest --file "$jar.part" -C "$stage/classes" . &&
      mv "$jar.part" "$jar"
    rm -rf "$stage"
  fi
  [[ -f "$jar" ]] && java_library="$jar"
  return 0
}

run_shrunk_consumer() {
  local out="$build/consumers/shrunk"
  local name="KotlinConsumerActivity shrunk by R8 $(catalog_version r8) with the SDK's consumer rules"
  if ! fetch_r8; then
    fail "fetch R8 $(catalog_version r8) from Maven Central"
    return
  fi
  java_library
  rm -rf "$out"
  mkdir -p "$out"
  jar --create --no-manifest --file "$out/app.jar" -C "$build/consumers/kotlin" .
  jar --create --no-manifest --file "$out/seen.jar" -C "$build/consumers/seen" .

  # An app that leaves the optional libraries out (README: exclude(group = …)): the SDK's
  # -dontwarn lines are what lets its R8 run through.
  if shrink_app "$out/without-optional.jar" "$out/without-optional.pro" 0; then
    ok "$name, without the optional Google libraries: R8 finds no class missing"
  else
    grep -E 'Missing class|Error' "$out/without-optional.jar.log" | head -20
    fail "$name, without the optional Google libraries: R8 finds no class missing"
  fi

  if ! shrink_app "$out/app-shrunk.jar" "$out/rules.pro" 1; then
    grep -vE '^\s+at ' "$out/app-shrunk.jar.log" | head -30
    fail "$name: R8 finds no class missing"
    return
  fi
  ok "$name: R8 finds no class missing"

  # The consumer rules keep nothing of the SDK's: every class is renamed or removed (the app's
  # calls follow the API's new names), but the start-up provider, which the manifest names.
  local kept
  kept="$(unzip -Z1 "$out/app-shrunk.jar" | grep -E '^com/service/attribution/.*\.class$' | tr '\n' ' ')"
  if [[ "$kept" == "com/service/attribution/android/ServiceAttributionInitProvider.class " ]]; then
    ok "$name: every class of the SDK is renamed or removed but the start-up provider"
  else
    fail "$name: every class of the SDK is renamed or removed but the start-up provider" "kept: ${kept:-none}"
  fi

  # Run as the consumer apps are, the shrunk jar in place of the app, the SDK and their
  # dependencies: beside it only the harness, its record, the test runner and android-all.
  local runner=() entries entry
  IFS=: read -ra entries <<<"$test_classpath"
  for entry in "${entries[@]}"; do
    [[ ":$main_classpath:" == *":$entry:"* ]] || runner+=("$entry")
  done
  local run_classpath="$build/consumers/harness:$out/app-shrunk.jar:$out/seen.jar:$(IFS=:; echo "${runner[*]}"):$android_all_jar"
  if run_consumer "$run_classpath" com.example.consumer.KotlinConsumerActivity "$out/run.log"; then
    ok "$name, under Robolectric: its events reach the service, its listeners and futures answer"
  else
    fail "$name, under Robolectric against the service"
  fi
}
