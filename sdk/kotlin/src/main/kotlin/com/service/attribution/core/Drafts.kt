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

/** Drafts as kept in the journal (JSON), so that an event handed to sendEvent survives the process. */
internal object DraftJson {
    fun write(drafts: List<Draft>): String =
        Json.write(
            drafts.map {
                linkedMapOf<String, Any?>(
                    "event_id" to it.eventId,
                    "type" to it.type.name,
                    "name" to it.name,
                    "parameters" to it.parameters,
                    "time_ms" to it.timeMs,
                    "customer_user_id" to it.customerUserId,
                ).also { draft -> if (it.anonymous) draft["anonymous"] = true }
            },
        )

    /** The drafts read back from the journal, and what a damaged value there cost (null: nothing). */
    class Read(val drafts: List<Draft>, val lost: StoredLoss?)

    /**
     * The journal's drafts, one by one: a draft that cannot be read is lost alone, and those
     * before a break in the text are kept; what was lost is counted, for the core to report.
     */
    @Suppress("UNCHECKED_CAST")
    fun read(text: String?): Read {
        if (text == null) return Read(emptyList(), null)
        val read = Json.parseArrayUpToBreak(text)
        val drafts = ArrayList<Draft>()
        var lost = 0
        for (item in read.items) {
            val m = item as? Map<String, Any?>
            val draft =
                m?.let {
                    runCatching {
                        Draft(
                            eventId = m["event_id"] as String,
                            type = EventType.valueOf(m["type"] as String),
                            name = m["name"] as String?,
                            parameters = (m["parameters"] as Map<String, Any?>?).orEmpty(),
                            timeMs = (m["time_ms"] as Number).toLong(),
                            customerUserId = m["customer_user_id"] as String?,
                            // Left out by a launch of an earlier version, which had no such mark.
                            anonymous = m["anonymous"] == true,
                        )
                    }.getOrNull()
                }
            if (draft != null) drafts.add(draft) else lost++
        }
        // The text breaks off: its rest held one draft at least.
        if (read.broken != null) lost++
        val loss = if (lost == 0) null else StoredLoss(lost, atLeast = read.broken != null, why = read.broken ?: "an event of another shape")
        return Read(drafts, loss)
    }
}
