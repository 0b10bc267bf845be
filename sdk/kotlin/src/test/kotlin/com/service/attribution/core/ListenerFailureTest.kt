package com.service.attribution.core

import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import com.service.attribution.support.ScriptedDevice
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** An app's listener that throws, an Error included (Kotlin's TODO()), is logged and the SDK goes on. */
class ListenerFailureTest {
    private val device = ScriptedDevice()

    @After
    fun close() = device.close()

    private class Unfinished : InitListener {
        override fun onError(t: Throwable) {
            TODO("the app's error handling")
        }

        override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {
            TODO("the app's start-up timing")
        }
    }

    @Test
    fun `listeners that call TODO() are logged at error level and the SDK goes on sending`() {
        var configReads = 0
        val answer = device.backend.config
        // The first read fails, so that onError is called; the SDK goes on with a placeholder,
        // the events waiting for the read 2 s later.
        device.backend.config = { if (configReads++ == 0) HttpResponse(500, "{}") else answer(it) }
        val refusedOnce = device.backend.events
        var first = true
        device.backend.events = { batch ->
            if (first) {
                first = false
                HttpResponse(202, """{"accepted":${batch.size - 1},"ignored":[],"rejected":[{"index":0,"event_id":"${batch[0]["event_id"]}","error":"Unprocessable","detail":"bad","retryable":false}],"warnings":[]}""")
            } else {
                refusedOnce(batch)
            }
        }
        val core = device.launch()
        core.setErrorListener { TODO("the app's drop handling") }
        core.setAttributionListener { TODO("the app's attribution handling") }
        core.setDeepLinkListener { TODO("the app's navigation") }
        core.configure(device.platform, SdkSettings(baseUrl = "https://backend.test"), "sdk_key", LogLevel.DEBUG, Unfinished(), null)
        device.scheduler.runDue()
        core.sendEvent(EventType.LOGIN, null, null)
        core.sendEvent(EventType.SHARE, null, null)
        device.scheduler.advance(2_000)
        core.handleDeepLink("myapp://open?deep_link_path=/shop")
        device.scheduler.runDue()
        assertEquals(listOf("SHARE"), device.backend.delivered.map { it["event_type"] })
        assertEquals(1L, core.getDroppedEventCount())
        val errors = device.logged(LogLevel.ERROR)
        assertTrue(errors.toString(), errors.any { it.startsWith("InitListener.onError threw") })
        assertTrue(errors.toString(), errors.any { it.startsWith("InitListener.onInitialized threw") })
        // The attribution, the drop and the deep link: each listener's TODO() logged.
        assertEquals(errors.toString(), 3, errors.count { it.startsWith("a listener threw") && "NotImplementedError" in it })
        device.assertNoFailures()
    }
}
