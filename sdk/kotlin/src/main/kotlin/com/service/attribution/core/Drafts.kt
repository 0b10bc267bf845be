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
                linkedMapOf(
                    "event_id" to it.eventId,
                    "type" to it.type.name,
                    "name" to it.name,
                    "parameters" to it.parameters,
                    "time_ms" to it.timeMs,
                    "customer_user_id" to it.customerUserId,
                )
            },
        )

    @Suppress("UNCHECKED_CAST")
    fun read(text: String?): List<Draft> {
        if (text == null) return emptyList()
        val list = runCatching { Json.parse(text) as List<Map<String, Any?>> }.getOrNull() ?: return emptyList()
        return list.mapNotNull { m ->
            runCatching {
                Draft(
                    eventId = m["event_id"] as String,
                    type = EventType.valueOf(m["type"] as String),
                    name = m["name"] as String?,
                    parameters = (m["parameters"] as Map<String, Any?>?).orEmpty(),
                    timeMs = (m["time_ms"] as Number).toLong(),
                    customerUserId = m["customer_user_id"] as String?,
                )
            }.getOrNull()
        }
    }
}
