// Runs the shared conformance vectors (sdk/conformance) against the Dart side of the plugin:
// EventType wire values, parameter rules, link parsing and log level bounds. The native side
// is a mock channel that records what would reach it.
import 'dart:convert';
import 'dart:io';
import 'dart:typed_data';

import 'package:flutter/services.dart';
import 'package:flutter_test/flutter_test.dart';
import 'package:service_attribution/service_attribution.dart';
import 'package:service_attribution/src/link_result.dart';

Map<String, dynamic> _vectors(String file) =>
    jsonDecode(File('../conformance/$file').readAsStringSync()) as Map<String, dynamic>;

class _AppObject {}

/// A vector's stand-in for a value JSON cannot hold, as a Dart value.
Object? _native(Object? value) {
  if (value is Map && value.containsKey(r'$special')) {
    return switch (value[r'$special']) {
      'nan' => double.nan,
      'infinity' => double.infinity,
      'negativeInfinity' => double.negativeInfinity,
      'dateTime' => DateTime.utc(2026, 11, 24),
      'uri' => Uri.parse('https://example.com/'),
      'set' => <String>{'a', 'b'},
      'bytes' => Uint8List.fromList([1, 2]),
      'object' => _AppObject(),
      'intKeyedMap' => <int, String>{1: 'a'},
      final kind => throw StateError('unknown special value $kind'),
    };
  }
  if (value is Map) return value.map((k, v) => MapEntry(k as String, _native(v)));
  if (value is List) return value.map(_native).toList();
  return value;
}

void main() {
  TestWidgetsFlutterBinding.ensureInitialized();
  const channel = MethodChannel('service_attribution');
  final calls = <MethodCall>[];

  setUp(() {
    calls.clear();
    TestDefaultBinaryMessengerBinding.instance.defaultBinaryMessenger
        .setMockMethodCallHandler(channel, (call) async {
      calls.add(call);
      // A configured, enabled SDK that takes every event.
      return switch (call.method) {
        'isSdkDisabled' => false,
        'sendEvent' => true,
        _ => null,
      };
    });
  });

  group('event types', () {
    for (final vector in _vectors('event-types.json')['eventTypes'] as List) {
      final flutter = vector['flutter'] as String;
      test('$flutter is sent as ${vector['wire']}', () {
        expect(EventType.values.byName(flutter).name, vector['wire']);
      });
    }
    test('no case beyond the list', () {
      expect(EventType.values, hasLength((_vectors('event-types.json')['eventTypes'] as List).length));
    });
  });

  group('parameters', () {
    for (final vector in _vectors('parameters.json')['cases'] as List) {
      final expected = (vector['expect'] as Map)['flutter'];
      if (expected == null) continue;
      test(vector['name'] as String, () async {
        final input = vector['input'] as Map;
        final eventType = EventType.values.firstWhere((t) => t.name == input['eventType']);
        final parameters = _native(input['parameters']) as Map<String, dynamic>?;
        Future<bool> send() => ServicePlugin.sendEvent(
              eventType: eventType,
              eventName: input['eventName'] as String?,
              parameters: parameters,
            );
        if ((expected as Map).containsKey('throws')) {
          await expectLater(send(), throwsArgumentError);
          expect(calls, isEmpty);
        } else if (expected.containsKey('dropped')) {
          expect(await send(), isFalse);
          expect(calls, isEmpty);
        } else {
          expect(await send(), isTrue);
          final sent = expected['sent'] as Map;
          final args = calls.singleWhere((call) => call.method == 'sendEvent').arguments as Map;
          expect(args['eventType'], sent['event_type']);
          expect(args['eventName'], sent['event_name']);
          expect(args['parameters'], sent['parameters']);
        }
      });
    }
  });

  group('links', () {
    for (final vector in _vectors('links.json')['cases'] as List) {
      test(vector['name'] as String, () {
        final expected = ((vector['platforms'] as Map?)?['flutter'] ?? vector['expect']) as Map;
        final hosts = (vector['allowedHosts'] as List?)?.cast<String>().toSet();
        final url = Uri.tryParse(vector['url'] as String);
        if (expected.containsKey('throws')) {
          expect(() => parseServiceLink(url!, hosts), throwsArgumentError);
          return;
        }
        final result = url == null ? null : parseServiceLink(url, hosts);
        final want = expected['result'] as Map?;
        if (want == null) {
          expect(result, isNull);
        } else {
          expect(result?.deeplinkId, want['deeplinkId']);
          expect(result?.queryParams, want['queryParams']);
          expect(result?.url, url);
        }
      });
    }
  });

  group('log levels', () {
    final levels = _vectors('log-levels.json');
    for (final level in levels['levels'] as List) {
      test('${level['value']} (${level['name']}) is taken', () async {
        await ServicePlugin.configure(apiKey: 'sdk_key', logLevel: level['value'] as int);
        expect((calls.single.arguments as Map)['logLevel'], level['value']);
      });
    }
    for (final invalid in levels['invalid'] as List) {
      test('$invalid throws before anything is sent', () async {
        await expectLater(
          ServicePlugin.configure(apiKey: 'sdk_key', logLevel: invalid as int),
          throwsArgumentError,
        );
        expect(calls, isEmpty);
      });
    }
    test('the default is ${(levels['default'] as Map)['flutter']}', () async {
      await ServicePlugin.configure(apiKey: 'sdk_key');
      expect((calls.single.arguments as Map)['logLevel'], (levels['default'] as Map)['flutter']);
    });
  });
}
