package com.service.attribution.core

import com.service.attribution.LogLevel

/** Writes what [level] lets through: a line at or above it; nothing at all for NONE. */
internal class Logger(private val sink: LogSink, private val level: LogLevel) {
    fun debug(message: String) = write(LogLevel.DEBUG, message, null)

    fun info(message: String) = write(LogLevel.INFO, message, null)

    fun warn(message: String) = write(LogLevel.WARN, message, null)

    fun error(message: String, error: Throwable? = null) = write(LogLevel.ERROR, message, error)

    private fun write(at: LogLevel, message: String, error: Throwable?) {
        if (shows(level, at)) sink.write(at, message, error)
    }

    companion object {
        fun shows(configured: LogLevel, message: LogLevel): Boolean =
            configured != LogLevel.NONE && message != LogLevel.NONE && message.ordinal >= configured.ordinal
    }
}
