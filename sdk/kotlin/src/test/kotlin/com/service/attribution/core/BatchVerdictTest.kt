package com.service.attribution.core

import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceErrorKind
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * A 202's verdicts the SDK cannot place: every item the answer takes off the queue is either
 * accepted or a drop that is counted and told, in the backend's words; never removed unsaid.
 */
class BatchVerdictTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private fun SdkCore.send(count: Int) = repeat(count) { sendEvent(EventType.LEVEL_START, null, mapOf("n" to it)) }

    /** A configured launch that sent [count] events, and the worker's run after them. */
    private fun launchSending(count: Int): SdkCore =
        device.configure(device.launch()).also {
            it.send(count)
            device.scheduler.runDue()
        }

    /** A batch of [size] events is answered 202 with [body]; any other is accepted whole. */
    private fun answerBatchOf(size: Int, body: (List<Map<String, Any?>>) -> String) {
        device.backend.events = { batch -> if (batch.size != size) ScriptedBackend.accepted(batch.size) else HttpResponse(202, body(batch)) }
    }

    @Test
    fun `refusals naming no item, an item named twice, an unknown ignored reason and unaccepted items are all reported`() {
        answerBatchOf(4) { batch ->
            """{"accepted":0,
               "ignored":[{"index":1,"event_id":"${batch[1]["event_id"]}","reason":"app_paused","detail":"paused by its owner"}],
               "rejected":[{"index":9,"event_id":null,"error":"Unprocessable","detail":"no such event","retryable":false},
                           {"index":0,"event_id":"${batch[0]["event_id"]}","error":"Unprocessable","detail":"bad level","retryable":false},
                           {"index":0,"event_id":"${batch[0]["event_id"]}","error":"Unprocessable","detail":"bad level","retryable":false}],
               "warnings":[]}"""
        }
        val core = launchSending(4)
        assertEquals(0, core.queuedCount())
        // #0 refused by name, counted once; then what the SDK cannot place: the refusal of #9, the
        // unknown reason, and one more event neither accepted nor named (4 taken off, 0 accepted).
        assertEquals(listOf(DropReason.REFUSED to 1, DropReason.REFUSED to 3), device.errors.map { it.reason to it.count })
        assertTrue(device.errors.all { it.kind == ServiceErrorKind.EVENTS_DROPPED })
        val words = device.errors.last().message
        assertTrue(words, "index 9" in words && "no such event" in words)
        assertTrue(words, "app_paused" in words && "paused by its owner" in words)
        assertTrue(words, "neither accepted nor named" in words)
        assertEquals(4L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `events refused by name are one drop of as many, in the backend's words`() {
        answerBatchOf(3) { batch ->
            """{"accepted":1,"ignored":[],
               "rejected":[{"index":0,"event_id":"${batch[0]["event_id"]}","error":"Unprocessable","detail":"bad level","retryable":false},
                           {"index":2,"event_id":"${batch[2]["event_id"]}","error":"Unprocessable","detail":"bad name","retryable":false}],
               "warnings":[]}"""
        }
        val core = launchSending(3)
        assertEquals(0, core.queuedCount())
        assertEquals(listOf(DropReason.REFUSED to 2), device.errors.map { it.reason to it.count })
        val words = device.errors.single().message
        assertTrue(words, "bad level" in words && "bad name" in words)
        assertEquals(2L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `an answer that accepts fewer than it takes off the queue, naming none, is warned of as not adding up`() {
        answerBatchOf(3) { """{"accepted":1,"ignored":[],"rejected":[],"warnings":[]}""" }
        launchSending(3)
        assertEquals(listOf(DropReason.REFUSED to 2), device.errors.map { it.reason to it.count })
        assertTrue(device.logged(LogLevel.WARN).toString(), device.logged(LogLevel.WARN).any { "does not add up" in it })
        device.assertNoFailures()
    }

    @Test
    fun `a refusal naming no item of an answer that accepts every item is no drop, and a count below 0 accepts none`() {
        answerBatchOf(2) {
            """{"accepted":2,"ignored":[],
               "rejected":[{"index":5,"event_id":null,"error":"Unprocessable","detail":"no such event","retryable":false}],
               "warnings":[]}"""
        }
        val core = launchSending(2)
        // Both accepted: the refusal of #5 can speak of neither, so nothing is dropped twice over.
        assertEquals(0, core.queuedCount())
        assertEquals(emptyList<Any>(), device.errors.map { it.reason to it.count })
        assertEquals(0L, core.getDroppedEventCount())
        assertTrue(device.logged(LogLevel.WARN).toString(), device.logged(LogLevel.WARN).any { "does not add up" in it })

        answerBatchOf(1) { """{"accepted":-1,"ignored":[],"rejected":[],"warnings":[]}""" }
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(listOf(DropReason.REFUSED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `a verdict whose index is no whole number of the request, a fraction or below 0, names no item`() {
        answerBatchOf(3) {
            """{"accepted":1,"ignored":[],
               "rejected":[{"index":1.5,"event_id":null,"error":"Unprocessable","detail":"half","retryable":false},
                           {"index":-1,"event_id":null,"error":"Unprocessable","detail":"before","retryable":true}],
               "warnings":[]}"""
        }
        val core = launchSending(3)
        // Three taken off, one accepted: the two refusals naming no item stand for the two others.
        assertEquals(0, core.queuedCount())
        assertEquals(listOf(DropReason.REFUSED to 2), device.errors.map { it.reason to it.count })
        val words = device.errors.single().message
        assertTrue(words, "index 1.5" in words && "index -1" in words)
        device.assertNoFailures()
    }

    @Test
    fun `a 413 from something in the way, whatever its body, splits the batch as the service's does`() {
        device.backend.events = { batch ->
            if (batch.size > 1) HttpResponse(413, "<html><body>Request Entity Too Large</body></html>") else ScriptedBackend.accepted(batch.size)
        }
        val core = launchSending(4)
        assertEquals(4, device.backend.delivered.size)
        assertEquals(0, core.queuedCount())
        assertEquals(emptyList<Any>(), device.errors)
        device.assertNoFailures()
    }

    @Test
    fun `an event stored not quite as sent is delivered, and the backend's warning logged`() {
        device.backend.events = { batch ->
            HttpResponse(
                202,
                """{"accepted":1,"ignored":[],"rejected":[],
                   "warnings":[{"index":0,"event_id":"${batch[0]["event_id"]}","detail":"parameters.currency: XYZ is no currency code; the revenue is not recorded"}]}""",
            )
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.PURCHASE, null, mapOf("revenue" to 9.99, "currency" to "XYZ"))
        device.scheduler.runDue()
        assertEquals(0, core.queuedCount())
        assertEquals(0L, core.getDroppedEventCount())
        assertEquals(emptyList<Any>(), device.errors.toList())
        assertTrue(device.logged(LogLevel.WARN).any { "stored with a change" in it && "XYZ is no currency code" in it })
        device.assertNoFailures()
    }

    @Test
    fun `an item both refused for good and ignored is counted once, as the refusal says`() {
        device.backend.events = { batch ->
            HttpResponse(
                202,
                """{"accepted":0,
                   "ignored":[{"index":0,"event_id":"${batch[0]["event_id"]}","reason":"app_disabled","detail":"switched off"}],
                   "rejected":[{"index":0,"event_id":"${batch[0]["event_id"]}","error":"Unprocessable","detail":"bad level","retryable":false}],
                   "warnings":[]}""",
            )
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(0, core.queuedCount())
        assertEquals(listOf(DropReason.REFUSED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1L, core.getDroppedEventCount())
        // One event, one verdict kept: the answer names it twice, so it does not add up.
        assertEquals(1, device.logged(LogLevel.WARN).count { "does not add up" in it })
        device.assertNoFailures()
    }

    @Test
    fun `an ignored entry naming no item of the request is counted only for an item no entry named`() {
        device.backend.events = { batch ->
            HttpResponse(
                202,
                """{"accepted":0,
                   "ignored":[{"index":7,"event_id":null,"reason":"app_disabled","detail":"switched off"},
                              {"index":0,"event_id":"${batch[0]["event_id"]}","reason":"app_disabled","detail":"switched off"}],
                   "rejected":[],
                   "warnings":[]}""",
            )
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(0, core.queuedCount())
        // #0 is named as ignored; the entry of #7 can speak of no other event: nothing more is dropped.
        assertEquals(emptyList<Any>(), device.errors.filter { it.reason == DropReason.REFUSED })
        assertEquals(1L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `a retryable refusal other than Conflict is sent again later, without reporting the install again`() {
        var answers = 0
        device.backend.events = { batch ->
            if (answers++ == 0) {
                HttpResponse(202, """{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":"${batch[0]["event_id"]}","error":"Service Unavailable","detail":"try later","retryable":true}],"warnings":[]}""")
            } else {
                ScriptedBackend.accepted(batch.size)
            }
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, core.queuedCount())
        device.scheduler.advance(2_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(emptyList<Any>(), device.errors)
        device.assertNoFailures()
    }

    @Test
    fun `a retryable Conflict still reports the install again before its events`() {
        var answers = 0
        device.backend.events = { batch ->
            if (answers++ == 0) {
                HttpResponse(202, """{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":"${batch[0]["event_id"]}","error":"Conflict","detail":"install","retryable":true}],"warnings":[]}""")
            } else {
                ScriptedBackend.accepted(batch.size)
            }
        }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(2_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(2, device.backend.requests("POST", "/v1/installs").size)
        device.assertNoFailures()
    }
}
