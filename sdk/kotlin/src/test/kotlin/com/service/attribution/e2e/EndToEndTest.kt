package com.service.attribution.e2e

import com.service.attribution.AuthenticationException
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.InstallReferrerSource
import com.service.attribution.core.Platform
import com.service.attribution.core.Wrapper
import com.service.attribution.support.RecordingLog
import com.service.attribution.core.Json
import com.service.attribution.core.LinkParser
import com.service.attribution.core.SdkCore
import com.service.attribution.core.SdkSettings
import com.service.attribution.core.UrlConnectionTransport
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.RecordingTransport
import com.service.attribution.support.Service
import com.service.attribution.support.eventually
import com.service.attribution.support.platform
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.UUID
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.CopyOnWriteArrayList

/**
 * The SDK against the real embedded service (started by test.sh), over HTTP, with a fresh app
 * per test made with the service's CLI; nothing of the service is mocked. Each SdkCore is one
 * launch of the app; a second one on the same storage is the next launch.
 */
class EndToEndTest {
    private val launches = ArrayList<Launch>()
    private val since = System.currentTimeMillis() / 1000 - 120

    @After
    fun close() = launches.forEach { it.core.close() }

    private class Listener : InitListener {
        val errors = CopyOnWriteArrayList<Throwable>()
        val initialized = CountDownLatch(1)

        override fun onError(t: Throwable) {
            errors.add(t)
        }

        override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) = initialized.countDown()
    }

    private inner class Launch(
        val store: MemoryStore = MemoryStore(),
        val baseUrl: String = Service.url,
        referrer: InstallReferrerDetails? = null,
        referrerSource: InstallReferrerSource? = null,
    ) {
        val transport = RecordingTransport(UrlConnectionTransport(readTimeoutMs = 30_000))
        val core = SdkCore()
        val listener = Listener()
        val log = RecordingLog()
        private val platform =
            platform(store = store, http = transport, referrer = referrer, log = log).let {
                if (referrerSource == null) it else Platform(it.store, it.device, referrerSource, it.mainThread, it.log, it.http)
            }

        init {
            launches += this
        }

        fun configure(key: String, customerUserId: String? = null): Launch {
            core.configure(platform, SdkSettings(baseUrl, retryDelayMs = 200, maxRetryDelayMs = 1_000), key, LogLevel.DEBUG, listener, customerUserId)
            return this
        }

        fun awaitInitialized(): Launch {
            assertTrue("initialized", listener.initialized.await(30, TimeUnit.SECONDS))
            return this
        }

        /** Waits until every event handed over so far was answered by the service. */
        fun awaitSent(count: Int) {
            assertTrue("$count events accepted", eventually { acceptedEvents() >= count })
        }

        fun acceptedEvents(): Int =
            transport.requests("POST", "/v1/events").filter { it.second?.code == 202 }.sumOf {
                (Json.parseObject(it.second!!.body)["accepted"] as Number).toInt()
            }

        /** The sessions the service's 202 answers counted as accepted. */
        fun acceptedSessions(): Int =
            transport.requests("POST", "/v1/sessions").filter { it.second?.code == 202 }.sumOf {
                (Json.parseObject(it.second!!.body)["accepted"] as Number).toInt()
            }

        /** Every session sent, in the order the requests left. */
        fun sentSessions(): List<Map<*, *>> =
            transport.requests("POST", "/v1/sessions").flatMap { (Json.parseObject(it.first.body!!)["sessions"] as List<*>).map { s -> s as Map<*, *> } }
    }

    private fun names(records: List<Map<String, Any?>>) = records.map { it["event_name"] }

    @Test
    fun `configure fetches remote configuration and tracks the install once, not again at the next launch`() {
        val app = Service.createApp("install")
        val store = MemoryStore()
        val first = Launch(store).configure(app.sdkKey).awaitInitialized()
        assertTrue(first.core.isEnabled())
        assertNull(first.core.getLastInitError())
        assertEquals(1, first.transport.requests("GET", "/v1/config").size)
        assertTrue(eventually { first.transport.requests("POST", "/v1/installs").any { it.second?.code == 202 } })
        runBlocking { first.core.awaitAttributionParams(null) }
        first.core.drain()
        first.core.close()
        val second = Launch(store).configure(app.sdkKey).awaitInitialized()
        second.core.sendEvent(EventType.LOGIN, null, null)
        second.awaitSent(1)
        assertEquals(0, second.transport.requests("POST", "/v1/installs").size)
        assertEquals(first.core.getServiceId(), second.core.getServiceId())
        val records = Service.exportUntil(app, since) { names(it).containsAll(listOf("service_install", "service_login")) }
        assertEquals(listOf("service_install", "service_login"), names(records))
        assertEquals(setOf(first.core.getServiceId()), records.map { it["service_id"] }.toSet())
    }

    @Test
    fun `each start is a session the service accepts, reported after the install`() {
        val app = Service.createApp("sessions")
        val store = MemoryStore()
        val first = Launch(store).configure(app.sdkKey).awaitInitialized()
        assertTrue("a session accepted", eventually { first.acceptedSessions() == 1 })
        val (request, answer) = first.transport.requests("POST", "/v1/sessions").single()
        val verdict = Json.parseObject(answer!!.body)
        assertEquals(202, answer.code)
        assertEquals(emptyList<Any>(), verdict["ignored"])
        assertEquals(emptyList<Any>(), verdict["rejected"])
        val body = Json.parseObject(request.body!!)
        assertTrue(body["sent_at"].toString(), (body["sent_at"] as String).endsWith("Z"))
        val session = first.sentSessions().single()
        assertEquals(first.core.getServiceId(), session["service_id"])
        assertTrue(session.toString(), (session["started_at"] as String).endsWith("Z"))
        val order = first.transport.exchanges.map { "${it.first.method} ${it.first.url.substringAfter(Service.url)}" }
        assertTrue(order.toString(), order.indexOf("POST /v1/installs") < order.indexOf("POST /v1/sessions"))
        assertEquals(0L, first.core.droppedSessionCount())
        first.core.drain()
        first.core.close()

        // The next launch (a cold start): a session of its own, with a fresh id.
        val second = Launch(store).configure(app.sdkKey).awaitInitialized()
        assertTrue("a session accepted", eventually { second.acceptedSessions() == 1 })
        assertEquals(0, second.transport.requests("POST", "/v1/installs").size)
        assertTrue(second.sentSessions().single()["session_id"] != session["session_id"])
        // Sessions are not events: the export holds the install only.
        assertEquals(listOf("service_install"), names(Service.exportUntil(app, since) { it.isNotEmpty() }))
    }

    @Test
    fun `a session made without a network is kept on the device and accepted at the next launch`() {
        val app = Service.createApp("offlinesession")
        val store = MemoryStore()
        // A relay not started: its port refuses every connection.
        val offline = Launch(store, baseUrl = Relay(Service.url).url).configure(app.sdkKey)
        assertTrue("the session queued", eventually { offline.core.queuedSessionCount() == 1 })
        offline.core.close()
        val online = Launch(store).configure(app.sdkKey).awaitInitialized()
        assertTrue("both sessions accepted", eventually { online.acceptedSessions() == 2 })
        // The 202 is on record before the worker has taken the sessions off their queue.
        online.core.drain()
        val started = online.sentSessions().map { java.time.Instant.parse(it["started_at"] as String) }
        assertEquals(2, started.size)
        assertTrue(started.toString(), started[0] < started[1])
        assertEquals(0, online.core.queuedSessionCount())
    }

    @Test
    fun `a rejected key disables the SDK with AuthenticationException and its code`() {
        val launch = Launch().configure("sdk_0000000000000000_not-a-key")
        assertTrue(eventually { launch.listener.errors.isNotEmpty() })
        val error = launch.listener.errors.single() as AuthenticationException
        assertEquals(401, error.code)
        assertSame(error, launch.core.getLastInitError())
        assertTrue(launch.core.isSdkDisabled())
        launch.core.sendEvent(EventType.LOGIN, null, null)
        launch.core.drain()
        assertEquals(listOf("GET /v1/config"), launch.transport.exchanges.map { "${it.first.method} ${it.first.url.substringAfter(Service.url)}" })
    }

    @Test
    fun `an app switched off in its remote configuration makes the SDK send nothing`() {
        val app = Service.createApp("off")
        Service.configApp(app, "--disable")
        val launch = Launch()
        launch.core.sendEvent(EventType.LOGIN, null, null)
        launch.configure(app.sdkKey).awaitInitialized()
        launch.core.sendEvent(EventType.SHARE, null, null)
        launch.core.drain()
        Thread.sleep(500)
        assertTrue(launch.core.isSdkDisabled())
        assertFalse(launch.core.isEnabled())
        assertEquals(setOf("GET"), launch.transport.exchanges.map { it.first.method }.toSet())
        assertEquals(emptyMap<String, String>(), launch.core.getAttributionParams(null))
        assertEquals(emptyList<Any>(), Service.export(app, since))
    }

    @Test
    fun `refreshConfig follows the owner switching the app off and on again`() {
        val app = Service.createApp("refresh")
        val launch = Launch().configure(app.sdkKey).awaitInitialized()
        Service.configApp(app, "--disable")
        runBlocking { launch.core.refreshConfig() }
        assertFalse(launch.core.isEnabled())
        assertTrue(launch.core.isSdkDisabled())
        launch.core.sendEvent(EventType.SHARE, null, null)
        launch.core.drain()
        assertEquals(0, launch.transport.requests("POST", "/v1/events").size)
        Service.configApp(app, "--enable")
        runBlocking { launch.core.refreshConfig() }
        assertTrue(launch.core.isEnabled())
        launch.core.sendEvent(EventType.SEARCH, null, null)
        launch.awaitSent(1)
        val records = Service.exportUntil(app, since) { "service_search" in names(it) }
        assertEquals(listOf("service_search"), names(records).filter { it != "service_install" })
    }

    @Test
    fun `a repeat configure is a no-op, its customer user id included`() {
        val app = Service.createApp("repeat")
        val launch = Launch().configure(app.sdkKey, customerUserId = "first-user").awaitInitialized()
        launch.configure(app.sdkKey, customerUserId = "second-user")
        launch.core.sendEvent(EventType.LOGIN, null, null)
        launch.awaitSent(1)
        assertEquals(1, launch.transport.requests("GET", "/v1/config").size)
        val records = Service.exportUntil(app, since) { "service_login" in names(it) }
        assertEquals("first-user", records.first { it["event_name"] == "service_login" }["customer_user_id"])
    }

    @Test
    fun `events of every type reach the export with their names, revenue with revenue_usd`() {
        val app = Service.createApp("types")
        val launch = Launch().configure(app.sdkKey).awaitInitialized()
        val sendable = EventType.values().filter { it != EventType.INSTALL }
        for (type in sendable) {
            val parameters = if (type == EventType.PURCHASE) mapOf("revenue" to 9.99, "currency" to "USD") else mapOf("kind" to type.name)
            launch.core.sendEvent(type, if (type == EventType.CUSTOM) "Boss Defeated" else null, parameters)
        }
        launch.core.sendEvent(EventType.SUBSCRIBE, null, mapOf("revenue" to "4.50", "currency" to "EUR"))
        launch.core.sendEvent(EventType.INSTALL, null, null)
        launch.awaitSent(sendable.size + 1)
        val expected = sendable.map { if (it == EventType.CUSTOM) "service_boss_defeated" else "service_" + it.name.lowercase() } + "service_subscribe"
        val records = Service.exportUntil(app, since) { it.size >= expected.size + 1 }
        assertEquals((expected + "service_install").sorted(), names(records).map { it.toString() }.sorted())
        val purchase = records.single { it["event_name"] == "service_purchase" }
        assertEquals(9.99, (purchase["revenue"] as Number).toDouble(), 1e-9)
        assertEquals("USD", purchase["currency"])
        assertEquals(9.99, (purchase["revenue_usd"] as Number).toDouble(), 1e-9)
        val subscription = records.filter { it["event_name"] == "service_subscribe" }.single { it["currency"] == "EUR" }
        assertEquals(4.5, (subscription["revenue"] as Number).toDouble(), 1e-9)
        assertTrue(subscription.containsKey("revenue_usd"))
    }

    @Test
    fun `a customer user id applies from the next event on, and a server event for it joins the install`() {
        val app = Service.createApp("user")
        val launch = Launch().configure(app.sdkKey).awaitInitialized()
        launch.core.sendEvent(EventType.LOGIN, null, null)
        Thread.sleep(5)
        launch.core.setCustomerUserId("user-e2e")
        launch.core.sendEvent(EventType.LEVEL_START, null, mapOf("level" to 1))
        launch.awaitSent(2)
        val s2s = mapOf("events" to listOf(mapOf("event_id" to UUID.randomUUID().toString(), "event_type" to "PURCHASE", "event_time" to java.time.Instant.now().toString(), "customer_user_id" to "user-e2e", "parameters" to mapOf("revenue" to 2, "currency" to "USD"))))
        val (code, body) = Service.request("POST", "${Service.url}/v1/s2s/events", app.serverKey, Json.write(s2s))
        assertEquals(body, 202, code)
        assertEquals(1, (Json.parseObject(body)["accepted"] as Number).toInt())
        val records = Service.exportUntil(app, since) { names(it).containsAll(listOf("service_login", "service_level_start", "service_purchase")) }
        val byName = records.associateBy { it["event_name"] }
        assertNull(byName.getValue("service_login")["customer_user_id"])
        assertEquals("user-e2e", byName.getValue("service_level_start")["customer_user_id"])
        assertEquals(launch.core.getServiceId(), byName.getValue("service_purchase")["service_id"])
    }

    @Test
    fun `attribution goes from not yet known to matched with the link's deep_link_path after a tap`() {
        val app = Service.createApp("matched")
        val link = Service.createLink(app, "/levels/7", "promo=WINTER")
        val referrer = Service.tapFromAndroid(link)
        assertTrue(referrer, referrer.contains("service_click_id="))
        val store = MemoryStore()
        val launch = Launch(store, referrer = InstallReferrerDetails(referrer)).configure(app.sdkKey)
        assertEquals(emptyMap<String, String>(), launch.core.getAttributionParams(null))
        val params = runBlocking { withTimeout(60_000) { launch.core.awaitAttributionParams(null) } }
        assertEquals("/levels/7", params["deep_link_path"])
        assertEquals("WINTER", params["promo"])
        assertEquals("kotlin_ads", params["media_source"])
        assertFalse(params.containsKey(SdkCore.MATCH_STATUS))
        // The answer is kept: the next launch knows it at once, without asking again.
        launch.core.drain()
        launch.core.close()
        val next = Launch(store).configure(app.sdkKey)
        assertEquals(params, next.core.getAttributionParams(null))
        next.awaitInitialized()
        assertEquals(0, next.transport.requests("GET", "/v1/installs/").size)
    }

    @Test
    fun `attribution is organic without a click`() {
        val app = Service.createApp("organic")
        val launch = Launch().configure(app.sdkKey)
        val params = runBlocking { withTimeout(60_000) { launch.core.awaitAttributionParams(null) } }
        assertEquals("organic", params["media_source"])
        assertNull(params["deep_link_path"])
    }

    @Test
    fun `attribution that failed offline is asked again and resolves once the network is back`() {
        val app = Service.createApp("failed")
        val relay = Relay(Service.url)
        try {
            val launch = Launch(baseUrl = relay.url).configure(app.sdkKey)
            // Offline, the install never reached the service: the first attempt ends unresolved.
            val offline = runBlocking { withTimeout(60_000) { launch.core.awaitAttributionParams(null) } }
            assertEquals(emptyMap<String, String>(), offline)
            relay.start()
            assertTrue(eventually { launch.core.getAttributionParams(null)["media_source"] == "organic" })
        } finally {
            relay.stop()
        }
    }

    @Test
    fun `deleteUserData makes the install vanish from the export and clears the cached attribution`() {
        val app = Service.createApp("delete")
        val launch = Launch().configure(app.sdkKey).awaitInitialized()
        launch.core.sendEvent(EventType.LOGIN, null, null)
        launch.awaitSent(1)
        runBlocking { launch.core.awaitAttributionParams(null) }
        assertTrue(launch.core.getAttributionParams(null).isNotEmpty())
        val id = launch.core.getServiceId()
        val before = Service.exportUntil(app, since) { it.size == 2 }
        assertEquals(listOf("service_install", "service_login"), names(before))
        assertTrue(before.all { it["service_id"] == id })
        runBlocking { launch.core.deleteUserData() }
        assertEquals(emptyMap<String, String>(), launch.core.getAttributionParams(null))
        assertEquals(emptyList<Any>(), Service.exportUntil(app, since) { it.isEmpty() })
    }

    @Test
    fun `a link made by the service parses without network before configure`() {
        val app = Service.createApp("links")
        val url = Service.createLink(app, "/shop/sale", "promo=SPRING 25")
        val core = SdkCore().also { launches += Launch() }
        assertTrue(core.isSdkDisabled())
        val link = LinkParser.parse(url, LinkOptions(setOf("127.0.0.1")))!!
        assertEquals(url.substringAfterLast('/').substringBefore('?'), link.deeplinkId)
        assertEquals(mapOf("deep_link_path" to "/shop/sale", "promo" to "SPRING 25"), link.queryParams)
        assertNull(LinkParser.parse(url, LinkOptions(setOf("go.example.com"))))
    }

    @Test
    fun `offline and after server errors events are kept, sent later in order, once in the export`() {
        val app = Service.createApp("offline")
        val relay = Relay(Service.url)
        try {
            val launch = Launch(baseUrl = relay.url).configure(app.sdkKey)
            // No connection at all: the configuration fetch fails and the SDK goes on with its placeholder.
            assertTrue(eventually { launch.listener.errors.isNotEmpty() })
            val sequence = listOf(EventType.LOGIN, EventType.LEVEL_START, EventType.LEVEL_COMPLETE, EventType.SHARE, EventType.SEARCH)
            for (type in sequence.take(3)) {
                launch.core.sendEvent(type, null, null)
                Thread.sleep(3)
            }
            assertTrue(eventually { launch.transport.exchanges.count { it.second == null } >= 3 })
            relay.mode = Relay.Mode.SERVER_ERROR
            relay.start()
            assertTrue(eventually { launch.transport.exchanges.any { it.second?.code == 503 } })
            for (type in sequence.drop(3)) {
                launch.core.sendEvent(type, null, null)
                Thread.sleep(3)
            }
            relay.mode = Relay.Mode.LOSE_EVENTS_ANSWER
            launch.awaitSent(5)
            assertEquals(1, relay.lostAnswers.get())
            val expected = sequence.map { "service_" + it.name.lowercase() }
            val records = Service.exportUntil(app, since) { names(it).filter { n -> n != "service_install" } == expected }
            assertEquals(expected, names(records).filter { it != "service_install" })
        } finally {
            relay.stop()
        }
    }

    @Test
    fun `events kept while offline are sent at the next launch`() {
        val app = Service.createApp("relaunch")
        val store = MemoryStore()
        val closed = Relay(Service.url)
        val offline = Launch(store, baseUrl = closed.url).configure(app.sdkKey)
        assertTrue(eventually { offline.listener.errors.isNotEmpty() })
        offline.core.sendEvent(EventType.TUTORIAL_COMPLETE, null, null)
        Thread.sleep(3)
        offline.core.sendEvent(EventType.VIEW_ITEM, null, mapOf("sku" to "gem-pack"))
        offline.core.drain()
        offline.core.close()
        val online = Launch(store).configure(app.sdkKey).awaitInitialized()
        online.awaitSent(2)
        val records = Service.exportUntil(app, since) { it.size == 3 }
        assertEquals(listOf("service_tutorial_complete", "service_view_item"), names(records).filter { it != "service_install" })
        assertEquals(setOf(online.core.getServiceId()), records.map { it["service_id"] }.toSet())
    }

    @Test
    fun `with sealing on matching parameters leave the device sealed and the event is accepted`() {
        val app = Service.createApp("sealed")
        Service.configApp(app, "--encryption", "on")
        val launch = Launch().configure(app.sdkKey).awaitInitialized()
        launch.core.sendEvent(EventType.SIGN_UP, null, mapOf("email" to "Jane.Doe@Example.com", "method" to "email", "revenue" to 1, "currency" to "USD"))
        launch.awaitSent(1)
        val sent = Json.parseObject(launch.transport.requests("POST", "/v1/events").last().first.body!!)
        val parameters = ((sent["events"] as List<*>).single() as Map<*, *>)["parameters"] as Map<*, *>
        assertTrue(parameters["email"].toString().startsWith("sv1."))
        assertEquals("email", parameters["method"])
        val records = Service.exportUntil(app, since) { "service_sign_up" in names(it) }
        assertEquals(1.0, (records.single { it["event_name"] == "service_sign_up" }["revenue"] as Number).toDouble(), 1e-9)
    }

    @Test
    fun `events the service refuses for good are dropped with one error each, and what follows is delivered`() {
        val app = Service.createApp("refused")
        val launch = Launch()
        // Before configure completes, so that the three leave in one request: refused as a whole
        // (a body over the service's 1 MiB), then one at a time, so only the culprit is lost.
        launch.core.sendEvent(EventType.VIEW_ITEM, null, mapOf("pages" to List(1_100) { "p".repeat(1_000) }))
        launch.core.sendEvent(EventType.LOGIN, null, null)
        launch.configure(app.sdkKey).awaitInitialized()
        launch.awaitSent(1)
        // Refused on its own (an event name over the service's 100 characters).
        launch.core.sendEvent(EventType.CUSTOM, "n".repeat(101), null)
        launch.core.sendEvent(EventType.SHARE, null, null)
        launch.awaitSent(2)
        val records = Service.exportUntil(app, since) { it.size == 3 }
        // The login was sent before configure, so before the install's first open.
        assertEquals(listOf("service_install", "service_login", "service_share"), names(records).map { it.toString() }.sorted())
        val errors = launch.log.lines.filter { it.first == LogLevel.ERROR }.map { it.second }
        assertEquals(errors.toString(), 2, errors.size)
        assertTrue(errors.toString(), errors.any { "HTTP 413" in it })
        assertTrue(errors.toString(), errors.any { "event_name" in it })
    }

    @Test
    fun `without the install referrer library (NoClassDefFoundError) the install is sent, with one warning`() {
        val app = Service.createApp("noreferrer")
        val launch = Launch(referrerSource = { throw NoClassDefFoundError("com/android/installreferrer/api/InstallReferrerClient") })
        launch.configure(app.sdkKey).awaitInitialized()
        launch.core.sendEvent(EventType.LOGIN, null, null)
        val records = Service.exportUntil(app, since) { it.size == 2 }
        assertEquals(listOf("service_install", "service_login"), names(records))
        val warnings = launch.log.lines.filter { it.first == LogLevel.WARN }.map { it.second }
        assertEquals(warnings.toString(), 1, warnings.count { "install referrer library is missing" in it })
    }

    @Test
    fun `under the Flutter plugin with sealing on, custom values leave the device sealed, the service opens them, revenue stays clear`() {
        val app = Service.createApp("rule4")
        Service.configApp(app, "--encryption", "on")
        val launch = Launch()
        launch.core.wrapper = Wrapper("flutter", "2.10.0", sealsCustomValues = true)
        launch.configure(app.sdkKey).awaitInitialized()
        val parameters =
            mapOf(
                "revenue" to 9.99,
                "currency" to "EUR",
                "campaign" to "Winter",
                "email" to " Jane.Doe@Example.com ",
                "plan" to "gold",
                "level" to 7,
                "items" to listOf(mapOf("sku" to "gem-pack", "quantity" to 2), null, "note"),
            )
        launch.core.sendEvent(EventType.PURCHASE, null, parameters)
        launch.awaitSent(1)
        val sentEvent = (Json.parseObject(launch.transport.requests("POST", "/v1/events").last().first.body!!)["events"] as List<*>).single() as Map<*, *>
        val sent = sentEvent["parameters"] as Map<*, *>
        assertEquals(9.99, (sent["revenue"] as Number).toDouble(), 1e-9)
        assertEquals("EUR", sent["currency"])
        assertEquals("Winter", sent["campaign"])
        for (key in listOf("email", "plan", "level")) assertTrue("$key: ${sent[key]}", sent[key].toString().startsWith("sv1."))
        val items = sent["items"] as List<*>
        assertTrue(((items[0] as Map<*, *>)["sku"]).toString().startsWith("sv1."))
        assertNull(items[1])

        val records = Service.exportUntil(app, since) { "service_purchase" in names(it) }
        val purchase = records.single { it["event_name"] == "service_purchase" }
        assertEquals(9.99, (purchase["revenue"] as Number).toDouble(), 1e-9)
        assertEquals("EUR", purchase["currency"])
        val (stored, opened) = Service.storedParameters(app, sentEvent["event_id"] as String)
        assertEquals("gold", opened["plan"])
        assertEquals(7, (opened["level"] as Number).toInt())
        assertEquals(listOf(mapOf("sku" to "gem-pack", "quantity" to 2), null, "note"), Json.parse(Json.write(opened["items"])).let { Json.parse(Json.write(it)) }.let { list -> (list as List<*>).map { item -> if (item is Map<*, *>) item.mapValues { (_, v) -> if (v is Number) v.toInt() else v } else item } })
        assertEquals("jane.doe@example.com", opened["email"])
        assertTrue(stored["plan"].toString().startsWith("sv1."))
        assertEquals("EUR", stored["currency"])
    }
}
