import Foundation
import XCTest
@testable import ServiceAttribution

/// A store in memory; one instance shared by two cores is the app's next launch.
final class MemoryStore: KeyValueStore {
    private let lock = NSLock()
    private var values: [String: String] = [:]
    private var readHook: ((String) -> Void)?
    var available = true

    var isAvailable: Bool {
        return available
    }

    /// Runs with the key before each read, on the thread that reads and outside the store's
    /// lock: what the app does on its own thread just as the SDK reads a value.
    var beforeRead: ((String) -> Void)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return readHook
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            readHook = newValue
        }
    }

    func get(_ key: String) -> String? {
        beforeRead?(key)
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
    /// Reads of the token that fail first, as Apple's framework fails them (a network error).
    var tokenFailures = 0
    private(set) var tokenReads = 0
    /// Where UIKit gives the IDFV, as `configure` called off the main thread leaves it: a read
    /// asked while `identifierForVendor` is nil goes there, and finds `givenOnMainThread`. Nil:
    /// no read is asked, the IDFV is as the test set it.
    var mainThread: MainThreadStandIn?
    var givenOnMainThread: String?
    private(set) var vendorIdReads = 0

    func advertisingIdentifier() -> String? {
        return trackingAuthorizationStatus == "authorized" ? idfa : nil
    }

    func readIdentifierForVendor(then done: @escaping () -> Void) -> Bool {
        guard identifierForVendor == nil, let main = mainThread else { return false }
        vendorIdReads += 1
        main.post {
            self.identifierForVendor = self.givenOnMainThread
            done()
        }
        return true
    }

    func platformAdsToken() throws -> String? {
        tokenReads += 1
        if tokenFailures > 0 {
            tokenFailures -= 1
            throw NSError(domain: "AAAttributionErrorDomain", code: 1)
        }
        return token
    }
}

/// Keeps every line written, by level.
final class RecordingLog: LogSink {
    private let lock = NSLock()
    private var lines: [(LogLevel, String)] = []
    private var writeHook: ((LogLevel, String) -> Void)?

    /// Runs with each line once it is kept, on the thread that writes it and outside the log's
    /// lock: what the app does on its own thread just as the SDK says a line, a point inside a
    /// call at which another thread's calls come, every run alike.
    var whenWritten: ((LogLevel, String) -> Void)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return writeHook
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            writeHook = newValue
        }
    }

    func write(_ level: LogLevel, _ message: String) {
        lock.lock()
        lines.append((level, message))
        lock.unlock()
        whenWritten?(level, message)
    }

    func messages(_ level: LogLevel) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines.filter { $0.0 == level }.map { $0.1 }
    }
}

/// The consent platform's values as a test states them (`IABTCF_TCString`, `IABTCF_gdprApplies`).
final class FakeConsentPlatform: ConsentSignals {
    var tcString: String?
    var gdprApplies: Bool?
}

/// The device's first unlock after a reboot, as a test drives it: `unlock()` calls what waits.
final class FakeProtectedData: ProtectedDataAvailability {
    private let lock = NSLock()
    private var waiting: [() -> Void] = []

    func whenAvailable(_ available: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        waiting.append(available)
    }

    /// UIKit's `protectedDataDidBecomeAvailableNotification`.
    func unlock() {
        lock.lock()
        let calls = waiting
        waiting.removeAll()
        lock.unlock()
        calls.forEach { $0() }
    }
}

/// Later work held until the test runs it: no timer fires by itself, and the clock of the
/// harness is this scheduler's. `runNext()` moves the clock to the earliest task and runs every
/// task due by then.
final class ManualScheduler: Scheduler {
    private struct Task {
        let due: TimeInterval
        let order: Int
        let delay: TimeInterval
        let queue: DispatchQueue
        let work: () -> Void
    }

    private let lock = NSLock()
    private var now: TimeInterval = 0
    private var order = 0
    private var tasks: [Task] = []
    private var asked: [TimeInterval] = []

    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ work: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        order += 1
        tasks.append(Task(due: now + delay, order: order, delay: delay, queue: queue, work: work))
        asked.append(delay)
    }

    /// Seconds since the harness started.
    var elapsed: TimeInterval {
        lock.lock()
        defer { lock.unlock() }
        return now
    }

    /// Every delay asked for, in order.
    var delays: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return asked
    }

    /// The delays of the tasks waiting now.
    var pending: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return tasks.map { $0.delay }
    }

    /// Moves the clock to the earliest task and hands every task due by then to its queue, in
    /// order; false when nothing is scheduled.
    @discardableResult
    func runNext() -> Bool {
        lock.lock()
        guard let next = tasks.min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else {
            lock.unlock()
            return false
        }
        now = max(now, next.due)
        let due = tasks.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        tasks.removeAll { $0.due <= now }
        lock.unlock()
        due.forEach { $0.queue.async(execute: $0.work) }
        return true
    }
}

/// The app's lifecycle as a test drives it (UIKit's notifications on a device): in the
/// foreground unless the test says otherwise.
final class FakeLifecycle: AppLifecycle {
    private let lock = NSLock()
    private var foregroundNow = true
    private var backgroundHandlers: [() -> Void] = []
    private var foregroundHandlers: [() -> Void] = []
    private var activeHandlers: [() -> Void] = []

    var isInForeground: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return foregroundNow
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            foregroundNow = newValue
        }
    }

    func observe(background: @escaping () -> Void, foreground: @escaping () -> Void, active: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        backgroundHandlers.append(background)
        foregroundHandlers.append(foreground)
        activeHandlers.append(active)
    }

    /// The app goes to the background: UIKit's `didEnterBackgroundNotification`.
    func enterBackground() {
        lock.lock()
        foregroundNow = false
        let handlers = backgroundHandlers
        lock.unlock()
        handlers.forEach { $0() }
    }

    /// The app comes back: UIKit's `willEnterForegroundNotification`.
    func enterForeground() {
        lock.lock()
        foregroundNow = true
        let handlers = foregroundHandlers
        lock.unlock()
        handlers.forEach { $0() }
    }

    /// The app becomes active: UIKit's `didBecomeActiveNotification`, after each return to the
    /// foreground and once a system alert (App Tracking Transparency's prompt) is answered.
    func becomeActive() {
        lock.lock()
        let handlers = activeHandlers
        lock.unlock()
        handlers.forEach { $0() }
    }

    /// Whether iOS lends time in the background (UIKit's background task): off unless a test
    /// turns it on.
    var lendsBackgroundTime: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return lends
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            lends = newValue
        }
    }

    private var lends = false
    private var begun = 0
    private var ended = 0
    private var expiry: (() -> Void)?

    /// Background tasks begun and ended so far.
    var backgroundTimes: (begun: Int, ended: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (begun, ended)
    }

    func beginBackgroundTime(expired: @escaping () -> Void) -> (() -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        guard lends else { return nil }
        begun += 1
        var done = false
        let end = { [unowned self] in
            self.lock.lock()
            defer { self.lock.unlock() }
            if done { return }
            done = true
            self.ended += 1
            self.expiry = nil
        }
        expiry = {
            expired()
            end()
        }
        return end
    }

    /// iOS takes the time back: the expiration handler, which ends the task.
    func expireBackgroundTime() {
        lock.lock()
        let handler = expiry
        lock.unlock()
        handler?()
    }
}

/// Apple's side of the conversion values: every call the SDK made, in order. With `refusal`
/// set, Apple refuses each call with that message.
final class RecordingConversionValues: ConversionValueSink {
    private let lock = NSLock()
    private var made: [ConversionCall] = []
    private var registered = 0
    private var reengaged = 0
    var refusal: String?

    var calls: [ConversionCall] {
        lock.lock()
        defer { lock.unlock() }
        return made
    }

    var registrations: Int {
        lock.lock()
        defer { lock.unlock() }
        return registered
    }

    var reengagements: Int {
        lock.lock()
        defer { lock.unlock() }
        return reengaged
    }

    func register(failed: @escaping @Sendable (String) -> Void) {
        lock.lock()
        registered += 1
        let refused = refusal
        lock.unlock()
        if let message = refused { failed(message) }
    }

    func update(_ call: ConversionCall, failed: @escaping @Sendable (String) -> Void) {
        lock.lock()
        made.append(call)
        let refused = refusal
        lock.unlock()
        if let message = refused { failed(message) }
    }

    func reengage(failed: @escaping @Sendable (String) -> Void) {
        lock.lock()
        reengaged += 1
        let refused = refusal
        lock.unlock()
        if let message = refused { failed(message) }
    }
}

/// What the app's listeners heard, closures and delegate alike. Its conformance to the
/// main-actor ``ServiceAttributionDelegate`` is declared in an extension (Heard+Delegate.swift),
/// so that the type itself is not inferred `@MainActor`: the tests read it from their own
/// thread, its lock guarding what it holds; its methods, nonisolated, are the delegate's.
final class Heard {
    private let lock = NSLock()
    private var attributionList: [[String: String]] = []
    private var deepLinkList: [ServiceDeepLink] = []
    private var errorList: [ServiceError] = []

    var attributions: [[String: String]] {
        lock.lock()
        defer { lock.unlock() }
        return attributionList
    }

    var deepLinks: [ServiceDeepLink] {
        lock.lock()
        defer { lock.unlock() }
        return deepLinkList
    }

    var errors: [ServiceError] {
        lock.lock()
        defer { lock.unlock() }
        return errorList
    }

    func serviceAttribution(didResolve attribution: [String: String]) {
        lock.lock()
        defer { lock.unlock() }
        attributionList.append(attribution)
    }

    func serviceAttribution(didReceive deepLink: ServiceDeepLink) {
        lock.lock()
        defer { lock.unlock() }
        deepLinkList.append(deepLink)
    }

    func serviceAttribution(didFail error: ServiceError) {
        lock.lock()
        defer { lock.unlock() }
        errorList.append(error)
    }

    /// Sets the core's three closures to this recorder.
    func listen(to core: SdkCore) {
        core.attributionListener = { [unowned self] in self.serviceAttribution(didResolve: $0) }
        core.deepLinkListener = { [unowned self] in self.serviceAttribution(didReceive: $0) }
        core.errorListener = { [unowned self] in self.serviceAttribution(didFail: $0) }
    }

    /// The events_dropped errors' counts by reason.
    var dropped: [String: Int] {
        var counts: [String: Int] = [:]
        for error in errors where error.kind == .eventsDropped {
            counts[error.reason?.rawValue ?? "?", default: 0] += error.count
        }
        return counts
    }
}

/// The service as a test scripts it: each route answers what `answer` says (by default, what
/// the real service answers a valid request), and every request is kept.
final class FakeService: HTTPTransport {
    private let lock = NSLock()
    private var log: [HTTPRequest] = []
    private var acceptedLog: [JSONValue] = []
    private var acceptedSessionLog: [JSONValue] = []
    /// Returns an answer for the request, or nil for the default one; throws for no answer.
    var answer: ((HTTPRequest) throws -> HTTPResponse?)?
    /// No answer at all to any request.
    var offline = false
    var config = #"{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
    var attribution = #"{"service_match_status":"organic","media_source":"organic"}"#

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    /// The events the service stored: those of 2xx answers of its contract, but the ones the
    /// answer rejected.
    var acceptedEvents: [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        return acceptedLog
    }

    /// The sessions the service stored, as `acceptedEvents` are.
    var acceptedSessions: [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        return acceptedSessionLog
    }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        lock.lock()
        log.append(request)
        let script = answer
        let isOffline = offline
        lock.unlock()
        if isOffline { throw ServiceAttributionError.network("offline") }
        let response = try script?(request) ?? defaultAnswer(request)
        let path = FakeService.path(request)
        if request.method == "POST", path == "/v1/events" || path == "/v1/sessions", (200...299).contains(response.statusCode),
           let answer = (try? JSONValue.parse(response.body))?.objectValue, answer["accepted"] != nil {
            // Neither rejected nor ignored: stored.
            let answered = ["rejected", "ignored"].flatMap { answer[$0]?.arrayValue ?? [] }
            let notStored = Set(answered.compactMap { $0.objectValue?["index"]?.int64Value })
            let items = path == "/v1/events" ? FakeService.events(request) : FakeService.sessions(request)
            let stored = items.enumerated().filter { !notStored.contains(Int64($0.offset)) }.map { $0.element }
            lock.lock()
            if path == "/v1/events" {
                acceptedLog += stored
            } else {
                acceptedSessionLog += stored
            }
            lock.unlock()
        }
        return response
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
        case ("POST", "/v1/sessions"):
            let count = FakeService.sessions(request).count
            return HTTPResponse(statusCode: 202, body: #"{"accepted":\#(count),"ignored":[],"rejected":[]}"#)
        case ("POST", _) where path.hasSuffix("/consent"):
            return HTTPResponse(statusCode: 202, body: #"{"service_id":"x","consent":null}"#)
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

    /// The body of a request, parsed.
    static func body(_ request: HTTPRequest) -> [String: JSONValue]? {
        guard let body = request.body else { return nil }
        return (try? JSONValue.parse(body))?.objectValue
    }

    /// The events of a POST /v1/events body.
    static func events(_ request: HTTPRequest) -> [JSONValue] {
        return body(request)?["events"]?.arrayValue ?? []
    }

    /// The sessions of a POST /v1/sessions body.
    static func sessions(_ request: HTTPRequest) -> [JSONValue] {
        return body(request)?["sessions"]?.arrayValue ?? []
    }

    /// The index a test gave an event (its parameter `n`).
    static func index(_ event: JSONValue) -> Int? {
        return event.objectValue?["parameters"]?.objectValue?["n"]?.int64Value.map { Int($0) }
    }

    /// Every event the service was sent, in the order it got them (a retried one each time).
    var deliveredEvents: [JSONValue] {
        return requests.filter { $0.method == "POST" && FakeService.path($0) == "/v1/events" }.flatMap(FakeService.events)
    }

    func count(_ method: String, _ path: String) -> Int {
        return requests.filter { $0.method == method && FakeService.path($0) == path }.count
    }

    func sent(_ method: String, _ path: String) -> [HTTPRequest] {
        return requests.filter { $0.method == method && FakeService.path($0) == path }
    }
}

/// The main thread's stand-in: a serial queue of its own. From `hold()` on, the work handed to
/// it is kept instead, as a busy main thread keeps it, until `runHeld()`, or never
/// (`dropHeld()`: the process killed first).
final class MainThreadStandIn {
    let queue = DispatchQueue(label: "test.main-thread")
    private let lock = NSLock()
    private var isHolding = false
    private var kept: [() -> Void] = []

    func post(_ work: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        // Queued under the lock: work handed over as `runHeld()` lets go runs after what was held.
        if isHolding {
            kept.append(work)
        } else {
            queue.async(execute: work)
        }
    }

    /// From now on, the work handed over is kept until `runHeld()` or `dropHeld()`.
    func hold() {
        lock.lock()
        defer { lock.unlock() }
        isHolding = true
    }

    /// How many pieces of work are kept now.
    var heldCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return kept.count
    }

    /// Runs the work kept so far, in order, on the queue, and runs work as it comes from now on.
    func runHeld() {
        lock.lock()
        defer { lock.unlock() }
        isHolding = false
        kept.forEach { queue.async(execute: $0) }
        kept.removeAll()
    }

    /// Forgets the work kept so far, never run, and runs work as it comes from now on.
    func dropHeld() {
        lock.lock()
        defer { lock.unlock() }
        isHolding = false
        kept.removeAll()
    }
}

/// One app process over a store: a core with fakes, the scheduler's clock, and listeners run
/// on a queue of their own (the main thread's stand-in) that `settle()` waits for.
final class Harness {
    static let epoch = Date(timeIntervalSince1970: 1_789_552_700)

    let store: MemoryStore
    let device = FakeDevice()
    let consentPlatform = FakeConsentPlatform()
    let conversionValues = RecordingConversionValues()
    let lifecycle = FakeLifecycle()
    let protectedData = FakeProtectedData()
    let log = RecordingLog()
    let service: FakeService
    let scheduler = ManualScheduler()
    /// Where the listeners and completions run; a test may hold their calls there.
    let main: MainThreadStandIn
    let callbacks: DispatchQueue
    let core: SdkCore
    /// Added to the device clock (a device clock that is wrong, an event sent long ago).
    var clockOffset: TimeInterval = 0

    /// `refusal` as the iOS glue passes it in an app extension. The core writes what is called
    /// before `configure` (stop, anonymous mode, consent) to `store` at once, as it does to the
    /// SDK's files on iOS.
    init(store: MemoryStore = MemoryStore(), service: FakeService = FakeService(), refusal: ServiceAttributionError? = nil) {
        self.store = store
        self.service = service
        let main = MainThreadStandIn()
        self.main = main
        callbacks = main.queue
        core = SdkCore(store: store, refusal: refusal, mainThread: { work in main.post(work) })
    }

    /// The device clock now.
    var now: Date {
        return Harness.epoch.addingTimeInterval(scheduler.elapsed + clockOffset)
    }

    /// Sets the device clock to `seconds` after the epoch, whatever the scheduler has run.
    func setClock(_ seconds: TimeInterval) {
        clockOffset = seconds - scheduler.elapsed
    }

    var platform: Platform {
        var platform = Platform(store: store, device: device, log: log, http: service)
        platform.consentSignals = consentPlatform
        platform.conversionValues = conversionValues
        platform.lifecycle = lifecycle
        platform.protectedData = protectedData
        platform.scheduler = scheduler
        platform.clock = { [unowned self] in self.now }
        platform.mainThread = { [main] work in main.post(work) }
        return platform
    }

    /// The limits of sdk/conformance/delivery.json (the SDK's own), with no long poll, and
    /// retries that wait exactly their backoff (`RetryWaitTests` checks the jitter).
    static let settings: SdkSettings = {
        var settings = SdkSettings(baseURL: FakeService.base)
        settings.attributionWaitSeconds = 0
        settings.jitter = { $0 }
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
        // Stopped (in this process, or by an earlier launch), the core calls the completion from
        // the initialization that start() runs: not waited for here.
        if !core.isStopped { _ = done.wait(timeout: .now() + 10) }
        settle()
        return result
    }

    /// Starts a configure without waiting for it (one that waits for the first unlock, say):
    /// `completion` runs whenever the core calls it. False when the call changed nothing.
    @discardableResult
    func configureLater(apiKey: String = "sdk_test", completion: @escaping (Error?) -> Void) -> Bool {
        core.configure(
            platform: platform, settings: Harness.settings, apiKey: apiKey, logLevel: .debug,
            customerUserId: nil, wrapper: nil, completion: completion
        )
    }

    /// Waits until the core's queues and the listeners' have done what was handed to them.
    func settle() {
        for _ in 0..<3 {
            core.drain()
            callbacks.sync {}
        }
    }

    /// Lets the SDK run, firing its scheduled work (retries, refreshes, polls) one due time
    /// after the other, until `condition` holds; fails when it never does within `steps`.
    func eventually(_ what: String, steps: Int = 200, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        for _ in 0..<steps {
            settle()
            if condition() { return }
            if !scheduler.runNext() { break }
        }
        settle()
        if condition() { return }
        XCTFail("never happened: \(what)", file: file, line: line)
    }

    /// Fires the scheduled work `steps` times (the hour's configuration refresh included): for
    /// what must NOT happen.
    func runScheduled(_ steps: Int = 20) {
        for _ in 0..<steps {
            settle()
            if !scheduler.runNext() { break }
        }
        settle()
    }

    /// Sends `count` events whose parameter `n` is their index, from `first` on.
    func sendIndexed(_ count: Int, from first: Int = 0) throws {
        for index in first..<(first + count) {
            XCTAssertTrue(try core.sendEvent(.levelComplete, name: nil, parameters: ["n": index]), "event \(index)")
        }
    }

    /// The indexes of the events the service stored, in order.
    var acceptedIndexes: [Int] {
        return service.acceptedEvents.compactMap(FakeService.index)
    }

    /// The events waiting on the device, as the next launch reads them: those queued, then those
    /// still waiting for a configuration of the service's to say how to protect them (taken
    /// after: once one is applied, events are queued at once).
    var queuedIndexes: [Int] {
        let queued = EventQueue(store: store, max: Int.max).peek(Int.max).compactMap(FakeService.index)
        let pending = EventQueue(store: store, max: Int.max, kind: .pending).peek(Int.max).compactMap(FakeService.index)
        return queued + pending
    }

    /// A store as an earlier launch left it: the install recorded, its attribution read, and
    /// `count` events queued while the service was out of reach (each with its index as `n`;
    /// `ages` sends some that many seconds in the past). With `installRecorded` false, the
    /// install was never recorded either.
    static func given(queued count: Int, installRecorded: Bool = true, ages: [Int: TimeInterval] = [:]) throws -> MemoryStore {
        let earlier = Harness()
        if installRecorded {
            XCTAssertNil(earlier.configure())
        } else {
            earlier.service.offline = true
            earlier.configure()
        }
        earlier.service.offline = true
        for index in 0..<count {
            earlier.clockOffset = -(ages[index] ?? 0)
            try earlier.sendIndexed(1, from: index)
        }
        earlier.clockOffset = 0
        earlier.settle()
        XCTAssertEqual(earlier.queuedIndexes, Array(0..<count))
        XCTAssertEqual(earlier.store.get(SdkCore.Key.installTracked) != nil, installRecorded)
        return earlier.store
    }
}
