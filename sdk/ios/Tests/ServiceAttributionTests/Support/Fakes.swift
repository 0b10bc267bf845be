import Foundation
import XCTest
@testable import ServiceAttribution

/// A store in memory; one instance shared by two cores is the app's next launch.
final class MemoryStore: KeyValueStore {
    private let lock = NSLock()
    private var values: [String: String] = [:]
    var available = true

    var isAvailable: Bool {
        return available
    }

    func get(_ key: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    func put(_ key: String, _ value: String) {
        lock.lock()
        defer { lock.unlock() }
        values[key] = value
    }

    func remove(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        values[key] = nil
    }
}

/// Device signals as a test states them.
final class FakeDevice: DeviceSignals {
    var osVersion: String? = "17.4"
    var deviceModel: String? = "iPhone15,2"
    var appVersion: String? = "3.2.1"
    var locale: String? = "en-US"
    var timezone: String? = "America/New_York"
    var identifierForVendor: String? = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
    var trackingAuthorizationStatus: String? = "authorized"
    var idfa: String? = "6F9619FF-8B86-D011-B42D-00CF4FC964FE"
    var token: String? = "c2FtcGxlLWFkc2VydmljZXMtdG9rZW4"

    func advertisingIdentifier() -> String? {
        return trackingAuthorizationStatus == "authorized" ? idfa : nil
    }

    func platformAdsToken() throws -> String? {
        return token
    }
}

/// Keeps every line written, by level.
final class RecordingLog: LogSink {
    private let lock = NSLock()
    private var lines: [(LogLevel, String)] = []

    func write(_ level: LogLevel, _ message: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append((level, message))
    }

    func messages(_ level: LogLevel) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines.filter { $0.0 == level }.map { $0.1 }
    }
}

/// The service as a test scripts it: each route answers what `answer` says (by default, what
/// the real service answers a valid request), and every request is kept.
final class FakeService: HTTPTransport {
    private let lock = NSLock()
    private var log: [HTTPRequest] = []
    /// Returns an answer for the request, or nil for the default one; throws for no answer.
    var answer: ((HTTPRequest) throws -> HTTPResponse?)?
    var config = #"{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
    var attribution = #"{"service_match_status":"organic","media_source":"organic"}"#

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        lock.lock()
        log.append(request)
        let script = answer
        lock.unlock()
        if let answered = try script?(request) { return answered }
        return defaultAnswer(request)
    }

    private func defaultAnswer(_ request: HTTPRequest) -> HTTPResponse {
        let path = FakeService.path(request)
        switch (request.method, path) {
        case ("GET", "/v1/config"):
            return HTTPResponse(statusCode: 200, body: config)
        case ("POST", "/v1/installs"):
            return HTTPResponse(statusCode: 202, body: #"{"service_id":"x"}"#)
        case ("POST", "/v1/events"):
            let count = FakeService.events(request).count
            return HTTPResponse(statusCode: 202, body: #"{"accepted":\#(count),"ignored":[],"rejected":[],"warnings":[]}"#)
        case ("DELETE", _):
            return HTTPResponse(statusCode: 202, body: "{}")
        case ("GET", _) where path.hasSuffix("/attribution"):
            return HTTPResponse(statusCode: 200, body: attribution)
        default:
            return HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no route"}"#)
        }
    }

    /// The request's path, without the base and the query.
    static func path(_ request: HTTPRequest) -> String {
        var path = request.url.replacingOccurrences(of: FakeService.base, with: "")
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        return path
    }

    static let base = "https://attribution.example.test"

    /// The events of a POST /v1/events body.
    static func events(_ request: HTTPRequest) -> [JSONValue] {
        guard let body = request.body, let json = try? JSONValue.parse(body) else { return [] }
        return json.objectValue?["events"]?.arrayValue ?? []
    }

    /// Every event the service was sent, in the order it got them (a retried one each time).
    var deliveredEvents: [JSONValue] {
        return requests.filter { $0.method == "POST" && FakeService.path($0) == "/v1/events" }.flatMap(FakeService.events)
    }

    func count(_ method: String, _ path: String) -> Int {
        return requests.filter { $0.method == method && FakeService.path($0) == path }.count
    }
}

/// One app process over a store: a core with fakes and quick retries.
final class Harness {
    let store: MemoryStore
    let device = FakeDevice()
    let log = RecordingLog()
    let service: FakeService
    let core = SdkCore()

    init(store: MemoryStore = MemoryStore(), service: FakeService = FakeService()) {
        self.store = store
        self.service = service
    }

    var platform: Platform {
        var platform = Platform(store: store, device: device, log: log, http: service)
        platform.mainThread = { work in DispatchQueue.global().async(execute: work) }
        return platform
    }

    static let settings: SdkSettings = {
        var settings = SdkSettings(baseURL: FakeService.base)
        settings.retryDelay = 0.02
        settings.maxRetryDelay = 0.1
        settings.attributionWaitSeconds = 0
        return settings
    }()

    @discardableResult
    func configure(
        apiKey: String = "sdk_test",
        logLevel: LogLevel = .debug,
        customerUserId: String? = nil,
        wrapper: Wrapper? = nil,
        settings: SdkSettings = Harness.settings
    ) -> Error? {
        let done = DispatchSemaphore(value: 0)
        var result: Error?
        core.configure(
            platform: platform,
            settings: settings,
            apiKey: apiKey,
            logLevel: logLevel,
            customerUserId: customerUserId,
            wrapper: wrapper
        ) { error in
            result = error
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        core.drain()
        return result
    }

    /// Waits until `condition` holds, letting the core's queues run.
    func eventually(_ what: String, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            core.drain()
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTFail("timed out waiting for: \(what)", file: file, line: line)
    }
}
