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

  test('handleUniversalLink needs no native call, so it works before configure', () async {
    final result = await ServicePlugin.handleUniversalLink(
      Uri.parse('https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7'),
    );
    expect(result?.deeplinkId, 'Kx3v9QpZ2aQ');
    expect(result?.queryParams, {'deep_link_path': '/levels/7'});
    expect(calls, isEmpty);
  });

  test('isSdkDisabled is true when the native side cannot say', () async {
    expect(await ServicePlugin.isSdkDisabled(), isTrue);
  });
}
