package com.service.attribution.core

import org.junit.Assert.assertEquals
import org.junit.Test
import java.math.BigDecimal
import java.math.BigInteger
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.DoubleAdder

/** Parameter values beyond the conformance vectors: arrays of primitives, numbers of every kind. */
class ParametersTest {
    @Test
    fun `arrays of primitives are sent as lists, Floats by their decimal form, and a ByteArray is dropped`() {
        val cleaned =
            Parameters.clean(
                linkedMapOf(
                    "ints" to intArrayOf(1, 2),
                    "longs" to longArrayOf(3_000_000_000L),
                    "shorts" to shortArrayOf(4),
                    "doubles" to doubleArrayOf(1.5, 2.0),
                    "floats" to floatArrayOf(9.99f, 0.1f),
                    "flags" to booleanArrayOf(true, false),
                    "bytes" to byteArrayOf(1, 2),
                    "nan" to doubleArrayOf(1.0, Double.NaN),
                    "nested" to mapOf("levels" to intArrayOf(7)),
                ),
            )
        assertEquals(listOf("bytes", "nan"), cleaned.dropped)
        assertEquals(
            """{"ints":[1,2],"longs":[3000000000],"shorts":[4],"doubles":[1.5,2],"floats":[9.99,0.1],"flags":[true,false],"nested":{"levels":[7]}}""",
            Json.write(cleaned.parameters),
        )
    }

    @Test
    fun `a map or list nested past the service's five levels is dropped, and one that holds itself too`() {
        fun nested(levels: Int): Map<String, Any?> {
            var inner: Map<String, Any?> = mapOf("x" to 1)
            repeat(levels - 1) { inner = mapOf("k" to inner) }
            return inner
        }
        // Level 5 may still be a map (parameters.k.k.k.k): kept whole.
        assertEquals(emptyList<String>(), Parameters.clean(nested(5)).dropped)
        val deeper = Parameters.clean(nested(6))
        assertEquals(listOf("k.k.k.k.k"), deeper.dropped)
        assertEquals("""{"k":{"k":{"k":{"k":{}}}}}""", Json.write(deeper.parameters))
        // Lists by the same count: the fourth within parameters.l is of level 5, the fifth past it.
        fun lists(levels: Int): Any {
            var inner: Any = listOf(1)
            repeat(levels - 1) { inner = listOf(inner) }
            return inner
        }
        assertEquals("""{"l":[[[[1]]]]}""", Json.write(Parameters.clean(mapOf("l" to lists(4))).parameters))
        val deeperList = Parameters.clean(mapOf("l" to lists(5), "kept" to 1))
        assertEquals(listOf("l"), deeperList.dropped)
        assertEquals("""{"kept":1}""", Json.write(deeperList.parameters))
        // A list that holds itself: dropped, not a StackOverflowError in the app's sendEvent.
        val loop = ArrayList<Any?>()
        loop.add(1)
        loop.add(loop)
        val looped = Parameters.clean(mapOf("loop" to loop, "kept" to true))
        assertEquals(listOf("loop"), looped.dropped)
        assertEquals("""{"kept":true}""", Json.write(looped.parameters))
    }

    @Test
    fun `a key that is no string, as a Java or Dart caller may pass, is dropped and named`() {
        @Suppress("UNCHECKED_CAST")
        val raw = mapOf(7 to "seven", "kept" to true) as Map<String, Any?>
        val cleaned = Parameters.clean(raw)
        assertEquals(listOf("7"), cleaned.dropped)
        assertEquals("""{"kept":true}""", Json.write(cleaned.parameters))
    }

    /** A Number of the app's own, whose text is not a JSON number. */
    private class Score(private val value: Double) : Number() {
        override fun toDouble() = value
        override fun toFloat() = value.toFloat()
        override fun toLong() = value.toLong()
        override fun toInt() = value.toInt()
        override fun toShort() = value.toInt().toShort()
        override fun toByte() = value.toInt().toByte()
        override fun toString() = "score of $value"
    }

    @Test
    fun `a number whose text is no JSON number is sent by its value, or dropped when that is not finite`() {
        val cleaned =
            Parameters.clean(
                linkedMapOf(
                    "price" to BigDecimal("9.99"),
                    "big" to BigInteger("123456789012345678901234567890"),
                    "counter" to AtomicLong(42),
                    "adder" to DoubleAdder().apply { add(1.5) },
                    "own" to Score(7.25),
                    "nan" to DoubleAdder().apply { add(Double.NaN) },
                    "own_infinite" to Score(Double.POSITIVE_INFINITY),
                    "huge" to BigDecimal("1E+400"),
                ),
            )
        assertEquals(listOf("nan", "own_infinite", "huge"), cleaned.dropped)
        val written = Json.write(cleaned.parameters)
        assertEquals("""{"price":9.99,"big":123456789012345678901234567890,"counter":42,"adder":1.5,"own":7.25}""", written)
        assertEquals(cleaned.parameters.keys, Json.parseObject(written).keys)
    }
}
