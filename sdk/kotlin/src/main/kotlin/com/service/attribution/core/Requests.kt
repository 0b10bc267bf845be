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
    /**
     * Sent before configure with no customer user id set in this process: the id kept from an
     * earlier launch is not known yet, and is filled in once configure has read it.
     */
    val inheritsUserId: Boolean = false,
    /**
     * Sent in anonymous mode: it goes as `anonymous: true`, with no customer user id, even once
     * the mode is off, so the service keeps no device id on it either (docs/api.md).
     */
    val anonymous: Boolean = false,
)

/**
 * Device signals as the install's schema takes them: a value the schema would refuse costs
 * only itself, never the install (a time zone id such as `GMT+01:00` is no IANA name).
 */
internal object Fields {
    val LOCALE = Regex("^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
    val SDK_VERSION = Regex("^[A-Za-z0-9.+_-]+$")
    val TIMEZONE = Regex("^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$")

    fun text(value: String?, max: Int): String? = value?.trim()?.takeIf { it.isNotEmpty() }?.take(max)

    fun matching(value: String?, pattern: Regex, max: Int): String? = value?.takeIf { it.length <= max && pattern.matches(it) }

    /** A customer user id the service takes (sdk/conformance/customer-user-ids.json); blank is no id. */
    fun customerUserId(value: String?): String? = value?.takeIf { it.isNotBlank() && customerUserIdProblem(it) == null }

    /**
     * Why the service would refuse [value] as a customer user id, and every event and the install
     * that carry it: more than 256 characters (code points), a control character (a line break
     * typed with it), half a surrogate pair. Null when it takes it.
     */
    fun customerUserIdProblem(value: String): String? =
        when {
            value.codePointCount(0, value.length) > 256 -> "has more than 256 characters"
            value.codePoints().anyMatch { Character.getType(it) == Character.CONTROL.toInt() } -> "holds a control character"
            value.codePoints().anyMatch { Character.getType(it) == Character.SURROGATE.toInt() } -> "is not Unicode text"
            else -> null
        }
}

/**
 * The bodies of POST /v1/installs, of each event of POST /v1/events (sdk/conformance/requests.json)
 * and of each session of POST /v1/sessions (sdk/conformance/sessions.json).
 */
internal object Requests {
    const val SDK_PLATFORM = "kotlin"
    const val SDK_VERSION = "1.11.0"
    private const val NO_ADVERTISING_ID = "00000000-0000-0000-0000-000000000000"

    fun install(
        serviceId: String,
        firstOpenMs: Long,
        /** The clock now: set on each attempt, it tells the service how far off the clock is. */
        sentAtMs: Long,
        device: DeviceSignals,
        advertisingId: String?,
        referrer: InstallReferrerDetails?,
        openUrl: String?,
        customerUserId: String?,
        wrapper: Wrapper? = null,
        /** gdpr_applies, ad_user_data, ad_personalization, tcf_string; null when none is known. */
        consent: Map<String, Any?>? = null,
        /** Anonymous mode is on: the install says so, and its postbacks name no address or agent. */
        anonymous: Boolean = false,
    ): Map<String, Any?> =
        linkedMapOf<String, Any?>(
            "service_id" to serviceId,
            "os" to "android",
            "os_version" to Fields.text(device.osVersion, 64),
            "device_model" to Fields.text(device.deviceModel, 64),
            "app_version" to Fields.text(device.appVersion, 64),
            "sdk_platform" to (wrapper?.platform ?: SDK_PLATFORM),
            "sdk_version" to (wrapper?.version?.let { Fields.matching(it, Fields.SDK_VERSION, 32) } ?: SDK_VERSION),
            "first_open_time" to iso(firstOpenMs),
            "sent_at" to iso(sentAtMs),
            "maid" to maid(advertisingId),
            "install_referrer" to referrer?.let(::referrerJson),
            "open_url" to openUrl?.takeIf { it.length <= 2048 },
            "customer_user_id" to customerUserId,
            "locale" to Fields.matching(device.locale, Fields.LOCALE, 35),
            "timezone" to Fields.matching(device.timezone, Fields.TIMEZONE, 64),
        ).also { body ->
            if (consent != null) body["consent"] = consent
            if (anonymous) body["anonymous"] = true
        }

    /** The consent route's `device`: the tracking the device gives now. Android has no ATT status. */
    fun tracking(advertisingId: String?): Map<String, Any?> =
        linkedMapOf(
            "maid" to maid(advertisingId),
            "att_status" to null,
        )

    /**
     * The advertising id as the install and the consent route send it. The all-zero id is what
     * Android gives without consent: no id at all. One that is no UUID is none too: the service
     * would refuse the whole request for it, and an install sent again without its optional
     * fields would lose its referrer and consent with it.
     */
    private fun maid(advertisingId: String?): String? = advertisingId?.takeIf { it != NO_ADVERTISING_ID && UUID.matches(it) }

    private val UUID = Regex("^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")

    /** The consent object of the install and of the consent route, keys in a fixed order. */
    fun consent(gdprApplies: Boolean?, adUserData: Boolean?, adPersonalization: Boolean?, tcfString: String?): Map<String, Any?> =
        linkedMapOf(
            "gdpr_applies" to gdprApplies,
            "ad_user_data" to adUserData,
            "ad_personalization" to adPersonalization,
            "tcf_string" to tcfString,
        )

    /**
     * The install with its required fields only, for a backend that refused the full one for
     * good: a first open ahead of the clock is the clock's now.
     */
    fun minimalInstall(full: Map<String, Any?>, nowMs: Long): Map<String, Any?> {
        val required = full.filterKeys { it in setOf("service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at", "anonymous") }
        val firstOpen = runCatching { Instant.parse(full["first_open_time"] as String).toEpochMilli() }.getOrNull()
        return if (firstOpen == null || firstOpen > nowMs) required + ("first_open_time" to iso(nowMs)) else required
    }

    private fun referrerJson(r: InstallReferrerDetails): Map<String, Any?> =
        linkedMapOf(
            "referrer" to r.referrer.take(2048),
            "click_timestamp" to r.clickTimestampSeconds,
            "install_begin_timestamp" to r.installBeginTimestampSeconds,
            "referrer_click_timestamp_server_seconds" to r.referrerClickTimestampServerSeconds,
            "install_begin_timestamp_server_seconds" to r.installBeginTimestampServerSeconds,
            "install_version" to Fields.text(r.installVersion, 64),
        )

    fun event(draft: Draft, parameters: Map<String, Any?>, serviceId: String): Map<String, Any?> {
        val event =
            linkedMapOf<String, Any?>(
                "event_id" to draft.eventId,
                "event_type" to draft.type.name,
                "event_name" to draft.name,
                "parameters" to parameters.takeIf { it.isNotEmpty() },
                "event_time" to iso(draft.timeMs),
                "service_id" to serviceId,
                "customer_user_id" to draft.customerUserId,
            )
        return if (draft.anonymous) anonymous(event) else event
    }

    /**
     * [event] as it leaves in anonymous mode: no customer user id, and marked, so the service
     * takes no device id for it either. An event not sent so carries no `anonymous` key at all.
     */
    fun anonymous(event: Map<String, Any?>): Map<String, Any?> = event + mapOf("customer_user_id" to null, "anonymous" to true)

    /** A session that started at [startedAtMs] by the device clock; [sessionId] is fresh, and kept on a retry. */
    fun session(sessionId: String, serviceId: String, startedAtMs: Long): Map<String, Any?> =
        linkedMapOf(
            "session_id" to sessionId,
            "service_id" to serviceId,
            "started_at" to iso(startedAtMs),
        )

    fun iso(ms: Long): String = Instant.ofEpochMilli(ms).toString()

    /**
     * [items] with a [timeField] after [sentAtMs] moved back to it. The device clock went back
     * since the item was made (a clock set days ahead, put right while the item waited
     * offline): it happened before it left, and the service refuses an item more than 24 hours
     * after its request's `sent_at`, which would lose it. Kept on the device as made.
     */
    fun notAfter(items: List<Map<String, Any?>>, timeField: String, sentAtMs: Long): List<Map<String, Any?>> =
        items.map { item ->
            val time = (item[timeField] as? String)?.let { runCatching { Instant.parse(it).toEpochMilli() }.getOrNull() }
            if (time != null && time > sentAtMs) item + (timeField to iso(sentAtMs)) else item
        }
}
