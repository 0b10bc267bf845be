package com.service.attribution.core

import com.service.attribution.Consent
import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceErrorKind
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean

/** Consent, anonymous mode and the on-disk queue, with a clock and executors moved by hand. */
class ConsentAndQueueTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    /** The longest TC string the backend takes (spec/openapi.json, `tcf_string`). */
    private val MAX_TCF = 4_096

    private fun consentBodies(): List<Map<String, Any?>> =
        device.backend.requests("POST", "/v1/installs/").filter { it.url.endsWith("/consent") }.map { Json.parseObject(it.body!!) }

    /**
     * Starts [core]'s configure on a thread of its own and returns once configure is held by
     * hand at its first read of `service_id`: it has its platform and has read the kept customer
     * user id, and has not read the journal yet. Returns the thread and the latch whose countDown
     * lets configure go on.
     */
    private fun configureHeld(core: SdkCore): Pair<Thread, CountDownLatch> {
        val inConfigure = CountDownLatch(1)
        val goOn = CountDownLatch(1)
        val held = AtomicBoolean()
        val configuring =
            Thread {
                core.configure(device.platform, SdkSettings(baseUrl = "https://backend.test"), "sdk_key", com.service.attribution.LogLevel.DEBUG, null, null)
            }
        device.store.beforeGet = { key ->
            if (key == "service_id" && Thread.currentThread() === configuring && held.compareAndSet(false, true)) {
                inConfigure.countDown()
                goOn.await(60, TimeUnit.SECONDS)
            }
        }
        configuring.start()
        assertTrue(inConfigure.await(60, TimeUnit.SECONDS))
        return configuring to goOn
    }

    @Test
    fun `a TCF string changed since it was last sent is sent at the next start, with sent_at`() {
        device.tcf = TcfValues("CQ-first", 1)
        device.configure(device.launch())
        val install = Json.parseObject(device.backend.requests("POST", "/v1/installs").single().body!!)
        assertEquals(mapOf("gdpr_applies" to true, "ad_user_data" to null, "ad_personalization" to null, "tcf_string" to "CQ-first"), install["consent"])
        assertEquals(emptyList<Any>(), consentBodies())
        // The same values at the next start: nothing to send.
        device.configure(device.launch())
        assertEquals(emptyList<Any>(), consentBodies())
        // The consent platform stored a new string.
        device.tcf = TcfValues("CQ-second", 1)
        device.configure(device.launch())
        val update = consentBodies().single()
        assertEquals(Requests.iso(device.clock.now), update["sent_at"])
        assertEquals("CQ-second", (update["consent"] as Map<*, *>)["tcf_string"])
        device.assertNoFailures()
    }

    @Test
    fun `a stop while the install is on its way sends no consent update after it`() {
        device.tcf = TcfValues("CQ-first", 1)
        val core = device.launch()
        val accept = device.backend.installs
        device.backend.installs = { request ->
            // The user opts out while the install is sent: the consent platform stores a new
            // string and the app stops the SDK.
            device.tcf = TcfValues("CQ-second", 1)
            core.stop()
            accept(request)
        }
        device.configure(core)
        device.scheduler.advance(60_000)
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        assertEquals(emptyList<Any>(), consentBodies())
        device.assertNoFailures()
    }

    @Test
    fun `a TCF string longer than the backend takes is left out, with a warning, and the install keeps the rest`() {
        device.tcf = TcfValues("C".repeat(MAX_TCF + 1), 1)
        device.configure(device.launch())
        val install = Json.parseObject(device.backend.requests("POST", "/v1/installs").single().body!!)
        assertEquals(mapOf("gdpr_applies" to true, "ad_user_data" to null, "ad_personalization" to null, "tcf_string" to null), install["consent"])
        assertEquals("38400000-8cf0-11bd-b23e-10b96e40000d", install["maid"])
        assertEquals(1, device.logged(com.service.attribution.LogLevel.WARN).count { "IABTCF_TCString" in it })
        // One of exactly the limit goes, through the consent route.
        device.tcf = TcfValues("C".repeat(MAX_TCF), 1)
        device.configure(device.launch())
        assertEquals(MAX_TCF, ((consentBodies().single()["consent"] as Map<*, *>)["tcf_string"] as String).length)
    }

    @Test
    fun `events sent before configure carry the customer user id an earlier launch kept, unless it was cleared since`() {
        device.configure(device.launch()).setCustomerUserId("user-8812")
        device.scheduler.runDue()
        val next = device.launch()
        next.sendEvent(EventType.LOGIN, null, null)
        device.configure(next)
        next.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(listOf("user-8812", "user-8812"), device.backend.delivered.map { it["customer_user_id"] })
        // Cleared before configure: the events sent before the clear keep no id, nor those after.
        val third = device.launch()
        third.sendEvent(EventType.LOGIN, null, null)
        third.setCustomerUserId(null)
        third.sendEvent(EventType.SHARE, null, null)
        device.configure(third)
        third.sendEvent(EventType.LEVEL_START, null, null)
        device.scheduler.runDue()
        assertEquals(listOf(null, null, null), device.backend.delivered.drop(2).map { it["customer_user_id"] })
        assertNull(third.let { device.store.get("customer_user_id") })
    }

    @Test
    fun `a consent update answered 409 sends the install again, holding the consent, and the events then go`() {
        val core = device.configure(device.launch())
        device.backend.consent = { HttpResponse(409, """{"error":"Conflict","detail":"install"}""") }
        core.setConsent(Consent(gdprApplies = true, adUserData = false))
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, consentBodies().size)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        device.scheduler.advance(2_000)
        val installs = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }
        assertEquals(2, installs.size)
        assertEquals(
            mapOf("gdpr_applies" to true, "ad_user_data" to false, "ad_personalization" to null, "tcf_string" to null),
            installs.last()["consent"],
        )
        assertEquals("the install carried it", 1, consentBodies().size)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        // Kept on the device: nothing to send at the next start, and a change is sent.
        device.backend.consent = { HttpResponse(202, "{}") }
        val next = device.configure(device.launch())
        assertEquals(1, consentBodies().size)
        next.setConsent(Consent(true, true, true))
        device.scheduler.runDue()
        assertEquals(2, consentBodies().size)
        device.assertNoFailures()
    }

    @Test
    fun `the first link that opened the app is the install's open_url, a later one does not replace it`() {
        val first = "https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d"
        val core = device.launch()
        core.handleDeepLink(first)
        core.handleDeepLink("https://go.example.com/Other00001?service_click_id=aaaaaaaaaaaaaaaaaaaaaa")
        device.configure(core)
        val install = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }.single()
        assertEquals(first, install["open_url"])
    }

    @Test
    fun `a link opened once the install is recorded is not the open_url of the install sent again`() {
        val launched = "https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d"
        device.configure(device.launch())
        val core = device.launch()
        // A later launch, opened through a link before configure and after it.
        core.handleDeepLink(launched)
        device.configure(core)
        core.handleDeepLink("$launched&again=1")
        // The backend lost the install: the next consent update is a 409, and the install goes again.
        device.backend.consent = { HttpResponse(409, """{"error":"Conflict","detail":"install"}""") }
        core.setConsent(Consent(gdprApplies = true))
        device.scheduler.runDue()
        device.scheduler.advance(2_000)
        val installs = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }
        assertEquals(2, installs.size)
        assertNull("a link of a later open did not bring the install", installs.last()["open_url"])
    }

    @Test
    fun `a consent update refused with 404 is a configuration error that holds back no event`() {
        val core = device.configure(device.launch())
        device.backend.consent = { HttpResponse(404, """{"error":"Not Found","detail":"x"}""") }
        core.setConsent(Consent(adPersonalization = false))
        device.scheduler.advance(10 * 60_000)
        assertEquals(1, consentBodies().size)
        assertEquals(listOf(ServiceErrorKind.CONFIGURATION to 404), device.errors.map { it.kind to it.code })
        // Events go on meanwhile; the consent is tried again after refreshConfig.
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(1, consentBodies().size)
        device.backend.consent = { HttpResponse(202, "{}") }
        core.refreshConfigAsync()
        device.scheduler.runDue()
        assertEquals(2, consentBodies().size)
    }

    @Test
    fun `anonymous mode, kept across launches, sends no advertising id and no customer user id`() {
        val core = device.launch()
        core.setAnonymous(true)
        core.setCustomerUserId("user-1")
        device.configure(core)
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val install = Json.parseObject(device.backend.requests("POST", "/v1/installs").single().body!!)
        assertNull(install["maid"])
        assertNull(install["customer_user_id"])
        assertNull(device.backend.delivered.single()["customer_user_id"])
        val next = device.configure(device.launch())
        assertTrue(next.isAnonymous())
        next.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertNull(device.backend.delivered.last()["customer_user_id"])
        // An event sent while anonymous stays so, even if the mode is off before it leaves.
        next.sendEvent(EventType.VIEW_ITEM, null, null)
        next.setAnonymous(false)
        device.scheduler.runDue()
        assertEquals("VIEW_ITEM", device.backend.delivered.last()["event_type"])
        assertNull(device.backend.delivered.last()["customer_user_id"])
        // Off: the customer user id goes with the next events.
        next.sendEvent(EventType.SEARCH, null, null)
        device.scheduler.runDue()
        assertEquals("user-1", device.backend.delivered.last()["customer_user_id"])
    }

    /**
     * The connection back, the one LOGIN event waiting on the device leaves marked anonymous,
     * with no customer user id.
     */
    private fun assertLeavesAnonymous() {
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        val sent = device.backend.delivered.single()
        assertEquals("LOGIN", sent["event_type"])
        assertEquals(true, sent["anonymous"])
        assertNull(sent["customer_user_id"])
    }

    @Test
    fun `an event sent in anonymous mode goes marked anonymous with no customer user id, even once the mode is off before it leaves`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-1")
        core.setAnonymous(true)
        // No connection: the event waits on the device while the mode is turned off.
        device.backend.events = { null }
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        core.setAnonymous(false)
        assertLeavesAnonymous()
    }

    @Test
    fun `an event sent outside anonymous mode that leaves in it goes marked anonymous with no customer user id`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-1")
        device.backend.events = { null }
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        // Queued as it was sent: with the customer user id, unmarked.
        val queued = device.store.get(StoredQueue.EVENTS)!!
        assertTrue(queued, queued.contains("user-1") && !queued.contains("anonymous"))
        core.setAnonymous(true)
        assertLeavesAnonymous()
    }

    @Test
    fun `an event sent before configure under an id set in this process goes anonymous when an earlier launch left the mode on`() {
        val first = device.configure(device.launch())
        first.setAnonymous(true)
        device.scheduler.runDue()
        // The next launch: the app names its user and sends an event before configure runs;
        // offline, it is still on the device when the app turns the mode off.
        val next = device.launch()
        next.setCustomerUserId("user-2")
        next.sendEvent(EventType.LOGIN, null, null)
        device.backend.events = { null }
        device.configure(next)
        device.scheduler.runDue()
        next.setAnonymous(false)
        assertLeavesAnonymous()
    }

    @Test
    fun `an event sent and leaving outside anonymous mode has no anonymous key`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-1")
        core.setAnonymous(true)
        core.setAnonymous(false)
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val sent = device.backend.delivered.single()
        assertEquals("user-1", sent["customer_user_id"])
        assertFalse(sent.containsKey("anonymous"))
        // Nor the request's text: no `anonymous: false` either.
        assertFalse(device.backend.requests("POST", "/v1/events").single().body!!.contains("anonymous"))
    }

    @Test
    fun `an event sent in anonymous mode keeps its mark across launches, from sendEvent's journal and from the queue`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-1")
        core.setAnonymous(true)
        device.backend.events = { null }
        // Queued by the worker, not delivered: in the queue kept on the device.
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, core.queuedCount())
        // Taken by sendEvent, the worker not run: in the journal only. The process dies here.
        core.sendEvent(EventType.SHARE, null, null)
        assertTrue(device.store.get("pending_events")!!.contains("\"anonymous\":true"))
        // The next launch turns anonymous mode off before anything leaves.
        val next = device.launch()
        next.setAnonymous(false)
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.configure(next)
        assertFalse(next.isAnonymous())
        next.sendEvent(EventType.SEARCH, null, null)
        device.scheduler.advance(60_000)
        assertEquals(listOf("LOGIN", "SHARE", "SEARCH"), device.backend.delivered.map { it["event_type"] })
        assertEquals(listOf(true, true, null), device.backend.delivered.map { it["anonymous"] })
        assertEquals(listOf(null, null, "user-1"), device.backend.delivered.map { it["customer_user_id"] })
    }

    @Test
    fun `an event sent before configure, in a launch an earlier one left anonymous, goes marked anonymous`() {
        device.configure(device.launch()).apply {
            setCustomerUserId("user-1")
            setAnonymous(true)
        }
        device.scheduler.runDue()
        val next = device.launch()
        // Before configure: anonymous mode is the one the device keeps, known once configure reads it.
        next.sendEvent(EventType.LOGIN, null, null)
        device.configure(next)
        device.scheduler.advance(60_000)
        val sent = device.backend.delivered.single()
        assertEquals(true, sent["anonymous"])
        assertNull(sent["customer_user_id"])
    }

    @Test
    fun `an event is on the device when sendEvent returns, and a process killed before its worker ran sends it at the next launch`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("user-7")
        device.scheduler.runDue()
        core.sendEvent(EventType.LOGIN, null, mapOf("email" to "a@b.co"))
        // The worker has not run: the event is in the journal already.
        assertTrue(device.store.get("pending_events")!!.contains("LOGIN"))
        // The process dies here. The next launch's user is another.
        val next = device.launch()
        next.setCustomerUserId("user-8")
        device.configure(next)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals("sent with the id it was sent under", "user-7", device.backend.delivered.single()["customer_user_id"])
        // Its matching parameter protected as any other.
        assertEquals(Pii.sha256Marked("a@b.co"), (device.backend.delivered.single()["parameters"] as Map<*, *>)["email"])
        assertNull(device.store.get("pending_events"))
    }

    @Test
    fun `an event sent on another thread while configure runs never replaces the journal the earlier launch left`() {
        // Events taken before configure carry the wall clock: the device's is the same here.
        device.clock.now = System.currentTimeMillis()
        device.configure(device.launch()).sendEvent(EventType.LOGIN, null, null)
        // The process dies before its worker ran: LOGIN is in the journal only.
        assertTrue(device.store.get("pending_events")!!.contains("LOGIN"))
        val core = device.launch()
        // Held once it has its platform, before it reads the journal.
        val (configuring, goOn) = configureHeld(core)
        assertTrue(core.sendEvent(EventType.SHARE, null, null))
        // The earlier launch's journal is as it was.
        assertEquals(listOf("LOGIN"), DraftJson.read(LineLog.inStore(device.store, "pending_events").read()).drafts.map { it.type.name })
        goOn.countDown()
        configuring.join()
        // Configure wrote both, the earlier launch's first, before its worker ran.
        assertEquals(listOf("LOGIN", "SHARE"), DraftJson.read(LineLog.inStore(device.store, "pending_events").read()).drafts.map { it.type.name })
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        assertNull(device.store.get("pending_events"))
        assertEquals(0L, core.getDroppedEventCount())
        assertEquals(emptyList<Any>(), device.errors.toList())
        device.assertNoFailures()
    }

    @Test
    fun `an event whose line the journal kept after it was queued is sent once at the next launch`() {
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        // The service cannot be reached: the event waits in the queue.
        device.backend.events = { null }
        assertTrue(core.sendEvent(EventType.LOGIN, null, null))
        // The disk refuses the journal's file once the event is queued: its line stays there.
        device.store.failingKeys += "pending_events"
        device.scheduler.runDue()
        assertTrue(device.store.get("pending_events")!!.contains("LOGIN"))
        device.store.failingKeys.clear()
        // The process dies. The next launch finds the event in the queue and in the journal.
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    /**
     * An event [core] sends, queued by the worker while the service cannot be reached, as the
     * write of sendEvent's file that lets it go fails ([alsoFailing] too): the file still holds
     * it, as the queue does.
     */
    private fun queuedWhileTheFileKeepsIt(core: SdkCore, vararg alsoFailing: String) {
        device.backend.events = { null }
        assertTrue(core.sendEvent(EventType.LOGIN, null, null))
        device.store.failingKeys += listOf("pending_events", *alsoFailing)
        device.scheduler.runDue()
        assertTrue("sendEvent's file still holds the event", device.store.get("pending_events")!!.contains("LOGIN"))
        assertTrue("the queue holds it", device.store.get(StoredQueue.EVENTS)!!.contains("LOGIN"))
        assertEquals(1, core.queuedCount())
        device.store.failingKeys.clear()
    }

    @Test
    fun `an event both the queue and sendEvent's file hold after a failed write of the file counts once at a launch that starts stopped`() {
        val first = device.configure(device.launch())
        device.scheduler.runDue()
        // The value that notes what left the file is refused too: the queue alone says it.
        queuedWhileTheFileKeepsIt(first, "pending_events_gone")
        // The next launch is stopped: what waits is dropped, and each event counted once.
        val next = device.launch()
        next.stop()
        device.configure(next)
        assertEquals(0, next.queuedCount())
        assertEquals(1L, next.getDroppedEventCount())
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        // Started again: nothing is left to send.
        next.start()
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertEquals(1L, next.getDroppedEventCount())
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    @Test
    fun `an event both the queue and sendEvent's file hold, at a stopped launch started again before the worker ran, is dropped and counted once, not sent`() {
        val first = device.configure(device.launch())
        device.scheduler.runDue()
        queuedWhileTheFileKeepsIt(first, "pending_events_gone")
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        // Stopped as configure runs, started again before the worker's first task: what waited
        // is the stop's all the same (configure found the SDK stopped), dropped and counted once,
        // never sent after the start.
        val next = device.launch()
        next.stop()
        next.configure(device.platform, SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        next.start()
        device.scheduler.advance(60_000)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertEquals(1L, next.getDroppedEventCount())
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(0, next.queuedCount())
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    @Test
    fun `an event sent after a failed write of sendEvent's file is not sent again at the next launch`() {
        val first = device.configure(device.launch())
        device.scheduler.runDue()
        queuedWhileTheFileKeepsIt(first)
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(60_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(0, first.queuedCount())
        assertTrue("the file still holds it", device.store.get("pending_events")!!.contains("LOGIN"))
        // The next launch neither sends it again nor, stopped at once, counts it dropped.
        val next = device.configure(device.launch())
        device.scheduler.advance(60_000)
        next.stop()
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(0L, next.getDroppedEventCount())
        assertEquals(emptyList<Any>(), device.errors.toList())
        // The file written whole without it: nothing is noted any longer.
        assertNull(device.store.get("pending_events"))
        assertNull(device.store.get("pending_events_gone"))
        device.assertNoFailures()
    }

    @Test
    fun `an event a stop drops while sendEvent's file's write fails is counted once, not again at the next launch`() {
        val first = device.configure(device.launch())
        device.scheduler.runDue()
        // The worker has not queued the event when stop() takes it, as the file's write fails.
        assertTrue(first.sendEvent(EventType.LOGIN, null, null))
        device.store.failingKeys += "pending_events"
        first.stop()
        device.scheduler.runDue()
        assertEquals(1L, first.getDroppedEventCount())
        assertTrue("the file still holds the event", device.store.get("pending_events")!!.contains("LOGIN"))
        device.store.failingKeys.clear()
        // Still stopped at the next launch, then started: the event dropped is neither counted nor sent again.
        val next = device.configure(device.launch())
        assertEquals(1L, next.getDroppedEventCount())
        next.start()
        device.scheduler.advance(60_000)
        assertEquals(1L, next.getDroppedEventCount())
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertNull(device.store.get("pending_events"))
        device.assertNoFailures()
    }

    @Test
    fun `a queue the device fails to write leaves its events in the journal, queued at the retry or the next launch, once`() {
        val core = device.configure(device.launch())
        // The disk refuses the queue's file (full): the event stays in the journal, on the device.
        device.store.failingKeys += StoredQueue.EVENTS
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertTrue(device.store.get("pending_events")!!.contains("LOGIN"))
        assertEquals(emptyList<Any>(), device.backend.eventRequests())
        assertEquals(1, core.queuedCount())
        // Written again at the retry, 2 s later: queued and sent, once.
        device.store.failingKeys.clear()
        device.scheduler.advance(2_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertNull(device.store.get("pending_events"))
        // Again, and the process dies before the disk takes the queue: the next launch sends it.
        device.store.failingKeys += StoredQueue.EVENTS
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertTrue(device.store.get("pending_events")!!.contains("SHARE"))
        device.store.failingKeys.clear()
        val next = device.configure(device.launch())
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        assertEquals(0, next.queuedCount())
        assertEquals(0L, next.getDroppedEventCount())
        assertEquals(emptyList<Any>(), device.errors.toList())
        device.assertNoFailures()
    }

    @Test
    fun `an event sendEvent cannot write to the device is not taken, and is counted and told as lost`() {
        val core = device.configure(device.launch())
        device.store.failingKeys += "pending_events"
        assertFalse(core.sendEvent(EventType.LOGIN, null, null))
        device.scheduler.advance(60_000)
        assertEquals(emptyList<Any>(), device.backend.eventRequests())
        assertEquals(1L, core.getDroppedEventCount())
        val error = device.errors.single()
        assertEquals(ServiceErrorKind.EVENTS_DROPPED, error.kind)
        assertNull(error.reason)
        assertEquals(1, error.count)
        assertEquals(1, device.logged(com.service.attribution.LogLevel.ERROR).count { "LOGIN could not be written" in it })
        // The disk takes writes again: the next event is taken and sent, the lost one never.
        device.store.failingKeys.clear()
        assertTrue(core.sendEvent(EventType.SHARE, null, null))
        device.scheduler.advance(60_000)
        assertEquals(listOf("SHARE"), device.backend.delivered.map { it["event_type"] })
        device.configure(device.launch())
        assertEquals(listOf("SHARE"), device.backend.delivered.map { it["event_type"] })
        device.assertNoFailures()
    }

    @Test
    fun `a customer user id set on another thread while configure runs is the one kept, in memory and on the device`() {
        device.store.put("customer_user_id", "kept")
        val core = device.launch()
        // Held once it has read the kept id, before it is done.
        val (configuring, goOn) = configureHeld(core)
        val setting = Thread { core.setCustomerUserId("new") }
        setting.start()
        // The call has returned, or waits for configure: no sleep decides it.
        while (setting.state != Thread.State.BLOCKED && setting.state != Thread.State.TERMINATED) Thread.yield()
        goOn.countDown()
        configuring.join()
        setting.join()
        device.scheduler.runDue()
        // The last call wins: on the device, and on this launch's events.
        assertEquals("new", device.store.get("customer_user_id"))
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals("new", device.backend.delivered.single()["customer_user_id"])
        // And the next launch's.
        device.configure(device.launch()).sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(listOf("new", "new"), device.backend.delivered.map { it["customer_user_id"] })
        device.assertNoFailures()
    }

    @Test
    fun `a stop is on the device when it returns, and a process killed before its worker ran stays stopped and drops what was queued`() {
        val accept = device.backend.events
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, core.queuedCount())
        core.stop()
        core.setAnonymous(true)
        // The worker has not run: the flags are on the device already. The process dies here.
        assertEquals("1", device.store.get("stopped"))
        assertEquals("1", device.store.get("anonymous"))
        device.backend.events = accept
        val next = device.configure(device.launch())
        assertTrue(next.isStopped())
        assertTrue(next.isAnonymous())
        assertEquals(0, next.queuedCount())
        assertEquals(listOf("stopped" to 1), device.errors.map { it.reason!!.wire to it.count })
        // Started again: what the stop dropped never goes.
        next.start()
        next.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(60_000)
        assertEquals(listOf("SHARE"), device.backend.delivered.map { it["event_type"] })
    }

    @Test
    fun `a queue of expired events alone sends no request once they are dropped`() {
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        device.clock.now += 31L * 24 * 3600 * 1000
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        val before = device.backend.eventRequests().size
        device.scheduler.advance(60_000)
        assertEquals("nothing left to send", before, device.backend.eventRequests().size)
        assertEquals(0, core.queuedCount())
        assertEquals(2L, core.getDroppedEventCount())
    }

    @Test
    fun `what a stop dropped is gone from the device, neither dropped again nor sent at the next launch`() {
        val accept = device.backend.events
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        core.stop()
        device.scheduler.runDue()
        assertEquals(listOf("stopped" to 1), device.errors.map { it.reason!!.wire to it.count })
        device.backend.events = accept
        val next = device.configure(device.launch())
        assertEquals(0, next.queuedCount())
        next.start()
        device.scheduler.advance(60_000)
        assertEquals("reported once", listOf("stopped" to 1), device.errors.map { it.reason!!.wire to it.count })
        assertEquals(emptyList<Any>(), device.backend.delivered)
    }

    @Test
    fun `what a backup brought from another install of the app is forgotten, as a new install, not stopped`() {
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val firstId = first.getServiceId()
        first.stop()
        // An update keeps the install, and what the SDK kept.
        device.configure(device.launch())
        assertEquals(1, device.backend.requests("POST", "/v1/installs").size)
        // Restored on a new phone (or a reinstall): the same keys, another install of the app.
        device.appInstalledAt = 1_800_000_000_000
        val restored = device.configure(device.launch())
        assertFalse(restored.isStopped())
        restored.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(60_000)
        val installs = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }
        assertEquals(2, installs.size)
        assertTrue(restored.getServiceId() != firstId)
        assertEquals(restored.getServiceId(), installs.last()["service_id"])
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        assertTrue(device.log.lines.any { "came from a backup of another install" in it.second })
    }

    @Test
    fun `a queue a backup brought from another install is forgotten before it is loaded, and never sent`() {
        // Kept with the rest of the SDK's data, as a platform whose backups take its queues
        // would keep them (Android keeps them in files out of backups).
        device.backend.events = { null }
        device.backend.sessions = { null }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, first.queuedCount())
        assertEquals(1, first.queuedSessionCount())
        assertTrue(device.store.get(StoredQueue.EVENTS)!!.contains("LOGIN"))
        device.backend.events = { com.service.attribution.support.ScriptedBackend.accepted(it.size) }
        device.backend.sessions = { com.service.attribution.support.ScriptedBackend.accepted(it.size) }
        // Restored on a new phone: another install of the app, with the old one's queues.
        device.appInstalledAt = 1_800_000_000_000
        val restored = device.configure(device.launch())
        restored.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(60_000)
        assertEquals(listOf("SHARE"), device.backend.delivered.map { it["event_type"] })
        assertEquals(listOf(restored.getServiceId()), device.backend.deliveredSessions.map { it["service_id"] })
        assertEquals(0L, restored.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `configure leaves the queues kept on the device to the worker, off the app's thread, and they are sent`() {
        device.backend.events = { null }
        device.backend.sessions = { null }
        val first = device.configure(device.launch())
        first.sendEvent(EventType.LOGIN, null, null)
        first.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        assertEquals(2, first.queuedCount())
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.backend.sessions = { ScriptedBackend.accepted(it.size) }
        // The next launch, configured on a thread of its own as an app's main thread would.
        val readers = java.util.concurrent.ConcurrentHashMap<String, MutableSet<Thread>>()
        device.store.beforeGet = { key -> readers.getOrPut(key) { java.util.concurrent.ConcurrentHashMap.newKeySet() }.add(Thread.currentThread()) }
        val next = device.launch()
        val configuring = Thread { next.configure(device.platform, SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", com.service.attribution.LogLevel.DEBUG, null, null) }
        configuring.start()
        configuring.join()
        assertTrue("configure read its state there", configuring in readers.getValue("service_id"))
        for (queue in listOf(StoredQueue.EVENTS, StoredQueue.SESSIONS)) {
            assertFalse("$queue not read back in configure", configuring in readers[queue].orEmpty())
        }
        // The worker reads them, and sends what the earlier launch kept.
        device.scheduler.advance(60_000)
        assertEquals(setOf(Thread.currentThread()), readers.getValue(StoredQueue.EVENTS).toSet())
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        assertEquals(2, device.backend.deliveredSessions.size)
        assertEquals(0, next.queuedCount())
        device.assertNoFailures()
    }

    @Test
    fun `a send that throws what is no IOException is tried again, not the end of the retries`() {
        val accept = device.backend.events
        var throwing = true
        device.backend.events = { batch -> if (throwing) throw IllegalStateException("a vendor's network stack") else accept(batch) }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertTrue(device.logged(com.service.attribution.LogLevel.WARN).any { "a vendor's network stack" in it })
        throwing = false
        device.scheduler.advance(60_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
    }

    @Test
    fun `remote configuration switching the SDK off drops what was queued with the reason disabled`() {
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.runDue()
        device.backend.config = { HttpResponse(200, """{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}""") }
        val refreshed = core.refreshConfigAsync()
        device.scheduler.runDue()
        refreshed.get()
        assertEquals(0, core.queuedCount())
        assertEquals(listOf("disabled" to 2), device.errors.map { it.reason!!.wire to it.count })
    }

    @Test
    fun `sendEvent says whether it took the event, not a manual INSTALL, nor once stopped or the install data deleted`() {
        val core = device.configure(device.launch())
        assertTrue(core.sendEvent(EventType.LOGIN, null, null))
        assertFalse(core.sendEvent(EventType.INSTALL, null, null))
        device.scheduler.runDue()
        core.stop()
        assertFalse(core.sendEvent(EventType.SHARE, null, null))
        core.start()
        device.scheduler.runDue()
        assertTrue(core.sendEvent(EventType.SHARE, null, null))
        val deleted = core.deleteUserDataAsync()
        device.scheduler.runDue()
        deleted.get()
        assertFalse(core.sendEvent(EventType.SEARCH, null, null))
        assertFalse(core.sendEvent(EventType.SEARCH, null, null))
        device.scheduler.runDue()
        assertEquals(listOf("LOGIN", "SHARE"), device.backend.delivered.map { it["event_type"] })
        // Each reason said at the app's level once, the events after it at debug.
        assertEquals(
            listOf(
                "the SDK is stopped: SHARE is not sent, nor any event while it is",
                "the install's data was deleted: SEARCH is not sent, nor any event while it is",
            ),
            device.logged(LogLevel.INFO).filter { "is not sent, nor" in it },
        )
        assertEquals(1, device.logged(LogLevel.DEBUG).count { "SEARCH is not sent" in it })
    }

    @Test
    fun `deleteUserData drops what was queued with the reason deleted, and the async twin completes`() {
        device.backend.events = { null }
        val core = device.configure(device.launch())
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        val deleted = core.deleteUserDataAsync()
        assertFalse(deleted.isDone)
        device.scheduler.runDue()
        assertNull(deleted.get())
        assertEquals(listOf("deleted" to 1), device.errors.map { it.reason!!.wire to it.count })
        assertEquals(1L, core.getDroppedEventCount())
    }

    @Test
    fun `the async twins, attribution completes once the first attempt finished, and fail before configure`() {
        val core = device.launch()
        assertTrue(core.refreshConfigAsync().isCompletedExceptionally)
        assertTrue(core.deleteUserDataAsync().isCompletedExceptionally)
        assertEquals(emptyMap<String, String>(), core.awaitAttributionParamsAsync(null).get())
        device.configure(core)
        assertEquals("organic", core.awaitAttributionParamsAsync(null).get()["media_source"])
    }
}
