package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.HttpException
import java.net.URLEncoder

/** What a POST /v1/events answer asks of the SDK. */
internal data class EventsVerdict(
    /** Indexes to send again later (the install is not recorded yet). */
    val retry: Set<Int>,
    /** Why events were refused for good, for the log. */
    val refused: List<String>,
)

/**
 * The backend's SDK routes (spec/openapi.json), with the bare SDK key in `Authorization`.
 * A 401 or 403 is an [AuthenticationException]; any other non-success status an [HttpException];
 * no answer at all an IOException from the transport.
 */
internal class Api(baseUrl: String, private val apiKey: String, private val http: HttpTransport) {
    private val base = baseUrl.trimEnd('/')

    fun config(): RemoteConfig = RemoteConfig.parse(call("GET", "/v1/config", null).body)

    fun install(body: Map<String, Any?>) {
        call("POST", "/v1/installs", Json.write(body))
    }

    fun events(events: List<Map<String, Any?>>): EventsVerdict {
        val answer = Json.parseObject(call("POST", "/v1/events", Json.write(mapOf("events" to events))).body)
        val rejected = (answer["rejected"] as? List<*>).orEmpty().mapNotNull { it as? Map<*, *> }
        val (retryable, refused) = rejected.partition { it["retryable"] == true }
        return EventsVerdict(
            retry = retryable.mapNotNull { (it["index"] as? Number)?.toInt() }.toSet(),
            refused = refused.map { "#${it["index"]}: ${it["detail"]}" },
        )
    }

    fun deleteInstall(serviceId: String) {
        call("DELETE", "/v1/installs/${encode(serviceId)}", null)
    }

    /** The flat map; empty while the install's attribution is not resolved. */
    fun attribution(serviceId: String, waitSeconds: Int): Map<String, String> {
        val body = call("GET", "/v1/installs/${encode(serviceId)}/attribution?wait_seconds=$waitSeconds", null).body
        return Json.parseObject(body).mapNotNull { (k, v) -> (v as? String)?.let { k to it } }.toMap()
    }

    private fun call(method: String, path: String, body: String?): HttpResponse {
        val headers = LinkedHashMap<String, String>()
        headers["Authorization"] = apiKey
        headers["Accept"] = "application/json"
        if (body != null) headers["Content-Type"] = "application/json"
        val response = http.send(HttpRequest(method, base + path, headers, body))
        return when (response.code) {
            in 200..299 -> response
            401, 403 -> throw AuthenticationException(response.code, detailOf(response))
            else -> throw HttpException(response.code, detailOf(response))
        }
    }

    private fun detailOf(response: HttpResponse): String {
        val detail = runCatching { Json.parseObject(response.body)["detail"] as? String }.getOrNull()
        return "HTTP ${response.code}" + (detail?.let { ": $it" } ?: "")
    }

    private fun encode(segment: String) = URLEncoder.encode(segment, "UTF-8").replace("+", "%20")
}
