import 'dart:convert';

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
  // Split by hand rather than read from `url.pathSegments`, which decodes each segment as
  // strict UTF-8 and throws for a byte that is none (`/caf%E9`, from a Latin-1 system).
  final segments = url.path.split('/').where((segment) => segment.isNotEmpty).toList();
  return ServiceLinkResult._(
    deeplinkId: segments.length == 1 ? _decode(segments.single, plusIsSpace: false) : null,
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
    params[_decode(name, plusIsSpace: true)] = _decode(value, plusIsSpace: true);
  }
  return params;
}

/// Percent-decoding as UTF-8 (`+` as a space in a query, [plusIsSpace]), as the native SDKs
/// decode: each value once, a byte that is no UTF-8 as U+FFFD and the rest still decoded,
/// where `Uri.decodeQueryComponent` throws for the whole value. A `%` not followed by two hex
/// digits (a `Uri` built from parts may hold one) is kept as written.
String _decode(String text, {required bool plusIsSpace}) {
  if (!text.contains('%') && !(plusIsSpace && text.contains('+'))) return text;
  final bytes = <int>[];
  var i = 0;
  while (i < text.length) {
    final char = text.codeUnitAt(i);
    if (char == 0x25 && i + 2 < text.length) {
      final high = _hexDigit(text.codeUnitAt(i + 1));
      final low = _hexDigit(text.codeUnitAt(i + 2));
      if (high >= 0 && low >= 0) {
        bytes.add(high * 16 + low);
        i += 3;
        continue;
      }
    }
    if (char == 0x2B && plusIsSpace) {
      bytes.add(0x20);
      i++;
      continue;
    }
    // Any other character as its UTF-8 bytes, a surrogate pair as the one character it is.
    final end = (char & 0xFC00) == 0xD800 && i + 1 < text.length ? i + 2 : i + 1;
    bytes.addAll(utf8.encode(text.substring(i, end)));
    i = end;
  }
  return utf8.decode(bytes, allowMalformed: true);
}

/// The value of an ASCII hex digit, or -1.
int _hexDigit(int char) {
  if (char >= 0x30 && char <= 0x39) return char - 0x30;
  if (char >= 0x41 && char <= 0x46) return char - 0x41 + 10;
  if (char >= 0x61 && char <= 0x66) return char - 0x61 + 10;
  return -1;
}
