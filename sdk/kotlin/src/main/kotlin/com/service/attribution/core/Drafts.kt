package com.service.attribution.core

import com.service.attribution.EventType
import java.util.UUID

/** sendEvent's rules (sdk/conformance/parameters.json), before anything is queued. */
internal object Drafts {
    const val CUSTOM_NAME_RULE = "name is required for CUSTOM events"

    /**
     * The event to queue, or null for a manual INSTALL, which the SDK tracks itself. Throws
     * IllegalArgumentException for CUSTOM without a name: a programming error, seen at once.
     */
    fun create(
        event: EventType,
        name: String?,
        parameters: Map<String, Any?>?,
        timeMs: Long,
        customerUserId: String?,
        log: Logger,
    ): Draft? {
        require(event != EventType.CUSTOM || !name.isNullOrBlank()) { CUSTOM_NAME_RULE }
        if (event == EventType.INSTALL) {
            log.info("INSTALL is tracked by the SDK itself: this event is not sent")
            return null
        }
        val cleaned = Parameters.clean(parameters)
        if (cleaned.dropped.isNotEmpty()) {
            log.warn("${event.name}: values JSON cannot hold were left out: ${cleaned.dropped.joinToString()}")
        }
        return Draft(
            eventId = UUID.randomUUID().toString(),
            type = event,
            // A standard event's name means nothing to the backend: it is not sent.
            name = if (event == EventType.CUSTOM) name else null,
            parameters = cleaned.parameters,
            timeMs = timeMs,
            customerUserId = customerUserId,
        )
    }
}

/**
 * Drafts as kept in the journal, a JSON object a line ([LineLog]), so that an event handed to
 * sendEvent survives the process.
 */
internal object DraftJson {
    fun line(draft: Draft): String =
        Json.write(
            linkedMapOf<String, Any?>(
                "event_id" to draft.eventId,
                "type" to draft.type.name,
                "name" to draft.name,
                "parameters" to draft.parameters,
                "time_ms" to draft.timeMs,
                "customer_user_id" to draft.customerUserId,
            ).also { if (draft.anonymous) it["anonymous"] = true },
        )

    /** The drafts read back from the journal, and what a damaged value there cost (null: nothing). */
    class Read(val drafts: List<Draft>, val lost: StoredLoss?)

    /**
     * The journal's drafts, one by one: a line that cannot be read (damaged, or cut short by a
     * process killed as it wrote it) is lost alone; what was lost is counted, for the core to report.
     */
    @Suppress("UNCHECKED_CAST")
    fun read(lines: List<String>): Read {
        val drafts = ArrayList<Draft>()
        var lost = 0
        var why: String? = null
        for (line in lines) {
            val draft =
                runCatching {
                    val m = Json.parseObject(line)
                    Draft(
                        eventId = m["event_id"] as String,
                        type = EventType.valueOf(m["type"] as String),
                        name = m["name"] as String?,
                        parameters = (m["parameters"] as Map<String, Any?>?).orEmpty(),
                        timeMs = (m["time_ms"] as Number).toLong(),
                        customerUserId = m["customer_user_id"] as String?,
                        anonymous = m["anonymous"] == true,
                    )
                }
            draft.onSuccess { drafts.add(it) }.onFailure {
                lost++
                why = why ?: if (it is IllegalArgumentException && it.message?.startsWith("JSON") == true) it.message else "an event of another shape"
            }
        }
        return Read(drafts, if (lost == 0) null else StoredLoss(lost, why = why ?: "an event of another shape"))
    }
}
