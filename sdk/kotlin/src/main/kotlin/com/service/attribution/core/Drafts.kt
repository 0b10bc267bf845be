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
