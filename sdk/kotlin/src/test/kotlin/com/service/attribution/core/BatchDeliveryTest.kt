package com.service.attribution.core

import com.service.attribution.DropReason
import com.service.attribution.LogLevel
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.RecordingLog
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** One queue's delivery on its own: a scripted backend, the device clock set by hand. */
class BatchDeliveryTest {
    private val queue = StoredQueue(LineLog.inStore(MemoryStore(), StoredQueue.EVENTS), 1000)
    private var now = 1_790_000_000_000L
    private val drops = ArrayList<Pair<DropReason, Int>>()
    private val posted = ArrayList<List<String?>>()
    private var answer: (List<Map<String, Any?>>) -> BatchVerdict = { BatchVerdict(retry = emptySet(), refused = emptyList(), accepted = it.size) }
    private val delivery =
        BatchDelivery(
            queue,
            "event",
            { batch, _ -> posted += batch.map { it["event_id"] as String? }; answer(batch) },
            { now },
            MAX_AGE_MS,
            Logger(RecordingLog(), LogLevel.DEBUG),
            { reason, count, _ -> if (count > 0) drops += reason to count },
        )

    private fun queued(id: String, ageMs: Long) = queue.addAll(listOf(mapOf("event_id" to id, "event_time" to Requests.iso(now - ageMs))))

    @Test
    fun `an item is sent to the last millisecond of the age the backend keeps, and dropped as expired one past it`() {
        queued("old", MAX_AGE_MS + 1)
        queued("oldest-kept", MAX_AGE_MS)
        queued("new", 0)
        assertEquals(BatchDelivery.Result.Sent, delivery.sendNext())
        assertEquals(listOf(listOf("oldest-kept", "new")), posted)
        assertEquals(listOf(DropReason.EXPIRED to 1), drops)
    }

    @Test
    fun `a batch sent in halves after a retryable refusal of its items is sent whole again`() {
        repeat(4) { queued("e$it", 0) }
        // Refused as a whole (a 413 naming no item): halves of 2, then of 1, until the one is known.
        var wholeRefusals = 1
        answer = { batch ->
            if (batch.size > 2 && wholeRefusals-- > 0) throw com.service.attribution.HttpException(413, "too large")
            // The first half's items answered retryable: sent again later, the halving over.
            if (batch.size == 2 && batch[0]["event_id"] == "e0") BatchVerdict(retry = setOf(0, 1), refused = emptyList(), accepted = 0)
            else BatchVerdict(retry = emptySet(), refused = emptyList(), accepted = batch.size)
        }
        assertEquals(BatchDelivery.Result.Sent, delivery.sendNext())
        assertTrue(delivery.sendNext() is BatchDelivery.Result.Retry)
        // Sent again whole, not still in halves.
        assertEquals(BatchDelivery.Result.Sent, delivery.sendNext())
        assertEquals(listOf(listOf("e0", "e1", "e2", "e3"), listOf("e0", "e1"), listOf("e0", "e1", "e2", "e3")), posted)
        assertEquals(emptyList<Pair<DropReason, Int>>(), drops)
    }

    private companion object {
        const val MAX_AGE_MS = 30L * 24 * 3600 * 1000
    }
}
