package com.service.attribution.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Test
import java.math.BigDecimal
import java.math.BigInteger
import java.util.concurrent.atomic.AtomicInteger

class JsonTest {
    @Test
    fun `round-trips maps, lists, strings with escapes, numbers, booleans and null`() {
        val value = linkedMapOf("s" to "a\"b\\c\n\u0001é🎮", "i" to 3L, "d" to 9.99, "b" to true, "n" to null, "l" to listOf(1L, "x", null), "m" to mapOf("k" to "v"))
        assertEquals(value, Json.parse(Json.write(value)))
        assertEquals("""{"s":"a\"b\\c\n\u0001é🎮","i":3,"d":9.99,"b":true,"n":null,"l":[1,"x",null],"m":{"k":"v"}}""", Json.write(value))
    }

    @Test
    fun `reads unicode escapes and exponents, and refuses broken text`() {
        assertEquals(listOf("é", 1.5e3, -2L), Json.parse("""["\u00e9", 1.5e3, -2]"""))
        assertThrows(IllegalArgumentException::class.java) { Json.parse("{\"a\":") }
        assertThrows(IllegalArgumentException::class.java) { Json.parse("[1] x") }
        assertThrows(IllegalArgumentException::class.java) { Json.write(Double.NaN) }
    }

    @Test
    fun `a whole double is written as an integer, up to where a Long holds it exactly`() {
        assertEquals("[3,3.25,0,999999999999999]", Json.write(listOf(3.0, 3.25, -0.0, 999_999_999_999_999.0)))
        // Past it, as a double: a Long would clamp 1e20 to 9223372036854775807.
        assertEquals("[1.0E15,1.0E20]", Json.write(listOf(1e15, 1e20)))
    }

    @Test
    fun `a Float is written by its decimal form, any other number by its value`() {
        assertEquals("[9.99,3,12345678901234567890,1.5,7]", Json.write(listOf(9.99f, 3.0f, BigInteger("12345678901234567890"), BigDecimal("1.5"), AtomicInteger(7))))
        assertThrows(IllegalArgumentException::class.java) { Json.write(Float.NaN) }
    }

    @Test
    fun `reads every escape JSON has, whitespace of each kind, empty containers and a number past a Long`() {
        assertEquals(
            linkedMapOf("s" to "a/b\b\u000c\t\n\r\"\\x", "e" to emptyMap<String, Any?>(), "l" to emptyList<Any?>(), "big" to 1.2345678901234567E19),
            Json.parse("{\t\"s\" :\r\n \"a\\/b\\b\\f\\t\\n\\r\\\"\\\\x\",\"e\":{ },\"l\":[ ],\"big\":12345678901234567890 }"),
        )
        assertEquals("\ud83c\udfae", Json.parse("\"\\ud83c\\udfae\""))
    }

    @Test
    fun `refuses what is no JSON, or no object where one is asked for`() {
        for (text in listOf("", "[1,]", "{\"a\" 1}", "\"abc", "\"\\u12\"", "\"\\x\"", "tru", "[1] [2]", "{\"a\":1}}")) {
            assertThrows(text, IllegalArgumentException::class.java) { Json.parse(text) }
        }
        assertThrows(IllegalArgumentException::class.java) { Json.parseObject("[1]") }
        assertThrows(IllegalArgumentException::class.java) { Json.parseObject("null") }
    }
}
