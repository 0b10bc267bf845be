import 'link_result.dart';

/// Where a [ServiceDeepLink] came from.
enum ServiceDeepLinkKind {
  /// A link that opened the app, handed to [ServicePlugin.handleDeepLink] or
  /// [ServicePlugin.handleUniversalLink]. The service records nothing for it.
  direct,

  /// The link that brought the install, from its attribution: delivered once per install.
  deferred,
}

/// The wire form of each kind, as the native SDKs send it.
extension ServiceDeepLinkKindWire on ServiceDeepLinkKind {
  String get wire => switch (this) {
        ServiceDeepLinkKind.direct => 'direct',
        ServiceDeepLinkKind.deferred => 'deferred',
      };
}

/// The kinds of [ServiceError].
enum ServiceErrorKind {
  /// The service refused the install with 401, 403 or 404 (a wrong address, a revoked or
  /// mistyped key), or refused its bare form with another 4xx. Reported once; the install is
  /// tried again at the next start. [ServiceError.code] is the HTTP status. Also the native
  /// SDK's refusal to start ([ServicePlugin.configure]), which switches it off: a key rejected
  /// on the remote configuration (code 401), or no code: no service address, no INTERNET
  /// permission, another Android process, an iOS app extension.
  configuration,

  /// Events were dropped: [ServiceError.reason] says why, [ServiceError.count] how many.
  eventsDropped,

  /// iOS only: Apple refused a conversion value update that the app's conversion value schema
  /// made (SKAdNetwork or AdAttributionKit answered an error); [ServiceError.message] says
  /// which and why. Later events and updates go on.
  conversionValue,
}

/// The wire form of each kind, as the native SDKs send it.
extension ServiceErrorKindWire on ServiceErrorKind {
  String get wire => switch (this) {
        ServiceErrorKind.configuration => 'configuration',
        ServiceErrorKind.eventsDropped => 'events_dropped',
        ServiceErrorKind.conversionValue => 'conversion_value',
      };
}

/// Why events were dropped: the only reasons the SDK drops an event it took.
enum ServiceDropReason {
  /// The queue held its bound (1000 events): the oldest went to make room.
  queueFull,

  /// The service refused this event for good.
  refused,

  /// Older than the service keeps (30 days by the device's clock when about to be sent).
  expired,

  /// The app called [ServicePlugin.stop]: what was queued went with it.
  stopped,

  /// Remote configuration switched the SDK off, or the key was rejected.
  disabled,

  /// The install's data was deleted ([ServicePlugin.deleteUserData]).
  deleted,
}

/// The wire form of each reason, as the native SDKs send it.
extension ServiceDropReasonWire on ServiceDropReason {
  String get wire => switch (this) {
        ServiceDropReason.queueFull => 'queue_full',
        ServiceDropReason.refused => 'refused',
        ServiceDropReason.expired => 'expired',
        ServiceDropReason.stopped => 'stopped',
        ServiceDropReason.disabled => 'disabled',
        ServiceDropReason.deleted => 'deleted',
      };
}

/// The case of [values] whose wire form is [wire], or null for none (a newer native SDK's).
T? _fromWire<T>(List<T> values, String Function(T) wireOf, Object? wire) {
  for (final value in values) {
    if (wireOf(value) == wire) return value;
  }
  return null;
}

/// A deep link, delivered on [ServicePlugin.onDeepLink].
final class ServiceDeepLink {
  const ServiceDeepLink({
    required this.kind,
    required this.deeplinkId,
    required this.path,
    required this.params,
    required this.url,
  });

  /// [ServiceDeepLinkKind.direct] for a link that opened the app, [ServiceDeepLinkKind.deferred]
  /// for the one that brought the install.
  final ServiceDeepLinkKind kind;

  /// The service link's single path segment; null for a custom scheme's link, a link whose
  /// path has none or more than one, and a deferred deep link.
  final String? deeplinkId;

  /// The link's `deep_link_path`, where the app should go; null when it carries none or an
  /// empty one.
  final String? path;

  /// The link's parameters: a direct link's query parameters, a deferred link's custom
  /// parameters (every key of the attribution that is not the attribution route's own), with
  /// `deep_link_path` among them.
  final Map<String, String> params;

  /// The link as it was given; null for a deferred deep link.
  final Uri? url;

  /// The deep link a native SDK sent over the channel, or null when it is none this version
  /// knows.
  static ServiceDeepLink? fromChannel(Object? arguments) {
    if (arguments is! Map) return null;
    final kind = _fromWire(
      ServiceDeepLinkKind.values,
      (ServiceDeepLinkKind k) => k.wire,
      arguments['kind'],
    );
    if (kind == null) return null;
    final params = arguments['params'];
    final url = arguments['url'];
    return ServiceDeepLink(
      kind: kind,
      deeplinkId: arguments['deeplinkId'] as String?,
      path: arguments['path'] as String?,
      params: params is Map
          ? params.map((key, value) => MapEntry(key.toString(), value?.toString() ?? ''))
          : const <String, String>{},
      url: url is String ? Uri.tryParse(url) : null,
    );
  }

  @override
  bool operator ==(Object other) =>
      other is ServiceDeepLink &&
      other.kind == kind &&
      other.deeplinkId == deeplinkId &&
      other.path == path &&
      other.url == url &&
      other.params.length == params.length &&
      other.params.entries.every((e) => params[e.key] == e.value);

  @override
  int get hashCode => Object.hash(
        kind,
        deeplinkId,
        path,
        url,
        Object.hashAllUnordered(params.entries.map((e) => Object.hash(e.key, e.value))),
      );

  @override
  String toString() => 'ServiceDeepLink(kind: ${kind.wire}, deeplinkId: $deeplinkId, '
      'path: $path, params: $params, url: $url)';
}

/// The direct deep link of a URL that opened the app, parsed from the URL alone: an http or
/// https link as [ServicePlugin.handleUniversalLink] parses it (with its `deeplinkId`), a custom
/// scheme's link (`myapp://open?deep_link_path=…`, or `myapp:open?…` without `//`, which Android
/// delivers and the native SDKs take too) with its query parameters and no `deeplinkId`. Null
/// for a URL with no scheme, or an http or https URL with no host.
ServiceDeepLink? directDeepLink(Uri url) {
  if (!url.hasScheme) return null;
  final scheme = url.scheme.toLowerCase();
  if (scheme == 'http' || scheme == 'https') {
    final link = parseServiceLink(url, null);
    return link == null ? null : directDeepLinkOf(link);
  }
  final params = queryParamsOf(url.query);
  return ServiceDeepLink(
    kind: ServiceDeepLinkKind.direct,
    deeplinkId: null,
    path: _pathOf(params),
    params: params,
    url: url,
  );
}

/// The direct deep link of a parsed link of the service.
ServiceDeepLink directDeepLinkOf(ServiceLinkResult link) => ServiceDeepLink(
      kind: ServiceDeepLinkKind.direct,
      deeplinkId: link.deeplinkId,
      path: _pathOf(link.queryParams),
      params: link.queryParams,
      url: link.url,
    );

/// A direct link's `deep_link_path`, null when it has none or an empty one (`?deep_link_path=`):
/// an empty path is no place to go, as an empty one in the attribution gives no deferred deep
/// link, and the native SDKs give null for it too.
String? _pathOf(Map<String, String> params) {
  final path = params['deep_link_path'];
  return path == null || path.isEmpty ? null : path;
}

/// An error the SDK reports on [ServicePlugin.onError].
final class ServiceError {
  const ServiceError({
    required this.kind,
    this.reason,
    this.code,
    required this.count,
    required this.message,
  });

  /// What went wrong.
  final ServiceErrorKind kind;

  /// Why events were dropped, for [ServiceErrorKind.eventsDropped]; null otherwise.
  final ServiceDropReason? reason;

  /// The HTTP status the service answered, for [ServiceErrorKind.configuration]; null
  /// otherwise, and for a refusal to start that no answer of the service's made.
  final int? code;

  /// How many events were dropped (for the other kinds, 1: the one report).
  final int count;

  /// A sentence for the app's log.
  final String message;

  /// The error a native SDK sent over the channel, or null when it is none this version knows.
  static ServiceError? fromChannel(Object? arguments) {
    if (arguments is! Map) return null;
    final kind = _fromWire(
      ServiceErrorKind.values,
      (ServiceErrorKind k) => k.wire,
      arguments['kind'],
    );
    if (kind == null) return null;
    final code = arguments['code'];
    final count = arguments['count'];
    return ServiceError(
      kind: kind,
      reason: _fromWire(
        ServiceDropReason.values,
        (ServiceDropReason r) => r.wire,
        arguments['reason'],
      ),
      code: code is num ? code.toInt() : null,
      count: count is num ? count.toInt() : 1,
      message: arguments['message']?.toString() ?? '',
    );
  }

  @override
  bool operator ==(Object other) =>
      other is ServiceError &&
      other.kind == kind &&
      other.reason == reason &&
      other.code == code &&
      other.count == count &&
      other.message == message;

  @override
  int get hashCode => Object.hash(kind, reason, code, count, message);

  @override
  String toString() => 'ServiceError(kind: ${kind.wire}, reason: ${reason?.wire}, code: $code, '
      'count: $count, message: $message)';
}
