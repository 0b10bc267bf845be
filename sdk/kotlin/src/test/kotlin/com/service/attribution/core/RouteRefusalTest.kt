package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.Consent
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import com.service.attribution.ServiceErrorKind
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A route refusing the install's key or address (401, 403, 404) is a configuration error
 * (delivery.json `errorKinds.configuration`): said once, nothing more on that route until the
 * next start or refreshConfig, nothing dropped. Only the key rejected on GET /v1/config (a 401)
 * switches the SDK off, and that is told through InitListener.onError.
 */
class RouteRefusalTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun eventRequests() = device.backend.requests("POST", "/v1/events").size

    private fun configurationErrors() = device.errors.filter { it.kind == ServiceErrorKind.CONFIGURATION }.map { it.code }

    private fun refuseEventsWith(code: Int) {
        device.backend.events = { HttpResponse(code, """{"error":"x","detail":"refused"}""") }
    }

    @Test
    fun `events refused with 401 or 403 stay queued, are said once and are not sent again until refreshConfig`() {
        for (code in listOf(401, 403)) {
            val device = ScriptedDevice()
            try {
                device.backend.events = { HttpResponse(code, """{"error":"x","detail":"key"}""") }
                val core = device.configure(device.launch())
                repeat(3) { core.sendEvent(EventType.LOGIN, null, null) }
                device.scheduler.advance(10 * 60_000)
                val sent = device.backend.requests("POST", "/v1/events").size
                assertEquals("HTTP $code", 1, sent)
                // Not switched off: nothing dropped, later events still taken and kept.
                assertFalse(core.isSdkDisabled())
                core.sendEvent(EventType.SHARE, null, null)
                device.scheduler.advance(10 * 60_000)
                assertEquals(1, device.backend.requests("POST", "/v1/events").size)
                assertEquals(4, core.queuedCount())
                assertEquals(0L, core.getDroppedEventCount())
                assertEquals(listOf(ServiceErrorKind.CONFIGURATION to code), device.errors.map { it.kind to it.code })
                assertEquals(1, device.logged(LogLevel.ERROR).size)
                // The app's refreshConfig tries the route again: accepted now, all four go.
                device.backend.events = { ScriptedBackend.accepted(it.size) }
                core.refreshConfigAsync()
                device.scheduler.runDue()
                assertEquals(listOf("LOGIN", "LOGIN", "LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
                assertEquals(0, core.queuedCount())
                device.assertNoFailures()
            } finally {
                device.close()
            }
        }
    }

    @Test
    fun `events refused with 404 are a configuration error, not halved until each is dropped as refused`() {
        refuseEventsWith(404)
        val core = device.configure(device.launch())
        repeat(8) { core.sendEvent(EventType.LOGIN, null, null) }
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, eventRequests())
        assertEquals(8, core.queuedCount())
        assertEquals(0L, core.getDroppedEventCount())
        assertEquals(listOf(404), configurationErrors())
        assertTrue(device.errors.none { it.kind == ServiceErrorKind.EVENTS_DROPPED })
        // The next launch sends them again.
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.configure(device.launch())
        assertEquals(8, device.backend.delivered.size)
    }

    @Test
    fun `sessions refused with 404 stay queued, said once, and the events go on`() {
        device.backend.sessions = { HttpResponse(404, """{"error":"Not Found","detail":"no route"}""") }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, device.backend.requests("POST", "/v1/sessions").size)
        assertEquals(1, core.queuedSessionCount())
        assertEquals(0L, core.droppedSessionCount())
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(listOf(404), configurationErrors())
    }

    @Test
    fun `events refused after the consent route was refused are still said, once, to the log and the error listener`() {
        // An older backend without the consent route: its 404 is told, and events go on.
        device.backend.consent = { HttpResponse(404, """{"error":"Not Found","detail":"no route"}""") }
        val core = device.configure(device.launch())
        core.setConsent(Consent(adPersonalization = false))
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, device.backend.requests("POST", "/v1/installs/").size)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(listOf(404), configurationErrors())
        assertEquals(1, device.logged(LogLevel.ERROR).size)

        // Then the events' route refuses the key: they are held, and that is said too.
        refuseEventsWith(401)
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(10 * 60_000)
        assertEquals(listOf(404, 401), configurationErrors())
        val errors = device.logged(LogLevel.ERROR)
        assertEquals(errors.toString(), 2, errors.size)
        assertTrue(errors.last(), "events" in errors.last())
        // Once: the route is held from then on, and nothing more is said.
        core.sendEvent(EventType.SEARCH, null, null)
        device.scheduler.advance(10 * 60_000)
        assertEquals(2, eventRequests())
        assertEquals(listOf(404, 401), configurationErrors())
        assertEquals(2, core.queuedCount())
        assertEquals(0L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `the periodic refresh does not retry a refused install, only the app's refreshConfig does`() {
        device.backend.installs = { HttpResponse(403, """{"error":"Forbidden","detail":"key"}""") }
        val core = device.configure(device.launch())
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        // Three refresh intervals (3600 s): the configuration is fetched again, the install is not.
        device.scheduler.advance(3 * 3_600_000L + 1_000)
        assertEquals(4, device.backend.requests("GET", "/v1/config").size)
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(listOf(403), configurationErrors())
        core.refreshConfigAsync()
        device.scheduler.runDue()
        assertEquals(2, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(listOf(403, 403), configurationErrors())
    }

    @Test
    fun `a key rejected by the periodic refresh disables the SDK through onError and getLastInitError`() {
        val errors = CopyOnWriteArrayList<Throwable>()
        val core = device.launch()
        core.configure(device.platform, SdkSettings("https://backend.test"), "sdk_key", LogLevel.DEBUG, InitListener { errors.add(it) }, null)
        device.scheduler.runDue()
        assertTrue(errors.isEmpty())
        device.backend.config = { HttpResponse(401, """{"error":"Unauthorized","detail":"revoked"}""") }
        device.scheduler.advance(3_600_000L)
        assertTrue(core.isSdkDisabled())
        assertEquals(listOf(401), errors.map { (it as AuthenticationException).code })
        assertEquals(401, (core.getLastInitError() as AuthenticationException).code)
    }

    @Test
    fun `a 403 on GET v1 config (a firewall's block, not the service's) switches nothing off and drops nothing`() {
        // The service rejects a key with 401; a web firewall in front answers 403 for a phone's
        // address on its block list, at launch and at each refresh.
        val blocked = HttpResponse(403, """{"error":"Forbidden","detail":"Forbidden"}""")
        device.backend.config = { blocked }
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(3_600_000L)
        assertFalse(core.isSdkDisabled())
        assertEquals(0L, core.getDroppedEventCount())
        // Off the block list: the next refresh reads it, and the events go.
        device.backend.config = { HttpResponse(200, ScriptedBackend.CONFIG_ON) }
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(3_600_000L)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertFalse(core.isSdkDisabled())
    }

    @Test
    fun `a key rejected on the attribution route stops reading it, and switches nothing off`() {
        device.backend.attribution = { HttpResponse(401, """{"error":"Unauthorized","detail":"scope"}""") }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(10 * 60_000)
        assertFalse(core.isSdkDisabled())
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(1, device.backend.requests("GET", "/v1/installs/").size)
        assertEquals(0L, core.getDroppedEventCount())
    }

    /** delivery.json's `retryable4xx`: 408, 425 (Too Early) and 429. */
    private val retryable4xx = (Vectors.conformance("delivery.json")["retryable4xx"] as List<*>).map { (it as Number).toInt() }

    @Test
    fun `every 4xx but delivery json's retryable ones is a refusal, and those are 408, 425 and 429`() {
        assertEquals(listOf(408, 425, 429), retryable4xx)
        for (code in 400..499) assertEquals("HTTP $code", code !in retryable4xx, SdkCore.refusedForGood(code))
    }

    @Test
    fun `an install and a batch answered with a retryable 4xx (425 Too Early included) are sent again whole, nothing dropped`() {
        for (code in retryable4xx) {
            val device = ScriptedDevice()
            try {
                val answer = HttpResponse(code, """{"error":"x","detail":"later"}""")
                var installs = 0
                var batches = 0
                device.backend.installs = { if (installs++ == 0) answer else HttpResponse(202, """{"service_id":"x"}""") }
                device.backend.events = { if (batches++ == 0) answer else ScriptedBackend.accepted(it.size) }
                val core = device.launch()
                repeat(3) { core.sendEvent(EventType.LOGIN, null, mapOf("i" to it)) }
                device.configure(core)
                device.scheduler.advance(10 * 60_000)
                val sentInstalls = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }
                assertEquals("HTTP $code", 2, sentInstalls.size)
                assertTrue("HTTP $code: the install is sent whole again, never bare", sentInstalls.all { it.size > 6 })
                // One batch answered with the status, then the same three at once: never halved.
                assertEquals("HTTP $code", listOf(3, 3), device.backend.eventRequests().map { (it["events"] as List<*>).size })
                assertEquals("HTTP $code", listOf(0, 1, 2), device.backend.delivered.map { ((it["parameters"] as Map<*, *>)["i"] as Number).toInt() })
                assertEquals("HTTP $code", 0L, core.getDroppedEventCount())
                assertEquals("HTTP $code", emptyList<Any>(), device.errors.toList())
                device.assertNoFailures()
            } finally {
                device.close()
            }
        }
    }
}
