import Foundation

/// Small string storage that survives the process (a file in Application Support on iOS).
protocol KeyValueStore: AnyObject {
    /// False while what was stored cannot be read yet (before the first unlock after a reboot).
    var isAvailable: Bool { get }
    func get(_ key: String) -> String?
    func put(_ key: String, _ value: String)
    func remove(_ key: String)
}

extension KeyValueStore {
    var isAvailable: Bool {
        return true
    }
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
    /// service tells a reinstall from a new install by it.
    var identifierForVendor: String? { get }
    /// The App Tracking Transparency status (`authorized`, `denied`, `restricted`,
    /// `not_determined`), nil where ATT does not exist (before iOS 14).
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
}

/// Sends one request and waits for its answer; throws ``ServiceAttributionError/network(_:)``
/// when none came back. Called on the SDK's own queues, never on the main thread.
protocol HTTPTransport: AnyObject {
    func send(_ request: HTTPRequest) throws -> HTTPResponse
}

/// Everything the core needs from the platform it runs on.
struct Platform {
    let store: KeyValueStore
    let device: DeviceSignals
    let log: LogSink
    let http: HTTPTransport
    var clock: () -> Date = { Date() }
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
}
