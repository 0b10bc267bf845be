package com.service.attribution.support

import com.service.attribution.DeepLink
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.core.AppLifecycle
import com.service.attribution.core.DeviceSignals
import com.service.attribution.core.HttpRequest
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.InstallReferrerSource
import com.service.attribution.core.Json
import com.service.attribution.core.LifecycleListener
import com.service.attribution.core.LineLog
import com.service.attribution.core.Platform
import com.service.attribution.core.SdkCore
import com.service.attribution.core.SdkSettings
import com.service.attribution.core.StoredQueue
import com.service.attribution.core.TcfSource
import com.service.attribution.core.TcfValues
import org.junit.Assert.assertEquals
import java.util.concurrent.CopyOnWriteArrayList

/**
 * A backend answering as its contract says unless a test changes a route's answer: config
 * on with sealing off, installs and consent 202, events and sessions 202 with every one
 * accepted, attribution organic. Each answer may be null: no connection.
 */
internal class ScriptedBackend {
    var config: (HttpRequest) -> HttpResponse? = { HttpResponse(200, CONFIG_ON) }
    var installs: (HttpRequest) -> HttpResponse? = { HttpResponse(202, """{"service_id":"x"}""") }
    var consent: (HttpRequest) -> HttpResponse? = { HttpResponse(202, Json.write(mapOf("consent" to Json.parseObject(it.body!!)["consent"]))) }
    var events: (List<Map<String, Any?>>) -> HttpResponse? = { accepted(it.size) }
    var sessions: (List<Map<String, Any?>>) -> HttpResponse? = { accepted(it.size) }
    var attribution: (HttpRequest) -> HttpResponse? = { HttpResponse(200, """{"service_match_status":"organic","media_source":"organic"}""") }
    var delete: (HttpRequest) -> HttpResponse? = { HttpResponse(202, "{}") }

    /** Every event the backend accepted (a 202 naming it neither rejected nor ignored), in order. */
    val delivered = CopyOnWriteArrayList<Map<String, Any?>>()

    /** Every session the backend accepted, in order. */
    val deliveredSessions = CopyOnWriteArrayList<Map<String, Any?>>()

    @Suppress("UNCHECKED_CAST")
    val transport =
        ScriptedTransport { request ->
            val path = pathOf(request.url).substringBefore('?')
            when {
                path == "/v1/config" -> config(request)
                path == "/v1/installs" -> installs(request)
                path.endsWith("/consent") -> consent(request)
                path == "/v1/events" -> {
                    val events = Json.parseObject(request.body!!)["events"] as List<Map<String, Any?>>
                    events(events)?.also { answer -> record(events, answer, delivered) }
                }
                path == "/v1/sessions" -> {
                    val sessions = Json.parseObject(request.body!!)["sessions"] as List<Map<String, Any?>>
                    sessions(sessions)?.also { answer -> record(sessions, answer, deliveredSessions) }
                }
                path.endsWith("/attribution") -> attribution(request)
                request.method == "DELETE" -> delete(request)
                else -> HttpResponse(404, """{"error":"Not Found","detail":"$path"}""")
            }
        }

    private fun record(items: List<Map<String, Any?>>, answer: HttpResponse, into: MutableList<Map<String, Any?>>) {
        if (answer.code != 202) return
        val json = runCatching { Json.parseObject(answer.body) }.getOrNull() ?: return
        val notStored =
            listOf("rejected", "ignored").flatMap { (json[it] as? List<*>).orEmpty() }.mapNotNull { ((it as Map<*, *>)["index"] as Number).toInt() }.toSet()
        items.forEachIndexed { i, e -> if (i !in notStored) into.add(e) }
    }

    fun requests(method: String, path: String): List<HttpRequest> =
        synchronized(transport.requests) {
            transport.requests.filter { it.method == method && pathOf(it.url).substringBefore('?').let { p -> if (path.endsWith("/")) p.startsWith(path) else p == path } }
        }

    fun eventRequests(): List<Map<String, Any?>> = requests("POST", "/v1/events").map { Json.parseObject(it.body!!) }

    fun sessionRequests(): List<Map<String, Any?>> = requests("POST", "/v1/sessions").map { Json.parseObject(it.body!!) }

    companion object {
        const val CONFIG_ON = """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""

        fun accepted(n: Int) = HttpResponse(202, """{"accepted":$n,"ignored":[],"rejected":[],"warnings":[]}""")
    }
}

/**
 * One device driven by hand: its storage, clock, executors and main thread, and the
 * listeners' record. [launch] starts a process of the app (an SdkCore) on it; a second launch
 * is the app's next start on the same device.
 */
internal class ScriptedDevice(
    val backend: ScriptedBackend = ScriptedBackend(),
    val clock: ManualClock = ManualClock(),
    @Volatile var tcf: TcfValues = TcfValues(null, null),
) {
    val store = MemoryStore()

    /** Where the queues are kept, when not in [store]: a file of their own, as on Android. */
    @Volatile var queues: MemoryStore? = null

    /** Where sendEvent's journal of events is kept, when not under `pending_events` in [store]. */
    @Volatile var drafts: LineLog? = null
    /** The executors of the current process (a new launch has its own; the old one's tasks die with it). */
    var scheduler = ManualScheduler(clock)
        private set
    val log = RecordingLog()
    val mainThread = RecordingMainThread()
    /** The Play install referrer as the device's Play Store answers it: none by default. */
    @Volatile var referrer = InstallReferrerSource { null }
    val errors = CopyOnWriteArrayList<ServiceError>()
    val deepLinks = CopyOnWriteArrayList<DeepLink>()
    val attributions = CopyOnWriteArrayList<Map<String, String>>()
    private val cores = ArrayList<SdkCore>()

    /**
     * Whether the app is in the foreground when configure runs: false for a process the system
     * started in the background (a push message, a job), with no activity started.
     */
    @Volatile var inForeground = true

    /**
     * The advertising id as Play services give it now: null with ad tracking limited; throwing
     * when they cannot answer. Each read is counted in [advertisingIdReads].
     */
    @Volatile var advertisingId: () -> String? = { GAID }

    @Volatile var advertisingIdReads = 0

    private val signals =
        object : DeviceSignals by FakeDevice() {
            override fun advertisingId(): String? {
                advertisingIdReads++
                return this@ScriptedDevice.advertisingId()
            }
        }

    /** When this install of the app was made (its package's first install time). */
    @Volatile var appInstalledAt: Long? = 1_700_000_000_000

    private val lifecycle =
        object : AppLifecycle {
            override fun watch(listener: LifecycleListener) = Unit

            override fun isInForeground() = inForeground
        }

    val platform: Platform
        get() =
            Platform(
                store, signals, referrer, mainThread, log, backend.transport, clock.read, TcfSource { tcf },
                lifecycle = lifecycle,
                appInstalledAt = appInstalledAt,
                drafts = drafts ?: LineLog.inStore(store, "pending_events"),
                eventQueue = LineLog.inStore(queues ?: store, StoredQueue.EVENTS),
                sessionQueue = LineLog.inStore(queues ?: store, StoredQueue.SESSIONS),
            )

    /** A new process of the app with its listeners set (not configured yet). */
    fun launch(): SdkCore {
        cores.lastOrNull()?.close()
        if (cores.isNotEmpty()) scheduler = ManualScheduler(clock)
        return SdkCore(scheduler, scheduler).also { core ->
            cores += core
            core.setErrorListener { errors.add(it) }
            core.setDeepLinkListener { deepLinks.add(it) }
            core.setAttributionListener { attributions.add(it) }
        }
    }

    /**
     * Configures [core]. The retries wait exactly their backoff here (no jitter), so a test can
     * move the clock to the millisecond a retry is due; `RetryWaitTest` checks the jitter.
     */
    fun configure(core: SdkCore, key: String = "sdk_key", settings: SdkSettings = SdkSettings(baseUrl = "https://backend.test", jitter = { it })): SdkCore {
        core.configure(platform, settings, key, LogLevel.DEBUG, null, null)
        scheduler.runDue()
        return core
    }

    /** What the SDK logged at [level]. */
    fun logged(level: LogLevel): List<String> = synchronized(log.lines) { log.lines.filter { it.first == level }.map { it.second } }

    /**
     * Each of [waitsMs] in turn: [tries] (the requests made so far) grows by one when the wait is
     * up, not a millisecond before.
     */
    fun assertTriedAgainAfter(waitsMs: List<Long>, tries: () -> Int) {
        for (wait in waitsMs) {
            val before = tries()
            scheduler.advance(wait - 1)
            assertEquals("within the wait of $wait ms", before, tries())
            scheduler.advance(1)
            assertEquals("after the wait of $wait ms", before + 1, tries())
        }
    }

    /** No task of the SDK threw. */
    fun assertNoFailures() = assertEquals(emptyList<Throwable>(), scheduler.failures)

    fun close() = cores.forEach { it.close() }

    companion object {
        /** The advertising id the device gives unless a test changes it. */
        const val GAID = "38400000-8cf0-11bd-b23e-10b96e40000d"
    }
}
