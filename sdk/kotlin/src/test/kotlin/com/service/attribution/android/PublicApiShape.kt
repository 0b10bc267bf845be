package com.service.attribution.android

import android.content.Context
import android.content.Intent
import android.net.Uri
import com.service.attribution.AppLinkResult
import com.service.attribution.EventType
import com.service.attribution.InitListener
import com.service.attribution.LinkOptions
import com.service.attribution.LogLevel
import com.service.attribution.ServiceAttributionSdk

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
}
