package com.service.attribution.flutter

import android.Manifest
import android.os.Bundle
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf

/**
 * The example app's order: configure in main, the Dart side's onError listened to later (a
 * widget's initState). The events dropped as configure runs (more sent before it than the SDK
 * keeps) are told to that first listener, once. Its own process (test.sh), as the SDK is
 * configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class LateErrorListenerTest {
    @Test
    fun `a drop told before the Dart error stream listens reaches its first listener, once`() {
        val engine = Engine()
        val service = Service.createApp("flutterlate")
        repeat(1003) {
            assertEquals(true, engine.success("sendEvent", mapOf("eventType" to "VIEW_ITEM", "eventName" to null, "parameters" to null)))
        }
        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(engine.success("configure", mapOf("apiKey" to service.sdkKey, "logLevel" to 1, "customerUserId" to null)))
        assertTrue("the three oldest dropped", eventually { idle(); engine.success("getDroppedEventCount") == 3L })
        idle()
        assertTrue(engine.dart.received("onError").isEmpty())

        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        assertTrue("the drop reaches the listener", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        val error = engine.dart.received("onError").single()
        assertEquals(mapOf("kind" to "events_dropped", "reason" to "queue_full", "code" to null, "count" to 3), error.filterKeys { it != "message" })

        // Told once: the stream listening again hears no more of it.
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to false)))
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        idle()
        assertEquals(1, engine.dart.received("onError").size)
    }
}
