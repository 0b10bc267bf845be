package com.service.attribution.core

import java.time.Instant

/**
 * Events waiting to be sent, in the order they were sent, kept in the store so that an app
 * killed while offline sends them at its next launch. Each keeps its event_id, so a request
 * that reached the backend but whose answer was lost is sent again and deduplicated there.
 * Every method that drops events returns how many, for the caller to report.
 */
internal class EventQueue(private val store: KeyValueStore, private val max: Int) {
    private val events: MutableList<Map<String, Any?>> = load()

    val size get() = events.size

    /** Adds [event]; returns how many of the oldest went to keep the bound. */
    fun add(event: Map<String, Any?>): Int {
        events.add(event)
        // Bounded: a device offline for months must not fill its storage.
        var dropped = 0
        while (events.size > max) {
            events.removeAt(0)
            dropped++
        }
        save()
        return dropped
    }

    fun peek(count: Int): List<Map<String, Any?>> = events.take(count).toList()

    /** Removes the first [count] events but those at [keep], which stay first, in order. */
    fun remove(count: Int, keep: Set<Int>) {
        val head = events.take(count)
        repeat(minOf(count, events.size)) { events.removeAt(0) }
        events.addAll(0, head.filterIndexed { i, _ -> i in keep })
        save()
    }

    /** Removes the events whose event_time is before [cutoffMs]; returns how many. */
    fun expire(cutoffMs: Long): Int {
        val before = events.size
        events.removeAll { event ->
            val time = (event["event_time"] as? String)?.let { runCatching { Instant.parse(it).toEpochMilli() }.getOrNull() }
            time != null && time < cutoffMs
        }
        val dropped = before - events.size
        if (dropped > 0) save()
        return dropped
    }

    /** Empties the queue; returns how many events it held. */
    fun clear(): Int {
        val dropped = events.size
        events.clear()
        store.remove(KEY)
        return dropped
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
