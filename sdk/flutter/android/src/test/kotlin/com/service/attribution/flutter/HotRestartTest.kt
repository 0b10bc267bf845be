package com.service.attribution.flutter

import android.Manifest
import android.os.Bundle
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf

/**
 * A hot restart of the Dart side keeps the engine and the plugin (no onDetachedFromEngine):
 * only the isolate whose streams listened is gone. What the SDK tells meanwhile waits for the
 * new isolate's listeners rather than reach no one. Its own process (test.sh), as the SDK is
 * configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class HotRestartTest {
    @Test
    fun `errors told across a hot restart reach the new isolate's error listener, once each`() {
        val engine = Engine()
        val service = Service.createApp("flutterhot")
        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        val configure = mapOf("apiKey" to service.sdkKey, "logLevel" to 1, "customerUserId" to null)
        // A custom event whose name is over the service's 100 characters: refused, reported.
        val refused = mapOf("eventType" to "CUSTOM", "eventName" to "n".repeat(101), "parameters" to null)
        val reports = { engine.dart.received("onError").count { it["reason"] == "refused" } }

        engine.success("configure", configure)
        engine.success("listen", mapOf("listener" to "error", "listening" to true))
        assertTrue(eventually { idle(); engine.success("isSdkDisabled") == false })

        // Restarted, and the new isolate listens to its attribution first, which sets its
        // handler; its error stream has no listener yet, and says so of the refusal.
        engine.dart.errorStreamListens = false
        engine.success("configure", configure)
        engine.success("listen", mapOf("listener" to "attribution", "listening" to true))
        assertEquals(true, engine.success("sendEvent", refused))
        assertTrue("the refusal is counted", eventually { idle(); engine.success("getDroppedEventCount") == 1L })
        idle()
        val unheard = reports()
        engine.dart.errorStreamListens = true
        engine.success("listen", mapOf("listener" to "error", "listening" to true))
        assertTrue("the refusal reaches the new listener", eventually { idle(); reports() > unheard })
        idle()
        assertEquals(unheard + 1, reports())

        // Restarted again: no handler at all until the new isolate's first stream listens.
        engine.dart.handlerSet = false
        engine.success("configure", configure)
        assertEquals(true, engine.success("sendEvent", refused))
        assertTrue("the second refusal is counted", eventually { idle(); engine.success("getDroppedEventCount") == 2L })
        idle()
        assertEquals("no Dart code heard it", unheard + 1, reports())
        engine.dart.handlerSet = true
        engine.success("listen", mapOf("listener" to "error", "listening" to true))
        assertTrue("the second refusal reaches the new listener", eventually { idle(); reports() > unheard + 1 })
        idle()
        assertEquals(unheard + 2, reports())
    }
}
