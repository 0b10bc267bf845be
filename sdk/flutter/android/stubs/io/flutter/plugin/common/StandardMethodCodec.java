package io.flutter.plugin.common;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flutter's StandardMethodCodec: a method call is its name then its arguments, and an answer an
 * envelope (0 and the result, or 1 and the error's code, message and details), each value in the
 * standard message codec.
 */
public final class StandardMethodCodec {
  public static final StandardMethodCodec INSTANCE = new StandardMethodCodec(StandardMessageCodec.INSTANCE);
  private final StandardMessageCodec messageCodec;

  public StandardMethodCodec(StandardMessageCodec messageCodec) {
    this.messageCodec = messageCodec;
  }

  public ByteBuffer encodeMethodCall(MethodCall methodCall) {
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    messageCodec.writeValue(stream, methodCall.method);
    messageCodec.writeValue(stream, methodCall.arguments);
    return direct(stream);
  }

  public MethodCall decodeMethodCall(ByteBuffer methodCall) {
    methodCall.order(ByteOrder.nativeOrder());
    Object method = messageCodec.readValue(methodCall);
    Object arguments = messageCodec.readValue(methodCall);
    if (method instanceof String && !methodCall.hasRemaining()) {
      return new MethodCall((String) method, arguments);
    }
    throw new IllegalArgumentException("Method call corrupted");
  }

  public ByteBuffer encodeSuccessEnvelope(Object result) {
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    stream.write(0);
    messageCodec.writeValue(stream, result);
    return direct(stream);
  }

  public ByteBuffer encodeErrorEnvelope(String errorCode, String errorMessage, Object errorDetails) {
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    stream.write(1);
    messageCodec.writeValue(stream, errorCode);
    messageCodec.writeValue(stream, errorMessage);
    messageCodec.writeValue(stream, errorDetails);
    return direct(stream);
  }

  public Object decodeEnvelope(ByteBuffer envelope) {
    envelope.order(ByteOrder.nativeOrder());
    byte flag = envelope.get();
    if (flag == 0) {
      Object result = messageCodec.readValue(envelope);
      if (!envelope.hasRemaining()) return result;
    } else if (flag == 1) {
      Object code = messageCodec.readValue(envelope);
      Object message = messageCodec.readValue(envelope);
      Object details = messageCodec.readValue(envelope);
      if (code instanceof String && (message == null || message instanceof String) && !envelope.hasRemaining()) {
        throw new FlutterException((String) code, (String) message, details);
      }
    }
    throw new IllegalArgumentException("Envelope corrupted");
  }

  private static ByteBuffer direct(ByteArrayOutputStream stream) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(stream.size());
    buffer.put(stream.toByteArray());
    return buffer;
  }
}
