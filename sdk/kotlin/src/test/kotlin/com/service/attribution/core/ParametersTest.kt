package com.service.attribution.core

import org.junit.Assert.assertEquals
import org.junit.Test

/** Parameter values beyond the conformance vectors: arrays of primitives. */
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
        // A list that holds itself: dropped, not a StackOverflowError in the app's sendEvent.
        val loop = ArrayList<Any?>()
        loop.add(1)
        loop.add(loop)
        val looped = Parameters.clean(mapOf("loop" to loop, "kept" to true))
        assertEquals(listOf("loop"), looped.dropped)
        assertEquals("""{"kept":true}""", Json.write(looped.parameters))
    }
}
