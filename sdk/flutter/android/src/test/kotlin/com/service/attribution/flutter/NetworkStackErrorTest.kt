package com.service.attribution.flutter

import android.Manifest
import android.os.Bundle
import java.io.InputStream
import java.io.OutputStream
import java.net.HttpURLConnection
import java.net.URL
import java.net.URLConnection
import java.net.URLStreamHandler
import java.util.concurrent.atomic.AtomicInteger
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.Shadows.shadowOf

/**
 * A network stack that fails a request with an IllegalStateException where an IOException would
 * be (as some Android builds' do), which the SDK's HTTP client passes on as it is: the failure of
 * `deleteUserData` reaches the Dart side as `network`, the code iOS gives a request that got no
 * answer, and not as `not_configured`, which is for a call made before configure. Every HTTP
 * request of the process fails so (URL's stream handler factory, set once per JVM): its own
 * process (test.sh).
 */
@RunWith(RobolectricTestRunner::class)
class NetworkStackErrorTest {
    @Test
    fun `deleteUserData failed by a network stack's IllegalStateException is a network failure, not not_configured`() {
        val engine = Engine()
        URL.setURLStreamHandlerFactory { protocol -> if (protocol == "http") FailingStack else null }

        // Before configure: the SDK's own refusal, with the code both platforms give it.
        val early = engine.call("deleteUserData").outcome
        assertTrue("$early", early!!.startsWith("error not_configured:"))
        assertEquals(0, FailingStack.opened.get())

        shadowOf(engine.app.packageManager).getInternalMutablePackageInfo(engine.app.packageName).applicationInfo.metaData =
            Bundle().apply { putString("com.service.attribution.BASE_URL", "http://127.0.0.1:9") }
        shadowOf(engine.app).grantPermissions(Manifest.permission.INTERNET)
        assertNull(engine.success("configure", mapOf("apiKey" to "sdk_key", "logLevel" to 1, "customerUserId" to null)))
        assertEquals(false, engine.success("isSdkDisabled"))

        // Configured: the same exception, thrown by the network stack, is a request that got no answer.
        val failed = engine.call("deleteUserData").outcome
        assertTrue("$failed", failed!!.startsWith("error network:"))
        assertTrue("the network stack's own failure: $failed", "connection pool" in failed)
    }

    /** The network stack that fails every request as it leaves, with an IllegalStateException. */
    private object FailingStack : URLStreamHandler() {
        val opened = AtomicInteger()

        override fun openConnection(url: URL): URLConnection {
            opened.incrementAndGet()
            return object : HttpURLConnection(url) {
                override fun connect() {
                    fail()
                }

                override fun getResponseCode(): Int = fail()

                override fun getOutputStream(): OutputStream = fail()

                override fun getInputStream(): InputStream = fail()

                override fun disconnect() {}

                override fun usingProxy(): Boolean = false
            }
        }

        private fun fail(): Nothing = throw IllegalStateException("the connection pool is shut down")
    }
}
