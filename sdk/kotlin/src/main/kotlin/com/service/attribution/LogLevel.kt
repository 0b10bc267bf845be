package com.service.attribution

/** How much the SDK writes to the log (logcat, tag `ServiceSdk`); NONE silences it. */
enum class LogLevel {
    DEBUG,
    INFO,
    WARN,
    ERROR,
    NONE,
}
