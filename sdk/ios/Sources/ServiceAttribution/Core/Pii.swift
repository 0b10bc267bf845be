import CryptoKit
import Foundation

/// How an event's parameters are protected before they leave the device.
///
/// - The matching parameters (`email`, `name`, `phone_number`, `date_of_birth`, `gender`, top
///   level only; sdk/conformance/pii.json) never leave in clear: each is normalised as the
///   service normalises a clear one, so a hash made here equals the service's and an ad
///   network's, then sealed to the app's key when remote configuration turns sealing on and the
///   key is not one of its clear keys, else hashed as `sha256:<hex>`. A value that is not a
///   string or a number, is no date, or is empty once normalised is dropped. The encryption is
///   always a configuration's of the service's: one whose key cannot seal is refused whole
///   (``RemoteConfig/parse(_:)``), and events wait on the device until one is applied, so a
///   value sealing is asked for is sealed, never hashed or sent in clear for want of a key.
/// - Under Flutter, whose plugin asks custom values sealed, every other top-level value is
///   sealed too when sealing is on, but those of the configuration's clear keys (`revenue`,
///   `currency`, the campaign fields), which the service needs in clear. Each plain value is
///   sealed on its own, at any depth of a map or list (sdk/conformance/pii.json's
///   `customValues`, as the Android SDK does): the service opens each leaf, a value keeps its
///   shape whichever platform sent it, and the service's 1,000 characters bound each leaf's
///   envelope rather than the whole value's, so a large map is not lost for its size alone.
struct Protector {
    static let piiKeys = ["email", "name", "phone_number", "date_of_birth", "gender"]
    static let hashMarker = "sha256:"
    /// The longest string value the service takes; a sealed value counts as sent.
    static let maxStringLength = 1_000

    /// Seals the UTF-8 of a JSON text; nil when it cannot (the value is then hashed or dropped).
    let sealer: (String) -> String?
    /// Whether values other than the matching parameters are sealed too (rule 4, Flutter).
    let sealsCustomValues: Bool

    struct Protected {
        let parameters: [String: JSONValue]
        /// Keys left out, for the log.
        let dropped: [String]
    }

    func protect(_ parameters: [String: JSONValue], encryption: Encryption) -> Protected {
        var out = parameters
        var dropped: [String] = []
        var clearKeys = Set<String>()
        var sealing = false
        if case let .on(_, _, keys) = encryption {
            sealing = true
            clearKeys = keys
        }
        for key in parameters.keys.sorted() {
            guard let value = parameters[key] else { continue }
            if Protector.piiKeys.contains(key) {
                if let protected = protectPii(key, value, seal: sealing && !clearKeys.contains(key)) {
                    out[key] = .string(protected)
                } else {
                    out[key] = nil
                    dropped.append(key)
                }
            } else if sealsCustomValues && sealing && !clearKeys.contains(key) {
                if let sealed = sealLeaves(value) {
                    out[key] = sealed
                } else {
                    // Never sent in clear once sealing is asked for: a leaf too long to seal
                    // costs its whole key.
                    out[key] = nil
                    dropped.append(key)
                }
            }
        }
        return Protected(parameters: out, dropped: dropped)
    }

    /// `value` with each string, number and boolean in it sealed on its own, its maps and lists
    /// kept around them and its nulls as they are; nil when a leaf cannot be sealed within the
    /// service's string limit.
    func sealLeaves(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .null:
            return .null
        case let .object(members):
            var out: [String: JSONValue] = [:]
            for (key, member) in members {
                guard let sealed = sealLeaves(member) else { return nil }
                out[key] = sealed
            }
            return .object(out)
        case let .array(items):
            var out: [JSONValue] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let sealed = sealLeaves(item) else { return nil }
                out.append(sealed)
            }
            return .array(out)
        case .bool, .int, .double, .string:
            guard let sealed = sealer(value.text), sealed.utf16.count <= Protector.maxStringLength else { return nil }
            return .string(sealed)
        }
    }

    private func protectPii(_ key: String, _ raw: JSONValue, seal: Bool) -> String? {
        let value: String
        switch raw {
        case let .string(text): value = text
        case let .int(number): value = String(number)
        case let .double(number): value = JSONValue.number(number)
        default: return nil
        }
        if let hex = Protector.preHashed(value) { return Protector.hashMarker + hex.lowercased() }
        guard let normalised = Protector.normalise(key, value), !normalised.isEmpty else { return nil }
        if seal, let sealed = sealer(JSONValue.string(normalised).text) { return sealed }
        return Protector.sha256Marked(normalised)
    }

    /// A 64-hex-digit value, bare or after `sha256:`: a hash the app made. Its hex digits.
    static func preHashed(_ value: String) -> String? {
        let hex = value.hasPrefix(hashMarker) ? String(value.dropFirst(hashMarker.count)) : value
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ isHexDigit($0) }) else { return nil }
        return hex
    }

    /// The service's normalisation (src/ingest/pii.ts); nil for a value that is no date.
    static func normalise(_ key: String, _ value: String) -> String? {
        switch key {
        case "email":
            return trim(value).lowercasedAsService
        case "phone_number":
            let digits = String(value.unicodeScalars.filter { $0.value >= 0x30 && $0.value <= 0x39 }.map(Character.init))
            return String(digits.drop(while: { $0 == "0" }))
        case "name":
            return trim(value).precomposedStringWithCanonicalMapping.lowercasedAsService
        case "date_of_birth":
            return dateOfBirth(value)
        case "gender":
            let lower = trim(value).lowercasedAsService
            switch lower {
            case "m", "male": return "m"
            case "f", "female": return "f"
            default: return lower
            }
        default:
            return value
        }
    }

    private static let datePattern = try! NSRegularExpression(
        pattern: "^([0-9]{4})[-/.]?([0-9]{2})[-/.]?([0-9]{2})(?:T.*)?$"
    )

    /// `yyyymmdd` of a calendar date written `1990-01-31`, `1990/01/31`, `19900131` or as an ISO
    /// date-time; nil for anything else, such as 31 February.
    private static func dateOfBirth(_ value: String) -> String? {
        let text = trim(value)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        guard let match = datePattern.firstMatch(in: text, options: [], range: range) else { return nil }
        var parts: [String] = []
        for index in 1...3 {
            guard let part = Range(match.range(at: index), in: text) else { return nil }
            parts.append(String(text[part]))
        }
        guard let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        // A year before 100 is none of the service's dates.
        guard year >= 100, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return parts.joined()
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    private static func trim(_ value: String) -> String {
        return value.trimmedAsService
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    static func sha256Marked(_ value: String) -> String {
        let digest = SHA256.hash(data: Data(value.utf8))
        return hashMarker + digest.map { String(format: "%02x", $0) }.joined()
    }
}
