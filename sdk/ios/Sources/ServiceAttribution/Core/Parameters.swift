import Foundation

/// The native parameter rules (sdk/conformance/parameters.json, as the Kotlin SDK keeps them):
/// strings, finite numbers, booleans, arrays, sets (as lists) and string-keyed dictionaries are
/// sent; a nil or NSNull value drops its key (nulls inside lists stay). sendEvent may run before
/// configure, on any thread, so a value JSON cannot hold never throws: it loses the nearest
/// dictionary key holding it, with a warning, as the spec describes for the native SDKs under
/// Flutter (rule 3). Values from a Flutter method channel (NSNumber, NSString, NSArray,
/// NSDictionary, NSNull, FlutterStandardTypedData) follow the same rules.
enum Parameters {
    struct Cleaned {
        let parameters: [String: JSONValue]
        /// Paths of the keys left out (`m.d` for key `d` of map `m`).
        let dropped: [String]
    }

    private enum Outcome {
        case keep(JSONValue)
        case drop
    }

    /// The service's bound on nesting, the parameters themselves being level 1
    /// (src/ingest/limits.ts, maxParameterDepth): deeper would be refused there, and an
    /// NSMutableArray or NSMutableDictionary that holds itself would otherwise recurse until
    /// the stack overflows in the app's call.
    static let maxDepth = 5

    static func clean(_ raw: [String: Any]?) -> Cleaned {
        guard let raw = raw else { return Cleaned(parameters: [:], dropped: []) }
        var dropped: [String] = []
        let parameters = map(raw, path: "", dropped: &dropped, level: 1)
        return Cleaned(parameters: parameters, dropped: dropped.sorted())
    }

    private static func map(_ raw: [String: Any], path: String, dropped: inout [String], level: Int) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for key in raw.keys.sorted() {
            guard let member = raw[key] else { continue }
            switch value(member, path: path + key, dropped: &dropped, level: level) {
            case .keep(.null):
                continue
            case let .keep(cleaned):
                out[key] = cleaned
            case .drop:
                dropped.append(path + key)
            }
        }
        return out
    }

    /// A value held by a map or list of `level`: a map or list in it is of the next level, and
    /// past the bound is dropped.
    private static func value(_ raw: Any, path: String, dropped: inout [String], level: Int) -> Outcome {
        guard let value = unwrapped(raw) else { return .keep(.null) }
        if value is NSNull { return .keep(.null) }
        if let text = value as? String { return .keep(.string(text)) }
        if let text = value as? Substring { return .keep(.string(String(text))) }
        // Before NSNumber: Data, Date and URL never bridge to it, but a number must not be
        // mistaken for anything else either.
        if value is Data || value is Date || value is URL || value is NSData || value is NSDate || value is NSURL {
            return .drop
        }
        // A Swift Float or Decimal as the app gave it, before it bridges to NSNumber: its
        // decimal form, not its binary one (`Float(9.99)` is 9.99; a `Decimal` price, its
        // digits). Told by the value's own type: `as? Float` also takes an NSNumber that
        // happens to fit, a boolean included.
        if type(of: value) == Float.self, let float = value as? Float {
            guard let converted = JSONValue.from(float: float) else { return .drop }
            return .keep(converted)
        }
        if type(of: value) == Decimal.self, let decimal = value as? Decimal {
            guard let converted = JSONValue.from(decimal: decimal) else { return .drop }
            return .keep(converted)
        }
        if let number = value as? NSNumber {
            guard let converted = JSONValue.from(number) else { return .drop }
            return .keep(converted)
        }
        if let members = value as? [String: Any] {
            if level >= maxDepth { return .drop }
            return .keep(.object(map(members, path: path + ".", dropped: &dropped, level: level + 1)))
        }
        if value is [AnyHashable: Any] || value is NSDictionary {
            // Some key is not a string: JSON has no such map.
            return .drop
        }
        if let items = value as? [Any] {
            return list(items, path: path, dropped: &dropped, level: level)
        }
        if let ordered = value as? NSOrderedSet {
            return list(ordered.array, path: path, dropped: &dropped, level: level)
        }
        if let set = value as? NSSet {
            // A set has no order: its members go out sorted, so the same set gives the same list.
            let items = set.allObjects.sorted { String(describing: $0) < String(describing: $1) }
            return list(items, path: path, dropped: &dropped, level: level)
        }
        return .drop
    }

    /// A list loses nothing but whole: dropping one item would shift the others' places.
    private static func list(_ items: [Any], path: String, dropped: inout [String], level: Int) -> Outcome {
        if level >= maxDepth { return .drop }
        var out: [JSONValue] = []
        out.reserveCapacity(items.count)
        for item in items {
            switch value(item, path: path, dropped: &dropped, level: level + 1) {
            case let .keep(cleaned):
                out.append(cleaned)
            case .drop:
                return .drop
            }
        }
        return .keep(.array(out))
    }

    /// The value inside an Optional stored as `Any` (`["a": nil as String?]`), nil for none.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let first = mirror.children.first else { return nil }
        return unwrapped(first.value)
    }
}
