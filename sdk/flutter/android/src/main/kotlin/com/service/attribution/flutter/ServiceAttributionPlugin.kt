package com.service.attribution.flutter

import android.content.Context
import android.os.Handler
import android.os.Looper
import com.service.attribution.EventType
import com.service.attribution.LogLevel
import com.service.attribution.SdkWrapper
import com.service.attribution.ServiceAttributionSdk
import com.service.attribution.WrapperPlatform
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch

/**
 * The Android side of the Flutter plugin: each method of the channel `service_attribution`
 * calls the Kotlin SDK. The Dart side has already checked the arguments; what waits (the
 * attribution match, a deletion) runs off the platform thread and answers on it.
 */
class ServiceAttributionPlugin : FlutterPlugin, MethodChannel.MethodCallHandler {
    private lateinit var channel: MethodChannel
    private lateinit var context: Context
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.IO)
    private val main = Handler(Looper.getMainLooper())

    override fun onAttachedToEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        context = binding.applicationContext
        channel = MethodChannel(binding.binaryMessenger, CHANNEL)
        channel.setMethodCallHandler(this)
    }

    override fun onDetachedFromEngine(binding: FlutterPlugin.FlutterPluginBinding) {
        channel.setMethodCallHandler(null)
        scope.cancel()
    }

    override fun onMethodCall(call: MethodCall, result: MethodChannel.Result) {
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
                ServiceAttributionSdk.configure(
                    context,
                    apiKey,
                    logLevelOf(call.argument<Int>("logLevel") ?: 1),
                    null,
                    call.argument<String>("customerUserId"),
                )
                result.success(null)
            }
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
                // Not configured, or switched off: the SDK would send nothing.
                if (ServiceAttributionSdk.isSdkDisabled()) {
                    result.success(false)
                    return
                }
                try {
                    // The parameters as the channel decoded them (nested maps and lists
                    // included): the SDK cleans them and seals what remote configuration asks.
                    ServiceAttributionSdk.sendEvent(
                        type,
                        call.argument<String>("eventName"),
                        call.argument<Map<String, Any>>("parameters"),
                    )
                    // Taken: sent now or kept on the device until it can be. A manual install
                    // is dropped by the SDK, which tracks the install itself.
                    result.success(type != EventType.INSTALL)
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
            else -> result.notImplemented()
        }
    }

    /** Runs [work] off the platform thread; answers on it, as a channel result must be. */
    private fun answerLater(result: MethodChannel.Result, work: suspend () -> Any?) {
        scope.launch {
            val outcome = runCatching { work() }
            main.post {
                outcome.fold(
                    onSuccess = { result.success(it) },
                    onFailure = { result.error("native", it.message, null) },
                )
            }
        }
    }

    private companion object {
        const val CHANNEL = "service_attribution"

        /** The plugin's version (pubspec.yaml), which the SDK reports with the install. */
        const val VERSION = "2.10.0"

        /** Flutter's levels are 0 DEBUG to 3 ERROR, as the Dart side checked. */
        fun logLevelOf(level: Int): LogLevel =
            when (level) {
                0 -> LogLevel.DEBUG
                2 -> LogLevel.WARN
                3 -> LogLevel.ERROR
                else -> LogLevel.INFO
            }

        fun eventTypeOf(wire: String): EventType? = EventType.entries.firstOrNull { it.name == wire }
    }
}
