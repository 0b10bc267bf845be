/// Writes what the configured level lets through. On iOS ``LogLevel/warn`` acts as
/// ``LogLevel/error`` (the unified log has no warning tier); ``LogLevel/none`` writes nothing.
struct Logger {
    let sink: LogSink?
    let level: LogLevel

    func debug(_ message: String) { write(.debug, message) }

    func info(_ message: String) { write(.info, message) }

    func warn(_ message: String) { write(.warn, message) }

    func error(_ message: String) { write(.error, message) }

    /// A warning the rules require the SDK to write (an event dropped, an answer that is not the
    /// service's). iOS has no warning tier (the spec: WARN behaves as ERROR), so it is written
    /// where the SDK maps WARN, at error level: shown at every configured level but `none`, as a
    /// warning on a platform with the tier would be at WARN and below.
    func warning(_ message: String) { write(.error, message) }

    private func write(_ at: LogLevel, _ message: String) {
        if Logger.shows(configured: level, message: at) { sink?.write(at, message) }
    }

    /// Whether a message at `message` is written under the `configured` level.
    static func shows(configured: LogLevel, message: LogLevel) -> Bool {
        if configured == .none || message == .none { return false }
        return message.rank >= configured.effective.rank
    }
}
