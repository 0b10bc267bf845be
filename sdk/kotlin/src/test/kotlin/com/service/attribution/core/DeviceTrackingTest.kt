package com.service.attribution.core

import com.service.attribution.Consent
import com.service.attribution.EventType
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.ScriptedDevice.Companion.GAID
import com.service.attribution.support.pathOf
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Test

/**
 * The device's tracking after the install (docs/api.md#consent, requests.json's tracking
 * update): read at each start, after each return to the foreground and at each change of
 * anonymous mode once the install is recorded, and sent through the consent route when it
 * differs from what the backend holds.
 */
class DeviceTrackingTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private val none = mapOf("maid" to null, "att_status" to null)
    private val given = mapOf("maid" to GAID, "att_status" to null)

    private fun updates(): List<Map<String, Any?>> =
        device.backend.requests("POST", "/v1/installs/").filter { it.url.endsWith("/consent") }.map { Json.parseObject(it.body!!) }

    private fun installs(): List<Map<String, Any?>> = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }

    /** The routes the SDK sent, in order, but the attribution reads. */
    private fun routes(): List<String> =
        synchronized(device.backend.transport.requests) {
            device.backend.transport.requests.map { pathOf(it.url).substringBefore('?') }.filter { !it.endsWith("/attribution") }
                .map { if (it.endsWith("/consent")) "consent" else it.removePrefix("/v1/") }
        }

    @Test
    fun `a start with the same tracking sends no update`() {
        device.configure(device.launch())
        assertEquals(GAID, installs().single()["maid"])
        device.configure(device.launch())
        val last = device.configure(device.launch())
        assertEquals(emptyList<Any>(), updates())
        // Read once by the install, once at each later start, not once a send.
        repeat(3) {
            last.sendEvent(EventType.SHARE, null, null)
            device.scheduler.runDue()
        }
        assertEquals(3, device.backend.delivered.size)
        assertEquals(3, device.advertisingIdReads)
        device.assertNoFailures()
    }

    @Test
    fun `a start after the advertising id went sends an update with no maid and the current consent, before the events`() {
        val first = device.configure(device.launch())
        first.setConsent(Consent(gdprApplies = true, adUserData = true))
        device.scheduler.runDue()
        assertEquals(1, updates().size)
        assertEquals("the consent update carries the device's tracking", given, updates().single()["device"])

        // Limit ad tracking on (or the id deleted): Play services give none.
        device.advertisingId = { null }
        val next = device.launch()
        next.sendEvent(EventType.LOGIN, null, null)
        device.configure(next)
        val update = updates().last()
        assertEquals(2, updates().size)
        assertEquals(none, update["device"])
        assertEquals(mapOf("gdpr_applies" to true, "ad_user_data" to true, "ad_personalization" to null, "tcf_string" to null), update["consent"])
        assertEquals(Requests.iso(device.clock.now), update["sent_at"])
        // The event leaves after it, so the backend keeps no withdrawn id on it.
        assertEquals(listOf("consent", "sessions", "events"), routes().takeLast(3))
        assertEquals(1, installs().size)

        // Still none at the next start: nothing more.
        device.configure(device.launch())
        assertEquals(2, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `the tracking changed while stopped is sent at start`() {
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        core.stop()
        // Limit ad tracking turned on while the SDK was stopped.
        device.advertisingId = { null }
        core.start()
        device.scheduler.runDue()
        assertEquals(mapOf("maid" to null, "att_status" to null), updates().single()["device"])
    }

    @Test
    fun `a start after a new advertising id sends it`() {
        device.configure(device.launch())
        val reset = "6d92078a-8246-4ba4-ae5b-76104861e7dc"
        device.advertisingId = { reset }
        device.configure(device.launch())
        val update = updates().single()
        assertEquals(mapOf("maid" to reset, "att_status" to null), update["device"])
        // No consent was ever known: the update says so, all null.
        assertEquals(mapOf("gdpr_applies" to null, "ad_user_data" to null, "ad_personalization" to null, "tcf_string" to null), update["consent"])
        // The all-zero id Android gives once the user deleted it is none.
        device.advertisingId = { "00000000-0000-0000-0000-000000000000" }
        device.configure(device.launch())
        assertEquals(none, updates().last()["device"])
        assertEquals(2, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `setAnonymous after the install sends no maid, without reading the advertising id, and off sends it again`() {
        val core = device.configure(device.launch())
        val reads = device.advertisingIdReads
        core.setAnonymous(true)
        device.scheduler.runDue()
        assertEquals(none, updates().single()["device"])
        assertEquals("anonymous: the id is not even read", reads, device.advertisingIdReads)
        // The same mode again: nothing to send.
        core.setAnonymous(true)
        device.scheduler.runDue()
        assertEquals(1, updates().size)
        // Kept across launches: a start in anonymous mode has nothing to send either.
        val next = device.configure(device.launch())
        assertEquals(1, updates().size)
        next.setAnonymous(false)
        device.scheduler.runDue()
        assertEquals(given, updates().last()["device"])
        assertEquals(2, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `the update is not sent before the install is recorded, and is sent after`() {
        device.backend.installs = { HttpResponse(503, """{"error":"Service Unavailable"}""") }
        val core = device.configure(device.launch())
        core.setAnonymous(true)
        device.scheduler.runDue()
        assertEquals(1, installs().size)
        assertEquals(emptyList<Any>(), updates())
        // The install goes at its retry, in the mode now in force: no update is needed for it.
        device.backend.installs = { HttpResponse(202, """{"service_id":"x"}""") }
        device.scheduler.advance(2_000)
        assertEquals(2, installs().size)
        assertNull(installs().last()["maid"])
        assertEquals(emptyList<Any>(), updates())
        // A change once it is recorded goes.
        core.setAnonymous(false)
        device.scheduler.runDue()
        assertEquals(given, updates().single()["device"])
        device.assertNoFailures()
    }

    @Test
    fun `Play services not answering at a start withdraw no id, and a consent update then carries the one the backend holds`() {
        device.configure(device.launch())
        device.advertisingId = { throw java.io.IOException("Play services not connected") }
        val next = device.configure(device.launch())
        assertEquals(emptyList<Any>(), updates())
        next.setConsent(Consent(adPersonalization = false))
        device.scheduler.runDue()
        assertEquals(given, updates().single()["device"])
        device.assertNoFailures()
    }

    @Test
    fun `a consent update while the tracking is unreadable and none was kept leaves the device out`() {
        device.configure(device.launch())
        device.store.values.remove("tracking_sent")
        device.advertisingId = { throw java.io.IOException("Play services not connected") }
        val next = device.configure(device.launch())
        next.setConsent(Consent(adPersonalization = false))
        device.scheduler.runDue()
        val update = updates().single()
        assertFalse("the backend keeps what it holds: $update", "device" in update)
        device.assertNoFailures()
    }

    @Test
    fun `a tracking update answered 409 sends the install again, carrying the tracking, and no update after it`() {
        device.configure(device.launch())
        device.backend.consent = { HttpResponse(409, """{"error":"Conflict","detail":"install"}""") }
        device.advertisingId = { null }
        val next = device.configure(device.launch())
        assertEquals(1, updates().size)
        device.backend.consent = { HttpResponse(202, Json.write(mapOf("consent" to Json.parseObject(it.body!!)["consent"]))) }
        next.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(2_000)
        assertEquals(2, installs().size)
        assertNull(installs().last()["maid"])
        assertEquals("the install carried it", 1, updates().size)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        device.configure(device.launch())
        assertEquals(1, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `an install recorded without the tracking it sent kept sends the device's once`() {
        device.configure(device.launch())
        device.store.values.remove("tracking_sent")
        device.configure(device.launch())
        assertEquals(given, updates().single()["device"])
        device.configure(device.launch())
        assertEquals(1, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `an install refused whole and recorded bare is followed by an update with the advertising id it left out`() {
        var refusals = 0
        // The whole install refused for good once: sent again with its required fields only.
        device.backend.installs = {
            if (refusals++ == 0) HttpResponse(422, """{"error":"Unprocessable Entity","detail":"install"}""")
            else HttpResponse(202, """{"service_id":"x"}""")
        }
        device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(2, installs().size)
        assertNull("the bare install holds no tracking", installs()[1]["maid"])
        assertEquals("the id the device has goes in an update in the same run", given, updates().single()["device"])
    }

    @Test
    fun `a return to the foreground after a while with the advertising id gone sends an update, and a quick one reads nothing`() {
        device.backend.config = {
            HttpResponse(200, """{"enabled":true,"refresh_interval_seconds":3600,"session_interval_seconds":1,"encryption":{"enabled":false}}""")
        }
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        val reads = device.advertisingIdReads
        // Limit ad tracking turned on in the Settings app while the app was away.
        device.advertisingId = { null }
        core.onBackground()
        device.scheduler.advance(2_000)
        core.onForeground()
        device.scheduler.runDue()
        assertEquals(mapOf("maid" to null, "att_status" to null), updates().single()["device"])
        // Back within the session interval: no new session, nothing read.
        val after = device.advertisingIdReads
        core.onBackground()
        core.onForeground()
        device.scheduler.runDue()
        assertEquals(after, device.advertisingIdReads)
        assertEquals(1, updates().size)
        assertEquals(reads + 1, after)
    }

    @Test
    fun `a quick return to the foreground after the advertising id was reset or limited tells the backend before the next event`() {
        // The default session interval (30 minutes): none of these returns begins a session.
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(emptyList<Any>(), updates())

        // The id reset in the Settings app during a minute away.
        val reset = "6d92078a-8246-4ba4-ae5b-76104861e7dc"
        device.advertisingId = { reset }
        core.onBackground()
        device.scheduler.advance(60_000)
        core.onForeground()
        device.scheduler.runDue()
        val reads = device.advertisingIdReads
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(mapOf("maid" to reset, "att_status" to null), updates().single()["device"])
        assertEquals("the update leaves before the event", listOf("consent", "events"), routes().takeLast(2))
        assertEquals("read once, at the send", reads + 1, device.advertisingIdReads)

        // Then limit ad tracking turned on during a few seconds away: no id from then on.
        device.advertisingId = { null }
        core.onBackground()
        device.scheduler.advance(5_000)
        core.onForeground()
        core.sendEvent(EventType.SEARCH, null, null)
        device.scheduler.runDue()
        assertEquals(none, updates().last()["device"])
        assertEquals(2, updates().size)
        assertEquals(listOf("consent", "events"), routes().takeLast(2))

        // A return with the tracking as it was reads it once at the next send, and sends no update.
        core.onBackground()
        core.onForeground()
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(2, updates().size)
        device.assertNoFailures()
    }

    @Test
    fun `a second report of the foreground while already in it makes no read of the advertising id`() {
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val reads = device.advertisingIdReads
        // Launched in the foreground: the first activity's start continues it.
        core.onForeground()
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(reads, device.advertisingIdReads)
        assertEquals(2, device.backend.delivered.size)
        device.assertNoFailures()
    }
}
