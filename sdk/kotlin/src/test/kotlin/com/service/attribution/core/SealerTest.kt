package com.service.attribution.core

import com.service.attribution.support.Vectors
import org.junit.Assert.assertEquals
import org.junit.Test
import java.security.KeyPair
import java.security.KeyPairGenerator
import java.security.interfaces.ECPublicKey
import java.security.spec.ECGenParameterSpec
import java.util.Base64

class SealerTest {
    private val recipient = Vectors.recipient
    private val sealer = Sealer(recipient["keyId"] as String, recipient["publicKeySpki"] as String)

    /** An ephemeral key whose point's x is below 2^248: its big-endian bytes are fewer than 32. */
    private fun shortCoordinateKey(): KeyPair {
        val generator = KeyPairGenerator.getInstance("EC").apply { initialize(ECGenParameterSpec("secp256r1")) }
        while (true) {
            val pair = generator.generateKeyPair()
            if ((pair.public as ECPublicKey).w.affineX.bitLength() <= 248) return pair
        }
    }

    @Test
    fun `an ephemeral point whose coordinate is short is sent padded to 65 bytes, and opens`() {
        val ephemeral = shortCoordinateKey()
        val envelope = sealer.seal("\"a value\"".toByteArray(), ephemeral, ByteArray(12) { it.toByte() })
        val point = Base64.getUrlDecoder().decode(envelope.split('.')[2])
        assertEquals(65, point.size)
        assertEquals(0.toByte(), point[1])
        assertEquals("\"a value\"", Vectors.open(envelope))
    }

    @Test
    fun `each seal has a nonce of its own`() {
        val nonces = (1..3).map { sealer.seal("1".toByteArray()).split('.')[3] }
        assertEquals(3, nonces.toSet().size)
    }
}
