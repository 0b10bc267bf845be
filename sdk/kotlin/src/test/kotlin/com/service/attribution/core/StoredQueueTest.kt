package com.service.attribution.core

import com.service.attribution.support.CountingLineLog
import com.service.attribution.support.MemoryStore
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

class StoredQueueTest {
    private fun event(n: Int) = mapOf<String, Any?>("event_id" to "e$n")

    private val store = MemoryStore()

    private fun events(max: Int = 10) = StoredQueue(LineLog.inStore(store, StoredQueue.EVENTS), max)

    private fun sessions() = StoredQueue(LineLog.inStore(store, StoredQueue.SESSIONS), 10, "started_at", "session_id")

    @Test
    fun `keeps events across instances, drops the oldest beyond its bound`() {
        val queue = events(max = 3)
        (1..4).forEach { queue.addAll(listOf(event(it))) }
        assertEquals(listOf("e2", "e3", "e4"), events(max = 3).peek(10).map { it["event_id"] })
    }

    @Test
    fun `kept a JSON object a line, each added once, written whole as items leave and once for every max the bound drops`() {
        val log = CountingLineLog(LineLog.inStore(store, StoredQueue.EVENTS))
        val queue = StoredQueue(log, max = 10)
        queue.addAll(listOf(event(1), event(2)))
        assertEquals("{\"event_id\":\"e1\"}\n{\"event_id\":\"e2\"}\n", store.get(StoredQueue.EVENTS))
        (3..25).forEach { queue.addAll(listOf(event(it))) }
        // Lines for the first 20; the 21st writes the newest 10 whole; 4 more lines.
        assertEquals(1 + 18 + 4, log.appends)
        assertEquals(1, log.wholeWrites)
        assertEquals(14, log.read().size)
        assertEquals((16..25).map { "e$it" }, events().peek(100).map { it["event_id"] })
        assertNull("what the bound dropped was reported as it was dropped", events().lostOnLoad)
        queue.remove(1, keep = emptySet())
        assertEquals(2, log.wholeWrites)
        assertEquals(9, log.read().size)
    }

    @Test
    fun `counts the lines read back, those the bound dropped among them, to know when to write it whole`() {
        store.put(StoredQueue.EVENTS, (1..19).joinToString("") { "{\"event_id\":\"e$it\"}\n" })
        val log = CountingLineLog(LineLog.inStore(store, StoredQueue.EVENTS))
        val queue = StoredQueue(log, max = 10)
        assertEquals(1, queue.addAll(listOf(event(20))))
        assertEquals("nineteen lines and one more: appended", 0, log.wholeWrites)
        assertEquals(1, queue.addAll(listOf(event(21))))
        assertEquals("twenty lines and one more: written whole", 1, log.wholeWrites)
        assertEquals((12..21).map { "e$it" }, log.read().map { Json.parseObject(it)["event_id"] })
    }

    @Test
    fun `emptied, it is empty on the device too`() {
        val queue = events()
        (1..3).forEach { queue.addAll(listOf(event(it))) }
        assertEquals(3, queue.clear())
        assertEquals(emptyList<Any>(), events().peek(10))
    }

    @Test
    fun `removing a batch keeps the events to retry first, in order`() {
        val queue = events()
        (1..5).forEach { queue.addAll(listOf(event(it))) }
        queue.remove(3, keep = setOf(0, 2))
        assertEquals(listOf("e1", "e3", "e4", "e5"), queue.peek(10).map { it["event_id"] })
        assertEquals(listOf("e1", "e3", "e4", "e5"), events().peek(10).map { it["event_id"] })
    }

    @Test
    fun `the sessions' queue is kept apart, expired by started_at`() {
        val events = events()
        val sessions = sessions()
        events.addAll(listOf(event(1)))
        sessions.addAll(listOf(Requests.session("s1", "sid", 1_000)))
        sessions.addAll(listOf(Requests.session("s2", "sid", 5_000)))
        assertEquals(1, sessions.expire(2_000))
        assertEquals(listOf("s2"), sessions().peek(10).map { it["session_id"] })
        assertEquals(listOf("e1"), events().peek(10).map { it["event_id"] })
    }

    @Test
    fun `a damaged line is lost alone, counted, and the queue written back without it`() {
        // No JSON object, an object without its id (which the backend could not tell from its
        // retry), and a line cut short.
        store.put(
            StoredQueue.EVENTS,
            "{\"event_id\":\"e1\"}\n\"an event\"\n{\"event_type\":\"LOGIN\"}\n{\"event_id\":\"e2\"}\n{\"event_id\":\"e3\",\"ev",
        )
        val queue = events()
        assertEquals(listOf("e1", "e2"), queue.peek(10).map { it["event_id"] })
        assertEquals(3, queue.lostOnLoad!!.count)
        assertEquals(listOf("e1", "e2"), events().peek(10).map { it["event_id"] })
        assertNull("reported once", events().lostOnLoad)
        // Nothing readable: the queue empty, and gone from the device.
        store.put(StoredQueue.EVENTS, "not json")
        assertEquals(1, events().lostOnLoad!!.count)
        assertNull(store.get(StoredQueue.EVENTS))
        assertNull(events().lostOnLoad)
    }

    @Test
    fun `a write the device refuses leaves the queue as it was, in memory and on the device`() {
        val queue = events()
        queue.addAll(listOf(event(1)))
        store.failingKeys += StoredQueue.EVENTS
        assertNull(queue.addAll(listOf(event(2))))
        assertEquals(listOf("e1"), queue.peek(10).map { it["event_id"] })
        store.failingKeys.clear()
        assertEquals(0, queue.addAll(listOf(event(3))))
        assertEquals(listOf("e1", "e3"), events().peek(10).map { it["event_id"] })
    }

    @Test
    fun `an append that failed halfway leaves nothing of it on the device`() {
        val inner = LineLog.inStore(store, StoredQueue.EVENTS)
        // The disk filled as the lines went out: the first whole, the second cut short.
        val filling =
            object : LineLog by inner {
                var full = false

                override fun append(lines: List<String>): Boolean {
                    if (!full) return inner.append(lines)
                    inner.append(listOf(lines[0], lines[1].take(5)))
                    return false
                }
            }
        val queue = StoredQueue(filling, max = 10)
        queue.addAll(listOf(event(1)))
        filling.full = true
        assertNull(queue.addAll(listOf(event(2), event(3))))
        val next = events()
        assertEquals(listOf("e1"), next.peek(10).map { it["event_id"] })
        assertNull("nothing lost: the failed items were never the queue's", next.lostOnLoad)
    }

    @Test
    fun `expires what was made before the cutoff, not what was made at it, nor an item of no readable time`() {
        val sessions = sessions()
        sessions.addAll(listOf(Requests.session("s1", "sid", 1_000), Requests.session("s2", "sid", 2_000)))
        sessions.addAll(listOf(mapOf("session_id" to "s3", "started_at" to "yesterday")))
        assertEquals(1, sessions.expire(2_000))
        assertEquals(listOf("s2", "s3"), sessions().peek(10).map { it["session_id"] })
    }

    @Test
    fun `a queue with a handoff loads neither what it let go while its write failed nor what the other queue took`() {
        val moved = HashSet<Any?>()
        fun journal() = StoredQueue(LineLog.inStore(store, "journal"), 10, handoff = Handoff(store, "journal_gone") { moved })
        val first = journal()
        first.addAll((1..3).map(::event))
        // The other queue took e1 and the journal's write that let it go failed; so does the one
        // that lets e2 go now.
        moved += "e1"
        store.failingKeys += "journal"
        assertEquals(1, first.removeIds(setOf("e2")))
        assertEquals(3, LineLog.inStore(store, "journal").read().size)
        assertEquals("e2", store.get("journal_gone"))
        store.failingKeys.clear()
        assertEquals(listOf("e3"), journal().peek(10).map { it["event_id"] })
        // Written back whole without them at that load: the note is forgotten, and e1 stays out
        // once the other queue let it go.
        assertNull(store.get("journal_gone"))
        moved.clear()
        assertEquals(listOf("e3"), journal().peek(10).map { it["event_id"] })
    }
}
