package com.service.attribution.conformance

import com.service.attribution.LogLevel
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.Json
import com.service.attribution.core.RemoteConfig
import com.service.attribution.core.Requests
import com.service.attribution.core.SdkCore
import com.service.attribution.core.SdkSettings
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import com.service.attribution.support.pathOf
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters

@Suppress("UNCHECKED_CAST")
private val sessionsFile: Map<String, Any?> by lazy { Vectors.conformance("sessions.json") }

/**
 * sessions.json's `lifecycle` cases, each run against the core on one device with a scripted
 * backend, a clock and executors moved by hand: every step at its second of the device clock
 * (a `start` is a new process of the app, configured), and the sessions that reach the backend
 * compared with the case's, by `started_at`.
 */
@RunWith(Parameterized::class)
class SessionLifecycleVectorsTest(private val name: String, private val case: Map<String, Any?>) {
    companion object {
        @Suppress("UNCHECKED_CAST")
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = (sessionsFile["lifecycle"] as List<Map<String, Any?>>).map { arrayOf(it["name"] as String, it) }

        internal fun config(enabled: Boolean, intervalSeconds: Number?): HttpResponse =
            HttpResponse(
                200,
                Json.write(
                    linkedMapOf<String, Any?>("enabled" to enabled, "refresh_interval_seconds" to 3600, "encryption" to mapOf("enabled" to false))
                        .also { if (intervalSeconds != null) it["session_interval_seconds"] = intervalSeconds },
                ),
            )
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Suppress("UNCHECKED_CAST")
    @Test
    fun kotlin() {
        val interval = case["config"] as Number?
        var enabled = true
        device.backend.config = { config(enabled, interval) }
        val origin = device.clock.now
        var core: SdkCore? = null
        for (step in case["steps"] as List<Map<String, Any?>>) {
            val at = origin + (step["at"] as Number).toLong() * 1_000
            device.scheduler.advance(at - device.clock.now)
            when (val what = step["step"]) {
                "start" -> core = device.configure(device.launch())
                "background" -> core!!.onBackground()
                "foreground" -> core!!.onForeground()
                "stop" -> core!!.stop()
                "start_again" -> core!!.start()
                "disable", "enable" -> {
                    enabled = what == "enable"
                    // A configuration that arrives: fetched again now by a configured SDK, else at its start.
                    core?.refreshConfigAsync()
                }
                else -> throw AssertionError("unknown step $what")
            }
            device.scheduler.runDue()
        }
        val expected = (case["sessions"] as List<Number>).map { Requests.iso(origin + it.toLong() * 1_000) }
        val sessions = device.backend.deliveredSessions.toList()
        assertEquals(name, expected, sessions.map { it["started_at"] })
        assertEquals("a fresh session_id each", sessions.size, sessions.map { it["session_id"] }.toSet().size)
        for (session in sessions) assertEquals(core!!.getServiceId(), session["service_id"])
        // None was made and then dropped: a start while stopped or off makes none.
        assertEquals(0L, core!!.droppedSessionCount())
        assertEquals(emptyList<String>(), device.logged(LogLevel.WARN).filter { "session" in it })
        device.assertNoFailures()
    }
}

/** sessions.json's `requests` case and `limits`: the body the core sends, and the bounds it keeps. */
class SessionRequestVectorsTest {
    @Suppress("UNCHECKED_CAST")
    @Test
    fun `a session as it goes out`() {
        val case = (sessionsFile["requests"] as List<Map<String, Any?>>).single { it["name"] == "a session as it goes out" }
        val request = case["request"] as Map<String, Any?>
        val harness = Harness()
        harness.configure()
        val sent = synchronized(harness.transport.requests) { harness.transport.requests.filter { pathOf(it.url) == request["path"] } }
        assertEquals(1, sent.size)
        assertEquals(request["method"], sent.single().method)
        assertEquals("sdk_test", sent.single().headers["Authorization"])
        val body = Json.parseObject(sent.single().body!!)
        val matcher = Vectors.Matcher()
        matcher.match(request["body"], body)
        // The same install as the install request's.
        matcher.match(mapOf("service_id" to "{{service_id}}"), harness.bodies("POST", "/v1/installs").single().filterKeys { it == "service_id" })
        assertEquals(harness.core.getServiceId(), ((body["sessions"] as List<Map<String, Any?>>).single())["service_id"])
    }

    @Suppress("UNCHECKED_CAST")
    @Test
    fun `the limits are the core's`() {
        val limits = sessionsFile["limits"] as Map<String, Any?>
        assertEquals((limits["defaultSessionIntervalSeconds"] as Number).toLong(), RemoteConfig.DEFAULT_SESSION_INTERVAL_SECONDS)
        assertEquals((limits["maxQueuedSessions"] as Number).toInt(), SdkSettings(baseUrl = "").maxQueuedSessions)
        // maxSessionsPerRequest: SessionsTest sends more queued sessions than that and sees the requests it makes.
    }
}
