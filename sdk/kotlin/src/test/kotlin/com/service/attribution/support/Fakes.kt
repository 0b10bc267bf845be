package com.service.attribution.support

import com.service.attribution.LogLevel
import com.service.attribution.core.DeviceSignals
import com.service.attribution.core.HttpRequest
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.HttpTransport
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.KeyValueStore
import com.service.attribution.core.LineLog
import com.service.attribution.core.LogSink
import com.service.attribution.core.MainThread
import com.service.attribution.core.Platform
import java.io.IOException
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList

/** The device's storage; a second core on the same store is the app's next launch. */
internal class MemoryStore : KeyValueStore {
    val values = ConcurrentHashMap<String, String>()

    /** Keys whose writes fail (a full disk): the value on the device stays as it was, and the write says so. */
    val failingKeys: MutableSet<String> = ConcurrentHashMap.newKeySet()

    /** Called before each read, on the reading thread: a test holds a thread there. */
    @Volatile var beforeGet: (String) -> Unit = {}

    override fun get(key: String): String? {
        beforeGet(key)
        return values[key]
    }

    override fun put(key: String, value: String): Boolean {
        if (key in failingKeys) return false
        values[key] = value
        return true
    }

    override fun remove(key: String): Boolean {
        if (key in failingKeys) return false
        values.remove(key)
        return true
    }

    override fun clear() = values.clear()
}

internal class FakeDevice(
    override val osVersion: String? = "14",
    override val deviceModel: String? = "Pixel 8",
    override val appVersion: String? = "3.2.1",
    override val locale: String? = "de-DE",
    override val timezone: String? = "Europe/Berlin",
    private val advertisingId: String? = null,
    private val missing: List<String> = emptyList(),
    /** The hosts the app's network security refuses plain http to. */
    private val cleartextRefusedTo: Set<String> = emptySet(),
) : DeviceSignals {
    override fun advertisingId() = advertisingId

    override fun missingPermissions() = missing

    override fun cleartextPermitted(host: String) = host !in cleartextRefusedTo
}

/**
 * Runs main-thread work at once, on the calling thread, remembering that it did; while [holding],
 * keeps it in [held] instead, as a busy main thread does, until [runHeld] (or never: a process
 * killed first).
 */
internal class RecordingMainThread : MainThread {
    val posted = CopyOnWriteArrayList<String>()

    @Volatile var holding = false

    val held = CopyOnWriteArrayList<Runnable>()

    override fun post(work: Runnable) {
        posted.add(Thread.currentThread().name)
        if (holding) held.add(work) else work.run()
    }

    /** Runs the work held so far, in order, and runs work at once from now on. */
    fun runHeld() {
        holding = false
        while (held.isNotEmpty()) held.removeAt(0).run()
    }
}

internal class RecordingLog : LogSink {
    val lines = CopyOnWriteArrayList<Pair<LogLevel, String>>()

    override fun write(level: LogLevel, message: String, error: Throwable?) {
        lines.add(level to message)
    }
}

/** Records every request and answers with [answer]; an answer of null means no connection. */
internal class ScriptedTransport(var answer: (HttpRequest) -> HttpResponse?) : HttpTransport {
    val requests = CopyOnWriteArrayList<HttpRequest>()

    override fun send(request: HttpRequest): HttpResponse {
        requests.add(request)
        return answer(request) ?: throw IOException("connection refused")
    }

    fun count(method: String, pathStart: String) =
        synchronized(requests) { requests.count { it.method == method && pathOf(it.url).startsWith(pathStart) } }
}

/** Records the requests and answers that go through to a real transport. */
internal class RecordingTransport(private val delegate: HttpTransport) : HttpTransport {
    val exchanges = CopyOnWriteArrayList<Pair<HttpRequest, HttpResponse?>>()

    override fun send(request: HttpRequest): HttpResponse {
        try {
            return delegate.send(request).also { exchanges.add(request to it) }
        } catch (e: IOException) {
            exchanges.add(request to null)
            throw e
        }
    }

    fun requests(method: String, path: String) =
        synchronized(exchanges) { exchanges.filter { it.first.method == method && pathOf(it.first.url).startsWith(path) } }
}

internal fun pathOf(url: String): String = "/" + url.substringAfter("://").substringAfter('/')

internal fun platform(
    store: MemoryStore = MemoryStore(),
    http: HttpTransport,
    device: FakeDevice = FakeDevice(),
    referrer: InstallReferrerDetails? = null,
    log: RecordingLog = RecordingLog(),
    mainThread: RecordingMainThread = RecordingMainThread(),
) = Platform(store, device, { referrer }, mainThread, log, http)

/**
 * Polls [condition] until it holds or [timeoutMs] passes; returns whether it held. The bound is
 * far beyond any run on a busy machine: a passing test never waits it out, only a hang fails.
 */
internal fun eventually(timeoutMs: Long = 60_000, condition: () -> Boolean): Boolean {
    val end = System.currentTimeMillis() + timeoutMs
    while (System.currentTimeMillis() < end) {
        if (condition()) return true
        Thread.sleep(50)
    }
    return condition()
}

/** A [LineLog] that counts how it is written: each time lines are added, each time it is written whole. */
internal class CountingLineLog(private val inner: LineLog) : LineLog by inner {
    var appends = 0
    var wholeWrites = 0

    override fun append(lines: List<String>) = inner.append(lines).also { appends++ }

    override fun write(lines: List<String>) = inner.write(lines).also { wholeWrites++ }
}
