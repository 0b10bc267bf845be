package com.service.attribution.flutter

import android.Manifest
import android.app.Application
import android.os.Looper
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.MethodCall
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf

/**
 * The SDK's refusal to start for want of the service's address in the manifest, which the
 * Kotlin SDK tells configure's InitListener alone: told before any Dart error stream listens, it
 * reaches the first one that does, once, as a `configuration` error with no status. Its own
 * process (test.sh), as the SDK is configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class NoServiceAddressTest {
    private val app: Application = RuntimeEnvironment.getApplication()

    private fun success(plugin: ServiceAttributionPlugin, method: String, arguments: Map<String, Any?>? = null): Any? {
        val answer = Answer()
        plugin.onMethodCall(MethodCall(method, arguments?.let { HashMap(it) }), answer)
        assertTrue("$method answered", eventually { idle(); answer.outcome != null })
        assertEquals(method, "success", answer.outcome)
        return answer.value
    }

    private fun idle() = shadowOf(Looper.getMainLooper()).idle()

    @Test
    fun `configure without the service's address reaches the first error stream that listens, once, with no status`() {
        val dart = DartSide()
        val plugin = ServiceAttributionPlugin().also { it.onAttachedToEngine(FlutterPlugin.FlutterPluginBinding(app, dart)) }
        // No com.service.attribution.BASE_URL in the manifest; the network is there.
        shadowOf(app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(success(plugin, "configure", mapOf("apiKey" to "sdk_key", "logLevel" to 1, "customerUserId" to null)))
        assertTrue("the SDK switched itself off", eventually { idle(); success(plugin, "isSdkDisabled") == true })
        // The refusal is told on the SDK's worker: it has been once the SDK is off.
        Thread.sleep(200)
        idle()
        assertTrue(dart.received("onError").isEmpty())

        assertNull(success(plugin, "listen", mapOf("listener" to "error", "listening" to true)))
        assertTrue("the refusal reaches the listener", eventually { idle(); dart.received("onError").isNotEmpty() })
        val error = dart.received("onError").single()
        assertEquals(mapOf("kind" to "configuration", "reason" to null, "code" to null, "count" to 1), error.filterKeys { it != "message" })
        assertTrue("${error["message"]}", "baseUrl" in error["message"].toString())

        // Told once: the stream listening again, or another engine's, hears no more of it.
        assertNull(success(plugin, "listen", mapOf("listener" to "error", "listening" to false)))
        assertNull(success(plugin, "listen", mapOf("listener" to "error", "listening" to true)))
        val other = DartSide()
        val otherPlugin = ServiceAttributionPlugin().also { it.onAttachedToEngine(FlutterPlugin.FlutterPluginBinding(app, other)) }
        assertNull(success(otherPlugin, "listen", mapOf("listener" to "error", "listening" to true)))
        idle()
        assertEquals(1, dart.received("onError").size)
        assertTrue(other.received("onError").isEmpty())
    }
}
