import Foundation
import os.log

/// Log lines in the unified log: subsystem `com.service.attribution`, category `ServiceSdk`.
/// It has no warning tier: warnings are written as default-level messages.
final class UnifiedLogSink: LogSink {
    private let log = OSLog(subsystem: "com.service.attribution", category: "ServiceSdk")

    func write(_ level: LogLevel, _ message: String) {
        let type: OSLogType
        switch level {
        case .debug: type = .debug
        case .info: type = .info
        case .warn: type = .default
        case .error: type = .error
        case .none: return
        }
        os_log("%{public}@", log: log, type: type, message)
    }
}
