import 'dart:typed_data';

/// An event's parameters as the native SDK takes them, or an [ArgumentError] before anything
/// is sent.
///
/// Strings, finite numbers, booleans, lists and string-keyed maps go as they are. A null value
/// leaves out its own key (nulls inside a list are kept). A value the native SDK cannot write
/// as JSON (a NaN or infinite number, a typed-data list) loses only its own key; in a list, the
/// list's key, as the native SDKs keep it; so does a map or list nested past the service's five
/// levels (the parameters being the first), one that holds itself included. Each key so left
/// out is told to [leftOut], for a warning. Anything else (a `DateTime`, a `Uri`, a `Set`, an
/// app's own object, a map with keys that are not strings) is the caller's to convert, to an
/// ISO 8601 string say, and throws. Null when nothing is left to send.
Map<String, Object?>? checkedParameters(
  Map<String, dynamic>? parameters, {
  void Function(String path)? leftOut,
}) {
  if (parameters == null) return null;
  final cleaned = _map(parameters, 'parameters', 1, leftOut ?? (_) {});
  return cleaned.isEmpty ? null : cleaned;
}

/// The service's bound on nesting, the parameters themselves being level 1: the native SDKs'.
const int _maxDepth = 5;

/// A value left out: not an error, but nothing to send in its place.
const Object _leftOut = Object();

/// A map of [level]; the maps and lists it holds are of the next.
Map<String, Object?> _map(
  Map<Object?, Object?> map,
  String path,
  int level,
  void Function(String path) leftOut,
) {
  final cleaned = <String, Object?>{};
  for (final entry in map.entries) {
    final key = entry.key;
    if (key is! String) {
      throw ArgumentError.value(map, path, 'must be a map with string keys');
    }
    final value = _value(entry.value, '$path[$key]', level, leftOut, inList: false);
    if (!identical(value, _leftOut)) {
      cleaned[key] = value;
    } else if (entry.value != null) {
      leftOut('$path[$key]');
    }
  }
  return cleaned;
}

/// A value held by a map or list of [level].
Object? _value(
  Object? value,
  String path,
  int level,
  void Function(String path) leftOut, {
  required bool inList,
}) {
  if (value == null) return inList ? null : _leftOut;
  if (value is String || value is bool || value is int) return value;
  if (value is double) return value.isFinite ? value : _leftOut;
  // Checked before List: a typed-data list is a List too, which no JSON writer takes as such.
  if (value is TypedData) return _leftOut;
  if (value is List) {
    // Past the bound: left out before it is walked, so a list that holds itself ends here.
    if (level >= _maxDepth) return _leftOut;
    final cleaned = <Object?>[];
    var leftOutItem = false;
    // Every item is checked, after one that leaves the list out too: an unsupported value
    // throws wherever it stands in the list.
    for (var i = 0; i < value.length; i++) {
      final item = _value(value[i], '$path[$i]', level + 1, leftOut, inList: true);
      if (identical(item, _leftOut)) leftOutItem = true;
      cleaned.add(item);
    }
    // A list loses nothing but whole: dropping one item would shift the others' places.
    return leftOutItem ? _leftOut : cleaned;
  }
  if (value is Map) {
    if (level >= _maxDepth) return _leftOut;
    return _map(value, path, level + 1, leftOut);
  }
  throw ArgumentError.value(
    value,
    path,
    'must be a string, a finite number, a boolean, a list or a string-keyed map; '
        'convert a ${value.runtimeType} first (a DateTime to an ISO 8601 string, say)',
  );
}
