import CryptoKit
import Foundation

/// Seals a value to the app's public key exactly as the service opens it (src/crypto/envelope.ts,
/// spec/encryption-test-vectors.json): ephemeral-static ECDH on P-256, HKDF-SHA256 salted with
/// the ephemeral public key, AES-256-GCM, and the envelope `sv1.<keyId>.<E>.<N>.<C||T>` in
/// base64url without padding. CryptoKit only, present from iOS 13.
struct Sealer {
    static let version = "sv1"
    static let infoPrefix = "attribution-sealed-value/v1|"

    enum Failure: Error, Equatable {
        case badPublicKey
        case badKeyId
    }

    let keyId: String
    private let recipient: P256.KeyAgreement.PublicKey

    /// `publicKeySpki`: base64url (no padding) of the P-256 SubjectPublicKeyInfo DER, whose last
    /// 65 bytes are the uncompressed point, as GET /v1/config gives it.
    init(keyId: String, publicKeySpki: String) throws {
        guard Sealer.isKeyId(keyId) else { throw Failure.badKeyId }
        guard let spki = Base64URL.decode(publicKeySpki), spki.count >= 65 else { throw Failure.badPublicKey }
        let point = spki.suffix(65)
        guard point.first == 0x04 else { throw Failure.badPublicKey }
        do {
            recipient = try P256.KeyAgreement.PublicKey(x963Representation: point)
        } catch {
            throw Failure.badPublicKey
        }
        self.keyId = keyId
    }

    /// Seals `plaintext` (the UTF-8 of a value's JSON text) with a fresh ephemeral key and nonce.
    func seal(_ plaintext: Data) throws -> String {
        // CryptoKit's Nonce() is 12 bytes from the system's secure random generator.
        return try seal(plaintext, ephemeral: P256.KeyAgreement.PrivateKey(), nonce: Data(AES.GCM.Nonce()))
    }

    /// With a given ephemeral key and nonce: for the test vectors only. Reusing either in
    /// production would break the encryption.
    func seal(_ plaintext: Data, ephemeral: P256.KeyAgreement.PrivateKey, nonce: Data) throws -> String {
        let parts = try steps(plaintext, ephemeral: ephemeral, nonce: nonce)
        return [
            Sealer.version,
            keyId,
            Base64URL.encode(parts.ephemeralPublicKey),
            Base64URL.encode(nonce),
            Base64URL.encode(parts.ciphertext + parts.tag),
        ].joined(separator: ".")
    }

    /// Each step's output, for comparing with the vectors' intermediate values.
    struct Steps {
        let ephemeralPublicKey: Data
        let sharedSecret: Data
        let derivedKey: Data
        let ciphertext: Data
        let tag: Data
    }

    func steps(_ plaintext: Data, ephemeral: P256.KeyAgreement.PrivateKey, nonce: Data) throws -> Steps {
        // 0x04 || X || Y, 65 bytes.
        let e = ephemeral.publicKey.x963Representation
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
        let z = shared.withUnsafeBytes { Data($0) }
        let key = Sealer.hkdf(ikm: z, salt: e, info: Data((Sealer.infoPrefix + keyId).utf8), length: 32)
        let box = try AES.GCM.seal(
            plaintext,
            using: SymmetricKey(data: key),
            nonce: AES.GCM.Nonce(data: nonce),
            authenticating: Data("\(Sealer.version).\(keyId)".utf8)
        )
        return Steps(ephemeralPublicKey: e, sharedSecret: z, derivedKey: key, ciphertext: box.ciphertext, tag: box.tag)
    }

    /// RFC 5869 with HMAC-SHA256.
    static func hkdf(ikm: Data, salt: Data, info: Data, length: Int) -> Data {
        let prk = Data(HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt)))
        var output = Data()
        var block = Data()
        var counter: UInt8 = 1
        while output.count < length {
            var input = block
            input.append(info)
            input.append(counter)
            block = Data(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: prk)))
            output.append(block)
            counter += 1
        }
        return output.prefix(length)
    }

    /// 1 to 64 of A-Z a-z 0-9 _ -, as the service takes a key id.
    static func isKeyId(_ keyId: String) -> Bool {
        guard !keyId.isEmpty, keyId.utf8.count <= 64 else { return false }
        return keyId.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}

/// RFC 4648 section 5 base64url, without padding.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
