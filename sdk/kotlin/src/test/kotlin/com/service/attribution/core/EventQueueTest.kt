package com.service.attribution.core

import com.service.attribution.support.MemoryStore
import org.junit.Assert.assertEquals
import org.junit.Test

class EventQueueTest {
    private fun event(n: Int) = mapOf<String, Any?>("event_id" to "e$n")

    @Test
    fun `keeps events across instances, drops the oldest beyond its bound`() {
        val store = MemoryStore()
        val queue = EventQueue(store, max = 3)
        (1..4).forEach { queue.add(event(it)) }
        assertEquals(listOf("e2", "e3", "e4"), EventQueue(store, 3).peek(10).map { it["event_id"] })
    }

    @Test
    fun `removing a batch keeps the events to retry first, in order`() {
        val queue = EventQueue(MemoryStore(), max = 10)
        (1..5).forEach { queue.add(event(it)) }
        queue.remove(3, keep = setOf(0, 2))
        assertEquals(listOf("e1", "e3", "e4", "e5"), queue.peek(10).map { it["event_id"] })
    }
}
