package com.service.attribution.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Test

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
    fun `a whole double is written as an integer`() {
        assertEquals("[3,3.25]", Json.write(listOf(3.0, 3.25)))
    }
}
