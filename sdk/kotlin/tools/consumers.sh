# Sourced by test.sh once the AAR is built and the service runs: compiles the two consumer apps
# of consumers/ against the AAR's classes.jar as apps of the Kotlin 2.0 era build them (the
# Kotlin one with kotlinc 2.0.21 from Maven Central, the Java one with javac), then runs each
# under Robolectric against the embedded service with kotlin-stdlib 2.0.21 (the POM's) on the
# classpath; then the Kotlin one again, shrunk by R8 with the SDK's consumer rules
# (tools/shrink.sh). The README's code blocks are compiled the same way (tools/readme.sh). Uses
# ok/fail from test.sh.

# run_consumer CLASSPATH ACTIVITY LOG: the harness's Robolectric test of ACTIVITY against the
# service, offline on the fetched android-all; succeeds when it passes, else prints the log's
# lines outside the runner's own frames.
run_consumer() {
  java -Xmx1g "${jvm_flags[@]}" -cp "$1" -Drepo.root="$root" -Dconsumer.activity="$2" \
    "${robolectric_flags[@]}" -Drobolectric.dependency.dir="$(dirname "$android_all_instrumented_jar")" \
    org.junit.runner.JUnitCore com.example.consumer.ConsumerAppTest >"$3" 2>&1 && return 0
  grep -vE '^\s+at (org\.junit|org\.robolectric|java\.|jdk\.|sun\.)' "$3" | head -40
  return 1
}

run_consumers() {
  local out="$build/consumers" sources="$kotlin_sdk/consumers"
  local classes_jar="$build/aar/check.jar"
  if ! fetch_consumer_compiler; then
    fail "fetch kotlin-compiler-embeddable $(catalog_version kotlinConsumerCompiler) from Maven Central"
    return
  fi
  rm -rf "$out"
  mkdir -p "$out/seen" "$out/kotlin" "$out/java" "$out/harness"
  local app_classpath="$classes_jar:$kotlin_stdlib_jar:$consumer_classpath:$out/seen"
  if ! javac -d "$out/seen" "$sources/harness/Seen.java" >"$out/javac-seen.log" 2>&1; then
    cat "$out/javac-seen.log"
    fail "compile the consumer apps' record"
    return
  fi
  local version
  version="$(java "${jvm_flags[@]}" -cp "$consumer_kotlinc_classpath" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -version 2>&1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)"
  if java -Xmx1g "${jvm_flags[@]}" -cp "$consumer_kotlinc_classpath" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -jvm-target "$(catalog_version jvmTarget)" \
    -no-stdlib -no-reflect -cp "$app_classpath" -d "$out/kotlin" "$sources/kotlin" >"$out/kotlinc.log" 2>&1 \
    && [[ -n "$(find "$out/kotlin" -name '*.class' | head -1)" ]] && [[ "$version" == "$(catalog_version kotlinConsumerCompiler)" ]]; then
    ok "the Kotlin consumer app compiles with kotlinc $version against the AAR's classes.jar"
  else
    grep -E 'error|exception' "$out/kotlinc.log" | head -20
    fail "the Kotlin consumer app compiles with kotlinc $(catalog_version kotlinConsumerCompiler) against the AAR's classes.jar" "kotlinc said ${version:-nothing}"
  fi
  # The README's forms of configure with a lambda reach the current overload: a build that
  # takes warnings as errors is not broken by the spec's own idiom.
  if grep -i 'deprecat' "$out/kotlinc.log"; then
    fail "the Kotlin consumer app's current calls meet no deprecated member"
  else
    ok "the Kotlin consumer app's current calls meet no deprecated member"
  fi
  if javac -Xlint:-deprecation -d "$out/java" -cp "$app_classpath" "$sources/java/"*.java >"$out/javac.log" 2>&1; then
    ok "the Java consumer app compiles with javac against the AAR's classes.jar, every member without a Continuation"
  else
    cat "$out/javac.log" | head -30
    fail "the Java consumer app compiles with javac against the AAR's classes.jar"
  fi
  source "$kotlin_sdk/tools/readme.sh"
  compile_readme "$app_classpath"
  local run_classpath="$out/harness:$out/kotlin:$out/java:$out/seen:$classes_jar:$kotlin_stdlib_jar:$test_classpath:$android_all_jar"
  if ! javac -d "$out/harness" -cp "$run_classpath" "$sources/harness/ConsumerAppTest.java" >"$out/javac-harness.log" 2>&1; then
    cat "$out/javac-harness.log" | head -30
    fail "compile the consumer apps' Robolectric harness"
    return
  fi
  local activity name
  for activity in com.example.consumer.KotlinConsumerActivity com.example.consumer.JavaConsumerActivity; do
    name="${activity##*.}"
    if run_consumer "$run_classpath" "$activity" "$out/$name.log"; then
      ok "$name under Robolectric with kotlin-stdlib $(catalog_version kotlinStdlib): its events reach the service, its listeners and futures answer"
    else
      fail "$name under Robolectric against the service"
    fi
  done
  if [[ -n "$(find "$out/kotlin" -name '*.class' | head -1)" ]]; then
    source "$kotlin_sdk/tools/shrink.sh"
    run_shrunk_consumer
  fi
}
