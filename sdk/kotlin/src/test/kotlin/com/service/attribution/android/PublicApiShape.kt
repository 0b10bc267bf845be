package com.service.attribution.android

import android.content.Context
import android.content.Intent
import android.net.Uri
import com.service.attribution.AppLinkResult
import com.service.attribution.AttributionListener
import com.service.attribution.Consent
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkKind
import com.service.attribution.DeepLinkListener
import com.service.attribution.DropReason
import com.service.attribution.ErrorListener
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.ServiceAttributionSdk
import java.util.concurrent.CompletableFuture

/**
 * Compiled with the tests and never run (there is no Android runtime here): the build fails if
 * a public name, parameter, default or return type of the spec's Kotlin tables changes, or if
 * an app's usual calls stop resolving (a lambda as the listener, the older overloads).
 */
@Suppress("DEPRECATION", "unused")
private suspend fun callsAnAppMakes(context: Context, intent: Intent, uri: Uri) {
    ServiceAttributionSdk.configure(context, "sdk_key")
    ServiceAttributionSdk.configure(context, "sdk_key", LogLevel.NONE, listener = { t: Throwable -> t.printStackTrace() }, customerUserId = "u")
    ServiceAttributionSdk.configure(context, "sdk_key", InitListener { })
    ServiceAttributionSdk.configure(context, "sdk_key", isDebug = true)
    ServiceAttributionSdk.configure(context, "sdk_key", InitListener { }, "u")
    ServiceAttributionSdk.setCustomerUserId(null)
    ServiceAttributionSdk.sendEvent(EventType.CUSTOM, "Boss Defeated", mapOf("level" to 7))
    ServiceAttributionSdk.sendEvent(EventType.LOGIN)
    val id: String? = ServiceAttributionSdk.getServiceId()
    val flags: List<Boolean> = listOf(ServiceAttributionSdk.isSdkDisabled(), ServiceAttributionSdk.isConfigured(), ServiceAttributionSdk.isEnabled())
    val error: Throwable? = ServiceAttributionSdk.getLastInitError()
    val fromIntent: AppLinkResult? = ServiceAttributionSdk.handleAppLink(intent)
    val fromUri: AppLinkResult? = ServiceAttributionSdk.handleAppLink(uri, LinkOptions(allowedHosts = setOf("go.example.com")))
    val link: Triple<String?, Map<String, String>, Uri>? = fromUri?.let { Triple(it.deeplinkId, it.queryParams, it.uri) }
    val now: Map<String, String> = ServiceAttributionSdk.getAttributionParams()
    val merged: Map<String, String> = ServiceAttributionSdk.getAttributionParams("utm_source=x")
    val awaited: Map<String, String> = ServiceAttributionSdk.awaitAttributionParams()
    ServiceAttributionSdk.deleteUserData()
    ServiceAttributionSdk.refreshConfig()
    println(listOf(id, flags, error, fromIntent, link, now, merged, awaited))
    // docs/sdks.md, "Listeners, consent and delivery", the Kotlin column.
    ServiceAttributionSdk.setAttributionListener(AttributionListener { map: Map<String, String> -> println(map) })
    ServiceAttributionSdk.setAttributionListener(null)
    ServiceAttributionSdk.setDeepLinkListener(DeepLinkListener { d: DeepLink -> println(listOf<Any?>(d.kind, d.deeplinkId, d.path, d.params, d.url)) })
    ServiceAttributionSdk.setErrorListener(ErrorListener { e: ServiceError -> println(listOf<Any?>(e.kind, e.reason, e.code, e.count, e.message)) })
    val direct: DeepLink? = ServiceAttributionSdk.handleDeepLink(uri)
    val directFromIntent: DeepLink? = ServiceAttributionSdk.handleDeepLink(intent)
    val dropped: Long = ServiceAttributionSdk.getDroppedEventCount()
    ServiceAttributionSdk.stop()
    ServiceAttributionSdk.start()
    val stopped: Boolean = ServiceAttributionSdk.isStopped()
    ServiceAttributionSdk.setAnonymous(true)
    val anonymous: Boolean = ServiceAttributionSdk.isAnonymous()
    ServiceAttributionSdk.setConsent(Consent(gdprApplies = true, adUserData = false, adPersonalization = null))
    ServiceAttributionSdk.setConsent(Consent())
    val kinds: List<String> = DeepLinkKind.values().map { it.wire } + ServiceErrorKind.values().map { it.wire } + DropReason.values().map { it.wire }
    val awaitedAsync: CompletableFuture<Map<String, String>> = ServiceAttributionSdk.awaitAttributionParamsAsync()
    val awaitedAsyncReferrer: CompletableFuture<Map<String, String>> = ServiceAttributionSdk.awaitAttributionParamsAsync("utm_source=x")
    val deletedAsync: CompletableFuture<Void?> = ServiceAttributionSdk.deleteUserDataAsync()
    val refreshedAsync: CompletableFuture<Void?> = ServiceAttributionSdk.refreshConfigAsync()
    println(listOf(direct, directFromIntent, dropped, stopped, anonymous, kinds, awaitedAsync, awaitedAsyncReferrer, deletedAsync, refreshedAsync))
}
