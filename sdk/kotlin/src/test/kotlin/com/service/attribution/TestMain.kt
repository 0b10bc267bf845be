package com.service.attribution

import org.junit.runner.Description
import org.junit.runner.JUnitCore
import org.junit.runner.notification.Failure
import org.junit.runner.notification.RunListener
import java.io.File
import kotlin.system.exitProcess

/**
 * Runs every test class compiled into the classes folder (named *Test) and ends with the one
 * counts test.sh reads: `junit: N passed, N failed`.
 */
fun main(args: Array<String>) {
    val classesDir = File(args.firstOrNull() ?: error("usage: TestMain <classes dir> [class name filter]"))
    val filter = args.getOrNull(1)
    val classes =
        classesDir.walk()
            .filter { it.isFile && it.name.endsWith("Test.class") && '$' !in it.name }
            .map { it.relativeTo(classesDir).path.removeSuffix(".class").replace(File.separatorChar, '.') }
            .filter { filter == null || it.contains(filter) }
            .sorted()
            .map { Class.forName(it) }
            .toList()
    val core = JUnitCore()
    core.addListener(
        object : RunListener() {
            override fun testFinished(description: Description) {
                System.out.flush()
            }

            override fun testFailure(failure: Failure) {
                println("FAILED ${failure.description.displayName}: ${failure.message}")
                failure.exception.stackTrace.take(8).forEach { println("    at $it") }
            }
        },
    )
    val result = core.run(*classes.toTypedArray())
    val failed = result.failureCount
    val passed = result.runCount - failed
    // test.sh adds its own checks to these counts and prints the closing line.
    println("junit: $passed passed, $failed failed")
    exitProcess(if (failed == 0 && result.runCount > 0) 0 else 1)
}
