package com.service.attribution.flutter

import android.Manifest
import android.os.Bundle
import android.util.Log
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf
import org.robolectric.shadows.ShadowLog

/**
 * delivery.json's "an install refused with 404 is a configuration error, not a stall", through
 * the plugin: an app whose manifest names a wrong base path (every route answers 404 at the
 * embedded service) is told once on the Dart side's error stream, with the status, and its
 * events stay queued. Its own process (test.sh), as the SDK is configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class ConfigurationErrorTest {
    private val engine = Engine()

    @Test
    fun `an install refused with 404 reaches the error stream once, with its status, and the events stay queued`() {
        val service = Service.createApp("flutter404")
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url + "/wrong-base") }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(engine.success("configure", mapOf("apiKey" to service.sdkKey, "logLevel" to 1, "customerUserId" to null)))
        for (type in listOf("LOGIN", "SHARE", "SEARCH")) {
            assertEquals(type, true, engine.success("sendEvent", mapOf("eventType" to type, "eventName" to null, "parameters" to null)))
        }

        assertTrue("the configuration error reaches the channel", eventually { idle(); engine.dart.received("onError").isNotEmpty() })
        val errors = engine.dart.received("onError").map { it.filterKeys { key -> key != "message" } }
        assertEquals(listOf(mapOf("kind" to "configuration", "reason" to null, "code" to 404, "count" to 1)), errors)
        val errorLines = ShadowLog.getLogsForTag("ServiceSdk").filter { it.type == Log.ERROR }.map { it.msg }
        assertEquals(errorLines.toString(), 1, errorLines.count { "install" in it })
        // Kept, not dropped; and nothing reached the service.
        assertEquals(0L, engine.success("getDroppedEventCount"))
        assertEquals(emptyList<Any>(), Service.exportNow(service))
    }
}
