package com.service.attribution.conformance

import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.Json
import com.service.attribution.core.Requests
import com.service.attribution.core.SdkCore
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters

/**
 * delivery.json: every scenario, run against the core with a scripted backend, a clock and
 * executors moved by hand (no sleeps). Each scenario's numbers (how many queued, which event
 * the backend refuses, its status, the clock's offset) come from the file; a scenario this
 * class has no run for fails.
 */
@RunWith(Parameterized::class)
class DeliveryScenariosTest(private val name: String, private val scenario: Map<String, Any?>) {
    companion object {
        val file = Vectors.conformance("delivery.json")

        @Suppress("UNCHECKED_CAST")
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = (file["scenarios"] as List<Map<String, Any?>>).map { arrayOf(it["name"] as String, it) }

        const val DAY_MS = 24L * 3600 * 1000
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Suppress("UNCHECKED_CAST")
    private fun Map<String, Any?>.map(key: String) = this[key] as Map<String, Any?>? ?: emptyMap()

    private fun Map<String, Any?>.int(key: String) = (this[key] as Number?)?.toInt()

    private val given get() = scenario.map("given")
    private val backendScript get() = scenario.map("backend")
    private val expect get() = scenario.map("expect")

    /** The expected errors of a list form: (kind, reason, code, count). */
    @Suppress("UNCHECKED_CAST")
    private fun expectedErrors(): List<ServiceError> =
        (expect["errors"] as List<Map<String, Any?>>).map {
            ServiceError(
                ServiceErrorKind.values().single { k -> k.wire == it["kind"] },
                (it["reason"] as String?)?.let { r -> DropReason.values().single { d -> d.wire == r } },
                it.int("code"),
                it.int("count")!!,
                "",
            )
        }

    private fun assertErrors(expected: List<ServiceError>) =
        assertEquals(expected, device.errors.map { it.copy(message = "") })

    /** A configured launch with the install recorded (unless [installRecorded] is false in the scenario). */
    private fun configured(): SdkCore = device.configure(device.launch())

    /** Sends [count] events, each with its index as parameter `i`. */
    private fun SdkCore.send(count: Int, from: Int = 0) {
        for (i in from until from + count) sendEvent(EventType.LEVEL_START, null, mapOf("i" to i))
    }

    private fun index(event: Map<String, Any?>) = ((event["parameters"] as Map<*, *>)["i"] as Number).toInt()

    private fun deliveredIndexes() = device.backend.delivered.map(::index)

    @Test
    fun kotlin() {
        when (name) {
            "a batch refused as a whole with 413 is split until the one event refused alone is known" -> splitOnWholeRefusal()
            "a 4xx naming no event (400, 422) splits the batch as a 413 does" -> splitOnWholeRefusal()
            "an event rejected by name in a 202 is dropped alone; one rejected as retryable is kept" -> rejectedByName()
            "events the service ignores are reported by the reason it gives" -> ignoredByReason()
            "a full queue drops its oldest event, with a warning and a count" -> fullQueue()
            "an event older than the backend keeps is dropped before it is sent" -> expired()
            "a 2xx whose body is not the contract's is retried like a 5xx" -> unexpectedAnswer()
            "a 4xx whose body is not the service's is retried like a 5xx, never a refusal" -> unexpectedAnswer()
            "every events request carries sent_at, the device clock when it left" -> sentAt()
            "an install refused with 404 is a configuration error, not a stall" -> installRefused()
            "an install refused with 401 or 403 keeps its events queued" -> installRefused()
            "an install refused with another 4xx is sent bare once, then reported" -> installRefusedBare()
            "stopped means no request at all, and it survives a restart" -> stoppedSurvivesRestart()
            "stopping drops what was queued, with the reason stopped" -> stoppingDrops()
            "events sent before configure are delivered once it runs" -> beforeConfigure()
            else -> throw AssertionError("no Kotlin run for the delivery scenario \"$name\"")
        }
        device.assertNoFailures()
    }

    @Suppress("UNCHECKED_CAST")
    private fun splitOnWholeRefusal() {
        val events = backendScript.map("events")
        val status = events.int("status")!!
        val refused = (events["whenRequestHolds"] as List<Number>).map { it.toInt() }.toSet()
        val queued = given.int("queued")!!
        device.backend.events = { batch ->
            if (batch.any { index(it) in refused }) HttpResponse(status, """{"error":"refused","detail":"as a whole"}""") else ScriptedBackend.accepted(batch.size)
        }
        val core = configured()
        core.send(queued)
        device.scheduler.runDue()
        // Every event but the refused one, in order, each accepted once.
        assertEquals((0 until queued).filter { it !in refused }, deliveredIndexes())
        assertEquals(0, core.queuedCount())
        // The refused one was sent alone before it was dropped.
        for (i in refused) {
            assertTrue("#$i sent alone", device.backend.eventRequests().any { r -> (r["events"] as List<*>).map { index(it as Map<String, Any?>) } == listOf(i) })
        }
        // Halving, not one at a time: far fewer requests than events.
        assertTrue("${device.backend.eventRequests().size} requests", device.backend.eventRequests().size <= 20)
        val requests = device.backend.eventRequests().map { r -> (r["events"] as List<*>).map { index(it as Map<String, Any?>) } }
        // Halves: no request but one of a single event holds all that is left of one refused as a
        // whole, as it would be refused again.
        var left = emptySet<Int>()
        for (numbers in requests) {
            assertFalse("#${numbers.first()} to #${numbers.last()} sent again whole", numbers.size > 1 && left.isNotEmpty() && numbers.containsAll(left))
            left = if (numbers.any { it in refused }) numbers.toSet() else left - numbers.toSet()
        }
        // Found alone, the refused one ends the search: the next request is whole again.
        val next = requests[requests.indexOf(refused.toList()) + 1]
        val after = (expect["requestAfterTheDrop"] as List<Number>).map { it.toInt() }
        assertEquals(after, listOf(next.first(), next.last()))
        assertEquals(after[1] - after[0] + 1, next.size)
        assertErrors(expectedErrors())
        // The app is told why, in the backend's words.
        assertTrue(device.errors.all { "as a whole" in it.message })
        assertEquals(refused.size.toLong(), core.getDroppedEventCount())
        assertTrue(device.logged(LogLevel.WARN).any { "refused" in it })
    }

    @Suppress("UNCHECKED_CAST")
    private fun ignoredByReason() {
        val reasons = (backendScript.map("events")["ignored"] as List<Map<String, Any?>>).associate { (it["index"] as Number).toInt() to it["reason"] }
        device.backend.events = { batch ->
            val named = batch.withIndex().filter { index(it.value) in reasons }
            val ignored = named.map { mapOf("index" to it.index, "event_id" to it.value["event_id"], "reason" to reasons[index(it.value)], "detail" to "in words") }
            HttpResponse(202, Json.write(mapOf("accepted" to batch.size - named.size, "ignored" to ignored, "rejected" to emptyList<Any>())))
        }
        val core = configured()
        core.send(given.int("queued")!!)
        device.scheduler.runDue()
        assertEquals(expect.int("queued"), core.queuedCount())
        assertErrors(expectedErrors())
        assertEquals(reasons.size.toLong(), core.getDroppedEventCount())
    }

    @Suppress("UNCHECKED_CAST")
    private fun rejectedByName() {
        val rejected = backendScript.map("events")["rejected"] as List<Map<String, Any?>>
        val queued = given.int("queued")!!
        var first = true
        device.backend.events = { batch ->
            val answer =
                if (first) {
                    val named = rejected.filter { first || it["once"] != true }
                    Json.write(
                        mapOf(
                            "accepted" to batch.size - named.size,
                            "ignored" to emptyList<Any>(),
                            "rejected" to named.map { mapOf("index" to it["index"], "event_id" to batch[(it["index"] as Number).toInt()]["event_id"], "error" to "x", "detail" to "by name", "retryable" to it["retryable"]) },
                            "warnings" to emptyList<Any>(),
                        ),
                    )
                } else {
                    Json.write(mapOf("accepted" to batch.size, "ignored" to emptyList<Any>(), "rejected" to emptyList<Any>(), "warnings" to emptyList<Any>()))
                }
            first = false
            HttpResponse(202, answer)
        }
        val core = configured()
        core.send(queued)
        device.scheduler.runDue()
        val refused = rejected.filter { it["retryable"] == false }.map { (it["index"] as Number).toInt() }
        val retryable = rejected.filter { it["retryable"] == true }.map { (it["index"] as Number).toInt() }
        // At once: all but those named.
        assertEquals((0 until queued).filter { it !in refused && it !in retryable }, deliveredIndexes())
        // A later attempt, after the retry delay: the retryable one.
        device.scheduler.advance(2_000)
        assertEquals((0 until queued).filter { it !in refused }, deliveredIndexes())
        assertEquals(0, core.queuedCount())
        assertErrors(expectedErrors())
    }

    private fun fullQueue() {
        val queued = given.int("queued")!!
        device.backend.events = { null } // offline
        val core = configured()
        core.send(queued)
        device.scheduler.runDue()
        assertEquals(queued, core.queuedCount())
        core.send(5, from = queued)
        device.scheduler.runDue()
        assertEquals(expect.int("queued"), core.queuedCount())
        assertEquals(expect.int("droppedEventCount")!!.toLong(), core.getDroppedEventCount())
        assertTrue(device.errors.all { it.kind == ServiceErrorKind.EVENTS_DROPPED && it.reason == DropReason.QUEUE_FULL })
        assertEquals(5, device.errors.sumOf { it.count })
        assertTrue(device.logged(LogLevel.WARN).any { "queue_full" in it })
        // Back online, the oldest five are the ones missing.
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals((5 until queued + 5).toList(), deliveredIndexes())
        // The count is kept on the device, for the next launch.
        val next = device.configure(device.launch())
        assertEquals(5L, next.getDroppedEventCount())
    }

    private fun expired() {
        val ageDays = given.int("firstEventAgeDays")!!
        device.backend.events = { null } // the device is offline while the first event ages
        val core = configured()
        core.send(1)
        device.scheduler.runDue()
        device.clock.now += ageDays * DAY_MS
        core.send(1, from = 1)
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals(listOf(1), deliveredIndexes())
        assertErrors(expectedErrors())
        assertTrue(device.logged(LogLevel.WARN).any { "expired" in it })
    }

    private fun unexpectedAnswer() {
        val events = backendScript.map("events")
        var bad = events.int("times")!!
        device.backend.events = { batch ->
            if (bad-- > 0) HttpResponse(events.int("status")!!, events["body"] as String) else ScriptedBackend.accepted(batch.size)
        }
        val core = configured()
        core.send(given.int("queued")!!)
        device.scheduler.runDue()
        assertEquals(emptyList<Int>(), deliveredIndexes())
        assertEquals(1, device.backend.eventRequests().size)
        assertTrue(device.logged(LogLevel.WARN).toString(), device.logged(LogLevel.WARN).any { "not of the contract" in it && "<html>" in it })
        // Not before the first retry delay (2 s), then both on the second attempt.
        device.scheduler.advance(1_999)
        assertEquals(1, device.backend.eventRequests().size)
        device.scheduler.advance(1)
        assertEquals(2, device.backend.eventRequests().size)
        assertEquals(listOf(0, 1), deliveredIndexes())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
        assertEquals(0L, core.getDroppedEventCount())
    }

    private fun sentAt() {
        device.clock.now = System.currentTimeMillis() + given.int("clockAheadHours")!! * 3600_000L
        device.backend.events = { null }
        val core = configured()
        core.send(given.int("queued")!!)
        device.scheduler.runDue()
        val firstAttempt = device.clock.now
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(2_000)
        val requests = device.backend.eventRequests()
        assertEquals(2, requests.size)
        // Set again on each attempt: the device clock when each request left.
        assertEquals(Requests.iso(firstAttempt), requests[0]["sent_at"])
        assertEquals(Requests.iso(firstAttempt + 2_000), requests[1]["sent_at"])
        assertEquals(listOf(0), deliveredIndexes())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
    }

    private fun installRefused() {
        val status = backendScript.map("install").int("status")!!
        val queued = given.int("queued")!!
        device.backend.installs = { HttpResponse(status, """{"error":"refused","detail":"install"}""") }
        val core = device.launch()
        core.send(queued)
        device.configure(core)
        device.scheduler.advance(10 * 60_000)
        assertErrors(expectedErrors())
        assertEquals(1, device.logged(LogLevel.ERROR).size)
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(0, device.backend.eventRequests().size)
        assertEquals(expect.int("queued"), core.queuedCount())
        // Kept, not dropped.
        assertEquals(0L, core.getDroppedEventCount())
        device.backend.installs = { HttpResponse(202, "{}") }
        if (status == 404) {
            // The next start.
            device.configure(device.launch())
        } else {
            // refreshConfig, in the same process.
            val refreshed = core.refreshConfigAsync()
            device.scheduler.runDue()
            refreshed.get()
        }
        device.scheduler.runDue()
        assertEquals(2, device.backend.requests("POST", "/v1/installs").size)
        assertEquals((0 until queued).toList(), deliveredIndexes())
    }

    @Suppress("UNCHECKED_CAST")
    private fun installRefusedBare() {
        val status = backendScript.map("install").int("status")!!
        device.backend.installs = { HttpResponse(status, """{"error":"refused","detail":"install"}""") }
        val core = device.launch()
        core.send(given.int("queued")!!)
        device.configure(core)
        device.scheduler.advance(10 * 60_000)
        val bodies = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }
        assertEquals(2, bodies.size)
        assertTrue(bodies[0].containsKey("os_version") && bodies[0].containsKey("maid"))
        assertEquals(setOf("service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at"), bodies[1].keys)
        assertErrors(expectedErrors())
        assertEquals(expect.int("queued"), core.queuedCount())
    }

    private fun stoppedSurvivesRestart() {
        // A fresh install: stop before the first configure, as a consent flow may.
        val first = device.launch()
        first.stop()
        device.configure(first)
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.advance(10 * 60_000)
        val next = device.launch()
        device.configure(next)
        next.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(10 * 60_000)
        assertEquals("no request at all", emptyList<String>(), device.backend.transport.requests.map { it.url })
        assertEquals(expect.int("queued"), next.queuedCount())
        assertEquals(expect["isStopped"], next.isStopped())
        // start(): the install that was never sent, then what is sent from now on.
        next.start()
        device.scheduler.runDue()
        next.send(1)
        device.scheduler.runDue()
        assertFalse(next.isStopped())
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(listOf(0), deliveredIndexes())
        // Stopping again once the install is recorded: nothing more leaves the device.
        next.stop()
        val before = device.backend.transport.requests.size
        next.send(1, from = 1)
        device.scheduler.advance(2 * 3_600_000)
        assertEquals(before, device.backend.transport.requests.size)
        // Stopped and started at once, and an event sent before the worker ran the stop: the
        // stop drops what was there before it, never what follows the start.
        next.stop()
        next.start()
        next.send(1, from = 2)
        device.scheduler.runDue()
        assertEquals(listOf(0, 2), deliveredIndexes())
    }

    private fun stoppingDrops() {
        val queued = given.int("queued")!!
        device.backend.events = { null }
        val core = configured()
        core.send(queued)
        device.scheduler.runDue()
        assertEquals(queued, core.queuedCount())
        core.stop()
        device.scheduler.runDue()
        assertEquals(expect.int("queued"), core.queuedCount())
        assertErrors(expectedErrors())
        assertEquals(queued.toLong(), core.getDroppedEventCount())
        assertTrue(device.logged(LogLevel.WARN).any { "stopped" in it })
    }

    private fun beforeConfigure() {
        val core = device.launch()
        core.send(3)
        assertEquals(0, device.backend.transport.requests.size)
        device.configure(core)
        assertEquals(listOf(0, 1, 2), deliveredIndexes())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
    }
}
