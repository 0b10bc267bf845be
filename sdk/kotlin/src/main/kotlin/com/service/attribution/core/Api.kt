package com.service.attribution.core

import com.service.attribution.AuthenticationException
import com.service.attribution.DropReason
import com.service.attribution.HttpException
import java.io.IOException
import java.net.URLEncoder
import java.time.ZonedDateTime
import java.time.format.DateTimeFormatter
import java.time.format.DateTimeParseException
import java.util.concurrent.ThreadLocalRandom

/** What a POST /v1/events or /v1/sessions answer asks of the SDK. */
internal data class BatchVerdict(
    /** Indexes to send again later (the install is not recorded yet, or the backend asks for it). */
    val retry: Set<Int>,
    /** Why items were refused for good, for the log; one entry per item. */
    val refused: List<String>,
    /** Items the backend ignored (taken, never stored), by the drop each counts as. */
    val ignored: Map<DropReason, Int> = emptyMap(),
    /** How many the backend stored. */
    val accepted: Int = 0,
    /**
     * Whether a retryable refusal says the install is not recorded (`Conflict`): the install is
     * reported again before these items. Another retryable refusal is only sent again later.
     */
    val installMissing: Boolean = false,
    /**
     * Items of the request ignored for a reason the SDK does not know, in the backend's words;
     * one entry per item, none of them named above. Not sent again, so dropped and said.
     */
    val unexplained: List<String> = emptyList(),
    /**
     * Refusals and ignored entries whose `index` names no item of the request (missing, not a
     * whole number, out of range), in the backend's words. Which item each speaks of is unknown:
     * it can only be one that no entry named.
     */
    val unplaced: List<String> = emptyList(),
    /** Entries naming an item another entry named already: left out of every count above. */
    val namedAgain: Int = 0,
    /**
     * Items ignored as `duplicate_event`: each repeats the id of an earlier item of the same
     * request, which the backend stored. The event is delivered, so a repeat is no drop.
     */
    val repeated: Int = 0,
    /** What the backend says of items it stored not quite as sent, in its words; one entry per warning. */
    val warnings: List<String> = emptyList(),
)

/**
 * A 2xx whose body is not what the contract says (no JSON, or JSON of another shape): handled
 * like a 5xx, since a proxy or a captive portal may answer for the backend.
 */
internal class UnexpectedAnswerException(message: String) : IOException(message)

/**
 * The backend's SDK routes (spec/openapi.json), with the bare SDK key in `Authorization`.
 * A 401 or 403 is an [AuthenticationException]; any other non-success status an [HttpException];
 * no answer at all an IOException from the transport, a 2xx not of the contract an
 * [UnexpectedAnswerException].
 */
internal class Api(
    baseUrl: String,
    private val apiKey: String,
    private val http: HttpTransport,
    private val clock: () -> Long = System::currentTimeMillis,
) {
    private val base = baseUrl.trimEnd('/')

    /** Until when (device clock) the backend asked, by a `Retry-After`, not to be asked again. */
    @Volatile private var quietUntilMs = 0L

    /**
     * How much longer the backend asked to be left alone: the `Retry-After` of its last answer
     * that asked to be tried again later (408, 425, 429, 5xx), 0 once that time has passed.
     */
    fun askedToWaitMs(): Long = maxOf(0L, quietUntilMs - clock())

    fun config(): RemoteConfig {
        val body =
            try {
                call("GET", "/v1/config", null).body
            } catch (e: AuthenticationException) {
                // The backend rejects a key with 401. A 403 here comes from something in the way
                // (a firewall's block of the phone's address): a failed read, which keeps the
                // configuration in force and the queue, not a verdict that switches the SDK off.
                if (e.code == 403) throw HttpException(e.code, e.message) else throw e
            }
        return try {
            RemoteConfig.parse(body)
        } catch (e: RuntimeException) {
            throw UnexpectedAnswerException("GET /v1/config answered ${describe(body)}")
        }
    }

    fun install(body: Map<String, Any?>) {
        jsonObject("POST /v1/installs", call("POST", "/v1/installs", Json.write(body)).body)
    }

    /** [sentAtMs]: the device clock as the request leaves, set again on each attempt. */
    fun events(events: List<Map<String, Any?>>, sentAtMs: Long): BatchVerdict = batch("/v1/events", "events", "event_time", events, sentAtMs)

    /** POST /v1/sessions: answered as the events are, one verdict per session. */
    fun sessions(sessions: List<Map<String, Any?>>, sentAtMs: Long): BatchVerdict =
        batch("/v1/sessions", "sessions", "started_at", sessions, sentAtMs)

    private fun batch(
        path: String,
        field: String,
        timeField: String,
        items: List<Map<String, Any?>>,
        sentAtMs: Long,
    ): BatchVerdict {
        val sent = Requests.notAfter(items, timeField, sentAtMs)
        val body = Json.write(linkedMapOf("sent_at" to Requests.iso(sentAtMs), field to sent))
        val answer = jsonObject("POST $path", call("POST", path, body).body)
        val rejectedField = answer["rejected"]
        val rejectedList: List<*> =
            when {
                answer["accepted"] !is Number -> null
                rejectedField == null -> emptyList<Any?>()
                else -> rejectedField as? List<*>
            } ?: throw UnexpectedAnswerException("POST $path answered ${describe(Json.write(answer))}")
        val retry = LinkedHashSet<Int>()
        val refused = ArrayList<String>()
        val unexplained = ArrayList<String>()
        val unplaced = ArrayList<String>()
        var namedAgain = 0
        var installMissing = false
        // The items a refusal or an ignored entry named already: an item named twice, in one
        // list or in both, is counted once, as the first entry naming it says.
        val named = HashSet<Int>()
        for (verdict in rejectedList.mapNotNull { it as? Map<*, *> }) {
            val error = verdict["error"] as? String
            val detail = verdict["detail"] as? String
            val index = itemIndex(verdict, items.size)
            if (index == null) {
                unplaced += "a refusal naming no item of the request (index ${verdict["index"]}): ${error ?: "rejected"}: ${detail ?: "no detail"}"
                continue
            }
            if (!named.add(index)) {
                namedAgain++
                continue
            }
            if (verdict["retryable"] == true) {
                retry += index
                if (error == "Conflict") installMissing = true
            } else {
                refused += "#$index: ${detail ?: error ?: "refused"}"
            }
        }
        val ignored = LinkedHashMap<DropReason, Int>()
        var repeated = 0
        for (verdict in (answer["ignored"] as? List<*>).orEmpty().mapNotNull { it as? Map<*, *> }) {
            val reason = verdict["reason"] as? String
            val index = itemIndex(verdict, items.size)
            if (index == null) {
                unplaced += "an ignored entry naming no item of the request (index ${verdict["index"]}): ${reason ?: "no reason"}: ${verdict["detail"] as? String ?: "no detail"}"
                continue
            }
            if (!named.add(index)) {
                namedAgain++
                continue
            }
            val drop = reason?.let(IGNORED_AS::get)
            if (reason == DUPLICATE) {
                repeated++
            } else if (drop != null) {
                ignored[drop] = (ignored[drop] ?: 0) + 1
            } else {
                unexplained += "ignored by the backend (${reason ?: "no reason"}): ${verdict["detail"] as? String ?: "no detail"}"
            }
        }
        val warnings =
            (answer["warnings"] as? List<*>).orEmpty().mapNotNull { it as? Map<*, *> }.map { warning ->
                val id = (warning["event_id"] as? String)?.let { " ($it)" } ?: ""
                "#${(warning["index"] as? Number)?.toInt() ?: "?"}$id: ${warning["detail"] as? String ?: "no detail"}"
            }
        return BatchVerdict(
            warnings = warnings,
            retry = retry,
            refused = refused,
            ignored = ignored,
            // A count below 0 (out of contract) accepts none: it cannot make more drops than items.
            accepted = maxOf(0, (answer["accepted"] as Number).toInt()),
            installMissing = installMissing,
            unexplained = unexplained,
            unplaced = unplaced,
            namedAgain = namedAgain,
            repeated = repeated,
        )
    }

    /** Only a whole number naming an item of this request places a verdict on it. */
    private fun itemIndex(verdict: Map<*, *>, size: Int): Int? =
        (verdict["index"] as? Number)?.takeIf { it.toDouble() == Math.rint(it.toDouble()) }?.toLong()
            ?.takeIf { it >= 0 && it < size }?.toInt()

    /**
     * POST /v1/installs/{service_id}/consent: 202 once stored, 409 while the install is not
     * recorded. [device]: the device's tracking as it now stands; null leaves it out, and the
     * service keeps what it holds.
     */
    fun consent(serviceId: String, consent: Map<String, Any?>, device: Map<String, Any?>?, sentAtMs: Long) {
        val body =
            Json.write(
                linkedMapOf<String, Any?>("sent_at" to Requests.iso(sentAtMs), "consent" to consent).also {
                    if (device != null) it["device"] = device
                },
            )
        jsonObject("POST /v1/installs/{id}/consent", call("POST", "/v1/installs/${encode(serviceId)}/consent", body).body)
    }

    fun deleteInstall(serviceId: String) {
        call("DELETE", "/v1/installs/${encode(serviceId)}", null)
    }

    /** The flat map; empty while the install's attribution is not resolved. */
    fun attribution(serviceId: String, waitSeconds: Int): Map<String, String> {
        val body = call("GET", "/v1/installs/${encode(serviceId)}/attribution?wait_seconds=$waitSeconds", null).body
        return jsonObject("GET attribution", body).mapNotNull { (k, v) -> (v as? String)?.let { k to it } }.toMap()
    }

    private fun jsonObject(what: String, body: String): Map<String, Any?> =
        try {
            Json.parseObject(body)
        } catch (e: RuntimeException) {
            throw UnexpectedAnswerException("$what answered ${describe(body)}")
        }

    private fun describe(body: String): String =
        if (body.isBlank()) "an empty body" else "a body not of the contract: " + body.take(80).replace('\n', ' ')

    private fun call(method: String, path: String, body: String?): HttpResponse {
        val headers = LinkedHashMap<String, String>()
        headers["Authorization"] = apiKey
        headers["Accept"] = "application/json"
        if (body != null) headers["Content-Type"] = "application/json"
        val response = http.send(HttpRequest(method, base + path, headers, body))
        if (response.code >= 400 && !SdkCore.refusedForGood(response.code)) {
            val now = clock()
            retryAfterMs(response.retryAfter, now)?.let { quietUntilMs = maxOf(quietUntilMs, now + it) }
        }
        return when (response.code) {
            in 200..299 -> response
            401, 403 -> throw AuthenticationException(response.code, detailOf(response))
            else -> {
                if (!isVerdict(response)) {
                    throw UnexpectedAnswerException("$method $path answered ${response.code} with ${describe(response.body)}: not the service's refusal, sent again later")
                }
                throw HttpException(response.code, detailOf(response))
            }
        }
    }

    /**
     * Whether a 4xx refuses what was sent for good, as the service says it: in its error shape
     * (a JSON object with `error`). One from something in the way (a proxy's 400 or 407, a
     * filter's 451, a captive portal's page) is no verdict on the request, and is sent again
     * later as a 5xx is (delivery.json). A 413 splits a batch whatever its body: something in the
     * way may take less than the service; 401, 403 and 404 are a configuration error either way.
     */
    private fun isVerdict(response: HttpResponse): Boolean {
        val code = response.code
        if (!SdkCore.refusedForGood(code) || code == 413 || SdkCore.isConfigurationError(code)) return true
        return runCatching { Json.parseObject(response.body)["error"] is String }.getOrDefault(false)
    }

    private fun detailOf(response: HttpResponse): String {
        val detail = runCatching { Json.parseObject(response.body)["detail"] as? String }.getOrNull()
        return "HTTP ${response.code}" + (detail?.let { ": $it" } ?: "")
    }

    private fun encode(segment: String) = URLEncoder.encode(segment, "UTF-8").replace("+", "%20")
}

/**
 * The backend's reasons for an ignored event or session that are drops on the device: the
 * install's data deleted, the app switched off (sdk/conformance/delivery.json's `ignoredReasons`).
 * [DUPLICATE] is none: the item it names was delivered. (A manual INSTALL, also ignored, is
 * never sent.) Any other reason is a drop the SDK cannot name: reported as refused, in the
 * backend's words.
 */
private val IGNORED_AS = mapOf("install_deleted" to DropReason.DELETED, "app_disabled" to DropReason.DISABLED)

/**
 * A repeat of an item under an id an earlier item of the same request carried: the backend
 * stored that first copy, so the event is delivered. Reporting the repeat as dropped would tell
 * the app of a loss that did not happen, and count it on the device.
 */
private const val DUPLICATE = "duplicate_event"

/** The longest a `Retry-After` is waited for: a device asked for more tries again after this. */
internal const val MAX_RETRY_AFTER_MS = 60L * 60 * 1000

/**
 * A `Retry-After` as a wait in milliseconds from [nowMs]: delay-seconds, or an HTTP date
 * (RFC 9110); null when absent or unreadable; never more than [MAX_RETRY_AFTER_MS].
 */
internal fun retryAfterMs(value: String?, nowMs: Long): Long? {
    val text = value?.trim()?.takeIf { it.isNotEmpty() } ?: return null
    val ms =
        if (text.all { it in '0'..'9' }) {
            text.toBigInteger().min(java.math.BigInteger.valueOf(MAX_RETRY_AFTER_MS / 1000)).toLong() * 1000
        } else {
            try {
                ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli() - nowMs
            } catch (e: DateTimeParseException) {
                return null
            }
        }
    return ms.coerceIn(0L, MAX_RETRY_AFTER_MS)
}

/** The share of a backoff a jittered wait is at least. */
internal const val JITTER_LOWEST_SHARE = 0.5

/**
 * The wait before an attempt whose backoff is [backoffMs]: a random point between
 * [JITTER_LOWEST_SHARE] of it and the whole ("equal jitter"), so that devices that failed
 * together (the backend down for a while) do not all come back at the same moment.
 */
internal fun jittered(backoffMs: Long, random: java.util.Random = ThreadLocalRandom.current()): Long {
    val least = (backoffMs * JITTER_LOWEST_SHARE).toLong()
    return least + Math.floorMod(random.nextLong(), backoffMs - least + 1)
}
