package com.service.attribution.core

import java.time.Instant

/**
 * What waits to be sent (events, sessions), in the order it was made, kept in the store under
 * [key] so that an app killed while offline sends it at its next launch. Each item keeps its
 * id (`event_id`, `session_id`), so a request that reached the backend but whose answer was
 * lost is sent again and deduplicated there. Every method that drops items returns how many,
 * for the caller to report.
 */
internal class StoredQueue(
    private val store: KeyValueStore,
    private val max: Int,
    private val key: String = EVENTS,
    /** The field holding when the item was made (ISO 8601), which [expire] reads. */
    private val timeField: String = "event_time",
) {
    private val items: MutableList<Map<String, Any?>> = load()

    val size get() = items.size

    /** Adds [item]; returns how many of the oldest went to keep the bound. */
    fun add(item: Map<String, Any?>): Int {
        items.add(item)
        // Bounded: a device offline for months must not fill its storage.
        var dropped = 0
        while (items.size > max) {
            items.removeAt(0)
            dropped++
        }
        save()
        return dropped
    }

    fun peek(count: Int): List<Map<String, Any?>> = items.take(count).toList()

    /** Removes the first [count] items but those at [keep], which stay first, in order. */
    fun remove(count: Int, keep: Set<Int>) {
        val head = items.take(count)
        repeat(minOf(count, items.size)) { items.removeAt(0) }
        items.addAll(0, head.filterIndexed { i, _ -> i in keep })
        save()
    }

    /** Removes the items made before [cutoffMs]; returns how many. */
    fun expire(cutoffMs: Long): Int {
        val before = items.size
        items.removeAll { item ->
            val time = (item[timeField] as? String)?.let { runCatching { Instant.parse(it).toEpochMilli() }.getOrNull() }
            time != null && time < cutoffMs
        }
        val dropped = before - items.size
        if (dropped > 0) save()
        return dropped
    }

    /** Empties the queue; returns how many items it held. */
    fun clear(): Int {
        val dropped = items.size
        items.clear()
        store.remove(key)
        return dropped
    }

    @Suppress("UNCHECKED_CAST")
    private fun load(): MutableList<Map<String, Any?>> {
        val text = store.get(key) ?: return ArrayList()
        return runCatching { (Json.parse(text) as List<Map<String, Any?>>).toMutableList() }.getOrElse { ArrayList() }
    }

    private fun save() {
        if (items.isEmpty()) store.remove(key) else store.put(key, Json.write(items))
    }

    companion object {
        /** The events' queue, under the key it always had. */
        const val EVENTS = "event_queue"
        const val SESSIONS = "session_queue"
    }
}
