package com.service.attribution.core

import java.net.HttpURLConnection
import java.net.URL

/** HTTP over java.net.HttpURLConnection, present on Android and on every JVM. */
internal class UrlConnectionTransport(
    private val connectTimeoutMs: Int = 10_000,
    private val readTimeoutMs: Int = 30_000,
) : HttpTransport {
    override fun send(request: HttpRequest): HttpResponse {
        val connection = URL(request.url).openConnection() as HttpURLConnection
        try {
            connection.requestMethod = request.method
            connection.connectTimeout = connectTimeoutMs
            connection.readTimeout = readTimeoutMs
            connection.useCaches = false
            for ((name, value) in request.headers) connection.setRequestProperty(name, value)
            if (request.body != null) {
                connection.doOutput = true
                connection.outputStream.use { it.write(request.body.toByteArray(Charsets.UTF_8)) }
            }
            val code = connection.responseCode
            val stream = if (code >= 400) connection.errorStream else connection.inputStream
            val body = stream?.use { String(it.readBytes(), Charsets.UTF_8) } ?: ""
            return HttpResponse(code, body, connection.getHeaderField("Retry-After"))
        } finally {
            connection.disconnect()
        }
    }
}
