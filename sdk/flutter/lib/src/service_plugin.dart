import 'dart:async';

import 'package:flutter/foundation.dart';
import 'package:flutter/services.dart';

import 'event_type.dart';
import 'link_result.dart';
import 'listeners.dart';
import 'parameters.dart';

/// The attribution service's SDK for Flutter. Every member is static and calls the platform's
/// native SDK over a method channel; the rules that need no device (arguments, parameters,
/// links) are checked here first, so a mistake fails the same way on every platform.
///
/// Where no native side answers (web, desktop: the plugin has Android and iOS sides only), a
/// call does not throw: it says so once per method in the log and answers as an SDK that is
/// off would (nothing sent, `false`, `null`, `true` for [isSdkDisabled]); [deleteUserData]
/// alone throws, a [PlatformException] with the code `unsupported`, as a deletion that was not
/// made must not pass for one. So an app built for those platforms too still starts, with
/// [configure] awaited in `main`.
final class ServicePlugin {
  ServicePlugin._();

  static const MethodChannel _channel = MethodChannel('service_attribution');

  /// Log levels: 0 DEBUG, 1 INFO, 2 WARN, 3 ERROR.
  static const int _minLogLevel = 0;
  static const int _maxLogLevel = 3;

  /// Starts the SDK with the app's SDK key. Call it once, early in startup; a repeat call is
  /// a no-op, its [customerUserId] included.
  ///
  /// Completes once the native SDK has the call, without waiting for the service. A native SDK
  /// that refuses to start (no service address in the app's AndroidManifest.xml or Info.plist,
  /// the key rejected on the remote configuration, no INTERNET permission, an Android process
  /// other than the app's main one, an iOS app extension) switches itself off and says so on
  /// [onError], as a [ServiceErrorKind.configuration] error (with [ServiceError.code] 401 for
  /// the rejected key, null for the others); told before [onError] has a listener, it is
  /// delivered to the first one, once.
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
    await _native(
      'configure',
      _channel.invokeMethod<void>('configure', <String, Object?>{
        'apiKey': apiKey,
        'logLevel': logLevel,
        'customerUserId': customerUserId,
      }),
    );
  }

  /// The bounds of [waitForTrackingAuthorization]'s timeout: the iOS SDK's.
  static const Duration _minTrackingWait = Duration(seconds: 1);
  static const Duration _maxTrackingWait = Duration(seconds: 360);

  /// iOS: holds the install's report until the user answers the app's App Tracking
  /// Transparency prompt, for [timeout] at most, so that an install the user lets the app track
  /// carries the IDFA. Call it before [configure], at every launch, and show the prompt as the
  /// app sees fit; the native SDK never shows it, and reads the answer itself.
  ///
  /// While the install is not recorded by the service, ATT's status is not determined and less
  /// than [timeout] has passed since [configure], the install is not sent, nor the sessions,
  /// events (kept on the device) and consent updates that go after it, and the attribution
  /// waits with it; remote configuration is read as usual. The status is read again every
  /// second and each time the app becomes active (the prompt closing makes it active): once it
  /// is anything else, or [timeout] has passed, the install goes with the tracking as it is
  /// then (the IDFA only when the user authorized tracking). An install recorded at an earlier
  /// launch never waits. Called after [configure] it changes nothing, with a warning in the
  /// native log: the install may be on its way. On Android, which has no ATT, it does nothing.
  ///
  /// Throws an [ArgumentError], before anything reaches the native SDK, when [timeout] is
  /// outside 1 to 360 seconds.
  static Future<void> waitForTrackingAuthorization(Duration timeout) async {
    if (timeout < _minTrackingWait || timeout > _maxTrackingWait) {
      throw ArgumentError.value(timeout, 'timeout', 'must be 1 to 360 seconds');
    }
    await _native(
      'waitForTrackingAuthorization',
      _channel.invokeMethod<void>('waitForTrackingAuthorization', <String, Object?>{
        'timeoutSeconds': timeout.inMicroseconds / Duration.microsecondsPerSecond,
      }),
    );
  }

  /// Sets the app's own identifier of the user, or clears it with null; the last write wins.
  /// It applies from the next event sent on.
  static Future<void> setCustomerUserId(String? customerUserId) => _native(
        'setCustomerUserId',
        _channel.invokeMethod<void>('setCustomerUserId', <String, Object?>{
          'customerUserId': customerUserId,
        }),
      );

  /// Sends an event; true when the native SDK took it to send. [eventName] names an
  /// [EventType.custom] event, which is not sent without one.
  ///
  /// Before [configure] the native SDK keeps the event in memory (up to 1000 events, the oldest
  /// dropped beyond) and sends it once [configure] has run, in order with the later ones: the
  /// answer is then true.
  ///
  /// Throws an [ArgumentError], with nothing sent, when a parameter value is of a type the
  /// service cannot take (see the package README), whatever the event. A value JSON cannot hold
  /// (NaN, a typed-data list) or nested past five levels loses its key, with a warning in the
  /// log. False, with nothing sent, for an [EventType.custom] event whose [eventName] is null or
  /// blank (with a warning in the log), while the SDK is disabled or stopped ([stop]), once the
  /// install's data was deleted ([deleteUserData]), and for [EventType.install], which the SDK
  /// tracks itself. False too when the native side fails to
  /// take the event (a [PlatformException]), with a warning in the log naming it, and where
  /// there is no native side (web, desktop), with a warning at the first call that nothing is
  /// sent there: an event handed over is never lost without a word, and a call left unawaited
  /// (a button's handler) never ends in an uncaught error.
  static Future<bool> sendEvent({
    required EventType eventType,
    String? eventName,
    Map<String, dynamic>? parameters,
  }) async {
    // First: a value of a type the service cannot take is the caller's mistake whatever the
    // event, and throws before anything else is decided.
    final leftOut = <String>[];
    final checked = checkedParameters(parameters, leftOut: leftOut.add);
    if (eventType == EventType.custom && (eventName == null || _isBlank(eventName))) {
      _warn('sendEvent: an EventType.custom event needs an eventName; nothing was sent');
      return false;
    }
    if (eventType == EventType.install) return false;
    if (leftOut.isNotEmpty) {
      _warn('sendEvent: ${eventType.name}: values JSON cannot hold, or nested past five levels, '
          'were left out: ${leftOut.join(', ')}');
    }
    // The native side answers: it alone knows whether it is configured, disabled or stopped
    // at the moment it takes the event.
    try {
      final sent = await _native(
        'sendEvent',
        _channel.invokeMethod<bool>('sendEvent', <String, Object?>{
          'eventType': eventType.name,
          'eventName': eventName,
          'parameters': checked,
        }),
      );
      return sent ?? false;
    } on PlatformException catch (error) {
      _warn('sendEvent: ${eventType.name} was not sent: the native SDK failed '
          '(${error.code}): ${error.message}');
      return false;
    }
  }

  /// Blank as both platforms' SDKs read a name: Dart's whitespace, and the four separator
  /// controls U+001C to U+001F, which Android's counts as whitespace (and would refuse there).
  static bool _isBlank(String name) =>
      name.replaceAll(RegExp('[\u001C-\u001F]'), '').trim().isEmpty;

  /// The install's stable local identity, or null when there is none yet.
  static Future<String?> getServiceId() =>
      _native('getServiceId', _channel.invokeMethod<String>('getServiceId'));

  /// True when the SDK is off: not configured yet, a rejected key, or the app switched off
  /// remotely.
  static Future<bool> isSdkDisabled() async =>
      await _native('isSdkDisabled', _channel.invokeMethod<bool>('isSdkDisabled')) ?? true;

  /// The attribution parameters known now, without waiting; null when none are.
  ///
  /// On iOS the map always holds `service_match_status`: `matched`, `matched_no_params`,
  /// `organic`, `skipped` (no match attempted, for good), `failed` (attempted, not resolved:
  /// read again later, it is not organic) or `not_configured`. Android leaves the key out:
  /// null there means nothing is known yet. The map is the one kept on the device, the same at
  /// every launch; the deferred deep link comes once per install on [onDeepLink].
  static Future<Map<String, dynamic>?> getAttributionParams() async => _stringKeyed(
        await _native(
          'getAttributionParams',
          _channel.invokeMethod<Map<Object?, Object?>>('getAttributionParams'),
        ),
      );

  /// The attribution parameters once the install's match is resolved: one value, then the
  /// stream closes. The native side waits on a background thread. The value is read as
  /// [getAttributionParams]'s is: a `failed` status is worth reading again later.
  ///
  /// Exactly one value whatever happens: a native side that fails (a [PlatformException]) or
  /// is missing (web, desktop) gives null, with a warning in the log, never an error event,
  /// which a `listen` without `onError` would raise as an uncaught error.
  static Stream<Map<String, dynamic>?> getAttributionParamsWithCallback() =>
      Stream.fromFuture(_awaitAttributionParams());

  static Future<Map<String, dynamic>?> _awaitAttributionParams() async {
    try {
      return _stringKeyed(
        await _native(
          'awaitAttributionParams',
          _channel.invokeMethod<Map<Object?, Object?>>('awaitAttributionParams'),
        ),
      );
    } on PlatformException catch (error) {
      _warn('getAttributionParamsWithCallback: the native SDK failed (${error.code}): '
          '${error.message}; null is given');
      return null;
    }
  }

  /// Parses a Universal Link or App Link of the service from its URL alone, before or after
  /// [configure], with no network call. Null for a link that is none of the service's, or whose
  /// host is not one of [allowedHosts] (null accepts every host). Throws an [ArgumentError] when
  /// [allowedHosts] names a blank host.
  ///
  /// A link it gives is also delivered on [onDeepLink] as a [ServiceDeepLinkKind.direct] deep
  /// link (held until [onDeepLink] has a listener), and the native SDK is told of it, as
  /// [handleDeepLink] tells it: the link that opened a new install goes with the install's
  /// report (its `open_url`, whose click attributes the install).
  static Future<ServiceLinkResult?> handleUniversalLink(
    Uri url, {
    Set<String>? allowedHosts,
  }) async {
    final link = parseServiceLink(url, allowedHosts);
    if (link == null) return null;
    _deliverLink(directDeepLinkOf(link));
    await _noteOpeningLink(url, 'handleUniversalLink');
    return link;
  }

  /// Hands a link that opened the app, of any scheme (an App Link, a Universal Link, the app's
  /// own `myapp://…` or `myapp:…`), to [onDeepLink] as a [ServiceDeepLinkKind.direct] deep
  /// link, and gives it; null, with nothing delivered, for a URL with no scheme. A link handed
  /// over before [onDeepLink] has a listener is delivered when it gets one. The native SDK is
  /// told of the link too (the link that opened a new install goes with the install's report);
  /// nothing is sent for it on its own. Works before [configure].
  static Future<ServiceDeepLink?> handleDeepLink(Uri url) async {
    final link = directDeepLink(url);
    if (link == null) return null;
    _deliverLink(link);
    await _noteOpeningLink(url, 'handleDeepLink');
    return link;
  }

  /// Tells the native SDK of a link that opened the app, which [caller] has delivered on
  /// [onDeepLink] already: the native SDK keeps it for a new install's report (the native
  /// plugins also hand it over themselves: the launching intent and each new one on Android, the
  /// application and scene delegates on iOS). The direct deep link the native SDK makes of it is
  /// not delivered again ([_onNativeCall]).
  static Future<void> _noteOpeningLink(Uri url, String caller) async {
    try {
      await _channel.invokeMethod<void>('handleDeepLink', <String, Object?>{
        'url': url.toString(),
      });
    } on PlatformException catch (error) {
      _warn('$caller: the native SDK did not take the link: ${error.message}');
    } on MissingPluginException {
      _warn('$caller: no native side to tell of the link');
    }
  }

  /// Starts Apple Ads attribution (iOS 14.3 and later); a no-op on Android. True when on.
  static Future<bool> enablePlatformAdsAttribution() async =>
      await _native(
        'enablePlatformAdsAttribution',
        _channel.invokeMethod<bool>('enablePlatformAdsAttribution'),
      ) ??
      false;

  /// Deletes the install's data at the service, for a user's privacy request.
  ///
  /// Throws a [PlatformException] when it could not be done, its `code` the same on both
  /// platforms: `not_configured` (before [configure]), `authentication` (the key was refused)
  /// or `http` (the service refused the request), both with the HTTP status in
  /// `details['httpCode']`, `network` (no answer: offline, a timeout), or `native` (anything
  /// else; the `message` says what); and where no native side answers (web, desktop),
  /// `unsupported`: nothing was deleted, which must not pass for a deletion made.
  static Future<void> deleteUserData() async {
    try {
      await _channel.invokeMethod<void>('deleteUserData');
    } on MissingPluginException catch (error) {
      throw PlatformException(
        code: 'unsupported',
        message: 'deleteUserData: no native side on this platform; nothing was deleted',
        details: error.message,
      );
    }
  }

  /// Stops the SDK, for a user who opted out: nothing is sent from now on, not even the
  /// install, and nothing is queued; the events queued so far are dropped (reported on
  /// [onError] with [ServiceDropReason.stopped]). Kept across launches until [start].
  static Future<void> stop() => _native('stop', _channel.invokeMethod<void>('stop'));

  /// Starts the SDK again after [stop]: the install goes out if it never did, then the events
  /// sent from now on.
  static Future<void> start() => _native('start', _channel.invokeMethod<void>('start'));

  /// True while the SDK is stopped ([stop]), in this launch or an earlier one. A stop of an
  /// earlier launch is read by [configure]: before it, only a stop of this launch counts.
  static Future<bool> isStopped() async =>
      await _native('isStopped', _channel.invokeMethod<bool>('isStopped')) ?? false;

  /// Turns anonymous mode on or off, kept across launches: while on, no advertising id, IDFV
  /// or customer user id leaves the device (on the install and on events).
  static Future<void> setAnonymous(bool anonymous) => _native(
        'setAnonymous',
        _channel.invokeMethod<void>('setAnonymous', <String, Object?>{'anonymous': anonymous}),
      );

  /// True while anonymous mode is on.
  static Future<bool> isAnonymous() async =>
      await _native('isAnonymous', _channel.invokeMethod<bool>('isAnonymous')) ?? false;

  /// The user's consent, kept across launches: sent with the install, and sent again to the
  /// service whenever it changes after the install is recorded. Null leaves a value unknown.
  /// The IAB TCF string and `gdprApplies` that the app's consent platform stored on the
  /// device are read by the native SDK; [gdprApplies] given here wins over the stored one.
  static Future<void> setConsent({
    bool? gdprApplies,
    bool? adUserData,
    bool? adPersonalization,
  }) =>
      _native(
        'setConsent',
        _channel.invokeMethod<void>('setConsent', <String, Object?>{
          'gdprApplies': gdprApplies,
          'adUserData': adUserData,
          'adPersonalization': adPersonalization,
        }),
      );

  /// How many events the SDK has dropped on this device, over every launch (each drop is also
  /// reported on [onError]).
  static Future<int> getDroppedEventCount() async =>
      await _native('getDroppedEventCount', _channel.invokeMethod<int>('getDroppedEventCount')) ??
      0;

  /// The install's attribution, once resolved (`service_match_status` `matched`,
  /// `matched_no_params`, `organic` or `skipped`): the map the service answered,
  /// `service_match_status` included. At every later start it comes
  /// again with the map stored on the device, and a first listener gets the stored map at
  /// once. Nothing comes while the SDK is stopped or disabled, or after [deleteUserData].
  ///
  /// A broadcast stream: the native SDK's listener is set while it has a listener. Listen
  /// once, early (in `main`): a second listener added later does not get the stored map.
  static Stream<Map<String, dynamic>> get onAttribution => _attribution.stream;

  /// Deep links: [ServiceDeepLinkKind.direct] ones handed to [handleDeepLink] or
  /// [handleUniversalLink], and the [ServiceDeepLinkKind.deferred] one that brought the
  /// install, once per install (on the launch whose attribution first carries its path).
  static Stream<ServiceDeepLink> get onDeepLink => _deepLinks.stream;

  /// Errors the app should know of: a configuration the service refused, or the native SDK's
  /// refusal to start ([ServiceErrorKind.configuration], see [configure]), events dropped
  /// ([ServiceErrorKind.eventsDropped]) and, on iOS, a conversion value update Apple refused
  /// ([ServiceErrorKind.conversionValue]).
  static Stream<ServiceError> get onError => _errors.stream;

  static final StreamController<Map<String, dynamic>> _attribution =
      StreamController<Map<String, dynamic>>.broadcast(
    onListen: () => _listen(_attributionListener, true),
    onCancel: () => _listen(_attributionListener, false),
  );

  static final StreamController<ServiceDeepLink> _deepLinks =
      StreamController<ServiceDeepLink>.broadcast(
    onListen: () {
      final pending = List<ServiceDeepLink>.of(_pendingLinks);
      _pendingLinks.clear();
      for (final link in pending) {
        _deepLinks.add(link);
      }
      _listen(_deepLinkListener, true);
    },
    onCancel: () => _listen(_deepLinkListener, false),
  );

  static final StreamController<ServiceError> _errors = StreamController<ServiceError>.broadcast(
    onListen: () => _listen(_errorListener, true),
    onCancel: () => _listen(_errorListener, false),
  );

  /// The names of the native listeners, as the channel's `listen` method takes them.
  static const String _attributionListener = 'attribution';
  static const String _deepLinkListener = 'deepLink';
  static const String _errorListener = 'error';

  /// How many direct deep links wait for a listener: listeners.json's `maxPendingDirectLinks`,
  /// the native SDKs' bound too, so a link that cold-started the app is not lost to a second
  /// one tapped before the app listens.
  static const int _maxPendingDirectLinks = 10;

  /// The deep links handed over while [onDeepLink] had no listener, oldest first, delivered in
  /// order to the first listener: the most recent [_maxPendingDirectLinks] direct links, and
  /// the deferred one: the native SDK counts it delivered once it is handed over, so one
  /// arriving as a stream's last listener cancels (before the native listener is cleared) waits
  /// here rather than being lost for the install. The bound is on direct links, and only they
  /// make room, as in the native SDKs: taps never push out the deferred link.
  static final List<ServiceDeepLink> _pendingLinks = <ServiceDeepLink>[];

  static void _deliverLink(ServiceDeepLink link) {
    if (_deepLinks.hasListener) {
      _deepLinks.add(link);
      return;
    }
    _pendingLinks.add(link);
    bool isDirect(ServiceDeepLink pending) => pending.kind == ServiceDeepLinkKind.direct;
    if (_pendingLinks.where(isDirect).length > _maxPendingDirectLinks) {
      _pendingLinks.removeAt(_pendingLinks.indexWhere(isDirect));
    }
  }

  static bool _handlerSet = false;

  /// Sets or clears the native SDK's listener [name]; the native side calls back on this
  /// channel ([_onNativeCall]), whose handler is set first.
  static Future<void> _listen(String name, bool listening) async {
    if (!_handlerSet) {
      _channel.setMethodCallHandler(_onNativeCall);
      _handlerSet = true;
    }
    try {
      await _channel.invokeMethod<void>('listen', <String, Object?>{
        'listener': name,
        'listening': listening,
      });
    } on PlatformException catch (error) {
      _warn('the native SDK did not set its $name listener: ${error.message}');
    } on MissingPluginException {
      _warn('no native side for the $name listener');
    }
  }

  /// What the native side calls: `onAttribution`, `onDeepLink` and `onError`, each with a map.
  /// Answers false to an error while [onError] has no listener (after a hot restart, the native
  /// side still counts the old isolate's): the native side keeps it for the first that listens.
  static Future<Object?> _onNativeCall(MethodCall call) async {
    switch (call.method) {
      case 'onAttribution':
        final params = _stringKeyed(call.arguments as Map<Object?, Object?>?);
        if (params != null) _attribution.add(params);
      case 'onDeepLink':
        final link = ServiceDeepLink.fromChannel(call.arguments);
        // Direct links are delivered from the Dart calls alone, whatever the native SDK
        // also saw (the links handleDeepLink and handleUniversalLink tell it, the iOS
        // application and scene delegates' own), so none comes twice.
        if (link != null && link.kind == ServiceDeepLinkKind.deferred) _deliverLink(link);
      case 'onError':
        if (!_errors.hasListener) return false;
        final error = ServiceError.fromChannel(call.arguments);
        if (error == null) {
          _warn('an error of a kind this version does not know: ${call.arguments}');
        } else {
          _errors.add(error);
        }
      default:
        throw MissingPluginException('${call.method} is not a method of the Dart side');
    }
    return true;
  }

  /// The methods already said to have no native side, each said once per run.
  static final Set<String> _saidMissing = <String>{};

  /// The native side's answer to [call], a call of the channel's [method]; null where no native
  /// side answers ([MissingPluginException]: web, desktop, or the plugin not registered in this
  /// engine), with a warning the first time for each method, so that the app goes on as with an
  /// SDK that is off rather than stopping on an uncaught error.
  static Future<T?> _native<T>(String method, Future<T?> call) async {
    try {
      return await call;
    } on MissingPluginException {
      if (_saidMissing.add(method)) {
        _warn('$method: no native side on this platform (the plugin has Android and iOS '
            'sides only): nothing is sent or read here, now or on later calls');
      }
      return null;
    }
  }

  static Map<String, dynamic>? _stringKeyed(Map<Object?, Object?>? map) =>
      map?.map((key, value) => MapEntry(key.toString(), value));

  /// A warning in the app's console (logcat, Xcode's), under the native SDKs' tag, in every
  /// build: `dart:developer`'s log reaches only a debugger.
  static void _warn(String message) => debugPrint('ServiceSdk: warning: $message');
}
