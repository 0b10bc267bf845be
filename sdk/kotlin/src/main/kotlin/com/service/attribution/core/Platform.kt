package com.service.attribution.core

import com.service.attribution.LogLevel

/** Small string storage that survives the process (SharedPreferences on Android). */
internal interface KeyValueStore {
    fun get(key: String): String?

    /**
     * Writes [value] under [key]; false when the write did not reach the disk (Android: commit()
     * failed), so that a caller moving data from one place to another keeps the first.
     */
    fun put(key: String, value: String): Boolean

    /** Forgets [key]; false as [put]. */
    fun remove(key: String): Boolean

    /** Forgets every key. */
    fun clear()
}

/** What the device says about itself; each value null when unknown. Called off the main thread. */
internal interface DeviceSignals {
    val osVersion: String?
    val deviceModel: String?
    val appVersion: String?
    val locale: String?
    val timezone: String?

    /** The Google advertising id, or null without one (or with ad tracking limited). */
    fun advertisingId(): String?

    /** Install-time permissions the SDK needs and the app lacks (INTERNET): the SDK then disables itself. */
    fun missingPermissions(): List<String> = emptyList()

    /**
     * Whether the app's network security configuration lets plain http reach [host]: Android 9
     * and later refuse it by default, and a refused request looks like no network at all.
     */
    fun cleartextPermitted(host: String): Boolean = true
}

/** What the Play install referrer API gave; timestamps in Unix seconds, 0 when unknown. */
internal data class InstallReferrerDetails(
    val referrer: String,
    val clickTimestampSeconds: Long = 0,
    val installBeginTimestampSeconds: Long = 0,
    val referrerClickTimestampServerSeconds: Long = 0,
    val installBeginTimestampServerSeconds: Long = 0,
    val installVersion: String? = null,
)

/** The Play install referrer, read once on the first launch. Called off the main thread; may block. */
internal fun interface InstallReferrerSource {
    /**
     * The referrer, or null when the device has none to give (no Play Store, an install from
     * elsewhere). Throws [ReferrerUnavailableException] when the Play Store could not answer now.
     */
    fun fetch(): InstallReferrerDetails?
}

/** The Play Store could not give the install referrer now (busy, disconnected, too slow); it may later. */
internal class ReferrerUnavailableException(message: String) : java.io.IOException(message)

/** Runs work on the app's main thread. */
internal fun interface MainThread {
    fun post(work: Runnable)
}

/** Where log lines go (logcat under the tag `ServiceSdk` on Android). */
internal fun interface LogSink {
    fun write(level: LogLevel, message: String, error: Throwable?)
}

/** One request and its answer; a transport throws an IOException when nothing came back. */
internal fun interface HttpTransport {
    fun send(request: HttpRequest): HttpResponse
}

internal data class HttpRequest(val method: String, val url: String, val headers: Map<String, String>, val body: String?)

/** An answer; [retryAfter] is its `Retry-After` header as it came, when it has one. */
internal data class HttpResponse(val code: Int, val body: String, val retryAfter: String? = null)

/**
 * What the app's IAB TCF consent platform stored on the device: `IABTCF_TCString` and
 * `IABTCF_gdprApplies` (1 or 0); each null when absent.
 */
internal data class TcfValues(val tcString: String?, val gdprApplies: Int?)

/** Reads the TCF values (Android: the default SharedPreferences). Called off the main thread. */
internal fun interface TcfSource {
    fun read(): TcfValues
}

/** Told when the app goes to the background and comes back to the foreground. */
internal interface LifecycleListener {
    fun onForeground()

    fun onBackground()
}

/**
 * The app's foreground and background (Android: its activities started and stopped). Sessions
 * are made from it: configure asks whether the app is in the foreground now, then watches it.
 */
internal fun interface AppLifecycle {
    /** Tells [listener] of each change from now on, on the thread the platform reports it. */
    fun watch(listener: LifecycleListener)

    /**
     * Whether the app is in the foreground as configure runs (Android: an activity of the process
     * started), or was started in the background with no user there (a push message, a job, a
     * broadcast). A platform that cannot tell says true.
     */
    fun isInForeground(): Boolean = true
}

/**
 * Everything the core needs from the platform it runs on. [drafts] holds what sendEvent hands
 * over, a line each, written before it returns (Android: a file of its own, appended to and
 * synced); [journal], what stop(), setAnonymous and setConsent set, and the sessions the queue
 * could not take (Android: a small preferences file written with commit()). [eventQueue] and
 * [sessionQueue] hold the queues, a line an item, read and written by the worker alone
 * (Android: files of their own, out of backups, so that configure's reads of [store] on the
 * app's main thread never wait for a long queue, and a queued item costs one line).
 */
internal class Platform(
    val store: KeyValueStore,
    val device: DeviceSignals,
    val installReferrer: InstallReferrerSource,
    val mainThread: MainThread,
    val log: LogSink,
    val http: HttpTransport = UrlConnectionTransport(),
    val clock: () -> Long = System::currentTimeMillis,
    val tcf: TcfSource = TcfSource { TcfValues(null, null) },
    val journal: KeyValueStore = store,
    val lifecycle: AppLifecycle = AppLifecycle { },
    /**
     * When this install of the app was made (Android: the package's first install time, which
     * an update keeps); null when unknown. Another value than the one kept is another install,
     * whose data a backup brought.
     */
    val appInstalledAt: Long? = null,
    val drafts: LineLog = LineLog.inStore(journal, "pending_events"),
    val eventQueue: LineLog = LineLog.inStore(store, StoredQueue.EVENTS),
    val sessionQueue: LineLog = LineLog.inStore(store, StoredQueue.SESSIONS),
)

/**
 * The storage configure reads, given before it (Android: as the app's process starts), so that
 * stop(), start(), setAnonymous and setConsent made before configure are on the device when they
 * return: [journal] takes them, [store] holds the install time the check for a restored backup
 * compares, [appInstalledAt] as [Platform.appInstalledAt].
 */
internal class EarlyStorage(
    val store: KeyValueStore,
    val journal: KeyValueStore,
    val appInstalledAt: () -> Long?,
)

/** An SDK built on this one (the Flutter plugin): its name and version, and its parameter rule. */
internal data class Wrapper(val platform: String, val version: String, val sealsCustomValues: Boolean)
