package io.flutter.plugin.common;

public interface BinaryMessenger {}
