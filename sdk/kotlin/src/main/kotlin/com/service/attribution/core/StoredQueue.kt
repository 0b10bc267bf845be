package com.service.attribution.core

import java.time.Instant

/**
 * What waits to be sent (events, sessions), in the order it was made, kept on the device in
 * [log] so that an app killed while offline sends it at its next launch: a JSON object a line,
 * so that an item added costs what the item does, not what the queue holds (a phone offline
 * for a day queues a thousand events, and writes each once). The queue is written whole when
 * items leave it, and once for every [max] items the bound drops. Each item keeps its id
 * (`event_id`, `session_id`), so a request that reached the backend but whose answer was lost
 * is sent again and deduplicated there. Every method that drops items returns how many, for
 * the caller to report. A queue whose items move on to another has a [Handoff], so that an item
 * it let go is not taken from its file again.
 */
internal class StoredQueue(
    private val log: LineLog,
    private val max: Int,
    /** The field holding when the item was made (ISO 8601), which [expire] reads. */
    private val timeField: String = "event_time",
    /** The field holding the item's id, without which a kept item is not one the queue made. */
    private val idField: String = "event_id",
    /** What a load leaves out, for a queue whose items move on to another; null when they leave for the backend alone. */
    private val handoff: Handoff? = null,
) {
    /**
     * What the queue kept on the device lost when read back (a damaged line, one cut short),
     * for the core to report once configured; null when nothing was lost.
     */
    var lostOnLoad: StoredLoss? = null
        get() = items.let { field }
        private set

    /** The lines in [log]: the items, and those the bound dropped since it was last written whole. */
    private var lines = 0

    /**
     * Read back from the device at the queue's first use, not as it is made: the core makes it
     * in configure, on the app's thread (the main one, mostly), and uses it on its worker, where
     * a queue of a thousand events an offline device kept is parsed without holding up the app.
     */
    private val items: MutableList<Map<String, Any?>> by lazy { load() }

    val size get() = items.size

    /**
     * Adds [newItems] and writes them to the device; returns how many of the oldest went to
     * keep the bound, or null when the write did not reach the disk. The queue is then as it was,
     * in memory as on the device, so that nothing in it exists only in memory: the caller keeps
     * the items where they already are on the device (sendEvent's journal), or puts them there
     * (a session), and tries again later.
     */
    fun addAll(newItems: List<Map<String, Any?>>): Int? {
        val before = ArrayList(items)
        items.addAll(newItems)
        // Bounded: a device offline for months must not fill its storage. The oldest stay in the
        // log until it is written whole; a launch reads the newest [max].
        var dropped = 0
        while (items.size > max) {
            items.removeAt(0)
            dropped++
        }
        val written =
            if (lines + newItems.size > 2 * max) {
                save()
            } else {
                log.append(newItems.map { Json.write(it) }).also { if (it) lines += newItems.size }
            }
        if (written) return dropped
        items.clear()
        items.addAll(before)
        // Written back whole as it was: whatever of the failed write reached the disk goes.
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
        saveWithout(head.filterIndexed { i, _ -> i !in keep })
    }

    /** Removes the items whose id is one of [ids], wherever they are; returns how many it found. */
    fun removeIds(ids: Set<Any?>): Int = removeWhere { it[idField] in ids }

    /** Removes the items made before [cutoffMs]; returns how many. */
    fun expire(cutoffMs: Long): Int =
        removeWhere { item ->
            val time = (item[timeField] as? String)?.let { runCatching { Instant.parse(it).toEpochMilli() }.getOrNull() }
            time != null && time < cutoffMs
        }

    /** Empties the queue; returns how many items it held. */
    fun clear(): Int {
        val left = items.toList()
        items.clear()
        saveWithout(left)
        return left.size
    }

    private fun removeWhere(predicate: (Map<String, Any?>) -> Boolean): Int {
        val left = items.filter(predicate)
        if (left.isEmpty()) return 0
        items.removeAll(predicate)
        saveWithout(left)
        return left.size
    }

    /**
     * The queue kept on the device, line by line: a line that is no JSON object with an id
     * (damaged, or cut short by a process killed as it wrote it) is lost alone; sent, an item
     * without its id could not be told from its own retry. What was lost is counted in
     * [lostOnLoad], and the queue written back without it, so that the loss is reported once;
     * so is it without what the [handoff] says was taken already.
     */
    private fun load(): MutableList<Map<String, Any?>> {
        val read = log.read()
        val taken = handoff?.taken().orEmpty()
        val loaded = ArrayList<Map<String, Any?>>()
        val skipped = ArrayList<Any?>()
        var lost = 0
        var why: String? = null
        for (line in read) {
            runCatching { Json.parseObject(line) }
                .onSuccess { item ->
                    val id = item[idField]
                    if (id is String && id in taken) {
                        skipped.add(id)
                    } else if (id is String) {
                        loaded.add(item)
                    } else {
                        lost++
                        why = why ?: "an item without $idField"
                    }
                }.onFailure {
                    lost++
                    why = why ?: it.message
                }
        }
        lines = read.size
        // More than the bound: the oldest were dropped (and reported) as the newest came.
        while (loaded.size > max) loaded.removeAt(0)
        if (lost > 0) lostOnLoad = StoredLoss(lost, why = why ?: "an item of another shape")
        if (lost == 0 && skipped.isEmpty()) return loaded
        if (!writeWhole(loaded)) handoff?.left(skipped)
        return loaded
    }

    /** The queue written whole; false when the write did not reach the disk. */
    private fun save(): Boolean = writeWhole(items)

    /**
     * The queue written whole, [left] just gone from it: when the write fails, the device still
     * holds them, and the [handoff] notes them, so that no load takes them again.
     */
    private fun saveWithout(left: List<Map<String, Any?>>) {
        if (!save() && left.isNotEmpty()) handoff?.left(left.map { it[idField] })
    }

    private fun writeWhole(queued: List<Map<String, Any?>>): Boolean =
        log.write(queued.map { Json.write(it) }).also {
            if (it) {
                lines = queued.size
                handoff?.written()
            }
        }

    companion object {
        /** Where the events' queue is kept (a file of that name on Android). */
        const val EVENTS = "event_queue"
        const val SESSIONS = "session_queue"
    }
}

/**
 * For a queue whose items move on to another (the sessions' journal, whose sessions the sessions'
 * queue takes once its file can; sendEvent's file, whose events the events' queue takes): each
 * item taken from it once, and so sent or counted once, whichever write fails on the way. The two
 * files are written one after the other, and a write of this queue's that fails (a full disk)
 * leaves there what it let go: moved, or dropped and counted. A load would take that again, to
 * send or count it a second time. So a load leaves out what [movedTo] holds, moved already, and
 * the items whose ids [store] keeps under [key]: those that left while the queue's file still held
 * them, noted only when such a write fails, in another file than the queue's, and forgotten once
 * the queue's file is written whole. sendEvent's file gives no [movedTo]: configure reads it on
 * the app's thread, where the events' queue is never read, and the worker leaves out what that
 * queue holds.
 */
internal class Handoff(private val store: KeyValueStore, private val key: String, private val movedTo: () -> Set<Any?> = { emptySet() }) {
    /** The ids kept under [key], read at the first use. */
    private val gone: MutableSet<String> by lazy {
        store.get(key)?.split('\n')?.filterTo(LinkedHashSet()) { it.isNotEmpty() } ?: LinkedHashSet()
    }

    /** The ids of the items a load of the queue leaves out. */
    fun taken(): Set<Any?> = HashSet<Any?>(gone).apply { addAll(movedTo()) }

    /** The items of [ids] left the queue, whose file may still hold them: kept with those kept before. */
    fun left(ids: List<Any?>) {
        if (ids.isEmpty()) return
        gone.addAll(ids.filterIsInstance<String>())
        store.put(key, gone.joinToString("\n"))
    }

    /** The queue's file holds what the queue does: nothing left out any longer. */
    fun written() {
        if (gone.isNotEmpty() && store.remove(key)) gone.clear()
    }
}

/**
 * What a value kept on the device cost when it could not be read back: [count] items lost (a
 * line each), and [why], for the log.
 */
internal class StoredLoss(val count: Int, val why: String) {
    fun describe(noun: String, where: String): String =
        "$count $noun${if (count == 1) "" else "s"} lost: $where could not be read back ($why)"
}
