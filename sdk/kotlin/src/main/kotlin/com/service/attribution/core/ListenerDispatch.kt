package com.service.attribution.core

import com.service.attribution.AttributionListener
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.DeepLinkListener
import com.service.attribution.DropReason
import com.service.attribution.ErrorListener
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind

/**
 * The app's listeners (attribution, deep links, errors), each run on the app's main thread, and
 * the report of dropped events, which ends at the error listener: the warning, the count kept on
 * the device, the listener told.
 *
 * [defaultMainThread] runs listeners until configure gives the platform's (a direct deep link
 * handled before configure). Before configure there is no store either: drops are counted here
 * and reported once it runs.
 */
internal class ListenerDispatch(private val defaultMainThread: MainThread) {
    @Volatile var attribution: AttributionListener? = null

    /** Under [deepLinkLock]. */
    @Volatile private var deepLink: DeepLinkListener? = null

    @Volatile var error: ErrorListener? = null

    /**
     * Direct deep links handled while no listener was set, delivered when one is. Under
     * [deepLinkLock]. The deferred one never waits here: it waits on the device, which a
     * process ending does not lose ([tryDeliverDeepLink]).
     */
    private val pendingDeepLinks = ArrayList<DeepLink>()

    /**
     * Held while a link is either handed to the listener or left waiting, and while a listener is
     * set and takes what waits: a link handled as the listener is set goes one way or the other,
     * never into the waiting list just after it was emptied. Listeners are called after it is let go.
     */
    internal val deepLinkLock = Any()

    // Set by configure: the platform's main thread and logger, then the store the drop count is kept in.
    @Volatile private var mainThread: MainThread? = null

    @Volatile private var log = Logger(LogSink { _, _, _ -> }, LogLevel.INFO)

    @Volatile private var store: KeyValueStore? = null

    /** Events dropped before configure, by reason: counted and reported once it runs. */
    private val dropsBeforeConfigure = LinkedHashMap<DropReason, Int>()
    private var droppedBeforeConfigure = 0L

    // Worker-thread state.
    private var announcedTo: AttributionListener? = null
    private var announcedMap: Map<String, String>? = null

    /** Configure: listeners run on [mainThread] from now on, and what they throw goes to [log]. */
    fun attach(mainThread: MainThread, log: Logger) {
        this.mainThread = mainThread
        this.log = log
    }

    /** Configure, under its lock: drops are reported and counted in [store] from now on. */
    fun keepDropCountIn(store: KeyValueStore) {
        synchronized(this) { this.store = store }
    }

    /** On the worker: tells the attribution listener [map], once per listener and map in this process. */
    fun announceAttribution(map: Map<String, String>) {
        val listener = attribution ?: return
        if (announcedTo === listener && announcedMap == map) return
        announcedTo = listener
        announcedMap = map
        post { listener.onAttribution(map) }
    }

    fun setDeepLinkListener(listener: DeepLinkListener?) {
        val pending =
            synchronized(deepLinkLock) {
                deepLink = listener
                if (listener == null) emptyList() else pendingDeepLinks.toList().also { pendingDeepLinks.clear() }
            }
        if (listener == null) return
        pending.forEach { link -> post { listener.onDeepLink(link) } }
    }

    /** A direct deep link, to the listener; with none set, it waits for one among the most recent. */
    fun deliverDeepLink(link: DeepLink) {
        val listener =
            synchronized(deepLinkLock) {
                deepLink ?: run {
                    pendingDeepLinks.add(link)
                    // The bound (listeners.json's maxPendingDirectLinks) is on direct links, as
                    // in every SDK: only they make room, so that taps never push out another kind.
                    while (pendingDeepLinks.count { it.kind == DeepLinkKind.DIRECT } > MAX_PENDING_DIRECT_LINKS) {
                        pendingDeepLinks.removeAt(pendingDeepLinks.indexOfFirst { it.kind == DeepLinkKind.DIRECT })
                    }
                    return
                }
            }
        post { listener.onDeepLink(link) }
    }

    /**
     * [link] to the listener set now, or false, with nothing kept, when none is: for the deferred
     * deep link, kept on the device until a listener had it. The listener is read once, under
     * [deepLinkLock], and the link goes to that one: a look for a listener apart from the
     * handing over would let one cleared in between take the link, with no one to have it.
     * [ran] runs on the main thread once the listener's call returned (or threw: it had the link
     * either way), never before: a process that ends with the call still posted has not
     * delivered the link, so its caller marks it delivered only then.
     */
    fun tryDeliverDeepLink(link: DeepLink, ran: () -> Unit): Boolean {
        val listener = synchronized(deepLinkLock) { deepLink } ?: return false
        post {
            try {
                listener.onDeepLink(link)
            } finally {
                ran()
            }
        }
        return true
    }

    /**
     * On the worker: logs [count] events dropped for [reason] at warning level (with [why], when
     * there is more to say), adds them to the count kept on the device, and tells the error listener.
     */
    fun reportDrop(reason: DropReason, count: Int, why: String? = null) {
        if (count <= 0) return
        val store =
            synchronized(this) {
                store ?: run {
                    dropsBeforeConfigure[reason] = (dropsBeforeConfigure[reason] ?: 0) + count
                    droppedBeforeConfigure += count
                    return
                }
            }
        val message = "$count event${if (count == 1) "" else "s"} dropped: ${reason.wire}${why?.let { " ($it)" } ?: ""}"
        log.warn(message)
        count(store, count)
        tell(ServiceError(ServiceErrorKind.EVENTS_DROPPED, reason, null, count, message))
    }

    /**
     * On the worker, once configured: events kept on the device that could not be read back (a
     * damaged value), lost unsent. Made known as a drop is, but at error level, and to the error
     * listener with no reason: none of delivery.json's reasons says it, since the SDK chose
     * nothing here.
     */
    fun reportUnreadable(loss: StoredLoss?, where: String) {
        if (loss == null || loss.count <= 0) return
        reportLost(loss.count, loss.describe("event", where))
    }

    /**
     * On the worker, once configured: [count] events lost to the device's storage (not read back,
     * or not written when sendEvent took them), said in [message]. Made known as
     * [reportUnreadable] says: at error level, counted, and told with no drop reason.
     */
    fun reportLost(count: Int, message: String) {
        if (count <= 0) return
        log.error(message)
        val store = synchronized(this) { store } ?: return
        count(store, count)
        tell(ServiceError(ServiceErrorKind.EVENTS_DROPPED, null, null, count, message))
    }

    private fun count(store: KeyValueStore, count: Int) {
        val total = (store.get(KEY_DROPPED)?.toLongOrNull() ?: 0L) + count
        store.put(KEY_DROPPED, total.toString())
    }

    fun reportDropsBeforeConfigure() {
        val drops = synchronized(this) { LinkedHashMap(dropsBeforeConfigure).also { dropsBeforeConfigure.clear() } }
        for ((reason, count) in drops) reportDrop(reason, count)
    }

    /**
     * The events dropped: the count kept on the device once configured; before, the count kept
     * by earlier launches ([keptOnDevice]) and those counted in this process.
     */
    fun droppedEventCount(keptOnDevice: Long = 0L): Long =
        store?.let { it.get(KEY_DROPPED)?.toLongOrNull() ?: 0L } ?: (keptOnDevice + droppedBeforeConfigure)

    fun tell(error: ServiceError) {
        val listener = this.error ?: return
        post { listener.onError(error) }
    }

    /** Runs [work] on the app's main thread; a listener that throws is logged, not rethrown. */
    private fun post(work: () -> Unit) {
        val main = mainThread ?: defaultMainThread
        main.post { runListener(log, "a listener") { work() } }
    }

    companion object {
        /** The most recent direct deep links kept for a listener: listeners.json's `maxPendingDirectLinks`, every SDK's bound. */
        private const val MAX_PENDING_DIRECT_LINKS = 10

        /** Where the count of events dropped is kept on the device. */
        const val KEY_DROPPED = "dropped_event_count"
    }
}

/**
 * Runs an app's listener ([what] names it in the log). Whatever it throws, an Error such as
 * Kotlin's TODO() included, is logged at error level and the SDK goes on: a listener's mistake
 * must not end the SDK's worker or the app's main thread. Only the JVM's own failures (out of
 * memory, a stack overflow) go on up, as nothing can be done about them here.
 */
internal inline fun runListener(log: Logger, what: String, call: () -> Unit) {
    try {
        call()
    } catch (e: VirtualMachineError) {
        throw e
    } catch (e: Throwable) {
        log.error("$what threw: $e", e)
    }
}
