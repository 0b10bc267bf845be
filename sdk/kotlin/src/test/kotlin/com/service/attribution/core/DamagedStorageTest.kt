package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceErrorKind
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Values kept on the device that cannot be read back (a damaged file, a write cut short): what
 * can be read is kept and sent, and what is lost is logged at error level, counted and told to
 * the error listener (with no drop reason: the SDK chose nothing), never an empty queue unsaid.
 */
class DamagedStorageTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun lost() = device.errors.filter { it.reason == null }

    @Test
    fun `a damaged queue keeps the events it can read and reports those it lost, once`() {
        device.backend.events = { null }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        first.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        val kept = device.store.get(StoredQueue.EVENTS)!!
        // A line of another shape, then one cut off in the middle of an event.
        device.store.put(StoredQueue.EVENTS, kept + "\"an event\"\n{\"event_id\":\"e9\",\"ev")
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        val next = device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        val error = lost().single()
        assertEquals(ServiceErrorKind.EVENTS_DROPPED, error.kind)
        assertEquals(2, error.count)
        assertTrue(error.message, error.message.startsWith("2 events lost"))
        assertEquals(2L, next.getDroppedEventCount())
        assertEquals(1, device.logged(LogLevel.ERROR).count { it.startsWith("2 events lost") })
        // Written back without what was lost: the next launch reports nothing more.
        device.configure(device.launch())
        assertEquals(1, lost().size)
        device.assertNoFailures()
    }

    @Test
    fun `an event with a number whose text is no JSON number costs no other queued event at the next launch`() {
        device.backend.events = { null }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.PURCHASE, null, mapOf("revenue" to 9.99, "currency" to "EUR"))
        first.sendEvent(EventType.CUSTOM, "odd", mapOf("score" to java.util.concurrent.atomic.DoubleAdder().apply { add(Double.NaN) }, "level" to 3))
        first.sendEvent(EventType.LEVEL_COMPLETE, null, mapOf("level" to 3))
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        val next = device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(listOf("PURCHASE", "CUSTOM", "LEVEL_COMPLETE", "LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(mapOf("level" to 3L), device.backend.delivered[1]["parameters"])
        assertEquals(0L, next.getDroppedEventCount())
        assertTrue(lost().isEmpty())
        device.assertNoFailures()
    }

    @Test
    fun `a damaged journal of events handed to sendEvent is reported rather than silently empty`() {
        // A line of another shape, one that is no JSON, and one cut short by a process killed as it wrote it.
        val kept = DraftJson.line(Draft("e0", EventType.LOGIN, null, emptyMap(), device.clock.now, null))
        device.store.put("pending_events", "$kept\n{\"event_id\":\"e1\",\"type\":\"NO_SUCH_TYPE\",\"time_ms\":1}\nnot json\n{\"event_id\":\"e3\",\"ty")
        val core = device.configure(device.launch())
        val error = lost().single()
        assertEquals(3, error.count)
        assertTrue(error.message, "sendEvent" in error.message)
        assertEquals(3L, core.getDroppedEventCount())
        // The line that could be read is sent; the journal is left empty, so that the loss is reported once.
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    @Test
    fun `a damaged sessions' queue is logged at error level and counted, not told to the app`() {
        device.store.put(StoredQueue.SESSIONS, "7\n{\"session_id\":\"s1\",\"service_id\":\"x\",\"started_at\":\"${Requests.iso(device.clock.now)}\"}\n")
        val core = device.configure(device.launch())
        assertEquals(1L, core.droppedSessionCount())
        assertTrue(device.logged(LogLevel.ERROR).any { it.startsWith("1 session lost") })
        assertEquals(emptyList<Any>(), device.errors)
        assertEquals(listOf("s1"), device.backend.deliveredSessions.map { it["session_id"] }.take(1))
        device.assertNoFailures()
    }
}
