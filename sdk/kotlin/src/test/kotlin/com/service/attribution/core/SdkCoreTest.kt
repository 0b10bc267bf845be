package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.EventType
import com.service.attribution.HttpException
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import com.service.attribution.support.FakeDevice
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.RecordingMainThread
import com.service.attribution.support.ScriptedTransport
import com.service.attribution.support.eventually
import com.service.attribution.support.pathOf
import com.service.attribution.support.platform
import kotlinx.coroutines.runBlocking
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.CopyOnWriteArrayList

/** The core's rules against a scripted backend: what it sends, when, and what it reports. */
class SdkCoreTest {
    private val cores = ArrayList<SdkCore>()

    @After
    fun close() = cores.forEach { it.close() }

    /** A backend that accepts everything; [config] and [attribution] answer those routes. */
    private class Backend {
        var config: () -> HttpResponse? = { HttpResponse(200, CONFIG_ON) }
        var attribution: () -> HttpResponse? = { HttpResponse(200, """{"service_match_status":"organic","media_source":"organic"}""") }
        var events: (List<*>) -> HttpResponse? = { accepted(it.size) }
        var installs: () -> HttpResponse? = { HttpResponse(202, "{}") }
        var delete: () -> HttpResponse? = { HttpResponse(202, "{}") }

        val transport =
            ScriptedTransport { request ->
                val path = pathOf(request.url)
                when {
                    path == "/v1/config" -> config()
                    path == "/v1/installs" -> installs()
                    path == "/v1/events" -> events(Json.parseObject(request.body!!)["events"] as List<*>)
                    path == "/v1/sessions" -> accepted((Json.parseObject(request.body!!)["sessions"] as List<*>).size)
                    path.contains("/attribution") -> attribution()
                    request.method == "DELETE" -> delete()
                    else -> HttpResponse(404, "{}")
                }
            }

        @Suppress("UNCHECKED_CAST")
        fun events(): List<Map<String, Any?>> =
            synchronized(transport.requests) {
                transport.requests.filter { pathOf(it.url) == "/v1/events" }.flatMap { Json.parseObject(it.body!!)["events"] as List<Map<String, Any?>> }
            }

        fun count(method: String, path: String) = transport.count(method, path)

        companion object {
            const val CONFIG_ON = """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""
            const val CONFIG_OFF = """{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"""

            fun accepted(n: Int) = HttpResponse(202, """{"accepted":$n,"ignored":[],"rejected":[],"warnings":[]}""")
        }
    }

    private class Listener : InitListener {
        val errors = CopyOnWriteArrayList<Throwable>()
        val initialized = CountDownLatch(1)
        var durations: Pair<Long, Long>? = null
        var thread: String? = null

        override fun onError(t: Throwable) {
            errors.add(t)
        }

        override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {
            durations = mainThreadDurationMs to totalDurationMs
            thread = Thread.currentThread().name
            initialized.countDown()
        }
    }

    private fun core(): SdkCore = SdkCore().also { cores += it }

    private fun SdkCore.start(
        backend: Backend,
        store: MemoryStore = MemoryStore(),
        listener: InitListener? = null,
        customerUserId: String? = null,
        apiKey: String = "sdk_key",
        device: FakeDevice = FakeDevice(),
        mainThread: RecordingMainThread = RecordingMainThread(),
    ): SdkCore {
        configure(
            platform(store = store, http = backend.transport, device = device, mainThread = mainThread),
            SdkSettings(baseUrl = "https://backend.test", retryDelayMs = 20, maxRetryDelayMs = 100),
            apiKey,
            LogLevel.DEBUG,
            listener,
            customerUserId,
        )
        drain()
        return this
    }

    @Test
    fun `before configure the SDK reports disabled, unconfigured, no id and no attribution`() {
        val core = core()
        assertTrue(core.isSdkDisabled())
        assertFalse(core.isConfigured())
        assertFalse(core.isEnabled())
        assertNull(core.getServiceId())
        assertEquals(emptyMap<String, String>(), core.getAttributionParams("utm_source=x"))
        assertNull(core.getLastInitError())
    }

    @Test
    fun `events sent before configure are buffered and sent after configuration, in order`() {
        val backend = Backend()
        val core = core()
        core.sendEvent(EventType.LOGIN, null, null)
        core.setCustomerUserId("early-user")
        core.sendEvent(EventType.LEVEL_START, null, mapOf("level" to 1))
        core.start(backend)
        assertTrue(eventually { backend.events().size == 2 })
        assertEquals(listOf("LOGIN", "LEVEL_START"), backend.events().map { it["event_type"] })
        assertEquals(listOf(null, "early-user"), backend.events().map { it["customer_user_id"] })
        assertEquals(core.getServiceId(), backend.events()[0]["service_id"])
        // The install goes first: an event of an unrecorded install would be refused.
        val paths = backend.transport.requests.map { pathOf(it.url) }
        assertTrue(paths.indexOf("/v1/installs") < paths.indexOf("/v1/events"))
    }

    @Test
    fun `configure's customer user id applies to events buffered during startup`() {
        val backend = Backend()
        val gate = CountDownLatch(1)
        backend.config = {
            gate.await(60, TimeUnit.SECONDS)
            HttpResponse(200, Backend.CONFIG_ON)
        }
        val core = core()
        core.configure(platform(http = backend.transport), SdkSettings("https://backend.test"), "k", LogLevel.INFO, null, "user-1")
        core.sendEvent(EventType.SHARE, null, null)
        gate.countDown()
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals("user-1", backend.events()[0]["customer_user_id"])
    }

    @Test
    fun `the calls an app makes leave every write of the store to the worker thread`() {
        val backend = Backend()
        val writers = Collections.synchronizedSet(LinkedHashSet<String>())
        val store =
            object : KeyValueStore {
                val values = java.util.concurrent.ConcurrentHashMap<String, String>()

                override fun get(key: String) = values[key]

                override fun put(key: String, value: String): Boolean {
                    writers += Thread.currentThread().name
                    values[key] = value
                    return true
                }

                override fun remove(key: String): Boolean {
                    writers += Thread.currentThread().name
                    values.remove(key)
                    return true
                }

                override fun clear() {
                    writers += Thread.currentThread().name
                    values.clear()
                }
            }
        val core = core()
        core.setConsent(com.service.attribution.Consent(gdprApplies = true))
        core.setAnonymous(true)
        core.stop()
        core.start()
        val journal = MemoryStore()
        val platform = Platform(store, FakeDevice(), { null }, RecordingMainThread(), com.service.attribution.support.RecordingLog(), backend.transport, journal = journal)
        core.configure(platform, SdkSettings("https://backend.test"), "k", LogLevel.DEBUG, null, "user-1")
        core.stop()
        core.start()
        core.setAnonymous(false)
        core.setConsent(com.service.attribution.Consent(gdprApplies = true, adUserData = true))
        core.setCustomerUserId("user-2")
        core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.events().size == 1 })
        core.drain()
        assertEquals(setOf("ServiceSdk"), writers.toSet())
        // Written all the same: the next launch reads them.
        assertEquals("user-2", store.get("customer_user_id"))
        assertTrue(store.get("service_id") != null)
        // A stop, anonymous mode and the consent are in the journal before their calls return, as
        // an event sendEvent takes: an opt-out the app is killed just after is kept.
        assertEquals(null, journal.get("stopped"))
        assertEquals(null, journal.get("anonymous"))
        assertTrue(journal.get("consent")!!.contains("\"ad_user_data\":true"))
    }

    @Test
    fun `a rejected key disables the SDK and reports AuthenticationException with its code`() {
        val backend = Backend()
        backend.config = { HttpResponse(401, """{"error":"Unauthorized","detail":"A valid API key is required."}""") }
        val listener = Listener()
        val core = core().start(backend, listener = listener)
        val error = listener.errors.single() as AuthenticationException
        assertEquals(401, error.code)
        assertSame(error, core.getLastInitError())
        assertTrue(core.isSdkDisabled())
        assertTrue(core.isConfigured())
        assertFalse(core.isEnabled())
        core.sendEvent(EventType.LOGIN, null, null)
        core.drain()
        assertEquals(0, backend.count("POST", "/v1/installs") + backend.count("POST", "/v1/events"))
        assertEquals(1L, listener.initialized.count)
    }

    @Test
    fun `a failed fetch reports onError and goes on with a placeholder configuration, events waiting for a real one`() {
        val backend = Backend()
        val failing = java.util.concurrent.atomic.AtomicBoolean(true)
        backend.config = { if (failing.get()) HttpResponse(500, """{"error":"Internal Server Error","detail":"x"}""") else HttpResponse(200, Backend.CONFIG_ON) }
        val listener = Listener()
        val core = core().start(backend, listener = listener)
        assertEquals(500, (listener.errors.single() as HttpException).code)
        assertTrue(listener.initialized.await(60, TimeUnit.SECONDS))
        assertTrue(core.isEnabled())
        core.sendEvent(EventType.LOGIN, null, null)
        // The install goes; the event waits for a configuration, read again meanwhile.
        assertTrue(eventually { backend.count("POST", "/v1/installs") == 1 && backend.count("GET", "/v1/config") >= 3 })
        assertEquals(0, backend.count("POST", "/v1/events"))
        failing.set(false)
        assertTrue(eventually { backend.events().size == 1 })
    }

    @Test
    fun `a lambda is an InitListener for onError, and no backend address disables the SDK`() {
        val errors = CopyOnWriteArrayList<Throwable>()
        val core = core()
        core.configure(platform(http = Backend().transport), SdkSettings(baseUrl = ""), "k", LogLevel.INFO, { errors.add(it) }, null)
        core.drain()
        assertTrue(errors.single() is IllegalStateException)
        assertTrue(core.isSdkDisabled())
    }

    @Test
    fun `a backend address that is no http or https URL disables the SDK and says so, rather than fail as offline`() {
        for (address in listOf("attribution.example.com", "ftp://attribution.example.com", "https://", "http//x.test", "https://x.test ")) {
            val errors = CopyOnWriteArrayList<Throwable>()
            val backend = Backend()
            val core = core()
            core.configure(platform(http = backend.transport), SdkSettings(baseUrl = address), "k", LogLevel.INFO, { errors.add(it) }, null)
            core.sendEvent(EventType.LOGIN, null, null)
            core.drain()
            val error = errors.single()
            assertTrue("$address: $error", error is IllegalStateException && address in error.message!!)
            assertTrue(address, core.isSdkDisabled())
            assertEquals(address, 0, synchronized(backend.transport.requests) { backend.transport.requests.size })
        }
        assertTrue(SdkCore.isHttpAddress("http://10.0.2.2:8787"))
        assertTrue(SdkCore.isHttpAddress("https://attribution.example.com/base/"))
    }

    @Test
    fun `onInitialized runs on the main thread with both durations`() {
        val listener = Listener()
        val mainThread = RecordingMainThread()
        core().start(Backend(), listener = listener, mainThread = mainThread)
        assertTrue(listener.initialized.await(60, TimeUnit.SECONDS))
        val (main, total) = listener.durations!!
        assertTrue("$main <= $total", main in 0..total)
        assertEquals(1, mainThread.posted.size)
    }

    @Test
    fun `remote configuration switching the SDK off sends nothing, and on again resumes`() {
        val backend = Backend()
        backend.config = { HttpResponse(200, Backend.CONFIG_OFF) }
        val core = core()
        core.sendEvent(EventType.LOGIN, null, null)
        core.start(backend)
        core.sendEvent(EventType.SHARE, null, null)
        core.drain()
        assertTrue(core.isSdkDisabled())
        assertFalse(core.isEnabled())
        assertEquals(listOf("/v1/config"), backend.transport.requests.map { pathOf(it.url) })
        backend.config = { HttpResponse(200, Backend.CONFIG_ON) }
        runBlocking { core.refreshConfig() }
        assertTrue(core.isEnabled())
        core.sendEvent(EventType.SEARCH, null, null)
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals("SEARCH", backend.events()[0]["event_type"])
    }

    @Test
    fun `a repeat configure changes nothing, its customer user id included`() {
        val backend = Backend()
        val core = core().start(backend, customerUserId = "first")
        core.configure(platform(http = backend.transport), SdkSettings("https://other.test"), "other", LogLevel.INFO, null, "second")
        core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals("first", backend.events()[0]["customer_user_id"])
        assertEquals(1, backend.count("GET", "/v1/config"))
    }

    @Test
    fun `a second launch on the same storage keeps the id and does not report the install again`() {
        val backend = Backend()
        val store = MemoryStore()
        val first = core().start(backend, store)
        assertTrue(eventually { backend.count("POST", "/v1/installs") == 1 })
        first.close()
        val second = core().start(backend, store)
        second.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals(first.getServiceId(), second.getServiceId())
        assertEquals(1, backend.count("POST", "/v1/installs"))
    }

    @Test
    fun `CUSTOM without a name throws, also when disabled, and INSTALL is never sent`() {
        val backend = Backend()
        val core = core().start(backend)
        assertThrows(IllegalArgumentException::class.java) { core.sendEvent(EventType.CUSTOM, null, null) }
        assertThrows(IllegalArgumentException::class.java) { core.sendEvent(EventType.CUSTOM, " ", null) }
        core.sendEvent(EventType.INSTALL, null, null)
        core.sendEvent(EventType.CUSTOM, "Boss Defeated", null)
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals("CUSTOM", backend.events().single()["event_type"])
    }

    @Test
    fun `a missing permission or an empty key disables the SDK through onError`() {
        val listener = Listener()
        val core = core().start(Backend(), listener = listener, device = FakeDevice(missing = listOf("android.permission.INTERNET")))
        assertTrue(listener.errors.single() is SecurityException)
        assertTrue(core.isSdkDisabled())
        val blank = Listener()
        val other = core().start(Backend(), listener = blank, apiKey = "")
        assertTrue(blank.errors.single() is IllegalArgumentException)
        assertTrue(other.isSdkDisabled())
    }

    @Test
    fun `a plain http address the app's network security refuses disables the SDK and says how to permit it, rather than fail as offline`() {
        val device = FakeDevice(cleartextRefusedTo = setOf("10.0.2.2"))
        for ((address, refused) in listOf("http://10.0.2.2:8787" to true, "https://10.0.2.2:8787" to false, "http://192.168.1.20:8787" to false)) {
            val errors = CopyOnWriteArrayList<Throwable>()
            val backend = Backend()
            val core = core()
            core.configure(platform(http = backend.transport, device = device), SdkSettings(baseUrl = address), "k", LogLevel.INFO, { errors.add(it) }, null)
            core.drain()
            assertEquals(address, refused, core.isSdkDisabled())
            if (refused) {
                val error = errors.single()
                assertTrue("$error", error is IllegalStateException && "plain http, which this app's network security configuration does not permit" in error.message!!)
                assertEquals(0, synchronized(backend.transport.requests) { backend.transport.requests.size })
            } else {
                assertEquals(address, emptyList<Throwable>(), errors.filter { it is IllegalStateException })
            }
        }
    }

    @Test
    fun `failed is retried until the match resolves, and the status key is not in Kotlin's map`() {
        val backend = Backend()
        val answers = ArrayDeque(listOf("{}", """{"service_match_status":"failed"}""", """{"service_match_status":"matched","media_source":"kotlin_ads","deep_link_path":"/levels/7"}"""))
        backend.attribution = { HttpResponse(200, synchronized(answers) { if (answers.size > 1) answers.removeFirst() else answers.first() }) }
        val core = core().start(backend)
        // The first attempt finishes as `failed`: nothing is known yet.
        assertEquals(emptyMap<String, String>(), runBlocking { core.awaitAttributionParams(null) })
        assertTrue(eventually { core.getAttributionParams(null).isNotEmpty() })
        assertEquals(mapOf("media_source" to "kotlin_ads", "deep_link_path" to "/levels/7"), core.getAttributionParams(null))
        assertTrue(backend.count("GET", "/v1/installs/") >= 3)
    }

    @Test
    fun `the raw referrer fills in what the backend's answer does not hold`() {
        val core = core().start(Backend())
        runBlocking { core.awaitAttributionParams(null) }
        assertEquals(
            mapOf("utm_source" to "google-play", "media_source" to "organic"),
            core.getAttributionParams("utm_source=google-play&media_source=ignored"),
        )
    }

    @Test
    fun `deleteUserData deletes on the backend and clears the cached attribution`() {
        val backend = Backend()
        val core = core().start(backend)
        runBlocking { core.awaitAttributionParams(null) }
        assertEquals("organic", core.getAttributionParams(null)["media_source"])
        runBlocking { core.deleteUserData() }
        assertEquals(emptyMap<String, String>(), core.getAttributionParams(null))
        assertEquals(1, backend.count("DELETE", "/v1/installs/${core.getServiceId()}"))
    }

    @Test
    fun `deleteUserData throws HttpException with the code when the backend refuses`() {
        val backend = Backend()
        backend.delete = { HttpResponse(500, """{"error":"Internal Server Error","detail":"x"}""") }
        val core = core().start(backend)
        val error = assertThrows(HttpException::class.java) { runBlocking { core.deleteUserData() } }
        assertEquals(500, error.code)
        assertThrows(IllegalStateException::class.java) { runBlocking { core().deleteUserData() } }
    }

    @Test
    fun `refreshConfig with a key now rejected throws and disables`() {
        val backend = Backend()
        val core = core().start(backend)
        backend.config = { HttpResponse(401, "{}") }
        val error = assertThrows(AuthenticationException::class.java) { runBlocking { core.refreshConfig() } }
        assertEquals(401, error.code)
        assertTrue(core.isSdkDisabled())
    }

    @Test
    fun `an event the backend cannot place yet is kept, the install reported again, and the event resent`() {
        val backend = Backend()
        var first = true
        backend.events = { events ->
            if (first) {
                first = false
                HttpResponse(202, """{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":null,"error":"Conflict","detail":"install","retryable":true}],"warnings":[]}""")
            } else {
                Backend.accepted(events.size)
            }
        }
        val core = core().start(backend)
        core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.events().size == 2 })
        assertEquals(backend.events()[0]["event_id"], backend.events()[1]["event_id"])
        assertEquals(2, backend.count("POST", "/v1/installs"))
    }

    @Test
    fun `offline events are kept in order and sent once the backend answers`() {
        val backend = Backend()
        val core = core().start(backend)
        assertTrue(eventually { backend.count("POST", "/v1/installs") == 1 })
        backend.events = { null }
        listOf(EventType.LOGIN, EventType.SHARE, EventType.SEARCH).forEach { core.sendEvent(it, null, null) }
        assertTrue(eventually { backend.count("POST", "/v1/events") >= 3 })
        backend.events = { HttpResponse(503, "{}") }
        assertTrue(eventually { backend.transport.requests.size > 8 })
        backend.events = { Backend.accepted(it.size) }
        assertTrue(eventually { backend.events().takeLast(3).map { it["event_type"] } == listOf("LOGIN", "SHARE", "SEARCH") })
        val lastBatch = backend.events().takeLast(3)
        assertEquals(3, lastBatch.map { it["event_id"] }.toSet().size)
    }

    @Test
    fun `events kept while offline are sent at the next launch`() {
        val backend = Backend()
        backend.config = { null }
        backend.installs = { null }
        val store = MemoryStore()
        val first = core().start(backend, store)
        first.sendEvent(EventType.LOGIN, null, null)
        first.sendEvent(EventType.SHARE, null, null)
        first.drain()
        first.close()
        val online = Backend()
        core().start(online, store)
        assertTrue(eventually { online.events().size == 2 })
        assertEquals(listOf("LOGIN", "SHARE"), online.events().map { it["event_type"] })
    }

    @Test
    fun `a request refused as a whole is dropped, not retried forever`() {
        val backend = Backend()
        backend.events = { HttpResponse(422, """{"error":"Unprocessable Entity","detail":"body"}""") }
        val core = core().start(backend)
        core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.count("POST", "/v1/events") == 1 })
        backend.events = { Backend.accepted(it.size) }
        core.sendEvent(EventType.SHARE, null, null)
        assertTrue(eventually { backend.count("POST", "/v1/events") == 2 })
        assertEquals(listOf("SHARE"), backend.events().drop(1).map { it["event_type"] })
    }

    @Test
    fun `a PII key the configuration keeps in clear is hashed, never sent in clear`() {
        val backend = Backend()
        backend.config = {
            HttpResponse(200, """{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":true,"key_id":"k1","public_key":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2sElZWhyuJZQHRJYyuCs5yDDUsQAOyUgS-iMltmJEKLd7j2MkxTcOA52-NAlfjZFixthC7rHwXw_94EtuH0jwg","algorithm":"x","envelope_version":"sv1","clear_keys":["email"]}}""")
        }
        val core = core().start(backend)
        core.sendEvent(EventType.SIGN_UP, null, mapOf("email" to "A@B.co", "gender" to "female"))
        assertTrue(eventually { backend.events().size == 1 })
        val params = backend.events()[0]["parameters"] as Map<*, *>
        assertEquals(Pii.sha256Marked("a@b.co"), params["email"])
        assertTrue(params["gender"].toString().startsWith("sv1.k1."))
    }

    @Test
    fun `the customer user id is kept for the next launch`() {
        val backend = Backend()
        val store = MemoryStore()
        val first = core().start(backend, store)
        first.setCustomerUserId("kept")
        first.drain()
        first.close()
        val second = core().start(backend, store)
        second.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { backend.events().size == 1 })
        assertEquals("kept", backend.events()[0]["customer_user_id"])
    }
}
