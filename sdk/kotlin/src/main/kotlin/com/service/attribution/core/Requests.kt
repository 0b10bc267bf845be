package com.service.attribution.core

import com.service.attribution.EventType
import java.time.Instant

/** An event as sendEvent took it, before remote configuration says how to protect it. */
internal data class Draft(
    val eventId: String,
    val type: EventType,
    val name: String?,
    val parameters: Map<String, Any?>,
    val timeMs: Long,
    val customerUserId: String?,
)

/** The bodies of POST /v1/installs and of each event of POST /v1/events (sdk/conformance/requests.json). */
internal object Requests {
    const val SDK_PLATFORM = "kotlin"
    const val SDK_VERSION = "1.11.0"
    private const val NO_ADVERTISING_ID = "00000000-0000-0000-0000-000000000000"

    fun install(
        serviceId: String,
        firstOpenMs: Long,
        device: DeviceSignals,
        advertisingId: String?,
        referrer: InstallReferrerDetails?,
        openUrl: String?,
        customerUserId: String?,
    ): Map<String, Any?> =
        linkedMapOf(
            "service_id" to serviceId,
            "os" to "android",
            "os_version" to device.osVersion,
            "device_model" to device.deviceModel,
            "app_version" to device.appVersion,
            "sdk_platform" to SDK_PLATFORM,
            "sdk_version" to SDK_VERSION,
            "first_open_time" to iso(firstOpenMs),
            // The all-zero id is what Android gives without consent: no id at all.
            "maid" to advertisingId?.takeIf { it != NO_ADVERTISING_ID },
            "install_referrer" to referrer?.let(::referrerJson),
            "open_url" to openUrl,
            "customer_user_id" to customerUserId,
            "locale" to device.locale,
            "timezone" to device.timezone,
        )

    private fun referrerJson(r: InstallReferrerDetails): Map<String, Any?> =
        linkedMapOf(
            "referrer" to r.referrer,
            "click_timestamp" to r.clickTimestampSeconds,
            "install_begin_timestamp" to r.installBeginTimestampSeconds,
            "referrer_click_timestamp_server_seconds" to r.referrerClickTimestampServerSeconds,
            "install_begin_timestamp_server_seconds" to r.installBeginTimestampServerSeconds,
            "install_version" to r.installVersion,
        )

    fun event(draft: Draft, parameters: Map<String, Any?>, serviceId: String): Map<String, Any?> =
        linkedMapOf(
            "event_id" to draft.eventId,
            "event_type" to draft.type.name,
            "event_name" to draft.name,
            "parameters" to parameters.takeIf { it.isNotEmpty() },
            "event_time" to iso(draft.timeMs),
            "service_id" to serviceId,
            "customer_user_id" to draft.customerUserId,
        )

    fun iso(ms: Long): String = Instant.ofEpochMilli(ms).toString()
}
