import Foundation

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

    func write(_ at: LogLevel, _ message: String) {
        if Logger.shows(configured: level, message: at) { sink?.write(at, message) }
    }

    /// Whether a message at `message` is written under the `configured` level.
    static func shows(configured: LogLevel, message: LogLevel) -> Bool {
        if configured == .none || message == .none { return false }
        return message.rank >= configured.effective.rank
    }
}

/// Where the lines written before `configure` wait, the first `max` of them: the app's level and
/// its log are known only then, and a warning about a call made before it (a parameter dropped
/// from an event, a customer user id refused) must still be said. `replay(into:)` writes them at
/// the level `configure` gives, and hands every later line straight on, so that one written by
/// another thread while `configure` swaps its logger is not lost either.
final class EarlyLines: LogSink {
    private let lock = NSLock()
    private let max: Int
    private var lines: [(LogLevel, String)] = []
    private var notKept = 0
    private var target: Logger?

    init(max: Int = 100) {
        self.max = max
    }

    func write(_ level: LogLevel, _ message: String) {
        lock.lock()
        if let target = target {
            lock.unlock()
            target.write(level, message)
            return
        }
        if lines.count < max {
            lines.append((level, message))
        } else {
            notKept += 1
        }
        lock.unlock()
    }

    func replay(into logger: Logger) {
        lock.lock()
        target = logger
        let kept = lines
        let lost = notKept
        lines = []
        notKept = 0
        lock.unlock()
        for (level, message) in kept {
            logger.write(level, message)
        }
        if lost > 0 {
            logger.warn("\(lost) more log lines written before configure were not kept")
        }
    }
}
