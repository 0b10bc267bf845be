package com.service.attribution.core

import com.service.attribution.Consent
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * stop(), start(), setAnonymous and setConsent made before configure, with the storage the
 * platform gives as the process starts: on the device when they return, so that a process that
 * ends before configure runs (a crash, the user swiping the app away) keeps the user's choice
 * for the next launch. A second core on the same device is that next launch.
 */
class EarlyCallsTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    /** A process of the app whose platform gave the SDK its storage as it started; not configured. */
    private fun startedProcess(): SdkCore =
        device.launch().also { core -> core.useEarlyStorage { EarlyStorage(device.store, device.store) { device.appInstalledAt } } }

    private fun installs() = device.backend.requests("POST", "/v1/installs").map { Json.parseObject(it.body!!) }

    @Test
    fun `a stop, anonymous mode and a consent set before configure are seen by the next launch`() {
        val first = startedProcess()
        first.stop()
        first.setAnonymous(true)
        first.setConsent(Consent(gdprApplies = true, adUserData = false))
        // The process ends here, before configure.
        val next = device.configure(device.launch())
        assertTrue(next.isStopped())
        assertTrue(next.isAnonymous())
        assertEquals("stopped: no request at all", 0, device.backend.transport.requests.size)
        next.start()
        device.scheduler.runDue()
        val install = installs().single()
        assertNull("anonymous: no advertising id", install["maid"])
        assertEquals(mapOf("gdpr_applies" to true, "ad_user_data" to false, "ad_personalization" to null, "tcf_string" to null), install["consent"])
        device.assertNoFailures()
    }

    @Test
    fun `a start before configure undoes a stop kept from an earlier launch, for the launch after it too`() {
        startedProcess().stop()
        startedProcess().start()
        val third = device.configure(device.launch())
        assertFalse(third.isStopped())
        assertEquals(1, installs().size)
        device.assertNoFailures()
    }

    @Test
    fun `a stop before configure on data a backup restored is the new install's own, and holds`() {
        val old = device.configure(device.launch())
        val oldId = old.getServiceId()
        // Restored on a new phone: another install of the app. Stopped before configure, then killed.
        device.appInstalledAt = 1_800_000_000_000
        startedProcess().stop()
        val next = device.configure(device.launch())
        assertTrue(next.isStopped())
        assertTrue("a new install", next.getServiceId() != oldId)
        assertEquals(1, installs().size)
        device.assertNoFailures()
    }

    @Test
    fun `a backup a call before configure forgot is said in the log at configure`() {
        device.configure(device.launch())
        device.appInstalledAt = 1_800_000_000_000
        val core = startedProcess()
        core.setAnonymous(true)
        assertEquals("the log waits for configure", 0, backupLines())
        device.configure(core)
        assertEquals(1, backupLines())
        assertTrue(core.isAnonymous())
        device.assertNoFailures()
    }

    @Test
    fun `warnings about calls made before configure are said at configure, at the level it gives`() {
        val core = device.launch()
        core.sendEvent(EventType.CUSTOM, "boss", mapOf("bad" to Double.NaN, "ok" to 1))
        core.setCustomerUserId("user\n42")
        assertTrue("nothing is written before configure", device.log.lines.isEmpty())
        core.configure(device.platform, SdkSettings(baseUrl = "https://backend.test", jitter = { it }), "sdk_key", LogLevel.WARN, null, null)
        device.scheduler.runDue()
        val warnings = device.logged(LogLevel.WARN)
        assertTrue(warnings.toString(), warnings.any { "bad" in it })
        assertTrue(warnings.toString(), warnings.any { "customer user id" in it })
        assertTrue("the level configure gives holds for the lines before it too", device.logged(LogLevel.DEBUG).isEmpty())
        assertEquals(listOf(mapOf("ok" to 1L)), device.backend.delivered.map { it["parameters"] })
        device.assertNoFailures()
    }

    private fun backupLines() = device.log.lines.count { "came from a backup of another install" in it.second }

    @Test
    fun `a consent set before configure without storage from the platform wins over the one an earlier launch kept`() {
        val first = device.configure(device.launch())
        first.setConsent(Consent(gdprApplies = true, adUserData = true, adPersonalization = true))
        device.scheduler.runDue()
        val next = device.launch()
        next.setConsent(Consent(gdprApplies = true, adUserData = false, adPersonalization = false))
        device.configure(next)
        device.scheduler.runDue()
        val consents = device.backend.requests("POST", "/v1/installs/").filter { it.url.endsWith("/consent") }.map { Json.parseObject(it.body!!) }
        assertEquals(
            listOf(true to true, false to false),
            consents.map { (it["consent"] as Map<*, *>).let { c -> c["ad_user_data"] to c["ad_personalization"] } },
        )
        // Kept for the launch after it: nothing more to send.
        device.configure(device.launch())
        device.scheduler.runDue()
        assertEquals(2, device.backend.requests("POST", "/v1/installs/").count { it.url.endsWith("/consent") })
        device.assertNoFailures()
    }

    @Test
    fun `without storage from the platform the calls before configure still hold in memory until configure`() {
        val core = device.launch()
        core.stop()
        assertNull(device.store.get("stopped"))
        device.configure(core)
        assertTrue(core.isStopped())
        assertEquals("1", device.store.get("stopped"))
    }

    @Test
    fun `an event sent before configure in anonymous mode carries no id, though the mode is off by configure`() {
        val first = device.configure(device.launch())
        first.setCustomerUserId("user-1")
        device.scheduler.runDue()
        // The next launch: the kept id would apply to an event sent before configure, but not to
        // one sent in anonymous mode, whatever the mode by the time configure reads the id.
        val next = device.launch()
        next.setAnonymous(true)
        next.sendEvent(EventType.LOGIN, null, null)
        next.setAnonymous(false)
        next.sendEvent(EventType.SHARE, null, null)
        device.configure(next)
        device.scheduler.runDue()
        val sent = device.backend.delivered.associate { it["event_type"] to (it["customer_user_id"] to it["anonymous"]) }
        assertEquals(null to true, sent["LOGIN"])
        assertEquals("user-1" to null, sent["SHARE"])
        device.assertNoFailures()
    }

    @Test
    fun `a blank customer user id is no id, cleared without a warning`() {
        val core = device.configure(device.launch())
        core.setCustomerUserId("\n\t")
        device.scheduler.runDue()
        assertTrue(device.logged(LogLevel.WARN).toString(), device.logged(LogLevel.WARN).none { "customer user id" in it })
    }
}
