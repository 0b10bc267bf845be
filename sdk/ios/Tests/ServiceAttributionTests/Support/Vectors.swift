import CryptoKit
import Foundation
import XCTest
@testable import ServiceAttribution

/// The shared vectors, read where they live in the repository: `sdk/conformance/*.json` and
/// `spec/encryption-test-vectors.json`, found from this file's own path. The iOS SDK has no
/// platform of its own in them: it runs the cases of the native rules, those naming `kotlin`
/// (parameters, links, matching parameters, event requests), and the install cases of an iOS
/// device.
enum Vectors {
    /// `sdk/`: this file is `sdk/ios/Tests/ServiceAttributionTests/Support/Vectors.swift`.
    static let sdkDirectory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url
    }()

    static let repositoryRoot = sdkDirectory.deletingLastPathComponent()

    static func conformance(_ file: String) throws -> [String: Any] {
        return try load(sdkDirectory.appendingPathComponent("conformance").appendingPathComponent(file))
    }

    static func encryption() throws -> [String: Any] {
        return try load(repositoryRoot.appendingPathComponent("spec").appendingPathComponent("encryption-test-vectors.json"))
    }

    private static func load(_ url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        guard let object = try JSONSerialization.jsonObject(with: data, options: []) as? [String: Any] else {
            throw NSError(domain: "Vectors", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(url.path) is not a JSON object"])
        }
        return object
    }

    /// The recipient of the encryption vectors: the published test key pair.
    static func recipient() throws -> (keyId: String, publicKeySpki: String, privateKey: P256.KeyAgreement.PrivateKey) {
        let recipient = try XCTUnwrap(try encryption()["recipient"] as? [String: Any])
        let keyId = try XCTUnwrap(recipient["keyId"] as? String)
        let spki = try XCTUnwrap(recipient["publicKeySpki"] as? String)
        let scalar = try XCTUnwrap(Data(hex: try XCTUnwrap(recipient["privateKeyHex"] as? String)))
        return (keyId, spki, try P256.KeyAgreement.PrivateKey(rawRepresentation: scalar))
    }

    /// A vector's value as Swift gives it to sendEvent: `{"$special": kind}` becomes the native
    /// value it stands for, JSON null NSNull.
    static func native(_ value: Any) -> Any {
        if let members = value as? [String: Any] {
            if members.count == 1, let kind = members["$special"] as? String { return special(kind) }
            return members.mapValues { native($0) }
        }
        if let items = value as? [Any] { return items.map { native($0) } }
        return value
    }

    private static func special(_ kind: String) -> Any {
        switch kind {
        case "nan": return Double.nan
        case "infinity": return Double.infinity
        case "negativeInfinity": return -Double.infinity
        case "dateTime": return Date(timeIntervalSince1970: 1_789_552_700)
        case "uri": return URL(string: "https://example.com/a")!
        case "set": return Set(["a", "b"])
        case "bytes": return Data([1, 2])
        case "object": return AppObject()
        case "intKeyedMap": return [1: "a"]
        default: return NSNull()
        }
    }

    /// An instance of an app's own class.
    final class AppObject {}
}

extension Data {
    init?(hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }

    var hex: String {
        return map { String(format: "%02x", $0) }.joined()
    }
}

/// Comparing JSON as the vectors say: equal as JSON values, key order and number formatting
/// aside; a field expected null may be null or absent; placeholders by their format.
enum JSONMatch {
    static let idPattern = try! NSRegularExpression(pattern: "^[A-Za-z0-9._:-]{1,128}$")
    static let timePattern = try! NSRegularExpression(pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$")

    /// The differences between `actual` and the vector's `expected`, by path; empty when equal.
    /// `sealed` opens a `{"$sealed": v}` envelope to its value.
    static func differences(
        _ actual: JSONValue?,
        _ expected: Any,
        path: String = "$",
        sealed: ((String) -> JSONValue?)? = nil
    ) -> [String] {
        if expected is NSNull {
            if actual == nil || actual == .null { return [] }
            return ["\(path): \(actual!.text) instead of null"]
        }
        guard let actual = actual else { return ["\(path): missing"] }
        if let text = expected as? String, text.hasPrefix("{{"), text.hasSuffix("}}") {
            guard let value = actual.stringValue else { return ["\(path): \(actual.text) is no string"] }
            let pattern = text == "{{time}}" ? timePattern : idPattern
            return matches(pattern, value) ? [] : ["\(path): \(value) does not have the form of \(text)"]
        }
        if let members = expected as? [String: Any] {
            if members.count == 1, let inner = members["$sealed"] {
                guard let envelope = actual.stringValue, let opened = sealed?(envelope) else {
                    return ["\(path): \(actual.text) is no sealed value that opens"]
                }
                return differences(opened, inner, path: path + "(opened)")
            }
            guard let object = actual.objectValue else { return ["\(path): \(actual.text) is no object"] }
            var found: [String] = []
            for (key, value) in members {
                found += differences(object[key], value, path: "\(path).\(key)", sealed: sealed)
            }
            for key in object.keys where members[key] == nil && object[key] != .null {
                found.append("\(path).\(key): not expected")
            }
            return found
        }
        if let items = expected as? [Any] {
            guard let array = actual.arrayValue, array.count == items.count else {
                return ["\(path): \(actual.text) is not a list of \(items.count)"]
            }
            return zip(array, items).enumerated().flatMap { entry in
                differences(entry.element.0, entry.element.1, path: "\(path)[\(entry.offset)]", sealed: sealed)
            }
        }
        guard let wanted = JSONValue(foundation: expected) else { return ["\(path): the vector holds no JSON value"] }
        return same(actual, wanted) ? [] : ["\(path): \(actual.text) instead of \(wanted.text)"]
    }

    /// Equal as JSON values: 3 and 3.0 are one number.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.int(x), .double(y)), let (.double(y), .int(x)):
            return Double(x) == y
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0.0, $0.1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { entry in y[entry.key].map { same(entry.value, $0) } ?? false }
        default:
            return a == b
        }
    }

    static func matches(_ pattern: NSRegularExpression, _ value: String) -> Bool {
        return pattern.firstMatch(in: value, options: [], range: NSRange(value.startIndex..<value.endIndex, in: value)) != nil
    }

    /// Opens an envelope with the recipient's private key, as the service does
    /// (src/crypto/envelope.ts): the value, or nil when it does not open.
    static func open(_ envelope: String, with privateKey: P256.KeyAgreement.PrivateKey) -> JSONValue? {
        let parts = envelope.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "sv1",
              let e = Base64URL.decode(parts[2]), let nonce = Base64URL.decode(parts[3]),
              let body = Base64URL.decode(parts[4]), body.count > 16 else { return nil }
        do {
            let ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: e)
            let z = try privateKey.sharedSecretFromKeyAgreement(with: ephemeral).withUnsafeBytes { Data($0) }
            let key = Sealer.hkdf(ikm: z, salt: e, info: Data((Sealer.infoPrefix + parts[1]).utf8), length: 32)
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce),
                ciphertext: body.prefix(body.count - 16),
                tag: body.suffix(16)
            )
            let plaintext = try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: Data("sv1.\(parts[1])".utf8))
            return try JSONValue.parse(plaintext)
        } catch {
            return nil
        }
    }
}
