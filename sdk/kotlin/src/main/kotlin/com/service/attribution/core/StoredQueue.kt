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
    /**
     * What the queue kept on the device lost when read back (a damaged value), for the core to
     * report once configured; null when nothing was lost.
     */
    var lostOnLoad: StoredLoss? = null
        get() = items.let { field }
        private set

    /**
     * Read back from the device at the queue's first use, not as it is made: the core makes it
     * in configure, on the app's thread (the main one, mostly), and uses it on its worker, where
     * a queue of a thousand events an offline device kept is parsed without holding up the app.
     */
    private val items: MutableList<Map<String, Any?>> by lazy { load() }

    val size get() = items.size

    /**
     * Adds [newItems] and writes the queue to the device; returns how many of the oldest went to
     * keep the bound, or null when the write did not reach the disk. The queue is then as it was,
     * in memory as on the device, so that nothing in it exists only in memory: the caller keeps
     * the items where they already are on the device (sendEvent's journal), or puts them there
     * (a session), and tries again later.
     */
    fun addAll(newItems: List<Map<String, Any?>>): Int? {
        val before = ArrayList(items)
        items.addAll(newItems)
        // Bounded: a device offline for months must not fill its storage.
        var dropped = 0
        while (items.size > max) {
            items.removeAt(0)
            dropped++
        }
        if (save()) return dropped
        items.clear()
        items.addAll(before)
        // Written back as it was: SharedPreferences keep a failed commit's value in memory, and
        // the next write of the file that succeeds would put it on the disk after all.
        save()
        return null
    }

    /** The values of [field] over the queue (each item's id). */
    fun values(field: String): Set<Any?> = items.mapTo(HashSet()) { it[field] }

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

    /**
     * The queue kept on the device, item by item: an item that is no JSON object is lost alone,
     * and the items before a break in the text are kept. What was lost is counted in
     * [lostOnLoad], and the queue written back without it, so that the loss is reported once.
     */
    @Suppress("UNCHECKED_CAST")
    private fun load(): MutableList<Map<String, Any?>> {
        val text = store.get(key) ?: return ArrayList()
        val read = Json.parseArrayUpToBreak(text)
        val loaded = ArrayList<Map<String, Any?>>()
        var lost = 0
        for (item in read.items) {
            if (item is Map<*, *>) loaded.add(item as Map<String, Any?>) else lost++
        }
        // The text breaks off: its rest held one item at least.
        if (read.broken != null) lost++
        if (lost == 0) return loaded
        lostOnLoad = StoredLoss(lost, atLeast = read.broken != null, why = read.broken ?: "an item of another shape")
        if (loaded.isEmpty()) store.remove(key) else store.put(key, Json.write(loaded))
        return loaded
    }

    /** False when the write did not reach the disk. */
    private fun save(): Boolean = if (items.isEmpty()) store.remove(key) else store.put(key, Json.write(items))

    companion object {
        /** The events' queue, under the key it always had. */
        const val EVENTS = "event_queue"
        const val SESSIONS = "session_queue"
    }
}

/**
 * What a value kept on the device cost when it could not be read back: [count] items lost (at
 * least that many when [atLeast]: the text broke off, and how many its rest held is not known),
 * and [why], for the log.
 */
internal class StoredLoss(val count: Int, val atLeast: Boolean, val why: String) {
    fun describe(noun: String, where: String): String =
        "${if (atLeast) "at least " else ""}$count $noun${if (count == 1 && !atLeast) "" else "s"} lost: $where could not be read back ($why)"
}
