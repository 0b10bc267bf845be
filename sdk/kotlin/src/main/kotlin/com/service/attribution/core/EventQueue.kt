package com.service.attribution.core

/**
 * Events waiting to be sent, in the order they were sent, kept in the store so that an app
 * killed while offline sends them at its next launch. Each keeps its event_id, so a request
 * that reached the backend but whose answer was lost is sent again and deduplicated there.
 */
internal class EventQueue(private val store: KeyValueStore, private val max: Int) {
    private val events: MutableList<Map<String, Any?>> = load()

    val size get() = events.size

    fun add(event: Map<String, Any?>) {
        events.add(event)
        // Bounded: a device offline for months must not fill its storage.
        while (events.size > max) events.removeAt(0)
        save()
    }

    fun peek(count: Int): List<Map<String, Any?>> = events.take(count).toList()

    /** Removes the first [count] events but those at [keep], which stay first, in order. */
    fun remove(count: Int, keep: Set<Int>) {
        val head = events.take(count)
        repeat(minOf(count, events.size)) { events.removeAt(0) }
        events.addAll(0, head.filterIndexed { i, _ -> i in keep })
        save()
    }

    fun clear() {
        events.clear()
        store.remove(KEY)
    }

    @Suppress("UNCHECKED_CAST")
    private fun load(): MutableList<Map<String, Any?>> {
        val text = store.get(KEY) ?: return ArrayList()
        return runCatching { (Json.parse(text) as List<Map<String, Any?>>).toMutableList() }.getOrElse { ArrayList() }
    }

    private fun save() {
        if (events.isEmpty()) store.remove(KEY) else store.put(KEY, Json.write(events))
    }

    private companion object {
        const val KEY = "event_queue"
    }
}
