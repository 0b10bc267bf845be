package com.service.attribution.core

import com.service.attribution.LogLevel

/** Writes what [level] lets through: a line at or above it; nothing at all for NONE. */
internal class Logger(private val sink: LogSink, private val level: LogLevel) {
    fun debug(message: String) = write(LogLevel.DEBUG, message, null)

    fun info(message: String) = write(LogLevel.INFO, message, null)

    fun warn(message: String) = write(LogLevel.WARN, message, null)

    fun error(message: String, error: Throwable? = null) = write(LogLevel.ERROR, message, error)

    fun write(at: LogLevel, message: String, error: Throwable?) {
        if (shows(level, at)) sink.write(at, message, error)
    }

    companion object {
        fun shows(configured: LogLevel, message: LogLevel): Boolean =
            configured != LogLevel.NONE && message != LogLevel.NONE && message.ordinal >= configured.ordinal
    }
}

/**
 * Where the lines written before configure wait, the first [max] of them: the app's level and
 * its log are known only then, and a warning about a call made before it (a parameter dropped
 * from an event, a customer user id refused) must still be said. [replay] writes them at the
 * level configure gives, and hands every later line straight on, so that one written by another
 * thread while configure swaps its logger is not lost either.
 */
internal class EarlyLines(private val max: Int = 100) : LogSink {
    private class Line(val level: LogLevel, val message: String, val error: Throwable?)

    private val lines = ArrayList<Line>()
    private var notKept = 0
    private var target: Logger? = null

    override fun write(level: LogLevel, message: String, error: Throwable?) {
        val to = synchronized(this) {
            target ?: run {
                if (lines.size < max) lines.add(Line(level, message, error)) else notKept++
                null
            }
        }
        to?.write(level, message, error)
    }

    fun replay(into: Logger) {
        val kept = synchronized(this) {
            target = into
            lines.toList().also { lines.clear() }
        }
        for (line in kept) into.write(line.level, line.message, line.error)
        if (notKept > 0) into.warn("$notKept more log lines written before configure were not kept")
    }
}
