import 'package:flutter/foundation.dart';
import 'package:flutter/services.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:service_attribution/service_attribution.dart';

void main() {
  TestWidgetsFlutterBinding.ensureInitialized();
  const channel = MethodChannel('service_attribution');
  final calls = <MethodCall>[];
  Object? Function(MethodCall call) answer = (_) => null;

  setUp(() {
    calls.clear();
    answer = (_) => null;
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, (call) async {
      calls.add(call);
      return answer(call);
    });
  });

  test('configure refuses an empty key before reaching the native SDK', () async {
    await expectLater(ServicePlugin.configure(apiKey: ''), throwsArgumentError);
    expect(calls, isEmpty);
  });

  test('configure takes the deprecated isDebug and endpointBaseUrl, and sends neither', () async {
    await ServicePlugin.configure(
      apiKey: 'sdk_key',
      // ignore: deprecated_member_use_from_same_package
      isDebug: true,
      // ignore: deprecated_member_use_from_same_package
      endpointBaseUrl: 'https://example.com',
    );
    expect(calls.single.arguments, {'apiKey': 'sdk_key', 'logLevel': 1, 'customerUserId': null});
  });

  group('waitForTrackingAuthorization', () {
    test('hands the native SDK its timeout in seconds', () async {
      await ServicePlugin.waitForTrackingAuthorization(const Duration(seconds: 60));
      await ServicePlugin.waitForTrackingAuthorization(const Duration(milliseconds: 2500));
      expect(calls.map((call) => [call.method, call.arguments]), [
        ['waitForTrackingAuthorization', {'timeoutSeconds': 60.0}],
        ['waitForTrackingAuthorization', {'timeoutSeconds': 2.5}],
      ]);
      expect((calls.first.arguments as Map)['timeoutSeconds'], isA<double>());
    });

    test('takes the bounds themselves, 1 and 360 seconds', () async {
      await ServicePlugin.waitForTrackingAuthorization(const Duration(seconds: 1));
      await ServicePlugin.waitForTrackingAuthorization(const Duration(minutes: 6));
      expect(calls.map((call) => (call.arguments as Map)['timeoutSeconds']), [1.0, 360.0]);
    });

    for (final timeout in <Duration>[
      Duration.zero,
      const Duration(milliseconds: 999),
      const Duration(seconds: 360, microseconds: 1),
      const Duration(hours: 1),
      const Duration(seconds: -5),
    ]) {
      test('refuses $timeout with an ArgumentError, before the channel', () async {
        await expectLater(ServicePlugin.waitForTrackingAuthorization(timeout), throwsArgumentError);
        expect(calls, isEmpty);
      });
    }

    test('goes before configure, which it does not hold on the Dart side', () async {
      await ServicePlugin.waitForTrackingAuthorization(const Duration(seconds: 30));
      await ServicePlugin.configure(apiKey: 'sdk_key');
      expect(calls.map((call) => call.method), ['waitForTrackingAuthorization', 'configure']);
    });
  });

  test('getAttributionParamsWithCallback emits exactly one value, then closes', () async {
    answer = (call) => call.method == 'awaitAttributionParams'
        ? {'service_match_status': 'matched', 'deep_link_path': '/levels/7'}
        : null;
    final values = await ServicePlugin.getAttributionParamsWithCallback().toList();
    expect(values, [
      {'service_match_status': 'matched', 'deep_link_path': '/levels/7'},
    ]);
  });

  test('getAttributionParams is null when the native SDK knows none', () async {
    expect(await ServicePlugin.getAttributionParams(), isNull);
  });

  test('handleUniversalLink parses the link itself and tells the native SDK of it', () async {
    final url = Uri.parse('https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7');
    final result = await ServicePlugin.handleUniversalLink(url);
    expect(result?.deeplinkId, 'Kx3v9QpZ2aQ');
    expect(result?.queryParams, {'deep_link_path': '/levels/7'});
    // The link that opened the app goes with a new install's report (open_url) only through
    // the native SDK: on Android nothing else hands it over.
    expect(calls.map((call) => [call.method, call.arguments]), [
      ['handleDeepLink', {'url': url.toString()}],
    ]);
  });

  test('handleUniversalLink works with no native side, before configure', () async {
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, null);
    final result = await ServicePlugin.handleUniversalLink(
      Uri.parse('https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7'),
    );
    expect(result?.deeplinkId, 'Kx3v9QpZ2aQ');
  });

  test('handleUniversalLink tells the native SDK nothing of a link it does not give', () async {
    final result = await ServicePlugin.handleUniversalLink(
      Uri.parse('https://other.example.com/Kx3v9QpZ2aQ'),
      allowedHosts: {'go.example.com'},
    );
    expect(result, isNull);
    expect(calls, isEmpty);
  });

  test('handleUniversalLink takes a link whose bytes are no UTF-8, each such byte as U+FFFD',
      () async {
    // A Latin-1 system's link: Dart's own decoding (pathSegments, decodeQueryComponent) throws
    // for it, where the native SDKs decode it.
    final url = Uri.parse('https://go.example.com/caf%E9?q=a+b%FF&r=%E9t%C3%A9');
    final result = await ServicePlugin.handleUniversalLink(url);
    expect(result?.deeplinkId, 'caf\uFFFD');
    expect(result?.queryParams, {'q': 'a b\uFFFD', 'r': '\uFFFDt\u00E9'});
    expect(calls.map((call) => [call.method, call.arguments]), [
      ['handleDeepLink', {'url': url.toString()}],
    ]);
  });

  test('isSdkDisabled is true when the native side cannot say', () async {
    expect(await ServicePlugin.isSdkDisabled(), isTrue);
  });

  group('with no native side (web, desktop: the plugin has Android and iOS sides only)', () {
    final printed = <String>[];
    final original = debugPrint;
    setUp(() {
      printed.clear();
      // No handler: every call ends in a MissingPluginException, as where no plugin registered.
      TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
          .setMockMethodCallHandler(channel, null);
      debugPrint = (String? message, {int? wrapWidth}) => printed.add(message ?? '');
    });
    tearDown(() => debugPrint = original);

    test('configure, awaited in main, completes, and every call answers as an SDK that is off, '
        'each method saying so once', () async {
      await ServicePlugin.configure(apiKey: 'sdk_key');
      await ServicePlugin.waitForTrackingAuthorization(const Duration(seconds: 5));
      await ServicePlugin.setCustomerUserId('user-8812');
      expect(await ServicePlugin.sendEvent(eventType: EventType.login), isFalse);
      expect(
        await ServicePlugin.sendEvent(
          eventType: EventType.purchase,
          parameters: {'revenue': 9.99, 'currency': 'EUR'},
        ),
        isFalse,
      );
      expect(await ServicePlugin.getServiceId(), isNull);
      expect(await ServicePlugin.isSdkDisabled(), isTrue);
      expect(await ServicePlugin.getAttributionParams(), isNull);
      expect(await ServicePlugin.getAttributionParamsWithCallback().toList(), [null]);
      expect(await ServicePlugin.enablePlatformAdsAttribution(), isFalse);
      await ServicePlugin.stop();
      await ServicePlugin.start();
      expect(await ServicePlugin.isStopped(), isFalse);
      await ServicePlugin.setAnonymous(true);
      expect(await ServicePlugin.isAnonymous(), isFalse);
      await ServicePlugin.setConsent(gdprApplies: true, adUserData: false);
      expect(await ServicePlugin.getDroppedEventCount(), 0);
      // A word for each method, once: the second event adds none.
      for (final method in [
        'configure',
        'waitForTrackingAuthorization',
        'setCustomerUserId',
        'sendEvent',
        'getServiceId',
        'isSdkDisabled',
        'getAttributionParams',
        'awaitAttributionParams',
        'enablePlatformAdsAttribution',
        'stop',
        'start',
        'isStopped',
        'setAnonymous',
        'isAnonymous',
        'setConsent',
        'getDroppedEventCount',
      ]) {
        expect(
          printed.where((line) => line.contains('warning: $method: no native side')),
          hasLength(1),
          reason: method,
        );
      }
    });

    test('deleteUserData throws a PlatformException coded unsupported: nothing was deleted',
        () async {
      await expectLater(
        ServicePlugin.deleteUserData(),
        throwsA(isA<PlatformException>().having((error) => error.code, 'code', 'unsupported')),
      );
    });
  });

  test('getAttributionParamsWithCallback gives null, then closes, when the native side fails',
      () async {
    final printed = <String>[];
    final original = debugPrint;
    debugPrint = (String? message, {int? wrapWidth}) => printed.add(message ?? '');
    addTearDown(() => debugPrint = original);
    answer = (call) => throw PlatformException(code: 'native', message: 'no answer');
    // One value, never an error event, which a listen without onError would leave uncaught.
    expect(await ServicePlugin.getAttributionParamsWithCallback().toList(), [null]);
    expect(printed.where((line) => line.contains('no answer')), hasLength(1));
  });

  group('sendEvent', () {
    /// A configured, enabled SDK: the native side takes every event.
    Object? enabled(MethodCall call) => switch (call.method) {
          'sendEvent' => true,
          _ => null,
        };

    // The last: separator controls, which Android's SDK counts as whitespace and Dart does not.
    for (final name in <String?>[null, '', '   ', ' \u001F\u001C ']) {
      test('custom with the name ${name == null ? 'null' : "'$name'"} is not sent: false, '
          'no error, nothing on the channel', () async {
        answer = enabled;
        expect(
          await ServicePlugin.sendEvent(eventType: EventType.custom, eventName: name),
          isFalse,
        );
        expect(calls, isEmpty);
      });
    }

    test('custom with a name is sent with it', () async {
      answer = enabled;
      expect(
        await ServicePlugin.sendEvent(eventType: EventType.custom, eventName: 'boss_defeated'),
        isTrue,
      );
      expect(calls.map((call) => call.method), ['sendEvent']);
      expect(calls.last.arguments, {
        'eventType': 'CUSTOM',
        'eventName': 'boss_defeated',
        'parameters': null,
      });
    });

    test('is false when the native SDK does not take the event (disabled or stopped)', () async {
      answer = (call) => call.method == 'sendEvent' ? false : enabled(call);
      expect(await ServicePlugin.sendEvent(eventType: EventType.share), isFalse);
      expect(calls.map((call) => call.method), ['sendEvent']);
    });

    test('a native side that says nothing counts as not taken', () async {
      answer = (_) => null;
      expect(await ServicePlugin.sendEvent(eventType: EventType.login), isFalse);
    });

    test('before configure the event goes to the native SDK, which keeps it until configure',
        () async {
      // Both native SDKs keep the events sent before configure and send them, in order, once
      // it has run; the Dart side asks nothing first (it used to ask isSdkDisabled, which is
      // true before configure, and the event was lost).
      final sent = <Object?>[];
      answer = (call) {
        if (call.method == 'sendEvent') sent.add((call.arguments as Map)['eventType']);
        return call.method == 'sendEvent' ? true : null;
      };
      expect(await ServicePlugin.sendEvent(eventType: EventType.login), isTrue);
      expect(await ServicePlugin.sendEvent(eventType: EventType.levelStart), isTrue);
      await ServicePlugin.configure(apiKey: 'sdk_key');
      expect(calls.map((call) => call.method), ['sendEvent', 'sendEvent', 'configure']);
      expect(sent, ['LOGIN', 'LEVEL_START']);
    });

    test('hands nested maps and lists to the native side as they are', () async {
      answer = enabled;
      final parameters = {
        'revenue': 4.5,
        'currency': 'EUR',
        'items': [
          {'sku': 'gem-pack', 'quantity': 2},
          null,
          'note',
        ],
        'context': {
          'screen': 'shop',
          'ab': {'variant': 'b', 'weights': [0.25, 0.75]},
        },
      };
      expect(
        await ServicePlugin.sendEvent(eventType: EventType.purchase, parameters: parameters),
        isTrue,
      );
      expect((calls.last.arguments as Map)['parameters'], parameters);
    });

    test('a manual install is not sent and asks nothing of the native side', () async {
      answer = enabled;
      expect(await ServicePlugin.sendEvent(eventType: EventType.install), isFalse);
      // No effect at all: not even a parameter the service could not take throws.
      expect(
        await ServicePlugin.sendEvent(
          eventType: EventType.install,
          parameters: {'at': DateTime.utc(2026, 11, 30)},
        ),
        isFalse,
      );
      expect(calls, isEmpty);
    });
  });

  group('sendEvent parameters', () {
    final printed = <String>[];
    final original = debugPrint;
    setUp(() {
      printed.clear();
      answer = (call) => call.method == 'sendEvent' ? true : null;
      debugPrint = (String? message, {int? wrapWidth}) => printed.add(message ?? '');
    });
    tearDown(() => debugPrint = original);

    test('a value JSON cannot hold loses its key with a warning naming it', () async {
      expect(
        await ServicePlugin.sendEvent(
          eventType: EventType.purchase,
          parameters: {'revenue': double.nan, 'currency': 'EUR'},
        ),
        isTrue,
      );
      expect((calls.single.arguments as Map)['parameters'], {'currency': 'EUR'});
      expect(printed.where((line) => line.contains('parameters[revenue]')), hasLength(1));
    });

    test('a list that holds itself is left out past five levels, not a stack overflow', () async {
      final loop = <Object?>[1];
      loop.add(loop);
      expect(
        await ServicePlugin.sendEvent(eventType: EventType.search, parameters: {'loop': loop, 'kept': true}),
        isTrue,
      );
      expect((calls.single.arguments as Map)['parameters'], {'kept': true});
      expect(printed.where((line) => line.contains('parameters[loop]')), hasLength(1));
    });

    test('a native failure answers false, with a warning naming the event, and throws nothing',
        () async {
      answer = (call) => throw PlatformException(code: 'native', message: 'the SDK failed');
      expect(await ServicePlugin.sendEvent(eventType: EventType.levelComplete), isFalse);
      expect(
        printed.where((line) => line.contains('LEVEL_COMPLETE') && line.contains('the SDK failed')),
        hasLength(1),
      );
    });

    test('a value of a type the service cannot take throws for an install or a nameless custom event too',
        () async {
      for (final eventType in [EventType.install, EventType.custom]) {
        await expectLater(
          ServicePlugin.sendEvent(eventType: eventType, parameters: {'at': DateTime(2026)}),
          throwsArgumentError,
        );
      }
      expect(calls, isEmpty);
    });
  });
}
