# Sourced by tools/consumers.sh once the consumer compiler is fetched: every ```kotlin and
# ```java block of README.md compiled as an app's code, against the AAR's classes.jar, by the
# compilers the consumer apps are compiled with (kotlinc of the catalog's kotlinConsumerCompiler,
# javac). So a call, type, named argument or import the README shows that the SDK does not have
# fails here, as it would in the app that copies it. Uses ok/fail from test.sh.
#
# A block is an app's source as it stands when it declares a class (the quick start's
# Application, the links' Activity); otherwise its lines are the body of a method of an Activity
# (they call `this`, `intent`), one class a block. What the README leaves to the app is declared
# once beside them: `navigateTo`, and `lifecycleScope` (androidx.lifecycle's, which the SDK
# does not depend on) as a plain CoroutineScope. Imports are the same for every block: the SDK's
# package, the Android classes the blocks name, IOException and kotlinx.coroutines' launch.

# readme_sources OUT: writes the blocks under OUT/kotlin and OUT/java; prints how many of each.
readme_sources() {
  local out="$1"
  mkdir -p "$out/kotlin" "$out/java"
  awk -v out="$out" '
    function header_kotlin(file) {
      print "package com.example.readme\n" > file
      print "import android.app.Activity" > file
      print "import android.app.Application" > file
      print "import android.content.Intent" > file
      print "import android.os.Bundle" > file
      print "import android.util.Log" > file
      print "import com.service.attribution.*" > file
      print "import java.io.IOException" > file
      print "import kotlinx.coroutines.launch\n" > file
    }
    function header_java(file) {
      print "package com.example.readme;\n" > file
      print "import android.app.Activity;" > file
      print "import android.util.Log;" > file
      print "import com.service.attribution.*;\n" > file
    }
    function flush(   file, i, declares) {
      declares = 0
      for (i = 1; i <= n; i++) if (lines[i] ~ /^(class|object|fun) /) declares = 1
      if (lang == "kotlin") {
        kotlin++
        file = out "/kotlin/ReadmeBlock" start ".kt"
        header_kotlin(file)
        if (!declares) print "class ReadmeBlock" start " : Activity() {\n    fun block() {" > file
        for (i = 1; i <= n; i++) print lines[i] > file
        if (!declares) print "    }\n}" > file
      } else {
        java++
        file = out "/java/ReadmeBlock" start ".java"
        header_java(file)
        print "public class ReadmeBlock" start " extends Activity {\n    void block() {" > file
        for (i = 1; i <= n; i++) print lines[i] > file
        print "    }\n\n    static void navigateTo(String path) {}\n}" > file
      }
      close(file)
    }
    /^```(kotlin|java)$/ { lang = substr($0, 4); start = NR; n = 0; next }
    # A Gradle script (its first line names the file): the coordinates check below reads it.
    lang == "kotlin" && n == 0 && /^\/\/ .*\.gradle\.kts$/ { lang = ""; next }
    /^```/ && lang != "" { flush(); lang = ""; next }
    lang != "" { lines[++n] = $0 }
    END {
      file = out "/kotlin/ReadmeApp.kt"
      header_kotlin(file)
      print "/** The app'"'"'s own navigation, which the README'"'"'s listeners call. */" > file
      print "fun navigateTo(path: String, params: Map<String, String>) {}\n" > file
      print "/** Stands in for androidx.lifecycle'"'"'s lifecycleScope, an app'"'"'s dependency. */" > file
      print "val lifecycleScope: kotlinx.coroutines.CoroutineScope = kotlinx.coroutines.MainScope()" > file
      close(file)
      print kotlin + 0, java + 0
    }
  ' "$kotlin_sdk/README.md"
}

# compile_readme APP_CLASSPATH: uses consumer_kotlinc_classpath (fetch_consumer_compiler).
compile_readme() {
  local app_classpath="$1" out="$build/consumers/readme" counts kotlin_blocks java_blocks
  rm -rf "$out"
  # The dependency the README's Gradle block adds is the one build.gradle.kts publishes.
  local published readme_deps
  published="$(sed -nE 's/^ *groupId = "([^"]+)"$/\1/p' "$kotlin_sdk/build.gradle.kts"):$(sed -nE 's/^ *artifactId = "([^"]+)"$/\1/p' "$kotlin_sdk/build.gradle.kts"):$(catalog_version sdk)"
  readme_deps="$(grep -oE 'implementation\("[^"]+"\)' "$kotlin_sdk/README.md" | sed -E 's/implementation\("([^"]+)"\)/\1/' | sort -u | tr '\n' ' ')"
  if [[ "$readme_deps" == "$published " ]]; then
    ok "the README's Gradle dependency is the publication's ($published)"
  else
    fail "the README's Gradle dependency is the publication's ($published)" "README: ${readme_deps:-none}"
  fi
  # An activity with an intent filter says whether it is exported: the manifest merger of an
  # app that targets Android 12 or later fails without it. So each ```xml block of the README
  # that shows an intent filter shows it inside an activity that says android:exported="true".
  local filters
  filters="$(awk '
    /^```xml$/ { xml = 1; block = ""; next }
    /^```/ && xml { if (block ~ /<intent-filter/) print (block ~ /<activity[^>]*android:exported="true"/ ? "exported" : "bare"); xml = 0; next }
    xml { block = block " " $0 }
  ' "$kotlin_sdk/README.md" | sort | uniq -c | tr -s ' ' | sed 's/^ //' | tr '\n' ' ')"
  if [[ "$filters" =~ ^[0-9]+\ exported\ $ ]]; then
    ok "the README's intent filters are in an activity that says android:exported=\"true\""
  else
    fail "the README's intent filters are in an activity that says android:exported=\"true\"" "${filters:-no intent filter}"
  fi
  counts="$(readme_sources "$out/src")"
  read -r kotlin_blocks java_blocks <<<"$counts"
  mkdir -p "$out/kotlin-classes" "$out/java-classes"
  local name="the README's $kotlin_blocks Kotlin blocks compile with kotlinc $(catalog_version kotlinConsumerCompiler) against the AAR's classes.jar, meeting no deprecated member"
  if [[ "$kotlin_blocks" -gt 0 ]] \
    && java -Xmx1g "${jvm_flags[@]}" -cp "$consumer_kotlinc_classpath" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -jvm-target "$(catalog_version jvmTarget)" \
      -no-stdlib -no-reflect -cp "$app_classpath" -d "$out/kotlin-classes" "$out/src/kotlin" >"$out/kotlinc.log" 2>&1 \
    && ! grep -qi 'deprecat' "$out/kotlinc.log"; then
    ok "$name"
  else
    grep -iE 'error|deprecat' "$out/kotlinc.log" | head -20
    fail "$name" "sources in $out/src/kotlin"
  fi
  name="the README's $java_blocks Java blocks compile with javac against the AAR's classes.jar, meeting no deprecated member"
  if [[ "$java_blocks" -gt 0 ]] \
    && javac -Xlint:deprecation -Werror -d "$out/java-classes" -cp "$app_classpath" "$out/src/java/"*.java >"$out/javac.log" 2>&1; then
    ok "$name"
  else
    grep -vE 'UnsupportedAppUsage' "$out/javac.log" | head -20
    fail "$name" "sources in $out/src/java"
  fi
}
