package com.service.attribution.support

import com.service.attribution.core.Json
import com.service.attribution.core.Sealer
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import java.io.File
import java.math.BigDecimal
import java.security.KeyFactory
import java.security.interfaces.ECPrivateKey
import java.security.spec.PKCS8EncodedKeySpec
import java.time.Instant
import java.util.Base64
import javax.crypto.Cipher
import javax.crypto.KeyAgreement
import javax.crypto.spec.GCMParameterSpec
import javax.crypto.spec.SecretKeySpec

/** The shared vectors of sdk/conformance and spec/, read from the repository. */
@Suppress("UNCHECKED_CAST")
internal object Vectors {
    val root = File(System.getProperty("repo.root") ?: error("repo.root is not set"))

    fun conformance(name: String): Map<String, Any?> = Json.parseObject(File(root, "sdk/conformance/$name").readText())

    fun cases(name: String): List<Map<String, Any?>> = conformance(name)["cases"] as List<Map<String, Any?>>

    val sealing: Map<String, Any?> by lazy { Json.parseObject(File(root, "spec/encryption-test-vectors.json").readText()) }

    val recipient get() = sealing["recipient"] as Map<String, Any?>

    /** Opens an envelope with the published test key: the plaintext JSON text. */
    fun open(envelope: String): String {
        val parts = envelope.split('.')
        assertEquals("envelope parts of $envelope", 5, parts.size)
        assertEquals("sv1", parts[0])
        val keyId = parts[1]
        val decode = Base64.getUrlDecoder()
        val ephemeral = decode.decode(parts[2])
        val nonce = decode.decode(parts[3])
        val sealed = decode.decode(parts[4])
        val factory = KeyFactory.getInstance("EC")
        val privateKey = factory.generatePrivate(PKCS8EncodedKeySpec(decode.decode(recipient["privateKeyPkcs8"] as String))) as ECPrivateKey
        val ephemeralKey = Sealer.publicKey(ephemeral)
        val z = KeyAgreement.getInstance("ECDH").run {
            init(privateKey)
            doPhase(ephemeralKey, true)
            generateSecret()
        }
        val key = Sealer.hkdf(z, ephemeral, "attribution-sealed-value/v1|$keyId".toByteArray(), 32)
        val plaintext = Cipher.getInstance("AES/GCM/NoPadding").run {
            init(Cipher.DECRYPT_MODE, SecretKeySpec(key, "AES"), GCMParameterSpec(128, nonce))
            updateAAD("sv1.$keyId".toByteArray())
            doFinal(sealed)
        }
        return String(plaintext, Charsets.UTF_8)
    }

    /**
     * Compares a built JSON value with a vector's (requests.json rules): placeholders match
     * by format, `{"$sealed": v}` is opened, a null expected value also matches an absent one,
     * numbers compare by value.
     */
    class Matcher {
        private var serviceId: String? = null
        private val eventIds = HashSet<String>()

        fun match(expected: Any?, actual: Any?, path: String = "$") {
            when (expected) {
                null -> assertTrue("$path: expected null, got $actual", actual == null)
                "{{service_id}}" -> {
                    val id = actual as? String ?: return fail("$path: expected a service_id, got $actual")
                    assertTrue("$path: $id", ID.matches(id))
                    if (serviceId == null) serviceId = id
                    assertEquals("$path: one service_id throughout", serviceId, id)
                }
                "{{event_id}}" -> {
                    val id = actual as? String ?: return fail("$path: expected an event_id, got $actual")
                    assertTrue("$path: $id", ID.matches(id))
                    assertTrue("$path: event_id $id repeated", eventIds.add(id))
                }
                "{{time}}" -> {
                    val time = actual as? String ?: return fail("$path: expected a time, got $actual")
                    assertTrue("$path: $time", time.endsWith("Z"))
                    Instant.parse(time)
                }
                is Number -> {
                    assertTrue("$path: expected $expected, got $actual", actual is Number)
                    assertEquals("$path", 0, BigDecimal(expected.toString()).compareTo(BigDecimal(actual.toString())))
                }
                is Map<*, *> ->
                    if (expected.containsKey("\$sealed")) {
                        val envelope = actual as? String ?: return fail("$path: expected a sealed value, got $actual")
                        assertEquals("$path: sealed plaintext", Json.write(expected["\$sealed"]), open(envelope))
                    } else {
                        val map = actual as? Map<*, *> ?: return fail("$path: expected a map, got $actual")
                        for (key in expected.keys + map.keys) {
                            match(expected[key], map[key], "$path.$key")
                        }
                    }
                is List<*> -> {
                    val list = actual as? List<*> ?: return fail("$path: expected a list, got $actual")
                    assertEquals("$path: size", expected.size, list.size)
                    expected.forEachIndexed { i, item -> match(item, list[i], "$path[$i]") }
                }
                else -> assertEquals(path, expected, actual)
            }
        }

        private companion object {
            val ID = Regex("^[A-Za-z0-9._:-]{1,128}$")
        }
    }

    fun assertSameJson(message: String, expected: Any?, actual: Any?) {
        assertNotNull(message, Json.write(expected))
        assertEquals(message, Json.parse(Json.write(expected)), Json.parse(Json.write(actual)))
    }
}
