package com.service.attribution.flutter

import org.junit.runner.Description
import org.junit.runner.JUnitCore
import org.junit.runner.notification.Failure
import org.junit.runner.notification.RunListener
import kotlin.system.exitProcess

/**
 * Runs the test classes named in [args] (the plugin's JVM tests; test.sh runs one class per
 * process, as the SDK is one per process) and prints one line per test (`ok   name` or
 * `FAIL name` with the failure) and a closing `N passed, N failed`, which sdk/flutter/test.sh
 * adds to its own count.
 */
fun main(args: Array<String>) {
    val failures = HashSet<Description>()
    val core = JUnitCore()
    core.addListener(
        object : RunListener() {
            override fun testFailure(failure: Failure) {
                failures += failure.description
                println("FAIL ${failure.description.methodName}")
                println("       ${failure.message}")
                failure.exception.stackTrace.take(8).forEach { println("         at $it") }
            }

            override fun testFinished(description: Description) {
                if (description !in failures) println("ok   ${description.methodName}")
                System.out.flush()
            }
        },
    )
    val classes = args.ifEmpty { arrayOf(ServiceAttributionPluginTest::class.java.name) }.map { Class.forName(it) }
    val result = core.run(*classes.toTypedArray())
    val failed = result.failureCount
    println("${result.runCount - failed} passed, $failed failed")
    exitProcess(if (failed == 0 && result.runCount > 0) 0 else 1)
}
