package com.service.attribution.flutter

import io.flutter.plugin.common.BinaryMessenger
import io.flutter.plugin.common.MethodCall
import io.flutter.plugin.common.MethodChannel
import io.flutter.plugin.common.StandardMethodCodec
import org.junit.Assert.assertEquals
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

/** The Dart side of the channel: every call the plugin sends it, decoded by the standard codec. */
internal class DartSide : BinaryMessenger {
    val calls = mutableListOf<MethodCall>()

    override fun send(channel: String, message: ByteBuffer?) = send(channel, message, null)

    override fun send(channel: String, message: ByteBuffer?, callback: BinaryMessenger.BinaryReply?) {
        assertEquals("service_attribution", channel)
        calls += StandardMethodCodec.INSTANCE.decodeMethodCall(message!!.flip())
        callback?.reply(StandardMethodCodec.INSTANCE.encodeSuccessEnvelope(null))
    }

    override fun setMessageHandler(channel: String, handler: BinaryMessenger.BinaryMessageHandler?) {}

    fun received(method: String): List<Map<*, *>> = calls.filter { it.method == method }.map { it.arguments as Map<*, *> }
}
