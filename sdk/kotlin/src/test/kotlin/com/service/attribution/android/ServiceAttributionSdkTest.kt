package com.service.attribution.android

import android.content.Intent
import android.net.Uri
import android.os.Looper
import android.os.UserManager
import com.service.attribution.AppLinkResult
import com.service.attribution.Consent
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.SdkWrapper
import com.service.attribution.ServiceAttributionSdk
import com.service.attribution.support.Service
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import java.util.concurrent.CopyOnWriteArrayList

/**
 * The public facade on the Android framework (Robolectric's android-all), against the real
 * embedded service: configured as an app configures it, its session, sending, parsing links
 * from a real Uri and Intent. ServiceAttributionSdk is one object per process, so it is configured once,
 * in this one test.
 */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34], manifest = Config.NONE) // compileSdk (test.sh checks it against gradle/libs.versions.toml)
class ServiceAttributionSdkTest {
    @Test
    fun `configured from Application, the facade sends events to the service and parses App Links`() {
        val service = Service.createApp("facade")
        val link = Service.createLink(service, "/levels/9", "promo=AUTUMN 26")
        val since = System.currentTimeMillis() / 1000 - 120

        // Before configure: links parse, nothing is enabled.
        val uri = Uri.parse(link)
        val early = ServiceAttributionSdk.handleAppLink(uri)
        assertNotNull(early)
        assertTrue(ServiceAttributionSdk.isSdkDisabled())
        assertFalse(ServiceAttributionSdk.isConfigured())
        assertNull(ServiceAttributionSdk.getServiceId())
        assertEquals(emptyMap<String, String>(), ServiceAttributionSdk.getAttributionParams())

        val app = robolectricApp()
        val initialized = CopyOnWriteArrayList<String>()
        val errors = CopyOnWriteArrayList<Throwable>()
        ServiceAttributionSdk.sendEvent(EventType.LOGIN)
        // In another of the app's processes (a :push service runs Application.onCreate too):
        // refused with a word, and no event kept there to wait for ever.
        val refused = CopyOnWriteArrayList<Throwable>()
        ServiceAttributionSdk.configureIn("${app.packageName}:push", app, service.sdkKey, LogLevel.DEBUG, { refused.add(it) }, null)
        assertTrue(refused.single().message!!.contains(":push"))
        assertFalse(ServiceAttributionSdk.isConfigured())
        assertFalse(ServiceAttributionSdk.sendEventTaken(EventType.SHARE, null, null))
        assertNull(AndroidPlatform.otherProcessRefusal(app, app.packageName))
        // There, the initialization's error is the refusal, and a call that would change the
        // SDK's state changes nothing, with a warning (the main process holds that state).
        assertSame(refused.single(), ServiceAttributionSdk.getLastInitError())
        ServiceAttributionSdk.stop()
        ServiceAttributionSdk.setAnonymous(true)
        ServiceAttributionSdk.setConsent(Consent(adUserData = false))
        ServiceAttributionSdk.setCustomerUserId("push-user")
        ServiceAttributionSdk.start()
        assertFalse(ServiceAttributionSdk.isStopped())
        assertFalse(ServiceAttributionSdk.isAnonymous())
        for (call in listOf("stop()", "start()", "setAnonymous", "setConsent", "setCustomerUserId")) {
            assertTrue(call, sdkLogs(WARN).any { it.startsWith("$call changes nothing") })
        }
        // A second configure there changes nothing, as a second one does in the main process:
        // its listener is not told the refusal again.
        val again = CopyOnWriteArrayList<Throwable>()
        ServiceAttributionSdk.configureIn("${app.packageName}:push", app, service.sdkKey, LogLevel.DEBUG, { again.add(it) }, null)
        assertEquals(emptyList<Throwable>(), again)
        assertTrue(sdkLogs(INFO).any { it.startsWith("configure was already called") })
        assertSame(refused.single(), ServiceAttributionSdk.getLastInitError())
        // Another such process below, each.
        ServiceAttributionSdk.otherProcess = null
        // An app's listener that throws there (an Error, as TODO() throws) is logged; the app goes on.
        ServiceAttributionSdk.configureIn(
            "${app.packageName}:push",
            app,
            service.sdkKey,
            LogLevel.DEBUG,
            object : InitListener {
                override fun onError(t: Throwable) {
                    TODO("the app's error handling")
                }
            },
            null,
        )
        assertTrue(sdkLogs(ERROR).any { it.startsWith("InitListener.onError threw") && "NotImplementedError" in it })
        // Configured there with LogLevel.NONE, it writes nothing at all.
        ServiceAttributionSdk.otherProcess = null
        val written = sdkLogs(WARN).size + sdkLogs(ERROR).size
        ServiceAttributionSdk.configureIn("${app.packageName}:push", app, service.sdkKey, LogLevel.NONE, null, null)
        ServiceAttributionSdk.setCustomerUserId("quiet-user")
        // Wrappers hear it through SdkWrapper, the same answer.
        assertFalse(SdkWrapper.sendEventTaken(EventType.SHARE, null, null))
        assertEquals(written, sdkLogs(WARN).size + sdkLogs(ERROR).size)
        ServiceAttributionSdk.otherProcess = null
        // At boot, before the user first unlocks the device (an app with a `directBootAware`
        // component starts then): the SDK's files cannot be opened, so configure waits for the
        // unlock rather than throw in the app's start.
        val users = shadowOf(app.getSystemService(UserManager::class.java))
        users.setUserUnlocked(false)
        ServiceAttributionSdk.configure(
            app,
            service.sdkKey,
            LogLevel.DEBUG,
            object : InitListener {
                override fun onError(t: Throwable) {
                    errors.add(t)
                }

                override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {
                    initialized.add(Thread.currentThread().name)
                }
            },
            "facade-user",
        )
        assertFalse(ServiceAttributionSdk.isConfigured())
        assertTrue(sdkLogs(INFO).any { "Direct Boot" in it })
        users.setUserUnlocked(true)
        app.sendBroadcast(Intent(Intent.ACTION_USER_UNLOCKED))
        shadowOf(Looper.getMainLooper()).idle()
        assertTrue(ServiceAttributionSdk.isConfigured())
        assertTrue("initialized", eventuallyOnMain { initialized.isNotEmpty() })
        assertEquals(listOf(Thread.currentThread().name), initialized.toList())
        assertEquals(emptyList<Throwable>(), errors.toList())
        assertTrue(ServiceAttributionSdk.isEnabled())
        assertFalse(ServiceAttributionSdk.isSdkDisabled())
        assertNull(ServiceAttributionSdk.getLastInitError())
        val serviceId = ServiceAttributionSdk.getServiceId()
        assertNotNull(serviceId)
        // The launch's session, made by the SDK itself, accepted by the service.
        assertTrue("session accepted", eventuallyOnMain { sdkLogs(android.util.Log.DEBUG).any { it == "1 session accepted" } })

        ServiceAttributionSdk.sendEvent(EventType.PURCHASE, parameters = mapOf("revenue" to 4.99, "currency" to "USD", "sku" to "gems"))
        ServiceAttributionSdk.sendEvent(EventType.CUSTOM, "Boss Defeated", mapOf("level" to 7))
        val expected = listOf("service_boss_defeated", "service_install", "service_login", "service_purchase")
        val records = Service.exportUntil(service, since) { r -> r.map { it["event_name"] }.containsAll(expected) }
        assertEquals(expected, records.map { it["event_name"].toString() }.sorted())
        assertEquals(setOf(serviceId), records.map { it["service_id"] }.toSet())
        val purchase = records.single { it["event_name"] == "service_purchase" }
        assertEquals(4.99, (purchase["revenue"] as Number).toDouble(), 1e-9)
        assertEquals("facade-user", purchase["customer_user_id"])
        assertEquals("android", purchase["os"])

        // App Links, from a real Uri and from the Intent that opened an activity.
        val fromIntent = ServiceAttributionSdk.handleAppLink(Intent(Intent.ACTION_VIEW, uri), LinkOptions(setOf(uri.host!!)))
        val expectedLink = AppLinkResult(uri.lastPathSegment, mapOf("deep_link_path" to "/levels/9", "promo" to "AUTUMN 26"), uri)
        assertEquals(expectedLink, fromIntent)
        assertEquals(expectedLink, early)
        assertEquals(expectedLink, ServiceAttributionSdk.handleAppLink(uri, LinkOptions(setOf(uri.host!!))))
        assertNull(ServiceAttributionSdk.handleAppLink(uri, LinkOptions(setOf("go.example.com"))))
        assertNull(ServiceAttributionSdk.handleAppLink(Intent(Intent.ACTION_MAIN)))
        assertNull(ServiceAttributionSdk.handleAppLink(Uri.parse("mailto:someone@example.com")))

        val params = runBlocking { withTimeout(60_000) { ServiceAttributionSdk.awaitAttributionParams() } }
        assertEquals("organic", params["media_source"])
        assertEquals(params, ServiceAttributionSdk.getAttributionParams())

        // A repeat configure changes nothing.
        ServiceAttributionSdk.configure(app, "sdk_other", LogLevel.NONE, null, "other-user")
        assertEquals(serviceId, ServiceAttributionSdk.getServiceId())
        assertTrue(sdkLogs(android.util.Log.INFO).any { "already called" in it })
    }

    @Test
    fun `an intent the recent apps relaunched, or of another action than VIEW, hands no link over, and a tapped link's intent does`() {
        val got = CopyOnWriteArrayList<DeepLink>()
        ServiceAttributionSdk.setDeepLinkListener { got.add(it) }
        try {
            // Links handed over before this listener (by the other test) are not this test's.
            shadowOf(Looper.getMainLooper()).idle()
            got.clear()
            val tapped = Uri.parse("myapp://open?deep_link_path=%2Flevels%2F7")
            val appLink = Uri.parse("https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7")

            // The app reopened from the recent apps (after its process ended): Android gives the
            // activity the intent that first made the task, whose link was handed over then.
            val fromHistory = { uri: Uri -> Intent(Intent.ACTION_VIEW, uri).addFlags(Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY) }
            assertNull(ServiceAttributionSdk.handleDeepLink(fromHistory(tapped)))
            assertNull(ServiceAttributionSdk.handleAppLink(fromHistory(appLink)))
            // An intent of another action that carries a Uri is no tapped link.
            assertNull(ServiceAttributionSdk.handleDeepLink(Intent(Intent.ACTION_SEND, tapped)))
            assertNull(ServiceAttributionSdk.handleAppLink(Intent(Intent.ACTION_SEND, appLink)))
            assertNull(ServiceAttributionSdk.handleDeepLink(Intent().setData(tapped)))
            shadowOf(Looper.getMainLooper()).idle()
            assertEquals(emptyList<DeepLink>(), got.toList())

            // The tap itself: delivered once.
            val link = ServiceAttributionSdk.handleDeepLink(Intent(Intent.ACTION_VIEW, tapped))
            assertEquals("/levels/7", link?.path)
            shadowOf(Looper.getMainLooper()).idle()
            assertEquals(listOf(link), got.toList())
        } finally {
            ServiceAttributionSdk.setDeepLinkListener(null)
        }
    }

    @Test
    fun `a link of the app's own scheme without slashes, the opaque Uri of its intent, is a direct deep link`() {
        val got = CopyOnWriteArrayList<DeepLink>()
        ServiceAttributionSdk.setDeepLinkListener { got.add(it) }
        try {
            shadowOf(Looper.getMainLooper()).idle()
            got.clear()
            // What Android hands an activity whose intent filter names the scheme alone, for a
            // link written without `//` (listeners.json's "a custom scheme without //").
            val tapped = Uri.parse("myapp:open?deep_link_path=%2Flevels%2F7&promo=WINTER")
            assertTrue(tapped.isOpaque)
            val link = ServiceAttributionSdk.handleDeepLink(Intent(Intent.ACTION_VIEW, tapped))
            val params = mapOf("deep_link_path" to "/levels/7", "promo" to "WINTER")
            assertEquals(DeepLink(DeepLinkKind.DIRECT, null, "/levels/7", params, "myapp:open?deep_link_path=%2Flevels%2F7&promo=WINTER"), link)
            shadowOf(Looper.getMainLooper()).idle()
            assertEquals(listOf(link), got.toList())
        } finally {
            ServiceAttributionSdk.setDeepLinkListener(null)
        }
    }
}
