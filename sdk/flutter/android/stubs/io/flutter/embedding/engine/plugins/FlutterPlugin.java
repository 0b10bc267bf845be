package io.flutter.embedding.engine.plugins;

import android.content.Context;
import io.flutter.plugin.common.BinaryMessenger;

public interface FlutterPlugin {
  void onAttachedToEngine(FlutterPluginBinding binding);

  void onDetachedFromEngine(FlutterPluginBinding binding);

  class FlutterPluginBinding {
    private final Context applicationContext;
    private final BinaryMessenger binaryMessenger;

    /**
     * For the plugin's JVM tests only: Flutter's own constructor also takes the engine, its
     * texture and platform view registries, assets and engine group, none of which the plugin
     * uses. The plugin never makes a binding; the engine does.
     */
    public FlutterPluginBinding(Context applicationContext, BinaryMessenger binaryMessenger) {
      this.applicationContext = applicationContext;
      this.binaryMessenger = binaryMessenger;
    }

    public Context getApplicationContext() {
      return applicationContext;
    }

    public BinaryMessenger getBinaryMessenger() {
      return binaryMessenger;
    }
  }
}
