package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * How sessions are delivered (sdk/conformance/sessions.json): after the install, as events are
 * (retries, a 202's verdicts, a batch refused whole split), in a bounded queue of their own on
 * the device, their drops logged and counted but never told to the app.
 */
class SessionsTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    /** Remote configuration with a session interval of [seconds]. */
    private fun interval(seconds: Int) {
        device.backend.config = { HttpResponse(200, """{"enabled":true,"refresh_interval_seconds":3600,"session_interval_seconds":$seconds,"encryption":{"enabled":false}}""") }
    }

    /** A launch, configured, with its cold-start session. */
    private fun configured(settings: SdkSettings = SdkSettings(baseUrl = "https://backend.test", jitter = { it })): SdkCore =
        device.configure(device.launch(), settings = settings)

    /** [count] more sessions: each a return after 2 seconds away (with an interval of 1 second). */
    private fun SdkCore.returns(count: Int) =
        repeat(count) {
            onBackground()
            device.scheduler.advance(2_000)
            onForeground()
            device.scheduler.runDue()
        }

    private fun sessionLogs() = device.logged(LogLevel.WARN).filter { "session" in it }

    @Suppress("UNCHECKED_CAST")
    private fun sessionsOf(request: Map<String, Any?>) = request["sessions"] as List<Map<String, Any?>>

    @Test
    fun `a session goes out only once the install is recorded`() {
        device.backend.installs = { null }
        val core = configured()
        device.scheduler.advance(60_000)
        assertEquals(0, device.backend.sessionRequests().size)
        assertEquals(1, core.queuedSessionCount())
        device.backend.installs = { HttpResponse(202, """{"service_id":"x"}""") }
        device.scheduler.advance(60_000)
        val paths = device.backend.transport.requests.map { it.method + " " + it.url.substringAfter("backend.test") }.filter { "/attribution" !in it }
        assertEquals("POST /v1/sessions", paths.last())
        assertTrue(paths.indexOf("POST /v1/installs") < paths.indexOf("POST /v1/sessions"))
        assertEquals(1, device.backend.deliveredSessions.size)
        assertEquals(0, core.queuedSessionCount())
        device.assertNoFailures()
    }

    @Test
    fun `a retryable Conflict keeps the session, reports the install again, then sends it with the same id`() {
        var answers = 0
        device.backend.sessions = { batch ->
            if (answers++ == 0) {
                HttpResponse(202, """{"accepted":0,"ignored":[],"rejected":[{"index":0,"session_id":"${batch[0]["session_id"]}","error":"Conflict","detail":"the install is not recorded yet","retryable":true}]}""")
            } else {
                ScriptedBackend.accepted(batch.size)
            }
        }
        val core = configured()
        device.scheduler.advance(2_000)
        val requests = device.backend.sessionRequests()
        assertEquals(2, requests.size)
        assertEquals(2, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(sessionsOf(requests[0]), sessionsOf(requests[1]))
        assertEquals(1, device.backend.deliveredSessions.size)
        assertEquals(0, core.queuedSessionCount())
        assertEquals(0L, core.droppedSessionCount())
        device.assertNoFailures()
    }

    @Test
    fun `sent_at is the device clock of each attempt, and started_at and session_id stay`() {
        device.backend.sessions = { null }
        val core = configured()
        val started = device.clock.now
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(2_000)
        val requests = device.backend.sessionRequests()
        assertEquals(2, requests.size)
        assertEquals(listOf(Requests.iso(started), Requests.iso(started + 2_000)), requests.map { it["sent_at"] })
        assertEquals(sessionsOf(requests[0]), sessionsOf(requests[1]))
        assertEquals(Requests.iso(started), sessionsOf(requests[1]).single()["started_at"])
        assertEquals(0, core.queuedSessionCount())
    }

    @Test
    fun `sessions survive the process, queued offline and sent at the next launch in the order they started`() {
        device.backend.sessions = { null }
        val first = configured()
        val firstStarted = device.clock.now
        device.scheduler.advance(30_000)
        assertEquals(1, first.queuedSessionCount())
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        val second = configured()
        device.scheduler.runDue()
        assertEquals(listOf(Requests.iso(firstStarted), Requests.iso(device.clock.now)), device.backend.deliveredSessions.map { it["started_at"] })
        assertEquals(listOf(2), device.backend.sessionRequests().takeLast(1).map { sessionsOf(it).size })
        assertEquals(0, second.queuedSessionCount())
    }

    @Test
    fun `a session the queue's file cannot take waits in the journal, queued at the retry or the next launch, and one neither file takes is logged and counted`() {
        interval(1)
        val first = configured()
        assertEquals(1, device.backend.deliveredSessions.size)
        // The disk refuses the queue's file (full) while the service cannot be reached: the
        // return's session waits in the journal, on the device.
        device.store.failingKeys += StoredQueue.SESSIONS
        device.backend.sessions = { null }
        first.returns(1)
        val second = Requests.iso(device.clock.now)
        assertEquals(1, first.queuedSessionCount())
        // The process dies before the disk takes the queue: the next launch sends it, before its own session.
        device.store.failingKeys.clear()
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        device.clock.now += 60_000
        val next = configured()
        assertEquals(listOf(second, Requests.iso(device.clock.now)), startedAt().drop(1))
        assertNull(device.store.get("pending_sessions"))
        assertEquals(0L, next.droppedSessionCount())
        // Within the launch: not sent from memory, but written again at the retry, 2 s later,
        // then queued and sent, once.
        device.store.failingKeys += StoredQueue.SESSIONS
        next.returns(1)
        val fourth = Requests.iso(device.clock.now)
        assertTrue(device.store.get("pending_sessions")!!.contains(fourth))
        assertEquals(3, device.backend.deliveredSessions.size)
        device.store.failingKeys.clear()
        device.scheduler.advance(2_000)
        assertEquals(listOf(fourth), startedAt().drop(3))
        assertNull(device.store.get("pending_sessions"))
        assertEquals(0, next.queuedSessionCount())
        // Neither file takes the next one: not sent from memory, but lost at once, logged at error
        // level and counted; the app is told nothing, as for any session.
        device.store.failingKeys += listOf(StoredQueue.SESSIONS, "pending_sessions")
        next.returns(1)
        device.store.failingKeys.clear()
        device.scheduler.advance(60_000)
        assertEquals(4, device.backend.deliveredSessions.size)
        assertEquals(0, next.queuedSessionCount())
        assertEquals(1L, next.droppedSessionCount())
        assertEquals(1, device.logged(LogLevel.ERROR).count { "session lost" in it })
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
        device.assertNoFailures()
    }

    /**
     * A return's session [first] cannot queue (the queue's file refused), kept in the journal;
     * then, at the retry, the queue takes it while the journal's write that lets it go fails
     * ([alsoFailing] too): the journal's file still holds it, as the queue does. Its id.
     */
    private fun SdkCore.movedWhileTheJournalKeepsIt(vararg alsoFailing: String): String {
        device.store.failingKeys += StoredQueue.SESSIONS
        returns(1)
        val id = (Json.parseObject(device.store.get("pending_sessions")!!.trim())["session_id"] as String)
        device.store.failingKeys.clear()
        device.store.failingKeys += listOf("pending_sessions", *alsoFailing)
        device.scheduler.advance(2_000)
        assertTrue("the journal's file still holds the session", device.store.get("pending_sessions")!!.contains(id))
        device.store.failingKeys.clear()
        return id
    }

    @Test
    fun `a session both files hold after a failed write of the journal counts once at the next launch`() {
        interval(1)
        val first = configured()
        device.backend.sessions = { null }
        // The value that notes what left the journal is refused too: the queue alone says it.
        val id = first.movedWhileTheJournalKeepsIt("pending_sessions_gone")
        assertTrue("the queue's file holds it", device.store.get(StoredQueue.SESSIONS)!!.contains(id))
        assertEquals(1, first.queuedSessionCount())
        // The next launch is stopped: what waits is dropped, and each session counted once.
        val next = device.launch()
        next.stop()
        device.configure(next)
        assertEquals(0, next.queuedSessionCount())
        assertEquals(1L, next.droppedSessionCount())
        assertEquals(listOf("1 session dropped: stopped"), sessionLogs().filter { "dropped" in it })
        device.assertNoFailures()
    }

    @Test
    fun `a session sent after a failed write of the journal is not sent again at the next launch`() {
        interval(1)
        val first = configured()
        val id = first.movedWhileTheJournalKeepsIt()
        device.scheduler.advance(60_000)
        assertEquals(1, device.backend.deliveredSessions.count { it["session_id"] == id })
        assertEquals(0, first.queuedSessionCount())
        val next = configured()
        device.scheduler.advance(60_000)
        assertEquals(1, device.backend.deliveredSessions.count { it["session_id"] == id })
        // The two launches' sessions and the return's, each once.
        assertEquals(3, device.backend.deliveredSessions.map { it["session_id"] }.toSet().size)
        assertEquals(3, device.backend.deliveredSessions.size)
        assertNull(device.store.get("pending_sessions"))
        assertEquals(0L, next.droppedSessionCount())
        device.assertNoFailures()
    }

    @Test
    fun `a session dropped while the journal's write fails is counted once, not again at the next launch`() {
        interval(1)
        val first = configured()
        device.backend.sessions = { null }
        // The return's session waits in the journal; the stop drops it as the journal's write fails.
        device.store.failingKeys += StoredQueue.SESSIONS
        first.returns(1)
        device.store.failingKeys += "pending_sessions"
        first.stop()
        device.scheduler.runDue()
        assertEquals(1L, first.droppedSessionCount())
        assertTrue("the journal's file still holds the session", device.store.get("pending_sessions") != null)
        device.store.failingKeys.clear()
        // Still stopped at the next launch, then started: the session dropped is neither counted nor sent again.
        val next = configured()
        assertEquals(1L, next.droppedSessionCount())
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        next.start()
        device.scheduler.advance(60_000)
        assertEquals(1L, next.droppedSessionCount())
        assertEquals(listOf("1 session dropped: stopped"), sessionLogs().filter { "dropped" in it })
        // The first launch's session and the start's.
        assertEquals(2, device.backend.deliveredSessions.size)
        assertNull(device.store.get("pending_sessions"))
        device.assertNoFailures()
    }

    @Test
    fun `the queue keeps the newest sessions, the oldest dropped with a warning and a count, never told to the app`() {
        val max = (Vectors.conformance("sessions.json")["limits"] as Map<*, *>)["maxQueuedSessions"] as Number
        interval(1)
        device.backend.sessions = { null }
        val core = configured()
        core.returns(max.toInt())
        assertEquals(max.toInt(), core.queuedSessionCount())
        assertEquals(1L, core.droppedSessionCount())
        assertEquals(listOf("1 session dropped: queue_full"), sessionLogs())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
        assertEquals(0L, core.getDroppedEventCount())
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals(max.toInt(), device.backend.deliveredSessions.size)
        assertEquals(0, core.queuedSessionCount())
    }

    @Test
    fun `sessions leave maxSessionsPerRequest a request, in order`() {
        val perRequest = ((Vectors.conformance("sessions.json")["limits"] as Map<*, *>)["maxSessionsPerRequest"] as Number).toInt()
        interval(1)
        device.backend.sessions = { null }
        val core = configured(SdkSettings(baseUrl = "https://backend.test", maxQueuedSessions = perRequest + 50, jitter = { it }))
        core.returns(perRequest + 49)
        val offline = device.backend.sessionRequests().size
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals(listOf(perRequest, 50), device.backend.sessionRequests().drop(offline).map { sessionsOf(it).size })
        val started = device.backend.deliveredSessions.map { java.time.Instant.parse(it["started_at"] as String) }
        assertEquals(started.sorted(), started)
    }

    @Test
    fun `a batch refused as a whole is split until the one refused session is known`() {
        interval(1)
        device.backend.sessions = { null }
        val core = configured()
        core.returns(4)
        assertEquals(5, core.queuedSessionCount())
        var refusedId: String? = null
        device.backend.sessions = { batch ->
            if (refusedId == null) refusedId = batch[2]["session_id"] as String
            if (batch.any { it["session_id"] == refusedId }) HttpResponse(413, """{"error":"Payload Too Large","detail":"proxy"}""") else ScriptedBackend.accepted(batch.size)
        }
        device.scheduler.advance(60_000)
        assertEquals(4, device.backend.deliveredSessions.size)
        assertFalse(device.backend.deliveredSessions.any { it["session_id"] == refusedId })
        assertEquals(0, core.queuedSessionCount())
        assertEquals(1L, core.droppedSessionCount())
        assertEquals(listOf("1 session dropped: refused (refused by the backend: HTTP 413: proxy)"), sessionLogs())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
        device.assertNoFailures()
    }

    @Test
    fun `a session the service ignores is dropped by its reason`() {
        device.backend.sessions = { batch ->
            HttpResponse(202, """{"accepted":0,"ignored":[{"index":0,"session_id":"${batch[0]["session_id"]}","reason":"install_deleted","detail":"in words"}],"rejected":[]}""")
        }
        val core = configured()
        assertEquals(0, core.queuedSessionCount())
        assertEquals(1L, core.droppedSessionCount())
        assertEquals(listOf("1 session dropped: deleted"), sessionLogs())
        assertEquals(emptyList<ServiceError>(), device.errors.toList())
    }

    @Test
    fun `stop drops the queued sessions, logged and counted, and the events keep their own count and listener`() {
        device.backend.sessions = { null }
        device.backend.events = { null }
        val core = configured()
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, core.queuedSessionCount())
        core.stop()
        device.scheduler.runDue()
        assertEquals(0, core.queuedSessionCount())
        assertEquals(1L, core.droppedSessionCount())
        assertEquals(listOf("1 session dropped: stopped"), sessionLogs())
        // The one event only, as before sessions.
        assertEquals(1L, core.getDroppedEventCount())
        assertEquals(listOf(1), device.errors.map { it.count })
        // Stopped: no session on a return, however long away.
        core.onBackground()
        device.scheduler.advance(3_600_000)
        core.onForeground()
        device.scheduler.advance(60_000)
        assertEquals(0, core.queuedSessionCount())
        assertEquals(0, device.backend.deliveredSessions.size)
    }

    @Test
    fun `a session older than the service keeps is dropped before it is sent`() {
        device.backend.sessions = { null }
        val core = configured()
        device.scheduler.jump(31L * 24 * 3_600_000)
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(120_000)
        assertEquals(0, device.backend.deliveredSessions.size)
        assertEquals(1L, core.droppedSessionCount())
        assertEquals(listOf("1 session dropped: expired"), sessionLogs())
    }

    @Test
    fun `remote configuration carries the session interval, kept on the device with the rest`() {
        val given = RemoteConfig.parse("""{"enabled":true,"refresh_interval_seconds":3600,"session_interval_seconds":60,"encryption":{"enabled":false}}""")
        assertEquals(60L, given.sessionIntervalSeconds)
        assertEquals(given, RemoteConfig.parse(given.toJson()))
        // Every field kept as it was given, a sealing key and the parameters it keeps clear too.
        val sealing =
            RemoteConfig.parse(
                """{"enabled":true,"refresh_interval_seconds":900,"session_interval_seconds":60,""" +
                    """"encryption":{"enabled":true,"key_id":"k1","public_key":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2sElZWhyuJZQHRJYyuCs5yDDUsQAOyUgS-iMltmJEKLd7j2MkxTcOA52-NAlfjZFixthC7rHwXw_94EtuH0jwg","clear_keys":["email","level"]}}""",
            )
        assertEquals(900L, sealing.refreshIntervalSeconds)
        assertEquals(setOf("email", "level"), (sealing.encryption as Encryption.On).clearKeys)
        assertEquals(sealing, RemoteConfig.parse(sealing.toJson()))
        val none = RemoteConfig.parse("""{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}""")
        assertEquals(1_800L, none.sessionIntervalSeconds)
        assertEquals(1_800L, RemoteConfig.PLACEHOLDER.sessionIntervalSeconds)
    }

    /** A process the system started in the background (a push message, a job): configured with no activity started. */
    private fun configuredInBackground(): SdkCore {
        device.inForeground = false
        return configured().also { device.inForeground = true }
    }

    private fun startedAt() = device.backend.deliveredSessions.map { it["started_at"] }

    @Test
    fun `a process started in the background reports no session, and its install goes out as ever`() {
        val core = configuredInBackground()
        device.scheduler.advance(60_000)
        // The work done, the app never in the foreground.
        core.onBackground()
        device.scheduler.advance(600_000)
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(0, device.backend.sessionRequests().size)
        assertEquals(0, core.queuedSessionCount())
        assertEquals(0L, core.droppedSessionCount())
        device.assertNoFailures()
    }

    @Test
    fun `its first activity start reports the process's session, started then, and a return within the interval continues it`() {
        val core = configuredInBackground()
        device.scheduler.advance(300_000)
        val opened = device.clock.now
        // However soon after the launch: the session was owed to the first foreground.
        core.onForeground()
        device.scheduler.runDue()
        assertEquals(listOf(Requests.iso(opened)), startedAt())
        // A second activity's start while in the foreground, then a short leave: the same session.
        core.onForeground()
        core.onBackground()
        device.scheduler.advance(60_000)
        core.onForeground()
        device.scheduler.advance(60_000)
        assertEquals(listOf(Requests.iso(opened)), startedAt())
        device.assertNoFailures()
    }

    @Test
    fun `a launch in the foreground reports one session at launch, and its first activity start continues it`() {
        val launched = device.clock.now
        val core = configured()
        device.scheduler.advance(200)
        core.onForeground()
        device.scheduler.advance(60_000)
        assertEquals(listOf(Requests.iso(launched)), startedAt())
        device.assertNoFailures()
    }

    @Test
    fun `start after stop in the background makes the session at the next foreground, however soon`() {
        val launched = device.clock.now
        val core = configured()
        core.onBackground()
        device.scheduler.advance(10_000)
        core.stop()
        device.scheduler.advance(10_000)
        core.start()
        device.scheduler.advance(10_000)
        assertEquals(listOf(Requests.iso(launched)), startedAt())
        val back = device.clock.now
        core.onForeground()
        device.scheduler.runDue()
        assertEquals(listOf(Requests.iso(launched), Requests.iso(back)), startedAt())
        device.assertNoFailures()
    }

    @Test
    fun `a stop cancels the session a background launch owed, and a start in the foreground makes one then`() {
        val core = configuredInBackground()
        core.stop()
        device.scheduler.runDue()
        core.onForeground()
        device.scheduler.advance(60_000)
        assertEquals(0, device.backend.sessionRequests().size)
        val started = device.clock.now
        core.start()
        device.scheduler.runDue()
        assertEquals(listOf(Requests.iso(started)), startedAt())
        assertEquals(0L, core.droppedSessionCount())
    }

    @Test
    fun `a switch-off cancels the session a background launch owed, and switching on again makes none`() {
        device.backend.config = { HttpResponse(200, """{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}""") }
        val core = configuredInBackground()
        device.backend.config = { HttpResponse(200, ScriptedBackend.CONFIG_ON) }
        core.refreshConfigAsync()
        device.scheduler.runDue()
        assertTrue(core.isEnabled())
        core.onForeground()
        device.scheduler.advance(60_000)
        assertEquals(0, device.backend.sessionRequests().size)
        assertEquals(0L, core.droppedSessionCount())
    }

    @Test
    fun `the tracker counts only time away, from the first leave reported, and owes a background launch its session`() {
        val tracker = SessionTracker()
        // A return with no leave known (the first activity seen) continues the session.
        assertFalse(tracker.foreground(0, 60))
        tracker.background(1_000)
        tracker.background(30_000)
        assertTrue(tracker.foreground(61_000, 60))
        // A clock set back does not start one.
        tracker.background(100_000)
        assertFalse(tracker.foreground(50_000, 60))
        // Launched in the foreground: a session now, and the first activity's start continues it.
        assertTrue(tracker.launch(200_000, inForeground = true))
        assertFalse(tracker.foreground(200_100, 60))
        // Launched in the background: none now; the first return starts it, however soon.
        assertFalse(tracker.launch(300_000, inForeground = false))
        assertTrue(tracker.foreground(300_001, 60))
        assertFalse(tracker.foreground(300_002, 60))
        // Launched stopped: none now, none owed; start() in the background owes one.
        assertFalse(tracker.launch(400_000, inForeground = false, on = false))
        assertFalse(tracker.foreground(400_001, 60))
        tracker.background(400_002)
        assertFalse(tracker.restart())
        assertTrue(tracker.foreground(400_003, 60))
        // start() in the foreground: a session now.
        assertTrue(tracker.restart())
        // What a background launch owed, cancelled by a stop or a switch-off.
        tracker.launch(500_000, inForeground = false)
        tracker.stop()
        assertFalse(tracker.foreground(500_001, 60))
        tracker.launch(600_000, inForeground = false)
        tracker.disable()
        assertFalse(tracker.foreground(600_001, 60))
    }
}
