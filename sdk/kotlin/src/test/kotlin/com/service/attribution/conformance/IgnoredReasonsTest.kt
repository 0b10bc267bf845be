package com.service.attribution.conformance

import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.Json
import com.service.attribution.core.StoredQueue
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters

/**
 * delivery.json's `ignoredReasons`: an item a 202 lists under `ignored` leaves the queue, as the
 * drop its reason counts as, or as delivered (null), never sent again; a reason the file does
 * not list is a drop `refused`. The queue holds one event twice, as the service answers
 * `duplicate_event` for: the repeat is the item the answer names.
 */
@RunWith(Parameterized::class)
class IgnoredReasonsTest(private val reason: String, private val drop: String?) {
    companion object {
        /** A reason a later service may give, which this SDK cannot know. */
        private const val UNKNOWN = "a_reason_not_known_yet"

        @Suppress("UNCHECKED_CAST")
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases(): List<Array<String?>> {
            val reasons = Vectors.conformance("delivery.json")["ignoredReasons"] as Map<String, String?>
            return reasons.map { (reason, drop) -> arrayOf<String?>(reason, drop) } + listOf(arrayOf<String?>(UNKNOWN, "refused"))
        }
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Suppress("UNCHECKED_CAST")
    @Test
    fun kotlin() {
        // Offline: the event waits in the queue, which then holds it twice.
        device.backend.events = { null }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val queued = device.store.get(StoredQueue.EVENTS)!!.lines().filter { it.isNotEmpty() }
        assertEquals(1, queued.size)
        device.store.put(StoredQueue.EVENTS, (queued + queued).joinToString("") { it + "\n" })
        val offlineAttempts = device.backend.eventRequests().size

        // The service keeps the first of the two and names the second as ignored, for the reason.
        device.backend.events = { batch ->
            HttpResponse(
                202,
                Json.write(
                    mapOf(
                        "accepted" to batch.size - 1,
                        "ignored" to listOf(mapOf("index" to 1, "event_id" to batch[1]["event_id"], "reason" to reason, "detail" to "in words")),
                        "rejected" to emptyList<Any>(),
                        "warnings" to emptyList<Any>(),
                    ),
                ),
            )
        }
        val core = device.configure(device.launch())
        device.scheduler.advance(60_000)

        assertEquals(0, core.queuedCount())
        // Taken off the queue by the answer: not sent again.
        assertEquals(offlineAttempts + 1, device.backend.eventRequests().size)
        val expected =
            drop?.let { wire ->
                listOf(ServiceError(ServiceErrorKind.EVENTS_DROPPED, DropReason.values().single { it.wire == wire }, null, 1, ""))
            }.orEmpty()
        assertEquals(expected, device.errors.map { it.copy(message = "") })
        assertEquals(expected.size.toLong(), core.getDroppedEventCount())
        // Every event the answer took off the queue is accounted for, the repeat included.
        assertEquals(emptyList<String>(), device.logged(LogLevel.WARN).filter { "does not add up" in it })
        if (drop == null) assertEquals(emptyList<String>(), device.logged(LogLevel.ERROR))
        device.assertNoFailures()
    }
}
