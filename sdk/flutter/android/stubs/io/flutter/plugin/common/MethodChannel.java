package io.flutter.plugin.common;

public class MethodChannel {
  public MethodChannel(BinaryMessenger messenger, String name) {}

  public void setMethodCallHandler(MethodCallHandler handler) {}

  public interface MethodCallHandler {
    void onMethodCall(MethodCall call, Result result);
  }

  public interface Result {
    void success(Object result);

    void error(String errorCode, String errorMessage, Object errorDetails);

    void notImplemented();
  }
}
