package com.service.attribution.conformance

import com.service.attribution.Consent
import com.service.attribution.EventType
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.core.CustomValues
import com.service.attribution.core.Drafts
import com.service.attribution.core.Encryption
import com.service.attribution.core.Fields
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.Json
import com.service.attribution.core.LinkParser
import com.service.attribution.core.Logger
import com.service.attribution.core.Pii
import com.service.attribution.core.Requests
import com.service.attribution.core.Sealer
import com.service.attribution.core.TcfValues
import com.service.attribution.support.FakeDevice
import com.service.attribution.support.RecordingLog
import com.service.attribution.support.Vectors
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters
import java.net.URI
import java.util.Date

private typealias Case = Map<String, Any?>

private fun named(cases: List<Case>): List<Array<Any>> = cases.map { arrayOf(it["name"] as String, it) }

@Suppress("UNCHECKED_CAST")
private fun <T> Any?.cast(): T = this as T

/** event-types.json: the enum's cases are the wire values, in the spec's order. */
class EventTypeVectorsTest {
    @Test
    fun `the enum lists the wire values in order`() {
        val types = Vectors.conformance("event-types.json")["eventTypes"].cast<List<Case>>()
        assertEquals(types.map { it["wire"] }, EventType.values().map { it.name })
    }

    @Test
    fun `only INSTALL is not sent by sendEvent`() {
        val types = Vectors.conformance("event-types.json")["eventTypes"].cast<List<Case>>()
        for (type in types) {
            val event = EventType.valueOf(type["wire"] as String)
            val draft = Drafts.create(event, if (event == EventType.CUSTOM) "x" else null, null, 0, null, Logger(RecordingLog(), LogLevel.NONE))
            assertEquals(type["wire"] as String, type["sentBySendEvent"], draft != null)
        }
    }
}

/** parameters.json: what sendEvent sends, drops or throws on Kotlin. */
@RunWith(Parameterized::class)
class ParameterVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.cases("parameters.json").filter { it["expect"].cast<Case>().containsKey("kotlin") })

        /** The Kotlin value each `$special` stands for. */
        fun native(value: Any?): Any? =
            when (value) {
                is Map<*, *> ->
                    when (value["\$special"]) {
                        null -> value.mapValues { native(it.value) }
                        "nan" -> Double.NaN
                        "infinity" -> Double.POSITIVE_INFINITY
                        "negativeInfinity" -> Double.NEGATIVE_INFINITY
                        "dateTime" -> Date()
                        "uri" -> URI("https://example.com/")
                        "set" -> linkedSetOf("a", "b")
                        "bytes" -> byteArrayOf(1, 2)
                        "object" -> Any()
                        "intKeyedMap" -> mapOf(1 to "a")
                        else -> error("unknown special ${value["\$special"]}")
                    }
                is List<*> -> value.map(::native)
                else -> value
            }
    }

    @Test
    fun kotlin() {
        val input = case["input"].cast<Case>()
        val expect = case["expect"].cast<Case>()["kotlin"].cast<Case>()
        val create = {
            Drafts.create(
                EventType.valueOf(input["eventType"] as String),
                input["eventName"] as String?,
                native(input["parameters"]).cast<Map<String, Any?>?>(),
                0,
                null,
                Logger(RecordingLog(), LogLevel.NONE),
            )
        }
        when {
            expect.containsKey("throws") -> {
                assertEquals("IllegalArgumentException", expect["throws"])
                assertThrows(IllegalArgumentException::class.java) { create() }
            }
            expect["dropped"] == true -> assertNull(create())
            else -> {
                val draft = create()!!
                val sent = Requests.event(draft, draft.parameters, "sid")
                val want = expect["sent"].cast<Case>()
                assertEquals(want["event_type"], sent["event_type"])
                assertEquals(want["event_name"], sent["event_name"])
                Vectors.assertSameJson(name, want["parameters"], sent["parameters"])
            }
        }
    }
}

/** links.json: handleAppLink's parsing, from the URL alone. */
@RunWith(Parameterized::class)
class LinkVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.cases("links.json"))
    }

    @Test
    fun kotlin() {
        val expect = case["platforms"].cast<Case?>()?.get("kotlin").cast<Case?>() ?: case["expect"].cast<Case>()
        val hosts = case["allowedHosts"].cast<List<String>?>()?.toSet()
        val parse = { LinkParser.parse(case["url"] as String, LinkOptions(hosts)) }
        if (expect.containsKey("throws")) {
            assertEquals("IllegalArgumentException", expect["throws"].cast<Case>()["kotlin"])
            assertThrows(IllegalArgumentException::class.java) { parse() }
            return
        }
        val want = expect["result"].cast<Case?>()
        val got = parse()
        if (want == null) return assertNull(name, got)
        assertEquals(name, want["deeplinkId"], got?.deeplinkId)
        assertEquals(name, want["queryParams"], got?.queryParams)
    }
}

/** customer-user-ids.json: the ids kept, those refused on the device, the blank ones that are none. */
@RunWith(Parameterized::class)
class CustomerUserIdVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.cases("customer-user-ids.json"))
    }

    @Test
    fun `kept as given, refused, or no id`() {
        val value =
            when (val raw = case["value"]) {
                is String -> raw
                else -> raw.cast<Case>().let { (it["repeat"] as String).repeat((it["times"] as Number).toInt()) }
            }
        when (case["outcome"]) {
            "kept" -> assertEquals(name, value, Fields.customerUserId(value))
            "refused" -> {
                assertNull(name, Fields.customerUserId(value))
                assertTrue(name, Fields.customerUserIdProblem(value) != null)
            }
            else -> {
                assertTrue(name, value.isBlank())
                assertNull(name, Fields.customerUserId(value))
            }
        }
    }
}

/** log-levels.json: LogLevel's cases and which lines each lets through. */
class LogLevelVectorsTest {
    private val vectors = Vectors.conformance("log-levels.json")

    @Test
    fun `LogLevel has the five cases`() {
        assertEquals(vectors["kotlinLevels"], LogLevel.values().map { it.name })
        assertEquals(vectors["default"].cast<Case>()["kotlin"], LogLevel.INFO.name)
    }

    @Test
    fun `each level shows the lines at or above it, NONE none`() {
        val shown = vectors["shown"].cast<Map<String, List<String>>>()
        for (configured in LogLevel.values()) {
            val lines = RecordingLog()
            val log = Logger(lines, configured)
            log.debug("d")
            log.info("i")
            log.warn("w")
            log.error("e")
            assertEquals(configured.name, shown[configured.name], lines.lines.map { it.first.name })
        }
    }
}

/** pii.json: matching parameters hashed with sealing off, sealed with it on. */
@RunWith(Parameterized::class)
class PiiVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.cases("pii.json"))
    }

    private val recipient = Vectors.recipient
    private val sealer = Sealer(recipient["keyId"] as String, recipient["publicKeySpki"] as String)
    private val pii = Pii { sealer.seal(it.toByteArray()) }

    @Test
    fun `sealing off`() {
        val got = pii.protect(case["parameters"].cast(), Encryption.Off).parameters
        Vectors.assertSameJson(name, case["encryptionOff"], got)
    }

    @Test
    fun `sealing on`() {
        val on = Encryption.On(recipient["keyId"] as String, recipient["publicKeySpki"] as String, emptySet())
        val got = pii.protect(case["parameters"].cast(), on).parameters
        Vectors.Matcher().match(case["encryptionOn"], Json.parse(Json.write(got)))
    }
}

/** pii.json `customValues`: under the Flutter plugin, every other value sealed leaf by leaf. */
@RunWith(Parameterized::class)
class CustomValueVectorsTest(private val name: String, private val case: Case) {
    companion object {
        private val vectors get() = Vectors.conformance("pii.json")["customValues"].cast<Case>()

        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(vectors["cases"].cast())
    }

    @Test
    fun `sealing on`() {
        val recipient = Vectors.recipient
        val sealer = Sealer(recipient["keyId"] as String, recipient["publicKeySpki"] as String)
        val clearKeys = vectors["clearKeys"].cast<List<String>>().toSet()
        val got = CustomValues.seal(case["parameters"].cast(), clearKeys) { sealer.seal(it.toByteArray()) }
        Vectors.Matcher().match(case["encryptionOn"], Json.parse(Json.write(got.parameters)))
        assertEquals(name, case["dropped"], got.dropped)
    }
}

/** spec/encryption-test-vectors.json: the sealer reproduces every envelope. */
@RunWith(Parameterized::class)
class SealingVectorsTest(private val name: String, private val vector: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = Vectors.sealing["vectors"].cast<List<Case>>().map { arrayOf(it["name"] as String, it) }

        fun hex(text: String) = ByteArray(text.length / 2) { text.substring(it * 2, it * 2 + 2).toInt(16).toByte() }
    }

    @Test
    fun `seals to the published envelope`() {
        val recipient = Vectors.recipient
        val sealer = Sealer(recipient["keyId"] as String, recipient["publicKeySpki"] as String)
        val ephemeral = Sealer.keyPair(hex(vector["ephemeralPrivateKeyHex"] as String), hex(vector["ephemeralPublicKeyHex"] as String))
        val envelope = sealer.seal(hex(vector["plaintextHex"] as String), ephemeral, hex(vector["nonceHex"] as String))
        assertEquals(name, vector["envelope"], envelope)
        assertEquals(vector["plaintext"], Vectors.open(envelope))
        // The SDK's own JSON text of the value opens to the same value.
        assertEquals(Json.parse(vector["plaintext"] as String), Json.parse(Json.write(vector["value"])))
    }
}

/** requests.json: the install bodies Kotlin builds from the device's signals. */
@RunWith(Parameterized::class)
class InstallRequestVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.conformance("requests.json")["installs"].cast<List<Case>>().filter { "kotlin" in it["platforms"].cast<List<String>>() })
    }

    @Test
    fun kotlin() {
        val input = case["input"].cast<Case>()
        val d = input["device"].cast<Case>()
        val r = input["installReferrer"].cast<Case?>()
        val harness =
            Harness(
                device = FakeDevice(d["osVersion"] as String?, d["deviceModel"] as String?, d["appVersion"] as String?, d["locale"] as String?, d["timezone"] as String?, d["advertisingId"] as String?),
                referrer =
                    r?.let {
                        InstallReferrerDetails(
                            it["referrer"] as String,
                            (it["clickTimestampSeconds"] as Number).toLong(),
                            (it["installBeginTimestampSeconds"] as Number).toLong(),
                            (it["referrerClickTimestampServerSeconds"] as Number).toLong(),
                            (it["installBeginTimestampServerSeconds"] as Number).toLong(),
                            it["installVersion"] as String?,
                        )
                    },
                tcf = tcf(input["tcf"].cast()),
            )
        harness.configure(input["customerUserId"] as String?, input["openUrl"] as String?, consent(input["consent"].cast()), input["anonymous"] == true)
        val request = case["request"].cast<Case>()
        val bodies = harness.bodies("POST", request["path"] as String)
        assertEquals(name, 1, bodies.size)
        Vectors.Matcher().match(request["body"], bodies.single())
    }
}

/** requests.json: the events a run of sendEvent and setCustomerUserId sends, in order. */
@RunWith(Parameterized::class)
class EventRequestVectorsTest(private val name: String, private val case: Case) {
    companion object {
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = named(Vectors.conformance("requests.json")["events"].cast<List<Case>>().filter { "kotlin" in it["platforms"].cast<List<String>>() })
    }

    @Test
    fun kotlin() {
        val input = case["input"].cast<Case>()
        val harness = Harness(encryption = input["encryption"].cast())
        harness.configure(anonymous = input["anonymous"] == true)
        for (step in input["steps"].cast<List<Case>>()) {
            if (step.containsKey("setCustomerUserId")) {
                // A string (or null), or an object holding it as `customerUserId`.
                val value = step["setCustomerUserId"]
                harness.core.setCustomerUserId(if (value is Map<*, *>) value["customerUserId"] as String? else value as String?)
            } else {
                val call = step["sendEvent"].cast<Case>()
                harness.core.sendEvent(EventType.valueOf(call["eventType"] as String), call["eventName"] as String?, call["parameters"].cast())
            }
        }
        val body = case["request"].cast<Case>()["body"].cast<Case>()
        Vectors.Matcher().match(body["events"], harness.sentEvents())
        // Each request's envelope: sent_at, then the events (matched above across requests).
        val envelope = body.filterKeys { it != "events" }
        for (request in harness.bodies("POST", "/v1/events")) Vectors.Matcher().match(envelope, request.filterKeys { it != "events" })
    }
}

private fun tcf(input: Case?): TcfValues =
    TcfValues(input?.get("IABTCF_TCString") as String?, (input?.get("IABTCF_gdprApplies") as Number?)?.toInt())

private fun consent(input: Case?): Consent? =
    input?.let { Consent(it["gdprApplies"] as Boolean?, it["adUserData"] as Boolean?, it["adPersonalization"] as Boolean?) }

/** requests.json: the body-less requests, by path and method. */
class OtherRequestVectorsTest {
    @Test
    fun `configure, attribution and deleteUserData call the vectors' routes`() {
        val other = Vectors.conformance("requests.json")["other"].cast<List<Case>>().associate { it["name"] as String to it["request"].cast<Case>() }
        val harness = Harness()
        harness.configure()
        runBlocking {
            harness.core.awaitAttributionParams(null)
            harness.core.deleteUserData()
        }
        val sent = synchronized(harness.transport.requests) { harness.transport.requests.toList() }
        val id = harness.core.getServiceId()!!
        fun seen(request: Case): Boolean {
            val path = (request["path"] as String).replace("{{service_id}}", id)
            return sent.any { it.method == request["method"] && com.service.attribution.support.pathOf(it.url).substringBefore('?') == path && it.body == null }
        }
        assertTrue("config", seen(other.getValue("remote configuration")))
        assertTrue("attribution", seen(other.getValue("attribution parameters")))
        assertTrue("delete", seen(other.getValue("delete the install's data")))
        val wait = sent.first { it.url.contains("/attribution") }.url.substringAfter("wait_seconds=").toInt()
        assertTrue("wait_seconds $wait", wait in 0..20)
        assertTrue(sent.all { it.headers["Authorization"] == "sdk_test" })
    }
}

/**
 * requests.json's consent update: sent once the install is recorded, when the consent changed or
 * when the device's tracking at a start differs from what the install or the last update sent.
 */
class ConsentUpdateVectorTest {
    private fun case(name: String) = Vectors.conformance("requests.json")["other"].cast<List<Case>>().single { it["name"] == name }

    @Test
    fun `a start after the install whose advertising id is gone sends the tracking update`() {
        val case = case("tracking update on Android: the advertising id the install reported is gone at a later start (limit ad tracking on, or the id deleted)")
        assertTrue("kotlin" in case["platforms"].cast<List<String>>())
        val input = case["input"].cast<Case>()
        val request = case["request"].cast<Case>()
        val atInstall = input["deviceAtInstall"].cast<Case>()
        val now = input["deviceNow"].cast<Case>()
        val first = Harness(device = FakeDevice(advertisingId = atInstall["advertisingId"] as String?))
        first.configure(consent = consent(input["consent"].cast()))
        val id = first.core.getServiceId()!!
        val path = (request["path"] as String).replace("{{service_id}}", id)
        assertEquals(atInstall["advertisingId"], first.bodies("POST", "/v1/installs").single()["maid"])
        assertEquals(0, first.bodies("POST", path).size)
        first.core.close()

        // The next start on the same device, which gives no advertising id now.
        val next = Harness(device = FakeDevice(advertisingId = now["advertisingId"] as String?), store = first.store)
        next.configure()
        // The install is not sent again: only its update.
        assertEquals(0, next.transport.requests.count { com.service.attribution.support.pathOf(it.url) == "/v1/installs" })
        val sent = next.bodies("POST", path)
        assertEquals(1, sent.size)
        Vectors.Matcher().match(request["body"], sent.single())

        // A start after it with the same tracking: nothing more to send.
        next.core.close()
        val later = Harness(device = FakeDevice(advertisingId = now["advertisingId"] as String?), store = first.store)
        later.configure()
        assertEquals(0, later.bodies("POST", path).size)
        later.core.close()
    }

    @Test
    fun `setConsent after the install sends the consent route's body`() {
        val case = case("consent update")
        val input = case["input"].cast<Case>()
        val request = case["request"].cast<Case>()
        val harness = Harness(tcf = tcf(input["tcf"].cast()))
        harness.configure()
        val id = harness.core.getServiceId()!!
        val path = (request["path"] as String).replace("{{service_id}}", id)
        // The install carried what the device knew then (the TCF values): nothing to update yet.
        assertEquals(1, harness.bodies("POST", "/v1/installs").size)
        assertEquals(0, harness.bodies("POST", path).size)
        harness.core.setConsent(consent(input["consent"].cast())!!)
        val sent = harness.bodies("POST", path)
        assertEquals(1, sent.size)
        Vectors.Matcher().match(request["body"], sent.single())
        // The same consent again: nothing more to send.
        harness.core.setConsent(consent(input["consent"].cast())!!)
        assertEquals(1, harness.bodies("POST", path).size)
    }
}
