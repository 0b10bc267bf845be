package com.service.attribution.core

import org.junit.Assert.assertEquals
import org.junit.Test
import java.math.BigDecimal

class PiiTest {
    private val pii = Pii { null }

    @Test
    fun `a phone number given as a whole BigDecimal is hashed from the digits the service reads`() {
        // The service reads the JSON number 15550109999.0 as JavaScript's String() writes it.
        val expected = Pii.sha256Marked("15550109999")
        for (number in listOf(BigDecimal("15550109999.0"), BigDecimal("15550109999"), 15550109999.0, 15550109999L)) {
            assertEquals(number.toString(), mapOf("phone_number" to expected), pii.protect(mapOf("phone_number" to number), Encryption.Off).parameters)
        }
    }
}
