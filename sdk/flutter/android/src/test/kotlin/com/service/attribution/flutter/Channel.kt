package com.service.attribution.flutter

import android.app.Application
import android.os.Looper
import com.service.attribution.DeepLink
import com.service.attribution.InitListener
import io.flutter.embedding.engine.plugins.FlutterPlugin
import io.flutter.plugin.common.BinaryMessenger
import io.flutter.plugin.common.FlutterException
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
 * A handler that throws (the methods of [failing]) is answered as Flutter answers it: an error
 * envelope with the generic code `error`. Once the engine is gone ([engineGone]) a call is never
 * answered, as a detached engine's messenger drops it.
 */
internal class DartSide : BinaryMessenger {
    val calls = mutableListOf<MethodCall>()
    var handlerSet = true
    var errorStreamListens = true

    /** The methods whose Dart handler throws, and the calls it threw on. */
    var failing: Set<String> = emptySet()
    val failed = mutableListOf<MethodCall>()

    /** The methods answered false, whatever they carry (onError alone is, today). */
    var answeredFalse: Set<String> = emptySet()

    /** The engine went away: what is sent then reaches no Dart code and gets no answer. */
    var engineGone = false
    val lost = mutableListOf<MethodCall>()

    /** The plugin's handler of the calls from Dart, as the channel set it. */
    var handler: BinaryMessenger.BinaryMessageHandler? = null

    override fun send(channel: String, message: ByteBuffer?) = send(channel, message, null)

    override fun send(channel: String, message: ByteBuffer?, callback: BinaryMessenger.BinaryReply?) {
        assertEquals("service_attribution", channel)
        val call = StandardMethodCodec.INSTANCE.decodeMethodCall(message!!.flip())
        if (engineGone) {
            lost += call
            return
        }
        if (!handlerSet) {
            callback?.reply(null)
            return
        }
        if (call.method in failing) {
            failed += call
            callback?.reply(StandardMethodCodec.INSTANCE.encodeErrorEnvelope("error", "type 'Null' is not a subtype of type 'Map'", null).flip())
            return
        }
        calls += call
        val heard = call.method !in answeredFalse && (call.method != "onError" || errorStreamListens)
        // As the engine hands it over: ready to read from its start.
        callback?.reply(StandardMethodCodec.INSTANCE.encodeSuccessEnvelope(heard).flip())
    }

    override fun setMessageHandler(channel: String, handler: BinaryMessenger.BinaryMessageHandler?) {
        this.handler = handler
    }

    fun received(method: String): List<Map<*, *>> = calls.filter { it.method == method }.map { it.arguments as Map<*, *> }

    fun failedOn(method: String): List<Map<*, *>> = failed.filter { it.method == method }.map { it.arguments as Map<*, *> }
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

    /**
     * Calls [method] as the Dart side does, through the channel's codec and handler (which
     * answers a RuntimeException as Flutter does), and returns the answer as Dart decodes it.
     */
    fun fromDart(method: String, arguments: Map<String, Any?>? = null): Answer {
        val answer = Answer()
        val message = StandardMethodCodec.INSTANCE.encodeMethodCall(MethodCall(method, arguments?.let { HashMap(it) })).flip()
        dart.handler!!.onMessage(message) { reply ->
            if (reply == null) {
                answer.notImplemented()
                return@onMessage
            }
            try {
                answer.success(StandardMethodCodec.INSTANCE.decodeEnvelope(reply.flip()))
            } catch (error: FlutterException) {
                answer.error(error.code, error.message, error.details)
            }
        }
        assertTrue("$method answered", eventually { idle(); answer.outcome != null })
        return answer
    }

    /** The engine goes away: the plugin is told, then its messenger sends nothing more. */
    fun detach() {
        plugin.onDetachedFromEngine(binding)
        dart.engineGone = true
    }

    /**
     * The SDK hands the plugin's deep-link listener [link] (a deferred one, which the embedded
     * service cannot be made to give here): the listener's own call, the plugin's private
     * tellDeepLink, with the map channelMap makes of it.
     */
    fun sdkTellsDeepLink(link: DeepLink) {
        val tell = ServiceAttributionPlugin::class.java.getDeclaredMethod("tellDeepLink", Map::class.java)
        tell.isAccessible = true
        tell.invoke(plugin, ServiceAttributionPlugin.channelMap(link))
    }
}

/**
 * configure's InitListener, which the SDK calls on its own worker thread (off the main thread)
 * when it refuses to start: the plugin's private refusalListener.
 */
internal fun refusalListener(): InitListener {
    val field = ServiceAttributionPlugin::class.java.getDeclaredField("refusalListener")
    field.isAccessible = true
    return field.get(null) as InitListener
}

/** Runs what is due on the main looper, where the plugin answers and calls the Dart side. */
internal fun idle() = shadowOf(Looper.getMainLooper()).idle()
