package com.service.attribution.core

import com.service.attribution.LinkOptions
import java.io.ByteArrayOutputStream

/** What a tapped link says, parsed from its URL alone. */
internal data class ParsedLink(val deeplinkId: String?, val queryParams: Map<String, String>)

/**
 * Parses App Links (sdk/conformance/links.json). Written by hand rather than
 * with java.net.URI, which refuses URLs that browsers and Android's Uri accept (a raw space or
 * `|` in a query), and Android's Uri is not on the JVM.
 */
internal object LinkParser {
    private val URL = Regex("^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(?:\\?([^#]*))?(?:#.*)?$")

    fun parse(url: String, options: LinkOptions): ParsedLink? {
        val match = URL.matchEntire(url.trim()) ?: return null
        val (scheme, authority, path, queryText) = match.destructured
        if (scheme.lowercase() != "http" && scheme.lowercase() != "https") return null
        val host = hostOf(authority) ?: return null
        val allowed = options.allowedHosts
        if (allowed != null && allowed.none { it.trim().equals(host, ignoreCase = true) }) return null
        val segments = path.split('/').filter { it.isNotEmpty() }
        val deeplinkId = segments.singleOrNull()?.let { decode(it, plusIsSpace = false) }
        return ParsedLink(deeplinkId, query(queryText))
    }

    private fun hostOf(authority: String): String? {
        val hostPort = authority.substringAfterLast('@')
        val host =
            if (hostPort.startsWith("[")) {
                hostPort.substringBefore(']') + "]"
            } else {
                hostPort.substringBefore(':')
            }
        return host.takeIf { it.isNotEmpty() && it != "[]" }
    }

    /**
     * A query string's pairs (a link's, or an install referrer's), decoded; the last value
     * wins; a name without `=` has the value "".
     */
    fun query(query: String): Map<String, String> {
        val params = LinkedHashMap<String, String>()
        for (pair in query.split('&')) {
            if (pair.isEmpty()) continue
            val name = decode(pair.substringBefore('='), plusIsSpace = true)
            val value = if ('=' in pair) decode(pair.substringAfter('='), plusIsSpace = true) else ""
            params.remove(name)
            params[name] = value
        }
        return params
    }

    /** Percent-decodes UTF-8; a malformed escape is kept as written rather than failing the link. */
    fun decode(text: String, plusIsSpace: Boolean): String {
        if ('%' !in text && !(plusIsSpace && '+' in text)) return text
        val bytes = ByteArrayOutputStream()
        var i = 0
        while (i < text.length) {
            val c = text[i]
            val hex = if (c == '%' && i + 2 < text.length) hexByte(text[i + 1], text[i + 2]) else null
            when {
                hex != null -> {
                    bytes.write(hex)
                    i += 3
                }
                c == '+' && plusIsSpace -> {
                    bytes.write(' '.code)
                    i++
                }
                else -> {
                    val end = if (Character.isHighSurrogate(c) && i + 1 < text.length) i + 2 else i + 1
                    bytes.write(text.substring(i, end).toByteArray(Charsets.UTF_8))
                    i = end
                }
            }
        }
        return bytes.toString(Charsets.UTF_8.name())
    }

    private fun hexByte(high: Char, low: Char): Int? {
        val h = Character.digit(high, 16)
        val l = Character.digit(low, 16)
        return if (h < 0 || l < 0) null else h * 16 + l
    }
}
