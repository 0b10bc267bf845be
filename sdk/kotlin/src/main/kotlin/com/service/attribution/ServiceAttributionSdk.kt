package com.service.attribution

import android.content.Context
import android.content.Intent
import android.net.Uri
import com.service.attribution.android.AndroidPlatform
import com.service.attribution.core.LinkParser
import com.service.attribution.core.Logger
import com.service.attribution.core.SdkCore
import java.util.concurrent.CompletableFuture

/**
 * The SDK. Call [configure] once from `Application.onCreate()`; every other member is safe
 * from any thread, before or after it. Each member hands over to the JVM core ([SdkCore]),
 * which holds every rule; this object only turns Android types into the core's. Every member
 * is callable from Java: the `suspend` ones have a `…Async` twin returning a CompletableFuture.
 */
object ServiceAttributionSdk {
    internal val core = SdkCore(defaultMainThread = AndroidPlatform.mainThread)

    /** Set when configure ran in one of the app's other processes, and was refused there. */
    @Volatile internal var otherProcess: IllegalStateException? = null

    /** The log of a process configure refused, at the level configure was given. */
    @Volatile private var otherProcessLog: Logger? = null

    /**
     * The application Context, given by the library's ContentProvider as the process starts:
     * where the calls made before configure are written at once (the files configure reads).
     */
    internal fun attachEarly(context: Context) {
        core.useEarlyStorage { AndroidPlatform.earlyStorage(context) }
    }

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
    ) = configureIn(AndroidPlatform.processName(context.applicationContext), context, apiKey, logLevel, listener, customerUserId)

    /** [configure] in the process named [process]: refused, with a word, outside the app's main one. */
    internal fun configureIn(
        process: String?,
        context: Context,
        apiKey: String,
        logLevel: LogLevel,
        listener: InitListener?,
        customerUserId: String?,
    ) {
        val app = context.applicationContext
        val refusal = AndroidPlatform.otherProcessRefusal(app, process)
        if (refusal != null) {
            // Refused once, as a repeat call in the main process changes nothing: a second
            // configure there (a Flutter engine restarted) tells its listener nothing again.
            if (otherProcess != null) {
                otherProcessLog?.info("configure was already called: this call changes nothing")
                return
            }
            val log = AndroidPlatform.logger(logLevel)
            otherProcessLog = log
            otherProcess = refusal
            log.warn(refusal.message ?: "")
            // The app's listener must not break the app's start: what it throws is logged.
            try {
                listener?.onError(refusal)
            } catch (e: VirtualMachineError) {
                throw e
            } catch (e: Throwable) {
                log.error("InitListener.onError threw: $e", e)
            }
            return
        }
        if (!AndroidPlatform.isUserUnlocked(app)) {
            // Opening the SDK's files now would throw and stop the app's start: configure when
            // they can be read. Calls meanwhile are kept as any call before configure is.
            AndroidPlatform.logger(logLevel).info(
                "the device has not been unlocked since it started (Direct Boot): configure waits until it is",
            )
            AndroidPlatform.whenUnlocked(app) { configureIn(process, app, apiKey, logLevel, listener, customerUserId) }
            return
        }
        val platform = AndroidPlatform.create(app, logLevel = logLevel)
        core.configure(platform, AndroidPlatform.settings(app), apiKey, logLevel, listener, customerUserId)
    }

    /**
     * Kotlin takes this one for a trailing lambda, and for `listener = …` named without
     * `logLevel`: its warning names the call that reaches the current one.
     */
    @Deprecated(
        "Pass logLevel before the listener: configure(context, apiKey, LogLevel.INFO, listener)",
        ReplaceWith("configure(context, apiKey, LogLevel.INFO, listener)", "com.service.attribution.LogLevel"),
    )
    @JvmStatic
    fun configure(context: Context, apiKey: String, listener: InitListener?) =
        configure(context, apiKey, LogLevel.INFO, listener, null)

    @Deprecated(
        "Give the level instead: configure(context, apiKey, LogLevel.DEBUG)",
        ReplaceWith("configure(context, apiKey, if (isDebug) LogLevel.DEBUG else LogLevel.INFO)", "com.service.attribution.LogLevel"),
    )
    @JvmStatic
    fun configure(context: Context, apiKey: String, isDebug: Boolean) =
        configure(context, apiKey, if (isDebug) LogLevel.DEBUG else LogLevel.INFO, null, null)

    @Deprecated(
        "Pass logLevel before the listener: configure(context, apiKey, LogLevel.INFO, listener, customerUserId)",
        ReplaceWith("configure(context, apiKey, LogLevel.INFO, listener, customerUserId)", "com.service.attribution.LogLevel"),
    )
    @JvmStatic
    fun configure(context: Context, apiKey: String, listener: InitListener?, customerUserId: String?) =
        configure(context, apiKey, LogLevel.INFO, listener, customerUserId)

    /** Applies from the next event on; null clears it. Last write wins. */
    @JvmStatic
    fun setCustomerUserId(customerUserId: String?) {
        if (refusedHere("setCustomerUserId")) return
        core.setCustomerUserId(customerUserId)
    }

    /**
     * In a process where configure was refused (one of the app's other processes): a call that
     * would change the SDK's state is not made, with a warning. The main process holds that
     * state; a change here would stay in this process's memory and never reach it.
     */
    private fun refusedHere(call: String): Boolean {
        val refusal = otherProcess ?: return false
        otherProcessLog?.warn("$call changes nothing: ${refusal.message}")
        return true
    }

    /**
     * Sends an event; before configure completes it is buffered. [name] is required for
     * CUSTOM (IllegalArgumentException otherwise) and ignored for the standard events.
     */
    @JvmStatic
    @JvmOverloads
    fun sendEvent(event: EventType, name: String? = null, parameters: Map<String, Any>? = null) {
        sendEventTaken(event, name, parameters)
    }

    /** [sendEvent], saying whether the event was taken (sent, or kept until it can be): wrappers call it through [SdkWrapper.sendEventTaken]. */
    internal fun sendEventTaken(event: EventType, name: String?, parameters: Map<String, Any>?): Boolean {
        // Not kept in a process configure refused: it would wait in memory for ever, unsent.
        otherProcess?.let {
            otherProcessLog?.warn("${event.name} is not sent: ${it.message}")
            return false
        }
        return core.sendEvent(event, name, parameters)
    }

    @JvmStatic
    fun getServiceId(): String? = core.getServiceId()

    @JvmStatic
    fun isSdkDisabled(): Boolean = core.isSdkDisabled()

    @JvmStatic
    fun isConfigured(): Boolean = core.isConfigured()

    @JvmStatic
    fun isEnabled(): Boolean = core.isEnabled()

    /** The initialization's error; in a process where configure was refused, that refusal. */
    @JvmStatic
    fun getLastInitError(): Throwable? = otherProcess ?: core.getLastInitError()

    /**
     * Parses the link in [intent]'s data, locally; null when it is not a recognised link. Null
     * too, with nothing delivered, for an intent that is not `ACTION_VIEW` or that the recent
     * apps relaunched (`FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY`): see [handleDeepLink].
     */
    @JvmStatic
    @JvmOverloads
    fun handleAppLink(intent: Intent, options: LinkOptions = LinkOptions()): AppLinkResult? =
        linkOf(intent)?.let { handleAppLink(it, options) }

    /**
     * Parses [uri] locally, with no network call; callable before configure. A recognised link
     * also goes to the deep-link listener, as a direct deep link.
     */
    @JvmStatic
    @JvmOverloads
    fun handleAppLink(uri: Uri, options: LinkOptions = LinkOptions()): AppLinkResult? {
        val url = uri.toString()
        val link = LinkParser.parse(url, options) ?: return null
        core.noteOpenUrl(url)
        core.deliverAppLink(link, url)
        return AppLinkResult(link.deeplinkId, link.queryParams, uri)
    }

    /**
     * A link that opened the app, from any scheme (an App Link, or the app's own `myapp://…`,
     * or `myapp:…` without `//`): delivered to the deep-link listener as a direct deep link,
     * and returned. Null when [uri] is no link (nothing is delivered).
     */
    @JvmStatic
    fun handleDeepLink(uri: Uri): DeepLink? = core.handleDeepLink(uri.toString())

    /**
     * [handleDeepLink] for the link in [intent]'s data; null without one. Null too, with nothing
     * delivered, for an intent that is not `ACTION_VIEW` (the launcher's, an app's own: hand
     * such a link over as a Uri) or that the recent apps relaunched
     * (`FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY`), which carries again the link of the launch that
     * first made the task, handed over then: the app would navigate to it once more.
     */
    @JvmStatic
    fun handleDeepLink(intent: Intent): DeepLink? = linkOf(intent)?.let { handleDeepLink(it) }

    /** The link a tap opened an activity with, as the Intent overloads take it (above). */
    private fun linkOf(intent: Intent): Uri? {
        if (intent.action != Intent.ACTION_VIEW) return null
        if (intent.flags and Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY != 0) return null
        return intent.data
    }

    /**
     * Told the install's attribution once resolved (with `service_match_status`), and at every
     * later start with the map kept on the device; set after that, at once. Main thread. Null
     * removes it.
     */
    @JvmStatic
    fun setAttributionListener(listener: AttributionListener?) = core.setAttributionListener(listener)

    /** Told direct deep links (handleAppLink, handleDeepLink) and, once per install, the deferred one. Main thread. */
    @JvmStatic
    fun setDeepLinkListener(listener: DeepLinkListener?) = core.setDeepLinkListener(listener)

    /** Told events dropped (with the reason and how many) and an install the backend refuses. Main thread. */
    @JvmStatic
    fun setErrorListener(listener: ErrorListener?) = core.setErrorListener(listener)

    /** Events dropped on this device so far, across launches (each also told to the error listener). */
    @JvmStatic
    fun getDroppedEventCount(): Long = core.getDroppedEventCount()

    /**
     * Stops the SDK, as the user asked: nothing is sent (no request at all) and nothing queued
     * until [start]; what was queued is dropped. Kept across launches.
     */
    @JvmStatic
    fun stop() {
        if (refusedHere("stop()")) return
        core.stop()
    }

    /**
     * Undoes [stop]: the install is sent if it never was, and events from now on. While not
     * stopped it changes nothing and sends nothing, so an app may call it at every resume.
     */
    @JvmStatic
    fun start() {
        if (refusedHere("start()")) return
        core.start()
    }

    @JvmStatic
    fun isStopped(): Boolean = core.isStopped()

    /**
     * Anonymous mode: no advertising id and no customer user id leave the device. Kept across
     * launches. A change once the install is recorded is sent to the service (a consent update's
     * `device`), which then keeps no advertising id for the install, or has it again.
     */
    @JvmStatic
    fun setAnonymous(anonymous: Boolean) {
        if (refusedHere("setAnonymous")) return
        core.setAnonymous(anonymous)
    }

    @JvmStatic
    fun isAnonymous(): Boolean = core.isAnonymous()

    /**
     * The user's consent (kept across launches): sent on the install with the IAB TCF values
     * the app's consent platform stored on the device, and again whenever it changes.
     */
    @JvmStatic
    fun setConsent(consent: Consent) {
        if (refusedHere("setConsent")) return
        core.setConsent(consent)
    }

    @JvmStatic
    @JvmOverloads
    fun getAttributionParams(rawReferrer: String? = null): Map<String, String> =
        core.getAttributionParams(rawReferrer)

    @JvmStatic
    suspend fun awaitAttributionParams(rawReferrer: String? = null): Map<String, String> =
        core.awaitAttributionParams(rawReferrer)

    /**
     * Deletes the install's data at the service, for good: nothing is sent for it afterwards.
     * Throws IOException when no answer came (offline, a timeout), HttpException when the
     * service refused, AuthenticationException for a rejected key, IllegalStateException before
     * configure.
     */
    @JvmStatic
    suspend fun deleteUserData() = core.deleteUserData()

    @JvmStatic
    suspend fun refreshConfig() = core.refreshConfig()

    /** [awaitAttributionParams] for Java: completes once the first attribution attempt of the launch finished. */
    @JvmStatic
    @JvmOverloads
    fun awaitAttributionParamsAsync(rawReferrer: String? = null): CompletableFuture<Map<String, String>> =
        core.awaitAttributionParamsAsync(rawReferrer)

    /** [deleteUserData] for Java: fails with IOException (no answer), HttpException, AuthenticationException for a rejected key, or IllegalStateException before configure. */
    @JvmStatic
    fun deleteUserDataAsync(): CompletableFuture<Void?> = core.deleteUserDataAsync()

    /** [refreshConfig] for Java: fails as refreshConfig throws. */
    @JvmStatic
    fun refreshConfigAsync(): CompletableFuture<Void?> = core.refreshConfigAsync()
}
