package com.service.attribution.core

import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test
import java.util.concurrent.atomic.AtomicBoolean

/**
 * Every event sendEvent took is delivered or reported as dropped (README, Drops), however many
 * launches pass before a configuration is read: the bound of the events waiting holds across
 * them, and what it drops is told.
 */
class DraftBoundTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Test
    fun `events over the journal's bound after two offline launches are either delivered or reported`() {
        // Launch 1: a first launch offline, no configuration ever read: 1,000 events wait in the journal.
        device.backend.config = { null }
        val first = device.configure(device.launch())
        repeat(1_000) { first.sendEvent(EventType.LOGIN, null, null) }
        device.scheduler.runDue()
        // Launch 2: 500 events sent before configure, still offline; the process then ends.
        val second = device.launch()
        repeat(500) { second.sendEvent(EventType.LOGIN, null, null) }
        device.configure(second)
        device.scheduler.runDue()
        // Launch 3: online.
        device.backend.config = { HttpResponse(200, ScriptedBackend.CONFIG_ON) }
        val third = device.configure(device.launch())
        device.scheduler.advance(120_000)
        val delivered = device.backend.delivered.size
        val reported = device.errors.sumOf { it.count }
        // 1,500 events were taken (sendEvent accepted each one): each delivered or reported.
        assertEquals("delivered $delivered + reported $reported (errors ${device.errors}); dropped count ${third.getDroppedEventCount()}", 1_500, delivered + reported)
        assertEquals(reported.toLong(), third.getDroppedEventCount())
    }

    @Test
    fun `an event the bound takes off the journal while the worker queues it is reported once and never sent`() {
        device.queues = MemoryStore()
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        // 1,000 events wait for the worker (busy with a request, say): the journal is full.
        repeat(1_000) { core.sendEvent(EventType.LOGIN, null, null) }
        // One more comes as the worker writes them to the queue: the journal's bound takes the
        // oldest, which the worker holds already, and tells it dropped.
        val once = AtomicBoolean()
        device.queues!!.beforeGet = { key ->
            if (key == StoredQueue.EVENTS && once.compareAndSet(false, true)) core.sendEvent(EventType.LOGIN, null, null)
        }
        device.scheduler.advance(60_000)
        val delivered = device.backend.delivered.map { it["event_id"] }
        val reported = device.errors.sumOf { it.count }
        assertEquals("each event delivered once", delivered.size, delivered.toSet().size)
        assertEquals(listOf(DropReason.QUEUE_FULL to 1), device.errors.map { it.reason to it.count })
        // 1,001 events were taken: each delivered or reported, none both.
        assertEquals("delivered ${delivered.size} + reported $reported", 1_001, delivered.size + reported)
        assertEquals(reported.toLong(), core.getDroppedEventCount())
        device.assertNoFailures()
    }
}
