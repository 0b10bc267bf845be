package com.service.attribution.conformance

import com.service.attribution.core.HttpResponse
import com.service.attribution.core.RemoteConfig
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters

@Suppress("UNCHECKED_CAST")
private val remoteConfigFile: Map<String, Any?> by lazy { Vectors.conformance("remote-config.json") }

@Suppress("UNCHECKED_CAST")
private val intervalCases: List<Map<String, Any?>> by lazy { remoteConfigFile["cases"] as List<Map<String, Any?>> }

/** A case's answer of GET /v1/config: on, with its field as the case writes it (left out for null). */
private fun answerOf(case: Map<String, Any?>): String {
    val json = case["json"] as String?
    val field = if (json == null) "" else "\"${case["field"]}\":$json,"
    return """{"enabled":true,$field"encryption":{"enabled":false}}"""
}

/**
 * remote-config.json's `cases`: the interval RemoteConfig.parse takes from each answer, and
 * takes again from the configuration as the device keeps it for the next launch.
 */
@RunWith(Parameterized::class)
class RemoteConfigVectorsTest(private val name: String, private val case: Map<String, Any?>) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = intervalCases.map { arrayOf(it["name"] as String, it) }
    }

    @Test
    fun kotlin() {
        val config = RemoteConfig.parse(answerOf(case))
        val taken =
            when (val field = case["field"]) {
                "refresh_interval_seconds" -> config.refreshIntervalSeconds
                "session_interval_seconds" -> config.sessionIntervalSeconds
                else -> throw AssertionError("a field this test does not know: $field")
            }
        assertEquals(name, (case["seconds"] as Number).toLong(), taken)
        assertEquals(name, config, RemoteConfig.parse(config.toJson()))
    }
}

/**
 * remote-config.json's `refresh_interval_seconds` cases through the core: configured with the
 * case's answer, it reads the configuration again once the interval taken has passed, not a
 * millisecond before.
 */
@RunWith(Parameterized::class)
class RefreshIntervalVectorsTest(private val name: String, private val case: Map<String, Any?>) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = intervalCases.filter { it["field"] == "refresh_interval_seconds" }.map { arrayOf(it["name"] as String, it) }
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Test
    fun kotlin() {
        device.backend.config = { HttpResponse(200, answerOf(case)) }
        device.configure(device.launch())
        val reads = { device.backend.requests("GET", "/v1/config").size }
        assertEquals(name, 1, reads())
        device.assertTriedAgainAfter(listOf((case["seconds"] as Number).toLong() * 1_000), reads)
        device.assertNoFailures()
    }
}

/** remote-config.json's `defaults` are the SDK's. */
class RemoteConfigDefaultsTest {
    @Suppress("UNCHECKED_CAST")
    @Test
    fun `the defaults are the core's`() {
        val defaults = remoteConfigFile["defaults"] as Map<String, Any?>
        assertEquals((defaults["refresh_interval_seconds"] as Number).toLong(), RemoteConfig.DEFAULT_REFRESH_INTERVAL_SECONDS)
        assertEquals((defaults["session_interval_seconds"] as Number).toLong(), RemoteConfig.DEFAULT_SESSION_INTERVAL_SECONDS)
        assertEquals(RemoteConfig.DEFAULT_REFRESH_INTERVAL_SECONDS, RemoteConfig.PLACEHOLDER.refreshIntervalSeconds)
    }
}
