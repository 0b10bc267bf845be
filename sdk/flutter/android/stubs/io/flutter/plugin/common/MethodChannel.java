package io.flutter.plugin.common;

import android.os.Looper;
import java.nio.ByteBuffer;

/**
 * Flutter's MethodChannel over the standard method codec, as the engine's does it: a call to the
 * Dart side is encoded (a value the codec cannot write throws, as in Flutter) and sent through
 * the messenger, from the main thread only (Flutter's FlutterJNI throws on any other thread);
 * calls from the Dart side are decoded from the messenger's messages and handed to the handler,
 * whose answer is encoded back (a RuntimeException it throws answered with the code "error", as
 * Flutter answers it).
 */
public class MethodChannel {
  private final BinaryMessenger messenger;
  private final String name;
  private final StandardMethodCodec codec = StandardMethodCodec.INSTANCE;

  public MethodChannel(BinaryMessenger messenger, String name) {
    this.messenger = messenger;
    this.name = name;
  }

  public void invokeMethod(String method, Object arguments) {
    invokeMethod(method, arguments, null);
  }

  public void invokeMethod(String method, Object arguments, Result callback) {
    if (Looper.myLooper() != Looper.getMainLooper()) {
      throw new RuntimeException(
          "Methods marked with @UiThread must be executed on the main thread. Current thread: "
              + Thread.currentThread().getName());
    }
    messenger.send(
        name,
        codec.encodeMethodCall(new MethodCall(method, arguments)),
        callback == null
            ? null
            : reply -> {
              if (reply == null) {
                callback.notImplemented();
                return;
              }
              try {
                callback.success(codec.decodeEnvelope(reply));
              } catch (FlutterException error) {
                callback.error(error.code, error.getMessage(), error.details);
              }
            });
  }

  public void setMethodCallHandler(MethodCallHandler handler) {
    messenger.setMessageHandler(
        name,
        handler == null
            ? null
            : (message, reply) -> {
              MethodCall call = codec.decodeMethodCall(message);
              try {
                handler.onMethodCall(
                    call,
                    new Result() {
                      @Override
                      public void success(Object result) {
                        reply.reply(codec.encodeSuccessEnvelope(result));
                      }

                      @Override
                      public void error(String errorCode, String errorMessage, Object errorDetails) {
                        reply.reply(codec.encodeErrorEnvelope(errorCode, errorMessage, errorDetails));
                      }

                      @Override
                      public void notImplemented() {
                        reply.reply(null);
                      }
                    });
              } catch (RuntimeException error) {
                // As Flutter's: a handler that throws answers with the generic code "error".
                reply.reply(codec.encodeErrorEnvelope("error", error.getMessage(), null));
              }
            });
  }

  public interface MethodCallHandler {
    void onMethodCall(MethodCall call, Result result);
  }

  public interface Result {
    void success(Object result);

    void error(String errorCode, String errorMessage, Object errorDetails);

    void notImplemented();
  }
}
