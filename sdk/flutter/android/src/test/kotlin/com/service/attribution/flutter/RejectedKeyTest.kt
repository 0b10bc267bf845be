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
 * delivery.json's `configuration` error for the SDK's refusal to start, which the Kotlin SDK
 * tells configure's InitListener alone: a key the service never issued, rejected with 401 on
 * GET /v1/config, reaches the Dart side's error stream, which listened before configure, with
 * the status; configure itself answers at once, as before. Its own process (test.sh), as the
 * SDK is configured once per process.
 */
@RunWith(RobolectricTestRunner::class)
class RejectedKeyTest {
    private val engine = Engine()

    @Test
    fun `a key rejected on GET v1 config reaches the error stream as a configuration error with its status`() {
        assertNull(engine.success("listen", mapOf("listener" to "error", "listening" to true)))
        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", Service.url) }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(engine.success("configure", mapOf("apiKey" to "sdk_never_issued_0123456789", "logLevel" to 1, "customerUserId" to null)))

        assertTrue("the refusal reaches the channel", eventually { idle(); configurationErrors().isNotEmpty() })
        assertEquals(true, engine.success("isSdkDisabled"))
        idle()
        val errors = configurationErrors()
        assertEquals(listOf(mapOf("kind" to "configuration", "reason" to null, "code" to 401, "count" to 1)), errors.map { it.filterKeys { key -> key != "message" } })
        assertTrue("${errors.single()["message"]}", "401" in errors.single()["message"].toString())
    }

    private fun configurationErrors() = engine.dart.received("onError").filter { it["kind"] == "configuration" }
}
