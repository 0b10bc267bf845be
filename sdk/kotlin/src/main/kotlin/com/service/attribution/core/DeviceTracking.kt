package com.service.attribution.core

/**
 * The device's tracking the backend holds for the install (docs/api.md#consent): what the install
 * reported, or what the last consent update carried. Kept on the device, so that a start sends an
 * update only when what the device gives now differs from it.
 */
internal class DeviceTracking(private val store: KeyValueStore) {
    /**
     * What the backend holds; null when unknown: an app stopped between recording its install and
     * keeping what it sent kept none, and the device's tracking then counts as changed at its
     * next start.
     */
    fun sent(): Map<String, Any?>? = store.get(KEY_TRACKING_SENT)?.let { runCatching { Json.parseObject(it) }.getOrNull() }

    fun differs(now: Map<String, Any?>): Boolean = Json.write(now) != store.get(KEY_TRACKING_SENT)

    /** The backend holds [tracking] now (or refused it for good): no update for it until it changes. */
    fun markSent(tracking: Map<String, Any?>) {
        store.put(KEY_TRACKING_SENT, Json.write(tracking))
    }

    private companion object {
        const val KEY_TRACKING_SENT = "tracking_sent"
    }
}
