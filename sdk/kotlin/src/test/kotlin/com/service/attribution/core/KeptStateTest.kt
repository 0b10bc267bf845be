package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** What the device keeps across launches, read back: the count of drops, the queue's items. */
class KeptStateTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Test
    fun `getDroppedEventCount before configure gives the count kept on the device across launches`() {
        // Launch 1: an event refused alone for good: dropped, counted on the device.
        device.backend.events = { HttpResponse(400, """{"error":"Bad Request","detail":"bad event"}""") }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1L, first.getDroppedEventCount())
        // Launch 2, read before configure, the device's storage given as the start-up provider
        // gives it ("Events dropped on this device so far, across launches").
        val second = device.launch().also { core -> core.useEarlyStorage { EarlyStorage(device.store, device.store) { device.appInstalledAt } } }
        assertEquals("getDroppedEventCount() before configure, after 1 drop in an earlier launch", 1L, second.getDroppedEventCount())
    }

    @Test
    fun `a kept queue item with no event_id is reported as unreadable (reason null), never sent`() {
        // The events' queue kept on the device: one good item, one that is an object without event_id.
        val good =
            """{"event_id":"11111111-1111-4111-8111-111111111111","event_type":"LOGIN","event_name":null,"parameters":null,""" +
                """"event_time":"2026-09-21T10:00:00Z","service_id":"s","customer_user_id":null}"""
        val damaged = """{"event_type":"LOGIN","event_time":"2026-09-21T10:00:00Z"}"""
        device.store.put("service_id", "s")
        device.store.put("install_tracked", "1")
        device.store.put(StoredQueue.EVENTS, good + "\n" + damaged + "\n")
        device.configure(device.launch())
        device.scheduler.advance(10_000)
        val sentWithoutId = device.backend.eventRequests().flatMap { (it["events"] as List<*>) }.count { (it as Map<*, *>)["event_id"] == null }
        assertEquals("events sent with no event_id", 0, sentWithoutId)
        assertTrue(
            "errors heard: ${device.errors}",
            device.errors.any { it.reason == null && it.count == 1 },
        )
    }
}
