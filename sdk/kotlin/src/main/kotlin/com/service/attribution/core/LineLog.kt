package com.service.attribution.core

/**
 * Text kept on the device that grows a line at a time: sendEvent's journal of events and the
 * queues, where an item is a line added, so that adding one costs the same with a thousand
 * waiting (a device offline) as with none. It is written whole when items leave it, on the
 * worker.
 */
internal interface LineLog {
    /** The lines kept, in order; empty when there are none. A line cut short by a write the process did not finish is among them, as it is. */
    fun read(): List<String>

    /** Adds [lines] (none with a line break in it) at the end; false when they did not reach the disk. */
    fun append(lines: List<String>): Boolean

    /** Replaces every line with [lines] (none: nothing is kept); false when it did not reach the disk, the lines then as they were. */
    fun write(lines: List<String>): Boolean

    companion object {
        /** The lines as one value of [store] under [key]: for a platform without files of its own, and the core's tests. */
        fun inStore(store: KeyValueStore, key: String): LineLog = StoreLineLog(store, key)
    }
}

private class StoreLineLog(private val store: KeyValueStore, private val key: String) : LineLog {
    override fun read(): List<String> = store.get(key)?.split('\n')?.filter { it.isNotEmpty() }.orEmpty()

    override fun append(lines: List<String>): Boolean = store.put(key, (store.get(key) ?: "") + lines.joinToString("") { it + "\n" })

    override fun write(lines: List<String>): Boolean =
        if (lines.isEmpty()) store.remove(key) else store.put(key, lines.joinToString("") { it + "\n" })
}
