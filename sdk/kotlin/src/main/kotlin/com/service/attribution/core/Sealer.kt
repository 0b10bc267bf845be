package com.service.attribution.core

import java.math.BigInteger
import java.security.AlgorithmParameters
import java.security.KeyFactory
import java.security.KeyPair
import java.security.KeyPairGenerator
import java.security.PublicKey
import java.security.SecureRandom
import java.security.interfaces.ECPublicKey
import java.security.spec.ECGenParameterSpec
import java.security.spec.ECParameterSpec
import java.security.spec.ECPoint
import java.security.spec.ECPrivateKeySpec
import java.security.spec.ECPublicKeySpec
import java.security.spec.X509EncodedKeySpec
import java.util.Base64
import javax.crypto.Cipher
import javax.crypto.KeyAgreement
import javax.crypto.Mac
import javax.crypto.spec.GCMParameterSpec
import javax.crypto.spec.SecretKeySpec

/**
 * Seals a value to the app's public key (spec/encryption-test-vectors.json): ephemeral-static
 * ECDH on P-256, HKDF-SHA256 salted with the ephemeral public key, AES-256-GCM, and the
 * envelope `sv1.<keyId>.<E>.<N>.<C||T>` in base64url without padding. Only java.security,
 * which Android and the JVM both have.
 */
internal class Sealer(private val keyId: String, publicKeySpki: String) {
    private val recipient: ECPublicKey =
        KeyFactory.getInstance("EC")
            .generatePublic(X509EncodedKeySpec(b64Decode(publicKeySpki))) as ECPublicKey

    fun seal(plaintext: ByteArray): String = seal(plaintext, newEphemeral(), randomNonce())

    /** With a given ephemeral key pair and nonce: for the test vectors only. */
    fun seal(plaintext: ByteArray, ephemeral: KeyPair, nonce: ByteArray): String {
        val e = uncompressed(ephemeral.public as ECPublicKey)
        val z =
            KeyAgreement.getInstance("ECDH").run {
                init(ephemeral.private)
                doPhase(recipient, true)
                generateSecret()
            }
        val key = hkdf(z, salt = e, info = "attribution-sealed-value/v1|$keyId".toByteArray(), length = 32)
        val sealed =
            Cipher.getInstance("AES/GCM/NoPadding").run {
                init(Cipher.ENCRYPT_MODE, SecretKeySpec(key, "AES"), GCMParameterSpec(128, nonce))
                updateAAD("sv1.$keyId".toByteArray(Charsets.US_ASCII))
                doFinal(plaintext)
            }
        return listOf("sv1", keyId, b64(e), b64(nonce), b64(sealed)).joinToString(".")
    }

    companion object {
        private val random = SecureRandom()

        private val P256: ECParameterSpec =
            AlgorithmParameters.getInstance("EC").run {
                init(ECGenParameterSpec("secp256r1"))
                getParameterSpec(ECParameterSpec::class.java)
            }

        private fun newEphemeral(): KeyPair =
            KeyPairGenerator.getInstance("EC").run {
                initialize(ECGenParameterSpec("secp256r1"), random)
                generateKeyPair()
            }

        private fun randomNonce() = ByteArray(12).also { random.nextBytes(it) }

        /** A key pair from its raw scalar and uncompressed point, as the vectors give them. */
        fun keyPair(privateScalar: ByteArray, publicPoint: ByteArray): KeyPair =
            KeyPair(
                publicKey(publicPoint),
                KeyFactory.getInstance("EC").generatePrivate(ECPrivateKeySpec(BigInteger(1, privateScalar), P256)),
            )

        /** A P-256 public key from its uncompressed point (0x04 || X || Y). */
        fun publicKey(point: ByteArray): PublicKey {
            val x = BigInteger(1, point.copyOfRange(1, 33))
            val y = BigInteger(1, point.copyOfRange(33, 65))
            return KeyFactory.getInstance("EC").generatePublic(ECPublicKeySpec(ECPoint(x, y), P256))
        }

        private fun uncompressed(key: ECPublicKey): ByteArray =
            byteArrayOf(4) + fixed32(key.w.affineX) + fixed32(key.w.affineY)

        private fun fixed32(n: BigInteger): ByteArray {
            val bytes = n.toByteArray()
            return when {
                bytes.size == 32 -> bytes
                bytes.size > 32 -> bytes.copyOfRange(bytes.size - 32, bytes.size)
                else -> ByteArray(32 - bytes.size) + bytes
            }
        }

        /** RFC 5869 with HMAC-SHA256. */
        fun hkdf(ikm: ByteArray, salt: ByteArray, info: ByteArray, length: Int): ByteArray {
            val prk = Mac.getInstance("HmacSHA256").run {
                init(SecretKeySpec(salt, "HmacSHA256"))
                doFinal(ikm)
            }
            val out = java.io.ByteArrayOutputStream()
            var block = ByteArray(0)
            var counter = 1
            while (out.size() < length) {
                block = Mac.getInstance("HmacSHA256").run {
                    init(SecretKeySpec(prk, "HmacSHA256"))
                    update(block)
                    update(info)
                    update(counter.toByte())
                    doFinal()
                }
                out.write(block)
                counter++
            }
            return out.toByteArray().copyOf(length)
        }

        private fun b64(bytes: ByteArray): String = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)

        private fun b64Decode(text: String): ByteArray = Base64.getUrlDecoder().decode(text)
    }
}
