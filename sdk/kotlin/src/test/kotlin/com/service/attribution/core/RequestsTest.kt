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
    }

    @Test
    fun `a Float parameter is the number the app wrote, not its binary widening`() {
        val cleaned = Parameters.clean(mapOf("revenue" to 9.99f, "list" to listOf(0.1f), "nan" to Float.NaN))
        assertEquals(9.99, cleaned.parameters["revenue"])
        assertEquals(listOf(0.1), cleaned.parameters["list"])
        assertEquals(listOf("nan"), cleaned.dropped)
    }
}
