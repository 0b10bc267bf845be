package com.service.attribution.core

import com.service.attribution.DeepLinkKind
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.core.HttpResponse
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.concurrent.atomic.AtomicInteger

/**
 * Which attribution answers are kept and told, how often the route is asked, where a deferred
 * deep link waits for its listener, and what a deleted install still sends: with a clock and
 * executors moved by hand.
 */
class AttributionAndDeletionTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun attributionReads() = device.backend.requests("GET", "/v1/installs/").size

    /** The attribution route answers [answers] in turn, then the last one again. */
    private fun answer(vararg answers: String) {
        val next = AtomicInteger()
        device.backend.attribution = { HttpResponse(200, answers[minOf(next.getAndIncrement(), answers.size - 1)]) }
    }

    @Test
    fun `not_configured is neither kept nor told, and is asked again later and at the next launch`() {
        answer("""{"service_match_status":"not_configured"}""")
        val core = device.configure(device.launch())
        assertEquals(1, attributionReads())
        assertTrue(device.attributions.isEmpty())
        assertEquals(emptyMap<String, String>(), core.getAttributionParams(null))
        // Asked again with backoff: 2 s, then 4 s.
        device.scheduler.advance(2_000)
        assertEquals(2, attributionReads())
        device.scheduler.advance(4_000)
        assertEquals(3, attributionReads())
        // The next launch asks too; once matched, it is kept and told.
        answer("""{"service_match_status":"matched","media_source":"ads"}""")
        val next = device.configure(device.launch())
        assertEquals(4, attributionReads())
        assertEquals(listOf("matched"), device.attributions.map { it["service_match_status"] })
        assertEquals("ads", next.getAttributionParams(null)["media_source"])
        device.configure(device.launch())
        assertEquals(4, attributionReads())
    }

    @Test
    fun `an attribution still pending is asked again further apart each time, a minute apart at most`() {
        answer("""{"service_match_status":"not_configured"}""")
        device.configure(device.launch())
        assertEquals(1, attributionReads())
        device.assertTriedAgainAfter(listOf(2_000L, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000), ::attributionReads)
    }

    @Test
    fun `an attribution read answered 404 is not asked again before the install is reported again`() {
        device.backend.attribution = { HttpResponse(404, """{"error":"Not Found","detail":"no such install"}""") }
        device.configure(device.launch())
        assertEquals(1, attributionReads())
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, attributionReads())
    }

    @Test
    fun `an empty answer or one without a status backs off, never asked again at once`() {
        answer("{}", """{"media_source":"ads"}""", """{"service_match_status":"organic","media_source":"organic"}""")
        device.configure(device.launch())
        assertEquals(1, attributionReads())
        device.scheduler.advance(2_000)
        assertEquals(2, attributionReads())
        assertTrue(device.attributions.isEmpty())
        device.scheduler.advance(4_000)
        assertEquals(3, attributionReads())
        assertEquals(listOf("organic"), device.attributions.map { it["service_match_status"] })
    }

    @Test
    fun `after deleteUserData nothing more is queued or sent for the install, in this process or the next`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-8812")
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, device.backend.delivered.size)
        assertEquals("user-8812", device.store.get("customer_user_id"))
        val sessions = device.backend.requests("POST", "/v1/sessions").size
        core.deleteUserDataAsync()
        device.scheduler.runDue()
        // The user's id goes with their data.
        assertNull(device.store.get("customer_user_id"))
        core.sendEvent(EventType.PURCHASE, null, mapOf("revenue" to 1.5))
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, device.backend.requests("POST", "/v1/events").size)
        assertEquals(0, core.queuedCount())
        // The next launch: no session, no event, no install, no attribution read.
        val installs = device.backend.requests("POST", "/v1/installs").size
        val reads = attributionReads()
        val next = device.launch()
        next.sendEvent(EventType.LOGIN, null, null)
        device.configure(next)
        next.sendEvent(EventType.SHARE, null, null)
        next.onForeground()
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, device.backend.requests("POST", "/v1/events").size)
        assertEquals(sessions, device.backend.requests("POST", "/v1/sessions").size)
        assertEquals(installs, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(reads, attributionReads())
        assertEquals(0, next.queuedCount())
        assertEquals(0, next.queuedSessionCount())
        // An app that names its user at each start, or again later, keeps no id of a deleted install.
        next.setCustomerUserId("user-8812")
        device.scheduler.runDue()
        assertNull(device.store.get("customer_user_id"))
        device.launch().configure(device.platform, SdkSettings(baseUrl = "https://backend.test"), "sdk_key", LogLevel.DEBUG, null, "user-8812")
        device.scheduler.runDue()
        assertNull(device.store.get("customer_user_id"))
        // Nothing is awaited for a deleted install.
        assertTrue(next.awaitAttributionParamsAsync(null).isDone)
        device.assertNoFailures()
    }

    @Test
    fun `a deletion made through the service's API is learned from its answers, and kept for the next launch`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-8812")
        device.scheduler.runDue()
        // The app's backend deleted the install on a person's request: the service ignores what
        // comes for it from now on.
        device.backend.events = { batch ->
            val ignored = batch.mapIndexed { i, event -> "{\"index\":$i,\"event_id\":\"${event["event_id"]}\",\"reason\":\"install_deleted\",\"detail\":\"in words\"}" }
            HttpResponse(202, "{\"accepted\":0,\"ignored\":[${ignored.joinToString(",")}],\"rejected\":[]}")
        }
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(listOf("deleted" to 1), device.errors.map { it.reason!!.wire to it.count })
        assertEquals("1", device.store.get("deleted"))
        assertNull(device.store.get("customer_user_id"))
        // Nothing more is queued or sent, in this launch or the next.
        assertFalse(core.sendEvent(EventType.SHARE, null, null))
        val events = device.backend.requests("POST", "/v1/events").size
        val next = device.configure(device.launch())
        assertFalse(next.sendEvent(EventType.SEARCH, null, null))
        next.onForeground()
        device.scheduler.advance(10 * 60_000)
        assertEquals(events, device.backend.requests("POST", "/v1/events").size)
        assertEquals(0, next.queuedCount())
    }

    @Test
    fun `a deferred deep link found while no listener is set stays on the device for a listener of a later launch`() {
        answer("""{"service_match_status":"matched","media_source":"x","deep_link_path":"/levels/7","promo":"W"}""")
        val first = device.launch()
        first.setDeepLinkListener(null)
        device.configure(first)
        assertTrue(device.deepLinks.isEmpty())
        // The process dies before the app set a listener: the next launch's listener gets it, once.
        device.configure(device.launch())
        assertEquals(listOf("/levels/7"), device.deepLinks.map { it.path })
        assertEquals(DeepLinkKind.DEFERRED, device.deepLinks.single().kind)
        assertEquals(mapOf("deep_link_path" to "/levels/7", "promo" to "W"), device.deepLinks.single().params)
        device.configure(device.launch())
        assertEquals(1, device.deepLinks.size)
    }
}
