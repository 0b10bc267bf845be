package com.service.attribution.flutter

import android.Manifest
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf

/**
 * The SDK's refusal to start for want of the service's address in the manifest, which the
 * Kotlin SDK tells configure's InitListener alone: told before any Dart error stream listens, it
 * reaches the first one that does, once, as a `configuration` error with no status. Its own
 * process (test.sh), as the SDK is configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class NoServiceAddressTest {
    @Test
    fun `configure without the service's address reaches the first error stream that listens, once, with no status`() {
        val engine = Engine()
        // No com.service.attribution.BASE_URL in the manifest; the network is there.
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(engine.success("configure", mapOf("apiKey" to "sdk_key", "logLevel" to 1, "customerUserId" to null)))
        assertTrue("the SDK switched itself off", eventually { idle(); engine.success("isSdkDisabled") == true })
        // The refusal is told on the SDK's worker: it has been once the SDK is off.
        Thread.sleep(200)
        idle()
        assertTrue(engine.dart.received("onError").isEmpty())

        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        assertTrue("the refusal reaches the listener", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        val error = engine.dart.received("onError").single()
        assertEquals(mapOf("kind" to "configuration", "reason" to null, "code" to null, "count" to 1), error.filterKeys { it != "message" })
        assertTrue("${error["message"]}", "baseUrl" in error["message"].toString())

        // Told once: the stream listening again, or another engine's, hears no more of it.
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to false)))
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        val other = Engine()
        assertNull(other.success("listen", mapOf("listener" to "error", "listening" to true)))
        idle()
        assertEquals(1, engine.dart.received("onError").size)
        assertTrue(other.dart.received("onError").isEmpty())
    }
}
