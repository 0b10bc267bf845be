import Foundation

/// A JSON value as the SDK sends and keeps it: what `sendEvent` was given once cleaned, the
/// request bodies, the queue on disk. Written by hand, rather than through JSONSerialization,
/// so the text is the same on every OS version: keys sorted, `/` not escaped, doubles in their
/// shortest round-trip form, integers without a fraction.
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The compact JSON text of the value.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    var objectValue: [String: JSONValue]? {
        if case let .object(value) = self { return value }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case let .array(value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// An integer value, also from a double without a fraction (`3.0` read back from JSON).
    var int64Value: Int64? {
        switch self {
        case let .int(value):
            return value
        case let .double(value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.0e18 else { return nil }
            return Int64(value)
        default:
            return nil
        }
    }

    /// The value as Foundation types (NSNull, Bool, Int64, Double, String, arrays, dictionaries),
    /// as a Flutter method channel or an app expects it.
    var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case let .bool(value): return value
        case let .int(value): return value
        case let .double(value): return value
        case let .string(value): return value
        case let .array(items): return items.map { $0.foundationValue }
        case let .object(members): return members.mapValues { $0.foundationValue }
        }
    }

    private func write(to out: inout String) {
        switch self {
        case .null:
            out += "null"
        case let .bool(value):
            out += value ? "true" : "false"
        case let .int(value):
            out += String(value)
        case let .double(value):
            out += JSONValue.number(value)
        case let .string(value):
            JSONValue.quote(value, into: &out)
        case let .array(items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                JSONValue.quote(key, into: &out)
                out += ":"
                members[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    /// A finite double as JSON: an integral one below 2^53 without its `.0`, as JavaScript
    /// writes it; any other in Swift's shortest form that reads back to the same double.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue {
    enum ParseError: Error {
        case notJSON
    }

    /// Parses JSON text (any value at the top, not only objects and arrays).
    static func parse(_ text: String) throws -> JSONValue {
        return try parse(Data(text.utf8))
    }

    static func parse(_ data: Data) throws -> JSONValue {
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard let value = JSONValue(foundation: object) else { throw ParseError.notJSON }
        return value
    }

    /// A value JSONSerialization produced (or a Flutter channel delivered): strictly the JSON
    /// types, nil for anything else.
    init?(foundation value: Any) {
        if value is NSNull {
            self = .null
        } else if let text = value as? String {
            self = .string(text)
        } else if let number = value as? NSNumber {
            guard let converted = JSONValue.from(number) else { return nil }
            self = converted
        } else if let items = value as? [Any] {
            var converted: [JSONValue] = []
            converted.reserveCapacity(items.count)
            for item in items {
                guard let value = JSONValue(foundation: item) else { return nil }
                converted.append(value)
            }
            self = .array(converted)
        } else if let members = value as? [String: Any] {
            var converted: [String: JSONValue] = [:]
            for (key, member) in members {
                guard let value = JSONValue(foundation: member) else { return nil }
                converted[key] = value
            }
            self = .object(converted)
        } else {
            return nil
        }
    }

    /// A boolean, an integer or a finite double; nil for NaN and the infinities. A number keeps
    /// the decimal form it was given in: a Float (`f`) goes as the decimal it prints as, so
    /// `Float(9.99)` is 9.99 and not the 9.989999771118164 its widening to Double gives; an
    /// NSDecimalNumber (a `Decimal`, StoreKit 2's `Product.price`) as the Double of its decimal
    /// text, not of `doubleValue`, which may be off in the last place. A boolean (CFBoolean) is
    /// told apart first: `true` never goes as 1.
    static func from(_ number: NSNumber) -> JSONValue? {
        if CFGetTypeID(number) == CFBooleanGetTypeID() {
            return .bool(number.boolValue)
        }
        if let decimal = number as? NSDecimalNumber {
            return finite(Double(decimal.stringValue))
        }
        let type = String(cString: number.objCType)
        if type == "f" {
            return from(float: number.floatValue)
        }
        if CFNumberIsFloatType(number as CFNumber) {
            return finite(number.doubleValue)
        }
        // An unsigned 64-bit value above Int64.max has no Int64 form: kept as a double.
        if type == "Q", number.uint64Value > UInt64(Int64.max) {
            return .double(number.doubleValue)
        }
        return .int(number.int64Value)
    }

    /// A Float as the decimal it prints as (its shortest text that reads back to it), read as
    /// a Double: 9.99 for `Float(9.99)`. Nil for NaN and the infinities.
    static func from(float value: Float) -> JSONValue? {
        return finite(Double("\(value)"))
    }

    /// A Decimal as the Double of its decimal text (`NSDecimalNumber.stringValue`, which has no
    /// locale): 9.99 for `Decimal(string: "9.99")`. Nil for NaN.
    static func from(decimal value: Decimal) -> JSONValue? {
        return finite(Double(NSDecimalNumber(decimal: value).stringValue))
    }

    private static func finite(_ value: Double?) -> JSONValue? {
        guard let value = value, value.isFinite else { return nil }
        return .double(value)
    }
}
