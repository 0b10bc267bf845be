package io.flutter.plugin.common;

/** Flutter's FlutterException: an error envelope decoded from the Dart side's answer. */
public class FlutterException extends RuntimeException {
  public final String code;
  public final Object details;

  FlutterException(String code, String message, Object details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
