package com.service.attribution.e2e

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import java.net.HttpURLConnection
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.net.URL
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * A local HTTP relay in front of the service, to take the network away and give it back: not
 * started, its port refuses connections; then it can answer 503 itself, forward a request and
 * lose the answer (the device never learns it was stored), or forward faithfully.
 */
internal class Relay(private val target: String) {
    enum class Mode { SERVER_ERROR, LOSE_EVENTS_ANSWER, FORWARD }

    val port: Int = ServerSocket(0).use { it.localPort }
    val url = "http://127.0.0.1:$port"

    @Volatile var mode = Mode.FORWARD

    /** When set, a POST /v1/events whose body holds this text is answered 413, as a proxy with a size limit would. */
    @Volatile var refuseEventsHolding: String? = null
    val refusedAsWhole = AtomicInteger()
    val lostAnswers = AtomicInteger()
    private var server: HttpServer? = null

    fun start() {
        server =
            HttpServer.create(InetSocketAddress("127.0.0.1", port), 0).apply {
                createContext("/") { handle(it) }
                executor = Executors.newFixedThreadPool(4)
                start()
            }
    }

    fun stop() {
        server?.stop(0)
    }

    private fun handle(exchange: HttpExchange) {
        exchange.use {
            if (mode == Mode.SERVER_ERROR) {
                val body = """{"error":"Service Unavailable","detail":"relay"}""".toByteArray()
                exchange.sendResponseHeaders(503, body.size.toLong())
                exchange.responseBody.write(body)
                return
            }
            val requestBody = exchange.requestBody.readBytes()
            val marker = refuseEventsHolding
            if (marker != null && exchange.requestURI.path == "/v1/events" && String(requestBody, Charsets.UTF_8).contains(marker)) {
                refusedAsWhole.incrementAndGet()
                val body = """{"error":"Payload Too Large","detail":"relay"}""".toByteArray()
                exchange.sendResponseHeaders(413, body.size.toLong())
                exchange.responseBody.write(body)
                return
            }
            val (code, body) = forward(exchange, requestBody)
            if (mode == Mode.LOSE_EVENTS_ANSWER && exchange.requestURI.path == "/v1/events") {
                // Stored by the service, but the connection drops before the answer.
                lostAnswers.incrementAndGet()
                mode = Mode.FORWARD
                return
            }
            exchange.sendResponseHeaders(code, if (body.isEmpty()) -1 else body.size.toLong())
            if (body.isNotEmpty()) exchange.responseBody.write(body)
        }
    }

    private fun forward(exchange: HttpExchange, body: ByteArray): Pair<Int, ByteArray> {
        val connection = URL(target + exchange.requestURI.toString()).openConnection() as HttpURLConnection
        connection.requestMethod = exchange.requestMethod
        exchange.requestHeaders["Authorization"]?.firstOrNull()?.let { connection.setRequestProperty("Authorization", it) }
        if (body.isNotEmpty()) {
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/json")
            connection.outputStream.use { it.write(body) }
        }
        val code = connection.responseCode
        val answer = (if (code >= 400) connection.errorStream else connection.inputStream)?.use { it.readBytes() } ?: ByteArray(0)
        return code to answer
    }
}
