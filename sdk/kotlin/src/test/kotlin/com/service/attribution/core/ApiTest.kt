package com.service.attribution.core

import com.service.attribution.HttpException
import com.service.attribution.support.ScriptedTransport
import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Test
import java.util.Random

/**
 * The backend's routes as [Api] calls them: an install's id as one path segment, and which
 * answers' `Retry-After` the SDK heeds, for how long.
 */
class ApiTest {
    private var nowMs = 1_000_000L

    private fun api(answer: (HttpRequest) -> HttpResponse?) = ScriptedTransport(answer).let { it to Api("https://svc.example/", "key", it) { nowMs } }

    @Test
    fun `an install id goes as one path segment, encoded, whatever it holds`() {
        val (transport, api) = api { HttpResponse(204, "") }
        api.deleteInstall("a b/c+d?e")
        assertEquals("https://svc.example/v1/installs/a%20b%2Fc%2Bd%3Fe", transport.requests.single().url)
    }

    @Test
    fun `a Retry-After is heeded on an answer that asks to be tried later, until its time`() {
        val (_, api) = api { HttpResponse(503, """{"error":"Unavailable"}""", retryAfter = "30") }
        assertThrows(HttpException::class.java) { api.deleteInstall("svc-1") }
        assertEquals(30_000L, api.askedToWaitMs())
        nowMs += 31_000
        assertEquals(0L, api.askedToWaitMs())
    }

    @Test
    fun `a Retry-After on a refusal for good asks no wait`() {
        val (_, api) = api { HttpResponse(400, """{"error":"ValidationError","detail":"no"}""", retryAfter = "30") }
        assertThrows(HttpException::class.java) { api.deleteInstall("svc-1") }
        assertEquals(0L, api.askedToWaitMs())
    }

    @Test
    fun `a shorter Retry-After after a longer one keeps the longer wait`() {
        var seconds = "60"
        val (_, api) = api { HttpResponse(429, """{"error":"TooManyRequests"}""", retryAfter = seconds) }
        assertThrows(HttpException::class.java) { api.deleteInstall("svc-1") }
        seconds = "5"
        assertThrows(HttpException::class.java) { api.deleteInstall("svc-1") }
        assertEquals(60_000L, api.askedToWaitMs())
    }

    @Test
    fun `an answer of the contract's status with an empty body is said to be empty`() {
        val (_, api) = api { HttpResponse(200, " ") }
        val error = assertThrows(UnexpectedAnswerException::class.java) { api.attribution("svc-1", 0) }
        assertEquals("GET attribution answered an empty body", error.message)
    }

    /** A random source whose every long is [value]. */
    private class Fixed(private val value: Long) : Random() {
        override fun nextLong() = value
    }

    @Test
    fun `the jitter reaches both ends of a backoff's second half`() {
        assertEquals(1_000L, jittered(2_000, Fixed(0)))
        assertEquals(2_000L, jittered(2_000, Fixed(1_000)))
        assertEquals(1_000L, jittered(2_000, Fixed(1_001)))
    }
}
