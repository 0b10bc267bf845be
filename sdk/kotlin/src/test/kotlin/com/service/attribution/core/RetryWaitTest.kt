package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.time.Instant
import java.time.ZoneOffset
import java.time.format.DateTimeFormatter
import java.util.Random

/**
 * How long a retry waits (delivery.json, `retryWait`): its backoff jittered into its second
 * half, so that devices that failed together do not come back together, and never less than
 * the `Retry-After` the backend last answered with, up to an hour.
 */
class RetryWaitTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun httpDate(atMs: Long) = DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.ofEpochMilli(atMs).atOffset(ZoneOffset.UTC))

    private fun eventRequests() = device.backend.requests("POST", "/v1/events").size

    /** A route's answer: [first] to its first request, then what [then] says. */
    private fun <T> firstThen(first: HttpResponse, then: (T) -> HttpResponse?): (T) -> HttpResponse? {
        var answered = false
        return { request -> if (answered) then(request) else first.also { answered = true } }
    }

    private val accepting: (List<Map<String, Any?>>) -> HttpResponse? = { ScriptedBackend.accepted(it.size) }

    @Suppress("UNCHECKED_CAST")
    private val retryWait = Vectors.conformance("delivery.json")["retryWait"] as Map<String, Any?>

    @Test
    fun `the SDK waits as delivery json says, retryWait`() {
        assertEquals((retryWait["maxRetryAfterSeconds"] as Number).toLong() * 1000, MAX_RETRY_AFTER_MS)
        assertEquals((retryWait["jitterLowestShare"] as Number).toDouble(), JITTER_LOWEST_SHARE, 0.0)
    }

    @Test
    fun `a Retry-After is read as seconds or as an HTTP date, and at most an hour`() {
        val now = 1_790_000_000_000
        assertEquals(30_000L, retryAfterMs("30", now))
        assertEquals(0L, retryAfterMs("0", now))
        assertEquals(90_000L, retryAfterMs(httpDate(now + 90_000), now))
        assertEquals(0L, retryAfterMs(httpDate(now - 90_000), now))
        assertEquals(MAX_RETRY_AFTER_MS, retryAfterMs("86400", now))
        assertEquals(MAX_RETRY_AFTER_MS, retryAfterMs("99999999999999999999999", now))
        for (unreadable in listOf(null, "", "soon", "-5", "1.5")) assertNull(unreadable, retryAfterMs(unreadable, now))
    }

    @Test
    fun `the jitter spreads a backoff over its second half`() {
        val random = Random(7)
        val waits = List(1_000) { jittered(2_000, random) }
        assertTrue(waits.all { it in 1_000L..2_000L })
        // Spread over the half, not bunched at one end.
        assertTrue(waits.min() < 1_100 && waits.max() > 1_900)
        assertTrue(waits.count { it < 1_500 } in 400..600)
        assertEquals(0L, jittered(0, random))
    }

    @Test
    fun `a retry waits what the jitter makes of its backoff, and the SDK ships with the jitter on`() {
        var failing = true
        device.backend.events = { if (failing) null else ScriptedBackend.accepted(it.size) }
        val core = device.configure(device.launch(), settings = SdkSettings(baseUrl = "https://backend.test", jitter = { it / 2 }))
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, eventRequests())
        failing = false
        device.scheduler.advance(999)
        assertEquals(1, eventRequests())
        device.scheduler.advance(1)
        assertEquals(2, eventRequests())
        assertEquals(1, device.backend.delivered.size)
        val shipped = List(200) { SdkSettings(baseUrl = "").jitter(2_000) }
        assertTrue(shipped.all { it in 1_000L..2_000L } && shipped.toSet().size > 1)
    }

    @Test
    fun `the backoff doubles while the backend is unwell, stops growing at a minute, and starts again once a send goes through`() {
        var unwell = true
        device.backend.events = { if (unwell) HttpResponse(503, "") else ScriptedBackend.accepted(it.size) }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, eventRequests())
        device.assertTriedAgainAfter(listOf(2_000L, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000), ::eventRequests)
        unwell = false
        device.scheduler.advance(60_000)
        assertEquals(1, device.backend.delivered.size)

        unwell = true
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        // From the start again.
        device.assertTriedAgainAfter(listOf(2_000L), ::eventRequests)
    }

    @Test
    fun `events answered 503 with a Retry-After wait as long as it asks, not the backoff`() {
        device.backend.events = firstThen(HttpResponse(503, """{"error":"Service Unavailable"}""", "30"), accepting)
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, eventRequests())
        assertTrue(device.logged(LogLevel.INFO).toString(), device.logged(LogLevel.INFO).any { "retrying in 30000 ms, as the backend asked" in it })
        device.scheduler.advance(29_999)
        assertEquals(1, eventRequests())
        device.scheduler.advance(1)
        assertEquals(2, eventRequests())
        assertEquals(1, device.backend.delivered.size)
        assertEquals(0L, core.getDroppedEventCount())
    }

    @Test
    fun `going to the background sends nothing before a Retry-After's time, which the retry keeps`() {
        device.backend.events = firstThen(HttpResponse(503, "", "30"), accepting)
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        core.onBackground()
        device.scheduler.runDue()
        assertEquals(1, eventRequests())
        device.scheduler.advance(30_000)
        assertEquals(2, eventRequests())
        assertEquals(1, device.backend.delivered.size)
    }

    @Test
    fun `an install answered 429 with a Retry-After date is sent again at that date`() {
        device.backend.installs = firstThen(HttpResponse(429, "", httpDate(device.clock.now + 45_000)), device.backend.installs)
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        device.scheduler.advance(44_000)
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        device.scheduler.advance(1_000)
        assertEquals(2, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(1, device.backend.delivered.size)
    }

    @Test
    fun `a Retry-After of a day is waited for an hour`() {
        device.backend.events = firstThen(HttpResponse(503, "", "86400"), accepting)
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        device.scheduler.advance(MAX_RETRY_AFTER_MS - 1)
        assertEquals(1, eventRequests())
        device.scheduler.advance(1)
        assertEquals(2, eventRequests())
    }

    @Test
    fun `a refusal with a Retry-After holds nothing back, the next event goes at once`() {
        device.backend.events = firstThen(HttpResponse(400, """{"error":"Bad Request","detail":"no"}""", "600"), accepting)
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        // Refused alone, dropped; the next one is not held for ten minutes.
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(2, eventRequests())
        assertEquals(1, device.backend.delivered.size)
    }

    @Test
    fun `the attribution is asked again no sooner than its Retry-After`() {
        device.backend.attribution = firstThen(HttpResponse(503, "", "120"), device.backend.attribution)
        device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(1, device.backend.requests("GET", "/v1/installs/").size)
        device.scheduler.advance(119_999)
        assertEquals(1, device.backend.requests("GET", "/v1/installs/").size)
        device.scheduler.advance(1)
        assertEquals(2, device.backend.requests("GET", "/v1/installs/").size)
        assertEquals(1, device.attributions.size)
    }

    @Test
    fun `a stop and a start begin the backoff again`() {
        device.backend.events = { HttpResponse(503, "") }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        device.assertTriedAgainAfter(listOf(2_000L, 4_000, 8_000), ::eventRequests)
        core.stop()
        device.scheduler.runDue()
        core.start()
        device.scheduler.runDue()
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        device.assertTriedAgainAfter(listOf(2_000L), ::eventRequests)
    }
}
