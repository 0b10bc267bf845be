package com.service.attribution.core

import com.service.attribution.DropReason

/**
 * When the app's return to the foreground starts a session (sdk/conformance/sessions.json): after
 * at least the session interval in the background; a return after less continues the session,
 * and time in the foreground never counts as away. The other starts of a session (configure in a
 * new process, start() after stop()) are SdkCore's, as is whether a session is reported at all
 * (not while stopped or switched off). Fed on the worker, in the order the lifecycle went, with
 * the device clock of each change.
 */
internal class SessionTracker {
    /** When the app went to the background; null while it is in the foreground. */
    private var backgroundSinceMs: Long? = null

    fun background(atMs: Long) {
        // A second report of the same stay away (an activity of an earlier start) keeps its beginning.
        if (backgroundSinceMs == null) backgroundSinceMs = atMs
    }

    /** The app is back at [atMs]: true when that starts a session. A return with no leave known continues. */
    fun foreground(atMs: Long, intervalSeconds: Long): Boolean {
        val since = backgroundSinceMs ?: return false
        backgroundSinceMs = null
        return atMs - since >= intervalSeconds * 1_000
    }
}

/**
 * Sessions dropped: logged at warning level with the reason and counted on the device (across
 * launches). The error listener is not told: the app sent nothing.
 */
internal class SessionDrops(private val store: KeyValueStore, private val log: Logger) : DropReport {
    override fun report(reason: DropReason, count: Int) {
        if (count <= 0) return
        log.warn("$count session${if (count == 1) "" else "s"} dropped: ${reason.wire}")
        store.put(KEY, (count() + count).toString())
    }

    /** The sessions dropped on this device so far. */
    fun count(): Long = store.get(KEY)?.toLongOrNull() ?: 0L

    private companion object {
        const val KEY = "dropped_session_count"
    }
}
