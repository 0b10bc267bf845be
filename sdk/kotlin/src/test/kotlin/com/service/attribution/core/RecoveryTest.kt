package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.CountingLineLog
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * What one process of the app recovers from without a new launch: a configuration read that
 * failed or fell due while stopped, a Play Store that could not answer at once, an attribution
 * that arrived while stopped. A clock and executors moved by hand.
 */
class RecoveryTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private val hour = 3_600_000L

    private fun configReads() = device.backend.requests("GET", "/v1/config").size

    private fun installs() = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }

    @Test
    fun `a configuration read that fails is tried again after its interval, so a later switch-off is followed`() {
        val core = device.configure(device.launch())
        assertEquals(1, configReads())
        device.backend.config = { null }
        device.scheduler.advance(hour)
        assertEquals(2, configReads())
        assertTrue("the configuration in force holds", core.isEnabled())
        device.backend.config = { HttpResponse(200, CONFIG_OFF) }
        device.scheduler.advance(hour)
        assertEquals(3, configReads())
        assertFalse(core.isEnabled())
        // Switched off, it still reads: on again is followed too.
        device.backend.config = { HttpResponse(200, ScriptedBackend.CONFIG_ON) }
        device.scheduler.advance(hour)
        assertTrue(core.isEnabled())
        device.assertNoFailures()
    }

    @Test
    fun `with no configuration ever read, each sendEvent adds its line to the journal, which is written whole once a thousand events went past the bound`() {
        val journal = CountingLineLog(LineLog.inStore(device.store, "pending_events"))
        device.drafts = journal
        device.backend.config = { HttpResponse(503, """{"error":"Service Unavailable","detail":"x"}""") }
        val core = device.configure(device.launch())
        repeat(2_500) { core.sendEvent(EventType.CUSTOM, "e$it", null) }
        device.scheduler.runDue()
        // The journal never written whole for an event, but once: past twice the bound, the
        // trimmed 1,000 leave it.
        assertEquals(2_499, journal.appends)
        assertEquals(1, journal.wholeWrites)
        assertEquals(1_500L, core.getDroppedEventCount())
        // Written whole at the 2,001st event, then 499 added.
        assertEquals(1_000 + 499, journal.read().size)
        // The next launch reads the newest 1,000 back, in order, and sends them; no loss is told twice.
        device.backend.config = { HttpResponse(200, ScriptedBackend.CONFIG_ON) }
        device.errors.clear()
        val next = device.configure(device.launch())
        device.scheduler.advance(60_000)
        assertEquals((1_500 until 2_500).map { "e$it" }, device.backend.delivered.map { it["event_name"] })
        assertEquals(1_500L, next.getDroppedEventCount())
        assertEquals(emptyList<Any>(), device.errors)
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    @Test
    fun `with no configuration ever read, events wait unprotected in the journal, read again 2 s doubling to a minute, then sealed and sent`() {
        // A first launch whose read of the configuration fails (a 5xx; offline or a firewall's
        // 403 alike): nothing kept on the device from an earlier one.
        val readAt = ArrayList<Long>()
        var answer = HttpResponse(503, """{"error":"Service Unavailable","detail":"x"}""")
        device.backend.config = {
            readAt += device.clock.now
            answer
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.SIGN_UP, null, mapOf("email" to "Jane.Doe@Example.com", "method" to "email"))
        device.scheduler.runDue()
        // On, as the README says: the install and the session go.
        assertTrue(core.isEnabled())
        assertEquals(1, installs().size)
        assertEquals(1, device.backend.deliveredSessions.size)
        // The event waits in the journal as it was sent, neither hashed nor queued, nor sent.
        assertEquals(emptyList<Any>(), device.backend.eventRequests())
        assertNull(device.store.get(StoredQueue.EVENTS))
        assertTrue(device.store.get("pending_events")!!.contains("Jane.Doe@Example.com"))
        assertEquals(1, core.queuedCount())
        // Read again as a send is retried, not an hour later.
        device.scheduler.advance(3 * 60_000)
        assertEquals(listOf(2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 60_000L), readAt.zipWithNext { a, b -> b - a }.take(6))
        assertEquals(emptyList<Any>(), device.backend.eventRequests())
        // The backend answers, sealing on: the event is sealed, queued and sent.
        answer = HttpResponse(200, CONFIG_SEALING)
        device.scheduler.advance(60_000)
        val email = (device.backend.delivered.single()["parameters"] as Map<*, *>)["email"] as String
        assertTrue(email, email.startsWith("sv1.k1."))
        assertNull(device.store.get("pending_events"))
        // Known now: read again after its interval only.
        val reads = configReads()
        device.scheduler.advance(readAt.last() + hour - 1_000 - device.clock.now)
        assertEquals(reads, configReads())
        device.scheduler.advance(1_000)
        assertEquals(reads + 1, configReads())
        device.assertNoFailures()
    }

    @Test
    fun `start while not stopped, as at each resume of the app, reads no configuration, and a start after a stop does`() {
        val core = device.configure(device.launch())
        assertEquals(1, configReads())
        repeat(3) {
            core.start()
            device.scheduler.runDue()
        }
        assertEquals(1, configReads())
        assertEquals("no session either", 1, device.backend.deliveredSessions.size)
        core.stop()
        core.start()
        device.scheduler.runDue()
        assertEquals(2, configReads())
        device.assertNoFailures()
    }

    @Test
    fun `a configuration read due while stopped is made at start, and the reads go on`() {
        val core = device.configure(device.launch())
        core.stop()
        device.scheduler.advance(hour)
        assertEquals("none while stopped", 1, configReads())
        device.backend.config = { HttpResponse(200, CONFIG_OFF) }
        core.start()
        device.scheduler.runDue()
        assertEquals(2, configReads())
        assertFalse(core.isEnabled())
        device.scheduler.advance(hour)
        assertEquals(3, configReads())
        device.assertNoFailures()
    }

    @Test
    fun `an install waits for a Play Store that cannot answer yet, and carries the referrer it then gives`() {
        var reads = 0
        device.referrer =
            InstallReferrerSource {
                reads++
                if (reads < 3) throw ReferrerUnavailableException("the Play Store answered 1")
                InstallReferrerDetails("utm_source=ads&service_click_id=abc", clickTimestampSeconds = 1_789_999_000)
            }
        device.configure(device.launch())
        assertEquals(emptyList<Any>(), installs())
        // The install's retries: 2 seconds, then 4.
        device.scheduler.advance(2_000)
        assertEquals(emptyList<Any>(), installs())
        device.scheduler.advance(4_000)
        assertEquals(3, reads)
        assertEquals("utm_source=ads&service_click_id=abc", (installs().single()["install_referrer"] as Map<*, *>)["referrer"])
        device.assertNoFailures()
    }

    @Test
    fun `a Play Store that stays unavailable holds the install three reads, then it goes without a referrer`() {
        var reads = 0
        device.referrer =
            InstallReferrerSource {
                reads++
                throw ReferrerUnavailableException("the Play Store did not answer in 10 seconds")
            }
        device.configure(device.launch())
        device.scheduler.advance(60_000)
        assertEquals(SdkCore.MAX_REFERRER_TRIES, reads)
        val install = installs().single()
        assertNull(install["install_referrer"])
        assertEquals(1, device.logged(LogLevel.WARN).count { "install referrer unavailable 3 times" in it })
        device.assertNoFailures()
    }

    @Test
    fun `an attribution that arrives while stopped is asked for again at start, and told then`() {
        val core = device.launch()
        val organic = device.backend.attribution
        device.backend.attribution = { request ->
            core.stop()
            organic(request)
        }
        device.configure(core)
        assertEquals(emptyList<Any>(), device.attributions)
        device.backend.attribution = organic
        core.start()
        device.scheduler.runDue()
        assertEquals(2, device.backend.requests("GET", "/v1/installs/").count { "/attribution" in it.url })
        assertEquals("organic", device.attributions.single()["media_source"])
        device.assertNoFailures()
    }

    @Test
    fun `a later launch's await answers at once with the attribution kept on the device, before any request`() {
        device.configure(device.launch())
        assertEquals("organic", device.attributions.single()["media_source"])
        // The next launch, its worker not run yet: no configuration read, nothing sent.
        val next = device.launch()
        next.configure(device.platform, SdkSettings(baseUrl = "https://backend.test"), "sdk_key", LogLevel.DEBUG, null, null)
        val requests = device.backend.transport.requests.size
        val answer = next.awaitAttributionParamsAsync(null)
        assertTrue("answered without waiting for the network", answer.isDone)
        assertEquals("organic", answer.get()["media_source"])
        assertEquals(requests, device.backend.transport.requests.size)
    }

    @Test
    fun `an attribution read answered 404 is read again once the install is reported again`() {
        // The backend lost the install: its attribution is unknown, and the next event's answer
        // asks for the install again.
        val organic = device.backend.attribution
        var reads = 0
        device.backend.attribution = { request ->
            if (reads++ == 0) HttpResponse(404, """{"error":"Not Found","detail":"no such install"}""") else organic(request)
        }
        var answers = 0
        device.backend.events = { events ->
            if (answers++ == 0) {
                HttpResponse(202, """{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":null,"error":"Conflict","detail":"install","retryable":true}],"warnings":[]}""")
            } else {
                ScriptedBackend.accepted(events.size)
            }
        }
        val core = device.configure(device.launch())
        assertEquals(emptyList<Any>(), device.attributions)
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(2_000)
        assertEquals(2, installs().size)
        assertEquals(2, reads)
        assertEquals("organic", device.attributions.single()["media_source"])
        device.assertNoFailures()
    }

    @Test
    fun `a configuration whose sealing key cannot seal is refused, and events go on under the one in force`() {
        val core = device.configure(device.launch())
        device.backend.config = {
            HttpResponse(200, """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":true,"key_id":"k1","public_key":"bm90IGEga2V5","clear_keys":[]}}""")
        }
        device.scheduler.advance(hour)
        assertEquals(2, configReads())
        core.sendEvent(EventType.LOGIN, null, mapOf("level" to 7))
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(1, device.logged(LogLevel.WARN).count { "remote configuration refresh failed" in it })
        // And it is read again after the interval, as any failed read.
        device.scheduler.advance(hour)
        assertEquals(3, configReads())
        device.assertNoFailures()
    }

    private companion object {
        const val CONFIG_OFF = """{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""
        const val CONFIG_SEALING =
            """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":true,"key_id":"k1",""" +
                """"public_key":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2sElZWhyuJZQHRJYyuCs5yDDUsQAOyUgS-iMltmJEKLd7j2MkxTcOA52-NAlfjZFixthC7rHwXw_94EtuH0jwg",""" +
                """"clear_keys":[]}}"""
    }
}
