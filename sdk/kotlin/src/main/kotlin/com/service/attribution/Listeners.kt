package com.service.attribution

/**
 * Told the install's attribution once it is resolved (`service_match_status` `matched`,
 * `matched_no_params`, `organic` or `skipped`), and again at every later start with the map kept
 * on the device; a listener set later is told at once. Runs on the main thread.
 */
fun interface AttributionListener {
    /** The attribution route's map, `service_match_status` included. */
    fun onAttribution(attribution: Map<String, String>)
}

/**
 * Told the links that open the app ([DeepLinkKind.DIRECT], from handleAppLink and
 * handleDeepLink) and, once per install, the link that brought the install
 * ([DeepLinkKind.DEFERRED]). Runs on the main thread.
 */
fun interface DeepLinkListener {
    fun onDeepLink(deepLink: DeepLink)
}

/** Told what the SDK could not do: events it dropped, an install the backend refuses. Runs on the main thread. */
fun interface ErrorListener {
    fun onError(error: ServiceError)
}

enum class DeepLinkKind(val wire: String) {
    /** A link that opened the app; the service records nothing for it. */
    DIRECT("direct"),

    /** The link that brought the install, from its attribution: delivered once per install. */
    DEFERRED("deferred"),
}

/**
 * A deep link: [path] is its `deep_link_path` (null when it has none or an empty one),
 * [params] its custom parameters (`deep_link_path` included), [deeplinkId] the link's id (a
 * direct link of the link host only), [url] the tapped URL (a direct link only; null for a
 * deferred one, which has no URL on the device).
 */
data class DeepLink(
    val kind: DeepLinkKind,
    val deeplinkId: String?,
    val path: String?,
    val params: Map<String, String>,
    val url: String?,
)

enum class ServiceErrorKind(val wire: String) {
    /** The backend refused the install (401, 403, 404, or its bare form): see [ServiceError.code]. */
    CONFIGURATION("configuration"),

    /** Events were dropped: see [ServiceError.reason] and [ServiceError.count]. */
    EVENTS_DROPPED("events_dropped"),
}

/** Why events were dropped (sdk/conformance/delivery.json's `dropReasons`). */
enum class DropReason(val wire: String) {
    /** The queue held its 1,000 events: the oldest went to make room. */
    QUEUE_FULL("queue_full"),

    /** The backend refused the event for good, alone in its request or by name. */
    REFUSED("refused"),

    /** Older than 30 days by the device's clock when about to be sent. */
    EXPIRED("expired"),

    /** [ServiceAttributionSdk.stop] dropped what was queued. */
    STOPPED("stopped"),

    /** Remote configuration switched the SDK off, or the API key was rejected. */
    DISABLED("disabled"),

    /** [ServiceAttributionSdk.deleteUserData]: the backend ignores the install's events. */
    DELETED("deleted"),
}

/**
 * What the error listener hears: [kind], the drop [reason] (EVENTS_DROPPED), the HTTP status
 * [code] (CONFIGURATION), [count] (events dropped; 1 for a configuration error) and a [message].
 */
data class ServiceError(
    val kind: ServiceErrorKind,
    val reason: DropReason?,
    val code: Int?,
    val count: Int,
    val message: String,
)

/**
 * The user's consent as the app's consent flow gathered it; null is not known. Sent on the
 * install (with the IAB TCF string the app's consent platform stored on the device) and again
 * whenever it changes after the install is recorded. [gdprApplies] null falls back to the
 * consent platform's `IABTCF_gdprApplies`.
 */
data class Consent @JvmOverloads constructor(
    val gdprApplies: Boolean? = null,
    val adUserData: Boolean? = null,
    val adPersonalization: Boolean? = null,
)
