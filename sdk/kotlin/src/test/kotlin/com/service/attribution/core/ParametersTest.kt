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
}
