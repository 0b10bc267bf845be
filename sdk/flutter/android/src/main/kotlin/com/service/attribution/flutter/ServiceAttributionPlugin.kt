package com.service.attribution.flutter

import android.content.Context
import android.content.Intent
import android.net.Uri
import android.os.Handler
import android.os.Looper
import android.util.Log
import com.service.attribution.AttributionListener
import com.service.attribution.AuthenticationException
import com.service.attribution.Consent
import com.service.attribution.DeepLink
import com.service.attribution.DeepLinkListener
import com.service.attribution.ErrorListener
import com.service.attribution.EventType
import com.service.attribution.HttpException
import com.service.attribution.InitListener
import com.service.attribution.LogLevel
import com.service.attribution.SdkWrapper
import com.service.attribution.ServiceAttributionSdk
import com.service.attribution.ServiceError
import com.service.attribution.ServiceErrorKind
import com.service.attribution.WrapperPlatform
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.embedding.engine.plugins.activity.ActivityAware
import io.flutter.embedding.engine.plugins.activity.ActivityPluginBinding
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
import io.flutter.plugin.common.PluginRegistry
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import java.io.IOException
import java.util.concurrent.atomic.AtomicBoolean

/**
 * The Android side of the Flutter plugin: each method of the channel `service_attribution`
 * calls the Kotlin SDK. The Dart side has already checked the arguments; what waits (the
 * attribution match, a deletion) runs off the platform thread and answers on it.
 *
 * The SDK's listeners are set while the Dart side's stream of the same name has a listener
 * (the channel's `listen`): each calls the Dart side back on the main thread with
 * `onAttribution`, `onDeepLink` or `onError` and a map of the standard codec's types. The SDK's
 * refusal to start, which it tells configure's InitListener alone, reaches `onError` too. The
 * error listener is set from configure on: what it hears while no Dart stream listens waits for
 * the first that does.
 *
 * The link that opens the app (the launching activity's intent, and each new one) is handed to
 * the SDK here, as the iOS side's application and scene delegates hand theirs: a new install's
 * report carries it (its `open_url`, whose click attributes the install), which a link the Dart
 * side tells the SDK later, once the app's own link plugin has it, may reach too late.
 */
class ServiceAttributionPlugin :
    FlutterPlugin,
    MethodChannel.MethodCallHandler,
    ActivityAware,
    PluginRegistry.NewIntentListener {
    private lateinit var channel: MethodChannel
    private lateinit var context: Context
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.IO)
    private val main = Handler(Looper.getMainLooper())

    override fun onAttachedToEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        context = binding.applicationContext
        channel = MethodChannel(binding.binaryMessenger, CHANNEL)
        channel.setMethodCallHandler(this)
    }

    /** The engine went away: a call to Dart made before, still on its way, is one no Dart code takes. */
    @Volatile private var detached = false

    override fun onDetachedFromEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        detached = true
        channel.setMethodCallHandler(null)
        // The SDK outlives the engine: it must not call a channel that is gone.
        for (name in NAMES) listen(name, false)
        scope.cancel()
    }

    private var activityBinding: ActivityPluginBinding? = null

    override fun onAttachedToActivity(binding: ActivityPluginBinding) {
        attach(binding)
        // The intent that launched the activity: a link tapped, or the launcher's (no data).
        noteOpeningLink(binding.activity.intent)
    }

    /** The same activity, made anew for a configuration change: its intent was noted already. */
    override fun onReattachedToActivityForConfigChanges(binding: ActivityPluginBinding) = attach(binding)

    override fun onDetachedFromActivityForConfigChanges() = detachActivity()

    override fun onDetachedFromActivity() = detachActivity()

    /** A link that brought the running activity forward; false leaves it to the app and other plugins. */
    override fun onNewIntent(intent: Intent): Boolean {
        noteOpeningLink(intent)
        return false
    }

    private fun attach(binding: ActivityPluginBinding) {
        activityBinding = binding
        binding.addOnNewIntentListener(this)
    }

    private fun detachActivity() {
        activityBinding?.removeOnNewIntentListener(this)
        activityBinding = null
    }

    /**
     * Hands the SDK the link of [intent], as the Dart side's handleDeepLink does (the direct
     * deep link it makes of it is delivered by the Dart calls alone, never from here). An intent
     * relaunched from the recent apps carries the link of an earlier launch, already handed over.
     */
    private fun noteOpeningLink(intent: Intent?) {
        val link = intent?.data ?: return
        if (intent.action != Intent.ACTION_VIEW) return
        if (intent.flags and Intent.FLAG_ACTIVITY_LAUNCHED_FROM_HISTORY != 0) return
        ServiceAttributionSdk.handleDeepLink(link)
    }

    /**
     * Answers every call once, with one of the documented codes: an exception the method did
     * not expect (a malformed argument, a bug) is answered `native`, with the method and the
     * exception in the message, and logged. Flutter would otherwise answer it with its generic
     * code `error`, which no caller on the Dart side looks for.
     */
    override fun onMethodCall(call: MethodCall, result: MethodChannel.Result) {
        val once = AnswerOnce(result)
        try {
            handle(call, once)
        } catch (error: Exception) {
            Log.e(TAG, "${call.method}: the plugin failed unexpectedly: $error", error)
            // Answered already (a failure after the answer): a second answer would throw.
            once.error("native", "${call.method}: the plugin failed unexpectedly: $error", null)
        }
    }

    /** A channel result answered once at most: what comes after the first answer is dropped. */
    private class AnswerOnce(private val result: MethodChannel.Result) : MethodChannel.Result {
        private val answered = AtomicBoolean(false)

        override fun success(value: Any?) {
            if (answered.compareAndSet(false, true)) result.success(value)
        }

        override fun error(errorCode: String, errorMessage: String?, errorDetails: Any?) {
            if (answered.compareAndSet(false, true)) result.error(errorCode, errorMessage, errorDetails)
        }

        override fun notImplemented() {
            if (answered.compareAndSet(false, true)) result.notImplemented()
        }
    }

    private fun handle(call: MethodCall, result: MethodChannel.Result) {
        when (call.method) {
            "configure" -> {
                val apiKey = call.argument<String>("apiKey")
                if (apiKey == null) {
                    result.error("argument", "apiKey is required", null)
                    return
                }
                // The SDK then applies Flutter's rules: with sealing on in remote configuration,
                // every custom parameter value is sealed (the keys needed in clear excepted).
                SdkWrapper.declare(WrapperPlatform.FLUTTER, VERSION)
                // From the start: an error told before the Dart side's error stream listens (a
                // drop as configure runs, say) waits for its first listener.
                ServiceAttributionSdk.setErrorListener(errorRelay)
                // Answered at once, as the Dart side's configure documents: a refusal comes
                // later (remote configuration is read off the main thread), on the error stream.
                ServiceAttributionSdk.configure(
                    context,
                    apiKey,
                    logLevelOf(call.argument<Int>("logLevel") ?: 1),
                    refusalListener,
                    call.argument<String>("customerUserId"),
                )
                result.success(null)
            }
            // App Tracking Transparency is Apple's: Android has no prompt to wait for, and the
            // install goes at configure as always.
            "waitForTrackingAuthorization" -> result.success(null)
            "setCustomerUserId" -> {
                ServiceAttributionSdk.setCustomerUserId(call.argument<String>("customerUserId"))
                result.success(null)
            }
            "sendEvent" -> {
                val type = call.argument<String>("eventType")?.let(::eventTypeOf)
                if (type == null) {
                    result.error("argument", "unknown eventType", null)
                    return
                }
                try {
                    // The parameters as the channel decoded them (nested maps and lists
                    // included): the SDK cleans them and seals what remote configuration asks.
                    // True when taken: sent now, or kept on the device until it can be (before
                    // configure too). False when the SDK sends nothing: switched off, stopped, the
                    // install's data deleted, or a manual install, which the SDK tracks itself.
                    result.success(
                        SdkWrapper.sendEventTaken(
                            type,
                            call.argument<String>("eventName"),
                            call.argument<Map<String, Any>>("parameters"),
                        ),
                    )
                } catch (error: IllegalArgumentException) {
                    result.error("argument", error.message, null)
                }
            }
            "getServiceId" -> result.success(ServiceAttributionSdk.getServiceId())
            "isSdkDisabled" -> result.success(ServiceAttributionSdk.isSdkDisabled())
            "getAttributionParams" ->
                result.success(ServiceAttributionSdk.getAttributionParams().ifEmpty { null })
            "awaitAttributionParams" -> answerLater(result) {
                ServiceAttributionSdk.awaitAttributionParams().ifEmpty { null }
            }
            // Apple Ads attribution exists only on iOS.
            "enablePlatformAdsAttribution" -> result.success(false)
            "deleteUserData" -> answerLater(result) {
                ServiceAttributionSdk.deleteUserData()
                null
            }
            "handleDeepLink" -> {
                // The Dart side delivers the direct deep link itself; the SDK notes the link that
                // opened the app (an http(s) link goes with a new install's report).
                call.argument<String>("url")?.let { ServiceAttributionSdk.handleDeepLink(Uri.parse(it)) }
                result.success(null)
            }
            "stop" -> {
                ServiceAttributionSdk.stop()
                result.success(null)
            }
            "start" -> {
                ServiceAttributionSdk.start()
                result.success(null)
            }
            "isStopped" -> result.success(ServiceAttributionSdk.isStopped())
            "setAnonymous" -> {
                ServiceAttributionSdk.setAnonymous(call.argument<Boolean>("anonymous") ?: false)
                result.success(null)
            }
            "isAnonymous" -> result.success(ServiceAttributionSdk.isAnonymous())
            "setConsent" -> {
                ServiceAttributionSdk.setConsent(
                    Consent(
                        call.argument<Boolean>("gdprApplies"),
                        call.argument<Boolean>("adUserData"),
                        call.argument<Boolean>("adPersonalization"),
                    ),
                )
                result.success(null)
            }
            "getDroppedEventCount" -> result.success(ServiceAttributionSdk.getDroppedEventCount())
            "listen" -> {
                listen(call.argument<String>("listener"), call.argument<Boolean>("listening") ?: false)
                result.success(null)
            }
            else -> result.notImplemented()
        }
    }

    /**
     * Sets (or clears) the SDK's listener that feeds the Dart stream [name]. The SDK has one of
     * each for the process, and an app may run several engines (add-to-app, a background
     * isolate's): the listener calls the engine whose stream began listening last, and when that
     * one stops (its engine going away included), the one before it that still listens, whose
     * stream would otherwise hear nothing for the rest of the process. Set again, the SDK tells
     * the kept attribution at once, and a deferred deep link not yet handed over.
     */
    private fun listen(name: String?, listening: Boolean) {
        if (name == null || name !in NAMES) return
        var pending: List<Map<String, Any?>> = emptyList()
        val told: ServiceAttributionPlugin?
        synchronized(owners) {
            val plugins = owners.getOrPut(name) { ArrayList() }
            val before = plugins.lastOrNull()
            plugins.remove(this)
            if (listening) plugins.add(this)
            told = plugins.lastOrNull()
            // Another engine's stream stopped: the SDK's listener is as it was.
            if (!listening && told === before) return
            if (listening && name == ERROR) {
                pending = pendingErrors.toList()
                pendingErrors.clear()
            }
        }
        val deferred = if (listening && name == DEEP_LINK) takeUnheardDeferred() else null
        // Outside the lock: the SDK may call its InitListener, which takes it, under its own.
        when (name) {
            // Set after the attribution is known, the SDK tells the listener at once.
            ATTRIBUTION -> ServiceAttributionSdk.setAttributionListener(
                told?.let { plugin -> AttributionListener { plugin.toDart("onAttribution", HashMap(it)) } },
            )
            DEEP_LINK -> ServiceAttributionSdk.setDeepLinkListener(
                told?.let { plugin -> DeepLinkListener { plugin.tellDeepLink(channelMap(it)) } },
            )
            // Kept whether a stream listens or not: the relay calls the one that does, or keeps
            // the error for the first that will.
            ERROR -> ServiceAttributionSdk.setErrorListener(errorRelay)
        }
        deferred?.let(::tellDeepLink)
        for (error in pending) toDart("onError", error) { failed -> unheardError(error, failed) }
    }

    /** A deep link to this engine's Dart side; the deferred one, which the SDK hands over once, kept if unheard. */
    private fun tellDeepLink(link: Map<String, Any?>) =
        toDart("onDeepLink", link) { failed ->
            if (link["kind"] == DEFERRED) keepUnheardDeferred(link, failed)
        }

    /**
     * Calls the Dart side, on the main thread as a channel must be called. [unheard] runs when
     * no Dart code took the call: a hot restart keeps the engine and this plugin but not the
     * isolate whose streams listened, and until the new one sets its handler the engine answers
     * every call with nothing; the new one answers `false` to an error while its error stream
     * has no listener yet. Either way this engine's streams listen no more than its Dart side
     * says anew (all of them for no handler, the one whose method answered `false` else), and
     * what the call carried waits for the next listener.
     *
     * A handler that threw on the call (an error answer: a map it could not read, say) took
     * nothing either: what the call carried is kept for the next listener too (`unheard(true)`),
     * and the failure logged once. Its streams go on listening: the next item may well be read,
     * and sending the same one again at once would fail the same way.
     */
    private fun toDart(method: String, arguments: Any?, unheard: ((failed: Boolean) -> Unit)? = null) {
        val answer =
            object : MethodChannel.Result {
                override fun success(result: Any?) {
                    if (result != false) return
                    listenerOf(method)?.let { listen(it, false) }
                    unheard?.invoke(false)
                }

                override fun error(errorCode: String, errorMessage: String?, errorDetails: Any?) {
                    // The attribution needs no keeping: the SDK tells it again to the next listener set.
                    val kept = if (method == "onAttribution") "the SDK tells it again to the next listener" else "kept for the next listener"
                    Log.w(TAG, "$method: the Dart side failed to handle it ($errorCode: $errorMessage); $kept")
                    unheard?.invoke(true)
                }

                override fun notImplemented() {
                    for (name in NAMES) listen(name, false)
                    unheard?.invoke(false)
                }
            }
        // The engine gone meanwhile: what the call carried waits for the next listener (another
        // engine's), never handed to none.
        val send = { if (detached) unheard?.invoke(false) else channel.invokeMethod(method, arguments, answer) }
        if (Looper.myLooper() == Looper.getMainLooper()) send() else main.post { send() }
    }

    /** Runs [work] off the platform thread; answers on it, as a channel result must be. */
    private fun answerLater(result: MethodChannel.Result, work: suspend () -> Any?) {
        scope.launch {
            // As the call is made: what decides whether a failure is `not_configured`.
            val configured = ServiceAttributionSdk.isConfigured()
            val outcome = runCatching { work() }
            main.post {
                outcome.fold(
                    onSuccess = { result.success(it) },
                    onFailure = { result.error(errorCode(it, configured), it.message, errorDetails(it)) },
                )
            }
        }
    }

    companion object {
        private const val CHANNEL = "service_attribution"

        /**
         * The `PlatformException` code of a failure, the same on both platforms (the Dart
         * side's `deleteUserData` documents them): the SDK not configured, a rejected key, the
         * service's refusal, no answer, or anything else. [configured]: whether the SDK was
         * configured when the call was made.
         */
        fun errorCode(error: Throwable, configured: Boolean): String = when {
            error is AuthenticationException -> "authentication"
            error is HttpException -> "http"
            error is IOException -> "network"
            // The SDK refuses a call before configure with an IllegalStateException, but an
            // IllegalStateException is no proof of that: some network stacks throw one (or
            // another RuntimeException, a SecurityException say) for a request that got no
            // answer, which the SDK's HTTP client passes on as it is. Once configured, such a
            // failure is the network's, as the SDK's own deliveries take it.
            !configured && error is IllegalStateException -> "not_configured"
            error is IllegalArgumentException -> "native"
            configured && error is RuntimeException -> "network"
            else -> "native"
        }

        /** The HTTP status of a refusal, as `{"httpCode": status}`; null for other failures. */
        fun errorDetails(error: Throwable): Map<String, Any>? = when (error) {
            is AuthenticationException -> mapOf("httpCode" to error.code)
            is HttpException -> mapOf("httpCode" to error.code)
            else -> null
        }

        /** The Dart side's names of the SDK's listeners (the channel's `listen`). */
        private const val ATTRIBUTION = "attribution"
        private const val DEEP_LINK = "deepLink"
        private const val ERROR = "error"

        private val NAMES = setOf(ATTRIBUTION, DEEP_LINK, ERROR)

        /** The listener whose stream a call to the Dart side feeds; null for any other method. */
        private fun listenerOf(method: String): String? =
            when (method) {
                "onAttribution" -> ATTRIBUTION
                "onDeepLink" -> DEEP_LINK
                "onError" -> ERROR
                else -> null
            }

        /** The Android SDK's log tag, under which the plugin logs too. */
        private const val TAG = "ServiceSdk"

        /**
         * The plugins (of which engines) whose Dart stream of each name listens, in the order they
         * began: the last is the one the SDK's listener calls.
         */
        private val owners = HashMap<String, MutableList<ServiceAttributionPlugin>>()

        /**
         * The errors told while no Dart error stream listened (configure runs early in main, the
         * listener may come after it, and an engine's stream may stop and another begin), and
         * those a Dart handler failed on: the most recent [MAX_PENDING_ERRORS], kept under
         * [owners]' lock for the next stream that begins to listen, oldest first. The SDK's drops
         * are counted whether or not anyone hears them (getDroppedEventCount); these are what the
         * app's listener would have heard.
         */
        private val pendingErrors = ArrayDeque<Map<String, Any?>>()

        /** As many as the deep links kept for a listener (listeners.json's maxPendingDirectLinks). */
        private const val MAX_PENDING_ERRORS = 10

        /** The SDK's error listener, set from configure on: tells the Dart stream that listens, or keeps the error. */
        private val errorRelay = ErrorListener { tellError(channelMap(it)) }

        /**
         * configure's InitListener, the one place where the SDK says it refused to start: no
         * service address in the manifest, the key rejected on GET /v1/config (401), no INTERNET
         * permission, one of the app's other processes. It reaches the Dart side's error stream as
         * delivery.json's `configuration` error, with the HTTP status when there is one, through
         * the engine whose stream listens. The SDK is one per process and keeps the listener of
         * the first configure, so this holds no engine. A failed read that the SDK goes on after
         * (offline, a 5xx, a 403 or 404 on GET /v1/config) is none: an install the service then
         * refuses is reported by the SDK's error listener itself.
         */
        private val refusalListener =
            InitListener { error ->
                // The SDK tells its InitListener of failed reads it goes on after too: a network
                // stack's IllegalStateException on GET /v1/config is no refusal while it runs.
                if (ServiceAttributionSdk.isSdkDisabled()) refusalMap(error)?.let(::tellError)
            }

        /** The `configuration` error of a refusal that leaves the SDK off; null for any other error. */
        fun refusalMap(error: Throwable): Map<String, Any?>? {
            val code =
                when (error) {
                    is AuthenticationException -> error.code
                    is IllegalStateException, is IllegalArgumentException, is SecurityException -> null
                    else -> return null
                }
            val message = error.message ?: error.toString()
            return channelMap(ServiceError(ServiceErrorKind.CONFIGURATION, null, code, 1, "the SDK did not start: $message"))
        }

        /** To the Dart error stream that listens, or kept for the first that will (told again if it did not hear it). */
        private fun tellError(error: Map<String, Any?>) {
            val owner =
                synchronized(owners) {
                    owners[ERROR]?.lastOrNull().also { if (it == null) keepError(error) }
                }
            owner?.toDart("onError", error) { failed -> unheardError(error, failed) }
        }

        /**
         * An error no Dart code took: told again to the stream that listens now (another engine's,
         * or kept for the first that will); one a Dart handler failed on is kept for the next
         * listener set, never sent again at once to the handler that failed.
         */
        private fun unheardError(error: Map<String, Any?>, failed: Boolean) {
            if (!failed) return tellError(error)
            synchronized(owners) { keepError(error) }
        }

        /** Under [owners]' lock: the most recent [MAX_PENDING_ERRORS] kept. */
        private fun keepError(error: Map<String, Any?>) {
            if (pendingErrors.size >= MAX_PENDING_ERRORS) pendingErrors.removeFirst()
            pendingErrors.addLast(error)
        }

        private const val DEFERRED = "deferred"

        /**
         * The deferred deep link handed to a Dart side that was gone (a hot restart): the SDK
         * counts it delivered once it hands it over, so it waits here for the next deep-link
         * listener, of any engine, rather than be lost for the install.
         */
        private var unheardDeferred: Map<String, Any?>? = null

        /**
         * To the deep-link stream that listens now, or kept for the first that will; one a Dart
         * handler [failed] on is kept for the next listener set, never sent again at once.
         */
        private fun keepUnheardDeferred(link: Map<String, Any?>, failed: Boolean) {
            val owner =
                synchronized(owners) {
                    (if (failed) null else owners[DEEP_LINK]?.lastOrNull()).also { if (it == null) unheardDeferred = link }
                }
            owner?.tellDeepLink(link)
        }

        private fun takeUnheardDeferred(): Map<String, Any?>? =
            synchronized(owners) { unheardDeferred.also { unheardDeferred = null } }

        /** A deep link as the Dart side's `ServiceDeepLink.fromChannel` reads it. */
        fun channelMap(link: DeepLink): Map<String, Any?> =
            hashMapOf(
                "kind" to link.kind.wire,
                "deeplinkId" to link.deeplinkId,
                "path" to link.path,
                "params" to HashMap(link.params),
                "url" to link.url,
            )

        /** An error as the Dart side's `ServiceError.fromChannel` reads it. */
        fun channelMap(error: ServiceError): Map<String, Any?> =
            hashMapOf(
                "kind" to error.kind.wire,
                "reason" to error.reason?.wire,
                "code" to error.code,
                "count" to error.count,
                "message" to error.message,
            )

        /** The plugin's version (pubspec.yaml), which the SDK reports with the install. */
        private const val VERSION = "2.10.0"

        /** Flutter's levels are 0 DEBUG to 3 ERROR, as the Dart side checked. */
        private fun logLevelOf(level: Int): LogLevel =
            when (level) {
                0 -> LogLevel.DEBUG
                2 -> LogLevel.WARN
                3 -> LogLevel.ERROR
                else -> LogLevel.INFO
            }

        private fun eventTypeOf(wire: String): EventType? = EventType.entries.firstOrNull { it.name == wire }
    }
}
