package io.flutter.embedding.engine.plugins.activity;

import android.app.Activity;
import io.flutter.plugin.common.PluginRegistry;

/** The members the plugin uses; Flutter's has more (results, permissions, lifecycle). */
public interface ActivityPluginBinding {
  Activity getActivity();

  void addOnNewIntentListener(PluginRegistry.NewIntentListener listener);

  void removeOnNewIntentListener(PluginRegistry.NewIntentListener listener);
}
