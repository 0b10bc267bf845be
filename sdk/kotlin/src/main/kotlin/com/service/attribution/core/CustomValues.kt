package com.service.attribution.core

/**
 * Spec parameter rule 4, for an SDK built on this one that has it (the Flutter plugin): with
 * sealing on, every value leaves the device sealed, except those of the configuration's
 * `clear_keys` (revenue, currency, campaign fields), which the service needs in clear, and the
 * matching parameters, which [Pii] has already protected. Each plain value of a map or list is
 * sealed on its own, so the structure stays as sent and the service opens each leaf
 * (sdk/conformance/pii.json's `customValues`, which the iOS SDK follows for the plugin too).
 */
internal object CustomValues {
    /** Characters of one string value the service takes, a sealed envelope included. */
    const val MAX_STRING_LENGTH = 1_000

    class Sealed(val parameters: Map<String, Any?>, val dropped: List<String>)

    private object Drop

    fun seal(parameters: Map<String, Any?>, clearKeys: Set<String>, seal: (plaintextJson: String) -> String): Sealed {
        val dropped = ArrayList<String>()
        val out = LinkedHashMap<String, Any?>()
        for ((key, value) in parameters) {
            if (key in clearKeys || key in Pii.KEYS) {
                out[key] = value
                continue
            }
            when (val sealed = value(value, seal)) {
                Drop -> dropped.add(key)
                else -> out[key] = sealed
            }
        }
        return Sealed(out, dropped)
    }

    /** A sealed envelope too long for the service costs its key: sent in clear it would leak. */
    private fun value(value: Any?, seal: (String) -> String): Any? {
        return when (value) {
            null -> null
            is Map<*, *> -> {
                val out = LinkedHashMap<String, Any?>()
                for ((k, v) in value) {
                    val sealed = value(v, seal)
                    if (sealed === Drop) return Drop
                    out[k as String] = sealed
                }
                out
            }
            is List<*> -> {
                val out = ArrayList<Any?>(value.size)
                for (item in value) {
                    val sealed = value(item, seal)
                    if (sealed === Drop) return Drop
                    out.add(sealed)
                }
                out
            }
            else -> seal(Json.write(value)).takeIf { it.length <= MAX_STRING_LENGTH } ?: Drop
        }
    }
}
