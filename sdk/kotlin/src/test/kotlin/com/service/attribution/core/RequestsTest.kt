package com.service.attribution.core

import com.service.attribution.support.FakeDevice
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

class RequestsTest {
    private fun install(device: FakeDevice, openUrl: String? = null, referrer: InstallReferrerDetails? = null) =
        Requests.install("sid", 0, 0, device, null, referrer, openUrl, null)

    @Test
    fun `a device signal the install schema would refuse costs only itself`() {
        val body = install(FakeDevice(osVersion = " ", deviceModel = "M".repeat(70), locale = "not a locale", timezone = "GMT+01:00"), openUrl = "https://x/" + "a".repeat(2048))
        assertNull(body["os_version"])
        assertEquals("M".repeat(64), body["device_model"])
        assertNull(body["locale"])
        assertNull(body["timezone"])
        assertNull(body["open_url"])
        assertEquals("Europe/Berlin", install(FakeDevice())["timezone"])
        assertEquals("de-DE", install(FakeDevice())["locale"])
    }

    @Test
    fun `a session or an event from a clock put back since leaves at its send, one before as it was`() {
        val sentAt = 1_800_000_000_000L
        val sessions = listOf(Requests.session("s1", "sid", sentAt + 48L * 3600 * 1000), Requests.session("s2", "sid", sentAt - 1000))
        val sent = Requests.notAfter(sessions, "started_at", sentAt)
        assertEquals(listOf(Requests.iso(sentAt), Requests.iso(sentAt - 1000)), sent.map { it["started_at"] })
        assertEquals(listOf("session_id", "service_id", "started_at"), sent[0].keys.toList())
        assertEquals(sessions[1], sent[1])
    }

    @Test
    fun `a referrer is cut to the schema's 2048 characters`() {
        val body = install(FakeDevice(), referrer = InstallReferrerDetails("r".repeat(3000)))
        assertEquals(2048, ((body["install_referrer"] as Map<*, *>)["referrer"] as String).length)
    }

    @Test
    fun `a customer user id is 1 to 256 characters`() {
        assertNull(Fields.customerUserId(""))
        assertNull(Fields.customerUserId("  "))
        assertNull(Fields.customerUserId("u".repeat(257)))
        assertEquals("u".repeat(256), Fields.customerUserId("u".repeat(256)))
        // Half a surrogate pair is no Unicode text: the service would refuse what carries it.
        assertEquals("is not Unicode text", Fields.customerUserIdProblem("user-\ud800"))
        assertNull(Fields.customerUserId("user-\ud800"))
        assertEquals("user-\ud83d\ude00", Fields.customerUserId("user-\ud83d\ude00"))
    }

    @Test
    fun `the install sent with its required fields only keeps a first open of the past, and one ahead of the clock goes as now`() {
        val now = 1_800_000_000_000L
        val past = Requests.install("sid", now - 60_000, now, FakeDevice(), null, null, null, "user-1")
        assertEquals(
            mapOf(
                "service_id" to "sid",
                "os" to "android",
                "sdk_platform" to "kotlin",
                "sdk_version" to Requests.SDK_VERSION,
                "first_open_time" to Requests.iso(now - 60_000),
                "sent_at" to Requests.iso(now),
            ),
            Requests.minimalInstall(past, now),
        )
        val ahead = Requests.install("sid", now + 60_000, now, FakeDevice(), null, null, null, null)
        assertEquals(Requests.iso(now), Requests.minimalInstall(ahead, now)["first_open_time"])
    }

    @Test
    fun `the consent route's tracking leaves out an advertising id that is none or no UUID`() {
        val id = "38400000-8cf0-11bd-b23e-10b96e40000d"
        assertEquals(mapOf("maid" to id, "att_status" to null), Requests.tracking(id))
        assertNull(Requests.tracking("00000000-0000-0000-0000-000000000000")["maid"])
        assertNull(Requests.tracking("not-an-advertising-id")["maid"])
        assertNull(Requests.tracking(null)["maid"])
    }

    @Test
    fun `a Float parameter is the number the app wrote, not its binary widening`() {
        val cleaned = Parameters.clean(mapOf("revenue" to 9.99f, "list" to listOf(0.1f), "nan" to Float.NaN))
        assertEquals(9.99, cleaned.parameters["revenue"])
        assertEquals(listOf(0.1), cleaned.parameters["list"])
        assertEquals(listOf("nan"), cleaned.dropped)
    }
}
