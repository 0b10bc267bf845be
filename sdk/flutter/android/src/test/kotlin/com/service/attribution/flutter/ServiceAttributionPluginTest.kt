package com.service.attribution.flutter

import android.Manifest
import android.app.Activity
import android.content.Intent
import android.net.Uri
import android.os.Bundle
import android.util.Log
import com.service.attribution.AuthenticationException
import com.service.attribution.HttpException
import com.service.attribution.ServiceAttributionSdk
import io.flutter.embedding.engine.plugins.activity.ActivityPluginBinding
import io.flutter.plugin.common.BinaryMessenger
import io.flutter.plugin.common.PluginRegistry
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
import io.flutter.plugin.common.StandardMessageCodec
import io.flutter.plugin.common.StandardMethodCodec
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.DropReason
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import java.io.File
import java.nio.ByteBuffer
import kotlinx.coroutines.runBlocking
import org.json.JSONArray
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.FixMethodOrder
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.MethodSorters
import org.robolectric.Robolectric
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.shadows.ShadowLog

/**
 * The plugin's Android side driven as the Flutter engine drives it (real [MethodCall]s, the
 * arguments as the standard codec decodes them) over the real Kotlin SDK and the real Android
 * framework (Robolectric), against the embedded service that test.sh started: nothing of the
 * service is mocked. The SDK is one per process, as in an app, so the tests run in name order:
 * `a` before configure, `b` configured. Robolectric runs on the compileSdk
 * (src/test/resources/robolectric.properties).
 */
/**
 * The plugin's Android side driven as the Flutter engine drives it (real [MethodCall]s, the
 * arguments as the standard codec decodes them) over the real Kotlin SDK and the real Android
 * framework (Robolectric), against the embedded service that test.sh started: nothing of the
 * service is mocked. What the plugin sends the Dart side goes through the channel's standard
 * codec to [DartSide], which decodes it as the Dart side would. The SDK is one per process, as
 * in an app, so the tests run in name order on one app: `a` before and through configure, then
 * configured, `e` last (it switches the app off). Robolectric runs on the compileSdk
 * (src/test/resources/robolectric.properties).
 */
@RunWith(RobolectricTestRunner::class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
class ServiceAttributionPluginTest {
    private val engine = Engine()

    private fun sendEvent(type: String, name: String? = null, parameters: Map<String, Any?>? = null) =
        engine.success("sendEvent", mapOf("eventType" to type, "eventName" to name, "parameters" to parameters))

    /** The Dart side's streams listening, as `ServicePlugin.onAttribution` and the others do on their first listener. */
    private fun listenAll() {
        for (listener in listOf("attribution", "deepLink", "error")) {
            assertNull(engine.success("listen", mapOf("listener" to listener, "listening" to true)))
        }
    }

    @Test
    fun `a before configure, events are taken within the bound, the oldest dropped and reported, the rest sent in order once configure runs, and the attribution reaches the channel`() {
        Shared.service = Service.createApp("flutter").also { Service.configApp(it, "--encryption", "on") }
        val service = Shared.service!!
        assertEquals(true, engine.success("isSdkDisabled"))
        assertNull(engine.success("getServiceId"))
        assertNull(engine.success("getAttributionParams"))
        // A deletion asked before configure fails with the code both platforms give it.
        val refused = engine.call("deleteUserData").outcome
        assertTrue("$refused", refused!!.startsWith("error not_configured:"))
        assertEquals(false, engine.success("enablePlatformAdsAttribution"))
        assertEquals("notImplemented", engine.call("noSuchMethod").outcome)
        assertEquals(false, engine.success("isStopped"))
        assertEquals(false, engine.success("isAnonymous"))
        assertEquals(0L, engine.success("getDroppedEventCount"))
        listenAll()

        // Before configure (delivery.json: events sent before configure are delivered once it
        // runs; a full queue drops its oldest): taken, kept by the SDK within its bound of 1000,
        // sent in order after the install. 1005 events: the 5 oldest make room for the last.
        repeat(5) { assertEquals(true, sendEvent("ADD_TO_WISHLIST")) }
        repeat(997) { assertEquals(true, sendEvent("VIEW_ITEM")) }
        // A millisecond apart, so that their times order them in the export.
        val early = listOf("LOGIN", "LEVEL_START", "TUTORIAL_COMPLETE")
        for (type in early) {
            Thread.sleep(2)
            assertEquals(type, true, sendEvent(type))
        }
        assertEquals(false, sendEvent("INSTALL"))
        // Counted on the SDK's worker, which it reaches after sendEvent returned.
        assertTrue("5 dropped before configure", eventually { engine.success("getDroppedEventCount") == 5L })

        // What an app's manifest and the plugin's own give the SDK: the service's address and the network.
        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        // Called before configure as an app calls it for iOS, with the longest wait the Dart side
        // takes: answered at once, and nothing waits on Android, which has no ATT. The install is
        // exported below within a minute, long before the wait would have ended.
        assertNull(engine.success("waitForTrackingAuthorization", mapOf("timeoutSeconds" to 360.0)))
        assertEquals(true, engine.success("isSdkDisabled"))
        assertNull(engine.success("configure", mapOf("apiKey" to service.sdkKey, "logLevel" to 0, "customerUserId" to "flutter-user")))
        assertEquals(false, engine.success("isSdkDisabled"))

        // The drop, told to the Dart side once configure gave the SDK its store, and counted there.
        assertTrue("the queue_full report reaches the channel", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        assertEquals(
            listOf(mapOf("kind" to "events_dropped", "reason" to "queue_full", "code" to null, "count" to 5)),
            engine.dart.received("onError").map { it.filterKeys { key -> key != "message" } },
        )
        assertEquals(5L, engine.success("getDroppedEventCount"))

        val wire = early.map { "service_" + it.lowercase() }
        val records = Service.exportUntil(service) { names(it).containsAll(wire + "service_install") && names(it).count { n -> n == "service_view_item" } == 997 }
        assertEquals(wire, records.filter { it.getString("event_name") in wire }.sortedBy { it.getString("event_time") }.map { it.getString("event_name") })
        assertEquals(1, names(records).count { it == "service_install" })
        assertEquals(997, names(records).count { it == "service_view_item" })
        assertTrue("the oldest were dropped", names(records).none { it == "service_add_to_wishlist" })

        // The attribution (organic here), to the Dart side through the codec, on the main thread.
        assertTrue("onAttribution reached the channel", eventually { idle(); engine.dart.received("onAttribution").isNotEmpty() })
        val attribution = engine.dart.received("onAttribution").first()
        assertEquals("organic", attribution["service_match_status"])
    }

    @Test
    fun `b configured with sealing on, events reach the service sealed as asked, and a refused one is reported on the channel`() {
        val service = Shared.service!!
        listenAll()
        // A listener set once the attribution is known is told it at once.
        assertTrue("the stored attribution at once", eventually { idle(); engine.dart.received("onAttribution").isNotEmpty() })

        // Refused by the service for good (an event name over its 100 characters): dropped,
        // counted and reported, and the SDK goes on.
        val droppedBefore = engine.success("getDroppedEventCount") as Long
        assertEquals(true, sendEvent("CUSTOM", name = "n".repeat(101)))
        assertTrue("the refusal reaches the channel", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        assertEquals(
            mapOf("kind" to "events_dropped", "reason" to "refused", "code" to null, "count" to 1),
            engine.dart.received("onError").single().filterKeys { it != "message" },
        )
        assertTrue("the refusal is logged", ShadowLog.getLogsForTag("ServiceSdk").any { it.type >= Log.WARN && "refused" in it.msg })
        assertEquals(droppedBefore + 1, engine.success("getDroppedEventCount"))

        // As the standard codec decodes the Dart map: HashMap, ArrayList, Integer, Double, null in a list.
        val parameters =
            hashMapOf<String, Any?>(
                "revenue" to 9.99,
                "currency" to "EUR",
                "email" to " Jane.Doe@Example.com ",
                "plan" to "gold",
                "items" to arrayListOf(hashMapOf("sku" to "gem-pack", "quantity" to 2), null, "note"),
                "context" to hashMapOf("screen" to "shop", "ab" to hashMapOf("variant" to "b", "weights" to arrayListOf(0.25, 0.75))),
            )
        assertEquals(true, sendEvent("PURCHASE", parameters = parameters))

        val records = Service.exportUntil(service) { names(it).contains("service_purchase") }
        assertEquals(1, names(records).count { it == "service_purchase" })
        assertTrue(names(records).none { it.startsWith("service_n") })
        val purchase = records.single { it.getString("event_name") == "service_purchase" }
        assertEquals(9.99, purchase.getDouble("revenue"), 1e-9)
        assertEquals("EUR", purchase.getString("currency"))
        assertEquals("flutter-user", purchase.getString("customer_user_id"))
        assertEquals(engine.success("getServiceId"), purchase.getString("service_id"))

        // In the lake: every custom value left the device sealed and is kept sealed; the app's
        // keys open each to what the app sent (the email as the SDK normalises a matching
        // parameter). Revenue and currency, which the service needs, stayed clear.
        val lake = Service.storedParameters(service, purchase.getString("event_id"))
        val stored = lake.getJSONObject("stored")
        val opened = lake.getJSONObject("opened")
        assertEquals(parameters.keys, stored.keys().asSequence().toSet())
        assertEquals(9.99, stored.getDouble("revenue"), 1e-9)
        assertEquals("EUR", stored.getString("currency"))
        for (key in listOf("email", "plan", "items", "context")) {
            val values = leaves(stored.get(key))
            assertTrue("$key: ${stored.get(key)}", values.isNotEmpty() && values.all { it is String && it.startsWith("sv1.") })
        }
        assertEquals("jane.doe@example.com", opened.getString("email"))
        for (key in listOf("plan", "items", "context")) {
            assertEquals(key, canonical(parameters[key]), canonical(opened.get(key)))
        }

        // The attribution, waited for off the platform thread and answered on it.
        val attribution = engine.success("awaitAttributionParams") as Map<*, *>
        assertEquals("organic", attribution["media_source"])
    }

    @Test
    fun `c handleDeepLink reaches the SDK, whose direct deep link reaches the channel as listeners json has it`() {
        listenAll()
        val vectors = JSONObject(File(System.getProperty("repo.root"), "sdk/conformance/listeners.json").readText()).getJSONArray("direct")
        for (i in 0 until vectors.length()) {
            val vector = vectors.getJSONObject(i)
            val before = engine.dart.received("onDeepLink").size
            assertNull(engine.success("handleDeepLink", mapOf("url" to vector.getString("url"))))
            val expected = vector.opt("deepLink").takeIf { it is JSONObject } as JSONObject?
            if (expected == null) {
                idle()
                assertEquals(vector.getString("name"), before, engine.dart.received("onDeepLink").size)
                continue
            }
            assertTrue(vector.getString("name"), eventually { idle(); engine.dart.received("onDeepLink").size > before })
            assertEquals(vector.getString("name"), toMap(expected), engine.dart.received("onDeepLink").last())
        }
    }

    @Test
    fun `d stop, consent and anonymous mode reach the SDK, nothing is taken while stopped, and what follows start is delivered`() {
        val service = Shared.service!!
        listenAll()
        assertNull(engine.success("setConsent", mapOf("gdprApplies" to true, "adUserData" to false, "adPersonalization" to null)))
        // A change once the install is recorded goes to the consent route, which the service accepts.
        assertTrue("the consent update accepted", eventually { ShadowLog.getLogsForTag("ServiceSdk").any { it.msg == "consent sent" } })
        assertNull(engine.success("setAnonymous", mapOf("anonymous" to true)))
        assertEquals(true, engine.success("isAnonymous"))

        assertNull(engine.success("stop"))
        assertEquals(true, engine.success("isStopped"))
        assertEquals(false, sendEvent("SHARE"))
        assertNull(engine.success("start"))
        assertEquals(false, engine.success("isStopped"))
        assertEquals(true, sendEvent("SEARCH"))

        val records = Service.exportUntil(service) { names(it).contains("service_search") }
        assertTrue("nothing taken while stopped", names(records).none { it == "service_share" })
        // Anonymous: the customer user id set at configure no longer leaves the device.
        val search = records.single { it.getString("event_name") == "service_search" }
        assertTrue(search.isNull("customer_user_id"))
        assertNull(engine.success("setAnonymous", mapOf("anonymous" to false)))
        assertEquals(false, engine.success("isAnonymous"))
    }

    @Test
    fun `d2 what a Dart handler fails on is logged once and handed over again at the next listener, the listeners kept`() {
        // A handler that throws (a map it cannot read, say): Flutter answers with an error.
        engine.dart.failing = setOf("onAttribution", "onDeepLink", "onError")
        listenAll()
        // The attribution, told at once to a listener set once it is known.
        assertTrue("the attribution was handed over", eventually { idle(); engine.dart.failedOn("onAttribution").isNotEmpty() })
        // A refusal (an event name over the service's 100 characters), and a deferred deep link.
        assertEquals(true, sendEvent("CUSTOM", name = "n".repeat(101)))
        assertTrue("the refusal was handed over", eventually { idle(); engine.dart.failedOn("onError").isNotEmpty() })
        val deferred = DeepLink(DeepLinkKind.DEFERRED, null, "/levels/9", mapOf("deep_link_path" to "/levels/9"), null)
        engine.sdkTellsDeepLink(deferred)
        idle()
        assertEquals(1, engine.dart.failedOn("onDeepLink").size)
        assertEquals(1, engine.dart.failedOn("onError").size)

        // Its streams still listen: what comes next is handed over as ever.
        engine.dart.failing = emptySet()
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fd2")))
        assertTrue("the deep-link listener is kept", eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/d2" } })
        assertTrue(engine.dart.received("onError").isEmpty())

        // The Dart side listens anew (a restarted isolate, a stream listened to again): each
        // item it failed on reaches it, once.
        listenAll()
        assertTrue("the refusal again", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        assertTrue("the attribution again", eventually { idle(); engine.dart.received("onAttribution").isNotEmpty() })
        idle()
        assertEquals(
            listOf(mapOf("kind" to "events_dropped", "reason" to "refused", "code" to null, "count" to 1)),
            engine.dart.received("onError").map { it.filterKeys { key -> key != "message" } },
        )
        assertEquals(listOf(roundTrip(ServiceAttributionPlugin.channelMap(deferred))), engine.dart.received("onDeepLink").filter { it["kind"] == "deferred" })
        // Each failure logged once, at warning level.
        for (method in listOf("onAttribution", "onDeepLink", "onError")) {
            assertEquals("$method logged once", 1, failureLogs(method).size)
        }
    }

    @Test
    fun `d3 a false answer stops only the listener of the method that answered it`() {
        val before = Engine()
        assertNull(before.success("listen", mapOf("listener" to "deepLink", "listening" to true)))
        listenAll()
        // A Dart side that answers false to a deep link (as it answers an error no stream hears).
        engine.dart.answeredFalse = setOf("onDeepLink")
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fd3a")))
        assertTrue(eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/d3a" } })

        // Its error stream still listens: a refusal reaches it, not another engine.
        assertEquals(true, sendEvent("CUSTOM", name = "n".repeat(101)))
        assertTrue("the error listener is kept", eventually { idle(); engine.dart.received("onError").any { it["reason"] == "refused" } })

        // Its deep-link listener stopped: the engine that listened before it hears the next link,
        // and a deferred one it answered false to.
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fd3b")))
        assertTrue("the deep-link listener went back", eventually { idle(); before.dart.received("onDeepLink").any { it["path"] == "/d3b" } })
        assertTrue(engine.dart.received("onDeepLink").none { it["path"] == "/d3b" })
        val deferred = DeepLink(DeepLinkKind.DEFERRED, null, "/levels/3", mapOf("deep_link_path" to "/levels/3"), null)
        engine.sdkTellsDeepLink(deferred)
        idle()
        assertEquals(listOf(roundTrip(ServiceAttributionPlugin.channelMap(deferred))), before.dart.received("onDeepLink").filter { it["kind"] == "deferred" })
        before.detach()
    }

    @Test
    fun `e switched off by its owner, sendEvent answers false and nothing is sent`() {
        val service = Shared.service!!
        Service.configApp(service, "--disable")
        runBlocking { ServiceAttributionSdk.refreshConfig() }
        assertEquals(true, engine.success("isSdkDisabled"))
        assertEquals(false, sendEvent("LOGIN"))
    }

    @Test
    fun `e2 a call to Dart made as its engine goes away, and sent after, reaches the engine that listens next`() {
        // The SDK, switched off in e, tells configure's InitListener of a refusal on its worker.
        assertEquals(true, engine.success("isSdkDisabled"))
        val other = Engine()
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        assertNull(other.success("listen", mapOf("listener" to "error", "listening" to true)))
        // The worker's call: made for the engine that listened last, posted to the main thread
        // (which this test runs and has not let run since). Joined, so it is posted, not sent.
        val worker = Thread { refusalListener().onError(AuthenticationException(401, "the key was refused")) }
        worker.start()
        worker.join()
        assertTrue(other.dart.calls.isEmpty() && engine.dart.received("onError").isEmpty())
        // The engine goes away first; then the main thread sends what was posted.
        other.detach()
        idle()
        assertEquals("nothing sent to the engine that went away", emptyList<MethodCall>(), other.dart.lost)
        assertEquals(
            listOf(mapOf("kind" to "configuration", "reason" to null, "code" to 401, "count" to 1)),
            engine.dart.received("onError").map { it.filterKeys { key -> key != "message" } },
        )
    }

    @Test
    fun `f what the plugin sends the Dart side goes through the standard codec as the Dart side reads it`() {
        // A deferred deep link and a configuration error, which the service cannot be made to
        // give here: the maps are the ones ServiceDeepLink.fromChannel and ServiceError.fromChannel read.
        val deferred = JSONObject(File(System.getProperty("repo.root"), "sdk/conformance/listeners.json").readText())
            .getJSONArray("deferred").getJSONObject(0).getJSONObject("deepLink")
        val link = DeepLink(DeepLinkKind.DEFERRED, null, "/levels/7", mapOf("deep_link_path" to "/levels/7", "promo" to "WINTER"), null)
        assertEquals(toMap(deferred), roundTrip(ServiceAttributionPlugin.channelMap(link)))
        val error = ServiceError(ServiceErrorKind.CONFIGURATION, null, 404, 1, "the service refused the install (404)")
        assertEquals(
            mapOf("kind" to "configuration", "reason" to null, "code" to 404, "count" to 1, "message" to "the service refused the install (404)"),
            roundTrip(ServiceAttributionPlugin.channelMap(error)),
        )
        for (reason in DropReason.entries) {
            val dropped = ServiceError(ServiceErrorKind.EVENTS_DROPPED, reason, null, 3, "3 dropped")
            assertEquals(reason.wire, roundTrip(ServiceAttributionPlugin.channelMap(dropped))["reason"])
        }
    }

    @Test
    fun `f2 a failure reaches the Dart side with the code and HTTP status both platforms give it`() {
        val codes = listOf(
            AuthenticationException(401, "refused") to ("authentication" to mapOf("httpCode" to 401)),
            HttpException(500, "failed") to ("http" to mapOf("httpCode" to 500)),
            java.net.SocketTimeoutException("slow") to ("network" to null),
            IllegalArgumentException("other") to ("native" to null),
        )
        for ((error, expected) in codes) {
            for (configured in listOf(false, true)) {
                assertEquals("$error", expected.first, ServiceAttributionPlugin.errorCode(error, configured))
            }
            assertEquals("$error", expected.second, ServiceAttributionPlugin.errorDetails(error))
        }
        // An IllegalStateException is the SDK's refusal before configure; once it is configured,
        // a network stack's failure, as is a SecurityException (NetworkStackErrorTest drives one).
        assertEquals("not_configured", ServiceAttributionPlugin.errorCode(IllegalStateException("configure first"), false))
        assertEquals("network", ServiceAttributionPlugin.errorCode(IllegalStateException("connection closed"), true))
        assertEquals("network", ServiceAttributionPlugin.errorCode(SecurityException("no route"), true))
        assertNull(ServiceAttributionPlugin.errorDetails(IllegalStateException("connection closed")))
    }

    @Test
    fun `f3 an exception inside onMethodCall reaches Dart with the code native and a message, logged, and the plugin goes on`() {
        // Arguments no Dart side of this version sends: each read throws a ClassCastException.
        val calls =
            listOf(
                "sendEvent" to mapOf("eventType" to "PURCHASE", "eventName" to null, "parameters" to "revenue=9.99"),
                "listen" to mapOf("listener" to "error", "listening" to "yes"),
            )
        for ((method, arguments) in calls) {
            val answer = engine.fromDart(method, arguments)
            assertTrue("$method: ${answer.outcome}", answer.outcome!!.startsWith("error native: $method: "))
            assertTrue("$method logged", ShadowLog.getLogsForTag("ServiceSdk").any { it.type == Log.ERROR && "$method: " in it.msg && it.throwable is ClassCastException })
        }
        assertEquals(false, engine.fromDart("isStopped").value)
    }

    @Test
    fun `g an engine going away leaves the listeners another engine set`() {
        val other = Engine()
        val answer = Answer()
        other.plugin.onMethodCall(MethodCall("listen", hashMapOf("listener" to "deepLink", "listening" to true)), answer)
        assertEquals("success", answer.outcome)
        listenAll()
        other.plugin.onDetachedFromEngine(other.binding)

        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fshop")))
        assertTrue("this engine still hears deep links", eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/shop" } })
        assertTrue(other.dart.received("onDeepLink").isEmpty())
    }

    @Test
    fun `g2 the engine that listened last going away gives the listeners back to the one before it`() {
        listenAll()
        val other = Engine()
        for (listener in listOf("attribution", "deepLink", "error")) {
            assertNull(other.success("listen", mapOf("listener" to listener, "listening" to true)))
        }
        // The other engine (a background isolate's, say) listened last: it alone is told.
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fother")))
        assertTrue("the last engine to listen hears it", eventually { idle(); other.dart.received("onDeepLink").any { it["path"] == "/other" } })
        assertTrue(engine.dart.received("onDeepLink").none { it["path"] == "/other" })

        other.plugin.onDetachedFromEngine(other.binding)
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fback")))
        assertTrue("the engine before it hears again", eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/back" } })
        assertTrue(other.dart.received("onDeepLink").none { it["path"] == "/back" })

        // A stream that stops listening gives its place back the same way, its engine still there.
        val third = Engine()
        assertNull(third.success("listen", mapOf("listener" to "deepLink", "listening" to true)))
        assertNull(third.success("listen", mapOf("listener" to "deepLink", "listening" to false)))
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2Fagain")))
        assertTrue(eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/again" } })
        assertTrue(third.dart.received("onDeepLink").isEmpty())
        third.plugin.onDetachedFromEngine(third.binding)
    }

    /** What the engine gives an ActivityAware plugin: its activity, and the new intents it is told. */
    private class ActivityBinding(private val activity: Activity) : ActivityPluginBinding {
        val listeners = mutableListOf<PluginRegistry.NewIntentListener>()

        override fun getActivity() = activity

        override fun addOnNewIntentListener(listener: PluginRegistry.NewIntentListener) {
            listeners += listener
        }

        override fun removeOnNewIntentListener(listener: PluginRegistry.NewIntentListener) {
            listeners -= listener
        }
    }

    private fun activityOf(intent: Intent): Activity = Robolectric.buildActivity(Activity::class.java, intent).setup().get()

    private fun view(path: String) = Intent(Intent.ACTION_VIEW, Uri.parse("myapp://open?deep_link_path=%2F$path"))

    /** The paths of the direct deep links the SDK made, as its listener told the channel, once [marker] has come after them. */
    private fun toldUpTo(marker: String): List<Any?> {
        assertNull(engine.success("handleDeepLink", mapOf("url" to "myapp://open?deep_link_path=%2F$marker")))
        assertTrue(eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/$marker" } })
        return engine.dart.received("onDeepLink").map { it["path"] }
    }

    @Test
    fun `h the link that launched the activity, and each new one, reach the SDK from the plugin itself, once each`() {
        listenAll()
        val binding = ActivityBinding(activityOf(view("launch")))
        engine.plugin.onAttachedToActivity(binding)
        assertTrue("the launch's link reached the SDK", eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/launch" } })

        // A link that brings the running activity forward, left to the app and other plugins too.
        assertEquals(1, binding.listeners.size)
        assertFalse(binding.listeners.single().onNewIntent(view("next")))
        assertTrue("a new intent's link reached the SDK", eventually { idle(); engine.dart.received("onDeepLink").any { it["path"] == "/next" } })

        // Made anew for a rotation: the same intent, not handed over again.
        engine.plugin.onDetachedFromActivityForConfigChanges()
        assertTrue(binding.listeners.isEmpty())
        engine.plugin.onReattachedToActivityForConfigChanges(binding)
        assertEquals(1, binding.listeners.size)
        engine.plugin.onDetachedFromActivity()
        assertTrue(binding.listeners.isEmpty())

        // Relaunched from the recent apps (an earlier launch's link), and from the launcher (none).
        val fromHistory = view("old").addFlags(Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY)
        engine.plugin.onAttachedToActivity(ActivityBinding(activityOf(fromHistory)))
        engine.plugin.onDetachedFromActivity()
        engine.plugin.onAttachedToActivity(ActivityBinding(activityOf(Intent(Intent.ACTION_MAIN))))
        engine.plugin.onDetachedFromActivity()
        val told = toldUpTo("marker")
        assertEquals(listOf("/launch", "/next", "/marker"), told.filter { it in listOf("/launch", "/next", "/old", "/marker") })
    }

    /** What the plugin logged of the Dart side failing on a call of [method]. */
    private fun failureLogs(method: String) =
        ShadowLog.getLogsForTag("ServiceSdk").filter { it.type == Log.WARN && it.msg.startsWith("$method: the Dart side failed") }

    /** A value as the Dart side receives it: encoded and decoded by the standard codec. */
    private fun roundTrip(value: Any?): Map<*, *> {
        val buffer = StandardMessageCodec.INSTANCE.encodeMessage(value)!!
        return StandardMessageCodec.INSTANCE.decodeMessage(buffer.flip()) as Map<*, *>
    }

    /** A JSON object as the codec gives a map: JSON null as null, nested objects as maps. */
    private fun toMap(json: JSONObject): Map<String, Any?> =
        json.keys().asSequence().associateWith { key ->
            when (val value = json.get(key)) {
                JSONObject.NULL -> null
                is JSONObject -> toMap(value)
                else -> value
            }
        }

    private object Shared {
        /** The app of every test: the SDK is configured once per process, in `a`. */
        var service: Service.App? = null
    }

    private fun names(records: List<JSONObject>) = records.map { it.getString("event_name") }

    /** The values in a JSON value that are neither maps nor lists, nulls left out. */
    private fun leaves(value: Any?): List<Any> =
        when (value) {
            null, JSONObject.NULL -> emptyList()
            is JSONObject -> value.keys().asSequence().flatMap { leaves(value.get(it)) }.toList()
            is JSONArray -> (0 until value.length()).flatMap { leaves(value.opt(it)) }
            else -> listOf(value)
        }

    /** A JSON value's text with its maps' keys sorted, numbers as doubles: equal values, equal text. */
    private fun canonical(value: Any?): String =
        when (value) {
            null, JSONObject.NULL -> "null"
            is Map<*, *> -> canonical(JSONObject(value))
            is Collection<*> -> canonical(JSONArray(value))
            is JSONObject -> value.keys().asSequence().sorted().joinToString(",", "{", "}") { "\"$it\":${canonical(value.get(it))}" }
            is JSONArray -> (0 until value.length()).joinToString(",", "[", "]") { canonical(value.opt(it)) }
            is Number -> value.toDouble().toString()
            is String -> JSONObject.quote(value)
            else -> value.toString()
        }
}

/** Whether [condition] holds within 60 seconds, tried every 50 ms. */
internal fun eventually(condition: () -> Boolean): Boolean {
    val end = System.currentTimeMillis() + 60_000
    while (System.currentTimeMillis() < end) {
        if (condition()) return true
        Thread.sleep(50)
    }
    return condition()
}
