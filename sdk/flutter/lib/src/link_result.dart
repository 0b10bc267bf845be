/// A tapped Universal Link or App Link of the service, parsed from its URL alone.
final class ServiceLinkResult {
  const ServiceLinkResult._({
    required this.deeplinkId,
    required this.queryParams,
    required this.url,
  });

  /// The link's single path segment (`https://<link host>/<deeplinkId>`), or null when its
  /// path has none or more than one.
  final String? deeplinkId;

  /// Every query parameter of the URL, `deep_link_path` and the link's own ones included:
  /// percent-decoded, the last value of a repeated name winning, a missing value as `''`.
  final Map<String, String> queryParams;

  /// The URL as it was given.
  final Uri url;

  @override
  bool operator ==(Object other) =>
      other is ServiceLinkResult &&
      other.deeplinkId == deeplinkId &&
      other.url == url &&
      _sameMap(other.queryParams, queryParams);

  @override
  int get hashCode => Object.hash(
        deeplinkId,
        url,
        Object.hashAllUnordered(queryParams.entries.map((e) => Object.hash(e.key, e.value))),
      );

  @override
  String toString() =>
      'ServiceLinkResult(deeplinkId: $deeplinkId, queryParams: $queryParams, url: $url)';
}

bool _sameMap(Map<String, String> a, Map<String, String> b) =>
    a.length == b.length && a.entries.every((e) => b[e.key] == e.value);

/// Parses [url] as a link of the service, or gives null when it is none (not an absolute
/// http or https URL with a host) or its host is not one of [allowedHosts] (null accepts
/// every host). Throws an [ArgumentError] when [allowedHosts] names a blank host, which is
/// always a mistake in the app's setup.
ServiceLinkResult? parseServiceLink(Uri url, Set<String>? allowedHosts) {
  final allowed = allowedHosts?.map((host) {
    if (host.trim().isEmpty) {
      throw ArgumentError.value(allowedHosts, 'allowedHosts', 'must not hold a blank host');
    }
    return host.trim().toLowerCase();
  }).toSet();
  final scheme = url.scheme.toLowerCase();
  if ((scheme != 'http' && scheme != 'https') || url.host.isEmpty) return null;
  if (allowed != null && !allowed.contains(url.host.toLowerCase())) return null;
  final segments = url.pathSegments.where((segment) => segment.isNotEmpty).toList();
  return ServiceLinkResult._(
    deeplinkId: segments.length == 1 ? segments.single : null,
    queryParams: queryParamsOf(url.query),
    url: url,
  );
}

/// The query split by hand, to the rules every SDK shares (split at the first `=`, empty pairs
/// skipped, the last value winning), whatever `Uri.queryParameters` does at the edges.
Map<String, String> queryParamsOf(String query) {
  final params = <String, String>{};
  for (final pair in query.split('&')) {
    if (pair.isEmpty) continue;
    final equals = pair.indexOf('=');
    final name = equals < 0 ? pair : pair.substring(0, equals);
    final value = equals < 0 ? '' : pair.substring(equals + 1);
    params[_decode(name)] = _decode(value);
  }
  return params;
}

/// Percent-decoding as UTF-8 with `+` as a space. A `Uri` built from parts may hold a
/// malformed escape that `Uri.parse` would have refused: it is kept as written.
String _decode(String text) {
  try {
    return Uri.decodeQueryComponent(text);
  } on ArgumentError {
    return text;
  } on FormatException {
    return text;
  }
}
