import Foundation

/// A layer over this SDK that reports itself in the install (`sdk_platform`, `sdk_version`) and
/// may ask for more of the spec's rules than a native app gets.
struct Wrapper: Equatable {
    let platform: String
    let version: String
    /// The spec's parameter rule 4 (Flutter): values other than the matching parameters are
    /// sealed too when remote configuration turns sealing on, its clear keys excepted.
    let sealsCustomValues: Bool
}

/// Every rule of the SDK, with no UIKit type: ``ServiceAttribution`` is this plus the iOS glue.
/// One instance is one process of the app; a second instance on the same ``KeyValueStore`` is
/// the app's next launch.
///
/// Queues: every change of state and every request but the attribution long poll runs on one
/// serial worker queue, so events leave in the order they were sent; public calls only hand
/// work to it. The attribution poll has its own queue so that its long wait never holds events
/// back. State that public calls read is guarded by `lock`; the rest belongs to the worker.
final class SdkCore: @unchecked Sendable {
    static let matchStatus = "service_match_status"
    /// The statuses that end the install's matching; `failed` (and anything unknown) is asked
    /// again, within the session and at the next launch.
    static let settledStatuses: Set<String> = ["matched", "matched_no_params", "organic", "skipped"]
    private static let maxEarlyEvents = 1_000
    private static let batchSize = 100

    private enum Key {
        static let serviceId = "service_id"
        static let firstOpen = "first_open_time"
        static let installTracked = "install_tracked"
        static let customerUserId = "customer_user_id"
        static let config = "remote_config"
        static let attribution = "attribution"
    }

    private let worker = DispatchQueue(label: "com.service.attribution.worker", qos: .utility)
    private let poller = DispatchQueue(label: "com.service.attribution.attribution", qos: .utility)
    private let lock = NSLock()

    // Guarded by `lock`.
    private var configured = false
    private var disabled = false
    private var initialized = false
    private var config: RemoteConfig?
    private var lastInitError: Error?
    private var customerUserId: String?
    private var serviceId: String?
    private var openURL: String?
    private var deleted = false
    private var platformAds = false
    private var polling = false
    private var log = Logger(sink: nil, level: .info)

    // Set once by configure before `configured` is; read after it only.
    private var platform: Platform!
    private var settings: SdkSettings!
    private var api: Api!
    private var wrapper: Wrapper?

    // Worker-queue state.
    private var queue: EventQueue?
    private var early: [Draft] = []
    private var retryDelay: TimeInterval = 0
    private var retryPending = false
    private var refreshGeneration = 0
    private var adsToken: String?

    /// Opens once the first attribution attempt of this process has finished, either way.
    private let initialMatch = Latch()

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: - configure

    /// Starts the SDK; false when it was configured already (the call changes nothing).
    @discardableResult
    func configure(
        platform: Platform,
        settings: SdkSettings,
        apiKey: String,
        logLevel: LogLevel,
        customerUserId: String?,
        wrapper: Wrapper?,
        completion: ((Error?) -> Void)?
    ) -> Bool {
        let started = platform.clock()
        lock.lock()
        if configured {
            let log = self.log
            lock.unlock()
            log.info("configure was already called: this call changes nothing")
            return false
        }
        self.platform = platform
        self.settings = settings
        self.wrapper = wrapper
        log = Logger(sink: platform.log, level: logLevel)
        api = Api(baseURL: settings.baseURL, apiKey: apiKey, http: platform.http)
        let available = platform.store.isAvailable
        if available {
            if let id = Fields.customerUserId(customerUserId) { self.customerUserId = id }
            if let id = self.customerUserId {
                platform.store.put(Key.customerUserId, id)
            } else {
                self.customerUserId = platform.store.get(Key.customerUserId)
            }
            if let id = platform.store.get(Key.serviceId) {
                serviceId = id
            } else {
                // A new id on every install: the IDFV, not this id, tells the service of a reinstall.
                let id = UUID().uuidString.lowercased()
                platform.store.put(Key.serviceId, id)
                platform.store.put(Key.firstOpen, String(Int64(started.timeIntervalSince1970 * 1000)))
                serviceId = id
            }
        }
        configured = true
        lock.unlock()
        worker.async {
            if !available {
                let error = ServiceAttributionError.disabled
                self.failInit(error, message: "the device is locked since its restart: nothing is sent in this process", disable: true)
                self.finishInit(error, completion)
                return
            }
            self.queue = EventQueue(store: platform.store, max: settings.maxQueuedEvents)
            self.initialize(apiKey: apiKey, completion: completion)
        }
        return true
    }

    private func initialize(apiKey: String, completion: ((Error?) -> Void)?) {
        let refusal: ServiceAttributionError?
        if apiKey.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            refusal = .invalidArgument("apiKey must not be empty")
        } else if settings.baseURL.isEmpty {
            refusal = .missingBaseURL
        } else {
            refusal = nil
        }
        if let refusal = refusal {
            failInit(refusal, message: refusal.localizedDescription, disable: true)
            return finishInit(refusal, completion)
        }
        var initError: Error?
        let fetched: RemoteConfig
        do {
            fetched = try api.config()
            platform.store.put(Key.config, fetched.json.text)
        } catch let error as ServiceAttributionError where error.isAuthentication {
            failInit(error, message: "the API key was rejected: the SDK disables itself", disable: true)
            return finishInit(error, completion)
        } catch {
            failInit(error, message: "remote configuration: \(error.localizedDescription)", disable: false)
            initError = error
            fetched = cachedConfig() ?? .placeholder
        }
        apply(fetched)
        locked { initialized = true }
        currentLog.info("initialized: \(fetched.enabled ? "enabled" : "switched off by remote configuration")")
        finishInit(initError, completion)
    }

    private func failInit(_ error: Error, message: String, disable shouldDisable: Bool) {
        locked { lastInitError = error }
        currentLog.error("initialization: \(message)")
        if shouldDisable { disable() }
    }

    private func finishInit(_ error: Error?, _ completion: ((Error?) -> Void)?) {
        locked { initialized = true }
        guard let completion = completion else { return }
        platform.mainThread { completion(error) }
    }

    private var currentLog: Logger {
        return locked { log }
    }

    private func cachedConfig() -> RemoteConfig? {
        guard let text = platform.store.get(Key.config) else { return nil }
        return try? RemoteConfig.parse(text)
    }

    /// On the worker: runs with a configuration, switching off or on as it says.
    private func apply(_ newConfig: RemoteConfig) {
        locked { config = newConfig }
        refreshGeneration += 1
        let generation = refreshGeneration
        worker.asyncAfter(deadline: .now() + TimeInterval(newConfig.refreshIntervalSeconds)) { [weak self] in
            guard let self = self, self.refreshGeneration == generation else { return }
            self.refreshQuietly()
        }
        if !newConfig.enabled {
            disable()
            return
        }
        locked { disabled = false }
        let waiting = early
        early.removeAll()
        waiting.forEach { enqueue($0) }
        flush()
    }

    /// On the worker: sends nothing from now on; what was waiting is dropped, as the app's
    /// owner asked.
    private func disable() {
        locked { disabled = true }
        early.removeAll()
        queue?.clear()
        initialMatch.open()
    }

    private func refreshQuietly() {
        do {
            try refreshOnWorker()
        } catch {
            currentLog.warn("remote configuration refresh failed: \(error.localizedDescription)")
            // Asked again after a while: the placeholder's interval.
            let generation = refreshGeneration
            worker.asyncAfter(deadline: .now() + TimeInterval(RemoteConfig.placeholder.refreshIntervalSeconds)) { [weak self] in
                guard let self = self, self.refreshGeneration == generation else { return }
                self.refreshQuietly()
            }
        }
    }

    private func refreshOnWorker() throws {
        let fetched: RemoteConfig
        do {
            fetched = try api.config()
        } catch let error as ServiceAttributionError where error.isAuthentication {
            disable()
            throw error
        }
        platform.store.put(Key.config, fetched.json.text)
        apply(fetched)
    }

    func refreshConfig(_ completion: @escaping (Error?) -> Void) {
        guard isConfigured else { return completion(ServiceAttributionError.notConfigured) }
        worker.async {
            do {
                try self.refreshOnWorker()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }

    // MARK: - customer user id and events

    func setCustomerUserId(_ value: String?) {
        let id = Fields.customerUserId(value)
        let (isConfigured, log) = locked { () -> (Bool, Logger) in
            customerUserId = id
            return (configured, self.log)
        }
        if id == nil && value != nil { log.warn("the customer user id must be 1 to 256 characters: it is cleared") }
        guard isConfigured else { return }
        worker.async {
            guard self.platform.store.isAvailable else { return }
            if let id = id {
                self.platform.store.put(Key.customerUserId, id)
            } else {
                self.platform.store.remove(Key.customerUserId)
            }
        }
    }

    /// True when the event was taken: sent now, or kept until it can be. False for a manual
    /// `install` and while the SDK is disabled. Throws for `custom` without a name.
    func sendEvent(_ type: EventType, name: String?, parameters: [String: Any]?) throws -> Bool {
        let (isConfigured, isDisabled, log, userId) = locked { (configured, disabled, self.log, customerUserId) }
        if isConfigured && isDisabled {
            try Drafts.checkName(type, name)
            log.debug("the SDK is disabled: \(type.rawValue) is not sent")
            return false
        }
        let time = isConfigured ? platform.clock() : Date()
        guard let draft = try Drafts.create(type, name: name, parameters: parameters, time: time, customerUserId: userId, log: log) else {
            return false
        }
        worker.async {
            let (configuredNow, disabledNow, hasConfig) = self.locked { (self.configured, self.disabled, self.config != nil) }
            if configuredNow && disabledNow { return }
            if !hasConfig {
                // Bounded like the queue, for an app that sends events and never configures.
                if self.early.count >= SdkCore.maxEarlyEvents { self.early.removeFirst() }
                self.early.append(draft)
                return
            }
            self.enqueue(draft)
            self.flush()
        }
        return true
    }

    /// On the worker: protects the draft's parameters and keeps the event on the device.
    private func enqueue(_ draft: Draft) {
        guard let queue = queue, let serviceId = locked({ self.serviceId }) else { return }
        let encryption = locked { config?.encryption } ?? .off
        var sealer: Sealer?
        if case let .on(keyId, publicKey, _) = encryption {
            sealer = try? Sealer(keyId: keyId, publicKeySpki: publicKey)
            if sealer == nil { currentLog.warn("the sealing key of remote configuration is unusable: values are hashed") }
        }
        let protector = Protector(
            sealer: { text in sealer.flatMap { try? $0.seal(Data(text.utf8)) } },
            sealsCustomValues: wrapper?.sealsCustomValues ?? false
        )
        let protected = protector.protect(draft.parameters, encryption: encryption)
        if !protected.dropped.isEmpty {
            currentLog.warn("\(draft.type.rawValue): parameters with no value that may be sent were left out: \(protected.dropped.joined(separator: ", "))")
        }
        queue.add(Requests.event(draft, parameters: protected.parameters, serviceId: serviceId))
    }

    /// A status the service may answer differently later: a timeout, throttling, its own error.
    static func isRetryable(_ statusCode: Int) -> Bool {
        return statusCode == 408 || statusCode == 429 || statusCode >= 500
    }

    private var isDisabledNow: Bool {
        return locked { disabled }
    }

    /// On the worker: the install first, then queued events in order, 100 a request. A request
    /// the service refuses for good is dropped with one error line, and what follows goes on.
    private func flush() {
        if isDisabledNow || retryPending { return }
        guard let queue = queue else { return }
        if !ensureInstall() {
            if !isDisabledNow { scheduleRetry(nil) }
            return
        }
        while !isDisabledNow {
            let batch = queue.peek(SdkCore.batchSize)
            if batch.isEmpty { break }
            let verdict: EventsVerdict
            do {
                verdict = try api.events(batch)
            } catch let error as ServiceAttributionError {
                switch error {
                case .authentication:
                    currentLog.error("the API key was rejected: the SDK disables itself")
                    disable()
                    return
                case let .http(statusCode, message) where !SdkCore.isRetryable(statusCode):
                    // A request the service refuses as a whole would be refused every time.
                    currentLog.error("events refused (\(message)): \(batch.count) dropped")
                    queue.remove(batch.count, keep: [])
                    continue
                default:
                    scheduleRetry(error)
                    return
                }
            } catch {
                scheduleRetry(error)
                return
            }
            queue.remove(batch.count, keep: verdict.retry)
            if !verdict.refused.isEmpty {
                currentLog.error("events refused by the service: \(verdict.refused.joined(separator: "; "))")
            }
            if !verdict.retry.isEmpty {
                // The service has not recorded the install: report it again, then these events.
                platform.store.remove(Key.installTracked)
                scheduleRetry(nil)
                return
            }
        }
        retryDelay = 0
    }

    private func scheduleRetry(_ cause: Error?) {
        retryDelay = retryDelay == 0 ? settings.retryDelay : min(retryDelay * 2, settings.maxRetryDelay)
        let reason = cause?.localizedDescription ?? "install pending"
        currentLog.info("the service is not reachable (\(reason)): retrying in \(Int(retryDelay * 1000)) ms")
        retryPending = true
        worker.asyncAfter(deadline: .now() + retryDelay) { [weak self] in
            guard let self = self else { return }
            self.retryPending = false
            self.flush()
        }
    }

    // MARK: - install

    private enum InstallOutcome {
        case recorded
        case rejectedKey
        case refused(String)
        case failed(Error)
    }

    private func sendInstall(_ body: JSONValue) -> InstallOutcome {
        do {
            try api.install(body)
            return .recorded
        } catch let error as ServiceAttributionError {
            switch error {
            case .authentication:
                return .rejectedKey
            case let .http(statusCode, message) where !SdkCore.isRetryable(statusCode):
                return .refused(message)
            default:
                return .failed(error)
            }
        } catch {
            return .failed(error)
        }
    }

    /// On the worker: reports the first open once per install; true once it is recorded.
    private func ensureInstall() -> Bool {
        if platform.store.get(Key.installTracked) != nil {
            startPolling()
            return true
        }
        let input = installInput()
        var outcome = sendInstall(Requests.install(input))
        if case let .refused(message) = outcome {
            // Only a device signal can make a report the service refuses for good: the report
            // goes again without any, so it never costs the install and every event after it.
            currentLog.error("install refused (\(message)): sent again without device signals")
            outcome = sendInstall(Requests.minimalInstall(input))
        }
        switch outcome {
        case .recorded:
            platform.store.put(Key.installTracked, "1")
            currentLog.info("install recorded")
            startPolling()
            return true
        case .rejectedKey:
            currentLog.error("the API key was rejected: the SDK disables itself")
            disable()
            return false
        case let .refused(message):
            currentLog.error("install refused (\(message)): retrying later")
        case let .failed(error):
            currentLog.warn("install not recorded yet: \(error.localizedDescription)")
        }
        // An attempt was made and did not resolve: a reader sees `failed` until the retry.
        initialMatch.open()
        return false
    }

    private func installInput() -> Requests.InstallInput {
        let device = platform.device
        let (userId, serviceId, openURL, platformAds) = locked { (customerUserId, self.serviceId, self.openURL, self.platformAds) }
        let firstOpenMs = platform.store.get(Key.firstOpen).flatMap { Int64($0) }
        let firstOpen = firstOpenMs.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } ?? platform.clock()
        if platformAds && adsToken == nil {
            do {
                adsToken = try device.platformAdsToken()
            } catch {
                currentLog.warn("Apple Ads attribution token unavailable: \(error.localizedDescription)")
            }
        }
        var input = Requests.InstallInput(serviceId: serviceId ?? "", firstOpen: firstOpen)
        input.sentAt = platform.clock()
        input.osVersion = device.osVersion
        input.deviceModel = device.deviceModel
        input.appVersion = device.appVersion
        input.locale = device.locale
        input.timezone = device.timezone
        input.identifierForVendor = device.identifierForVendor
        input.trackingAuthorizationStatus = device.trackingAuthorizationStatus
        input.advertisingIdentifier = device.advertisingIdentifier()
        input.platformAdsToken = adsToken
        input.openURL = openURL
        input.customerUserId = userId
        if let wrapper = wrapper {
            input.sdkPlatform = wrapper.platform
            input.sdkVersion = wrapper.version
        }
        return input
    }

    // MARK: - attribution

    /// On the worker: reads the install's attribution until it resolves.
    private func startPolling() {
        let alreadyPolling = locked { () -> Bool in
            let was = polling
            polling = true
            return was
        }
        if alreadyPolling { return }
        if platform.store.get(Key.attribution) != nil {
            initialMatch.open()
            return
        }
        let delay = settings.retryDelay
        poller.async { self.poll(delay: delay) }
    }

    /// On the poller: one attribution read; `failed`, an unknown status and errors are asked
    /// again after `delay`, which doubles up to the maximum.
    private func poll(delay: TimeInterval) {
        let (isDisabled, isDeleted, id) = locked { (disabled, deleted, serviceId) }
        guard !isDisabled, !isDeleted, let serviceId = id else {
            initialMatch.open()
            return
        }
        var next = delay
        do {
            let answer = try api.attribution(serviceId: serviceId, waitSeconds: settings.attributionWaitSeconds)
            let status = answer[SdkCore.matchStatus]
            if answer.isEmpty {
                // Still pending: wait on the service again.
                next = 0
            } else if let status = status, SdkCore.settledStatuses.contains(status) {
                let keep = locked { !disabled && !deleted }
                if keep { platform.store.put(Key.attribution, JSONValue.object(answer.mapValues { .string($0) }).text) }
                currentLog.info("attribution resolved: \(status)")
                initialMatch.open()
                return
            } else {
                currentLog.info("attribution not resolved (\(status ?? "no status")): asking again")
                initialMatch.open()
            }
        } catch let error as ServiceAttributionError {
            switch error {
            case .http(404, _):
                currentLog.warn("the service knows no install \(serviceId): attribution stops")
                initialMatch.open()
                return
            case .authentication:
                worker.async { self.disable() }
                return
            default:
                initialMatch.open()
            }
        } catch {
            initialMatch.open()
        }
        let following = min(delay * 2, settings.maxRetryDelay)
        poller.asyncAfter(deadline: .now() + next) { [weak self] in
            self?.poll(delay: following)
        }
    }

    /// The attribution known now, always with `service_match_status` (docs/attribution.md#results;
    /// iOS always has one): `not_configured` before configure has completed and while the SDK is
    /// disabled; the kept answer once the match is resolved; `failed` while it is not (a reader
    /// asks again); `skipped` once the install's data was deleted.
    func attributionParams() -> [String: String] {
        let (isConfigured, isDisabled, isDeleted, isInitialized) = locked { (configured, disabled, deleted, initialized) }
        if !isConfigured || isDisabled { return [SdkCore.matchStatus: "not_configured"] }
        if isDeleted { return [SdkCore.matchStatus: "skipped"] }
        if let text = platform.store.get(Key.attribution), let answer = (try? JSONValue.parse(text))?.objectValue {
            var params: [String: String] = [:]
            for (key, value) in answer {
                if let text = value.stringValue { params[key] = text }
            }
            if params[SdkCore.matchStatus] != nil { return params }
        }
        return [SdkCore.matchStatus: isInitialized ? "failed" : "not_configured"]
    }

    /// Calls `completion` (on a background queue) once the first attribution attempt of this
    /// process has finished, matched or not; at once before configure and while disabled.
    func awaitAttributionParams(_ completion: @escaping ([String: String]) -> Void) {
        let (isConfigured, isDisabled) = locked { (configured, disabled) }
        if !isConfigured || isDisabled { return completion(attributionParams()) }
        initialMatch.wait { completion(self.attributionParams()) }
    }

    // MARK: - deletion, links, state

    func deleteUserData(_ completion: @escaping (Error?) -> Void) {
        guard isConfigured else { return completion(ServiceAttributionError.notConfigured) }
        worker.async {
            guard let serviceId = self.locked({ self.serviceId }) else {
                return completion(ServiceAttributionError.disabled)
            }
            do {
                try self.api.deleteInstall(serviceId: serviceId)
                self.locked { self.deleted = true }
                self.platform.store.remove(Key.attribution)
                self.queue?.clear()
                self.currentLog.info("the install's data is deleted")
                completion(nil)
            } catch {
                self.currentLog.error("deleting the install's data failed: \(error.localizedDescription)")
                completion(error)
            }
        }
    }

    /// Remembers the link that opened the app, for the install's `open_url` on its first launch.
    func noteOpenURL(_ url: String) {
        locked {
            if openURL == nil { openURL = url }
        }
    }

    /// Apple Ads attribution: the install report carries the AdServices token. Only the
    /// install's first report can; on a later launch this changes nothing.
    func enablePlatformAds() {
        locked { platformAds = true }
        guard isConfigured else { return }
        worker.async {
            if self.platform.store.get(Key.installTracked) != nil {
                self.currentLog.debug("Apple Ads attribution: the install was reported already, without a token")
            }
        }
    }

    var serviceIdentifier: String? {
        return locked { serviceId }
    }

    var isSdkDisabled: Bool {
        return locked { !configured || disabled }
    }

    var isConfigured: Bool {
        return locked { configured }
    }

    var isEnabled: Bool {
        return locked { configured && !disabled && config?.enabled == true }
    }

    var initError: Error? {
        return locked { lastInitError }
    }

    /// Waits until the worker and the poller have done what was handed to them so far (tests).
    func drain() {
        worker.sync {}
        poller.sync {}
        worker.sync {}
    }
}

extension ServiceAttributionError {
    var isAuthentication: Bool {
        if case .authentication = self { return true }
        return false
    }
}
