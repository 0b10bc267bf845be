package com.service.attribution.core

import java.math.BigDecimal
import java.math.BigInteger

/**
 * A small JSON reader and writer: the SDK ships no JSON library, so an app pulls in nothing
 * (Android's org.json is not on a plain JVM, where the core is tested). Values are Kotlin's own:
 * Map<String, Any?> (insertion-ordered), List<Any?>, String, Number, Boolean and null.
 */
internal object Json {
    fun write(value: Any?): String = StringBuilder().also { append(it, value) }.toString()

    fun parse(text: String): Any? {
        val reader = Reader(text)
        val value = reader.value()
        reader.skipWhitespace()
        if (!reader.atEnd()) throw IllegalArgumentException("JSON: trailing text at ${reader.pos}")
        return value
    }

    @Suppress("UNCHECKED_CAST")
    fun parseObject(text: String): Map<String, Any?> =
        parse(text) as? Map<String, Any?> ?: throw IllegalArgumentException("JSON: not an object")

    private fun append(out: StringBuilder, value: Any?) {
        when (value) {
            null -> out.append("null")
            is String -> quote(out, value)
            is Boolean -> out.append(value)
            // By its shortest decimal form: 9.99f widened bit for bit is 9.989999771118164.
            is Float -> append(out, value.toString().toDouble())
            is Double -> {
                val d = value
                require(d.isFinite()) { "JSON cannot hold $d" }
                // 3.0 is written 3: JSON has one number type, and the service reads either alike.
                if (d == Math.rint(d) && Math.abs(d) < 1e15) out.append(d.toLong()) else out.append(d)
            }
            is Int, is Long, is Short, is Byte, is BigInteger, is BigDecimal -> out.append(value.toString())
            // Any other Number by its value: its own text may be no JSON number ("NaN").
            is Number -> append(out, value.toDouble())
            is Map<*, *> -> {
                out.append('{')
                var first = true
                for ((k, v) in value) {
                    if (!first) out.append(',')
                    first = false
                    quote(out, k.toString())
                    out.append(':')
                    append(out, v)
                }
                out.append('}')
            }
            is Iterable<*> -> {
                out.append('[')
                value.forEachIndexed { i, v ->
                    if (i > 0) out.append(',')
                    append(out, v)
                }
                out.append(']')
            }
            else -> throw IllegalArgumentException("JSON cannot hold ${value::class.java.name}")
        }
    }

    private fun quote(out: StringBuilder, s: String) {
        out.append('"')
        for (c in s) {
            when (c) {
                '"' -> out.append("\\\"")
                '\\' -> out.append("\\\\")
                '\n' -> out.append("\\n")
                '\r' -> out.append("\\r")
                '\t' -> out.append("\\t")
                else -> if (c < ' ') out.append(String.format("\\u%04x", c.code)) else out.append(c)
            }
        }
        out.append('"')
    }

    private class Reader(val s: String) {
        var pos = 0

        fun atEnd() = pos >= s.length

        fun skipWhitespace() {
            while (pos < s.length && s[pos] in " \t\r\n") pos++
        }

        fun value(): Any? {
            skipWhitespace()
            if (atEnd()) fail("unexpected end")
            return when (val c = s[pos]) {
                '{' -> obj()
                '[' -> array()
                '"' -> string()
                't' -> literal("true", true)
                'f' -> literal("false", false)
                'n' -> literal("null", null)
                else -> if (c == '-' || c.isDigit()) number() else fail("unexpected '$c'")
            }
        }

        private fun obj(): Map<String, Any?> {
            val map = LinkedHashMap<String, Any?>()
            pos++
            skipWhitespace()
            if (peek() == '}') return map.also { pos++ }
            while (true) {
                skipWhitespace()
                if (peek() != '"') fail("expected a key")
                val key = string()
                skipWhitespace()
                expect(':')
                map[key] = value()
                skipWhitespace()
                when (next()) {
                    ',' -> continue
                    '}' -> return map
                    else -> fail("expected , or }")
                }
            }
        }

        private fun array(): List<Any?> {
            val list = ArrayList<Any?>()
            pos++
            skipWhitespace()
            if (peek() == ']') return list.also { pos++ }
            while (true) {
                list.add(value())
                skipWhitespace()
                when (next()) {
                    ',' -> continue
                    ']' -> return list
                    else -> fail("expected , or ]")
                }
            }
        }

        private fun string(): String {
            pos++
            val out = StringBuilder()
            while (true) {
                if (atEnd()) fail("unterminated string")
                when (val c = s[pos++]) {
                    '"' -> return out.toString()
                    '\\' -> {
                        when (val e = next()) {
                            '"', '\\', '/' -> out.append(e)
                            'b' -> out.append('\b')
                            'f' -> out.append('\u000c')
                            'n' -> out.append('\n')
                            'r' -> out.append('\r')
                            't' -> out.append('\t')
                            'u' -> {
                                if (pos + 4 > s.length) fail("bad escape")
                                out.append(s.substring(pos, pos + 4).toInt(16).toChar())
                                pos += 4
                            }
                            else -> fail("bad escape")
                        }
                    }
                    else -> out.append(c)
                }
            }
        }

        private fun number(): Number {
            val start = pos
            if (peek() == '-') pos++
            while (!atEnd() && (s[pos].isDigit() || s[pos] in ".eE+-")) pos++
            val text = s.substring(start, pos)
            return if (text.any { it in ".eE" }) {
                text.toDouble()
            } else {
                text.toLongOrNull() ?: text.toDouble()
            }
        }

        private fun literal(word: String, value: Any?): Any? {
            if (!s.startsWith(word, pos)) fail("unexpected text")
            pos += word.length
            return value
        }

        private fun peek(): Char? = if (atEnd()) null else s[pos]

        private fun next(): Char = if (atEnd()) fail("unexpected end") else s[pos++]

        private fun expect(c: Char) {
            if (next() != c) fail("expected $c")
        }

        private fun fail(message: String): Nothing = throw IllegalArgumentException("JSON: $message at $pos")
    }
}
