// The listeners, consent and delivery additions (docs/sdks.md, "Listeners, consent and
// delivery") on the Dart side, against the shared vectors: listeners.json's deferred and direct
// deep links, delivery.json's drop reasons, error kinds and the errors each scenario reports.
// The native side is a mock channel: what it would send is delivered to the Dart side as
// Flutter's engine delivers a native call (a message on the channel, in the standard codec).
import 'dart:async';
import 'dart:convert';
import 'dart:io';

import 'package:flutter/services.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:service_attribution/service_attribution.dart';

Map<String, dynamic> _vectors(String file) =>
    jsonDecode(File('../conformance/$file').readAsStringSync()) as Map<String, dynamic>;

void main() {
  TestWidgetsFlutterBinding.ensureInitialized();
  const channelName = 'service_attribution';
  const channel = MethodChannel(channelName);
  final messenger = TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger;
  final calls = <MethodCall>[];
  Object? Function(MethodCall call) answer = (_) => null;

  /// A call from the native side, as the engine hands it to the Dart side.
  Future<void> fromNative(String method, Object? arguments) async {
    await messenger.handlePlatformMessage(
      channelName,
      const StandardMethodCodec().encodeMethodCall(MethodCall(method, arguments)),
      (_) {},
    );
    // Broadcast streams deliver on a later microtask.
    await Future<void>.delayed(Duration.zero);
  }

  /// Listens to [stream] for the rest of the test; what it delivers goes to the list.
  Future<List<T>> listen<T>(Stream<T> stream) async {
    final received = <T>[];
    final subscription = stream.listen(received.add);
    addTearDown(subscription.cancel);
    await Future<void>.delayed(Duration.zero);
    return received;
  }

  /// The native side hands over a deferred link (`/welcome`) as [ServicePlugin.onDeepLink]'s
  /// last listener cancels, before the native side has cleared its own listener: the native
  /// SDK counts the link delivered, once per install.
  Future<void> deferredAsTheLastListenerCancels() async {
    final subscription = ServicePlugin.onDeepLink.listen((_) {});
    await Future<void>.delayed(Duration.zero);
    await subscription.cancel();
    await fromNative('onDeepLink', {
      'kind': 'deferred',
      'deeplinkId': null,
      'path': '/welcome',
      'params': {'deep_link_path': '/welcome'},
      'url': null,
    });
  }

  setUp(() async {
    calls.clear();
    answer = (_) => null;
    messenger.setMockMethodCallHandler(channel, (call) async {
      calls.add(call);
      return answer(call);
    });
    // A direct link held for a listener by an earlier test goes to a listener of its own.
    final subscription = ServicePlugin.onDeepLink.listen((_) {});
    await Future<void>.delayed(Duration.zero);
    await subscription.cancel();
    calls.clear();
  });

  group('onAttribution', () {
    test('sets the native listener while it has one, and clears it after', () async {
      final subscription = ServicePlugin.onAttribution.listen((_) {});
      await Future<void>.delayed(Duration.zero);
      await subscription.cancel();
      expect(calls.map((call) => [call.method, call.arguments]), [
        ['listen', {'listener': 'attribution', 'listening': true}],
        ['listen', {'listener': 'attribution', 'listening': false}],
      ]);
    });

    for (final vector in _vectors('listeners.json')['deferred'] as List) {
      test('delivers the map the native SDK gives: ${vector['name']}', () async {
        final received = await listen(ServicePlugin.onAttribution);
        await fromNative('onAttribution', vector['attribution']);
        expect(received, [vector['attribution']]);
        expect(received.single['service_match_status'], isNotNull);
      });
    }
  });

  group('onDeepLink, deferred', () {
    final attributionKeys = (_vectors('listeners.json')['attributionKeys'] as List).toSet();
    for (final vector in _vectors('listeners.json')['deferred'] as List) {
      final expected = vector['deepLink'] as Map<String, dynamic>?;
      if (expected == null) continue;
      test('${vector['name']}: as the native SDK sends it', () async {
        // The vector's own rule, so that the link sent below is the one the native SDK gives:
        // params are the attribution's keys that are not the route's own.
        final attribution = vector['attribution'] as Map<String, dynamic>;
        expect(
          expected['params'],
          Map.fromEntries(attribution.entries.where((e) => !attributionKeys.contains(e.key))),
        );
        final received = await listen(ServicePlugin.onDeepLink);
        expect(calls.map((call) => call.arguments),
            contains(equals({'listener': 'deepLink', 'listening': true})));
        await fromNative('onDeepLink', expected);
        final link = received.single;
        expect(link.kind, ServiceDeepLinkKind.deferred);
        expect(link.kind.wire, expected['kind']);
        expect(link.deeplinkId, expected['deeplinkId']);
        expect(link.path, expected['path']);
        expect(link.params, expected['params']);
        expect(link.url, expected['url']);
      });
    }

    test('a direct link the native SDK saw is not delivered again', () async {
      final received = await listen(ServicePlugin.onDeepLink);
      await fromNative('onDeepLink', {
        'kind': 'direct',
        'deeplinkId': 'Kx3v9QpZ2aQ',
        'path': null,
        'params': <String, String>{},
        'url': 'https://go.example.com/Kx3v9QpZ2aQ',
      });
      expect(received, isEmpty);
    });
  });

  group('onDeepLink, direct', () {
    for (final vector in _vectors('listeners.json')['direct'] as List) {
      final expected = vector['deepLink'] as Map<String, dynamic>?;
      final entries = vector['entry'] == 'handleDeepLink'
          ? ['handleDeepLink']
          : ['handleDeepLink', 'handleUniversalLink'];
      for (final entry in entries) {
        test('${vector['name']}, through $entry', () async {
          final received = await listen(ServicePlugin.onDeepLink);
          final url = Uri.tryParse(vector['url'] as String);
          if (url != null) {
            if (entry == 'handleDeepLink') {
              final given = await ServicePlugin.handleDeepLink(url);
              expect(given, expected == null ? isNull : isNotNull);
            } else {
              await ServicePlugin.handleUniversalLink(url);
            }
          }
          await Future<void>.delayed(Duration.zero);
          if (expected == null) {
            expect(received, isEmpty);
            expect(calls.where((call) => call.method == 'handleDeepLink'), isEmpty);
            return;
          }
          final link = received.single;
          expect(link.kind.wire, expected['kind']);
          expect(link.deeplinkId, expected['deeplinkId']);
          expect(link.path, expected['path']);
          expect(link.params, expected['params']);
          expect(link.url.toString(), expected['url']);
          // Both tell the native SDK of the link (the install's open_url), which delivers
          // nothing more to Dart.
          expect(
            calls.where((call) => call.method == 'handleDeepLink').map((call) => call.arguments),
            [
              {'url': url.toString()},
            ],
          );
        });
      }
    }

    test('a link handled before onDeepLink has a listener is delivered when it gets one',
        () async {
      final url = Uri.parse('myapp://open?deep_link_path=%2Flevels%2F7');
      await ServicePlugin.handleDeepLink(url);
      final received = await listen(ServicePlugin.onDeepLink);
      expect(received.map((link) => link.url), [url]);
    });

    test('a cold-start link and a second one handled before a listener both reach it, in order',
        () async {
      final cold = Uri.parse('myapp://open?deep_link_path=%2Fcold');
      final second = Uri.parse('myapp://open?deep_link_path=%2Fsecond');
      await ServicePlugin.handleDeepLink(cold);
      await ServicePlugin.handleDeepLink(second);
      final received = await listen(ServicePlugin.onDeepLink);
      expect(received.map((link) => link.url), [cold, second]);
    });

    test('a deferred link the native side hands over while no stream listens waits for the next',
        () async {
      await deferredAsTheLastListenerCancels();
      final received = await listen(ServicePlugin.onDeepLink);
      expect(received.map((link) => [link.kind, link.path]), [
        [ServiceDeepLinkKind.deferred, '/welcome'],
      ]);
    });

    test('past listeners.json\'s maxPendingDirectLinks the oldest waiting links are dropped',
        () async {
      final kept = _vectors('listeners.json')['maxPendingDirectLinks'] as int;
      final urls = [
        for (var i = 0; i < kept + 3; i++) Uri.parse('myapp://open?deep_link_path=%2Flevels%2F$i'),
      ];
      for (final url in urls) {
        await ServicePlugin.handleDeepLink(url);
      }
      final received = await listen(ServicePlugin.onDeepLink);
      expect(received.map((link) => link.url), urls.sublist(3));
    });

    test('a deferred link waiting for a listener is not pushed out by more direct links than '
        'maxPendingDirectLinks', () async {
      final kept = _vectors('listeners.json')['maxPendingDirectLinks'] as int;
      // The deferred link arrives as the stream's last listener cancels: it waits here.
      await deferredAsTheLastListenerCancels();
      final urls = [
        for (var i = 0; i < kept + 3; i++) Uri.parse('myapp://open?deep_link_path=%2Flevels%2F$i'),
      ];
      for (final url in urls) {
        await ServicePlugin.handleDeepLink(url);
      }
      final received = await listen(ServicePlugin.onDeepLink);
      // The deferred link, once per install, is kept; the oldest direct links make room.
      expect(received.first.kind, ServiceDeepLinkKind.deferred);
      expect(received.first.path, '/welcome');
      expect(received.skip(1).map((link) => link.url), urls.sublist(3));
    });

    test('an http link whose bytes are no UTF-8 reaches the listener through handleDeepLink, '
        'each such byte as U+FFFD', () async {
      final received = await listen(ServicePlugin.onDeepLink);
      final url = Uri.parse('https://go.example.com/caf%E9?deep_link_path=%2Fcaf%E9&q=a+b%FF');
      final given = await ServicePlugin.handleDeepLink(url);
      await Future<void>.delayed(Duration.zero);
      expect(given?.deeplinkId, 'caf\uFFFD');
      expect(received.map((link) => [link.deeplinkId, link.path, link.params]), [
        [
          'caf\uFFFD',
          '/caf\uFFFD',
          {'deep_link_path': '/caf\uFFFD', 'q': 'a b\uFFFD'},
        ],
      ]);
    });

    test('a host outside allowedHosts gives nothing to the listener nor to the native SDK',
        () async {
      final received = await listen(ServicePlugin.onDeepLink);
      await ServicePlugin.handleUniversalLink(
        Uri.parse('https://other.example.com/Kx3v9QpZ2aQ'),
        allowedHosts: {'go.example.com'},
      );
      await Future<void>.delayed(Duration.zero);
      expect(received, isEmpty);
      expect(calls.where((call) => call.method == 'handleDeepLink'), isEmpty);
    });

    test('a Universal Link is delivered once, though the native SDK it is told of delivers it too',
        () async {
      final received = await listen(ServicePlugin.onDeepLink);
      final url = Uri.parse('https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Fshop');
      answer = (call) {
        if (call.method == 'handleDeepLink') {
          // What the native SDK's deep link listener sends back for the link.
          scheduleMicrotask(() => fromNative('onDeepLink', {
                'kind': 'direct',
                'deeplinkId': 'Kx3v9QpZ2aQ',
                'path': '/shop',
                'params': {'deep_link_path': '/shop'},
                'url': url.toString(),
              }));
        }
        return null;
      };
      await ServicePlugin.handleUniversalLink(url);
      await Future<void>.delayed(Duration.zero);
      await Future<void>.delayed(Duration.zero);
      expect(received.map((link) => link.path), ['/shop']);
    });
  });

  group('onError', () {
    final delivery = _vectors('delivery.json');

    test('the drop reasons are delivery.json\'s, case for case', () {
      expect(
        ServiceDropReason.values.map((reason) => reason.wire).toList(),
        (delivery['dropReasons'] as Map).keys.toList(),
      );
    });

    test('the error kinds are delivery.json\'s, case for case', () {
      expect(
        ServiceErrorKind.values.map((kind) => kind.wire).toList(),
        (delivery['errorKinds'] as Map).keys.toList(),
      );
    });

    for (final reason in (delivery['dropReasons'] as Map).keys) {
      test('events dropped with the reason $reason reach the listener', () async {
        final received = await listen(ServicePlugin.onError);
        expect(calls.map((call) => call.arguments),
            contains(equals({'listener': 'error', 'listening': true})));
        await fromNative('onError', {
          'kind': 'events_dropped',
          'reason': reason,
          'code': null,
          'count': 3,
          'message': '3 events dropped: $reason',
        });
        final error = received.single;
        expect(error.kind, ServiceErrorKind.eventsDropped);
        expect(error.reason?.wire, reason);
        expect(error.code, isNull);
        expect(error.count, 3);
        expect(error.message, '3 events dropped: $reason');
      });
    }

    // Each scenario's errors, as the native SDK reports them, arrive as they were sent.
    for (final scenario in delivery['scenarios'] as List) {
      final errors = (scenario['expect'] as Map)['errors'];
      if (errors is! List || errors.isEmpty) continue;
      test('${scenario['name']}: its errors reach the listener', () async {
        final received = await listen(ServicePlugin.onError);
        for (final error in errors.cast<Map<String, dynamic>>()) {
          await fromNative('onError', {...error, 'message': 'from the native SDK'});
        }
        expect(received, hasLength(errors.length));
        for (var i = 0; i < errors.length; i++) {
          final want = errors[i] as Map<String, dynamic>;
          expect(received[i].kind.wire, want['kind']);
          expect(received[i].reason?.wire, want['reason']);
          expect(received[i].code, want['code']);
          expect(received[i].count, want['count']);
        }
      });
    }

    test('the native SDK\'s refusal to start arrives as a configuration error with no code',
        () async {
      final received = await listen(ServicePlugin.onError);
      await fromNative('onError', {
        'kind': 'configuration',
        'reason': null,
        'code': null,
        'count': 1,
        'message': 'the SDK did not start: the backend address (baseUrl) is not set',
      });
      expect(received.single.kind, ServiceErrorKind.configuration);
      expect(received.single.code, isNull);
      expect(received.single.count, 1);
    });

    test('an error of a kind this version does not know is not delivered', () async {
      final received = await listen(ServicePlugin.onError);
      await fromNative('onError', {'kind': 'something_new', 'count': 1, 'message': 'new'});
      expect(received, isEmpty);
    });
  });

  group('consent, stop and the count', () {
    test('stop, start and isStopped call the native SDK', () async {
      answer = (call) => call.method == 'isStopped' ? true : null;
      await ServicePlugin.stop();
      expect(await ServicePlugin.isStopped(), isTrue);
      await ServicePlugin.start();
      expect(calls.map((call) => call.method), ['stop', 'isStopped', 'start']);
    });

    test('isStopped and isAnonymous are false when the native side cannot say', () async {
      expect(await ServicePlugin.isStopped(), isFalse);
      expect(await ServicePlugin.isAnonymous(), isFalse);
    });

    test('setAnonymous sends the flag; isAnonymous reads it', () async {
      answer = (call) => call.method == 'isAnonymous' ? true : null;
      await ServicePlugin.setAnonymous(true);
      expect(await ServicePlugin.isAnonymous(), isTrue);
      expect(calls.first.arguments, {'anonymous': true});
    });

    test('setConsent sends the three values, null for one not given', () async {
      await ServicePlugin.setConsent(gdprApplies: true, adUserData: false);
      expect(calls.single.method, 'setConsent');
      expect(calls.single.arguments, {
        'gdprApplies': true,
        'adUserData': false,
        'adPersonalization': null,
      });
    });

    test('getDroppedEventCount gives the native count, 0 when it cannot say', () async {
      expect(await ServicePlugin.getDroppedEventCount(), 0);
      answer = (call) => call.method == 'getDroppedEventCount' ? 5 : null;
      expect(await ServicePlugin.getDroppedEventCount(), 5);
    });
  });
}
