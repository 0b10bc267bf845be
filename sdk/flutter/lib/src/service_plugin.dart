import 'dart:async';
import 'dart:developer' as developer;

import 'package:flutter/services.dart';

import 'event_type.dart';
import 'link_result.dart';
import 'parameters.dart';

/// The attribution service's SDK for Flutter. Every member is static and calls the platform's
/// native SDK over a method channel; the rules that need no device (arguments, parameters,
/// links) are checked here first, so a mistake fails the same way on every platform.
final class ServicePlugin {
  ServicePlugin._();

  static const MethodChannel _channel = MethodChannel('service_attribution');

  /// Log levels: 0 DEBUG, 1 INFO, 2 WARN, 3 ERROR.
  static const int _minLogLevel = 0;
  static const int _maxLogLevel = 3;

  /// Starts the SDK with the app's SDK key. Call it once, early in startup; a repeat call is
  /// a no-op, its [customerUserId] included.
  ///
  /// Throws an [ArgumentError] when [apiKey] is empty or [logLevel] is outside 0 to 3.
  /// [isDebug] and [endpointBaseUrl] are accepted with no effect and a warning in the log.
  static Future<void> configure({
    required String apiKey,
    int logLevel = 1,
    String? customerUserId,
    @Deprecated('Use logLevel: 0 instead. To be removed in a later release.') bool? isDebug,
    @Deprecated('Has no effect. To be removed in a later release.') String? endpointBaseUrl,
  }) async {
    if (apiKey.isEmpty) throw ArgumentError.value(apiKey, 'apiKey', 'must not be empty');
    if (logLevel < _minLogLevel || logLevel > _maxLogLevel) {
      throw ArgumentError.value(logLevel, 'logLevel', 'must be 0 (DEBUG) to 3 (ERROR)');
    }
    if (isDebug != null) {
      _warn('configure: isDebug is deprecated and has no effect; use logLevel: 0 instead');
    }
    if (endpointBaseUrl != null) {
      _warn('configure: endpointBaseUrl is deprecated and has no effect');
    }
    await _channel.invokeMethod<void>('configure', <String, Object?>{
      'apiKey': apiKey,
      'logLevel': logLevel,
      'customerUserId': customerUserId,
    });
  }

  /// Sets the app's own identifier of the user, or clears it with null; the last write wins.
  /// It applies from the next event sent on.
  static Future<void> setCustomerUserId(String? customerUserId) =>
      _channel.invokeMethod<void>('setCustomerUserId', <String, Object?>{
        'customerUserId': customerUserId,
      });

  /// Sends an event; true when the native SDK took it to send. [eventName] names an
  /// [EventType.custom] event and is required for it.
  ///
  /// Throws an [ArgumentError], with nothing sent, when [eventType] is [EventType.custom] and
  /// [eventName] is null or blank, or when a parameter value is of a type the service cannot
  /// take (see the package README). False, with nothing sent, while the SDK is disabled or not
  /// configured, and for [EventType.install], which the SDK tracks itself.
  static Future<bool> sendEvent({
    required EventType eventType,
    String? eventName,
    Map<String, dynamic>? parameters,
  }) async {
    if (eventType == EventType.custom && (eventName == null || eventName.trim().isEmpty)) {
      throw ArgumentError.value(eventName, 'eventName', 'is required for EventType.custom');
    }
    final checked = checkedParameters(parameters);
    if (eventType == EventType.install) return false;
    // Asked here, not left to each native side, so that every platform answers alike; the
    // Android side checks again, for the moment between the two calls.
    if (await isSdkDisabled()) return false;
    final sent = await _channel.invokeMethod<bool>('sendEvent', <String, Object?>{
      'eventType': eventType.name,
      'eventName': eventName,
      'parameters': checked,
    });
    return sent ?? false;
  }

  /// The install's stable local identity, or null when there is none yet.
  static Future<String?> getServiceId() => _channel.invokeMethod<String>('getServiceId');

  /// True when the SDK is off: not configured yet, a rejected key, or the app switched off
  /// remotely.
  static Future<bool> isSdkDisabled() async =>
      await _channel.invokeMethod<bool>('isSdkDisabled') ?? true;

  /// The attribution parameters known now, without waiting; null when none are.
  static Future<Map<String, dynamic>?> getAttributionParams() async =>
      _stringKeyed(await _channel.invokeMethod<Map<Object?, Object?>>('getAttributionParams'));

  /// The attribution parameters once the install's match is resolved: one value, then the
  /// stream closes. The native side waits on a background thread.
  static Stream<Map<String, dynamic>?> getAttributionParamsWithCallback() => Stream.fromFuture(
        _channel
            .invokeMethod<Map<Object?, Object?>>('awaitAttributionParams')
            .then(_stringKeyed),
      );

  /// Parses a Universal Link or App Link of the service from its URL alone, before or after
  /// [configure]. Null for a link that is none of the service's, or whose host is not one of
  /// [allowedHosts] (null accepts every host). Throws an [ArgumentError] when [allowedHosts]
  /// names a blank host.
  static Future<ServiceLinkResult?> handleUniversalLink(
    Uri url, {
    Set<String>? allowedHosts,
  }) async =>
      parseServiceLink(url, allowedHosts);

  /// Starts Apple Ads attribution (iOS 14.3 and later); a no-op on Android. True when on.
  static Future<bool> enablePlatformAdsAttribution() async =>
      await _channel.invokeMethod<bool>('enablePlatformAdsAttribution') ?? false;

  /// Deletes the install's data at the service, for a user's privacy request.
  static Future<void> deleteUserData() => _channel.invokeMethod<void>('deleteUserData');

  static Map<String, dynamic>? _stringKeyed(Map<Object?, Object?>? map) =>
      map?.map((key, value) => MapEntry(key.toString(), value));

  static void _warn(String message) => developer.log(message, name: 'ServiceSdk', level: 900);
}
