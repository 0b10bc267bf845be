package com.service.attribution.conformance

import com.service.attribution.Consent
import com.service.attribution.LogLevel
import com.service.attribution.core.HttpRequest
import com.service.attribution.core.HttpResponse
import com.service.attribution.core.InstallReferrerDetails
import com.service.attribution.core.Json
import com.service.attribution.core.SdkCore
import com.service.attribution.core.Platform
import com.service.attribution.core.SdkSettings
import com.service.attribution.core.TcfSource
import com.service.attribution.core.TcfValues
import com.service.attribution.support.FakeDevice
import com.service.attribution.support.MemoryStore
import com.service.attribution.support.ScriptedTransport
import com.service.attribution.support.Vectors
import com.service.attribution.support.pathOf
import com.service.attribution.support.platform

/**
 * A core wired to a transport that answers as the backend's contract says, for building the
 * requests of requests.json without a network: what goes out is what the vectors describe.
 */
internal class Harness(
    encryption: Map<String, Any?> = mapOf("enabled" to false),
    device: FakeDevice = FakeDevice(),
    referrer: InstallReferrerDetails? = null,
    /** What the consent platform stored on the device (IABTCF_TCString, IABTCF_gdprApplies). */
    tcf: TcfValues = TcfValues(null, null),
    /** The device's storage: one an earlier harness used is the app's next start on that device. */
    val store: MemoryStore = MemoryStore(),
) {
    val transport = ScriptedTransport { request -> answer(request, encryption) }
    val core = SdkCore()
    private val platform =
        platform(store = store, http = transport, device = device, referrer = referrer).let {
            Platform(it.store, it.device, it.installReferrer, it.mainThread, it.log, it.http, it.clock, TcfSource { tcf })
        }

    fun configure(customerUserId: String? = null, openUrl: String? = null, consent: Consent? = null, anonymous: Boolean = false) {
        openUrl?.let(core::noteOpenUrl)
        consent?.let(core::setConsent)
        if (anonymous) core.setAnonymous(true)
        core.configure(platform, SdkSettings(baseUrl = "https://backend.test", retryDelayMs = 50), "sdk_test", LogLevel.DEBUG, null, customerUserId)
        core.drain()
    }

    fun bodies(method: String, path: String): List<Map<String, Any?>> {
        core.drain()
        return synchronized(transport.requests) {
            transport.requests.filter { it.method == method && pathOf(it.url).startsWith(path) }.map { Json.parseObject(it.body!!) }
        }
    }

    @Suppress("UNCHECKED_CAST")
    fun sentEvents(): List<Map<String, Any?>> = bodies("POST", "/v1/events").flatMap { it["events"] as List<Map<String, Any?>> }

    private fun answer(request: HttpRequest, encryption: Map<String, Any?>): HttpResponse {
        val path = pathOf(request.url)
        return when {
            path == "/v1/config" -> {
                val sealing =
                    if (encryption["enabled"] == true) {
                        mapOf(
                            "enabled" to true,
                            "key_id" to encryption["key_id"],
                            "public_key" to Vectors.recipient["publicKeySpki"],
                            "algorithm" to "ECDH-P256+HKDF-SHA256+AES-256-GCM",
                            "envelope_version" to "sv1",
                            "clear_keys" to encryption["clear_keys"],
                        )
                    } else {
                        mapOf("enabled" to false)
                    }
                HttpResponse(200, Json.write(mapOf("enabled" to true, "refresh_interval_seconds" to 3600, "encryption" to sealing)))
            }
            path == "/v1/installs" -> HttpResponse(202, Json.write(mapOf("service_id" to Json.parseObject(request.body!!)["service_id"])))
            path.endsWith("/consent") -> HttpResponse(202, Json.write(mapOf("consent" to Json.parseObject(request.body!!)["consent"])))
            path == "/v1/events" -> {
                val count = (Json.parseObject(request.body!!)["events"] as List<*>).size
                HttpResponse(202, Json.write(mapOf("accepted" to count, "ignored" to emptyList<Any>(), "rejected" to emptyList<Any>(), "warnings" to emptyList<Any>())))
            }
            path == "/v1/sessions" -> {
                val count = (Json.parseObject(request.body!!)["sessions"] as List<*>).size
                HttpResponse(202, Json.write(mapOf("accepted" to count, "ignored" to emptyList<Any>(), "rejected" to emptyList<Any>())))
            }
            path.contains("/attribution") -> HttpResponse(200, """{"service_match_status":"organic","media_source":"organic"}""")
            request.method == "DELETE" -> HttpResponse(202, "{}")
            else -> HttpResponse(404, """{"error":"Not Found","detail":"$path"}""")
        }
    }
}
