package com.service.attribution.core

/**
 * Kotlin's parameter rules (sdk/conformance/parameters.json): strings, finite numbers,
 * booleans, collections and arrays (object and primitive arrays, as lists; not a ByteArray) and
 * string-keyed maps are sent; a null drops its key (nulls inside lists stay). sendEvent may run
 * before configure, on any thread, so a value JSON cannot hold never throws: it loses the
 * nearest map key holding it, with a warning, as the spec describes for the native SDKs under
 * Flutter (rule 3).
 */
internal object Parameters {
    class Cleaned(val parameters: Map<String, Any?>, val dropped: List<String>)

    private object Drop

    fun clean(raw: Map<String, Any?>?): Cleaned {
        val dropped = ArrayList<String>()
        val parameters = if (raw == null) emptyMap() else map(raw, "", dropped)
        return Cleaned(parameters, dropped)
    }

    private fun map(raw: Map<*, *>, path: String, dropped: MutableList<String>): Map<String, Any?> {
        val out = LinkedHashMap<String, Any?>()
        for ((key, value) in raw) {
            if (value == null) continue
            val name = key as? String
            if (name == null) {
                dropped.add("$path$key")
                continue
            }
            when (val cleaned = value(value, "$path$name", dropped)) {
                Drop -> dropped.add("$path$name")
                else -> out[name] = cleaned
            }
        }
        return out
    }

    private fun value(value: Any?, path: String, dropped: MutableList<String>): Any? =
        when (value) {
            null, is String, is Boolean -> value
            is Double -> if (value.isFinite()) value else Drop
            // By its shortest decimal form: 9.99f widened bit for bit is 9.989999771118164, not
            // the 9.99 the app wrote.
            is Float -> if (value.isFinite()) value.toString().toDouble() else Drop
            is Number -> value
            is Map<*, *> -> if (value.keys.all { it is String }) map(value, "$path.", dropped) else Drop
            is Collection<*> -> list(value, path, dropped)
            is Array<*> -> list(value.asList(), path, dropped)
            // Arrays of primitives are lists too, each element by the rules above (a Float by
            // its decimal form, a NaN losing the whole list). A ByteArray is binary, not a list.
            is IntArray -> list(value.asList(), path, dropped)
            is LongArray -> list(value.asList(), path, dropped)
            is ShortArray -> list(value.asList(), path, dropped)
            is DoubleArray -> list(value.asList(), path, dropped)
            is FloatArray -> list(value.asList(), path, dropped)
            is BooleanArray -> list(value.asList(), path, dropped)
            else -> Drop
        }

    /** A list loses nothing but whole: dropping one item would shift the others' places. */
    private fun list(items: Collection<*>, path: String, dropped: MutableList<String>): Any {
        val out = ArrayList<Any?>(items.size)
        for (item in items) {
            val cleaned = value(item, path, dropped)
            if (cleaned === Drop) return Drop
            out.add(cleaned)
        }
        return out
    }
}
