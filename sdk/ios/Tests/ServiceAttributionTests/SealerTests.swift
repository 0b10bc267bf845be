import CryptoKit
import Foundation
import XCTest
@testable import ServiceAttribution

/// spec/encryption-test-vectors.json: with the vector's ephemeral key and nonce the SDK makes
/// the vector's envelope byte for byte, and every step on the way; a random seal opens as the
/// service opens it.
final class SealerTests: XCTestCase {
    func testEveryEncryptionVector() throws {
        let vectors = try Vectors.encryption()
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let cases = try XCTUnwrap(vectors["vectors"] as? [[String: Any]])
        XCTAssertFalse(cases.isEmpty)
        for vector in cases {
            let name = vector["name"] as? String ?? "?"
            func bytes(_ key: String) throws -> Data {
                return try XCTUnwrap(Data(hex: try XCTUnwrap(vector[key] as? String, "\(name): \(key)")), "\(name): \(key)")
            }
            let ephemeral = try P256.KeyAgreement.PrivateKey(rawRepresentation: try bytes("ephemeralPrivateKeyHex"))
            let plaintext = try bytes("plaintextHex")
            let nonce = try bytes("nonceHex")
            let steps = try sealer.steps(plaintext, ephemeral: ephemeral, nonce: nonce)
            XCTAssertEqual(steps.ephemeralPublicKey.hex, try bytes("ephemeralPublicKeyHex").hex, name)
            XCTAssertEqual(steps.sharedSecret.hex, try bytes("sharedSecretHex").hex, name)
            XCTAssertEqual(steps.derivedKey.hex, try bytes("derivedKeyHex").hex, name)
            XCTAssertEqual(steps.ciphertext.hex, try bytes("ciphertextHex").hex, name)
            XCTAssertEqual(steps.tag.hex, try bytes("tagHex").hex, name)
            XCTAssertEqual(try sealer.seal(plaintext, ephemeral: ephemeral, nonce: nonce), vector["envelope"] as? String, name)
            XCTAssertEqual(vector["hkdfInfo"] as? String, Sealer.infoPrefix + recipient.keyId, name)
            XCTAssertEqual(vector["aad"] as? String, "sv1.\(recipient.keyId)", name)
        }
    }

    func testARandomSealOpensToItsValueAndNeverRepeats() throws {
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let value = JSONValue.object(["sku": .string("gem-pack"), "n": .int(2), "ok": .bool(true)])
        let first = try sealer.seal(Data(value.text.utf8))
        let second = try sealer.seal(Data(value.text.utf8))
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(JSONMatch.open(first, with: recipient.privateKey), value)
        XCTAssertEqual(JSONMatch.open(second, with: recipient.privateKey), value)
        let parts = first.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 5)
        XCTAssertEqual(Base64URL.decode(parts[2])?.count, 65)
        XCTAssertEqual(Base64URL.decode(parts[3])?.count, 12)
        XCTAssertFalse(first.contains("="))
    }

    func testAnEnvelopeMovedUnderAnotherKeyIdDoesNotOpen() throws {
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let envelope = try sealer.seal(Data("\"x\"".utf8))
        let moved = envelope.replacingOccurrences(of: ".\(recipient.keyId).", with: ".kother.")
        XCTAssertNil(JSONMatch.open(moved, with: recipient.privateKey))
    }

    func testBadKeysAreRefused() {
        XCTAssertThrowsError(try Sealer(keyId: "k1", publicKeySpki: "not-base64url!"))
        XCTAssertThrowsError(try Sealer(keyId: "bad key id", publicKeySpki: "MFkw"))
    }

    func testBase64URLHasNoPaddingAndRoundTrips() {
        for length in 0..<40 {
            let data = Data((0..<length).map { UInt8(($0 * 37) & 0xFF) })
            let text = Base64URL.encode(data)
            XCTAssertFalse(text.contains("=") || text.contains("+") || text.contains("/"))
            XCTAssertEqual(Base64URL.decode(text), data)
        }
    }

    func testHkdfRfc5869CaseOne() {
        // RFC 5869, appendix A.1.
        let ikm = Data(repeating: 0x0b, count: 22)
        let salt = Data(hex: "000102030405060708090a0b0c")!
        let info = Data(hex: "f0f1f2f3f4f5f6f7f8f9")!
        let okm = Sealer.hkdf(ikm: ikm, salt: salt, info: info, length: 42)
        XCTAssertEqual(okm.hex, "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }
}
