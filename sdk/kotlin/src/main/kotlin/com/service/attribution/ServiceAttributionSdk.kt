package com.service.attribution

import android.content.Context
import android.content.Intent
import android.net.Uri
import com.service.attribution.android.AndroidPlatform
import com.service.attribution.core.LinkParser
import com.service.attribution.core.SdkCore

/**
 * The SDK. Call [configure] once from `Application.onCreate()`; every other member is safe
 * from any thread, before or after it. Each member hands over to the JVM core ([SdkCore]),
 * which holds every rule; this object only turns Android types into the core's.
 */
object ServiceAttributionSdk {
    internal val core = SdkCore()

    /**
     * Starts the SDK: fetches remote configuration, tracks the install once, sends buffered
     * events. A repeat call is a no-op, its [customerUserId] included. The backend's address
     * comes from the manifest's `com.service.attribution.BASE_URL` meta-data.
     */
    @JvmStatic
    @JvmOverloads
    fun configure(
        context: Context,
        apiKey: String,
        logLevel: LogLevel = LogLevel.INFO,
        listener: InitListener? = null,
        customerUserId: String? = null,
    ) {
        val app = context.applicationContext
        val platform = AndroidPlatform.create(app)
        core.configure(platform, AndroidPlatform.settings(app), apiKey, logLevel, listener, customerUserId)
    }

    @Deprecated("Use configure(context, apiKey, logLevel, listener, customerUserId)")
    @JvmStatic
    fun configure(context: Context, apiKey: String, listener: InitListener?) =
        configure(context, apiKey, LogLevel.INFO, listener, null)

    @Deprecated("Use configure(context, apiKey, logLevel = LogLevel.DEBUG)")
    @JvmStatic
    fun configure(context: Context, apiKey: String, isDebug: Boolean) =
        configure(context, apiKey, if (isDebug) LogLevel.DEBUG else LogLevel.INFO, null, null)

    @Deprecated("Use configure(context, apiKey, logLevel, listener, customerUserId)")
    @JvmStatic
    fun configure(context: Context, apiKey: String, listener: InitListener?, customerUserId: String?) =
        configure(context, apiKey, LogLevel.INFO, listener, customerUserId)

    /** Applies from the next event on; null clears it. Last write wins. */
    @JvmStatic
    fun setCustomerUserId(customerUserId: String?) = core.setCustomerUserId(customerUserId)

    /**
     * Sends an event; before configure completes it is buffered. [name] is required for
     * CUSTOM (IllegalArgumentException otherwise) and ignored for the standard events.
     */
    @JvmStatic
    @JvmOverloads
    fun sendEvent(event: EventType, name: String? = null, parameters: Map<String, Any>? = null) =
        core.sendEvent(event, name, parameters)

    @JvmStatic
    fun getServiceId(): String? = core.getServiceId()

    @JvmStatic
    fun isSdkDisabled(): Boolean = core.isSdkDisabled()

    @JvmStatic
    fun isConfigured(): Boolean = core.isConfigured()

    @JvmStatic
    fun isEnabled(): Boolean = core.isEnabled()

    @JvmStatic
    fun getLastInitError(): Throwable? = core.getLastInitError()

    /** Parses the link in [intent]'s data, locally; null when it is not a recognised link. */
    @JvmStatic
    @JvmOverloads
    fun handleAppLink(intent: Intent, options: LinkOptions = LinkOptions()): AppLinkResult? =
        intent.data?.let { handleAppLink(it, options) }

    /** Parses [uri] locally, with no network call; callable before configure. */
    @JvmStatic
    @JvmOverloads
    fun handleAppLink(uri: Uri, options: LinkOptions = LinkOptions()): AppLinkResult? {
        val url = uri.toString()
        val link = LinkParser.parse(url, options) ?: return null
        core.noteOpenUrl(url)
        return AppLinkResult(link.deeplinkId, link.queryParams, uri)
    }

    @JvmStatic
    @JvmOverloads
    fun getAttributionParams(rawReferrer: String? = null): Map<String, String> =
        core.getAttributionParams(rawReferrer)

    @JvmStatic
    suspend fun awaitAttributionParams(rawReferrer: String? = null): Map<String, String> =
        core.awaitAttributionParams(rawReferrer)

    @JvmStatic
    suspend fun deleteUserData() = core.deleteUserData()

    @JvmStatic
    suspend fun refreshConfig() = core.refreshConfig()
}
