// The plugin in a small app: configure early in main, the listeners subscribed before the
// first frame, and the attribution, deep links and errors on screen as they come.
import 'dart:async';

import 'package:flutter/material.dart';
import 'package:service_attribution/service_attribution.dart';

Future<void> main() async {
  WidgetsFlutterBinding.ensureInitialized();
  // The service's address is in AndroidManifest.xml and Info.plist (README.md); the key is the
  // app's SDK key from the dashboard's Keys page.
  await ServicePlugin.configure(apiKey: const String.fromEnvironment('SDK_KEY', defaultValue: '<SDK key>'));
  runApp(const ExampleApp());
}

class ExampleApp extends StatelessWidget {
  const ExampleApp({super.key});

  @override
  Widget build(BuildContext context) {
    return MaterialApp(
      title: 'Attribution example',
      theme: ThemeData(colorSchemeSeed: Colors.indigo),
      home: const ExamplePage(),
    );
  }
}

class ExamplePage extends StatefulWidget {
  const ExamplePage({super.key});

  @override
  State<ExamplePage> createState() => _ExamplePageState();
}

class _ExamplePageState extends State<ExamplePage> {
  final List<StreamSubscription<Object?>> _subscriptions = [];
  String? _serviceId;
  Map<String, dynamic>? _attribution;
  ServiceDeepLink? _deepLink;
  final List<String> _log = [];
  bool _stopped = false;

  @override
  void initState() {
    super.initState();
    _subscriptions
      ..add(ServicePlugin.onAttribution.listen((attribution) {
        setState(() => _attribution = attribution);
      }))
      // The deferred link (once per install) and each direct one: route from here.
      ..add(ServicePlugin.onDeepLink.listen((link) {
        setState(() => _deepLink = link);
      }))
      ..add(ServicePlugin.onError.listen((error) {
        _note(switch (error.kind) {
          ServiceErrorKind.configuration => 'Configuration: HTTP ${error.code}. ${error.message}',
          ServiceErrorKind.eventsDropped => '${error.count} events dropped: ${error.reason?.wire}',
          ServiceErrorKind.conversionValue => 'Conversion value: ${error.message}',
        });
      }));
    unawaited(_load());
  }

  Future<void> _load() async {
    final serviceId = await ServicePlugin.getServiceId();
    final stopped = await ServicePlugin.isStopped();
    if (!mounted) return;
    setState(() {
      _serviceId = serviceId;
      _stopped = stopped;
    });
  }

  void _note(String line) {
    if (!mounted) return;
    setState(() => _log.insert(0, line));
  }

  Future<void> _send(EventType type, {String? name, Map<String, dynamic>? parameters}) async {
    final taken = await ServicePlugin.sendEvent(eventType: type, eventName: name, parameters: parameters);
    // False also where the native side failed or this platform has none, a warning in the log
    // saying so.
    _note(taken
        ? 'Sent ${type.name}${name == null ? '' : ' ($name)'}'
        : 'Not taken: the SDK is off or stopped, or not on this platform (see the log)');
  }

  Future<void> _setStopped(bool stopped) async {
    if (stopped) {
      await ServicePlugin.stop();
    } else {
      await ServicePlugin.start();
    }
    // The page may have gone while the native side answered.
    if (!mounted) return;
    setState(() => _stopped = stopped);
  }

  @override
  void dispose() {
    for (final subscription in _subscriptions) {
      unawaited(subscription.cancel());
    }
    super.dispose();
  }

  @override
  Widget build(BuildContext context) {
    final link = _deepLink;
    return Scaffold(
      appBar: AppBar(title: const Text('Attribution example')),
      body: ListView(
        padding: const EdgeInsets.all(16),
        children: [
          ListTile(title: const Text('Install (service_id)'), subtitle: Text(_serviceId ?? '…')),
          ListTile(
            title: const Text('Attribution'),
            subtitle: Text(_attribution == null
                ? 'Not resolved yet'
                : '${_attribution!['service_match_status']}, '
                    'media source ${_attribution!['media_source'] ?? 'none'}, '
                    'campaign ${_attribution!['campaign_name'] ?? _attribution!['campaign_id'] ?? 'none'}'),
          ),
          ListTile(
            title: const Text('Deep link'),
            subtitle: Text(link == null ? 'None yet' : '${link.kind.wire}: ${link.path ?? '(no path)'} ${link.params}'),
          ),
          SwitchListTile(
            title: const Text('Stopped (the user opted out)'),
            value: _stopped,
            onChanged: _setStopped,
          ),
          Wrap(
            spacing: 8,
            children: [
              FilledButton(
                onPressed: () => _send(EventType.levelComplete, parameters: {'level': 7}),
                child: const Text('Level complete'),
              ),
              FilledButton(
                onPressed: () => _send(EventType.purchase, parameters: {'revenue': 9.99, 'currency': 'EUR'}),
                child: const Text('Purchase 9.99 EUR'),
              ),
              OutlinedButton(
                onPressed: () => _send(EventType.custom, name: 'boss_defeated'),
                child: const Text('Custom event'),
              ),
            ],
          ),
          const Divider(),
          for (final line in _log) Text(line),
        ],
      ),
    );
  }
}
