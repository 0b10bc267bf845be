package com.service.attribution.core

import com.service.attribution.support.MemoryStore
import org.junit.Assert.assertEquals
import org.junit.Test

class StoredQueueTest {
    private fun event(n: Int) = mapOf<String, Any?>("event_id" to "e$n")

    @Test
    fun `keeps events across instances, drops the oldest beyond its bound`() {
        val store = MemoryStore()
        val queue = StoredQueue(store, max = 3)
        (1..4).forEach { queue.add(event(it)) }
        assertEquals(listOf("e2", "e3", "e4"), StoredQueue(store, 3).peek(10).map { it["event_id"] })
    }

    @Test
    fun `removing a batch keeps the events to retry first, in order`() {
        val queue = StoredQueue(MemoryStore(), max = 10)
        (1..5).forEach { queue.add(event(it)) }
        queue.remove(3, keep = setOf(0, 2))
        assertEquals(listOf("e1", "e3", "e4", "e5"), queue.peek(10).map { it["event_id"] })
    }

    @Test
    fun `the sessions' queue is a file of its own, expired by started_at`() {
        val store = MemoryStore()
        val events = StoredQueue(store, max = 10)
        val sessions = StoredQueue(store, 10, StoredQueue.SESSIONS, "started_at")
        events.add(event(1))
        sessions.add(Requests.session("s1", "sid", 1_000))
        sessions.add(Requests.session("s2", "sid", 5_000))
        assertEquals(1, sessions.expire(2_000))
        assertEquals(listOf("s2"), StoredQueue(store, 10, StoredQueue.SESSIONS, "started_at").peek(10).map { it["session_id"] })
        assertEquals(listOf("e1"), StoredQueue(store, 10).peek(10).map { it["event_id"] })
    }
}
