package com.service.attribution.core

import com.service.attribution.DropReason

/**
 * When a session starts (sdk/conformance/sessions.json), with no platform type: SdkCore drives it
 * with the lifecycle's signals and the device clock of each, on the worker, in the order they
 * came, and queues a session each time a step answers true.
 *
 * A launch (configure in a new process) in the foreground starts one at once. A launch in the
 * background (Android starts the process for a push message, a job, a broadcast: no user there)
 * starts none: the session is owed to the app's first return to the foreground, and starts then,
 * however soon; a process that never comes to the foreground reports none. A return after at
 * least the session interval in the background starts one; a return after less continues the
 * session, and time in the foreground never counts as away. start() after stop() starts one as a
 * launch does (in the background: at the next return). Whether a session is reported at all (not
 * while stopped or switched off) is SdkCore's; [stop] and [disable] cancel what is owed, so that a
 * start in that state makes no session later either.
 */
internal class SessionTracker {
    /** Until a launch says otherwise, the app counts as in the foreground: a first return then continues. */
    var inForeground = true
        private set

    /** When the app went to the background (or launched there); null while it is in the foreground. */
    private var backgroundSinceMs: Long? = null

    /** A launch or a start again made in the background: the next return starts the session, however soon. */
    private var owed = false

    /**
     * Configure ran in a new process at [atMs], the app [inForeground] or not: true when that
     * starts a session now. [on] false (the SDK starts stopped): none now and none owed.
     */
    fun launch(atMs: Long, inForeground: Boolean, on: Boolean = true): Boolean {
        this.inForeground = inForeground
        backgroundSinceMs = if (inForeground) null else atMs
        owed = on && !inForeground
        return on && inForeground
    }

    fun background(atMs: Long) {
        // A second report of the same stay away (an activity of an earlier start) keeps its beginning.
        if (!inForeground) return
        inForeground = false
        backgroundSinceMs = atMs
    }

    /**
     * The app is in the foreground at [atMs]: true when that starts a session (one was owed, or it
     * was away at least [intervalSeconds]). A report while already in the foreground continues.
     */
    fun foreground(atMs: Long, intervalSeconds: Long): Boolean {
        if (inForeground) return false
        inForeground = true
        val since = backgroundSinceMs
        backgroundSinceMs = null
        val due = owed || (since != null && atMs - since >= intervalSeconds * 1_000)
        owed = false
        return due
    }

    /** start() after stop(): true when that starts a session now (in the foreground); in the background it is owed. */
    fun restart(): Boolean {
        if (inForeground) return true
        owed = true
        return false
    }

    /** stop(): what a background launch or start owed is cancelled. */
    fun stop() {
        owed = false
    }

    /** Switched off (remote configuration, a rejected key): what was owed is cancelled. */
    fun disable() {
        owed = false
    }
}

/**
 * Sessions dropped: logged at warning level with the reason and counted on the device (across
 * launches). The error listener is not told: the app sent nothing.
 */
internal class SessionDrops(private val store: KeyValueStore, private val log: Logger) : DropReport {
    override fun report(reason: DropReason, count: Int, why: String?) {
        if (count <= 0) return
        log.warn("$count session${if (count == 1) "" else "s"} dropped: ${reason.wire}${why?.let { " ($it)" } ?: ""}")
        store.put(KEY, (count() + count).toString())
    }

    /**
     * Sessions kept on the device that could not be read back (a damaged value): lost unsent.
     * Logged at error level and counted as a drop, never an empty queue without a word.
     */
    fun unreadable(loss: StoredLoss?, where: String = "the sessions' queue kept on the device") {
        if (loss == null || loss.count <= 0) return
        lost(loss.count, loss.describe("session", where))
    }

    /**
     * [count] sessions lost for no reason of delivery.json's (the device could not keep them):
     * as unreadable ones, logged at error level with [message] and counted.
     */
    fun lost(count: Int, message: String) {
        if (count <= 0) return
        log.error(message)
        store.put(KEY, (count() + count).toString())
    }

    /** The sessions dropped on this device so far. */
    fun count(): Long = store.get(KEY)?.toLongOrNull() ?: 0L

    private companion object {
        const val KEY = "dropped_session_count"
    }
}
