package com.service.attribution.core

import com.service.attribution.LogLevel

/** Small string storage that survives the process (SharedPreferences on Android). */
internal interface KeyValueStore {
    fun get(key: String): String?

    fun put(key: String, value: String)

    fun remove(key: String)
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
    fun fetch(): InstallReferrerDetails?
}

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

internal data class HttpResponse(val code: Int, val body: String)

/** Everything the core needs from the platform it runs on. */
internal class Platform(
    val store: KeyValueStore,
    val device: DeviceSignals,
    val installReferrer: InstallReferrerSource,
    val mainThread: MainThread,
    val log: LogSink,
    val http: HttpTransport = UrlConnectionTransport(),
    val clock: () -> Long = System::currentTimeMillis,
)

/** An SDK built on this one (the Flutter plugin): its name and version, and its parameter rule. */
internal data class Wrapper(val platform: String, val version: String, val sealsCustomValues: Boolean)
