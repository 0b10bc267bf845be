package com.example.consumer

import android.app.Activity
import android.os.Bundle
import com.service.attribution.AppLinkResult
import com.service.attribution.Consent
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.ServiceAttributionSdk
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch

/**
 * An app written in Kotlin 2.0 (compiled by test.sh with kotlinc 2.0.21 against the AAR's
 * classes.jar): calls every public member of ServiceAttributionSdk, as an app would.
 */
class KotlinConsumerActivity : Activity() {
    private val scope = CoroutineScope(Dispatchers.Default)

    @Suppress("DEPRECATION")
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val key = intent.getStringExtra("sdkKey")!!
        ServiceAttributionSdk.setAttributionListener { Seen.add("attribution:" + it["service_match_status"]) }
        ServiceAttributionSdk.setDeepLinkListener { Seen.add("deeplink:" + it.kind.wire + ":" + it.path) }
        ServiceAttributionSdk.setErrorListener { Seen.add("error:" + it.kind.wire) }
        ServiceAttributionSdk.setConsent(Consent(gdprApplies = true, adUserData = true, adPersonalization = false))
        ServiceAttributionSdk.setAnonymous(false)
        ServiceAttributionSdk.stop()
        ServiceAttributionSdk.start()
        ServiceAttributionSdk.configure(
            applicationContext,
            key,
            LogLevel.DEBUG,
            object : InitListener {
                override fun onError(t: Throwable) {
                    Seen.add("init-error:" + t)
                }

                override fun onInitialized(mainThreadDurationMs: Long, totalDurationMs: Long) {
                    Seen.add("initialized")
                }
            },
            "kotlin-consumer",
        )
        // Repeat calls, no-ops. The listener as a lambda, as the README gives it: the current
        // overload, which tools/consumers.sh checks by kotlinc warning of no deprecation but
        // the older overloads' own, suppressed below.
        ServiceAttributionSdk.configure(this, key)
        ServiceAttributionSdk.configure(this, key, LogLevel.INFO, { t -> Seen.add("init-error:$t") })
        ServiceAttributionSdk.configure(this, key, logLevel = LogLevel.INFO, listener = { t -> Seen.add("init-error:$t") })
        olderOverloads(key)
        ServiceAttributionSdk.setCustomerUserId("kotlin-consumer")
        ServiceAttributionSdk.sendEvent(EventType.LOGIN)
        ServiceAttributionSdk.sendEvent(EventType.CUSTOM, "Consumer Kotlin", mapOf("level" to 7))
        val link: AppLinkResult? = ServiceAttributionSdk.handleAppLink(intent)
        val filtered: AppLinkResult? = intent.data?.let { ServiceAttributionSdk.handleAppLink(it, LinkOptions(setOf("go.example.com"))) }
        ServiceAttributionSdk.handleDeepLink(intent)
        intent.data?.let { ServiceAttributionSdk.handleDeepLink(it) }
        Seen.add(
            "state:" + listOf(
                ServiceAttributionSdk.isConfigured(), ServiceAttributionSdk.isStopped(), ServiceAttributionSdk.isAnonymous(),
                ServiceAttributionSdk.getServiceId() != null, ServiceAttributionSdk.isSdkDisabled(), ServiceAttributionSdk.isEnabled(),
                ServiceAttributionSdk.getLastInitError(), ServiceAttributionSdk.getDroppedEventCount(), link, filtered,
                ServiceAttributionSdk.getAttributionParams(), ServiceAttributionSdk.getAttributionParams("utm_source=x").size,
            ),
        )
        scope.launch {
            Seen.add("await:" + ServiceAttributionSdk.awaitAttributionParams()["media_source"])
            ServiceAttributionSdk.refreshConfig()
            Seen.add("refresh:done")
        }
        ServiceAttributionSdk.awaitAttributionParamsAsync().thenAccept { Seen.add("await-async:" + it["media_source"]) }
        ServiceAttributionSdk.awaitAttributionParamsAsync("utm_source=x")
        ServiceAttributionSdk.refreshConfigAsync().thenRun { Seen.add("refresh-async:done") }
    }

    /** The older overloads, deprecated and still taken: repeat calls, no-ops. */
    @Suppress("DEPRECATION")
    private fun olderOverloads(key: String) {
        ServiceAttributionSdk.configure(this, key) { t -> Seen.add("init-error:$t") }
        ServiceAttributionSdk.configure(this, key, InitListener { })
        ServiceAttributionSdk.configure(this, key, isDebug = true)
        ServiceAttributionSdk.configure(this, key, InitListener { }, "u")
    }

    /** Called by the harness once the events are in the service's export. */
    fun finishUp() {
        scope.launch {
            ServiceAttributionSdk.deleteUserData()
            Seen.add("deleted")
            ServiceAttributionSdk.deleteUserDataAsync().thenRun { Seen.add("deleted-async") }
        }
    }
}
