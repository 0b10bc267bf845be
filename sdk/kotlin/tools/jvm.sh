# Sourced by deps.sh (so by test.sh and classpath.sh) and by the Flutter plugin's test.sh: the
# flags of every JVM these scripts start (kotlinc, the test runs, Maven). Each is a run of
# seconds to minutes, where C2's compiler threads and the parallel collector cost more CPU than
# they save: C1 alone and the serial collector leave the CPU to the work, which matters on a
# machine of few cores where other suites run beside.
jvm_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
# The flags of every Robolectric run: offline (android-all comes from the build's own
# dependencies), quiet, and without Conscrypt, whose loader names its native library after the
# OS in the JVM's default locale: under a Turkish one "linux" becomes "lınux", and every
# Robolectric test fails before it starts. The tests speak plain HTTP to the service on loopback,
# and the JVM's own providers serve the rest, so the SDK's code still runs in the developer's
# locale.
robolectric_flags=(-Drobolectric.offline=true -Drobolectric.logging.enabled=false -Drobolectric.conscryptMode=OFF)
# kotlinc's launcher reads JAVA_OPTS (its own default is -Xmx512M -Xms128M); Maven, MAVEN_OPTS.
export JAVA_OPTS="-Xmx1g -Xms512m ${jvm_flags[*]}"
export MAVEN_OPTS="${jvm_flags[*]}"
