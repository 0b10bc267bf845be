package com.service.attribution.core

import com.service.attribution.AttributionListener
import com.service.attribution.AuthenticationException
import com.service.attribution.Consent
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.DeepLinkListener
import com.service.attribution.DropReason
import com.service.attribution.ErrorListener
import com.service.attribution.EventType
import com.service.attribution.HttpException
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.withContext
import java.io.IOException
import java.util.UUID
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

/** Settings the spec leaves to the SDK: where the backend is, and how patiently to retry. */
internal data class SdkSettings(
    val baseUrl: String,
    val retryDelayMs: Long = 2_000,
    val maxRetryDelayMs: Long = 60_000,
    /** How long one attribution request may wait on the backend (0 to 20 seconds). */
    val attributionWaitSeconds: Int = 20,
    /** Events kept on the device at most; the oldest go first. */
    val maxQueuedEvents: Int = 1_000,
    /** Events older than this by the device's clock are not sent: the backend keeps 30 days. */
    val maxEventAgeMs: Long = 30L * 24 * 3600 * 1000,
    /** Sessions kept on the device at most; the oldest go first (sdk/conformance/sessions.json). */
    val maxQueuedSessions: Int = 100,
    /** The wait before an attempt whose backoff is the argument: [jittered] (tests: exact). */
    val jitter: (Long) -> Long = { jittered(it) },
)

/**
 * Every rule of the SDK, with no Android type: ServiceAttributionSdk is this plus the Android
 * glue. One instance is one process of the app; a second instance on the same [KeyValueStore]
 * is the app's next launch.
 *
 * Threads: every change of state and every request but the attribution long poll runs on one
 * worker thread, so events leave in the order they were sent; public calls only hand work to it.
 * The attribution poll has its own thread so that its long wait never holds events back. Both
 * executors can be given (tests drive them by hand, with a clock of their own).
 *
 * [defaultMainThread] runs listeners until configure gives the platform's (a direct deep link
 * handled before configure).
 */
internal class SdkCore(
    worker: ScheduledExecutorService? = null,
    poller: ScheduledExecutorService? = null,
    defaultMainThread: MainThread = MainThread { it.run() },
) {
    private val worker: ScheduledExecutorService =
        worker ?: Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "ServiceSdk").apply { isDaemon = true } }
    private val workerDispatcher = this.worker.asCoroutineDispatcher()
    private val poller: ScheduledExecutorService =
        poller ?: Executors.newSingleThreadScheduledExecutor { r -> Thread(r, "ServiceSdk-attribution").apply { isDaemon = true } }

    @Volatile private var configured = false

    @Volatile private var disabled = false

    @Volatile private var config: RemoteConfig? = null

    /**
     * Whether [config] is one the backend gave, fetched in this process or kept on the device from
     * an earlier fetch, rather than the placeholder the SDK runs with while none ever answered.
     * Only such a configuration says whether matching parameters are sealed or hashed: until
     * there is one, events wait in sendEvent's journal as they were sent, and the configuration
     * is read again with the retries' backoff. The install and sessions, which carry no
     * parameters, go meanwhile.
     */
    @Volatile private var configKnown = false

    @Volatile private var lastInitError: Throwable? = null

    @Volatile private var customerUserId: String? = null

    @Volatile private var serviceId: String? = null

    @Volatile private var openUrl: String? = null

    /**
     * The install is recorded (found so, or sent, in this process): a link that opens the app
     * from now on brought no install, and is never the `open_url` of one, not even of the
     * install sent again when the backend turns out to have lost it (a 409).
     */
    @Volatile private var installSeenRecorded = false

    /**
     * Set once deleteUserData succeeded, kept on the device: the backend takes nothing of the
     * install again, so nothing more is queued or sent for it, in this process or a later one.
     */
    @Volatile private var deleted = false

    /** stop(): nothing is sent and nothing queued; kept on the device. */
    @Volatile private var stopped = false

    /** setAnonymous(true): no advertising id or customer user id leaves the device; kept on the device. */
    @Volatile private var anonymous = false

    // Set before configure, written to the store again when it runs (after the check for a
    // restored backup, which may clear the store).
    @Volatile private var userIdSetBeforeConfigure = false
    private var stoppedBeforeConfigure: Boolean? = null
    private var anonymousBeforeConfigure: Boolean? = null
    private var consentBeforeConfigure: Consent? = null

    /**
     * Where stop(), start(), setAnonymous and setConsent made before configure are written at
     * once: the journal configure reads, given by the platform as the process starts (Android:
     * the library's ContentProvider). Without it (a plain JVM, a process the provider does not
     * run in) they are kept in memory until configure. Under this object's lock.
     */
    private var earlySource: (() -> EarlyStorage)? = null
    private var early: EarlyStorage? = null

    /** The app's listeners, run on its main thread, and the report of dropped events. */
    private val listeners = ListenerDispatch(defaultMainThread)

    /** Why sendEvent kept nothing, of those already said at INFO in this process. */
    private val notSentSaid: MutableSet<String> = java.util.Collections.synchronizedSet(HashSet())

    /** The lines written before configure, said once it gives the app's level and log. */
    private val earlyLines = EarlyLines()

    @Volatile private var log = Logger(earlyLines, LogLevel.DEBUG)

    /** The SDK built on this one, if any (the Flutter plugin): named on the install, with its rules. */
    @Volatile var wrapper: Wrapper? = null

    private lateinit var platform: Platform
    private lateinit var settings: SdkSettings
    private lateinit var api: Api
    private lateinit var queue: StoredQueue

    /** Sends the queue: batches, a batch refused as a whole in halves, a 202's verdicts. */
    private lateinit var delivery: BatchDelivery

    /** Sessions waiting to be sent, and their delivery, as the events'; their drops are only logged and counted. */
    private lateinit var sessionQueue: StoredQueue

    /**
     * Sessions the queue's file could not take (its write failed), kept in the journal as
     * sendEvent's events are until the queue holding them is on the disk: queued at the retry,
     * or at the next launch. One the journal let go (queued, or dropped and counted) while its
     * own write failed is not taken from its file again ([Handoff]). On the worker, once configured.
     */
    private lateinit var sessionJournal: StoredQueue
    private lateinit var sessionDelivery: BatchDelivery
    private lateinit var sessionDrops: SessionDrops

    /** What the app set with setConsent, the TCF values, and what the backend was last sent. */
    private lateinit var consents: ConsentState

    /** The device's tracking (its advertising id) the backend holds: the install's, or the last update's. */
    private lateinit var tracking: DeviceTracking
    private var apiKey = ""
    private var initListener: InitListener? = null
    private var configureStarted = 0L
    private var configureMainThreadMs = 0L

    /**
     * What sendEvent took and the worker has not queued yet (all of it until remote
     * configuration says how to protect parameters); in the journal once configure has run.
     */
    private val drafts = ArrayList<Draft>()

    /** Under the drafts lock: the lines in the journal, the drafts trimmed from memory and not from it included. */
    private var journalLines = 0

    /**
     * Under the drafts lock, once configured: the drafts that left the journal (queued, or dropped
     * and counted) while its write failed, so that its file still holds them. Their ids are noted,
     * and configure leaves them out at the next launch: each event is sent or counted once
     * ([Handoff]). One the queue holds is left out on the worker, which alone reads the queue.
     */
    private lateinit var draftsHandoff: Handoff

    /**
     * Under the drafts lock: stop() calls whose drop the worker has not made yet. Meanwhile the
     * worker queues no draft: each one now was sent after a start() that followed such a stop
     * (stop() took every draft before it), and the queue that drop empties must hold only what
     * was queued before the stop. The drafts wait in the journal, queued once the drop is made.
     */
    private var stopsToDrop = 0

    /**
     * Under the drafts lock: the ids of the drafts those stop() calls took, which the journal
     * holds until their drop writes it without them, just before it tells them dropped (at the
     * next launch, with the flag set, they are dropped and told there instead, once).
     */
    private val stopsTaken = HashSet<String>()

    /**
     * Set under the drafts lock once configure has read the journal an earlier launch left. No
     * write of the journal comes before it: a sendEvent on another thread while configure runs
     * would otherwise replace that launch's events with its own, before configure reads them.
     */
    private var journalRead = false

    // Worker-thread state.
    private var initialized = false

    /**
     * The deferred deep link was handed to a listener in this process: never offered again in it.
     * Set from the hand-over, while the listener's call is posted to the main thread and the
     * device does not say delivered yet (nor will, if the process ends first), so that an offer
     * meanwhile (a listener set, start(), a switch-on) does not hand it over twice.
     */
    private var deferredHandedOver = false

    private var retryDelayMs = 0L
    private var retry: ScheduledFuture<*>? = null
    private var refresh: ScheduledFuture<*>? = null

    /** The wait before the next read of the configuration while none is known (0: the first). */
    private var configRetryDelayMs = 0L

    @Volatile private var polling = false
    private var referrerRead = false
    /** Reads of the install referrer the Play Store could not answer, in this process. */
    private var referrerTries = 0
    private var referrer: InstallReferrerDetails? = null

    /** Set once the backend refused the full install for good: only its required fields go. */
    private var minimalInstall = false

    /**
     * Set when the backend refused the install as a configuration error (401, 403, 404, or its
     * bare form): nothing is tried again until the next start or refreshConfig.
     */
    private var installBlocked = false

    /** The same for the consent route (events still go): not tried again until the next start or refreshConfig. */
    private var consentBlocked = false

    /**
     * Set at each start, each return to the foreground and by setAnonymous: the device's tracking
     * is read at the next send once the install is recorded, and sent with the consent if it
     * differs from what the backend holds. Cleared once they agree (an install sent in this
     * process carried it).
     */
    private var trackingCheckDue = false

    /**
     * The events' route refused the install's key or address (401, 403, 404): no event request
     * until the next start or refreshConfig; the events stay queued, within the bound.
     */
    private var eventsBlocked = false

    /** The same for the sessions' route: the sessions stay queued, the events go on. */
    private var sessionsBlocked = false

    /**
     * A configuration error of the install, events or sessions route was told in this process
     * since the last refreshConfig: it is told once.
     */
    private var configurationReported = false

    /**
     * The same for the consent route, kept apart: a backend without that route (an older one
     * answers it 404) still takes the events, so its refusal says nothing of theirs, and one
     * told must not leave a later refusal of the events (held until refreshConfig) unsaid.
     */
    private var consentRefusalReported = false

    /** The attribution route refused the key (401, 403): not read again until the next start or refreshConfig. */
    @Volatile private var attributionRefused = false

    /** When a session starts: this process's launch, its lifecycle, stop and start. */
    private val sessions = SessionTracker()

    /** Completed once the first attribution attempt of this process has finished, either way. */
    private val initialMatch = CompletableDeferred<Unit>()

    fun configure(
        platform: Platform,
        settings: SdkSettings,
        apiKey: String,
        logLevel: LogLevel,
        listener: InitListener?,
        customerUserId: String?,
    ) {
        val started = platform.clock()
        var sessionAtMs: Long? = null
        // What a launch that starts stopped took from the journal: counted on the worker, with the queue.
        var stoppedDrafts: Set<String> = emptySet()
        // Asked before the synchronized part: the platform's answer may take a call to the system.
        val inForeground = platform.lifecycle.isInForeground()
        synchronized(this) {
            if (configured) {
                log.info("configure was already called: this call changes nothing")
                return
            }
            this.platform = platform
            this.settings = settings
            this.apiKey = apiKey
            this.initListener = listener
            this.configureStarted = started
            log = Logger(platform.log, logLevel).also(earlyLines::replay)
            listeners.attach(platform.mainThread, log)
            api = Api(settings.baseUrl, apiKey, platform.http, platform.clock)
            // Before any key is read, the queues included: a queue restored from another
            // install's backup must not be loaded, and then sent, before it is forgotten.
            forgetRestoredBackup(platform.store, platform.journal, platform.appInstalledAt, write = ::persist)
            queue = StoredQueue(platform.eventQueue, settings.maxQueuedEvents)
            delivery = BatchDelivery(queue, "event", api::events, platform.clock, settings.maxEventAgeMs, log, listeners::reportDrop)
            sessionQueue = StoredQueue(platform.sessionQueue, settings.maxQueuedSessions, "started_at", "session_id")
            sessionJournal =
                StoredQueue(
                    LineLog.inStore(platform.journal, KEY_UNQUEUED_SESSIONS),
                    settings.maxQueuedSessions,
                    "started_at",
                    "session_id",
                    Handoff(platform.store, KEY_UNQUEUED_SESSIONS_GONE) { sessionQueue.values("session_id") },
                )
            draftsHandoff = Handoff(platform.store, KEY_DRAFTS_GONE)
            sessionDrops = SessionDrops(platform.store, log)
            sessionDelivery = BatchDelivery(sessionQueue, "session", api::sessions, platform.clock, settings.maxEventAgeMs, log, sessionDrops)
            val store = platform.store
            // configure's id, else the last setCustomerUserId before it (a clear included), else
            // the one kept from an earlier launch.
            val configureUserId = Fields.customerUserId(customerUserId)
            refusedUserId(customerUserId)?.let { log.warn("configure's customer user id $it: not kept, so that no event is refused for it") }
            keptUserId = store.get(KEY_CUSTOMER_USER_ID)
            when {
                configureUserId != null -> {
                    this.customerUserId = configureUserId
                    keepCustomerUserId(configureUserId)
                }
                userIdSetBeforeConfigure -> keepCustomerUserId(this.customerUserId)
                else -> this.customerUserId = store.get(KEY_CUSTOMER_USER_ID)
            }
            serviceId = store.get(KEY_SERVICE_ID) ?: UUID.randomUUID().toString().also {
                persist {
                    store.put(KEY_SERVICE_ID, it)
                    store.put(KEY_FIRST_OPEN, started.toString())
                }
            }
            stoppedBeforeConfigure?.let { putFlag(KEY_STOPPED, it) }
            anonymousBeforeConfigure?.let { putFlag(KEY_ANONYMOUS, it) }
            consents = ConsentState(store, platform.journal, platform.tcf, log, consentBeforeConfigure)
            tracking = DeviceTracking(store)
            if (consentBeforeConfigure != null) consents.persist()
            stopped = stoppedBeforeConfigure ?: (platform.journal.get(KEY_STOPPED) != null)
            anonymous = anonymousBeforeConfigure ?: (platform.journal.get(KEY_ANONYMOUS) != null)
            deleted = store.get(KEY_DELETED) != null
            synchronized(drafts) {
                // Events handed over in an earlier process and not queued yet come first.
                val lines = platform.drafts.read()
                val journal = DraftJson.read(lines)
                journalRead = true
                draftsLost = journal.lost
                // The oldest past the bound were trimmed from memory, and reported, as they were
                // sent: the journal keeps them until it is written whole (see appendDraft). So it
                // does those that left it while its write failed, queued or dropped and counted.
                val gone = draftsHandoff.taken()
                val kept = journal.drafts.takeLast(MAX_DRAFTS).filter { it.eventId !in gone }
                val keptIds = kept.map { it.eventId }.toSet()
                // Events sent before configure under no id of this process take the id known now.
                userIdKnown = true
                // And with no setAnonymous in this process, they were sent under the device's
                // mode, read just now: anonymous, they carry no id, whichever they were given.
                val modeReadNow = anonymousBeforeConfigure == null && anonymous
                val merged =
                    kept +
                        drafts.filter { it.eventId !in keptIds }.map(::withInheritedUserId).map { draft ->
                            if (modeReadNow) draft.copy(customerUserId = null, inheritsUserId = false, anonymous = true) else draft
                        }
                drafts.clear()
                // Stopped: what an earlier process handed over goes too, as stop() drops it; the
                // install's data deleted: the backend would ignore it. Else the bound holds for
                // the two together, the oldest past it dropped and told as sendEvent's are: a
                // launch that cannot queue them (no configuration read yet) keeps the newest.
                val overflow = (merged.size - MAX_DRAFTS).coerceAtLeast(0)
                val dropped =
                    when {
                        // Counted on the worker, which reads the queue: one the queue holds too
                        // (queued as the journal's write failed, and not noted) is counted with it.
                        stopped -> merged.also { stoppedDrafts = it.mapTo(HashSet()) { draft -> draft.eventId } }
                        deleted -> merged.also { listeners.reportDrop(DropReason.DELETED, it.size) }
                        else -> {
                            drafts.addAll(merged.drop(overflow))
                            if (overflow > 0) listeners.reportDrop(DropReason.QUEUE_FULL, overflow)
                            merged.take(overflow)
                        }
                    }
                // Written whole only when it changed: an app that sent nothing before configure,
                // with an earlier launch's events waiting, pays no write on its thread here.
                if (drafts.size == lines.size && merged.size == lines.size) {
                    journalLines = lines.size
                } else {
                    writeDrafts(dropped.map { it.eventId })
                }
            }
            listeners.keepDropCountIn(store)
            // The process's session: now in the foreground; launched in the background, at its
            // first return to the foreground; none when it starts stopped (start() then makes it).
            // The tracker is the worker's, untouched until configured is set.
            if (sessions.launch(started, inForeground, on = !stopped && !deleted)) sessionAtMs = started
            configured = true
            configureMainThreadMs = platform.clock() - started
            // Handed to the worker under the lock start() takes, with the flag as read here: a
            // start() on another thread once the lock is let go hands its own task after this one,
            // so what a stop left queued is dropped before that start sends anything, and the
            // start's session and events, queued after the drop, are never taken for the stop's.
            val startsStopped = stopped
            val session = sessionAtMs
            val leftByStop = stoppedDrafts
            worker.execute {
                listeners.reportDropsBeforeConfigure()
                reportUnreadable()
                initialize(session, startsStopped, leftByStop)
            }
        }
        platform.lifecycle.watch(
            object : LifecycleListener {
                override fun onForeground() = this@SdkCore.onForeground()

                override fun onBackground() = this@SdkCore.onBackground()
            },
        )
    }

    /** What sendEvent's journal lost when configure read it back (a damaged value); reported once, on the worker. */
    private var draftsLost: StoredLoss? = null

    /**
     * On the worker, once configured: what the values kept on the device lost when read back (a
     * damaged queue or journal), each logged at error level and counted, never silently empty.
     */
    private fun reportUnreadable() {
        listeners.reportUnreadable(queue.lostOnLoad, "the events' queue kept on the device")
        listeners.reportUnreadable(draftsLost, "the events handed to sendEvent and kept on the device")
        draftsLost = null
        sessionDrops.unreadable(sessionQueue.lostOnLoad)
        sessionDrops.unreadable(sessionJournal.lostOnLoad, "the sessions kept in the journal")
    }

    /**
     * On the worker: fetches remote configuration and starts sending, with a session that
     * started at [sessionAtMs] (configure in the foreground, or start() after a stop) if any; nothing
     * while stopped. [startsStopped]: configure found the SDK stopped, and [stoppedDrafts] are the
     * events it took from the journal then, told dropped here, each once with the queue.
     */
    private fun initialize(sessionAtMs: Long?, startsStopped: Boolean = false, stoppedDrafts: Set<String> = emptySet()) {
        if (startsStopped) {
            // What a stop in an earlier process (or before configure) did not live to drop (the
            // flag is written at once, the queue on the worker) goes now, as that stop would have
            // dropped it: decided by the flag configure read, not by the flag now, which a start()
            // made since configure let go of its lock has cleared. That start's own task, handed
            // over after this one, initializes and sends what was queued after the drop.
            dropQueued(DropReason.STOPPED, stoppedDrafts)
        }
        if (startsStopped || stopped) {
            if (stopped) log.info("the SDK is stopped: nothing is sent until start()")
            return
        }
        initialized = true
        // A start: the user may have limited ad tracking, or deleted or reset the id, since.
        trackingCheckDue = true
        val listener = initListener
        val missing = platform.device.missingPermissions()
        val refusal =
            when {
                apiKey.isBlank() -> IllegalArgumentException("apiKey must not be empty")
                settings.baseUrl.isBlank() -> IllegalStateException("the backend address (baseUrl) is not set")
                // One without its scheme would fail every request as though the device were
                // offline, retried for ever and never said.
                !isHttpAddress(settings.baseUrl) ->
                    IllegalStateException("the backend address (baseUrl) \"${settings.baseUrl}\" is not an http or https URL")
                // Refused by the app's own network security, every request would fail as though
                // the device were offline, retried for ever and never said.
                cleartextRefused(settings.baseUrl) ->
                    IllegalStateException(
                        "the backend address (baseUrl) \"${settings.baseUrl}\" is plain http, which this app's network security " +
                            "configuration does not permit (Android 9 and later refuse it by default): use https, or permit " +
                            "cleartext to its host (android:usesCleartextTraffic, or a network security configuration)",
                    )
                missing.isNotEmpty() -> SecurityException("missing permission: ${missing.joinToString()}")
                else -> null
            }
        if (refusal != null) return failInit(refusal, listener, disable = true)
        var known = true
        val fetched =
            try {
                api.config().also { platform.store.put(KEY_CONFIG, it.toJson()) }
            } catch (e: AuthenticationException) {
                return failInit(e, listener, disable = true)
            } catch (e: Exception) {
                failInit(e, listener, disable = false)
                cachedConfig() ?: RemoteConfig.PLACEHOLDER.also { known = false }
            }
        apply(fetched, sessionAtMs, known)
        log.info("initialized: ${if (fetched.enabled) "enabled" else "switched off by remote configuration"}")
        // A later start: the attribution kept on the device, told again, and its deferred deep
        // link if no listener took it yet.
        if (!disabled) {
            storedAttribution()?.let { announceAttribution(it) }
            offerDeferredDeepLink()
        }
        if (listener != null) {
            val total = platform.clock() - configureStarted
            val mainThreadMs = configureMainThreadMs
            platform.mainThread.post { runListener(log, "InitListener.onInitialized") { listener.onInitialized(mainThreadMs, total) } }
        }
    }

    private fun failInit(error: Throwable, listener: InitListener?, disable: Boolean, during: String = "initialization") {
        lastInitError = error
        log.error("$during: ${error.message}", error)
        if (disable) disable()
        if (listener != null) runListener(log, "InitListener.onError") { listener.onError(error) }
    }

    private fun cachedConfig(): RemoteConfig? =
        platform.store.get(KEY_CONFIG)?.let { runCatching { RemoteConfig.parse(it) }.getOrNull() }

    /**
     * On the worker: runs with a configuration, switching off or on as it says; with a session
     * that started at [sessionAtMs] when it leaves the SDK on (a start while off makes none).
     * [known]: the backend gave it (now or in an earlier process); false for the placeholder,
     * under which the events wait and the configuration is read again soon.
     */
    private fun apply(newConfig: RemoteConfig, sessionAtMs: Long? = null, known: Boolean = true) {
        config = newConfig
        if (known) {
            configKnown = true
            configRetryDelayMs = 0
            scheduleRefresh(TimeUnit.SECONDS.toMillis(newConfig.refreshIntervalSeconds))
        } else {
            val delayMs = nextConfigRetryMs()
            log.info("no remote configuration known yet: events wait on the device until one is read, again in $delayMs ms")
            scheduleRefresh(delayMs)
        }
        if (!newConfig.enabled) return disable()
        // Switched on again in this process (not the start's first reading, which tells them itself).
        val switchedOn = disabled && initialized
        disabled = false
        queueDrafts()
        queueSessions()
        sessionAtMs?.let(::queueSession)
        flush()
        if (switchedOn) {
            // A listener set while switched off heard nothing then: the kept attribution (once per
            // listener and map), and a deferred deep link kept for want of a listener.
            storedAttribution()?.let { announceAttribution(it) }
            offerDeferredDeepLink()
        }
    }

    /** Sends nothing from now on: what was waiting is dropped, as the app's owner asked. */
    private fun disable() {
        disabled = true
        sessions.disable()
        dropEverything(DropReason.DISABLED)
        initialMatch.complete(Unit)
    }

    /** On the worker: drops what sendEvent handed over and what is queued, reported as [reason]. */
    private fun dropEverything(reason: DropReason) = dropQueued(reason, clearDrafts())

    /** What sendEvent handed over and is not queued yet, dropped: their event ids. */
    private fun clearDrafts(): Set<String> =
        synchronized(drafts) {
            drafts.mapTo(HashSet()) { it.eventId }.also {
                drafts.clear()
                writeDrafts(it)
            }
        }

    /**
     * On the worker: drops the queues, reported as [reason] with the drafts of [draftIds], each
     * event once (a draft the worker queued while stop() took it is in both); sessions are only
     * logged and counted.
     */
    private fun dropQueued(reason: DropReason, draftIds: Set<String>) {
        val queuedIds = if (::queue.isInitialized) queue.values("event_id") else emptySet()
        val fromQueue = if (::queue.isInitialized) queue.clear() else 0
        listeners.reportDrop(reason, fromQueue + draftIds.count { it !in queuedIds })
        if (::sessionQueue.isInitialized) sessionDrops.report(reason, sessionQueue.clear() + sessionJournal.clear())
    }

    /** On the worker: the configuration read again in [delayMs]; only the last one set runs. */
    private fun scheduleRefresh(delayMs: Long) {
        refresh?.cancel(false)
        refresh = worker.schedule({ refreshQuietly() }, delayMs, TimeUnit.MILLISECONDS)
    }

    /**
     * On the worker, while no configuration is known: the wait before the next read, as the
     * retries of a send wait (delivery.json: 2 s doubling to a minute), not the placeholder's
     * interval: the events wait for it.
     */
    private fun nextConfigRetryMs(): Long {
        configRetryDelayMs =
            if (configRetryDelayMs == 0L) settings.retryDelayMs else minOf(configRetryDelayMs * 2, settings.maxRetryDelayMs)
        return waitBefore(configRetryDelayMs)
    }

    /**
     * The wait before the next attempt whose backoff is [backoffMs]: jittered, and never shorter
     * than what the backend last asked for with a `Retry-After` (delivery.json).
     */
    private fun waitBefore(backoffMs: Long): Long = maxOf(settings.jitter(backoffMs), if (::api.isInitialized) api.askedToWaitMs() else 0L)

    /**
     * On the worker: the periodic read. One that fails keeps the configuration in force and is
     * tried again after its interval, or with the retries' backoff while none is known yet; one
     * due while stopped waits for start(), which reads at once; a rejected key ends the reading
     * (the SDK is switched off).
     */
    private fun refreshQuietly() {
        if (stopped) return
        try {
            refreshOnWorker()
        } catch (e: AuthenticationException) {
            // Told and switched off in refreshOnWorker.
        } catch (e: Exception) {
            val known = config?.takeIf { configKnown }
            if (known != null) {
                log.warn("remote configuration refresh failed: ${e.message}: read again in ${known.refreshIntervalSeconds} s")
                scheduleRefresh(TimeUnit.SECONDS.toMillis(known.refreshIntervalSeconds))
            } else {
                val delayMs = nextConfigRetryMs()
                log.warn("remote configuration read failed: ${e.message}: events wait on the device, read again in $delayMs ms")
                scheduleRefresh(delayMs)
            }
        }
    }

    private fun refreshOnWorker() {
        if (stopped) {
            log.info("the SDK is stopped: remote configuration is not fetched")
            return
        }
        val fetched =
            try {
                api.config()
            } catch (e: AuthenticationException) {
                // The key rejected on GET /v1/config: switched off, and said as at initialization.
                failInit(e, initListener, disable = true, during = "remote configuration refresh")
                throw e
            }
        platform.store.put(KEY_CONFIG, fetched.toJson())
        apply(fetched)
    }

    suspend fun refreshConfig() {
        check(configured) { "configure has not been called" }
        withContext(workerDispatcher) {
            unblock()
            refreshOnWorker()
        }
    }

    fun refreshConfigAsync(): CompletableFuture<Void?> =
        onWorker {
            unblock()
            refreshOnWorker()
            null
        }

    /**
     * On the worker, for the app's refreshConfig only (never the periodic refresh): what a
     * configuration error held back is tried again, as at the next start, and told again if refused.
     */
    private fun unblock() {
        if (stopped) return
        installBlocked = false
        consentBlocked = false
        eventsBlocked = false
        sessionsBlocked = false
        configurationReported = false
        consentRefusalReported = false
        attributionRefused = false
    }

    /** Runs [block] on the worker; the future fails with IllegalStateException before configure. */
    private fun <T> onWorker(block: () -> T): CompletableFuture<T> {
        val future = CompletableFuture<T>()
        if (!configured) {
            future.completeExceptionally(IllegalStateException("configure has not been called"))
            return future
        }
        worker.execute {
            try {
                future.complete(block())
            } catch (e: Throwable) {
                future.completeExceptionally(e)
            }
        }
        return future
    }

    /** Why the service would refuse [value] as a customer user id; null for one it takes, and for none (null or blank). */
    private fun refusedUserId(value: String?): String? =
        value?.takeIf { it.isNotBlank() }?.let { Fields.customerUserIdProblem(it) }

    fun setCustomerUserId(value: String?) {
        val customerUserId = Fields.customerUserId(value)
        refusedUserId(value)?.let { log.warn("the customer user id $it: cleared, so that no event is refused for it") }
        // Under configure's lock: configure reads the id set before it, or the one kept on the
        // device, and then marks itself configured; a call in between would have its id replaced
        // in memory by the kept one, or never written. Before or after, the last call wins in
        // memory and on the device, whichever thread makes it. The lock is held only as long as
        // configure's own part on the app's thread; the write is the worker's.
        synchronized(this) {
            this.customerUserId = customerUserId
            if (!configured) {
                userIdSetBeforeConfigure = true
                // Cleared: the events sent before it keep no id from an earlier launch either.
                if (customerUserId == null) {
                    synchronized(drafts) { drafts.replaceAll { if (it.inheritsUserId) it.copy(inheritsUserId = false) else it } }
                }
                return
            }
            // Handed to the worker under the lock, so that the writes reach it in the calls' order.
            keepCustomerUserId(customerUserId)
        }
    }

    /** Whether the event was taken: sent, or kept on the device until it can be (false: not sent, ever). */
    fun sendEvent(event: EventType, name: String?, parameters: Map<String, Any?>?): Boolean {
        if (stopped || (configured && (disabled || deleted))) {
            require(event != EventType.CUSTOM || !name.isNullOrBlank()) { Drafts.CUSTOM_NAME_RULE }
            return notSent(if (stopped) SENT_WHILE_STOPPED else if (disabled) SENT_WHILE_DISABLED else SENT_WHILE_DELETED, event)
        }
        val timeMs = if (configured) platform.clock() else System.currentTimeMillis()
        // Anonymous when sent: the event never carries the id, even once anonymous mode is off,
        // and says so (read once: the id left out and the mark go together).
        // Before configure with no id set in this process, the id kept from an earlier launch
        // applies; configure reads it and fills it in.
        val anonymousNow = anonymous
        val inherits = !configured && !userIdSetBeforeConfigure && !anonymousNow
        val made =
            Drafts.create(event, name, parameters, timeMs, if (anonymousNow) null else customerUserId, log)
                ?.copy(anonymous = anonymousNow) ?: return false
        var overflow = 0
        var refused: String? = null
        val kept =
            synchronized(drafts) {
                // Read again under this lock: stop() sets the flag, then takes the drafts under it.
                // An event a stop() on another thread overtook since the check above would be
                // added after that stop took its drafts, neither dropped by it nor refused, and
                // sent after a later start(). Read here, it is either the stop's (added first,
                // told dropped with its drop) or refused as sent while stopped, once. Stopped and
                // started again since: it was sent after that start, and waits for the stop's
                // drop (see stopsToDrop). The flag is read, not this object's lock taken: stop()
                // and configure take this lock inside that one, never the other way.
                if (stopped) {
                    refused = SENT_WHILE_STOPPED
                    return@synchronized false
                }
                // So are the switch-off and the deletion, for the same reason: the worker sets
                // the flag, then empties the drafts under this lock (disable, forgetDeletedInstall,
                // through clearDrafts). An event added after that would stay in the drafts of an
                // SDK that sends nothing, told nothing, and be sent once a refresh switches it on
                // again. Neither flag is set before configure (which reads the deletion before it
                // takes this lock and drops what the journal holds), so none is read with it here:
                // an event added after that drop, before configure is marked done, is refused too.
                if (disabled || deleted) {
                    refused = if (disabled) SENT_WHILE_DISABLED else SENT_WHILE_DELETED
                    return@synchronized false
                }
                // Configure may have read the kept id since this call began.
                val draft = if (inherits) withInheritedUserId(made.copy(inheritsUserId = true)) else made
                drafts.add(draft)
                // Bounded like the queue, for an app that sends events and never configures.
                val trimmed = ArrayList<Draft>()
                while (drafts.size > MAX_DRAFTS) trimmed.add(drafts.removeAt(0))
                // On the device before sendEvent returns (once configure gave a store).
                appendDraft(draft).also { written ->
                    if (written) {
                        overflow = trimmed.size
                    } else {
                        // Not on the device, so not taken: sending it from memory would keep an
                        // event sendEvent said it did not keep. The journal is written back as it
                        // was, since SharedPreferences keep a failed commit's value in memory.
                        drafts.removeAt(drafts.lastIndex)
                        drafts.addAll(0, trimmed)
                        writeDrafts()
                    }
                }
            }
        refused?.let { return notSent(it, event) }
        if (!kept) {
            val message = "1 event lost: ${event.name} could not be written to the device, so it is not sent"
            // Counted and told on the worker, as every drop is.
            worker.execute { listeners.reportLost(1, message) }
            return false
        }
        worker.execute {
            if (overflow > 0) listeners.reportDrop(DropReason.QUEUE_FULL, overflow)
            if (config != null && !disabled && !stopped && !deleted) {
                queueDrafts()
                flush()
            }
        }
        return true
    }

    /** [event] not taken, for the reason [why]: false, sendEvent's answer. */
    private fun notSent(why: String, event: EventType): Boolean {
        // Said at the app's level once per reason in a process, so that no event goes
        // without a word, and no log fills with one line per event.
        if (notSentSaid.add(why)) log.info("$why: ${event.name} is not sent, nor any event while it is")
        else log.debug("$why: ${event.name} is not sent")
        return false
    }

    /** The customer user id an earlier launch kept, read by configure: what events sent before it were sent under. */
    @Volatile private var keptUserId: String? = null

    /** Set under the drafts lock once configure read [keptUserId]: drafts take it from then on. */
    private var userIdKnown = false

    /** Under the drafts lock: [draft] with the kept customer user id filled in, if it inherits one and it is known. */
    private fun withInheritedUserId(draft: Draft): Draft =
        if (!draft.inheritsUserId || !userIdKnown) {
            draft
        } else {
            // Anonymous mode as configure read it from the device: the mode the event was sent under.
            val anonymousNow = anonymous
            draft.copy(customerUserId = if (anonymousNow) null else keptUserId, inheritsUserId = false, anonymous = anonymousNow)
        }

    /**
     * Under the drafts lock: the journal holds what sendEvent handed over and is not queued; false
     * when the write did not reach the disk. Until configure has read the earlier launch's
     * journal (before configure, and while it runs on another thread) nothing is written: true,
     * the drafts held in memory until configure merges them after that launch's events. [left]:
     * the ids of the drafts that just left it (queued, or dropped and counted), noted when the
     * write fails, since its file still holds them ([draftsHandoff]).
     */
    private fun writeDrafts(left: Collection<String> = emptyList()): Boolean {
        if (!journalRead) return true
        val written = platform.drafts.write(drafts.map(DraftJson::line))
        if (written) {
            journalLines = drafts.size
            draftsHandoff.written()
        } else {
            draftsHandoff.left(left.toList())
        }
        return written
    }

    /**
     * Under the drafts lock, [draft] just added to [drafts]: its line added to the journal, which
     * is not written whole, so that sendEvent costs as much with a thousand events waiting as
     * with none. The oldest drafts trimmed to keep the bound stay in the journal until it is
     * written whole (configure reads the newest [MAX_DRAFTS]), at the latest once it holds twice
     * the bound. False as [writeDrafts].
     */
    private fun appendDraft(draft: Draft): Boolean {
        if (!journalRead) return true
        if (journalLines >= 2 * MAX_DRAFTS) return writeDrafts()
        return platform.drafts.append(listOf(DraftJson.line(draft))).also { if (it) journalLines++ }
    }

    /**
     * On the worker, with a configuration the backend gave: protects each draft's parameters and
     * queues it. The drafts leave the journal only once the queue holding them is on the disk:
     * a queue that could not be written leaves them there, and they are queued at the retry.
     */
    private fun queueDrafts() {
        if (!configKnown || disabled || stopped || deleted) return
        val taken =
            synchronized(drafts) {
                // A stop's drop still to come would take them with the events queued before it.
                if (stopsToDrop > 0) return
                drafts.toList()
            }
        if (taken.isEmpty()) return
        // An event the queue holds already (the write that took it out of the journal failed) is queued once.
        val queuedIds = queue.values("event_id")
        val added = taken.filter { it.eventId !in queuedIds }
        val overflow = queue.addAll(added.map(::protect))
        if (overflow == null) {
            return queueAgainAtRetry("the events' queue could not be written to the device: ${taken.size} event(s) stay in sendEvent's journal")
        }
        val ids = taken.mapTo(HashSet()) { it.eventId }
        val gone =
            synchronized(drafts) {
                // The app's thread may have taken drafts off the journal while they were written
                // to the queue: sendEvent's bound (the oldest past it) or stop(). Whoever took one
                // tells it dropped, so it must not leave from the queue as well.
                val left = drafts.mapTo(HashSet()) { it.eventId }
                drafts.removeAll { it.eventId in ids }
                writeDrafts(ids)
                ids.filterTo(HashSet()) { it !in left }
            }
        var full = overflow
        if (gone.isNotEmpty()) {
            // Of those, the ones the queue's bound dropped just now were told by whoever took
            // them: not told again as the bound's.
            val queuedNow = queue.values("event_id")
            full -= added.count { it.eventId in gone && it.eventId !in queuedNow }
            queue.removeIds(gone)
        }
        if (full > 0) listeners.reportDrop(DropReason.QUEUE_FULL, full)
    }

    /** On the worker: the event to queue for [draft], its matching parameters protected as the configuration says. */
    private fun protect(draft: Draft): Map<String, Any?> {
        val encryption = config?.encryption ?: Encryption.Off
        val sealer = (encryption as? Encryption.On)?.let { Sealer(it.keyId, it.publicKey) }
        val pii = Pii { plaintext -> sealer?.seal(plaintext.toByteArray(Charsets.UTF_8)) }
        val protected = pii.protect(draft.parameters, encryption)
        if (protected.dropped.isNotEmpty()) {
            log.warn("${draft.type.name}: matching parameters with no usable value were left out: ${protected.dropped.joinToString()}")
        }
        var parameters = protected.parameters
        if (sealer != null && wrapper?.sealsCustomValues == true) {
            val sealed = CustomValues.seal(parameters, encryption.clearKeys) { sealer.seal(it.toByteArray(Charsets.UTF_8)) }
            if (sealed.dropped.isNotEmpty()) {
                log.warn("${draft.type.name}: values too long to send sealed were left out: ${sealed.dropped.joinToString()}")
            }
            parameters = sealed.parameters
        }
        return Requests.event(draft, parameters, serviceId!!)
    }

    /**
     * On the worker: the install first, then a changed consent, then the queued sessions (a
     * request or so, never behind a backlog of events), then the queued events; each in order,
     * 100 a request.
     */
    private fun flush() {
        try {
            flushOnce()
        } catch (e: RuntimeException) {
            // Some network stacks throw what is no IOException (a SecurityException, an
            // IllegalStateException of a vendor's build): an attempt that failed all the same,
            // tried again, rather than a worker task ended without a word and no retry after it.
            log.warn("sending failed: $e")
            if (retry == null && !disabled && !stopped && !deleted) scheduleRetry(e, warn = true)
        }
    }

    private fun flushOnce() {
        if (disabled || stopped || deleted || installBlocked || retry != null || !initialized) return
        if (!ensureInstall()) {
            if (!disabled && !installBlocked) scheduleRetry()
            return
        }
        // Stopped (an opt-out) or switched off while the install was on its way: nothing more goes.
        if (disabled || stopped || deleted) return
        if (!ensureConsent()) return scheduleRetry()
        if (!sessionsBlocked && !sendAll(sessionDelivery)) return
        // Anonymous when it leaves: no customer user id, whatever the event was sent with, and marked.
        if (!eventsBlocked && !sendAll(delivery) { event -> if (anonymous) Requests.anonymous(event) else event }) return
        retryDelayMs = 0
    }

    /** On the worker: sends [delivery]'s queue to its end; false when it stopped short (a retry is scheduled, or the SDK is off). */
    private fun sendAll(delivery: BatchDelivery, prepare: ((Map<String, Any?>) -> Map<String, Any?>)? = null): Boolean {
        while (!disabled && !stopped) {
            when (val result = delivery.sendNext(prepare)) {
                BatchDelivery.Result.Empty -> return true
                BatchDelivery.Result.Sent -> continue
                is BatchDelivery.Result.RouteRefused -> {
                    // The key or the address is wrong, not the items: they stay queued.
                    if (delivery === sessionDelivery) {
                        sessionsBlocked = true
                        configurationError(result.code, "the backend refused the sessions (${result.cause.message}): sessions stay queued, events go on")
                        return true
                    }
                    eventsBlocked = true
                    configurationError(result.code, "the backend refused the events (${result.cause.message}): events stay queued")
                    return false
                }
                BatchDelivery.Result.InstallMissing -> {
                    platform.store.remove(KEY_INSTALL_TRACKED)
                    scheduleRetry()
                    return false
                }
                BatchDelivery.Result.InstallDeleted -> {
                    forgetDeletedInstall("the backend says the install's data was deleted")
                    return false
                }
                is BatchDelivery.Result.Retry -> {
                    scheduleRetry(result.cause, result.warn)
                    return false
                }
            }
        }
        return true
    }

    /**
     * On the worker: a session that started at [atMs], queued to be sent; none while stopped or
     * switched off. Only what is on the device is sent, as for events: a session the queue's file
     * cannot take waits in the journal, and one neither file takes is lost, logged and counted.
     */
    private fun queueSession(atMs: Long) {
        if (disabled || stopped || deleted) return
        val session = Requests.session(UUID.randomUUID().toString(), serviceId!!, atMs)
        log.debug("session started at ${Requests.iso(atMs)}")
        // Those waiting in the journal first: the sessions leave in the order they started.
        queueSessions()
        if (sessionJournal.size == 0) {
            val overflow = sessionQueue.addAll(listOf(session))
            if (overflow != null) return sessionDrops.report(DropReason.QUEUE_FULL, overflow)
        }
        val overflow = sessionJournal.addAll(listOf(session))
        if (overflow == null) {
            // Held in memory only, a process Android ends in the background would lose it without
            // a word: lost now, and said so.
            sessionDrops.lost(1, "1 session lost: it started at ${Requests.iso(atMs)} and could not be written to the device")
            return
        }
        sessionDrops.report(DropReason.QUEUE_FULL, overflow)
        queueAgainAtRetry("the sessions' queue could not be written to the device: ${sessionJournal.size} session(s) wait in the journal")
    }

    /**
     * On the worker: the sessions waiting in the journal moved to the queue. They leave the
     * journal only once the queue holding them is on the disk: a queue that could not be written
     * leaves them there, and they are queued at the retry.
     */
    private fun queueSessions() {
        if (sessionJournal.size == 0 || disabled || stopped) return
        // Kept by a process that died before it learned of the deletion: the backend would ignore them.
        if (deleted) return sessionDrops.report(DropReason.DELETED, sessionJournal.clear())
        val waiting = sessionJournal.peek(sessionJournal.size)
        // A session the queue holds already (the write that took it out of the journal failed) is queued once.
        val queuedIds = sessionQueue.values("session_id")
        val overflow = sessionQueue.addAll(waiting.filter { it["session_id"] !in queuedIds })
        if (overflow == null) {
            return queueAgainAtRetry("the sessions' queue could not be written to the device: ${waiting.size} session(s) stay in the journal")
        }
        sessionJournal.clear()
        sessionDrops.report(DropReason.QUEUE_FULL, overflow)
    }

    /** On the worker: a queue's write failed, [why]; what it was to take is queued again at the retry. */
    private fun queueAgainAtRetry(why: String) {
        if (retry == null) scheduleRetry(warn = true, why = why) else log.warn("$why until the retry")
    }

    /**
     * The app came (back) to the foreground (any thread): a session when it was away at least the
     * session interval, or when the process was launched (or started again) in the background;
     * and the device's tracking checked again at the next send, however short the stay away.
     */
    fun onForeground() {
        if (!configured) return
        val at = platform.clock()
        worker.execute {
            val interval = config?.sessionIntervalSeconds ?: RemoteConfig.DEFAULT_SESSION_INTERVAL_SECONDS
            // Any return from the background, however soon: the user may have limited ad
            // tracking, or deleted or reset the id, in the Settings app meanwhile, and the next
            // events must not leave before the backend is told. The id is read at the next send
            // (before what it sends), not here: a return that sends nothing reads nothing. A
            // second report of the same stay in the foreground is no return.
            if (!sessions.inForeground) trackingCheckDue = true
            // Queued even before initialize ran (configure off the main thread, an activity
            // started meanwhile): sent once it has; none while stopped or switched off.
            if (sessions.foreground(at, interval)) {
                queueSession(at)
                flush()
            }
        }
    }

    /**
     * The app went to the background (any thread): the time kept for the return, and what is
     * queued sent now, on the worker, rather than at a retry's time. Android may end a process
     * in the background at any moment: what waits for a retry there may wait for the next launch.
     */
    fun onBackground() {
        if (!configured) return
        val at = platform.clock()
        worker.execute {
            sessions.background(at)
            sendInTheBackground()
        }
    }

    /**
     * On the worker: sends now when the install is recorded, events or sessions are queued and
     * the SDK may send. A retry waiting is made void, as its work is done here; the backoff it
     * reached is kept, so a send that fails again waits longer.
     *
     * While the install itself is not recorded, its waiting retry is left alone: sending it now
     * would read the Play install referrer again, and a user leaving and returning a few times
     * on a first launch would use up its [MAX_REFERRER_TRIES] reads within seconds, the install
     * then going without its referrer.
     */
    private fun sendInTheBackground() {
        if (!initialized || disabled || stopped || deleted) return
        queueDrafts()
        queueSessions()
        if (platform.store.get(KEY_INSTALL_TRACKED) == null) return
        if (queue.size == 0 && sessionQueue.size == 0) return
        // The backend asked to be left alone for a while (a Retry-After): its retry keeps its time.
        if (api.askedToWaitMs() > 0) return
        log.debug("the app went to the background: what is queued is sent now")
        retry?.cancel(false)
        retry = null
        flush()
    }

    private fun scheduleRetry(
        cause: Exception? = null,
        warn: Boolean = false,
        why: String = "backend not reachable (${cause?.message ?: "install pending"})",
    ) {
        retryDelayMs = if (retryDelayMs == 0L) settings.retryDelayMs else minOf(retryDelayMs * 2, settings.maxRetryDelayMs)
        val waitMs = waitBefore(retryDelayMs)
        val message = "$why: retrying in $waitMs ms" + if (waitMs > retryDelayMs) ", as the backend asked (Retry-After)" else ""
        if (warn) log.warn(message) else log.info(message)
        retry = worker.schedule({
            retry = null
            // Drafts and sessions a failed write of their queue left in the journal are queued now.
            queueDrafts()
            queueSessions()
            flush()
        }, waitMs, TimeUnit.MILLISECONDS)
    }

    /** On the worker: reports the first open once per install; true once it is recorded. */
    private fun ensureInstall(): Boolean {
        if (platform.store.get(KEY_INSTALL_TRACKED) != null) {
            installRecorded()
            startPolling()
            return true
        }
        val consentSent = consents.current()
        val body =
            try {
                Requests.install(
                    wrapper = wrapper,
                    serviceId = serviceId!!,
                    firstOpenMs = platform.store.get(KEY_FIRST_OPEN)?.toLongOrNull() ?: platform.clock(),
                    sentAtMs = platform.clock(),
                    device = platform.device,
                    advertisingId = if (anonymous) null else advertisingId(),
                    referrer = installReferrer(),
                    openUrl = openUrl,
                    customerUserId = if (anonymous) null else customerUserId,
                    consent = consentSent,
                    anonymous = anonymous,
                )
            } catch (e: ReferrerUnavailableException) {
                log.info("the Play Store's install referrer is not available yet (${e.message}): the install waits for it")
                return false
            } catch (e: RuntimeException) {
                log.error("device signals failed", e)
                return false
            }
        return try {
            api.install(if (minimalInstall) Requests.minimalInstall(body, platform.clock()) else body)
            platform.store.put(KEY_INSTALL_TRACKED, "1")
            installRecorded()
            // The consent the backend now holds; the bare install holds none.
            if (consentSent != null && !minimalInstall) consents.markSent(consentSent)
            // And the tracking, as the device gave it just now: nothing to compare in this
            // process; but the bare install held none of it, so an id the device has goes in an
            // update now.
            tracking.markSent(Requests.tracking(if (minimalInstall) null else body["maid"] as String?))
            trackingCheckDue = minimalInstall
            log.info("install recorded")
            startPolling()
            true
        } catch (e: AuthenticationException) {
            installBlocked = true
            configurationError(e.code, "the backend refused the install (${e.message}): check the API key")
            false
        } catch (e: HttpException) {
            when {
                e.code == 404 -> {
                    installBlocked = true
                    configurationError(e.code, "the backend refused the install (${e.message}): check the backend address")
                }
                refusedForGood(e.code) && !minimalInstall -> {
                    // The same body would be refused forever, and every event waits on the install.
                    log.warn("install refused by the backend (${e.message}): sent again with its required fields only")
                    minimalInstall = true
                    return ensureInstall()
                }
                refusedForGood(e.code) -> {
                    installBlocked = true
                    configurationError(e.code, "the backend refused the install's required fields (${e.message})")
                }
                else -> {
                    log.warn("install not recorded yet: ${e.message}")
                    initialMatch.complete(Unit)
                }
            }
            false
        } catch (e: Exception) {
            if (e is UnexpectedAnswerException) log.warn("install: ${e.message}") else log.warn("install not recorded yet: ${e.message}")
            // An attempt was made and did not resolve: a reader sees `failed` until the retry.
            initialMatch.complete(Unit)
            false
        }
    }

    /**
     * A route refused the install's key or address (the install, events, sessions, consent; the
     * caller holds that route back): logged at error level and told to the error listener once
     * until refreshConfig (the consent route's once of its own); not tried again until the next
     * start or refreshConfig. Queued events stay on the device.
     */
    private fun configurationError(code: Int, message: String, consentRoute: Boolean = false) {
        if (consentRoute) consentBlocked = true
        initialMatch.complete(Unit)
        // Once: a wrong key or address refuses every route alike, and is one error to fix. The
        // consent route alone may be missing (an older backend) while the others work: its
        // refusal is told apart, and hides no later one of the events.
        if (consentRoute) {
            if (consentRefusalReported) return
            consentRefusalReported = true
        } else {
            if (configurationReported) return
            configurationReported = true
        }
        log.error("$message: not tried again until the next start or refreshConfig")
        listeners.tell(ServiceError(ServiceErrorKind.CONFIGURATION, null, code, 1, message))
    }

    /**
     * On the worker, the install recorded: sends the consent update when the consent changed
     * since last sent, or when the device's tracking, read after a start, a return to the
     * foreground or setAnonymous, differs from what the backend holds (docs/api.md#consent);
     * each update carries both as they now stand. False when it is to be sent again later
     * (events wait for it, as the install's retry): they then go after it, so the backend no
     * longer gives them an id the user withdrew.
     */
    private fun ensureConsent(): Boolean {
        if (consentBlocked) return true
        val consent = consents.update()
        if (!consent.changed && !trackingCheckDue) return true
        // Read only when an update may go: the advertising id is a call to Play services.
        val now = readTracking()
        if (!consent.changed && (now == null || !tracking.differs(now))) {
            trackingCheckDue = false
            return true
        }
        // Unreadable now: what the backend holds, so that a failed read withdraws no id; left
        // out when that is unknown too (the backend then keeps what it has).
        val device = now ?: tracking.sent()
        val body = consent.body
        return try {
            api.consent(serviceId!!, body, device, platform.clock())
            markUpdateSent(body, device)
            log.info(if (consent.changed) "consent sent" else "device tracking sent: advertising id ${if (device?.get("maid") == null) "none" else "given"}")
            true
        } catch (e: AuthenticationException) {
            configurationError(e.code, "the backend refused the consent update (${e.message})", consentRoute = true)
            true
        } catch (e: HttpException) {
            when {
                e.code == 404 -> {
                    configurationError(e.code, "the backend refused the consent update (${e.message})", consentRoute = true)
                    true
                }
                e.code == 409 -> {
                    // The backend holds no install of this id (never recorded, or lost): as its
                    // answer asks, the install is sent again, holding the consent, before the events.
                    log.warn("consent update: the backend has no install $serviceId: the install is sent again")
                    platform.store.remove(KEY_INSTALL_TRACKED)
                    false
                }
                refusedForGood(e.code) -> {
                    // The same body would be refused again: not sent again until the consent or
                    // the tracking changes.
                    log.error("consent update refused by the backend (${e.message})")
                    markUpdateSent(body, device)
                    true
                }
                else -> false
            }
        } catch (e: UnexpectedAnswerException) {
            log.warn("consent update: ${e.message}")
            false
        } catch (e: IOException) {
            false
        }
    }

    /** On the worker: the backend holds [consent] and [device] now, or refused them for good. */
    private fun markUpdateSent(consent: Map<String, Any?>, device: Map<String, Any?>?) {
        consents.markSent(consent)
        device?.let(tracking::markSent)
        trackingCheckDue = false
    }

    /**
     * On the worker: the device's tracking as it now stands (the consent route's `device`), read
     * as the install reads it: no advertising id with ad tracking limited, nor in anonymous mode
     * (not even read), nor in an app built without the ads identifier library. Null when Play
     * services could not give it now (not connected, not on the device): no answer is no
     * withdrawal of the id, and the install, which read it the same way, sent none then either.
     */
    private fun readTracking(): Map<String, Any?>? {
        if (anonymous) return Requests.tracking(null)
        return try {
            Requests.tracking(platform.device.advertisingId())
        } catch (e: LinkageError) {
            // Warned at the install, which went without the id for the same reason.
            log.debug("the ads identifier library is missing (${e.message}): no advertising id")
            Requests.tracking(null)
        } catch (e: Exception) {
            log.debug("the advertising id is not readable now (${e.message}): what the backend holds stands")
            null
        }
    }

    /**
     * On the worker: the Play install referrer, read until the Play Store answers. Throws
     * [ReferrerUnavailableException] while it cannot answer, so that the install waits for its
     * retry; after [MAX_REFERRER_TRIES] such answers the install goes without it.
     */
    private fun installReferrer(): InstallReferrerDetails? {
        if (!referrerRead) {
            referrer =
                try {
                    platform.installReferrer.fetch()
                } catch (e: ReferrerUnavailableException) {
                    if (++referrerTries < MAX_REFERRER_TRIES) throw e
                    log.warn("install referrer unavailable $referrerTries times (${e.message}): the install is sent without it")
                    null
                } catch (e: LinkageError) {
                    // NoClassDefFoundError: the app ships without the Play install referrer library.
                    log.warn("the Play install referrer library is missing (${e.message}): the install is sent without its referrer")
                    null
                } catch (e: Exception) {
                    log.warn("install referrer unavailable: ${e.message}")
                    null
                }
            referrerRead = true
        }
        return referrer
    }

    /** The advertising id, or null: without consent, Play services or its library. */
    private fun advertisingId(): String? =
        try {
            platform.device.advertisingId()
        } catch (e: LinkageError) {
            log.warn("the ads identifier library is missing (${e.message}): the install is sent without the advertising id")
            null
        } catch (e: Exception) {
            log.debug("no advertising id: ${e.message}")
            null
        }

    /** Reads the install's attribution until it resolves; `failed` and errors are tried again. */
    private fun startPolling() {
        if (polling || attributionRefused) return
        if (storedAttribution() != null) {
            initialMatch.complete(Unit)
            return
        }
        // A kept value that is no settled answer (a write cut short) is dropped: asked again.
        platform.store.remove(KEY_ATTRIBUTION)
        polling = true
        poller.execute { poll(settings.retryDelayMs) }
    }

    private fun poll(delayMs: Long) {
        if (disabled || deleted || stopped) {
            polling = false
            return
        }
        val id = serviceId ?: return
        val next =
            try {
                val answer = api.attribution(id, settings.attributionWaitSeconds)
                val status = answer[MATCH_STATUS]
                if (status in SETTLED_STATUSES) {
                    worker.execute { resolved(answer) }
                    log.info("attribution resolved: $status")
                    return
                }
                // Pending (an empty map: the backend waited already), failed, not_configured (the
                // app switched off for now) or not of the contract: asked again later, never at once,
                // and nothing kept, so a later launch asks too.
                if (answer.isEmpty()) {
                    log.debug("attribution pending: asking again in $delayMs ms")
                } else if (status == null) {
                    log.warn("attribution: an answer without $MATCH_STATUS: asking again in $delayMs ms")
                } else {
                    log.info("attribution not resolved ($status): asking again in $delayMs ms")
                }
                initialMatch.complete(Unit)
                delayMs
            } catch (e: HttpException) {
                if (e.code == 404) {
                    log.warn("the backend knows no install $id: attribution stops until the install is reported again")
                    // Reporting it again (an event's Conflict) starts the reads anew.
                    polling = false
                    initialMatch.complete(Unit)
                    return
                }
                initialMatch.complete(Unit)
                delayMs
            } catch (e: AuthenticationException) {
                // The key is not the attribution route's: the rest of the SDK meets its own answer.
                log.error("reading the attribution: the API key was rejected (${e.message}): not read again until the next start or refreshConfig")
                attributionRefused = true
                polling = false
                initialMatch.complete(Unit)
                return
            } catch (e: Exception) {
                if (e is UnexpectedAnswerException) log.warn("attribution: ${e.message}")
                initialMatch.complete(Unit)
                delayMs
            }
        poller.schedule({ poll(minOf(delayMs * 2, settings.maxRetryDelayMs)) }, waitBefore(next), TimeUnit.MILLISECONDS)
    }

    /** On the worker: the attribution resolved; kept, told, and its deferred deep link delivered once per install. */
    private fun resolved(answer: Map<String, String>) {
        if (!disabled && !deleted && !stopped) {
            platform.store.put(KEY_ATTRIBUTION, Json.write(answer))
            announceAttribution(answer)
            offerDeferredDeepLink()
        } else {
            // Not kept: asked again when the SDK is started or switched on again.
            polling = false
        }
        initialMatch.complete(Unit)
    }

    /**
     * On the worker: the deferred deep link of the stored attribution, to the deep-link listener,
     * once per install. With no listener set, it stays on the device (the attribution holds it)
     * for one set later, in this process or a later one, rather than wait in memory among the
     * direct links, which a process ending loses. Marked delivered on the device only once the
     * listener's call ran on the main thread ([deferredDeepLinkRan]): a process killed with the
     * call still posted offers it again at the next launch. [deferredHandedOver] keeps it from a
     * second hand-over in this process meanwhile.
     */
    private fun offerDeferredDeepLink() {
        if (disabled || deleted || stopped || deferredHandedOver) return
        val answer = storedAttribution() ?: return
        val path = answer[DEEP_LINK_PATH]
        if (path.isNullOrEmpty() || platform.store.get(KEY_DEFERRED_DELIVERED) != null) return
        val link = DeepLink(DeepLinkKind.DEFERRED, null, path, answer.filterKeys { it !in ATTRIBUTION_KEYS }, null)
        // Set before the hand-over: the listener may have the link (on the main thread) before
        // tryDeliverDeepLink returns.
        deferredHandedOver = true
        if (!listeners.tryDeliverDeepLink(link, ::deferredDeepLinkRan)) {
            deferredHandedOver = false
            log.debug("deferred deep link $path: kept until a deep-link listener is set")
        }
    }

    /**
     * On the main thread, once the deep-link listener's call with the deferred deep link returned:
     * the link is marked delivered on the device, by the worker, where the SDK's writes are made
     * (commit() blocks). Marked even if the SDK was stopped or switched off since: the app has it.
     */
    private fun deferredDeepLinkRan() {
        try {
            worker.execute { platform.store.put(KEY_DEFERRED_DELIVERED, "1") }
        } catch (e: RejectedExecutionException) {
            // The SDK's threads have ended (the instance closed): nothing marks it, and the next
            // launch offers the link again.
            log.debug("deferred deep link: not marked delivered, the SDK's worker has ended")
        }
    }

    /** The attribution kept on the device: only a settled one (matched, matched_no_params, organic, skipped). */
    private fun storedAttribution(): Map<String, String>? =
        platform.store.get(KEY_ATTRIBUTION)?.let { text ->
            runCatching { Json.parseObject(text).mapNotNull { (k, v) -> (v as? String)?.let { k to it } }.toMap() }.getOrNull()
        }?.takeIf { it[MATCH_STATUS] in SETTLED_STATUSES }

    /** On the worker: tells the attribution listener [map], once per listener and map in this process. */
    private fun announceAttribution(map: Map<String, String>) {
        if (stopped || disabled || deleted) return
        listeners.announceAttribution(map)
    }

    fun setAttributionListener(listener: AttributionListener?) {
        listeners.attribution = listener
        if (listener != null && configured) {
            worker.execute { if (initialized) storedAttribution()?.let { announceAttribution(it) } }
        }
    }

    fun setDeepLinkListener(listener: DeepLinkListener?) {
        listeners.setDeepLinkListener(listener)
        // A deferred deep link kept for want of a listener: this one gets it.
        if (listener != null && configured) worker.execute { if (initialized) offerDeferredDeepLink() }
    }

    fun setErrorListener(listener: ErrorListener?) {
        listeners.error = listener
    }

    private fun deliverDeepLink(link: DeepLink) = listeners.deliverDeepLink(link)

    /**
     * A link that opened the app, from any scheme: delivered to the deep-link listener as a
     * direct deep link. An http(s) link of the link host gives its deeplinkId and is the
     * install's `open_url`; a custom scheme's (`myapp://…`, or `myapp:…` without `//`) has none.
     * Null for text that is no link (nothing delivered).
     */
    fun handleDeepLink(url: String): DeepLink? {
        val text = url.trim()
        val match = ANY_LINK.matchEntire(text) ?: return null
        val scheme = match.groupValues[1].lowercase()
        val link =
            if (scheme == "http" || scheme == "https") {
                val parsed = LinkParser.parse(text, LinkOptions()) ?: return null
                noteOpenUrl(url)
                directLink(parsed, url)
            } else {
                directLink(ParsedLink(null, LinkParser.query(match.groupValues[2])), url)
            }
        deliverDeepLink(link)
        return link
    }

    /** handleAppLink parsed [parsed] from [url]: delivered as a direct deep link. */
    fun deliverAppLink(parsed: ParsedLink, url: String) = deliverDeepLink(directLink(parsed, url))

    /**
     * An empty `deep_link_path` (`?deep_link_path=`) gives no path: it is no place to go (an app's
     * `link.path?.let { navigate(it) }` would navigate to ""), as an empty one in the attribution
     * gives no deferred deep link; the iOS SDK gives none for it either.
     */
    private fun directLink(parsed: ParsedLink, url: String) =
        DeepLink(DeepLinkKind.DIRECT, parsed.deeplinkId, parsed.queryParams[DEEP_LINK_PATH]?.ifEmpty { null }, parsed.queryParams, url)

    /** Stops sending: what is queued is dropped (reason `stopped`), nothing is sent or queued until start(); kept on the device. */
    fun stop() {
        synchronized(this) {
            stopped = true
            if (!configured) {
                stoppedBeforeConfigure = true
                writeEarly { putFlag(it, KEY_STOPPED, true) }
                val count = synchronized(drafts) { drafts.size.also { drafts.clear() } }
                if (count > 0) listeners.reportDrop(DropReason.STOPPED, count)
                return
            }
            // On the device before stop() returns (the journal, as an event sendEvent takes), not
            // behind the worker's requests (a read of the configuration, an install: tens of
            // seconds on a slow network): an opt-out the app is killed just after is still one at
            // the next launch.
            putFlag(KEY_STOPPED, true)
            // The drafts now, not on the worker, and under the lock start() takes, as the flag is
            // set: an event sent after a start() that follows at once, on this thread or another,
            // is not the stop's to drop. The queue only takes drafts on the worker, so it waits
            // there, and takes no draft until then (see stopsToDrop). Taken from memory here; the
            // journal keeps them until the drop is made (see stopsTaken).
            val fromDrafts =
                synchronized(drafts) {
                    stopsToDrop++
                    drafts.mapTo(HashSet()) { it.eventId }.also {
                        drafts.clear()
                        stopsTaken.addAll(it)
                    }
                }
            // Handed to the worker under the lock too: a start() that follows hands its own task
            // (its session, its sends) after this drop, never before it, which would send what
            // the stop drops, and have the drop take the start's session as the stop's.
            worker.execute {
                sessions.stop()
                retry?.cancel(false)
                retry = null
                retryDelayMs = 0
                // The journal written whole, without the drafts the stop took, before the drop
                // is told: a process that dies once it is told leaves no draft of it for the
                // next launch, which finds the flag set and would drop and tell it again; one
                // that dies before leaves them all, dropped and told once, there. Written from
                // memory, it keeps any event sendEvent took since, after a start() that followed.
                synchronized(drafts) {
                    writeDrafts(fromDrafts)
                    stopsTaken.removeAll(fromDrafts)
                }
                dropQueued(DropReason.STOPPED, fromDrafts)
                synchronized(drafts) { stopsToDrop-- }
                initialMatch.complete(Unit)
            }
        }
        log.info("stopped: nothing is sent until start()")
    }

    /**
     * Sends again after [stop]: the install if it was never sent, and what is sent from now on.
     * Called while not stopped (an app calling it at every resume), it changes nothing and makes
     * no request.
     */
    fun start() {
        val wasStopped: Boolean
        synchronized(this) {
            wasStopped = stopped
            stopped = false
            if (!configured) {
                stoppedBeforeConfigure = false
                writeEarly { putFlag(it, KEY_STOPPED, false) }
                return
            }
            putFlag(KEY_STOPPED, false)
        }
        if (wasStopped) {
            // A stop's drop the worker has not made yet: the journal still holds what that stop
            // took, and the flag no longer says to drop it, so a process killed before the drop
            // would send it at the next launch. Written whole from memory now, without them (the
            // drop tells them), once the lock is let go, as no call of the app's waits for it.
            synchronized(drafts) { if (stopsTaken.isNotEmpty()) writeDrafts(stopsTaken.toList()) }
        }
        if (wasStopped) log.info("started") else log.debug("start(): the SDK was not stopped, nothing changes")
        // Started again after a stop: a session, as at a process's start (in the background, at
        // the next return to the foreground).
        val at = platform.clock()
        worker.execute {
            if (stopped) return@execute
            val sessionAtMs = if (wasStopped && sessions.restart()) at else null
            if (!initialized) {
                initialize(sessionAtMs)
            } else if (wasStopped) {
                trackingCheckDue = true
                // A read that fell due while stopped was skipped: the configuration is read now.
                refreshQuietly()
                queueDrafts()
                sessionAtMs?.let(::queueSession)
                flush()
                // What a listener set while stopped was not told: the attribution, and a
                // deferred deep link kept for want of one.
                storedAttribution()?.let(::announceAttribution)
                offerDeferredDeepLink()
            }
        }
    }

    fun isStopped(): Boolean = stopped

    /** Anonymous: no advertising id and no customer user id leave the device; kept on the device. */
    fun setAnonymous(anonymous: Boolean) {
        synchronized(this) {
            this.anonymous = anonymous
            if (!configured) {
                anonymousBeforeConfigure = anonymous
                writeEarly { putFlag(it, KEY_ANONYMOUS, anonymous) }
                return
            }
            // As stop(): on the device when it returns.
            putFlag(KEY_ANONYMOUS, anonymous)
        }
        // The mode gives the advertising id or withholds it: once the install is recorded, the
        // backend is told of the change (none while it is not: the install will carry the mode).
        worker.execute {
            trackingCheckDue = true
            flush()
        }
    }

    fun isAnonymous(): Boolean = anonymous

    /** Keeps [consent] on the device; sent on the install, or through the consent route once it is recorded. */
    fun setConsent(consent: Consent) {
        synchronized(this) {
            if (!configured) {
                consentBeforeConfigure = consent
                writeEarly { ConsentState.keep(it, consent) }
                return
            }
            consents.set(consent)
            // As stop(): on the device when it returns, then sent by the worker.
            consents.persist()
        }
        worker.execute { flush() }
    }

    fun getDroppedEventCount(): Long {
        // Before configure: the count earlier launches kept on the device, where configure
        // reads it, besides this process's drops so far.
        val kept =
            synchronized(this) {
                if (configured) {
                    0L
                } else {
                    try {
                        earlyStorage()?.store?.get(ListenerDispatch.KEY_DROPPED)?.toLongOrNull() ?: 0L
                    } catch (e: RuntimeException) {
                        log.warn("could not read the device before configure: ${e.message}")
                        0L
                    }
                }
            }
        return listeners.droppedEventCount(keptOnDevice = kept)
    }

    /**
     * Writes to the store on the worker: each write is on disk when it returns (commit() on
     * Android), which the app's thread, the main one most often, must not wait for. What the
     * public calls change is in memory at once; the worker runs these in order, before what it
     * is handed later.
     */
    private fun persist(write: () -> Unit) = worker.execute(write)

    /**
     * The customer user id kept on the device, written on the worker: none once the install's
     * data is deleted, as it went with the data (the worker orders this after [forgetDeletedInstall]
     * or before it, and the stored mark covers a configure whose flag is not read yet).
     */
    private fun keepCustomerUserId(id: String?) = persist {
        val store = platform.store
        if (id == null || deleted || store.get(KEY_DELETED) != null) {
            store.remove(KEY_CUSTOMER_USER_ID)
        } else {
            store.put(KEY_CUSTOMER_USER_ID, id)
        }
    }

    /**
     * Android's backups (Auto Backup, the transfer to a new phone) bring this SDK's keys to
     * another install of the app: the old one's service id, its install sent, its stop or
     * deletion (not its queues and sendEvent's events, in files kept out of backups on Android).
     * Another install has another first install time: its keys then go, and it is a
     * new install, as it is to the app's owner (Android gives no IDFV to call it a reinstall).
     * Before any key is read; the install time kept through [write] (behind, on the worker, at
     * configure; at once before it).
     */
    private fun forgetRestoredBackup(store: KeyValueStore, journal: KeyValueStore, appInstalledAt: Long?, write: (() -> Unit) -> Unit) {
        val installedAt = appInstalledAt?.toString() ?: return
        val kept = store.get(KEY_APP_INSTALLED_AT)
        if (kept == installedAt) return
        if (kept != null) {
            log.info(BACKUP_FORGOTTEN)
            store.clear()
            journal.clear()
        }
        write { store.put(KEY_APP_INSTALLED_AT, installedAt) }
    }

    /**
     * Called by the platform as the app's process starts, before configure: where the calls
     * made before configure are written (read only at the first such call, so that a process
     * that makes none reads nothing).
     */
    fun useEarlyStorage(source: () -> EarlyStorage) {
        synchronized(this) { if (!configured) earlySource = source }
    }

    /** Whether the platform gave where the calls before configure are written. */
    internal fun hasEarlyStorage(): Boolean = synchronized(this) { earlySource != null || early != null }

    /**
     * Under this object's lock, before configure: a stop, start, anonymous mode or consent
     * written to the journal configure reads before the call returns, so that an app killed
     * before configure keeps the user's choice. The first such write checks for a restored
     * backup first, as configure would, so that configure then keeps what is written here.
     * Configure writes each again from memory either way.
     */
    private fun writeEarly(write: (journal: KeyValueStore) -> Unit) {
        try {
            val storage = earlyStorage() ?: return
            write(storage.journal)
        } catch (e: RuntimeException) {
            // The storage failing here costs only durability: the call holds in memory until configure.
            log.warn("could not write to the device before configure: ${e.message}")
        }
    }

    /**
     * Under this object's lock, before configure: the storage the platform gave, opened at its
     * first use, which checks for a restored backup first, as configure would; null without one.
     */
    private fun earlyStorage(): EarlyStorage? =
        early ?: earlySource?.let { source ->
            source().also {
                early = it
                earlySource = null
                forgetRestoredBackup(it.store, it.journal, it.appInstalledAt(), write = { put -> put() })
            }
        }

    /** A flag of the public calls, in the journal before the call returns. */
    private fun putFlag(key: String, on: Boolean) = putFlag(platform.journal, key, on)

    private fun putFlag(journal: KeyValueStore, key: String, on: Boolean) {
        if (on) journal.put(key, "1") else journal.remove(key)
    }

    /**
     * The attribution known now, without `service_match_status`, which Android does not send
     * (docs/attribution.md#results): empty when nothing is known. [rawReferrer]'s parameters
     * fill in what the backend's answer does not hold.
     */
    fun getAttributionParams(rawReferrer: String?): Map<String, String> {
        if (!configured || disabled) return emptyMap()
        val cached = storedAttribution().orEmpty()
        val params = LinkedHashMap<String, String>()
        if (!rawReferrer.isNullOrBlank()) {
            params.putAll(LinkParser.query(rawReferrer))
        }
        for ((k, v) in cached) if (k != MATCH_STATUS) params[k] = v
        return params
    }

    suspend fun awaitAttributionParams(rawReferrer: String?): Map<String, String> {
        if (awaitsFirstAttempt()) initialMatch.await()
        return getAttributionParams(rawReferrer)
    }

    /**
     * Whether an await waits for this process's first attempt: not before configure, while
     * switched off, stopped or deleted, nor once an attribution is kept on the device (a later
     * launch answers at once, offline or not, not after the remote configuration's read).
     */
    private fun awaitsFirstAttempt(): Boolean = configured && !disabled && !stopped && !deleted && storedAttribution() == null

    fun awaitAttributionParamsAsync(rawReferrer: String?): CompletableFuture<Map<String, String>> {
        val future = CompletableFuture<Map<String, String>>()
        if (awaitsFirstAttempt()) {
            initialMatch.invokeOnCompletion { future.complete(getAttributionParams(rawReferrer)) }
        } else {
            future.complete(getAttributionParams(rawReferrer))
        }
        return future
    }

    suspend fun deleteUserData() {
        check(configured) { "configure has not been called" }
        withContext(workerDispatcher) { deleteOnWorker() }
    }

    fun deleteUserDataAsync(): CompletableFuture<Void?> =
        onWorker {
            deleteOnWorker()
            null
        }

    private fun deleteOnWorker() {
        api.deleteInstall(serviceId!!)
        forgetDeletedInstall("the install's data is deleted")
    }

    /**
     * On the worker: the install's data is deleted at the backend (by deleteUserData, or on
     * request through its API, which this SDK learns from the backend's answers): kept on the
     * device, and nothing more is sent or queued for the install, in this launch or a later one.
     */
    private fun forgetDeletedInstall(why: String) {
        deleted = true
        platform.store.put(KEY_DELETED, "1")
        platform.store.remove(KEY_ATTRIBUTION)
        // The user's id goes with their data, as the id of events that will never be sent.
        customerUserId = null
        platform.store.remove(KEY_CUSTOMER_USER_ID)
        sessions.disable()
        retry?.cancel(false)
        retry = null
        dropEverything(DropReason.DELETED)
        initialMatch.complete(Unit)
        log.info("$why: nothing more is sent for it")
    }

    /** Remembers the link that opened the app, for the install's `open_url` on its first launch. */
    fun noteOpenUrl(url: String) {
        if (!installSeenRecorded && openUrl == null) openUrl = url
    }

    private fun installRecorded() {
        installSeenRecorded = true
        openUrl = null
    }

    fun getServiceId(): String? = serviceId

    fun isSdkDisabled(): Boolean = !configured || disabled

    fun isConfigured(): Boolean = configured

    fun isEnabled(): Boolean = configured && !disabled && config?.enabled == true

    fun getLastInitError(): Throwable? = lastInitError

    /** Events on the device not sent yet: queued, and handed over but not queued yet. */
    internal fun queuedCount(): Int = (if (::queue.isInitialized) queue.size else 0) + synchronized(drafts) { drafts.size }

    /** Sessions on the device not sent yet. */
    internal fun queuedSessionCount(): Int = if (::sessionQueue.isInitialized) sessionQueue.size + sessionJournal.size else 0

    /** Sessions dropped on this device so far (logged, never told to the app). */
    internal fun droppedSessionCount(): Long = if (::sessionDrops.isInitialized) sessionDrops.count() else 0L

    /** Held while a deep link is handed to the listener or left waiting ([ListenerDispatch.deepLinkLock]). */
    internal val deepLinkLock: Any get() = listeners.deepLinkLock

    /** Waits until the worker has done what was handed to it so far. */
    internal fun drain() {
        worker.submit {}.get()
    }

    /** Stops this instance's threads, as the end of the app's process does. */
    internal fun close() {
        worker.shutdownNow()
        poller.shutdownNow()
    }

    /** A plain http address whose host the app's network security refuses cleartext to. */
    private fun cleartextRefused(address: String): Boolean {
        val uri = runCatching { java.net.URI(address) }.getOrNull() ?: return false
        return uri.scheme.equals("http", ignoreCase = true) && !platform.device.cleartextPermitted(uri.host)
    }

    companion object {
        /** An absolute http(s) URL with a host: what every request's address is made from. */
        internal fun isHttpAddress(address: String): Boolean {
            // As written: the requests are made from the address untrimmed.
            val uri = runCatching { java.net.URI(address) }.getOrNull() ?: return false
            return uri.scheme?.lowercase() in setOf("http", "https") && !uri.host.isNullOrEmpty()
        }

        private const val BACKUP_FORGOTTEN = "this SDK's data came from a backup of another install of the app: it starts as a new install"

        /**
         * The 4xx that ask for the same request later rather than refuse it (delivery.json's
         * `retryable4xx`): a timeout, 425 Too Early (a CDN that will not act on a request it
         * took in TLS early data, which the same request sent again on a full handshake passes),
         * throttling.
         */
        private val RETRYABLE_4XX = setOf(408, 425, 429)

        /** A 4xx but those asking to be sent again later: the same request would be refused again. */
        fun refusedForGood(code: Int): Boolean = code in 400..499 && code !in RETRYABLE_4XX

        /** The statuses with which a route refuses the install's key or address, not what a request holds. */
        fun isConfigurationError(code: Int): Boolean = code == 401 || code == 403 || code == 404

        const val MATCH_STATUS = "service_match_status"

        /** Reads of the install referrer the install waits for while the Play Store cannot answer. */
        const val MAX_REFERRER_TRIES = 3

        /** The statuses that end the install's matching: kept and told. Any other is asked again. */
        val SETTLED_STATUSES = setOf("matched", "matched_no_params", "organic", "skipped")
        const val DEEP_LINK_PATH = "deep_link_path"

        /** The attribution route's own keys; every other key of the map is a custom parameter of the link. */
        val ATTRIBUTION_KEYS =
            setOf(
                "service_match_status", "media_source", "campaign_id", "campaign_name", "adset_id", "adset_name",
                "ad_id", "ad_name", "click_id", "click_to_first_open_hours", "matching_type", "confidence_score",
            )
        /**
         * A link of any scheme: its scheme, then its query. `//` is not asked for: Android
         * delivers an intent whose data is an opaque `myapp:open?deep_link_path=…` to an
         * activity that declares the scheme alone, and Apple's URL reads it too (listeners.json).
         */
        private val ANY_LINK = Regex("^([A-Za-z][A-Za-z0-9+.-]*):[^?#]*(?:\\?([^#]*))?(?:#.*)?$")
        private const val MAX_DRAFTS = 1_000

        /** Why sendEvent takes nothing while stopped, as its log line says it. */
        private const val SENT_WHILE_STOPPED = "the SDK is stopped"

        /** Why sendEvent takes nothing while remote configuration has the SDK switched off. */
        private const val SENT_WHILE_DISABLED = "the SDK is disabled"

        /** Why sendEvent takes nothing once the install's data is deleted. */
        private const val SENT_WHILE_DELETED = "the install's data was deleted"

        private const val KEY_APP_INSTALLED_AT = "app_installed_at"
        private const val KEY_SERVICE_ID = "service_id"
        private const val KEY_FIRST_OPEN = "first_open_time"
        private const val KEY_INSTALL_TRACKED = "install_tracked"
        private const val KEY_CUSTOMER_USER_ID = "customer_user_id"
        private const val KEY_CONFIG = "remote_config"
        private const val KEY_ATTRIBUTION = "attribution"
        private const val KEY_STOPPED = "stopped"
        private const val KEY_ANONYMOUS = "anonymous"
        private const val KEY_DEFERRED_DELIVERED = "deferred_deep_link_delivered"
        private const val KEY_UNQUEUED_SESSIONS = "pending_sessions"

        /** The ids of sessions that left the journal while its file still held them. */
        private const val KEY_UNQUEUED_SESSIONS_GONE = "pending_sessions_gone"

        /** The same for the events that left sendEvent's journal. */
        private const val KEY_DRAFTS_GONE = "pending_events_gone"
        private const val KEY_DELETED = "deleted"
    }
}
