package io.flutter.embedding.engine.plugins;

import android.content.Context;
import io.flutter.plugin.common.BinaryMessenger;

public interface FlutterPlugin {
  void onAttachedToEngine(FlutterPluginBinding binding);

  void onDetachedFromEngine(FlutterPluginBinding binding);

  final class FlutterPluginBinding {
    public Context getApplicationContext() {
      throw new UnsupportedOperationException("compile-only declaration");
    }

    public BinaryMessenger getBinaryMessenger() {
      throw new UnsupportedOperationException("compile-only declaration");
    }
  }
}
