/// How much the SDK writes to the unified log (subsystem `com.service.attribution`, category
/// `ServiceSdk`). A message is written when its level is at or above the configured one;
/// ``none`` silences the SDK.
///
/// The unified log has no warning tier, so on iOS ``warn`` behaves as ``error``: configured
/// at ``warn``, the SDK writes errors only (the spec's "2 behaves like 3").
public enum LogLevel: CaseIterable, Sendable {
    case debug
    case info
    case warn
    case error
    case none

    /// The level ``ServiceAttribution/configure(apiKey:logLevel:customerUserId:baseURL:completion:)``
    /// uses when none is given.
    public static let `default`: LogLevel = .info

    /// The integer levels of the Flutter and Unity SDKs: 0 DEBUG, 1 INFO, 2 WARN, 3 ERROR.
    public static let integerRange: ClosedRange<Int> = 0...3

    /// The level of a Flutter or Unity integer level, nil outside ``integerRange``.
    public init?(integer value: Int) {
        switch value {
        case 0: self = .debug
        case 1: self = .info
        case 2: self = .warn
        case 3: self = .error
        default: return nil
        }
    }

    /// The Flutter and Unity integer of the level; nil for ``none``, which they do not have.
    public var integer: Int? {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warn: return 2
        case .error: return 3
        case .none: return nil
        }
    }

    /// The level as it acts on iOS: ``warn`` is ``error``.
    var effective: LogLevel {
        return self == .warn ? .error : self
    }

    var rank: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warn: return 2
        case .error: return 3
        case .none: return 4
        }
    }
}
