package com.service.attribution.core

import com.service.attribution.LinkOptions
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

/**
 * The link parser at the edges sdk/conformance/links.json leaves out, where the platforms'
 * own URL types part ways: text around a link, user info, bracketed addresses, raw characters
 * outside the Basic Multilingual Plane, escapes cut short.
 */
class LinkParserTest {
    private fun parse(url: String, hosts: Set<String>? = null) = LinkParser.parse(url, LinkOptions(hosts))

    @Test
    fun `spaces around a link are no part of it`() {
        assertEquals(ParsedLink("abc", mapOf("x" to "1")), parse("  https://go.example.com/abc?x=1 \n"))
    }

    @Test
    fun `the host is what follows the last at sign of the authority`() {
        val hosts = setOf("go.example.com")
        assertEquals("abc", parse("https://user:pw@go.example.com/abc", hosts)?.deeplinkId)
        assertEquals("abc", parse("https://a@evil.example@go.example.com/abc", hosts)?.deeplinkId)
        assertNull(parse("https://go.example.com@evil.example/abc", hosts))
    }

    @Test
    fun `a bracketed address is a host, with its port aside, and empty brackets are none`() {
        assertEquals("abc", parse("http://[::1]:8788/abc", setOf("[::1]"))?.deeplinkId)
        assertNull(parse("http://[::1]:8788/abc", setOf("[")))
        assertNull(parse("http://[]/abc"))
    }

    @Test
    fun `a raw character outside the Basic Multilingual Plane is kept whole`() {
        // Beside an escape, so that the value is decoded, not returned as it is.
        assertEquals(mapOf("e" to "\uD83C\uDFAE!"), parse("https://go.example.com/abc?e=\uD83C\uDFAE%21")?.queryParams)
    }

    @Test
    fun `an escape cut short or not hexadecimal is kept as written`() {
        val params = parse("https://go.example.com/abc?a=%4g&b=%e&c=%41%4")?.queryParams
        assertEquals(mapOf("a" to "%4g", "b" to "%e", "c" to "A%4"), params)
        assertEquals(mapOf("d" to "xA"), parse("https://go.example.com/abc?d=x%41")?.queryParams)
    }
}
