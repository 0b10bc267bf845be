package com.service.attribution.core

import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.ScriptedBackend
import com.service.attribution.support.ScriptedDevice
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * A deferred deep link kept for want of a listener goes to one set later in that process
 * (README, Listeners), and an attribution listener set later is told the kept attribution: set
 * while the SDK is stopped, once start() runs; set while remote configuration has it switched
 * off, once a refresh switches it on again in that process.
 */
class StartAfterStopTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private val matched = """{"service_match_status":"matched","media_source":"ads","deep_link_path":"/promo","promo":"x"}"""

    /** A launch matched with a deferred deep link, kept on the device for want of a deep-link listener. */
    private fun matchedWithNoDeepLinkListener(): SdkCore {
        device.backend.attribution = { HttpResponse(200, matched) }
        val core = device.launch()
        core.setDeepLinkListener(null)
        device.configure(core)
        device.scheduler.runDue()
        assertEquals(1, device.attributions.size)
        return core
    }

    @Test
    fun `a deferred deep link kept for want of a listener reaches one set while stopped once start() runs`() {
        val core = matchedWithNoDeepLinkListener()
        core.stop()
        device.scheduler.runDue()
        val heard = CopyOnWriteArrayList<DeepLink>()
        core.setDeepLinkListener { heard.add(it) }
        device.scheduler.runDue()
        core.start()
        device.scheduler.advance(10_000)
        assertEquals("deferred deep links heard after start()", listOf(DeepLinkKind.DEFERRED), heard.map { it.kind })
    }

    @Test
    fun `an attribution listener set while stopped is told the kept attribution once start() runs`() {
        device.backend.attribution = { HttpResponse(200, matched) }
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        core.stop()
        device.scheduler.runDue()
        val heard = CopyOnWriteArrayList<Map<String, String>>()
        core.setAttributionListener { heard.add(it) }
        device.scheduler.runDue()
        core.start()
        device.scheduler.advance(10_000)
        assertEquals("attributions heard by the listener set while stopped, after start()", 1, heard.size)
    }

    @Test
    fun `listeners set while switched off hear the kept attribution and its deferred deep link once a refresh switches the SDK on`() {
        val core = matchedWithNoDeepLinkListener()
        // The app's owner switches it off; the app sets its listeners while it is off.
        device.backend.config = { HttpResponse(200, CONFIG_OFF) }
        core.refreshConfigAsync()
        device.scheduler.runDue()
        val attributions = CopyOnWriteArrayList<Map<String, String>>()
        val links = CopyOnWriteArrayList<DeepLink>()
        core.setAttributionListener { attributions.add(it) }
        core.setDeepLinkListener { links.add(it) }
        device.scheduler.runDue()
        assertEquals("nothing is told while switched off", 0, attributions.size + links.size)
        device.backend.config = { HttpResponse(200, CONFIG_ON) }
        core.refreshConfigAsync()
        device.scheduler.advance(10_000)
        assertEquals("attributions heard once switched on", 1, attributions.size)
        assertEquals("deferred deep links heard once switched on", listOf(DeepLinkKind.DEFERRED), links.map { it.kind })
        // A later refresh that finds it on tells nothing again.
        core.refreshConfigAsync()
        device.scheduler.advance(10_000)
        assertEquals(1, attributions.size)
        assertEquals(1, links.size)
    }

    private companion object {
        const val CONFIG_ON = """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""
        const val CONFIG_OFF = """{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""
    }

    @Test
    fun `a custom event without a name is refused while stopped, as while running`() {
        val core = device.configure(device.launch())
        core.stop()
        device.scheduler.runDue()
        assertThrows(IllegalArgumentException::class.java) { core.sendEvent(EventType.CUSTOM, " ", null) }
    }

    @Test
    fun `a start() that a stop() follows before the SDK's thread runs it sends nothing`() {
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        core.stop()
        device.scheduler.runDue()
        val before = device.backend.transport.requests.size
        core.start()
        core.stop()
        device.scheduler.advance(10 * 60_000)
        assertEquals(before, device.backend.transport.requests.size)
        device.assertNoFailures()
    }

    @Test
    fun `events a stop drops as the worker queues them are not sent after a start that follows at once`() {
        device.queues = MemoryStore()
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        repeat(3) { core.sendEvent(EventType.LOGIN, null, null) }
        // The user opts out and back in (on the app's thread) while the worker writes the three
        // events to the queue: the stop drops them and tells it.
        val once = AtomicBoolean()
        device.queues!!.beforeGet = { key ->
            if (key == StoredQueue.EVENTS && once.compareAndSet(false, true)) {
                core.stop()
                core.start()
            }
        }
        device.scheduler.advance(60_000)
        assertEquals(listOf(DropReason.STOPPED to 3), device.errors.map { it.reason to it.count })
        assertEquals("events told dropped are not sent", 0, device.backend.delivered.size)
        device.assertNoFailures()
    }

    @Test
    fun `an event sent after a start() that follows a stop() the busy worker has not made yet is delivered, not told dropped as stopped`() {
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        // Offline: what the worker queues stays in the queue.
        device.backend.events = { null }
        // The worker is busy: it has not run the first event's task yet when the user opts out
        // and back in, and the app sends a second event after the start().
        core.sendEvent(EventType.LOGIN, null, null)
        core.stop()
        core.start()
        core.sendEvent(EventType.PURCHASE, null, null)
        device.scheduler.runDue()
        // The event sent before the stop is the stop's, as always; the one after it is not.
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1, core.queuedCount())
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        device.scheduler.advance(10 * 60_000)
        assertEquals(listOf("PURCHASE"), device.backend.delivered.map { it["event_type"] })
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `an event sent after a start() while configure's first run waits behind a stop() is delivered, not told dropped as stopped`() {
        device.backend.installs = { null }
        val core = device.launch()
        // Configured, the worker not yet run: the stop, the start and the event all come before
        // its first task, which finds the SDK started again.
        core.configure(device.platform, SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        core.stop()
        core.start()
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(emptyList<Any>(), device.errors.map { it.reason to it.count })
        device.backend.installs = { HttpResponse(202, """{"service_id":"x"}""") }
        device.scheduler.advance(10 * 60_000)
        assertEquals(listOf("LOGIN"), device.backend.delivered.map { it["event_type"] })
        assertEquals(emptyList<Any>(), device.errors.map { it.reason to it.count })
        assertEquals(0L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    /**
     * The device's platform with [log], [lifecycle] and [clock] in place of its own: a point inside
     * a call at which another thread's calls come, every run alike.
     */
    private fun platformWith(log: LogSink = device.log, lifecycle: AppLifecycle? = null, clock: (() -> Long)? = null): Platform {
        val p = device.platform
        return Platform(
            p.store, p.device, p.installReferrer, p.mainThread, log, p.http, clock ?: p.clock, p.tcf, p.journal,
            lifecycle ?: p.lifecycle, p.appInstalledAt, p.drafts, p.eventQueue, p.sessionQueue,
        )
    }

    /** [calls] on a thread of their own, waited for: true when they returned. */
    private fun onAnotherThread(calls: () -> Unit): Boolean {
        val other = Thread(calls)
        other.start()
        other.join(60_000)
        return !other.isAlive
    }

    @Test
    fun `a start() on another thread while stop() is under way keeps its session and events, and sends nothing the stop drops`() {
        lateinit var core: SdkCore
        val startReturned = AtomicBoolean()
        // The user opts out, and a thread of the app's starts the SDK again and sends a purchase
        // while that stop() is still under way (it says it in the log).
        val hook =
            LogSink { level, message, error ->
                device.log.write(level, message, error)
                if (message.startsWith("stopped: nothing is sent") && !startReturned.get()) {
                    startReturned.set(
                        onAnotherThread {
                            core.start()
                            core.sendEvent(EventType.PURCHASE, null, null)
                        },
                    )
                }
            }
        core = device.launch()
        core.configure(platformWith(log = hook), SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        device.scheduler.runDue()
        assertEquals("the launch's session", 1, device.backend.deliveredSessions.size)
        // Offline: the two logins wait in the queue, the stop's to drop.
        device.backend.events = { null }
        repeat(2) { core.sendEvent(EventType.LOGIN, null, null) }
        device.scheduler.runDue()
        assertEquals(2, core.queuedCount())
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        core.stop()
        assertTrue("the other thread's start() and sendEvent returned while the stop was under way", startReturned.get())
        assertFalse(core.isStopped())
        device.scheduler.advance(10 * 60_000)
        // The stop drops the logins, and only them; the purchase sent after the start goes, and
        // so does the start's session.
        assertEquals(listOf(DropReason.STOPPED to 2), device.errors.map { it.reason to it.count })
        assertEquals(listOf("PURCHASE"), device.backend.delivered.map { it["event_type"] })
        assertEquals("the launch's session and the start's", 2, device.backend.deliveredSessions.size)
        assertEquals(0, core.queuedCount())
        assertEquals(2L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `what a stop in a process that ended left queued is dropped, not sent, though a start() on another thread follows configure at once`() {
        val first = device.configure(device.launch())
        device.scheduler.runDue()
        // Offline: the logins wait in the queue. The user opts out, and the process ends before
        // the SDK's thread makes the stop's drop (a batch on its way, say).
        device.backend.events = { null }
        repeat(3) { first.sendEvent(EventType.LOGIN, null, null) }
        device.scheduler.runDue()
        assertEquals(3, first.queuedCount())
        first.stop()
        device.backend.events = { ScriptedBackend.accepted(it.size) }
        val sessionsBefore = device.backend.deliveredSessions.size

        // The next launch: a thread of the app's starts the SDK again, and sends a purchase, as
        // configure lets go of its lock (configure watches the app's lifecycle then).
        val next = device.launch()
        val startReturned = AtomicBoolean()
        val lifecycle =
            object : AppLifecycle {
                override fun watch(listener: LifecycleListener) {
                    startReturned.set(
                        onAnotherThread {
                            next.start()
                            next.sendEvent(EventType.PURCHASE, null, null)
                        },
                    )
                }

                override fun isInForeground() = true
            }
        next.configure(platformWith(lifecycle = lifecycle), SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        assertTrue("the other thread's start() and sendEvent returned while configure ran", startReturned.get())
        device.scheduler.advance(10 * 60_000)

        // The logins are the stop's: dropped as `stopped`, never sent; the purchase and the
        // start's session go, and the configuration is read once.
        assertFalse(next.isStopped())
        assertEquals(listOf(DropReason.STOPPED to 3), device.errors.map { it.reason to it.count })
        assertEquals(listOf("PURCHASE"), device.backend.delivered.map { it["event_type"] })
        assertEquals("the start's session", sessionsBefore + 1, device.backend.deliveredSessions.size)
        assertEquals(0, next.queuedCount())
        assertEquals(2, device.backend.requests("GET", "/v1/config").size)
        device.assertNoFailures()
    }

    @Test
    fun `an event a stop() on another thread overtakes inside sendEvent is refused as sent while stopped, not kept for a later start()`() {
        lateinit var core: SdkCore
        val armed = AtomicBoolean()
        val stopReturned = AtomicBoolean()
        // sendEvent reads the clock once it found the SDK not stopped, before it takes the event:
        // the user opts out there, on a thread of the app's, and that stop() returns first.
        val clock = {
            if (armed.compareAndSet(true, false)) stopReturned.set(onAnotherThread { core.stop() })
            device.clock.now
        }
        core = device.launch()
        core.configure(platformWith(clock = clock), SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        device.scheduler.runDue()
        // Offline: a login waits in the queue, the stop's to drop.
        device.backend.events = { null }
        core.sendEvent(EventType.LOGIN, null, null)
        device.scheduler.runDue()
        assertEquals(1, core.queuedCount())
        device.backend.events = { ScriptedBackend.accepted(it.size) }

        armed.set(true)
        val taken = core.sendEvent(EventType.PURCHASE, null, null)
        assertTrue("the other thread's stop() returned while sendEvent ran", stopReturned.get())
        assertTrue(core.isStopped())
        // The purchase came after the stop took what sendEvent held: refused as sent while
        // stopped, and said so once; the stop drops the login alone.
        assertFalse("the purchase is not taken", taken)
        assertEquals(1, device.logged(LogLevel.INFO).count { it == "the SDK is stopped: PURCHASE is not sent, nor any event while it is" })
        device.scheduler.runDue()
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(0, core.queuedCount())
        assertNull(device.store.get("pending_events"))

        // The user opts in again: neither the login nor the purchase is sent.
        core.start()
        device.scheduler.advance(10 * 60_000)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1L, core.getDroppedEventCount())
        assertEquals(0, core.queuedCount())
        device.assertNoFailures()
    }

    @Test
    fun `a process that dies once the worker told a stop's drop leaves none of it in the journal, to be dropped and told again at the next launch`() {
        // sendEvent's journal on the device's store, as always; [beforeWrite] runs once, before
        // a write of it, and once the drop is told the process is dead: nothing more reaches it.
        val disk = LineLog.inStore(device.store, "pending_events")
        val beforeWrite = AtomicReference<(() -> Unit)?>()
        val dead = { device.errors.isNotEmpty() }
        device.drafts =
            object : LineLog {
                override fun read() = disk.read()

                override fun append(lines: List<String>) = dead() || disk.append(lines)

                override fun write(lines: List<String>): Boolean {
                    beforeWrite.getAndSet(null)?.invoke()
                    return dead() || disk.write(lines)
                }
            }
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        // The worker has not queued the login yet when the user opts out.
        core.sendEvent(EventType.LOGIN, null, null)
        assertEquals(1, disk.read().size)
        // The worker runs at once, on its own thread: it makes the stop's drop before anything
        // stop() writes to the journal on the app's thread gets there.
        beforeWrite.set { device.scheduler.runDue() }
        core.stop()
        beforeWrite.set(null)
        device.scheduler.runDue()
        assertEquals(listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })

        // The process dies here. The next launch finds the SDK stopped, and the login gone.
        device.drafts = null
        val next = device.configure(device.launch())
        assertTrue(next.isStopped())
        device.scheduler.runDue()
        assertEquals("the stop's drop is told once", listOf(DropReason.STOPPED to 1), device.errors.map { it.reason to it.count })
        assertEquals(1L, next.getDroppedEventCount())
        next.start()
        device.scheduler.advance(10 * 60_000)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        device.assertNoFailures()
    }

    @Test
    fun `what a stop() took is not sent at the next launch when a start() follows and the process dies before the worker made the drop`() {
        val core = device.configure(device.launch())
        device.scheduler.runDue()
        core.sendEvent(EventType.LOGIN, null, null)
        core.stop()
        core.start()
        core.sendEvent(EventType.PURCHASE, null, null)
        // The worker has run none of it: the process dies here. The flag says started, so the
        // next launch drops nothing: the login must not be in the journal it reads.
        val next = device.configure(device.launch())
        assertFalse(next.isStopped())
        device.scheduler.advance(10 * 60_000)
        assertEquals(listOf("PURCHASE"), device.backend.delivered.map { it["event_type"] })
        device.assertNoFailures()
    }

    /**
     * sendEvent on a launch whose clock runs [onWorker] (the worker's tasks, run on this thread)
     * the first time it is read after [armed] is set: sendEvent reads it once it found the SDK
     * switched on and its data kept, before it takes the event.
     */
    private fun launchWithWorkerInsideSendEvent(armed: AtomicBoolean, onWorker: (SdkCore) -> Unit): SdkCore {
        lateinit var core: SdkCore
        val clock = {
            if (armed.compareAndSet(true, false)) {
                onWorker(core)
                device.scheduler.runDue()
            }
            device.clock.now
        }
        core = device.launch()
        core.configure(platformWith(clock = clock), SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.DEBUG, null, null)
        device.scheduler.runDue()
        return core
    }

    @Test
    fun `an event a switch-off on the worker overtakes inside sendEvent is refused as sent while disabled, not sent once switched on again`() {
        val armed = AtomicBoolean()
        val core =
            launchWithWorkerInsideSendEvent(armed) {
                device.backend.config = { HttpResponse(200, CONFIG_OFF) }
                it.refreshConfigAsync()
            }
        armed.set(true)
        val taken = core.sendEvent(EventType.PURCHASE, null, null)
        assertFalse("the switch-off came first", armed.get())
        assertFalse("the purchase is not taken", taken)
        assertEquals(1, device.logged(LogLevel.INFO).count { it == "the SDK is disabled: PURCHASE is not sent, nor any event while it is" })
        device.scheduler.runDue()
        assertNull(device.store.get("pending_events"))
        // Switched on again: the purchase, refused, is not sent then.
        device.backend.config = { HttpResponse(200, CONFIG_ON) }
        core.refreshConfigAsync()
        device.scheduler.advance(10 * 60_000)
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertEquals(0L, core.getDroppedEventCount())
        device.assertNoFailures()
    }

    @Test
    fun `an event a deletion on the worker overtakes inside sendEvent is refused as sent once deleted, not kept on the device`() {
        val armed = AtomicBoolean()
        val core = launchWithWorkerInsideSendEvent(armed) { it.deleteUserDataAsync() }
        armed.set(true)
        val taken = core.sendEvent(EventType.PURCHASE, null, null)
        assertFalse("the deletion came first", armed.get())
        assertFalse("the purchase is not taken", taken)
        assertEquals(1, device.logged(LogLevel.INFO).count { it == "the install's data was deleted: PURCHASE is not sent, nor any event while it is" })
        device.scheduler.advance(10 * 60_000)
        assertNull(device.store.get("pending_events"))
        assertEquals(emptyList<Any>(), device.backend.delivered)
        assertEquals(0L, core.getDroppedEventCount())
        device.assertNoFailures()
    }
}
