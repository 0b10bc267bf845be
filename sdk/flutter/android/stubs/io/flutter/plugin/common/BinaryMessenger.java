package io.flutter.plugin.common;

import java.nio.ByteBuffer;

/**
 * Flutter's BinaryMessenger: how a channel reaches the Dart side (the engine's DartMessenger in
 * an app; the JVM tests' own messenger, which decodes what it is sent, here).
 */
public interface BinaryMessenger {
  void send(String channel, ByteBuffer message);

  void send(String channel, ByteBuffer message, BinaryReply callback);

  void setMessageHandler(String channel, BinaryMessageHandler handler);

  interface BinaryReply {
    void reply(ByteBuffer reply);
  }

  interface BinaryMessageHandler {
    void onMessage(ByteBuffer message, BinaryReply reply);
  }
}
