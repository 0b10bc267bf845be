package com.service.attribution.flutter

import android.app.Application
import android.os.Looper
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.BinaryMessenger
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
import io.flutter.plugin.common.StandardMethodCodec
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import java.nio.ByteBuffer

/** One answer of the channel, as the engine would get it. */
internal class Answer : MethodChannel.Result {
    var outcome: String? = null
    var value: Any? = null

    override fun success(result: Any?) {
        outcome = "success"
        value = result
    }

    override fun error(errorCode: String, errorMessage: String?, errorDetails: Any?) {
        outcome = "error $errorCode: $errorMessage"
    }

    override fun notImplemented() {
        outcome = "notImplemented"
    }
}

/**
 * The Dart side of the channel: every call the plugin sends it, decoded by the standard codec,
 * and answered as ServicePlugin's handler answers (true, or false for an error while its error
 * stream has no listener). After a hot restart and until the new isolate sets its handler
 * ([handlerSet] false) the engine answers every call with nothing, and no Dart code sees it.
 */
internal class DartSide : BinaryMessenger {
    val calls = mutableListOf<MethodCall>()
    var handlerSet = true
    var errorStreamListens = true

    override fun send(channel: String, message: ByteBuffer?) = send(channel, message, null)

    override fun send(channel: String, message: ByteBuffer?, callback: BinaryMessenger.BinaryReply?) {
        assertEquals("service_attribution", channel)
        val call = StandardMethodCodec.INSTANCE.decodeMethodCall(message!!.flip())
        if (!handlerSet) {
            callback?.reply(null)
            return
        }
        calls += call
        // As the engine hands it over: ready to read from its start.
        callback?.reply(StandardMethodCodec.INSTANCE.encodeSuccessEnvelope(call.method != "onError" || errorStreamListens).flip())
    }

    override fun setMessageHandler(channel: String, handler: BinaryMessenger.BinaryMessageHandler?) {}

    fun received(method: String): List<Map<*, *>> = calls.filter { it.method == method }.map { it.arguments as Map<*, *> }
}

/**
 * One Flutter engine with the plugin attached, as the engine attaches it: [dart] is its Dart
 * side, and [call] and [success] make method calls as the engine would. An app may run several
 * engines, each with a plugin of its own over the one SDK.
 */
internal class Engine {
    val app: Application = RuntimeEnvironment.getApplication()
    val dart = DartSide()
    val binding = FlutterPlugin.FlutterPluginBinding(app, dart)
    val plugin = ServiceAttributionPlugin().also { it.onAttachedToEngine(binding) }

    /** Calls [method] and returns the answer, running the main looper until there is one. */
    fun call(method: String, arguments: Map<String, Any?>? = null): Answer {
        val answer = Answer()
        plugin.onMethodCall(MethodCall(method, arguments?.let { HashMap(it) }), answer)
        assertTrue("$method answered", eventually { idle(); answer.outcome != null })
        return answer
    }

    /** Calls [method], which must succeed, and returns its value. */
    fun success(method: String, arguments: Map<String, Any?>? = null): Any? {
        val answer = call(method, arguments)
        assertEquals(method, "success", answer.outcome)
        return answer.value
    }
}

/** Runs what is due on the main looper, where the plugin answers and calls the Dart side. */
internal fun idle() = shadowOf(Looper.getMainLooper()).idle()
