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
    fun `an install not recorded yet is sent when the app goes to the background, then the session waiting behind it`() {
        device.backend.installs = { null }
        val core = device.configure(device.launch())
        assertEquals(1, installs())
        assertEquals(1, core.queuedSessionCount())
        device.backend.installs = { ScriptedBackend().installs(it) }
        core.onBackground()
        device.scheduler.runDue()
        assertEquals(2, installs())
        assertEquals(1, device.backend.deliveredSessions.size)
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
