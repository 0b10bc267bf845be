package com.service.attribution.e2e

import com.service.attribution.Consent
import com.service.attribution.DropReason
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import com.service.attribution.core.DeviceSignals
import com.service.attribution.core.Draft
import com.service.attribution.core.Json
import com.service.attribution.core.Platform
import com.service.attribution.core.Requests
import com.service.attribution.core.SdkCore
import com.service.attribution.core.SdkSettings
import com.service.attribution.core.StoredQueue
import com.service.attribution.core.TcfSource
import com.service.attribution.core.TcfValues
import com.service.attribution.core.UrlConnectionTransport
import com.service.attribution.support.FakeDevice
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.RecordingLog
import com.service.attribution.support.RecordingMainThread
import com.service.attribution.support.RecordingTransport
import com.service.attribution.support.Service
import com.service.attribution.support.eventually
import com.service.attribution.support.pathOf
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList

/**
 * delivery.json's scenarios and the consent route end to end: the core against the real
 * embedded service (started by test.sh), through a relay where the network must misbehave.
 */
class DeliveryEndToEndTest {
    private val cores = ArrayList<SdkCore>()
    private val since = System.currentTimeMillis() / 1000 - 120

    @After
    fun close() = cores.forEach { it.close() }

    private inner class Launch(
        val store: MemoryStore = MemoryStore(),
        val baseUrl: String = Service.url,
        clock: () -> Long = System::currentTimeMillis,
        tcf: TcfValues = TcfValues(null, null),
        /** What Play services give: null with ad tracking limited or the id deleted. */
        @Volatile var advertisingId: String? = GAID,
    ) {
        val transport = RecordingTransport(UrlConnectionTransport(readTimeoutMs = 30_000))
        val core = SdkCore().also { cores += it }
        val errors = CopyOnWriteArrayList<ServiceError>()
        val log = RecordingLog()
        private val platform =
            Platform(store, signals(), { null }, RecordingMainThread(), log, transport, clock, TcfSource { tcf })

        /** The device, whose advertising id is read as Play services give it: [advertisingId] as it is at each read. */
        private fun signals(): DeviceSignals =
            object : DeviceSignals by FakeDevice() {
                override fun advertisingId() = this@Launch.advertisingId
            }

        init {
            core.setErrorListener { errors.add(it) }
        }

        fun configure(key: String): Launch {
            core.configure(platform, SdkSettings(baseUrl, retryDelayMs = 200, maxRetryDelayMs = 1_000), key, LogLevel.DEBUG, null, null)
            return this
        }

        fun accepted(): Int =
            transport.requests("POST", "/v1/events").filter { it.second?.code == 202 }.sumOf {
                (Json.parseObject(it.second!!.body)["accepted"] as Number).toInt()
            }
    }

    private fun names(records: List<Map<String, Any?>>) = records.map { it["event_name"] }

    private companion object {
        const val GAID = "38400000-8cf0-11bd-b23e-10b96e40000d"
    }

    @Test
    fun `a batch the network refuses with 413 loses the one event it holds, not a hundred`() {
        val app = Service.createApp("split")
        val relay = Relay(Service.url)
        relay.refuseEventsHolding = "poison-pill"
        relay.start()
        try {
            val launch = Launch(baseUrl = relay.url)
            // Before configure, so that they leave 100 a request.
            for (i in 0 until 150) launch.core.sendEvent(EventType.LEVEL_START, null, mapOf("i" to i, "tag" to if (i == 37) "poison-pill" else "ok"))
            launch.configure(app.sdkKey)
            assertTrue("149 accepted", eventually { launch.accepted() >= 149 && launch.errors.isNotEmpty() })
            // The last 202 is on record before the worker has taken its batch off the queue.
            launch.core.drain()
            assertEquals(listOf(ServiceError(ServiceErrorKind.EVENTS_DROPPED, DropReason.REFUSED, null, 1, "")), launch.errors.map { it.copy(message = "") })
            assertEquals(1L, launch.core.getDroppedEventCount())
            assertEquals(0, launch.core.queuedCount())
            // Halved, not sent one a request.
            assertTrue("${relay.refusedAsWhole.get()} refusals", relay.refusedAsWhole.get() <= 10)
            val records = Service.exportUntil(app, since) { names(it).count { n -> n == "service_level_start" } >= 149 }
            assertEquals(149, names(records).count { it == "service_level_start" })
        } finally {
            relay.stop()
        }
    }

    @Test
    fun `an install answered 404 is reported once to the error listener, nothing more is sent, and the next start delivers`() {
        val app = Service.createApp("notfound")
        val store = MemoryStore()
        // A wrong base path: every route answers 404.
        val wrong = Launch(store, baseUrl = Service.url + "/wrong-base").configure(app.sdkKey)
        assertTrue(eventually { wrong.errors.isNotEmpty() })
        wrong.core.sendEvent(EventType.LOGIN, null, null)
        wrong.core.sendEvent(EventType.SHARE, null, null)
        wrong.core.drain()
        assertEquals(listOf(ServiceError(ServiceErrorKind.CONFIGURATION, null, 404, 1, "")), wrong.errors.map { it.copy(message = "") })
        assertEquals(wrong.log.lines.toString(), 1, wrong.log.lines.count { it.first == LogLevel.ERROR && "install" in it.second })
        // Under the wrong base path.
        assertEquals(1, wrong.transport.exchanges.count { it.first.url.endsWith("/wrong-base/v1/installs") })
        assertEquals(0, wrong.transport.exchanges.count { it.first.url.endsWith("/v1/events") })
        assertEquals(2, wrong.core.queuedCount())
        wrong.core.close()

        // The app fixed and started again: the install and the kept events reach the service.
        val fixed = Launch(store).configure(app.sdkKey)
        assertTrue(eventually { fixed.accepted() >= 2 })
        val records = Service.exportUntil(app, since) { it.size == 3 }
        assertEquals(listOf("service_install", "service_login", "service_share"), names(records).map { it.toString() }.sorted())
    }

    @Test
    fun `consent set by the app and the consent platform's string reach the service, and a change goes through the consent route`() {
        val app = Service.createApp("consent")
        val tcf = "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA"
        val launch = Launch(tcf = TcfValues(tcf, 1))
        launch.core.setConsent(Consent(gdprApplies = true, adUserData = true, adPersonalization = false))
        launch.configure(app.sdkKey)
        assertTrue(eventually { launch.transport.requests("POST", "/v1/installs").any { it.second?.code == 202 } })
        val install = Json.parseObject(launch.transport.requests("POST", "/v1/installs").first().first.body!!)
        assertEquals(mapOf("gdpr_applies" to true, "ad_user_data" to true, "ad_personalization" to false, "tcf_string" to tcf), install["consent"])

        launch.core.setConsent(Consent(gdprApplies = true, adUserData = false, adPersonalization = false))
        val route = "/v1/installs/${launch.core.getServiceId()}/consent"
        assertTrue(eventually { launch.transport.requests("POST", route).any { it.second != null } })
        val (request, answer) = launch.transport.requests("POST", route).single()
        assertEquals(202, answer!!.code)
        val sent = Json.parseObject(request.body!!)
        val expected = mapOf("gdpr_applies" to true, "ad_user_data" to false, "ad_personalization" to false, "tcf_string" to tcf)
        assertEquals(expected, sent["consent"])
        // The service answers the consent it kept.
        assertEquals(expected, (Json.parseObject(answer.body)["consent"] as Map<*, *>).filterKeys { it in expected.keys })
        assertEquals(emptyList<ServiceError>(), launch.errors.toList())
    }

    @Test
    fun `an advertising id withdrawn after the install reaches the service at the next start, and the install's later events export without it`() {
        val app = Service.createApp("tracking")
        val store = MemoryStore()
        val first = Launch(store).configure(app.sdkKey)
        first.core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { first.accepted() >= 1 })
        assertEquals(GAID, Json.parseObject(first.transport.requests("POST", "/v1/installs").first().first.body!!)["maid"])
        first.core.drain()
        first.core.close()

        // Limit ad tracking turned on since: the next start tells the service, before its events.
        val next = Launch(store, advertisingId = null).configure(app.sdkKey)
        next.core.sendEvent(EventType.SEARCH, null, null)
        val route = "/v1/installs/${next.core.getServiceId()}/consent"
        assertTrue(eventually { next.accepted() >= 1 })
        val (request, answer) = next.transport.requests("POST", route).single()
        assertEquals(202, answer!!.code)
        assertEquals(mapOf("maid" to null, "att_status" to null), Json.parseObject(request.body!!)["device"])
        assertEquals(0, next.transport.exchanges.count { pathOf(it.first.url) == "/v1/installs" })
        val records = Service.exportUntil(app, since) { listOf("service_login", "service_search").all { n -> n in names(it) } }
        // The event sent before keeps the id the install reported; the one after has none.
        assertEquals(GAID, records.single { it["event_name"] == "service_login" }["maid"])
        assertEquals(null, records.single { it["event_name"] == "service_search" }["maid"])
        assertEquals(emptyList<ServiceError>(), next.errors.toList())
    }

    @Test
    fun `an advertising id withdrawn while the app was away a moment reaches the service before the next event, which exports without it`() {
        val app = Service.createApp("tracking-return")
        val launch = Launch().configure(app.sdkKey)
        launch.core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { launch.accepted() >= 1 })
        launch.core.drain()
        val sessions = launch.transport.requests("POST", "/v1/sessions").size

        // Limit ad tracking turned on in the Settings app; back well within the session interval.
        launch.advertisingId = null
        launch.core.onBackground()
        // The time in the Settings app: the worker has done with the app's going away (its
        // sending in the background) before the app returns and the next event is sent.
        launch.core.drain()
        launch.core.onForeground()
        launch.core.sendEvent(EventType.SEARCH, null, null)
        assertTrue(eventually { launch.accepted() >= 2 })
        val route = "/v1/installs/${launch.core.getServiceId()}/consent"
        val (request, answer) = launch.transport.requests("POST", route).single()
        assertEquals(202, answer!!.code)
        assertEquals(mapOf("maid" to null, "att_status" to null), Json.parseObject(request.body!!)["device"])
        // The update went before the event, and no session: the return continued the launch's.
        // The attribution's reads aside (a wait for it, `?wait_seconds=…`, may come at any time).
        val paths = launch.transport.exchanges.map { pathOf(it.first.url).substringBefore('?') }.filter { !it.startsWith("/v1/config") && !it.endsWith("/attribution") }
        assertEquals(listOf(route, "/v1/events"), paths.takeLast(2))
        assertEquals(sessions, launch.transport.requests("POST", "/v1/sessions").size)
        val records = Service.exportUntil(app, since) { listOf("service_login", "service_search").all { n -> n in names(it) } }
        assertEquals(GAID, records.single { it["event_name"] == "service_login" }["maid"])
        assertEquals(null, records.single { it["event_name"] == "service_search" }["maid"])
        assertEquals(emptyList<ServiceError>(), launch.errors.toList())
    }

    @Test
    fun `anonymous mode sends no advertising id and no customer user id, and the service records the events`() {
        val app = Service.createApp("anonymous")
        val launch = Launch()
        launch.core.setAnonymous(true)
        launch.core.setCustomerUserId("user-8812")
        launch.configure(app.sdkKey)
        launch.core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { launch.accepted() >= 1 })
        val install = Json.parseObject(launch.transport.requests("POST", "/v1/installs").first().first.body!!)
        assertEquals(null, install["maid"])
        assertEquals(null, install["customer_user_id"])
        // The event says it was sent anonymous, and the service took it so: accepted, no warning.
        val (request, answer) = launch.transport.requests("POST", "/v1/events").single { it.second?.code == 202 }
        assertEquals(true, (Json.parseObject(request.body!!)["events"] as List<*>).map { (it as Map<*, *>)["anonymous"] }.single())
        val verdict = Json.parseObject(answer!!.body)
        assertEquals(answer.body, listOf(1, emptyList<Any>(), emptyList<Any>()), listOf((verdict["accepted"] as Number).toInt(), verdict["rejected"], verdict["warnings"]))
        val records = Service.exportUntil(app, since) { "service_login" in names(it) }
        assertEquals(null, records.single { it["event_name"] == "service_login" }["customer_user_id"])
    }

    @Test
    fun `an event that leaves in anonymous mode after an install with an advertising id is stored with no device id and no customer user id`() {
        val app = Service.createApp("anonymous-later")
        val launch = Launch()
        launch.core.setCustomerUserId("user-8812")
        launch.configure(app.sdkKey)
        launch.core.sendEvent(EventType.LOGIN, null, null)
        assertTrue(eventually { launch.accepted() >= 1 })
        val install = Json.parseObject(launch.transport.requests("POST", "/v1/installs").first().first.body!!)
        assertEquals("38400000-8cf0-11bd-b23e-10b96e40000d", install["maid"])
        launch.core.setAnonymous(true)
        launch.core.sendEvent(EventType.SEARCH, null, null)
        assertTrue(eventually { launch.accepted() >= 2 })
        val sent = launch.transport.requests("POST", "/v1/events").map { Json.parseObject(it.first.body!!)["events"] as List<*> }.flatten().map { it as Map<*, *> }
        assertEquals(listOf(null, true), sent.map { it["anonymous"] })
        val records = Service.exportUntil(app, since) { listOf("service_login", "service_search").all { n -> n in names(it) } }
        // The install's advertising id and the user's id on the event sent before, none on the one sent anonymous.
        val login = records.single { it["event_name"] == "service_login" }
        val search = records.single { it["event_name"] == "service_search" }
        assertEquals(listOf("38400000-8cf0-11bd-b23e-10b96e40000d", "user-8812"), listOf(login["maid"], login["customer_user_id"]))
        assertEquals(listOf(null, null), listOf(search["maid"], search["customer_user_id"]))
        assertEquals(emptyList<ServiceError>(), launch.errors.toList())
    }

    @Test
    fun `events sent with the device clock 30 hours ahead carry sent_at and the service accepts them`() {
        val app = Service.createApp("clock")
        val ahead = 30L * 3600 * 1000
        val launch = Launch(clock = { System.currentTimeMillis() + ahead }).configure(app.sdkKey)
        launch.core.sendEvent(EventType.SEARCH, null, null)
        assertTrue(eventually { launch.accepted() >= 1 })
        val body = Json.parseObject(launch.transport.requests("POST", "/v1/events").last().first.body!!)
        val sentAt = java.time.Instant.parse(body["sent_at"] as String).toEpochMilli()
        assertTrue("sent_at $sentAt is the device clock", sentAt - System.currentTimeMillis() > ahead - 600_000)
        val records = Service.exportUntil(app, since) { "service_search" in names(it) }
        assertTrue(names(records).contains("service_search"))
        assertEquals(emptyList<ServiceError>(), launch.errors.toList())
    }

    /** A launch that records its install at the service and ends: the install's id, its store left. */
    private fun recordedInstall(sdkKey: String, store: MemoryStore): String {
        val first = Launch(store).configure(sdkKey)
        assertTrue(eventually { first.transport.requests("POST", "/v1/installs").any { it.second?.code == 202 } })
        val serviceId = Json.parseObject(first.transport.requests("POST", "/v1/installs").first().first.body!!)["service_id"] as String
        first.core.drain()
        first.core.close()
        return serviceId
    }

    @Test
    fun `an event made while the clock was two days ahead and sent once it is right again is stored, at its send`() {
        val app = Service.createApp("clock-back")
        val store = MemoryStore()
        val serviceId = recordedInstall(app.sdkKey, store)

        // Queued offline with the clock two days ahead; the clock is put right before it leaves.
        val ahead = System.currentTimeMillis() + 48L * 3600 * 1000
        val event = Requests.event(Draft(UUID.randomUUID().toString(), EventType.SEARCH, null, emptyMap(), ahead, null), emptyMap(), serviceId)
        store.put(StoredQueue.EVENTS, Json.write(event) + "\n")
        val next = Launch(store).configure(app.sdkKey)
        assertTrue(eventually { next.accepted() >= 1 && next.core.queuedCount() == 0 })
        val body = Json.parseObject(next.transport.requests("POST", "/v1/events").single().first.body!!)
        val sent = (body["events"] as List<*>).single() as Map<*, *>
        assertEquals(body["sent_at"], sent["event_time"])
        val records = Service.exportUntil(app, since) { "service_search" in names(it) }
        assertEquals(1, names(records).count { it == "service_search" })
        assertEquals(emptyList<ServiceError>(), next.errors.toList())
        assertEquals(0L, next.core.getDroppedEventCount())
    }

    @Test
    fun `an event the queue holds twice is stored once, and the repeat the service ignores is no drop`() {
        val app = Service.createApp("repeat")
        val store = MemoryStore()
        val serviceId = recordedInstall(app.sdkKey, store)

        // The same event twice in the queue kept on the device: one request carries both.
        val event = Requests.event(Draft(UUID.randomUUID().toString(), EventType.LOGIN, null, emptyMap(), System.currentTimeMillis(), null), emptyMap(), serviceId)
        store.put(StoredQueue.EVENTS, listOf(event, event).joinToString("") { Json.write(it) + "\n" })
        val next = Launch(store).configure(app.sdkKey)
        assertTrue(eventually { next.accepted() >= 1 && next.core.queuedCount() == 0 })
        val answer = next.transport.requests("POST", "/v1/events").single().second!!.body
        assertTrue(answer, "duplicate_event" in answer)

        // Delivered: nothing dropped, counted or told to the app.
        assertEquals(emptyList<ServiceError>(), next.errors.toList())
        assertEquals(0L, next.core.getDroppedEventCount())
        val records = Service.exportUntil(app, since) { "service_login" in names(it) }
        assertEquals(1, names(records).count { it == "service_login" })
    }
}
