package com.service.attribution.core

import java.math.BigDecimal
import java.math.BigInteger
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.LongAccumulator
import java.util.concurrent.atomic.LongAdder

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

    /**
     * The service's bound on nesting, the parameters themselves being level 1
     * (src/ingest/limits.ts, maxParameterDepth): deeper would be refused there, and a list or map
     * that holds itself would otherwise recurse until the stack overflows in the app's call.
     */
    const val MAX_DEPTH = 5

    fun clean(raw: Map<String, Any?>?): Cleaned {
        val dropped = ArrayList<String>()
        val parameters = if (raw == null) emptyMap() else map(raw, "", dropped, 1)
        return Cleaned(parameters, dropped)
    }

    private fun map(raw: Map<*, *>, path: String, dropped: MutableList<String>, level: Int): Map<String, Any?> {
        val out = LinkedHashMap<String, Any?>()
        for ((key, value) in raw) {
            if (value == null) continue
            val name = key as? String
            if (name == null) {
                dropped.add("$path$key")
                continue
            }
            when (val cleaned = value(value, "$path$name", dropped, level)) {
                Drop -> dropped.add("$path$name")
                else -> out[name] = cleaned
            }
        }
        return out
    }

    /** A value held by a map or list of [level]: a map or list in it is of the next level, past the bound dropped. */
    private fun value(value: Any?, path: String, dropped: MutableList<String>, level: Int): Any? =
        when (value) {
            null, is String, is Boolean -> value
            is Double -> if (value.isFinite()) value else Drop
            // By its shortest decimal form: 9.99f widened bit for bit is 9.989999771118164, not
            // the 9.99 the app wrote.
            is Float -> if (value.isFinite()) value.toString().toDouble() else Drop
            is Number -> number(value)
            is Map<*, *> ->
                if (level >= MAX_DEPTH || !value.keys.all { it is String }) Drop else map(value, "$path.", dropped, level + 1)
            is Collection<*> -> list(value, path, dropped, level)
            is Array<*> -> list(value.asList(), path, dropped, level)
            // Arrays of primitives are lists too, each element by the rules above (a Float by
            // its decimal form, a NaN losing the whole list). A ByteArray is binary, not a list.
            is IntArray -> list(value.asList(), path, dropped, level)
            is LongArray -> list(value.asList(), path, dropped, level)
            is ShortArray -> list(value.asList(), path, dropped, level)
            is DoubleArray -> list(value.asList(), path, dropped, level)
            is FloatArray -> list(value.asList(), path, dropped, level)
            is BooleanArray -> list(value.asList(), path, dropped, level)
            else -> Drop
        }

    /**
     * A number JSON can hold, as JSON writes it. Those whose text is not always a JSON number (a
     * DoubleAdder or an android.util.Half holding NaN, an app's own Number) are taken by their
     * double value when it is finite: their text would break the queue kept on the device, and
     * with it every event queued after theirs.
     */
    private fun number(value: Number): Any =
        when (value) {
            is Int, is Long, is Short, is Byte -> value
            // Written exactly (a price's 9.99 as written), unless too large for the service to read.
            is BigInteger, is BigDecimal -> if (value.toDouble().isFinite()) value else Drop
            is AtomicInteger, is AtomicLong, is LongAdder, is LongAccumulator -> value.toLong()
            else -> value.toDouble().let { if (it.isFinite()) it else Drop }
        }

    /** A list loses nothing but whole: dropping one item would shift the others' places. */
    private fun list(items: Collection<*>, path: String, dropped: MutableList<String>, level: Int): Any {
        if (level >= MAX_DEPTH) return Drop
        val out = ArrayList<Any?>(items.size)
        for (item in items) {
            val cleaned = value(item, path, dropped, level + 1)
            if (cleaned === Drop) return Drop
            out.add(cleaned)
        }
        return out
    }
}
