package com.service.attribution.core

import java.math.BigDecimal
import java.security.MessageDigest
import java.text.Normalizer
import java.time.DateTimeException
import java.time.LocalDate

/**
 * The matching parameters (sdk/conformance/pii.json) never leave the
 * device in clear. Each is normalised as the service normalises a clear one, so a hash made
 * here equals the service's and an ad network's, then sealed to the app's key when remote
 * configuration turns sealing on, else hashed as `sha256:<hex>`.
 */
internal class Pii(private val sealer: (plaintextJson: String) -> String?) {
    class Protected(val parameters: Map<String, Any?>, val dropped: List<String>)

    fun protect(parameters: Map<String, Any?>, encryption: Encryption): Protected {
        if (KEYS.none { it in parameters }) return Protected(parameters, emptyList())
        val out = LinkedHashMap(parameters)
        val dropped = ArrayList<String>()
        for (key in KEYS) {
            if (key !in parameters) continue
            val protected = protectOne(key, parameters[key], encryption)
            if (protected == null) {
                out.remove(key)
                dropped.add(key)
            } else {
                out[key] = protected
            }
        }
        return Protected(out, dropped)
    }

    private fun protectOne(key: String, raw: Any?, encryption: Encryption): String? {
        val value =
            when (raw) {
                is String -> raw
                is Number -> numberText(raw)
                else -> return null
            }
        PRE_HASHED.matchEntire(value)?.let { return HASH_MARKER + it.groupValues[1].lowercase() }
        val normalised = normalise(key, value)?.takeIf { it.isNotEmpty() } ?: return null
        if (encryption is Encryption.On && key !in encryption.clearKeys) {
            sealer(Json.write(normalised))?.let { return it }
        }
        return sha256Marked(normalised)
    }

    companion object {
        /**
         * A number as the service reads it from the JSON sent (JavaScript's `String(n)`): a whole
         * double without its fraction, so 15550109999.0 (a Dart double) is the digits 15550109999,
         * as a Long would be, never `1.5550109999E10`; a BigDecimal `15550109999.0` likewise.
         */
        private fun numberText(raw: Number): String {
            if (raw is Double || raw is Float || raw is BigDecimal) {
                val d = raw.toDouble()
                if (d == Math.floor(d) && Math.abs(d) < 9007199254740992.0) return d.toLong().toString()
            }
            return raw.toString()
        }

        val KEYS = listOf("email", "name", "phone_number", "date_of_birth", "gender")
        const val HASH_MARKER = "sha256:"
        private val PRE_HASHED = Regex("^(?:sha256:)?([0-9a-fA-F]{64})$")
        private val DATE = Regex("^([0-9]{4})[-/.]?([0-9]{2})[-/.]?([0-9]{2})(?:T.*)?$")
        private val GENDERS = mapOf("m" to "m", "male" to "m", "f" to "f", "female" to "f")

        /** The service's normalisation (src/ingest/pii.ts); null for a value that is no date. */
        fun normalise(key: String, value: String): String? =
            when (key) {
                "email" -> value.trimAsService().lowercase()
                "phone_number" -> value.replace(Regex("[^0-9]+"), "").trimStart('0')
                "name" -> Normalizer.normalize(value.trimAsService(), Normalizer.Form.NFC).lowercase()
                "date_of_birth" -> dateOfBirth(value)
                "gender" -> value.trimAsService().lowercase().let { GENDERS[it] ?: it }
                else -> value
            }

        private fun dateOfBirth(value: String): String? {
            val (year, month, day) = DATE.matchEntire(value.trimAsService())?.destructured ?: return null
            // A year before 100 is none of the service's dates.
            if (year.toInt() < 100) return null
            return try {
                LocalDate.of(year.toInt(), month.toInt(), day.toInt())
                "$year$month$day"
            } catch (_: DateTimeException) {
                null
            }
        }

        fun sha256Marked(value: String): String =
            HASH_MARKER +
                MessageDigest.getInstance("SHA-256").digest(value.toByteArray(Charsets.UTF_8))
                    .joinToString("") { "%02x".format(it) }
    }
}

/**
 * The text without the spaces around it, as the service trims it (JavaScript's `trim()`):
 * Unicode's space separators, tab, the line ends, vertical tab, form feed and the byte order
 * mark. Kotlin's `trim()` keeps the byte order mark and takes U+001C to U+001F, so a value
 * copied with either would hash to what the service's never equals.
 */
internal fun String.trimAsService(): String = trim { it.isServiceSpace() }

private fun Char.isServiceSpace(): Boolean =
    when (this) {
        '\t', '\n', '\u000B', '\u000C', '\r', '\uFEFF', '\u2028', '\u2029' -> true
        else -> Character.getType(this) == Character.SPACE_SEPARATOR.toInt()
    }
