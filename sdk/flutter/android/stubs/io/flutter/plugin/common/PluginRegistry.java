package io.flutter.plugin.common;

import android.content.Intent;

/** The one listener the plugin uses; Flutter's declares more. */
public interface PluginRegistry {
  interface NewIntentListener {
    boolean onNewIntent(Intent intent);
  }
}
