import Foundation

/// Small string storage that survives the process (a file in Application Support on iOS).
protocol KeyValueStore: AnyObject {
    /// False while what was stored cannot be read yet (before the first unlock after a reboot).
    var isAvailable: Bool { get }
    func get(_ key: String) -> String?
    func put(_ key: String, _ value: String)
    func remove(_ key: String)
    /// Adds `lines` (none with a line break in it) at the end of the key's value, each followed
    /// by a line break: a queue kept a line an item grows without being written again whole.
    func append(_ key: String, lines: [String])
    /// From now on, `report` hears of a write that did not reach the disk (a full disk, a
    /// folder that cannot be made), with what failed; it may run on any thread, with the
    /// caller's locks held, so it must not wait on them.
    func reportWriteFailures(to report: @escaping (String) -> Void)
}

extension DeviceSignals {
    /// Signals read on the worker itself: nothing is read elsewhere, nothing to wait for.
    func readIdentifierForVendor(then done: @escaping () -> Void) -> Bool {
        return false
    }
}

extension KeyValueStore {
    var isAvailable: Bool {
        return true
    }

    /// A store in memory writes the value again: its cost is a copy, not a write to the disk.
    func append(_ key: String, lines: [String]) {
        if lines.isEmpty { return }
        put(key, (get(key) ?? "") + lines.map { $0 + "\n" }.joined())
    }

    /// A store in memory never fails a write.
    func reportWriteFailures(to report: @escaping (String) -> Void) {}
}

/// What the device says about itself; each value nil when unknown. Read on the SDK's worker
/// queue, never on the main thread.
protocol DeviceSignals: AnyObject {
    var osVersion: String? { get }
    var deviceModel: String? { get }
    var appVersion: String? { get }
    var locale: String? { get }
    var timezone: String? { get }
    /// The identifier for vendor, the same for every app of the vendor on the device: the
    /// service tells a reinstall from a new install by it. As read so far, never waiting for
    /// another thread: on iOS UIKit gives it on the main thread only, and an SDK thread that
    /// waited for that one would stall behind a busy main thread, or deadlock with one that
    /// waits for the SDK. Nil while it was not read yet (`configure` called off the main
    /// thread), or iOS gave none (before the first unlock after a reboot).
    var identifierForVendor: String? { get }
    /// When ``identifierForVendor`` is not known, has it read where it can be (the main
    /// thread), without waiting for that: true, and `done` runs on any thread once the read is
    /// over, whatever it gave. False, and `done` never runs, when there is nothing to read again.
    func readIdentifierForVendor(then done: @escaping () -> Void) -> Bool
    /// The App Tracking Transparency status (`authorized`, `denied`, `restricted`,
    /// `not_determined`), nil where ATT does not exist (macOS, in the tests). Read as it is now
    /// each time: the user may answer the prompt, or change it in Settings, while the app runs.
    var trackingAuthorizationStatus: String? { get }
    /// The IDFA, only when ATT authorizes it; nil otherwise.
    func advertisingIdentifier() -> String?
    /// Apple's AdServices attribution token (iOS 14.3 and later); nil where there is none.
    func platformAdsToken() throws -> String?
}

/// Where log lines go (the unified log on iOS).
protocol LogSink: AnyObject {
    func write(_ level: LogLevel, _ message: String)
}

/// One request; `body` is JSON text.
struct HTTPRequest: Equatable {
    let method: String
    let url: String
    let headers: [String: String]
    let body: String?
}

struct HTTPResponse: Equatable {
    let statusCode: Int
    let body: String
    /// The answer's `Retry-After` header as it came; nil when it has none.
    var retryAfter: String? = nil
}

/// Sends one request and waits for its answer; throws ``ServiceAttributionError/network(_:)``
/// when none came back. Called on the SDK's own queues, never on the main thread.
protocol HTTPTransport: AnyObject {
    func send(_ request: HTTPRequest) throws -> HTTPResponse
}

/// What the app's consent platform (CMP) stored on the device under the IAB TCF keys; read at
/// each start and before each request that may carry consent.
protocol ConsentSignals: AnyObject {
    /// `IABTCF_TCString`; nil when none is stored.
    var tcString: String? { get }
    /// `IABTCF_gdprApplies`: 1 true, 0 false; nil when none is stored.
    var gdprApplies: Bool? { get }
}

/// No consent platform: nothing stored.
final class NoConsentSignals: ConsentSignals {
    var tcString: String? {
        return nil
    }

    var gdprApplies: Bool? {
        return nil
    }
}

/// Runs work later: retries with backoff, the remote configuration's refresh, the attribution
/// poll's next attempt. Tests hold the work and run it when they choose, with no waiting.
protocol Scheduler: AnyObject {
    /// Runs `work` on `queue` once `delay` seconds have passed.
    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping () -> Void)
}

/// Dispatch's own timer.
final class DispatchScheduler: Scheduler {
    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping () -> Void) {
        queue.asyncAfter(deadline: .now() + delay, execute: work)
    }
}

/// Where the conversion values the app's schema makes go: SKAdNetwork and AdAttributionKit on
/// iOS. Each call returns at once, whatever Apple does with it (event delivery never waits on
/// it); `failed` runs later, on any thread, with Apple's error when it refused.
protocol ConversionValueSink: AnyObject {
    /// The install's first launch told to Apple (its postback needs it), with no value yet.
    func register(failed: @escaping @Sendable (String) -> Void)
    /// One update the evaluation made.
    func update(_ call: ConversionCall, failed: @escaping @Sendable (String) -> Void)
    /// An AdAttributionKit re-engagement opened the app: a fine value of 0 for the
    /// re-engagement's postbacks alone, which Apple sends only after an update made since the
    /// open. The install's postbacks are left as they are.
    func reengage(failed: @escaping @Sendable (String) -> Void)
}

/// No conversion values: a platform without SKAdNetwork.
final class NoConversionValues: ConversionValueSink {
    func register(failed: @escaping @Sendable (String) -> Void) {}

    func update(_ call: ConversionCall, failed: @escaping @Sendable (String) -> Void) {}

    func reengage(failed: @escaping @Sendable (String) -> Void) {}
}

/// The app's moves between the foreground and the background, which start sessions
/// (``SessionTracker``): UIKit's notifications on iOS.
protocol AppLifecycle: AnyObject {
    /// Whether the app is in the foreground now; read by `configure`, on the app's thread.
    var isInForeground: Bool { get }
    /// From now on, calls `background` each time the app goes to the background, `foreground`
    /// each time it comes back, and `active` each time it becomes active: after each return,
    /// and after a system alert it showed, App Tracking Transparency's prompt among them, which
    /// does not send the app to the background. Called once, by `configure`.
    func observe(background: @escaping () -> Void, foreground: @escaping () -> Void, active: @escaping () -> Void)
    /// Asks, on the main thread, for time to send what is queued once the app went to the
    /// background (UIKit's background task). Returns what gives the time back, which ends it
    /// once, on the main thread, whatever thread calls it; nil when none was lent. `expired`
    /// runs on the main thread if iOS takes the time back first, and the time is then given
    /// back at once.
    func beginBackgroundTime(expired: @escaping () -> Void) -> (() -> Void)?
}

extension AppLifecycle {
    /// No time lent: a process the OS does not suspend, or none to ask.
    func beginBackgroundTime(expired: @escaping () -> Void) -> (() -> Void)? {
        return nil
    }
}

/// No lifecycle to follow: a process always in the foreground, whose sessions are its launches.
final class AlwaysInForeground: AppLifecycle {
    var isInForeground: Bool {
        return true
    }

    func observe(background: @escaping () -> Void, foreground: @escaping () -> Void, active: @escaping () -> Void) {}
}

/// When the app's files can be read again: after the first unlock since the device restarted
/// (UIKit's `protectedDataDidBecomeAvailableNotification` on iOS).
protocol ProtectedDataAvailability: AnyObject {
    /// Calls `available` once, on any thread, the next time the app's protected files become
    /// readable.
    func whenAvailable(_ available: @escaping () -> Void)
}

/// No file protection to wait for: the call never comes (a store that is always available
/// never needs it).
final class NoProtectedData: ProtectedDataAvailability {
    func whenAvailable(_ available: @escaping () -> Void) {}
}

/// Everything the core needs from the platform it runs on.
struct Platform {
    let store: KeyValueStore
    let device: DeviceSignals
    let log: LogSink
    let http: HTTPTransport
    var consentSignals: ConsentSignals = NoConsentSignals()
    var conversionValues: ConversionValueSink = NoConversionValues()
    var lifecycle: AppLifecycle = AlwaysInForeground()
    var protectedData: ProtectedDataAvailability = NoProtectedData()
    var scheduler: Scheduler = DispatchScheduler()
    var clock: () -> Date = { Date() }
    /// Where the app's listeners and completion handlers run: the main queue.
    var mainThread: (@escaping () -> Void) -> Void = { work in DispatchQueue.main.async(execute: work) }
}

/// Settings the spec leaves to the SDK: where the service is, and how patiently to retry.
struct SdkSettings {
    let baseURL: String
    var retryDelay: TimeInterval = 2
    var maxRetryDelay: TimeInterval = 60
    /// How long one attribution request may wait on the service (0 to 20 seconds).
    var attributionWaitSeconds: Int = 20
    /// Events kept on the device at most; the oldest go first.
    var maxQueuedEvents: Int = 1_000
    /// Events at most in one POST /v1/events.
    var maxEventsPerRequest: Int = 100
    /// Sessions kept on the device at most; the oldest go first (sdk/conformance/sessions.json).
    var maxQueuedSessions: Int = 100
    /// Sessions at most in one POST /v1/sessions.
    var maxSessionsPerRequest: Int = 100
    /// An event or a session older than this (by the device's clock, when it is about to be
    /// sent) is dropped as `expired`: the service would refuse it.
    var maxEventAge: TimeInterval = 30 * 24 * 3600
    /// The wait before an attempt whose backoff is given: ``RetryWait/jittered(_:)`` (tests: exact).
    var jitter: (TimeInterval) -> TimeInterval = { RetryWait.jittered($0) }
}
