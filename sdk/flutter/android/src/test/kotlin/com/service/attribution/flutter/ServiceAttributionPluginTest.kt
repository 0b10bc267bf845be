package com.service.attribution.flutter

import android.Manifest
import android.app.Application
import android.os.Bundle
import android.os.Looper
import android.util.Log
import com.service.attribution.ServiceAttributionSdk
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.BinaryMessenger
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
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
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
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
@RunWith(RobolectricTestRunner::class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
class ServiceAttributionPluginTest {
    private val app: Application = RuntimeEnvironment.getApplication()

    /** One answer of the channel, as the engine would get it. */
    private class Answer : MethodChannel.Result {
        var outcome: String? = null
        var value: Any? = null

        override fun success(result: Any?) {
            outcome = "success"
            value = result
        }

        override fun error(errorCode: String, errorMessage: String?, errorDetails: Any?) {
            outcome = "error $errorCode: $errorMessage"
        }

        override fun notImplemented() {
            outcome = "notImplemented"
        }
    }

    private val plugin =
        ServiceAttributionPlugin().also {
            it.onAttachedToEngine(FlutterPlugin.FlutterPluginBinding(app, object : BinaryMessenger {}))
        }

    /** Calls [method] and returns the answer, running the main looper until there is one. */
    private fun call(method: String, arguments: Map<String, Any?>? = null): Answer {
        val answer = Answer()
        plugin.onMethodCall(MethodCall(method, arguments?.let { HashMap(it) }), answer)
        assertTrue("$method answered", eventually { shadowOf(Looper.getMainLooper()).idle(); answer.outcome != null })
        return answer
    }

    private fun success(method: String, arguments: Map<String, Any?>? = null): Any? {
        val answer = call(method, arguments)
        assertEquals(method, "success", answer.outcome)
        return answer.value
    }

    private fun sendEvent(type: String, name: String? = null, parameters: Map<String, Any?>? = null) =
        success("sendEvent", mapOf("eventType" to type, "eventName" to name, "parameters" to parameters))

    @Test
    fun `a before configure, sendEvent answers false and the SDK reports itself disabled`() {
        assertEquals(true, success("isSdkDisabled"))
        assertEquals(false, sendEvent("LOGIN"))
        assertEquals(false, sendEvent("PURCHASE", parameters = mapOf("revenue" to 1.5, "currency" to "EUR")))
        assertNull(success("getServiceId"))
        assertNull(success("getAttributionParams"))
        assertEquals(false, success("enablePlatformAdsAttribution"))
        assertEquals("notImplemented", call("noSuchMethod").outcome)
    }

    @Test
    fun `b configured with sealing on, events reach the service sealed as asked, a refused one stops nothing`() {
        val service = Service.createApp("flutter")
        Service.configApp(service, "--encryption", "on")
        // What an app's manifest and the plugin's own give the SDK: the service's address and the network.
        shadowOf(app.packageManager).getInternalMutablePackageInfo(app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
        shadowOf(app).grantPermissions(Manifest.permission.INTERNET)

        assertNull(success("configure", mapOf("apiKey" to service.sdkKey, "logLevel" to 0, "customerUserId" to "flutter-user")))
        assertEquals(false, success("isSdkDisabled"))

        // Refused by the service for good (an event name over its 100 characters): dropped, and
        // the SDK goes on.
        assertEquals(true, sendEvent("CUSTOM", name = "n".repeat(101)))
        assertTrue("the refusal is logged", eventually { ShadowLog.getLogsForTag("ServiceSdk").any { it.type == Log.ERROR && "refused" in it.msg } })

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

        val records = Service.exportUntil(service) { names(it).containsAll(listOf("service_install", "service_purchase")) }
        assertEquals(listOf("service_install", "service_purchase"), names(records).sorted())
        val purchase = records.single { it.getString("event_name") == "service_purchase" }
        assertEquals(9.99, purchase.getDouble("revenue"), 1e-9)
        assertEquals("EUR", purchase.getString("currency"))
        assertEquals("flutter-user", purchase.getString("customer_user_id"))
        assertEquals(success("getServiceId"), purchase.getString("service_id"))

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
        val attribution = success("awaitAttributionParams") as Map<*, *>
        assertEquals("organic", attribution["media_source"])

        // Switched off by its owner: sendEvent answers false, nothing is sent.
        Service.configApp(service, "--disable")
        runBlocking { ServiceAttributionSdk.refreshConfig() }
        assertEquals(true, success("isSdkDisabled"))
        assertEquals(false, sendEvent("LOGIN"))
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
