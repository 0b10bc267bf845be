package com.service.attribution.core

import com.service.attribution.support.MemoryStore
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

class StoredQueueTest {
    private fun event(n: Int) = mapOf<String, Any?>("event_id" to "e$n")

    @Test
    fun `keeps events across instances, drops the oldest beyond its bound`() {
        val store = MemoryStore()
        val queue = StoredQueue(store, max = 3)
        (1..4).forEach { queue.addAll(listOf(event(it))) }
        assertEquals(listOf("e2", "e3", "e4"), StoredQueue(store, 3).peek(10).map { it["event_id"] })
    }

    @Test
    fun `removing a batch keeps the events to retry first, in order`() {
        val queue = StoredQueue(MemoryStore(), max = 10)
        (1..5).forEach { queue.addAll(listOf(event(it))) }
        queue.remove(3, keep = setOf(0, 2))
        assertEquals(listOf("e1", "e3", "e4", "e5"), queue.peek(10).map { it["event_id"] })
    }

    @Test
    fun `the sessions' queue is a file of its own, expired by started_at`() {
        val store = MemoryStore()
        val events = StoredQueue(store, max = 10)
        val sessions = StoredQueue(store, 10, StoredQueue.SESSIONS, "started_at")
        events.addAll(listOf(event(1)))
        sessions.addAll(listOf(Requests.session("s1", "sid", 1_000)))
        sessions.addAll(listOf(Requests.session("s2", "sid", 5_000)))
        assertEquals(1, sessions.expire(2_000))
        assertEquals(listOf("s2"), StoredQueue(store, 10, StoredQueue.SESSIONS, "started_at").peek(10).map { it["session_id"] })
        assertEquals(listOf("e1"), StoredQueue(store, 10).peek(10).map { it["event_id"] })
    }

    @Test
    fun `a damaged queue keeps the items before the break, counts what it lost, and is written back without it`() {
        val store = MemoryStore()
        store.put(StoredQueue.EVENTS, """[{"event_id":"e1"},"an event",{"event_id":"e2"},{"event_id":"e3","ev""")
        val queue = StoredQueue(store, max = 10)
        assertEquals(listOf("e1", "e2"), queue.peek(10).map { it["event_id"] })
        val loss = queue.lostOnLoad!!
        assertEquals(2, loss.count)
        assertTrue(loss.atLeast)
        assertEquals(listOf("e1", "e2"), StoredQueue(store, 10).peek(10).map { it["event_id"] })
        assertNull("reported once", StoredQueue(store, 10).lostOnLoad)
        // Not JSON at all: one lost at least, the queue empty.
        store.put(StoredQueue.EVENTS, "not json")
        assertEquals(1, StoredQueue(store, 10).lostOnLoad!!.count)
        assertNull(store.get(StoredQueue.EVENTS))
        assertNull(StoredQueue(store, 10).lostOnLoad)
    }
}
