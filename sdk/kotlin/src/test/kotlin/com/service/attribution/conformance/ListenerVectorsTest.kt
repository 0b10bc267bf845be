package com.service.attribution.conformance

import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.LinkOptions
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.Json
import com.service.attribution.core.LinkParser
import com.service.attribution.core.ListenerDispatch
import com.service.attribution.core.MainThread
import com.service.attribution.core.SdkCore
import com.service.attribution.support.ScriptedDevice
import com.service.attribution.support.Vectors
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import org.junit.runners.Parameterized.Parameters
import java.util.concurrent.CopyOnWriteArrayList

@Suppress("UNCHECKED_CAST")
private fun deepLinkOf(json: Map<String, Any?>?): DeepLink? =
    json?.let {
        DeepLink(
            DeepLinkKind.values().single { k -> k.wire == it["kind"] },
            it["deeplinkId"] as String?,
            it["path"] as String?,
            it["params"] as Map<String, String>,
            it["url"] as String?,
        )
    }

/**
 * listeners.json `deferred`: the attribution listener gets the route's map, status included;
 * the deep-link listener the deferred deep link once per install, never at later starts.
 */
@RunWith(Parameterized::class)
class DeferredDeepLinkVectorsTest(private val name: String, private val case: Map<String, Any?>) {
    companion object {
        @Suppress("UNCHECKED_CAST")
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = (Vectors.conformance("listeners.json")["deferred"] as List<Map<String, Any?>>).map { arrayOf(it["name"] as String, it) }
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Suppress("UNCHECKED_CAST")
    @Test
    fun kotlin() {
        val attribution = case["attribution"] as Map<String, String>
        device.backend.attribution = { HttpResponse(200, Json.write(attribution)) }
        device.configure(device.launch())
        assertEquals(listOf(attribution), device.attributions.toList())
        assertEquals(listOfNotNull(deepLinkOf(case["deepLink"] as Map<String, Any?>?)), device.deepLinks.toList())
        // Every listener call ran through the main-thread port.
        assertEquals(device.attributions.size + device.deepLinks.size, device.mainThread.posted.size)

        // The next start: the stored map again, the deferred deep link not again.
        val next = device.configure(device.launch())
        assertEquals(listOf(attribution, attribution), device.attributions.toList())
        assertEquals(listOfNotNull(deepLinkOf(case["deepLink"] as Map<String, Any?>?)), device.deepLinks.toList())
        assertEquals(1, device.backend.requests("GET", "/v1/installs/").size)

        // A listener set later is told at once, with the stored map.
        val later = ArrayList<Map<String, String>>()
        next.setAttributionListener { later.add(it) }
        device.scheduler.runDue()
        assertEquals(listOf(attribution), later)
        device.assertNoFailures()
    }
}

/** listeners.json `direct`: the deep link a tapped URL gives, through handleAppLink and handleDeepLink. */
@RunWith(Parameterized::class)
class DirectDeepLinkVectorsTest(private val name: String, private val case: Map<String, Any?>) {
    companion object {
        @Suppress("UNCHECKED_CAST")
        @JvmStatic
        @Parameters(name = "{0}")
        fun cases() = (Vectors.conformance("listeners.json")["direct"] as List<Map<String, Any?>>).map { arrayOf(it["name"] as String, it) }
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Suppress("UNCHECKED_CAST")
    @Test
    fun kotlin() {
        val url = case["url"] as String
        val expected = deepLinkOf(case["deepLink"] as Map<String, Any?>?)
        val core = device.launch()

        // handleDeepLink: any scheme; before configure too.
        assertEquals(expected, core.handleDeepLink(url))
        assertEquals(listOfNotNull(expected), device.deepLinks.toList())

        if (case["entry"] == null) {
            // handleAppLink (the facade parses with LinkParser, then hands the link over).
            device.deepLinks.clear()
            val parsed = LinkParser.parse(url, LinkOptions())!!
            core.deliverAppLink(parsed, url)
            assertEquals(listOf(expected), device.deepLinks.toList())
            // deeplinkId and params are links.json's for the same URL.
            assertEquals(parsed.deeplinkId, expected!!.deeplinkId)
            assertEquals(parsed.queryParams, expected.params)
        }
    }
}

/** Deep links reach a listener set after they arrived; a listener that throws does not stop the SDK. */
class DeepLinkListenerTest {
    private companion object {
        /** Where the SDK marks the deferred deep link delivered. */
        const val DEFERRED_DELIVERED = "deferred_deep_link_delivered"
    }

    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    @Test
    fun `a direct link handled before a listener is set is delivered when it is set`() {
        val core = SdkCore()
        try {
            val link = core.handleDeepLink("myapp://open?deep_link_path=%2Fshop")
            val got = ArrayList<DeepLink>()
            core.setDeepLinkListener { got.add(it) }
            assertEquals(listOf(link), got)
            assertEquals("/shop", got.single().path)
            // Delivered once: setting another listener gives nothing more.
            val again = ArrayList<DeepLink>()
            core.setDeepLinkListener { again.add(it) }
            assertTrue(again.isEmpty())
            assertNull(core.handleDeepLink("not a link"))
        } finally {
            core.close()
        }
    }

    @Test
    fun `a direct link handled on another thread while a listener is set reaches that listener, never a list emptied before it`() {
        val dispatch = ListenerDispatch(MainThread { it.run() })
        val link = DeepLink(DeepLinkKind.DIRECT, null, "/shop", mapOf("deep_link_path" to "/shop"), "myapp://open?deep_link_path=%2Fshop")
        val got = CopyOnWriteArrayList<DeepLink>()
        val handling = Thread { dispatch.deliverDeepLink(link) }
        // The link is handled (the app's thread) as the listener is set (this one): held at the
        // lock by hand, the handling thread has found no listener yet, or waits to look.
        synchronized(dispatch.deepLinkLock) {
            handling.start()
            while (handling.state != Thread.State.BLOCKED && handling.state != Thread.State.TERMINATED) Thread.yield()
            dispatch.setDeepLinkListener { got.add(it) }
        }
        handling.join()
        assertEquals(listOf(link), got.toList())
        // Nothing left waiting for a later listener either.
        val later = ArrayList<DeepLink>()
        dispatch.setDeepLinkListener { later.add(it) }
        assertEquals(emptyList<DeepLink>(), later)
    }

    @Test
    fun `the most recent direct links handed before a listener reach it in order, the oldest dropped past listeners json's bound`() {
        val kept = (Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as Number).toInt()
        val core = SdkCore()
        try {
            // A link that cold-started the app, then one tapped before any listener: both arrive.
            val cold = core.handleDeepLink("myapp://open?deep_link_path=%2Fcold")
            val second = core.handleDeepLink("myapp://open?deep_link_path=%2Fsecond")
            val got = ArrayList<DeepLink>()
            core.setDeepLinkListener { got.add(it) }
            assertEquals(listOf(cold, second), got)

            core.setDeepLinkListener(null)
            got.clear()
            val paths = (0 until kept + 3).map { "/levels/$it" }
            for (path in paths) core.handleDeepLink("myapp://open?deep_link_path=${path.replace("/", "%2F")}")
            core.setDeepLinkListener { got.add(it) }
            assertEquals(paths.drop(3), got.map { it.path })
        } finally {
            core.close()
        }
    }

    @Test
    fun `the deferred deep link found while no listener is set waits for one, and is delivered once`() {
        val core = deferredLinkKeptForAListener()
        core.setDeepLinkListener { device.deepLinks.add(it) }
        device.scheduler.runDue()
        assertEquals(listOf("/levels/7"), device.deepLinks.map { it.path })
        assertEquals(DeepLinkKind.DEFERRED, device.deepLinks.single().kind)
        device.configure(device.launch())
        assertEquals(1, device.deepLinks.size)
    }

    /** A configured launch whose attribution carries a deferred deep link, kept for want of a listener. */
    private fun deferredLinkKeptForAListener(): SdkCore {
        device.backend.attribution = {
            HttpResponse(200, """{"service_match_status":"matched","media_source":"x","deep_link_path":"/levels/7","promo":"W"}""")
        }
        val core = device.launch()
        core.setDeepLinkListener(null)
        device.configure(core)
        assertTrue(device.deepLinks.isEmpty())
        return core
    }

    /**
     * A configured launch whose attribution carries a deferred deep link, kept on the device for
     * want of a listener; then a listener is set, and its offer of the link runs on the worker
     * (another thread here) as the app clears the listener again. Held at the lock by hand, the
     * worker has not looked for a listener yet, or waits to hand the link to the one it found.
     */
    private fun deferredLinkOfferedAsTheListenerIsCleared(): SdkCore {
        val core = deferredLinkKeptForAListener()
        core.setDeepLinkListener { device.deepLinks.add(it) }
        val worker = Thread { device.scheduler.runDue() }
        synchronized(core.deepLinkLock) {
            worker.start()
            while (worker.state != Thread.State.BLOCKED && worker.state != Thread.State.TERMINATED) Thread.yield()
            core.setDeepLinkListener(null)
        }
        worker.join()
        device.assertNoFailures()
        return core
    }

    @Test
    fun `the deferred deep link offered as the listener is cleared is not marked delivered, and the next listener gets it once`() {
        val core = deferredLinkOfferedAsTheListenerIsCleared()
        assertTrue(device.deepLinks.isEmpty())
        assertNull("marked delivered with no listener", device.store.get(DEFERRED_DELIVERED))

        core.setDeepLinkListener { device.deepLinks.add(it) }
        device.scheduler.runDue()
        assertEquals(listOf(DeepLinkKind.DEFERRED to "/levels/7"), device.deepLinks.map { it.kind to it.path })
        assertEquals("1", device.store.get(DEFERRED_DELIVERED))
        device.configure(device.launch())
        assertEquals(1, device.deepLinks.size)
    }

    @Test
    fun `the deferred deep link offered as the listener is cleared reaches a later launch's listener, the process having ended`() {
        deferredLinkOfferedAsTheListenerIsCleared()
        device.configure(device.launch())
        assertEquals(listOf(DeepLinkKind.DEFERRED to "/levels/7"), device.deepLinks.map { it.kind to it.path })
    }

    /**
     * A first launch matched with a deferred deep link and a listener set, whose main thread is
     * busy: the link is handed over, the listener's call (and the attribution listener's) posted
     * and not run yet.
     */
    private fun deferredLinkHandedToABusyMainThread(): SdkCore {
        device.backend.attribution = {
            HttpResponse(200, """{"service_match_status":"matched","media_source":"x","deep_link_path":"/levels/7","promo":"W"}""")
        }
        device.mainThread.holding = true
        val core = device.configure(device.launch())
        assertTrue(device.mainThread.held.isNotEmpty())
        assertTrue(device.deepLinks.isEmpty())
        assertNull("marked delivered before the listener ran", device.store.get(DEFERRED_DELIVERED))
        return core
    }

    @Test
    fun `a deferred deep link whose listener call has not run is not marked delivered, and the next launch offers it again`() {
        deferredLinkHandedToABusyMainThread()
        // The process is killed before the main thread ran the listener's call: its work goes too.
        device.mainThread.held.clear()
        device.mainThread.holding = false
        device.configure(device.launch())
        assertEquals(listOf(DeepLinkKind.DEFERRED to "/levels/7"), device.deepLinks.map { it.kind to it.path })
        assertEquals(mapOf("deep_link_path" to "/levels/7", "promo" to "W"), device.deepLinks.single().params)
        assertEquals("1", device.store.get(DEFERRED_DELIVERED))
        device.assertNoFailures()
    }

    @Test
    fun `a deferred deep link handed over whose listener call has not run is not handed over again by a listener set or start()`() {
        val core = deferredLinkHandedToABusyMainThread()
        // Offers while the listener's call waits: a listener set again, a start after a stop.
        core.setDeepLinkListener { device.deepLinks.add(it) }
        device.scheduler.runDue()
        core.stop()
        device.scheduler.runDue()
        core.start()
        device.scheduler.advance(10_000)
        assertNull(device.store.get(DEFERRED_DELIVERED))
        device.mainThread.runHeld()
        device.scheduler.runDue()
        assertEquals(listOf(DeepLinkKind.DEFERRED to "/levels/7"), device.deepLinks.map { it.kind to it.path })
        assertEquals("1", device.store.get(DEFERRED_DELIVERED))
        device.assertNoFailures()
    }

    @Test
    fun `a deferred deep link is marked delivered once the listener's call ran, and not offered at the next launch`() {
        deferredLinkHandedToABusyMainThread()
        device.mainThread.runHeld()
        assertEquals(listOf(DeepLinkKind.DEFERRED to "/levels/7"), device.deepLinks.map { it.kind to it.path })
        // Marked by the worker, where the SDK writes to the device.
        device.scheduler.runDue()
        assertEquals("1", device.store.get(DEFERRED_DELIVERED))
        device.configure(device.launch())
        assertEquals(1, device.deepLinks.size)
        device.assertNoFailures()
    }

    @Test
    fun `a deferred deep link waiting for a listener is not pushed out by more direct links than are kept`() {
        val kept = (Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as Number).toInt()
        val core = deferredLinkOfferedAsTheListenerIsCleared()
        val paths = (0..kept).map { "/direct/$it" }
        for (path in paths) core.handleDeepLink("myapp://open?deep_link_path=${path.replace("/", "%2F")}")
        core.setDeepLinkListener { device.deepLinks.add(it) }
        device.scheduler.runDue()
        // The most recent direct links in order, then the deferred one.
        assertEquals(paths.drop(1) + "/levels/7", device.deepLinks.map { it.path })
        assertEquals(DeepLinkKind.DEFERRED, device.deepLinks.last().kind)
    }

    @Test
    fun `direct links past the bound push out only older direct links, never a link of another kind waiting with them`() {
        val kept = (Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as Number).toInt()
        val dispatch = ListenerDispatch(MainThread { it.run() })
        val deferred = DeepLink(DeepLinkKind.DEFERRED, null, "/levels/7", mapOf("deep_link_path" to "/levels/7"), null)
        dispatch.deliverDeepLink(deferred)
        val direct = (0..kept).map { DeepLink(DeepLinkKind.DIRECT, null, "/direct/$it", mapOf("deep_link_path" to "/direct/$it"), "myapp://open") }
        direct.forEach { dispatch.deliverDeepLink(it) }
        val got = ArrayList<DeepLink>()
        dispatch.setDeepLinkListener { got.add(it) }
        assertEquals(listOf(deferred) + direct.drop(1), got)
    }

    @Test
    fun `a listener set at a later start, before the SDK initialized, is told the stored map once`() {
        device.configure(device.launch())
        val next = device.launch()
        next.configure(device.platform, com.service.attribution.core.SdkSettings("https://backend.test"), "sdk_key", com.service.attribution.LogLevel.DEBUG, null, null)
        val told = ArrayList<Map<String, String>>()
        next.setAttributionListener { told.add(it) }
        device.scheduler.runDue()
        assertEquals(listOf(mapOf("service_match_status" to "organic", "media_source" to "organic")), told)
    }

    @Test
    fun `a listener that throws is logged and the SDK goes on`() {
        val core = device.launch()
        core.setAttributionListener { throw IllegalStateException("app bug") }
        device.configure(core)
        assertTrue(device.logged(com.service.attribution.LogLevel.ERROR).any { "listener threw" in it })
        device.assertNoFailures()
    }
}
