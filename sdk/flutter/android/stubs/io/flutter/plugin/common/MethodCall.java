package io.flutter.plugin.common;

import java.util.Map;

/**
 * Flutter's MethodCall, as the channel hands it to a plugin: the method's name and its
 * arguments as StandardMethodCodec decoded them (a Map for the Dart side's map literal).
 * argument() reads them as Flutter's own does, so the plugin's tests run with a real call.
 */
public final class MethodCall {
  public final String method;
  public final Object arguments;

  public MethodCall(String method, Object arguments) {
    if (method == null) throw new IllegalArgumentException("Parameter method must not be null.");
    this.method = method;
    this.arguments = arguments;
  }

  @SuppressWarnings("unchecked")
  public <T> T arguments() {
    return (T) arguments;
  }

  @SuppressWarnings("unchecked")
  public <T> T argument(String key) {
    if (arguments == null) return null;
    if (arguments instanceof Map) return (T) ((Map<?, ?>) arguments).get(key);
    // Flutter also reads a JSONObject here (JSONMethodCodec); this channel uses the standard codec.
    throw new ClassCastException();
  }

  public boolean hasArgument(String key) {
    if (arguments == null) return false;
    if (arguments instanceof Map) return ((Map<?, ?>) arguments).containsKey(key);
    throw new ClassCastException();
  }
}
