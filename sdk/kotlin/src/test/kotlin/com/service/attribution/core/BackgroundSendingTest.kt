package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test

/**
 * What the app going to the background sends: what is queued goes at once, not at the time of
 * a retry that may never come (Android ends a background process when it likes). A clock and
 * executors moved by hand: "at once" is without moving the clock.
 */
class BackgroundSendingTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun installs() = device.backend.requests("POST", "/v1/installs").size

    @Test
    fun `going to the background sends the queued events at once, and the retry that waited is void`() {
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        // Offline: tried at once, then after 2 seconds; the next retry waits 4 more.
        device.scheduler.advance(2_000)
        assertEquals(2, device.backend.eventRequests().size)
        assertEquals(1, core.queuedCount())
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        core.onBackground()
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(0, core.queuedCount())
        // The retry's time comes: nothing is left for it, and it sends nothing.
        device.scheduler.advance(60_000)
        assertEquals(3, device.backend.eventRequests().size)
        device.assertNoFailures()
    }

    @Test
    fun `an install not recorded yet waits for its retry in the background, then the session waiting behind it goes`() {
        device.backend.installs = { null }
        val core = device.configure(device.launch())
        assertEquals(1, installs())
        assertEquals(1, core.queuedSessionCount())
        device.backend.installs = { ScriptedBackend().installs(it) }
        core.onBackground()
        device.scheduler.runDue()
        assertEquals("not sent at the background", 1, installs())
        // The retry's time: 2 seconds after the first try.
        device.scheduler.advance(2_000)
        assertEquals(2, installs())
        assertEquals(1, device.backend.deliveredSessions.size)
        device.assertNoFailures()
    }

    @Test
    fun `going to the background while the install waits for the Play Store does not use up its referrer reads`() {
        var reads = 0
        device.referrer =
            InstallReferrerSource {
                reads++
                if (reads < 3) throw ReferrerUnavailableException("the Play Store answered 1")
                InstallReferrerDetails("utm_source=ads&service_click_id=abc", clickTimestampSeconds = 1_789_999_000)
            }
        val core = device.configure(device.launch())
        assertEquals(1, reads)
        // The user leaves and returns twice within a second of the first launch.
        repeat(2) {
            core.onBackground()
            device.scheduler.runDue()
            core.onForeground()
            device.scheduler.runDue()
        }
        assertEquals("the retry waiting is left alone", 1, reads)
        assertEquals(0, installs())
        // The install's retries: 2 seconds, then 4; the third read answers.
        device.scheduler.advance(2_000)
        device.scheduler.advance(4_000)
        assertEquals(3, reads)
        val install = device.backend.requests("POST", "/v1/installs").single()
        assertEquals("utm_source=ads&service_click_id=abc", (Json.parseObject(install.body!!)["install_referrer"] as Map<*, *>)["referrer"])
        device.assertNoFailures()
    }

    @Test
    fun `nothing is sent in the background while stopped, nor when nothing waits`() {
        val core = device.configure(device.launch())
        val requests = device.backend.transport.requests.size
        core.onBackground()
        device.scheduler.runDue()
        assertEquals("nothing waits: no request", requests, device.backend.transport.requests.size)
        core.onForeground()
        device.scheduler.runDue()

        device.backend.installs = { null }
        val stopped = device.configure(device.launch().also { device.store.remove("install_tracked") })
        assertEquals(2, installs())
        stopped.stop()
        device.scheduler.runDue()
        device.backend.installs = { ScriptedBackend().installs(it) }
        stopped.onBackground()
        device.scheduler.runDue()
        assertEquals("stopped: the install waits for start()", 2, installs())
        device.assertNoFailures()
    }
}
