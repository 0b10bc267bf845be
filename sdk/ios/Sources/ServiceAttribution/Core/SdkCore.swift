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
/// Queues: `sendEvent` writes the event to the device on the caller's thread, before it returns
/// (to the queue once a configuration of the service's has said how to protect its parameters,
/// until then as it was taken, to wait for one), as the app's lifecycle writes each session it
/// starts to a queue of its own; every request but the attribution long poll runs on one serial
/// worker queue, so events and sessions leave in the order they were queued. The attribution
/// poll has its own queue so that its long wait never holds events back. Later work (retries,
/// refreshes) goes through the platform's ``Scheduler``. State that public calls read is guarded
/// by `lock`; `enqueueLock` orders the writes to the queues (taken before `lock`, never after);
/// the rest belongs to the worker. Listeners run through `mainThread`, never under a lock.
final class SdkCore: @unchecked Sendable {
    static let matchStatus = "service_match_status"
    /// The statuses that end the install's matching; `failed` (and anything unknown) is asked
    /// again, within the session and at the next launch.
    static let settledStatuses: Set<String> = ["matched", "matched_no_params", "organic", "skipped"]
    /// Reads of the Apple Ads token the install waits for while Apple's framework fails them.
    static let maxAdsTokenTries = 3
    /// The attribution route's own keys (sdk/conformance/listeners.json): every other key of the
    /// map is a custom parameter of the install's link, and goes in its deferred deep link.
    static let attributionKeys: Set<String> = [
        "service_match_status", "media_source", "campaign_id", "campaign_name", "adset_id", "adset_name",
        "ad_id", "ad_name", "click_id", "click_to_first_open_hours", "matching_type", "confidence_score",
    ]
    static let deepLinkPathKey = "deep_link_path"
    /// The query parameter iOS adds to the URL it opens the app with at an AdAttributionKit
    /// re-engagement (iOS 18), AdAttributionKit's `Postback.reengagementOpenURLParameter`:
    /// written out because the core builds where AdAttributionKit is not.
    static let reengagementOpenParameter = "AdAttributionKitReengagementOpen"
    private static let maxEarlyEvents = 1_000
    /// Direct deep links kept while no deep-link listener is set (listeners.json's
    /// `maxPendingDirectLinks`, every SDK's bound): the most recent, the oldest dropped.
    static let maxPendingLinks = 10
    /// The statuses with which the service refuses the install's address or key: a
    /// configuration error, not a refusal of what the report holds.
    static let configurationStatuses: Set<Int> = [401, 403, 404]
    /// The seconds the install may wait for the app's App Tracking Transparency answer
    /// (``waitForTrackingAuthorization(timeout:log:)``). Bounded: an app whose prompt never
    /// shows holds its install, and every session and event behind it, for the whole wait.
    static let trackingWaitLimits: ClosedRange<TimeInterval> = 1...360

    enum Key {
        static let serviceId = "service_id"
        static let firstOpen = "first_open_time"
        static let installTracked = "install_tracked"
        static let customerUserId = "customer_user_id"
        static let config = "remote_config"
        static let attribution = "attribution"
        static let stopped = "stopped"
        static let anonymous = "anonymous"
        static let consent = "consent"
        static let consentSent = "consent_sent"
        /// The device's tracking (`maid`, `att_status`) the service was last told of, by the
        /// install or a consent update: another one read at a start, or as the app becomes
        /// active, goes in a consent update.
        static let trackingSent = "tracking_sent"
        static let droppedEvents = "dropped_events"
        static let droppedSessions = "dropped_sessions"
        static let deferredDelivered = "deferred_deep_link_delivered"
        static let deleted = "deleted"
        static let conversionValues = "conversion_values"
        /// The IDFV of the install that kept this state, beside its `service_id`: another one
        /// read at a later launch means the state was restored to another device or install.
        static let vendorId = "vendor_id"

        /// Every key of the install's state, its queues' included.
        static let all = [
            serviceId, firstOpen, installTracked, customerUserId, config, attribution, stopped,
            anonymous, consent, consentSent, trackingSent, droppedEvents, droppedSessions, deferredDelivered,
            deleted, conversionValues, vendorId, EventQueue.Kind.events.key, EventQueue.Kind.sessions.key,
            EventQueue.Kind.pending.key,
        ]
    }

    /// The listeners' closures: called on the main thread, as main-actor code.
    typealias AttributionListener = @MainActor ([String: String]) -> Void
    typealias DeepLinkListener = @MainActor (ServiceDeepLink) -> Void
    typealias ErrorListener = @MainActor (ServiceError) -> Void

    private let worker = DispatchQueue(label: "com.service.attribution.worker", qos: .utility)
    private let poller = DispatchQueue(label: "com.service.attribution.attribution", qos: .utility)
    private let lock = NSLock()
    private let enqueueLock = NSLock()

    // Guarded by `lock`.
    private var configured = false
    private var disabled = false
    /// This launch's start while the SDK is off only as an earlier launch's configuration says:
    /// the configuration read at this launch decides, and its session is made once that read
    /// switches the SDK on (as the Kotlin and Unity SDKs do). Forgotten at the first read's
    /// answer or failure, and whenever the SDK is switched off. Under `lock`.
    private var launchOffAsKept: KeptOffLaunch?
    /// The batch on its way to the service, set by the worker under `lock` (and `enqueueLock`)
    /// as it leaves: a `stop` meanwhile leaves its items in the queue, and the queue's bound
    /// leaves those it takes off it, for the answer to settle, so that an item the service
    /// accepts is never reported dropped, nor one it refuses reported twice.
    private var inFlight: InFlight?
    /// How many times `stop` has run, under `lock`: a batch taken before a stop is no batch to
    /// send after it, even once a `start` follows (the stop dropped its items).
    private var stops = 0
    private var initialized = false
    private var config: RemoteConfig?
    /// How parameters are protected when queued, as the last configuration of the service's
    /// applied in this process says (this launch's answer to GET /v1/config, or the one kept on
    /// the device when this launch's fetch failed). Nil until one is: events wait on the device
    /// as they were taken (``pendingQueue``), never protected by a guess, so that a value the
    /// configuration seals never leaves hashed or in clear.
    private var protection: Encryption?
    /// The app's conversion value schema: the configuration applied, else the one kept from an
    /// earlier launch; nil when the app has none.
    private var schema: ConversionSchema?
    private var lastInitError: Error?
    /// Completions of `configure` calls made while the first waited for the unlock.
    private var laterCompletions: [(Error?) -> Void] = []
    /// Set when `configure` found the SDK stopped: its initialization waits for `start()`, and so
    /// do the completions of the first call and of any made since, told by the initialization
    /// that `start()` runs, once, as the Kotlin SDK keeps its InitListener for it. Otherwise a
    /// refusal met then (no service address, a blank key, a rejected key) would reach no one.
    /// Nil when no initialization waits for a start.
    private var startCompletions: [(Error?) -> Void]?
    private var customerUserId: String?
    private var serviceId: String?
    private var openURL: String?
    /// The install is recorded (found so, or sent, in this process): a link that opens the app
    /// from now on brought no install, and is never the `open_url` of one, not even of the
    /// install sent again when the service turns out to have lost it (a 409).
    private var installSeenRecorded = false
    /// A re-engagement open noted while no configuration was applied yet (before `configure`,
    /// or while the first GET /v1/config is on its way): Apple is told once one is.
    private var reengagementWaiting = false
    /// The last re-engagement URL taken: the same open handed over twice (a wrapper's glue and
    /// the app both passing the link) makes one update. Cleared wherever that open is dropped
    /// untold (stop, a launch found stopped, a switch-off, reengage finding it may not tell):
    /// Apple was never told, so the same URL handed again later is taken then.
    private var lastReengagementOpen: String?
    private var deleted = false
    private var platformAds = false
    /// How long the install may wait for the app's App Tracking Transparency answer, as
    /// `waitForTrackingAuthorization` asked before `configure`; nil when it was not asked.
    private var trackingWaitTimeout: TimeInterval?
    /// From `configure` on, the wait that may still hold the install. Nil where none was asked,
    /// and once it is over (answered, the time run out, or the install found recorded): it never
    /// holds the install again in this process.
    private var trackingWait: TrackingWait?
    private var polling = false
    /// The attribution route refused the key (401, 403): not read again until the app's
    /// refreshConfig, rather than asked, refused and logged again at every flush.
    private var attributionRefused = false
    /// Apple refused this launch's registration: asked again at the next launch, not at each
    /// configuration this one applies.
    private var refusedRegistration = false
    private var stopped = false
    private var stoppedSetEarly = false
    private var anonymous = false
    private var anonymousSetEarly = false
    private var consent: ServiceConsent?
    private var consentSetEarly = false
    /// The TCF string too long to send that was last warned of.
    private var warnedTcString: String?
    private var droppedTotal = 0
    private var droppedSessionsTotal = 0
    /// When sessions start: this launch's lifecycle and the SDK's state.
    private var sessionTracker = SessionTracker()
    private var earlyDropped = 0
    private var early: [Draft] = []
    /// setCustomerUserId was called before configure; with `customerUserIdClearedEarly`, one of
    /// those calls cleared it.
    private var customerUserIdSetEarly = false
    private var customerUserIdClearedEarly = false
    /// The events kept before configure while no customer user id was set in this process:
    /// they go with the one kept from an earlier launch, unless the app cleared it since.
    private var earlyWithoutUserId: Set<String> = []
    /// The lines written before configure, said once it gives the app's level and log.
    private let earlyLines: EarlyLines
    private var log: Logger
    /// Why `sendEvent` kept nothing, of those already said at info level in this process.
    private var notSentSaid: Set<String> = []
    private var onAttribution: AttributionListener?
    private var onDeepLink: DeepLinkListener?
    private var onError: ErrorListener?
    private weak var delegate: ServiceAttributionDelegate?
    /// A listener or delegate set while the SDK was stopped or switched off, not told the kept
    /// attribution then: told once it starts, or is switched on, again.
    private var attributionOwedToListener = false
    private var attributionOwedToDelegate = false
    /// The attribution given to the listeners in this process, for a listener set later.
    private var announced: [String: String]?
    /// Deep links parsed while no deep-link listener was set, delivered when one is.
    private var pendingLinks: [ServiceDeepLink] = []
    /// The deferred deep link was handed to a deep-link listener or the delegate in this
    /// process: never offered again in it. Set in the step that claims the link, while the call
    /// is posted to the main thread and the device does not say delivered yet (nor will, if the
    /// process ends first), so that an offer meanwhile (a listener or delegate set, `start()`, a
    /// switch-on, the attribution resolving) does not hand it over twice. Never cleared.
    private var deferredHandedOver = false
    private var mainThread: (@escaping () -> Void) -> Void
    /// Where `stop`, `start`, `setAnonymous` and `setConsent` called before `configure` are
    /// written at once (the platform's store to be, `FileStore.standard()` on iOS), so that an
    /// app killed before `configure` keeps them; nil where none is (an app extension).
    private let earlyStore: KeyValueStore?
    /// Why `configure` is refused in this process (an app extension), or nil. Set at init.
    let refusal: ServiceAttributionError?
    /// The time iOS lent to send what is queued once the app went to the background: what
    /// gives it back (once, on the main thread). Nil when none is held.
    private var backgroundTime: (() -> Void)?
    /// Whether the refused `configure` was said in the log already.
    private var refusalSaid = false

    // Set once by configure before `configured` is; read after it only.
    private var platform: Platform!
    private var settings: SdkSettings!
    private var api: Api!
    private var wrapper: Wrapper?
    private var apiKey = ""
    private var queue: EventQueue?
    private var sessionQueue: EventQueue?
    /// Events taken while ``protection`` is nil, as drafts, on the device (so that a process
    /// that ends first loses none): queued in order, protected and evaluated against the
    /// conversion value schema, once a configuration of the service's is applied. Written under
    /// `enqueueLock`.
    private var pendingQueue: EventQueue?
    /// What the worker delivers, in this order: the sessions (a request or so, never behind a
    /// backlog of events, as every SDK of the service sends them), then the events.
    private var lanes: [Lane] = []

    // Worker-queue state.
    private var retryDelay: TimeInterval = 0
    /// The wait before GET /v1/config is asked again while no configuration of the service's is
    /// known (the delivery backoff: events wait for one); 0 once one is.
    private var configRetryDelay: TimeInterval = 0
    private var retryPending = false
    /// The scheduled retry's number: a retry whose number is no longer this one finds its
    /// work done (a flush made at once, as the app went to the background) and does nothing.
    private var retryGeneration = 0
    private var refreshGeneration = 0
    private var adsToken: String?
    /// Reads of the Apple Ads token that failed in this process (on the worker).
    private var adsTokenFailures = 0
    /// On the worker: the service refused the full install for good in this process, so its
    /// retries send the required fields only, as the Kotlin and Unity SDKs do, not the full one
    /// to be refused again first.
    private var bareInstall = false
    /// The status with which the install was refused in this process: nothing more is sent
    /// (but remote configuration) until `refreshConfig` or the next launch, as every request
    /// waits for the install. A delivery route's refusal holds back that lane alone (`Lane.held`).
    private var blockedCode: Int?
    /// The install's, the events route's or the sessions route's configuration error was
    /// reported: once until the next launch or refreshConfig.
    private var configurationReported = false
    /// The consent route's refusal was reported; apart from the others, so that one reported
    /// never hides the other.
    private var consentRefusalReported = false
    /// Set once the consent route refused the update with 401, 403 or 404: not sent again until
    /// the next launch or refreshConfig, and no event waits on it.
    private var consentHeld = false
    /// The last flush held the install for the app's tracking answer, and with it everything
    /// that goes after it: nothing can be sent meanwhile.
    private var installHeldForTracking = false
    /// The wait for the app's tracking answer was said in the log as it began: its end is too.
    private var trackingWaitSaid = false
    /// A read of the tracking status is scheduled: one at a time, a second apart.
    private var trackingReadScheduled = false
    /// Where the install's read of the IDFV is (``waitsForVendorId()``).
    private var vendorIdRead = VendorIdRead.due

    /// Under `lock`: the configure that waits for the device's first unlock (its files readable).
    /// It stays set until that configure runs, so that no other call takes its place meanwhile.
    private var waitingForProtectedData: (() -> Void)?
    /// Under `lock`: the waiting configure has been taken to run (once, whoever saw the unlock).
    private var resumeClaimed = false

    /// Opens once the first attribution attempt of this process has finished, either way.
    private let initialMatch = Latch()

    /// A launch made while the SDK was off only as an earlier launch's configuration says
    /// (``launchOffAsKept``).
    private enum KeptOffLaunch {
        /// In the foreground, or first come to the foreground since: the session of that time.
        case foreground(Date)
        /// In the background (a silent push, a background fetch), not come to the foreground
        /// yet: the session is owed to its first return, as a background launch's is.
        case background
    }

    /// A batch of a lane on its way to the service (``inFlight``).
    private struct InFlight {
        let queue: EventQueue
        let ids: Set<String>
        /// `stop` was called while it was on its way: what its answer leaves queued is dropped.
        var stopped = false
        /// The ids of the batch the queue's bound took off the queue meanwhile, to make room for
        /// newer items: its answer settles them. Stored, they are delivered; refused or ignored,
        /// that verdict is their one report; left to a retry, or the request failed, they are
        /// lost, and told dropped (`queue_full`) then.
        var taken: Set<String> = []
    }

    /// `refusalLog`: where a refused process (an app extension) writes its warnings before any
    /// `configure` gives a sink, so that a `sendEvent` there says it keeps nothing.
    init(
        store: KeyValueStore? = nil,
        refusal: ServiceAttributionError? = nil,
        refusalLog: LogSink? = nil,
        mainThread: ((@escaping () -> Void) -> Void)? = nil
    ) {
        let lines = EarlyLines()
        earlyLines = lines
        log = Logger(sink: lines, level: .debug)
        earlyStore = store
        self.refusal = refusal
        self.mainThread = mainThread ?? { work in DispatchQueue.main.async(execute: work) }
        if refusal != nil, let sink = refusalLog { log = Logger(sink: sink, level: .info) }
    }

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
        completion: ((Error?) -> Void)?,
        resuming: Bool = false
    ) -> Bool {
        if refusal != nil {
            refuseConfigure(log: platform.log, logLevel: logLevel, completion: completion)
            return false
        }
        let started = platform.clock()
        let inForeground = platform.lifecycle.isInForeground
        // The IDFV that tells this install's state from one restored from another device, as
        // known now (never waiting for the main thread), before the locks. Nil while iOS gives
        // none yet (or the all-zero one), or the main thread has not read it (configure called
        // off it): then nothing is compared.
        let vendorId = Fields.deviceId(platform.device.identifierForVendor)
        enqueueLock.lock()
        lock.lock()
        // A call while the first waits for the unlock changes nothing: only the waiting one resumes.
        if configured || (waitingForProtectedData != nil && !resuming) {
            // Its completion still comes, once the first call's initialization is done: with
            // the first's when that waits for the unlock (it is not on the worker yet), else
            // after it on the worker, which runs in order.
            let waitsForUnlock = !configured
            if waitsForUnlock, let completion = completion { laterCompletions.append(completion) }
            let log = self.log
            lock.unlock()
            enqueueLock.unlock()
            log.info("configure was already called: this call changes nothing")
            if !waitsForUnlock, let completion = completion {
                worker.async {
                    // The first call's initialization waits for start(): this completion too.
                    let waitsForStart = self.locked { () -> Bool in
                        guard self.startCompletions != nil else { return false }
                        self.startCompletions?.append(completion)
                        return true
                    }
                    if !waitsForStart { self.onMain { completion(self.locked { self.lastInitError }) } }
                }
            }
            return false
        }
        waitingForProtectedData = nil
        resumeClaimed = false
        self.platform = platform
        self.settings = settings
        self.wrapper = wrapper
        self.apiKey = apiKey
        mainThread = platform.mainThread
        log = Logger(sink: platform.log, level: logLevel)
        earlyLines.replay(into: log)
        api = Api(baseURL: settings.baseURL, apiKey: apiKey, http: platform.http, clock: platform.clock)
        let store = platform.store
        // On the worker: a failed write may be reported while this core's lock is held.
        store.reportWriteFailures { [weak self] message in
            self?.worker.async { self?.currentLog.warn(message) }
        }
        let available = store.isAvailable
        if !available {
            // Launched before the first unlock after a reboot (a background wake): the SDK's
            // files cannot be read, and a new install must not be made up. Configure finishes
            // once they can be; meanwhile events wait in memory, as they do before configure.
            waitingForProtectedData = { [weak self] in
                self?.configure(
                    platform: platform, settings: settings, apiKey: apiKey, logLevel: logLevel,
                    customerUserId: customerUserId, wrapper: wrapper, completion: completion,
                    resuming: true
                )
            }
            let log = self.log
            lock.unlock()
            enqueueLock.unlock()
            log.info("the device is locked since its restart: the SDK starts once it is unlocked; events are kept in memory until then (\(SdkCore.maxEarlyEvents) at most)")
            platform.protectedData.whenAvailable { [weak self] in self?.protectedDataAvailable() }
            // Unlocked between the check and the observer: no notification comes for it.
            if store.isAvailable { protectedDataAvailable() }
            return true
        }
        var stoppedQueue = 0
        var stoppedSessions = 0
        /// What the queues kept on the device lost when read back (a damaged value).
        var eventsLost: EventQueue.Loss?
        var sessionsLost: EventQueue.Loss?
        var pendingLost: EventQueue.Loss?
        /// Events an earlier launch kept waiting for a configuration, dropped as the install's
        /// data was deleted since.
        var deletedPending = 0
        var launchSession: Date?
        /// The customer user id an earlier launch kept, for the events sent before configure.
        var keptUserId: String?
        /// The IDFV the state on the device was kept under, when it is not this device's.
        var restoredFrom: String?
        if available {
            restoredFrom = SdkCore.forgetRestoredState(in: store, vendorId: vendorId)
            keptUserId = customerUserIdClearedEarly ? nil : store.get(Key.customerUserId)
            if let id = Fields.customerUserId(customerUserId) { self.customerUserId = id }
            if store.get(Key.deleted) != nil {
                // The install's data was deleted: its user's id went with it, and is not kept again.
                store.remove(Key.customerUserId)
            } else if let id = self.customerUserId {
                store.put(Key.customerUserId, id)
            } else if customerUserIdClearedEarly {
                // Cleared before configure: the id an earlier launch kept goes too.
                store.remove(Key.customerUserId)
            } else {
                self.customerUserId = store.get(Key.customerUserId)
            }
            if let id = store.get(Key.serviceId) {
                serviceId = id
            } else {
                // A new id on every install: the IDFV, not this id, tells the service of a reinstall.
                let id = UUID().uuidString.lowercased()
                store.put(Key.serviceId, id)
                store.put(Key.firstOpen, String(Int64(started.timeIntervalSince1970 * 1000)))
                serviceId = id
            }
            // What the app said before configure wins over what was kept; either is kept.
            if stoppedSetEarly { store.put(Key.stopped, stopped ? "1" : "0") } else { stopped = store.get(Key.stopped) == "1" }
            // A re-engagement open noted before configure found the SDK stopped: not told.
            if stopped {
                if reengagementWaiting { lastReengagementOpen = nil }
                reengagementWaiting = false
            }
            if anonymousSetEarly { store.put(Key.anonymous, anonymous ? "1" : "0") } else { anonymous = store.get(Key.anonymous) == "1" }
            if consentSetEarly {
                SdkCore.storeConsent(consent, in: store)
            } else {
                consent = store.get(Key.consent).flatMap(SdkCore.parseConsent)
            }
            deleted = store.get(Key.deleted) != nil
            droppedTotal += store.get(Key.droppedEvents).flatMap { Int($0) } ?? 0
            if droppedTotal > 0 { store.put(Key.droppedEvents, String(droppedTotal)) }
            droppedSessionsTotal += store.get(Key.droppedSessions).flatMap { Int($0) } ?? 0
            // How events are protected is decided by this launch's configuration (or, its fetch
            // failing, the one kept): until then they wait on the device, as they were taken.
            let cached = cachedConfig()
            schema = cached?.skadnetwork
            let events = EventQueue(store: store, max: settings.maxQueuedEvents)
            let sessions = EventQueue(store: store, max: settings.maxQueuedSessions, kind: .sessions)
            let pending = EventQueue(store: store, max: settings.maxQueuedEvents, kind: .pending)
            eventsLost = events.lostOnLoad
            sessionsLost = sessions.lostOnLoad
            pendingLost = pending.lostOnLoad
            // Stopped before this launch's configure: what an earlier launch queued goes too.
            if stopped {
                stoppedQueue = SdkCore.eventsDropped(queued: events.clear(), waiting: pending.clear()).count
                stoppedSessions = sessions.clear().count
            } else if deleted {
                deletedPending = pending.clear().count
            }
            queue = events
            sessionQueue = sessions
            pendingQueue = pending
            lanes = [
                Lane(.sessions, sessions, maxPerRequest: settings.maxSessionsPerRequest),
                Lane(.events, events, maxPerRequest: settings.maxEventsPerRequest),
            ]
            // This launch's session, by what the device knows now: stopped, deleted, or switched
            // off by the configuration an earlier launch kept. (A fresh configuration that
            // switches the SDK off drops it, as it drops queued events.)
            var tracker = SessionTracker(intervalSeconds: cached?.sessionIntervalSeconds ?? SessionTracker.defaultIntervalSeconds)
            if stopped { tracker.stop() }
            if deleted || cached?.enabled == false { tracker.disable() }
            launchSession = tracker.launch(at: started, inForeground: inForeground)
            if !stopped && !deleted && cached?.enabled == false { launchOffAsKept = inForeground ? KeptOffLaunch.foreground(started) : .background }
            sessionTracker = tracker
        }
        configured = true
        // Counted from this configure: a launch killed while its install waited waits again,
        // from its own.
        if let timeout = trackingWaitTimeout { trackingWait = TrackingWait(since: started, timeout: timeout) }
        let withoutUserId = earlyWithoutUserId
        let launchAnonymous = anonymous
        let waiting = early.map { draft -> Draft in
            // Anonymous mode as sendEvent found it; not known then (no setAnonymous in this
            // process yet), this launch's, read above. An event taken while anonymous never
            // carries the id, nor takes the one an earlier launch kept.
            let wasAnonymous = draft.anonymous ?? launchAnonymous
            let inherits = !wasAnonymous && draft.customerUserId == nil && withoutUserId.contains(draft.eventId)
            return Draft(
                eventId: draft.eventId, type: draft.type, name: draft.name, parameters: draft.parameters, time: draft.time,
                customerUserId: wasAnonymous ? nil : (inherits ? keptUserId : draft.customerUserId),
                anonymous: wasAnonymous
            )
        }
        early.removeAll()
        earlyWithoutUserId.removeAll()
        let earlyOverflow = earlyDropped
        earlyDropped = 0
        let isStopped = stopped
        let isDeleted = deleted
        lock.unlock()
        if let problem = Fields.customerUserIdProblem(customerUserId) {
            currentLog.warn("configure's customer user id \(problem): not kept, so that no event is refused for it")
        }
        if let other = restoredFrom {
            currentLog.warn("the SDK's state on this device was kept under another IDFV (\(other)): restored from another device or install, it is forgotten (its install id, its queues, its stop or deletion), and this install is tracked as a new one")
        }
        // Events sent before configure, after those an earlier launch kept waiting and in order:
        // on the device now, waiting for this launch's configuration.
        var overflow: [JSONValue] = []
        if available && !isStopped && !isDeleted {
            overflow = enqueue(waiting)
        }
        let sessionOverflow = launchSession.map { enqueueSession(startedAt: $0) } ?? []
        enqueueLock.unlock()
        // What a damaged queue on the device cost: reported, never a queue silently empty.
        reportUnreadable(events: eventsLost)
        reportUnreadable(events: pendingLost, kept: "the events kept on the device until a configuration says how to protect them")
        reportUnreadable(sessions: sessionsLost)
        if earlyOverflow > 0 {
            reportDrop(.queueFull, earlyOverflow, "more events were sent before configure than the queue holds")
        }
        if !overflow.isEmpty { reportDrop(.queueFull, overflow.count, "the queue is full: the oldest events make room") }
        reportDrop(.stopped, stoppedQueue, "the app stopped the SDK")
        reportDrop(.deleted, deletedPending, "the install's data was deleted: the service ignores its events")
        reportSessionDrop(.stopped, stoppedSessions, "the app stopped the SDK")
        reportSessionDrop(.queueFull, sessionOverflow.count, "the queue holds \(settings.maxQueuedSessions) sessions: the oldest makes room")
        if !waiting.isEmpty && (isStopped || isDeleted) {
            let reason: ServiceError.DropReason = isStopped ? .stopped : .deleted
            reportDrop(reason, waiting.count, "events sent before configure, which found the SDK \(reason.rawValue)")
        }
        platform.lifecycle.observe(
            background: { [weak self] in self?.enteredBackground() },
            foreground: { [weak self] in self?.enteredForeground() },
            active: { [weak self] in self?.becameActive() }
        )
        worker.async {
            // The flag as it is now: a stop() made since configure let go of the lock sends
            // nothing either, not even the configuration's read.
            if self.locked({ self.stopped }) {
                self.currentLog.info("stopped by the app: nothing is sent until start(), which initializes the SDK and completes configure")
                self.awaitStart(completion)
                return
            }
            self.initialize(completion: completion)
        }
        return true
    }

    /// The device's files can be read: the configure that waited for it runs, once. The wait is
    /// cleared by that configure itself, under the lock, so a call from another thread in between
    /// still finds it and changes nothing.
    private func protectedDataAvailable() {
        let resume = locked { () -> (() -> Void)? in
            guard !resumeClaimed, let waiting = waitingForProtectedData else { return nil }
            resumeClaimed = true
            return waiting
        }
        resume?()
    }

    /// `configure` where the SDK must not run (an app extension: ``refusal``): nothing is
    /// opened, stored or sent; one warning in the log (the first call's), and `completion`
    /// told, on the main thread, with the refusal. (`sendEvent` kept nothing before it: it
    /// refuses there from the start.)
    func refuseConfigure(log sink: LogSink, logLevel: LogLevel, completion: ((Error?) -> Void)?) {
        guard let refusal = refusal else { return }
        let (say, log) = locked { () -> (Bool, Logger) in
            let first = !refusalSaid
            refusalSaid = true
            self.log = Logger(sink: sink, level: logLevel)
            lastInitError = refusal
            return (first, self.log)
        }
        if say { log.warning(refusal.localizedDescription) }
        if let completion = completion { onMain { completion(refusal) } }
    }

    /// At `configure`, before anything is read: the state on the device kept under another IDFV
    /// than this device's (a backup or a transfer restored to another device, as the exclusion
    /// from backups may fail) is forgotten, every key of it, so that the install is tracked as a
    /// new one, with no stop, deletion or queue of the other. The IDFV is kept beside the
    /// `service_id` (the first time, or once iOS gives one). Nil IDFV (not given yet, or the
    /// all-zero one): nothing is compared or kept. Returns the other IDFV when it forgot.
    private static func forgetRestoredState(in store: KeyValueStore, vendorId: String?) -> String? {
        guard let current = vendorId else { return nil }
        let kept = store.get(Key.vendorId)
        if kept == current { return nil }
        var forgotten: String?
        // A state kept under no IDFV (a first launch that had none yet) is this install's own.
        if let other = kept, let id = Fields.deviceId(other), id.uppercased() != current.uppercased() {
            for key in Key.all { store.remove(key) }
            forgotten = id
        }
        store.put(Key.vendorId, current)
        return forgotten
    }

    /// An absolute http(s) URL with a host: what every request's address is made from.
    static func isHTTPAddress(_ address: String) -> Bool {
        // As written: the requests are made from the address untrimmed.
        guard let url = URLComponents(string: address),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    private func initialize(completion: ((Error?) -> Void)?) {
        let refusal: ServiceAttributionError?
        if apiKey.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            refusal = .invalidArgument("apiKey must not be empty")
        } else if settings.baseURL.isEmpty {
            refusal = .missingBaseURL
        } else if !SdkCore.isHTTPAddress(settings.baseURL) {
            // One without its scheme would fail every request as though the device were offline,
            // tried again for ever and never said.
            refusal = .invalidArgument(
                "the service's address \"\(settings.baseURL)\" is not an http or https URL (baseURL, or Info.plist key ServiceAttributionBaseURL)"
            )
        } else {
            refusal = nil
        }
        if let refusal = refusal {
            failInit(refusal, message: refusal.localizedDescription, disable: true)
            return finishInit(refusal, completion)
        }
        var initError: Error?
        let fetched: RemoteConfig
        var read = true
        do {
            fetched = try api.config()
            platform.store.put(Key.config, fetched.json.text)
        } catch let error as ServiceAttributionError where error.isAuthentication {
            failInit(error, message: "the API key was rejected on GET /v1/config: the SDK disables itself", disable: true)
            registerConversion()
            return finishInit(error, completion)
        } catch {
            failInit(error, message: "remote configuration: \(error.localizedDescription)", disable: false)
            initError = SdkCore.appFacing(error)
            let cached = cachedConfig()
            read = cached != nil
            fetched = cached ?? .placeholder
        }
        locked { initialized = true }
        currentLog.info("initialized: \(fetched.enabled ? "enabled" : "switched off by remote configuration")")
        apply(fetched, read: read)
        finishInit(initError, completion)
    }

    /// What the initialization met, as the app reads it (`lastInitError`), at error level in the
    /// log; with `disable`, the SDK switched off. `during`: the read that met it, the
    /// initialization's or a later one of remote configuration (a key rejected on a refresh is
    /// told as the initialization's is, as the Kotlin SDK tells it).
    private func failInit(_ error: Error, message: String, disable shouldDisable: Bool, during: String = "initialization") {
        locked { lastInitError = SdkCore.appFacing(error) }
        currentLog.error("\(during): \(message)")
        if shouldDisable { disable(because: message) }
    }

    /// On the worker: `configure` found the SDK stopped. Its completion, and those of the calls
    /// that waited for the unlock with it, wait for the initialization that `start()` runs.
    private func awaitStart(_ completion: ((Error?) -> Void)?) {
        locked {
            var waiting = startCompletions ?? []
            if let completion = completion { waiting.append(completion) }
            waiting += laterCompletions
            laterCompletions = []
            startCompletions = waiting
        }
    }

    /// The initialization is done: `completion`, and every completion that waited for it (those
    /// of `configure` calls made meanwhile, and those kept while the SDK was stopped), told once.
    private func finishInit(_ error: Error?, _ completion: ((Error?) -> Void)?) {
        let later = locked { () -> [(Error?) -> Void] in
            initialized = true
            let waiting = (startCompletions ?? []) + laterCompletions
            startCompletions = nil
            laterCompletions = []
            return waiting
        }
        let completions = (completion.map { [$0] } ?? []) + later
        if completions.isEmpty { return }
        onMain { completions.forEach { $0(error) } }
    }

    private var currentLog: Logger {
        return locked { log }
    }

    private func onMain(_ work: @escaping () -> Void) {
        let run = locked { mainThread }
        run(work)
    }

    private func cachedConfig() -> RemoteConfig? {
        guard let text = platform.store.get(Key.config) else { return nil }
        return try? RemoteConfig.parse(text)
    }

    /// On the worker: runs with a configuration, switching off or on as it says. `read` is
    /// false for the placeholder, which stands for no configuration read at all: it decides
    /// nothing of how events are protected, and GET /v1/config is asked again soon.
    private func apply(_ newConfig: RemoteConfig, read: Bool = true) {
        // Under enqueueLock: no event is queued or evaluated between the new rules and the
        // events that waited for a configuration, which go first.
        enqueueLock.lock()
        let previous = locked { () -> ConversionSchema? in
            let was = schema
            config = newConfig
            if read { protection = newConfig.encryption }
            schema = newConfig.skadnetwork
            sessionTracker.intervalSeconds = newConfig.sessionIntervalSeconds
            return was
        }
        // A re-engagement open that waited for a configuration: told below, unless this one
        // switches the SDK off, which forgets it.
        let reengaged = locked { () -> Bool in
            defer { reengagementWaiting = false }
            if reengagementWaiting && !newConfig.enabled { lastReengagementOpen = nil }
            return reengagementWaiting
        }
        // With the placeholder nothing is decided yet: what waits goes on waiting. A
        // configuration that switches the SDK off drops it below, with the queue.
        var pending: (overflow: [JSONValue], unreadable: Int) = ([], 0)
        if read && newConfig.enabled { pending = queuePending() }
        enqueueLock.unlock()
        if pending.unreadable > 0 {
            reportUnreadable(events: EventQueue.Loss(count: pending.unreadable, why: "events of another shape"), kept: "the events kept on the device until a configuration says how to protect them")
        }
        if !pending.overflow.isEmpty {
            reportDrop(.queueFull, pending.overflow.count, "the queue holds \(settings.maxQueuedEvents) events: the oldest make room for those that waited for a configuration")
        }
        if let rules = newConfig.skadnetwork, rules.version != previous?.version {
            // The windows keep what they saw and the values Apple holds; only the rules change.
            currentLog.info("conversion value schema version \(rules.version): the events from now on are evaluated with its rules")
        }
        refreshGeneration += 1
        let generation = refreshGeneration
        // No answer of the service's yet: asked again as a delivery is retried, since events
        // wait for it; else at the configuration's own interval.
        if read { configRetryDelay = 0 }
        let refreshIn = read ? TimeInterval(newConfig.refreshIntervalSeconds) : nextConfigRetryDelay()
        if !read {
            currentLog.info("no remote configuration of the service's known yet: events wait on the device until one is read, asked again in \(Int(refreshIn)) s")
        }
        platform.scheduler.schedule(after: refreshIn, on: worker) { [weak self] in
            guard let self = self, self.refreshGeneration == generation else { return }
            self.refreshQuietly()
        }
        // Switched off or on, Apple is told of the first launch (see registerConversion).
        registerConversion()
        if !newConfig.enabled {
            disable(because: "remote configuration switched the SDK off")
            return
        }
        let (switchedOn, launch) = locked { () -> (Bool, Date?) in
            let was = disabled
            disabled = false
            // On again: no session by itself; the next return after the interval starts one.
            if !deleted { sessionTracker.enable() }
            // Off at this launch's start only as kept: this launch's session is made now, or, for
            // a launch in the background, owed to the app's first return to the foreground.
            let kept = read && !stopped && !deleted ? launchOffAsKept : nil
            if read { launchOffAsKept = nil }
            switch kept {
            case let .foreground(time)?:
                return (was, time)
            case .background?:
                sessionTracker.oweLaunch()
                return (was, nil)
            case nil:
                return (was, nil)
            }
        }
        if let launch = launch {
            enqueueLock.lock()
            let overflow = enqueueSession(startedAt: launch)
            enqueueLock.unlock()
            reportSessionDrop(.queueFull, overflow.count, "the queue holds \(settings.maxQueuedSessions) sessions: the oldest makes room")
        }
        if reengaged { reengage() }
        flush()
        if switchedOn {
            // What a listener set while switched off was not told: the attribution, and a
            // deferred deep link kept for want of one.
            tellOwedAttribution()
            deliverKeptDeferredLink()
        }
    }

    /// Sends nothing from now on and starts no session; what was queued is dropped (reason
    /// `disabled`), as the app's owner asked.
    private func disable(because why: String) {
        enqueueLock.lock()
        locked {
            disabled = true
            sessionTracker.disable()
            launchOffAsKept = nil
        }
        let dropped = SdkCore.eventsDropped(queued: queue?.clear() ?? [], waiting: pendingQueue?.clear() ?? [])
        let droppedSessions = sessionQueue?.clear() ?? []
        enqueueLock.unlock()
        reportDrop(.disabled, dropped.count, why)
        reportSessionDrop(.disabled, droppedSessions.count, why)
        initialMatch.open()
    }

    private func refreshQuietly() {
        if locked({ stopped }) { return }
        do {
            try refreshOnWorker()
        } catch {
            // The configuration kept stays in force: a launch off as kept makes no session.
            locked { launchOffAsKept = nil }
            // A rejected key ends the reading, as at configure (the SDK is off, `lastInitError`
            // set, in refreshOnWorker): read again by refreshConfig or at the next launch, as the
            // Kotlin and Unity SDKs do, rather than asked hourly with a key the service refuses.
            // No completion waits for this read: the app hears of it through the error listener
            // too (keyRejectedOnRefresh), as Kotlin's InitListener.onError and Unity's error
            // listener hear it.
            if case let .authentication(statusCode)? = error as? ServiceAttributionError {
                refreshGeneration += 1
                keyRejectedOnRefresh(statusCode)
                return
            }
            // While no configuration of the service's is known, events wait for one: asked again
            // as a delivery is retried, from 2 s doubling to a minute. Once one is, at its own
            // interval (the configuration in force stays).
            let (waiting, interval) = locked { (protection == nil, config?.refreshIntervalSeconds) }
            let delay: TimeInterval
            if waiting {
                delay = nextConfigRetryDelay()
            } else {
                delay = TimeInterval(interval ?? RemoteConfig.placeholder.refreshIntervalSeconds)
            }
            currentLog.warn("remote configuration refresh failed: \(error.localizedDescription): asked again in \(Int(delay)) s")
            // A new number, as apply gives one: a read scheduled before this one (the one due
            // when start() read at once, say) finds it changed and does nothing, so the reads
            // stay one chain. Under the old number each stop and start would add a chain, each
            // doubling the shared backoff.
            refreshGeneration += 1
            let generation = refreshGeneration
            platform.scheduler.schedule(after: delay, on: worker) { [weak self] in
                guard let self = self, self.refreshGeneration == generation else { return }
                self.refreshQuietly()
            }
        }
    }

    /// On the worker: the key rejected on a periodic read of remote configuration (the SDK
    /// switched off and `lastInitError` set, said at error level, by refreshOnWorker), to the
    /// error listener as a configuration error with the status: the app's one word of it, as
    /// no completion waits for that read. Once, as a configuration error is told (the
    /// install's or a route's, one wrong key to fix), until the next launch or refreshConfig.
    private func keyRejectedOnRefresh(_ code: Int) {
        if configurationReported { return }
        configurationReported = true
        let text = "the API key was rejected on GET /v1/config (HTTP \(code)): the SDK disables itself until refreshConfig or the next launch"
        emitError(ServiceError(kind: .configuration, reason: nil, code: code, count: 1, message: text))
    }

    /// On the worker: the next wait before GET /v1/config is asked again while no configuration
    /// of the service's is known: the delivery's backoff (delivery.json's 2 s, doubling to 60).
    private func nextConfigRetryDelay() -> TimeInterval {
        configRetryDelay = configRetryDelay == 0 ? settings.retryDelay : min(configRetryDelay * 2, settings.maxRetryDelay)
        return wait(before: configRetryDelay)
    }

    /// The wait before the next attempt whose backoff is `backoff`: jittered, and never shorter
    /// than what the service last asked for with a `Retry-After` (delivery.json's `retryWait`).
    private func wait(before backoff: TimeInterval) -> TimeInterval {
        return max(settings.jitter(backoff), api?.askedToWait ?? 0)
    }

    private func refreshOnWorker() throws {
        let fetched: RemoteConfig
        do {
            fetched = try api.config()
        } catch let error as ServiceAttributionError where error.isAuthentication {
            // Told as the initialization's rejection is: `lastInitError`, the log, the switch-off.
            // The caller tells the rest: refreshConfig's completion, or, for the periodic read,
            // which no one waits for, the error listener (refreshQuietly).
            failInit(error, message: "the API key was rejected on GET /v1/config: the SDK disables itself", disable: true, during: "remote configuration refresh")
            registerConversion()
            throw error
        }
        platform.store.put(Key.config, fetched.json.text)
        locked { initialized = true }
        apply(fetched)
    }

    /// The app's refresh: also lets the install be tried again after a configuration error.
    func refreshConfig(_ completion: @escaping (Error?) -> Void) {
        guard isConfigured else { return completion(ServiceAttributionError.notConfigured) }
        worker.async {
            if self.locked({ self.stopped }) {
                self.currentLog.info("stopped by the app: remote configuration is not fetched")
                return completion(nil)
            }
            self.blockedCode = nil
            self.locked { self.attributionRefused = false }
            self.configurationReported = false
            self.consentRefusalReported = false
            self.consentHeld = false
            self.lanes.forEach { $0.held = false }
            do {
                try self.refreshOnWorker()
                completion(nil)
            } catch {
                // A rejected key ends the periodic reading too, as refreshQuietly's does: the
                // read already scheduled would ask again with a key the service refuses, and
                // tell the error listener what this completion is told.
                if (error as? ServiceAttributionError)?.isAuthentication == true {
                    self.refreshGeneration += 1
                }
                completion(SdkCore.appFacing(error))
            }
        }
    }

    /// An error as the app is given it: one of ``ServiceAttributionError``'s. An answer that is
    /// not the service's (a proxy's or a captive portal's page) is no answer of the service's:
    /// `network`, as the Kotlin SDK gives it (an IOException) and the Flutter plugin names it.
    static func appFacing(_ error: Error) -> Error {
        guard let unexpected = error as? UnexpectedAnswer else { return error }
        return ServiceAttributionError.network(unexpected.localizedDescription)
    }

    // MARK: - customer user id and events

    func setCustomerUserId(_ value: String?) {
        let id = Fields.customerUserId(value)
        let (isConfigured, log) = locked { () -> (Bool, Logger) in
            customerUserId = id
            if !configured {
                customerUserIdSetEarly = true
                if id == nil { customerUserIdClearedEarly = true }
            }
            return (configured, self.log)
        }
        if let problem = Fields.customerUserIdProblem(value) {
            log.warn("the customer user id \(problem): it is cleared, so that no event is refused for it")
        }
        guard isConfigured, platform.store.isAvailable else { return }
        // Under the lock that marks a deletion (forgetDeletedInstall): once the install's data is
        // deleted, its user's id went with it and is not kept again.
        locked {
            if let id = id, !deleted {
                platform.store.put(Key.customerUserId, id)
            } else {
                platform.store.remove(Key.customerUserId)
            }
        }
    }

    /// True when the event was taken: on the device before this returns (kept in memory before
    /// configure), sent as soon as it can be. False for a manual `install`, while the SDK is
    /// disabled or stopped, after the install's data was deleted, and where `configure` is
    /// refused (an app extension: nothing is kept there, not even in memory, as it would never
    /// be sent). Throws for `custom` without a name.
    func sendEvent(_ type: EventType, name: String?, parameters: [String: Any]?) throws -> Bool {
        if let refused = self.refusal {
            try Drafts.checkName(type, name)
            currentLog.warn("\(type.rawValue) is not sent, nothing is kept: \(refused.localizedDescription)")
            return false
        }
        // Anonymous mode now, as the event keeps it: known once configured, or set in this
        // process before; else configure reads this launch's.
        let (isConfigured, refusal, log, userId, anonymousNow) = locked { () -> (Bool, String?, Logger, String?, Bool?) in
            (configured, refusalLocked(), self.log, customerUserId, (configured || anonymousSetEarly) ? anonymous : nil)
        }
        if let refusal = refusal {
            try Drafts.checkName(type, name)
            sayNotSent(refusal, type, log)
            return false
        }
        let time = isConfigured ? platform.clock() : Date()
        guard let draft = try Drafts.create(
            type, name: name, parameters: parameters, time: time, customerUserId: userId, anonymous: anonymousNow, log: log
        ) else {
            return false
        }
        if !isConfigured {
            let keptEarly = locked { () -> Bool in
                if configured { return false }
                // Bounded like the queue, for an app that sends events and never configures.
                if early.count >= SdkCore.maxEarlyEvents {
                    earlyWithoutUserId.remove(early.removeFirst().eventId)
                    earlyDropped += 1
                }
                early.append(draft)
                // The id an earlier launch kept is known only once configure reads the store;
                // an event taken while anonymous takes none.
                if !customerUserIdSetEarly && draft.anonymous != true { earlyWithoutUserId.insert(draft.eventId) }
                return true
            }
            if keptEarly { return true }
        }
        enqueueLock.lock()
        if let refusal = locked({ refusalLocked() }) {
            enqueueLock.unlock()
            sayNotSent(refusal, type, log)
            return false
        }
        let overflow = enqueue(draft)
        enqueueLock.unlock()
        if !overflow.isEmpty {
            reportDrop(.queueFull, overflow.count, "the queue holds \(settings.maxQueuedEvents) events: the oldest makes room")
        }
        worker.async { self.flush() }
        return true
    }

    /// Said at the app's level once per reason in a process, so that no event goes without a
    /// word, and no log fills with one line per event. Not under `lock`, which it takes.
    private func sayNotSent(_ refusal: String, _ type: EventType, _ log: Logger) {
        if locked({ notSentSaid.insert(refusal).inserted }) {
            log.info("\(refusal): \(type.rawValue) is not sent, nor any event while it is")
        } else {
            log.debug("\(refusal): \(type.rawValue) is not sent")
        }
    }

    /// Under `lock`: why an event cannot be taken now, or nil.
    private func refusalLocked() -> String? {
        if stopped { return "the SDK is stopped" }
        if !configured { return nil }
        if disabled { return "the SDK is disabled" }
        if deleted { return "the install's data was deleted" }
        return nil
    }

    /// Under `enqueueLock`: protects the draft's parameters and writes the event to the queue
    /// on the device; returns the oldest events dropped to make room. While no configuration of
    /// the service's has said how to protect them, the draft waits on the device instead.
    private func enqueue(_ draft: Draft) -> [JSONValue] {
        return enqueue([draft])
    }

    /// The same for several drafts, in order, in one write of the queue: the events sent before
    /// configure are queued so, not each with a rewrite of the whole file.
    private func enqueue(_ drafts: [Draft]) -> [JSONValue] {
        guard let queue = queue, !drafts.isEmpty else { return [] }
        let (serviceId, decided, isAnonymous, log) = locked { (self.serviceId, protection, anonymous, self.log) }
        guard let id = serviceId else { return [] }
        // Not known yet how this launch's configuration protects them: kept as they were taken.
        guard let encryption = decided else { return keepPending(drafts) }
        // RemoteConfig.parse refuses a configuration whose key cannot seal, so this key can.
        var sealer: Sealer?
        if case let .on(keyId, publicKey, _) = encryption {
            sealer = try? Sealer(keyId: keyId, publicKeySpki: publicKey)
        }
        let protector = Protector(
            sealer: { text in sealer.flatMap { try? $0.seal(Data(text.utf8)) } },
            sealsCustomValues: wrapper?.sealsCustomValues ?? false
        )
        let events = drafts.map { draft -> JSONValue in
            let protected = protector.protect(draft.parameters, encryption: encryption)
            if !protected.dropped.isEmpty {
                log.warn("\(draft.type.rawValue): parameters with no value that may be sent were left out: \(protected.dropped.joined(separator: ", "))")
            }
            // Anonymous when taken: no customer user id, and marked anonymous in the queue,
            // which keeps the mark across launches and once the mode is off. Not for being on
            // while the event waited for a configuration: anonymous when it leaves is decided as
            // it leaves (requests.json: on when it was sent or when it leaves). A draft that does
            // not say takes the mode as it is now.
            return Requests.event(draft, parameters: protected.parameters, serviceId: id, anonymous: draft.anonymous ?? isAnonymous)
        }
        let overflow = outsideTheBatch(queue.add(events), of: queue)
        drafts.forEach { evaluateConversion($0) }
        return overflow
    }

    /// Under `enqueueLock`, of the items `queue`'s bound just took off to make room: those to
    /// report now. Those of the batch on its way are its answer's to settle (``InFlight/taken``):
    /// told now, one the service stores would be a drop told of an item delivered, and one it
    /// refuses or ignores a drop told twice.
    private func outsideTheBatch(_ dropped: [JSONValue], of queue: EventQueue) -> [JSONValue] {
        if dropped.isEmpty { return dropped }
        return locked { () -> [JSONValue] in
            guard let sending = inFlight, sending.queue === queue else { return dropped }
            let onItsWay = { (item: JSONValue) -> Bool in queue.kind.id(of: item).map { sending.ids.contains($0) } ?? false }
            inFlight?.taken.formUnion(dropped.filter(onItsWay).compactMap { queue.kind.id(of: $0) })
            return dropped.filter { !onItsWay($0) }
        }
    }

    /// Under `enqueueLock`: drafts written to the device as they were taken (their parameters
    /// neither hashed nor sealed), to be queued once a configuration of the service's says how
    /// to protect them; returns the oldest dropped to make room (the queue's bound).
    private func keepPending(_ drafts: [Draft]) -> [JSONValue] {
        guard let pending = pendingQueue, !drafts.isEmpty else { return [] }
        return pending.add(drafts.map { Drafts.json($0) })
    }

    /// Under `enqueueLock`, once a configuration of the service's is applied (``protection``
    /// set): the events that waited for one, in the order they were taken, protected as it says,
    /// queued, and evaluated against its conversion value schema, before any event taken after
    /// them; each once, an event the queue holds already left as it is. Returns the oldest events
    /// the queue dropped to make room, and how many kept ones could not be read back.
    private func queuePending() -> (overflow: [JSONValue], unreadable: Int) {
        guard let pending = pendingQueue, let events = queue,
              locked({ !stopped && !deleted && protection != nil }) else { return ([], 0) }
        let kept = pending.peek(Int.max)
        if kept.isEmpty { return ([], 0) }
        let drafts = kept.compactMap { Drafts.parse($0) }
        // A process that ended between the queue's write and the clear below left drafts both
        // here and queued (and evaluated) already: queued again, they would be sent again and
        // count twice in the conversion windows' counts and revenue. Only the others are queued,
        // and so evaluated (enqueue evaluates what it is given).
        let queued = Set(events.peek(Int.max).compactMap(EventQueue.id))
        let added = drafts.filter { !queued.contains($0.eventId) }
        let overflow = enqueue(added)
        pending.clear()
        return (overflow, kept.count - drafts.count)
    }

    /// What a drop of the events took, each event once: `queued`, taken out of the queue, and of
    /// `waiting`, the drafts taken out of those that wait for a configuration, the ones neither
    /// among `queued` nor among `kept` (the batch on its way, which the queue keeps for its
    /// answer to settle). A launch that ends between ``queuePending()``'s write of the queue and
    /// its removal of the drafts leaves an event in both on the device, and a later launch that
    /// drops them before it queues the drafts (one that starts stopped, a stop or a switch-off
    /// while its configuration is read) would count it twice.
    private static func eventsDropped(queued: [JSONValue], waiting: [JSONValue], kept: Set<String> = []) -> [JSONValue] {
        let held = kept.union(queued.compactMap(EventQueue.id))
        return queued + waiting.filter { draft in EventQueue.id(of: draft).map { !held.contains($0) } ?? true }
    }

    // MARK: - sessions

    /// The app went to the background (UIKit's notification, on the main thread): the time away
    /// counts from now, and what is still to send (the install, events, sessions) is sent at
    /// once, in the time iOS lends for it, rather than when the app next runs.
    func enteredBackground() {
        guard isConfigured else { return }
        let now = platform.clock()
        locked { sessionTracker.enterBackground(at: now) }
        sendInTheBackground()
    }

    /// On the main thread, as the app goes to the background: with the install, events or
    /// sessions still to send, iOS is asked for time (a background task) and the worker sends
    /// now, a retry of the events or sessions waiting or not; an install not recorded yet is
    /// left to its own retry, which the time lent may still see run (``flushNow()``). The time
    /// is given back once the worker has nothing left it can send
    /// (``giveBackBackgroundTimeIfDone()``), or when iOS takes it back first. No time lent (none
    /// asked for, or iOS gave none): nothing more than before.
    private func sendInTheBackground() {
        let (mayRun, held) = locked { (!disabled && !stopped && !deleted, backgroundTime != nil) }
        guard mayRun, !held, hasSomethingToSend() else { return }
        // The service asked to be left alone for a while (a Retry-After): its retry keeps its time.
        if (api?.askedToWait ?? 0) > 0 { return }
        let lent = platform.lifecycle.beginBackgroundTime(expired: { [weak self] in self?.backgroundTimeExpired() })
        guard let giveBack = lent else { return }
        locked { backgroundTime = giveBack }
        currentLog.debug("the app went to the background: what is queued is sent now, in the time iOS lends")
        worker.async { self.flushNow() }
    }

    /// The install not recorded yet, or events or sessions queued.
    private func hasSomethingToSend() -> Bool {
        if platform.store.get(Key.installTracked) == nil { return true }
        return (queue?.count ?? 0) > 0 || (sessionQueue?.count ?? 0) > 0
    }

    /// On the worker: a flush now, the retry waiting (if any) made void, as its work is done
    /// here; the backoff it reached is kept. But while the install is not recorded, its retry
    /// is left alone, as the Kotlin and Unity SDKs leave it: each try of the install reads the
    /// Apple Ads token again, whose failures are counted (``maxAdsTokenTries``) and spaced by
    /// the retry's backoff so that Apple's framework has time to make one; sent at each trip to
    /// the background, a user leaving and coming back a few times would use them up within
    /// seconds, and the install would go without its token. The flush then sends nothing (it
    /// waits for that retry, which may still run in the time lent); with no retry waiting (the
    /// install held for the app's tracking answer, say) it runs as it would have.
    private func flushNow() {
        if retryPending && platform.store.get(Key.installTracked) != nil {
            retryPending = false
            retryGeneration += 1
        }
        flush()
    }

    /// On the worker, after each flush: the time iOS lent is given back once nothing is left
    /// that can be sent (the install recorded, the queues empty or held), or once nothing can be
    /// sent at all (stopped, switched off, deleted, a configuration error, the install held for
    /// the app's tracking answer, which the user cannot give in the background). A retry that
    /// waits keeps it: it may still send in the time lent.
    private func giveBackBackgroundTimeIfDone() {
        guard locked({ backgroundTime != nil }) else { return }
        let canSend = isSending && blockedCode == nil && !installHeldForTracking
        let left = canSend && (platform.store.get(Key.installTracked) == nil || lanes.contains { !$0.held && $0.queue.count > 0 })
        if left { return }
        let giveBack = locked { () -> (() -> Void)? in
            let held = backgroundTime
            backgroundTime = nil
            return held
        }
        guard let end = giveBack else { return }
        currentLog.debug("sent what could be sent in the background: the time iOS lent is given back")
        end()
    }

    /// On the main thread: iOS took the time back before the worker was done (the lifecycle
    /// ends the task itself). What is left stays queued, and goes when the app runs again.
    private func backgroundTimeExpired() {
        let held = locked { () -> Bool in
            let was = backgroundTime != nil
            backgroundTime = nil
            return was
        }
        if held { currentLog.info("iOS took back the time lent in the background: what is left is sent when the app runs again") }
    }

    /// The app came back to the foreground (on the main thread): a session when it was away at
    /// least the configuration's `session_interval_seconds`, on the device before this returns.
    func enteredForeground() {
        guard isConfigured else { return }
        let now = platform.clock()
        enqueueLock.lock()
        let session = locked { () -> Date? in
            // Launched in the background while off only as kept, and this launch's read not
            // answered yet: this return is the launch's first visit, whose session that read makes
            // once it switches the SDK on.
            if case .background? = launchOffAsKept { launchOffAsKept = .foreground(now) }
            return sessionTracker.enterForeground(at: now)
        }
        let overflow = session.map { enqueueSession(startedAt: $0) } ?? []
        enqueueLock.unlock()
        guard session != nil else { return }
        reportSessionDrop(.queueFull, overflow.count, "the queue holds \(settings.maxQueuedSessions) sessions: the oldest makes room")
        worker.async { self.flush() }
    }

    /// The app became active (on the main thread): back in the foreground, or a system alert
    /// answered, App Tracking Transparency's prompt among them, which the app may show at any
    /// time of a session, while iOS's Settings may change it while the app is away. Once the
    /// install is recorded, the flush reads the tracking again and sends a consent update when
    /// it differs from what the service was last told (``sendConsentIfChanged()``). While the
    /// install waits for the app's tracking answer, the flush reads it at once: the prompt
    /// closing is what makes the app active.
    private func becameActive() {
        guard isConfigured else { return }
        worker.async {
            guard self.platform.store.isAvailable else { return }
            guard self.platform.store.get(Key.installTracked) != nil || self.installHeldForTracking else { return }
            self.flush()
        }
    }

    /// Under `enqueueLock`: the session that started at `time`, with a fresh id, written to its
    /// queue on the device; returns the oldest sessions dropped to make room. Sent once the
    /// install is recorded.
    private func enqueueSession(startedAt time: Date) -> [JSONValue] {
        guard let sessions = sessionQueue, let serviceId = locked({ self.serviceId }) else { return [] }
        let session = Requests.session(id: UUID().uuidString.lowercased(), serviceId: serviceId, startedAt: time)
        currentLog.debug("session started at \(Requests.iso(time))")
        return outsideTheBatch(sessions.add(session), of: sessions)
    }

    // MARK: - conversion values

    /// The install's first open, which starts the conversion windows' clock.
    private func firstOpenDate() -> Date? {
        return platform.store.get(Key.firstOpen).flatMap { Int64($0) }.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }

    private func conversionState() -> ConversionState {
        return platform.store.get(Key.conversionValues).flatMap(ConversionState.parse) ?? ConversionState()
    }

    /// Under `enqueueLock`, for an event just queued: the app's schema evaluated on it (with the
    /// parameters as the app gave them, before any sealing), the windows' state kept on the
    /// device, and Apple asked for the update it makes, if any. Apple's answer comes later and
    /// never holds the event back. An event evaluated outside its own window (one that waited on
    /// the device for a configuration, evaluated at a later launch) asks Apple for nothing.
    private func evaluateConversion(_ draft: Draft) {
        // Only ever for an event queued under a configuration applied (those taken before one
        // wait on the device, and are evaluated as they are queued): no schema is no rules. Nor
        // once a reading said off: `apply` takes the configuration and its schema first, and
        // switches the SDK off (`disable`) only once it has registered the first launch; an
        // event the app sends in between would otherwise be evaluated with that schema and its
        // value given to Apple, then dropped as `disabled`. Left unevaluated, the switch-off
        // drops it, as the Unity SDK does.
        guard let rules = locked({ config?.enabled == false ? nil : schema }) else { return }
        guard let firstOpen = firstOpenDate() else { return }
        let state = conversionState()
        let event = ConversionEvent(draft, firstOpen: firstOpen)
        // The service refuses it whole, for its revenue: nothing of it may count here.
        if event.refused {
            currentLog.info("\(event.name): its revenue is one the service refuses with the event (no finite number or plain decimal, or past a trillion either way): not evaluated for the conversion values")
            return
        }
        var (next, call) = ConversionEvaluation.evaluate(rules.windows, state, event, rates: rules.usdRates)
        // The event falls in the window of its own time, but Apple's update acts on the
        // postback window the install is in now: a first day's event evaluated on the fourth
        // would give the second window the first one's values, and a lock rule would lock it.
        // So outside its window the event is only counted there: the values Apple holds for
        // that window (and whether it is locked or registered) stay as they were, and no update
        // is asked.
        let hoursNow = max(0, platform.clock().timeIntervalSince(firstOpen) / 3600)
        let current = ConversionEvaluation.window(ofHours: hoursNow)
        if let own = ConversionEvaluation.window(ofHours: event.hoursAfterInstall), own != current, own < next.windows.count {
            next.windows[own].fine = state.windows[own].fine
            next.windows[own].coarse = state.windows[own].coarse
            next.windows[own].locked = state.windows[own].locked
            next.registered = state.registered
            if call != nil {
                currentLog.info("\(event.name) is counted in conversion window \(own), not the one the install is in now: no conversion value update")
                call = nil
            }
        }
        if next != state { platform.store.put(Key.conversionValues, next.json.text) }
        guard let update = call else { return }
        let fine = update.fine.map { String($0) } ?? "none"
        currentLog.info("conversion value after \(event.name): window \(update.window), fine \(fine), coarse \(update.coarse.rawValue)\(update.lock ? ", window locked" : "")")
        let held = state.windows[update.window]
        platform.conversionValues.update(update) { [weak self] message in self?.updateRefused(update, held: held, message) }
    }

    /// Apple refused an update: told as any refusal, and, unless a later update set the
    /// window's values since, they go back to those Apple held before it (its lock too), so that
    /// the window's next event asks for them again. The evaluation makes one call an event at
    /// most: a refusal Apple keeps making costs one call an event, never a loop. The state is
    /// written before Apple answers, so without this the device would take a refused value for
    /// one Apple holds and never ask for it again. On the worker: Apple may answer under
    /// `enqueueLock`, which the update was asked under.
    private func updateRefused(_ call: ConversionCall, held: ConversionWindowState, _ message: String) {
        conversionRefused(message)
        worker.async { [weak self] in
            guard let self = self else { return }
            self.enqueueLock.lock()
            var state = self.conversionState()
            var window = state.windows[call.window]
            let forgot = window.fine == call.fine && window.coarse == call.coarse && window.locked == call.lock
            if forgot {
                window.fine = held.fine
                window.coarse = held.coarse
                window.locked = held.locked
                state.windows[call.window] = window
                self.platform.store.put(Key.conversionValues, state.json.text)
            }
            self.enqueueLock.unlock()
            guard forgot else { return }
            self.currentLog.info("conversion window \(call.window) is back to the values Apple held before the refused update: its next event asks for them again")
        }
    }

    /// Apple refused the registration: told as any refusal, and, unless an update was made
    /// since (which registers too), the install is unregistered on the device, so that the next
    /// launch in the first window registers it again. On the worker, as `updateRefused`.
    private func registrationRefused(_ message: String) {
        conversionRefused(message)
        locked { refusedRegistration = true }
        worker.async { [weak self] in
            guard let self = self else { return }
            self.enqueueLock.lock()
            var state = self.conversionState()
            if state.registered, state.windows.allSatisfy({ $0.fine == nil && $0.coarse == nil }) {
                state.registered = false
                self.platform.store.put(Key.conversionValues, state.json.text)
            }
            self.enqueueLock.unlock()
        }
    }

    /// On the worker, once a configuration is applied, the placeholder of a launch that read none
    /// (offline, the service down) included: Apple told of the install's first launch, once, in
    /// the first window, unless a value already told it. Apple makes no postback at all for an
    /// install that never made that call, so it is made whether or not the app has a schema or
    /// a configuration was read, and whether or not the user ever meets a rule: without one the
    /// ad networks' SKAdNetwork campaigns would count none of the app's installs. For the same
    /// reason it is made while the service has the SDK off (its remote configuration, a rejected
    /// key): Apple is told, and the service nothing. The app's own `stop()` and a deletion of
    /// the install's data do keep it back.
    private func registerConversion() {
        guard locked({ !stopped && !deleted && !refusedRegistration }), let firstOpen = firstOpenDate() else { return }
        let hours = max(0, platform.clock().timeIntervalSince(firstOpen) / 3600)
        guard ConversionEvaluation.window(ofHours: hours) == 0 else { return }
        enqueueLock.lock()
        // Read again under the lock `stop()` marks the SDK stopped under: a stop made on the
        // app's thread since the read above has returned, and Apple is told nothing after it.
        guard locked({ !stopped && !deleted && !refusedRegistration }) else {
            enqueueLock.unlock()
            return
        }
        var state = conversionState()
        let first = !state.registered
        if first {
            state.registered = true
            platform.store.put(Key.conversionValues, state.json.text)
            // Asked under the lock every update is asked under: no event's value goes to Apple
            // before the registration's 0, which would then lower it.
            platform.conversionValues.register { [weak self] message in self?.registrationRefused(message) }
        }
        enqueueLock.unlock()
        guard first else { return }
        currentLog.info("the install's first launch is registered with SKAdNetwork and AdAttributionKit")
    }

    /// Whether an AdAttributionKit re-engagement opened the app with this URL: its query names
    /// ``reengagementOpenParameter`` (with the conversion's tag as its value), whatever the
    /// URL's scheme and host.
    static func isReengagementOpen(_ text: String) -> Bool {
        guard let items = URLComponents(string: text)?.queryItems else { return false }
        return items.contains { $0.name == reengagementOpenParameter }
    }

    /// A URL that opened the app (`handleDeepLink`, `handleUniversalLink`): at an AdAttributionKit
    /// re-engagement open, Apple is told once. Apple sends a re-engagement's postback only if the
    /// app updated a conversion value after the open, and the app's schema describes the
    /// install's windows, not the re-engagement's: so the SDK makes that one update (a fine value
    /// of 0, for the re-engagement alone) and no other. At once when a configuration is applied;
    /// before one is (a cold start's link handled before `configure`), once it is. Never while
    /// the SDK is stopped, switched off or after the install's data was deleted, nor where
    /// `configure` is refused (an app extension).
    func noteReengagementOpen(_ text: String) {
        guard refusal == nil, SdkCore.isReengagementOpen(text) else { return }
        let (now, why, log) = locked { () -> (Bool, String?, Logger) in
            if let refused = refusalLocked() { return (false, refused, self.log) }
            if text == lastReengagementOpen { return (false, "this re-engagement open was told already", self.log) }
            lastReengagementOpen = text
            if !configured || config == nil {
                reengagementWaiting = true
                return (false, nil, self.log)
            }
            return (true, nil, self.log)
        }
        if let why = why {
            log.debug("\(why): the AdAttributionKit re-engagement open is not told to Apple")
        } else if !now {
            log.debug("an AdAttributionKit re-engagement opened the app: told to Apple once a configuration is applied")
        } else {
            worker.async { self.reengage() }
        }
    }

    /// On the worker: the re-engagement open told to AdAttributionKit, unless the SDK was stopped,
    /// switched off or its install's data deleted since.
    private func reengage() {
        let may = locked { () -> Bool in
            if !disabled && !stopped && !deleted { return true }
            lastReengagementOpen = nil
            return false
        }
        guard may else { return }
        currentLog.info("an AdAttributionKit re-engagement opened the app: its conversion value is updated (fine value 0, the re-engagement's postbacks alone; iOS 18 and later)")
        // Asked under the lock `stop()` marks the SDK stopped under, and only if it still may be:
        // a stop made on the app's thread since the read above has returned, and Apple is told
        // nothing after it (as every update and the registration are asked under that lock).
        enqueueLock.lock()
        let still = locked { () -> Bool in
            if !disabled && !stopped && !deleted { return true }
            lastReengagementOpen = nil
            return false
        }
        if still { platform.conversionValues.reengage { [weak self] message in self?.conversionRefused(message) } }
        enqueueLock.unlock()
        if !still { currentLog.debug("the SDK was stopped, switched off or its install's data deleted meanwhile: the AdAttributionKit re-engagement open is not told to Apple") }
    }

    /// Apple refused an update or the registration: a warning, and the error listener.
    private func conversionRefused(_ message: String) {
        let text = "a conversion value update was refused: \(message)"
        currentLog.warn(text)
        emitError(ServiceError(kind: .conversionValue, reason: nil, code: nil, count: 1, message: text))
    }

    /// A status the service may answer differently later. Only a 4xx is a refusal of the
    /// request (delivery.json): any other status that is no success (a 1xx or 3xx something in
    /// the way answered, a 5xx) is retried, as the Kotlin SDK does, and of the 4xx a timeout,
    /// 425 Too Early (a CDN that will not act on a request it took in TLS early data passes the
    /// same request sent again) and throttling, delivery.json's `retryable4xx`.
    static func isRetryable(_ statusCode: Int) -> Bool {
        guard (400...499).contains(statusCode) else { return true }
        return statusCode == 408 || statusCode == 425 || statusCode == 429
    }

    /// Whether requests may go out now: configured with a configuration, switched on, not
    /// stopped, the install's data not deleted.
    private var isSending: Bool {
        return locked { configured && config != nil && !disabled && !stopped && !deleted }
    }

    /// On the worker: the install first, then a consent that changed, then the queued sessions
    /// (a request or so, never behind a backlog of events) and the queued events, each in order,
    /// `maxPerRequest` a request.
    private func flush() {
        defer { giveBackBackgroundTimeIfDone() }
        if !isSending || retryPending || blockedCode != nil || lanes.isEmpty { return }
        switch ensureInstall() {
        case .recorded:
            break
        case .blocked, .waiting:
            return
        case .later:
            scheduleRetry(nil)
            return
        }
        // Stopped (an opt-out) or switched off while the install was on its way: nothing more goes.
        guard isSending else { return }
        if !sendConsentIfChanged() { return }
        for lane in lanes {
            if !deliver(lane) { return }
        }
        retryDelay = 0
    }

    /// On the worker: what the lane holds, in order, until it is empty, the lane is held, or
    /// sending stops. False when the flush ends here (a retry is scheduled, or a configuration
    /// error).
    private func deliver(_ lane: Lane) -> Bool {
        while isSending && !lane.held {
            if let until = lane.splitUntil, !lane.queue.peek(Int.max).contains(where: { lane.id(of: $0) == until }) {
                lane.endSplitting()
            }
            let stopsBefore = locked { stops }
            let batch = lane.queue.peek(lane.batchLimit)
            if batch.isEmpty { break }
            let expired = batch.filter { isExpired($0, in: lane) }
            if !expired.isEmpty {
                // What is still there to remove: a stop meanwhile dropped the rest as its own.
                let removed = lane.queue.remove(ids: Set(expired.compactMap { lane.id(of: $0) }))
                reportDrop(removed, of: lane, .expired, "older than the service keeps (\(Int(settings.maxEventAge / 86_400)) days)")
                continue
            }
            // Once the batch is taken, a consent the app set meanwhile goes first: an event sent
            // after setConsent is either in this batch or in a later one, and never reaches the
            // service ahead of the update (the flush setConsent asked for runs after this one).
            if !sendConsentIfChanged() { return false }
            // A lane held by its route's refusal lets the flush go on with the next one.
            if !send(batch, in: lane, takenBefore: stopsBefore) { return lane.held }
        }
        return true
    }

    private func isExpired(_ item: JSONValue, in lane: Lane) -> Bool {
        guard let text = item.objectValue?[lane.timeField]?.stringValue, let time = Requests.date(text) else { return false }
        return time < platform.clock().addingTimeInterval(-settings.maxEventAge)
    }

    /// On the worker: one request of the lane's route, with the device clock as `sent_at`.
    private func post(_ batch: [JSONValue], in lane: Lane) throws -> BatchVerdict {
        switch lane.kind {
        case .events:
            // Anonymous now: every event leaves marked so, whatever mode it was queued in.
            let anonymous = locked { self.anonymous }
            return try api.events(anonymous ? batch.map(Requests.anonymized) : batch, sentAt: platform.clock())
        case .sessions:
            return try api.sessions(batch, sentAt: platform.clock())
        }
    }

    /// On the worker: one batch of the lane, taken when `stops` was `takenBefore`; true to go on
    /// with its next batch. Not sent once sending stopped, nor after a stop since it was taken
    /// (a `stop` and a `start` during the consent update before it, say), whose items that stop
    /// dropped.
    private func send(_ batch: [JSONValue], in lane: Lane, takenBefore: Int) -> Bool {
        // Marked on its way under the lock `stop` is marked under: a stop either comes first, and
        // the batch stays, or leaves its items to the answer. And under `enqueueLock`, which the
        // queue's bound drops under: an item it took since the batch was taken (the consent
        // update before it may take a round trip) was told dropped then, and does not leave;
        // one it takes from now on is left to the answer.
        enqueueLock.lock()
        let batch = lane.queue.stillHeld(batch)
        let ids = batch.compactMap { lane.id(of: $0) }
        if batch.isEmpty {
            enqueueLock.unlock()
            return true
        }
        let leaves = locked { () -> Bool in
            guard configured && config != nil && !disabled && !stopped && !deleted && stops == takenBefore else { return false }
            inFlight = InFlight(queue: lane.queue, ids: Set(ids))
            return true
        }
        enqueueLock.unlock()
        guard leaves else { return false }
        defer { settle(Set(ids), in: lane) }
        let verdict: BatchVerdict
        do {
            verdict = try post(batch, in: lane)
        } catch let error as ServiceAttributionError {
            switch error {
            case let .authentication(statusCode):
                routeRefused(lane, statusCode, "\(lane.route): the API key was rejected (HTTP \(statusCode))")
                return false
            case let .http(statusCode, message) where SdkCore.configurationStatuses.contains(statusCode):
                routeRefused(lane, statusCode, "\(lane.route): \(message)")
                return false
            case let .http(statusCode, message) where !SdkCore.isRetryable(statusCode):
                refusedAsWhole(batch, in: lane, message)
                return true
            default:
                scheduleRetry(error)
                return false
            }
        } catch {
            scheduleRetry(error)
            return false
        }
        let kept = Set(verdict.retry.compactMap { $0 < ids.count ? ids[$0] : nil })
        let removed = Set(ids).subtracting(kept)
        enqueueLock.lock()
        lane.queue.remove(ids: removed)
        // What the bound took of the batch meanwhile and this answer settles: stored, or told by
        // its verdict below, and no drop of the bound's.
        locked { () -> Void in inFlight?.taken.subtract(removed) }
        enqueueLock.unlock()
        for warning in verdict.warnings {
            currentLog.warn("\(lane.kind == .events ? "event" : "session") stored with a change: \(warning)")
        }
        if !verdict.refused.isEmpty {
            let details = verdict.refused.map { "#\($0.index): \($0.detail)" }.joined(separator: "; ")
            reportDrop(verdict.refused.count, of: lane, .refused, "refused by the service: \(details)")
        }
        // Taken and not stored (the install's data deleted, the app switched off): not sent again.
        for reason in [ServiceError.DropReason.deleted, .disabled] {
            reportDrop(verdict.ignored[reason] ?? 0, of: lane, reason, "ignored by the service")
        }
        if verdict.repeated > 0 {
            currentLog.info("\(lane.counted(verdict.repeated)) repeated an id sent earlier in the same request: the service kept the first")
        }
        // Items, not ids: two copies of one id are two items the answer speaks of.
        reportUnexplained(verdict, removed: ids.indices.filter { !verdict.retry.contains($0) }.count, of: lane)
        // The install's data was deleted: on request through the service's API (the app's
        // backend, a person's erasure request), or by deleteUserData in a process that ended
        // before it kept the deletion. Kept now, and nothing more goes for the install.
        if (verdict.ignored[.deleted] ?? 0) > 0 {
            forgetDeletedInstall("the service says the install's data was deleted")
            return false
        }
        if let until = lane.splitUntil, ids.contains(until), !kept.contains(until) { lane.endSplitting() }
        if !verdict.retry.isEmpty {
            if verdict.installMissing {
                // The service has not recorded the install: report it again, then these items.
                platform.store.remove(Key.installTracked)
            }
            scheduleRetry(nil)
            return false
        }
        return true
    }

    /// On the worker, once the batch of these ids has its answer (and the queue what the answer
    /// says): no longer on its way. When `stop` was called meanwhile, what the answer left queued
    /// (the whole batch when the request failed) is dropped as the stop's, so that the queue ends
    /// empty and nothing of it is sent after the stop, while what the service accepted is
    /// delivered and never counted dropped. What the queue's bound took of it and the answer did
    /// not settle is dropped as `queue_full`. Under `enqueueLock`, which `stop` holds as it
    /// clears, and the bound as it drops.
    private func settle(_ ids: Set<String>, in lane: Lane) {
        enqueueLock.lock()
        let (stoppedMeanwhile, taken) = locked { () -> (Bool, Int) in
            defer { inFlight = nil }
            return (inFlight?.stopped ?? false, inFlight?.taken.count ?? 0)
        }
        let left = stoppedMeanwhile ? lane.queue.remove(ids: ids) : 0
        enqueueLock.unlock()
        reportDrop(left, of: lane, .stopped, "the app stopped the SDK while they were on their way, and the service did not take them")
        reportDrop(taken, of: lane, .queueFull, "the queue was full, and the oldest made room while they were on their way; the service did not store them")
    }

    /// Every item the answer removed from the queue that it neither accepted, named as a repeat,
    /// nor let the SDK count as a drop above (an ignored reason the SDK does not know, a verdict
    /// naming no item of the request, fewer items accepted than the answer leaves unnamed) is a
    /// drop too: `refused`, logged, counted and reported like any other, with the service's
    /// words. An item is never counted twice: a verdict naming no item can only speak of one that
    /// no verdict named and the answer did not accept, so such verdicts count up to those items
    /// and no further.
    private func reportUnexplained(_ verdict: BatchVerdict, removed: Int, of lane: Lane) {
        let named = verdict.refused.count + verdict.ignored.values.reduce(0, +) + verdict.unexplained.count + verdict.repeated
        // Taken off the queue, named by no verdict; of those, the ones not accepted either.
        let notNamed = max(0, removed - named)
        let notAccepted = max(0, notNamed - verdict.accepted)
        let unplaced = min(verdict.unplaced.count, notAccepted)
        let unaccounted = max(0, notAccepted - unplaced)
        if verdict.namedAgain > 0 || verdict.accepted + named + verdict.unplaced.count != removed {
            // A service or a proxy answering out of contract: the counts below are the SDK's best reading.
            let again = verdict.namedAgain > 0 ? "; \(verdict.namedAgain) more name an item named already" : ""
            currentLog.warn("the service's answer does not add up: of the \(removed) taken off the queue it accepts \(verdict.accepted), names \(named) as not stored or repeated and has \(verdict.unplaced.count) naming no item of the request\(again)")
        }
        var said = verdict.unexplained + verdict.unplaced
        if unaccounted > 0 {
            said.append("\(lane.counted(unaccounted)) neither counted as accepted (the answer accepts \(verdict.accepted) of the \(removed) it takes off the queue) nor named in it")
        }
        if said.isEmpty { return }
        let count = verdict.unexplained.count + unplaced + unaccounted
        if count > 0 {
            reportDrop(count, of: lane, .refused, "the service's answer: \(said.joined(separator: "; "))")
        } else {
            currentLog.error("\(lane.kind == .events ? "events" : "sessions") not stored by the service, the service's answer: \(said.joined(separator: "; "))")
        }
    }

    /// A request refused as a whole, naming no item (413, 400, 422…): halved and sent again
    /// until the one item refused alone is known; only that one is dropped.
    private func refusedAsWhole(_ batch: [JSONValue], in lane: Lane, _ message: String) {
        guard batch.count > 1 else {
            let id = Set(batch.first.flatMap { lane.id(of: $0) }.map { [$0] } ?? [])
            enqueueLock.lock()
            lane.queue.remove(ids: id)
            // Taken by the bound meanwhile or not, the refusal is its one report.
            locked { () -> Void in inFlight?.taken.subtract(id) }
            enqueueLock.unlock()
            reportDrop(1, of: lane, .refused, "refused alone by the service (\(message))")
            // The item that failed its batch is known: requests are whole again.
            lane.endSplitting()
            return
        }
        if lane.splitUntil == nil { lane.splitUntil = batch.last.flatMap { lane.id(of: $0) } }
        lane.batchLimit = (batch.count + 1) / 2
        currentLog.info("\(lane.counted(batch.count)) refused as a whole (\(message)): sent again \(lane.batchLimit) at a time to find the one refused")
    }

    /// The lane's route refused the install's address or key (401, 403, 404; for sessions, a
    /// service older than the route too): a configuration error, told as the install's is, once
    /// until the next launch or refreshConfig. Only that route is held back, its items queued on
    /// the device until the next launch or refreshConfig: the other lane, the consent update and
    /// the install go on, and meet their own answer.
    private func routeRefused(_ lane: Lane, _ code: Int, _ message: String) {
        lane.held = true
        let held = lane.kind == .events ? "events stay queued; sessions go on" : "sessions stay queued; events go on"
        reportConfigurationError(code, "\(message): \(held) until the next launch or refreshConfig")
    }

    private func scheduleRetry(_ cause: Error?) {
        retryDelay = retryDelay == 0 ? settings.retryDelay : min(retryDelay * 2, settings.maxRetryDelay)
        let delay = wait(before: retryDelay)
        let asked = delay > retryDelay ? ", as the service asked (Retry-After)" : ""
        if let unexpected = cause as? UnexpectedAnswer {
            currentLog.warning("\(unexpected.localizedDescription): retrying in \(Int(delay * 1000)) ms\(asked)")
        } else {
            let reason = cause?.localizedDescription ?? "install pending"
            currentLog.info("the service is not reachable (\(reason)): retrying in \(Int(delay * 1000)) ms\(asked)")
        }
        retryPending = true
        retryGeneration += 1
        let generation = retryGeneration
        platform.scheduler.schedule(after: delay, on: worker) { [weak self] in
            guard let self = self, self.retryGeneration == generation else { return }
            self.retryPending = false
            self.flush()
        }
    }

    /// On the worker: the service refused the install's address or key. Said once, at error
    /// level and to the error listener; nothing more is sent in this process until
    /// `refreshConfig`. Queued events stay on the device.
    private func configurationError(_ code: Int, _ message: String) {
        blockedCode = code
        reportConfigurationError(code, "\(message): nothing more is sent until the next launch or refreshConfig; events stay queued")
    }

    /// On the worker: a configuration error (the install's, or a delivery route's) at error
    /// level and to the error listener, once until the next launch or refreshConfig: a wrong
    /// key or address refuses every route alike, and is one error to fix. The caller holds back
    /// what the refusal concerns.
    private func reportConfigurationError(_ code: Int, _ text: String) {
        initialMatch.open()
        if configurationReported { return }
        configurationReported = true
        currentLog.error(text)
        emitError(ServiceError(kind: .configuration, reason: nil, code: code, count: 1, message: text))
    }

    /// The consent route refused the update with 401, 403 or 404 (a service without the route,
    /// or a key it no longer takes): reported once as a configuration error, and not sent again
    /// until the next launch or refreshConfig. Events go on, and meet their own answer.
    private func consentRefused(_ code: Int, _ message: String) {
        consentHeld = true
        if consentRefusalReported { return }
        consentRefusalReported = true
        let text = "\(message): sent again at the next launch or refreshConfig; events go on"
        currentLog.error(text)
        emitError(ServiceError(kind: .configuration, reason: nil, code: code, count: 1, message: text))
    }

    // MARK: - drops and listeners

    /// Every drop: a warning with its reason, the count kept on the device, the error listener.
    private func reportDrop(_ reason: ServiceError.DropReason, _ count: Int, _ detail: String) {
        guard count > 0 else { return }
        let log = locked { () -> Logger in
            droppedTotal += count
            if configured && platform.store.isAvailable {
                platform.store.put(Key.droppedEvents, String(droppedTotal))
            }
            return self.log
        }
        let message = "\(count) event\(count == 1 ? "" : "s") dropped (\(reason.rawValue)): \(detail)"
        log.warning(message)
        emitError(ServiceError(kind: .eventsDropped, reason: reason, code: nil, count: count, message: message))
    }

    /// Events of the queue kept on the device that could not be read back (a damaged value),
    /// lost unsent: made known as a drop is (counted, and to the error listener), but at error
    /// level and with no reason, as the Kotlin and Unity SDKs report theirs: none of
    /// delivery.json's reasons says it, since the SDK chose nothing here.
    private func reportUnreadable(events loss: EventQueue.Loss?, kept what: String = "the events' queue") {
        guard let loss = loss, loss.count > 0 else { return }
        let log = locked { () -> Logger in
            droppedTotal += loss.count
            if configured && platform.store.isAvailable {
                platform.store.put(Key.droppedEvents, String(droppedTotal))
            }
            return self.log
        }
        let message = loss.describe("event", what)
        log.error(message)
        emitError(ServiceError(kind: .eventsDropped, reason: nil, code: nil, count: loss.count, message: message))
    }

    /// The same for sessions: at error level and counted; not the error listener, as for any
    /// session dropped.
    private func reportUnreadable(sessions loss: EventQueue.Loss?) {
        guard let loss = loss, loss.count > 0 else { return }
        let log = locked { () -> Logger in
            droppedSessionsTotal += loss.count
            if configured && platform.store.isAvailable {
                platform.store.put(Key.droppedSessions, String(droppedSessionsTotal))
            }
            return self.log
        }
        log.error(loss.describe("session", "the sessions' queue"))
    }

    /// A session dropped: a warning with its reason, and the count kept on the device. Not the
    /// error listener: the app sent nothing (sessions.json).
    private func reportSessionDrop(_ reason: ServiceError.DropReason, _ count: Int, _ detail: String) {
        guard count > 0 else { return }
        let log = locked { () -> Logger in
            droppedSessionsTotal += count
            if configured && platform.store.isAvailable {
                platform.store.put(Key.droppedSessions, String(droppedSessionsTotal))
            }
            return self.log
        }
        log.warning("\(count) session\(count == 1 ? "" : "s") dropped (\(reason.rawValue)): \(detail)")
    }

    /// Items of a lane dropped, as its kind reports them.
    private func reportDrop(_ count: Int, of lane: Lane, _ reason: ServiceError.DropReason, _ detail: String) {
        switch lane.kind {
        case .events:
            reportDrop(reason, count, detail)
        case .sessions:
            reportSessionDrop(reason, count, detail)
        }
    }

    private func emitError(_ error: ServiceError) {
        let (listener, delegate) = locked { (onError, self.delegate) }
        if listener == nil && delegate == nil { return }
        onMain {
            MainActorCall.run {
                listener?(error)
                delegate?.serviceAttribution(didFail: error)
            }
        }
    }

    /// The attribution to the listeners: once resolved, and at every later start.
    private func announce(_ attribution: [String: String]) {
        let listeners = locked { () -> (AttributionListener?, ServiceAttributionDelegate?)? in
            guard configured && !disabled && !stopped && !deleted else { return nil }
            announced = attribution
            return (onAttribution, delegate)
        }
        guard let pair = listeners, pair.0 != nil || pair.1 != nil else { return }
        let (listener, delegate) = pair
        onMain {
            MainActorCall.run {
                listener?(attribution)
                delegate?.serviceAttribution(didResolve: attribution)
            }
        }
    }

    /// The deferred deep link an attribution gives: its `deep_link_path` and the link's custom
    /// parameters; nil when it carries no path.
    static func deferredDeepLink(_ attribution: [String: String]) -> ServiceDeepLink? {
        guard let path = attribution[deepLinkPathKey], !path.isEmpty else { return nil }
        let params = attribution.filter { !attributionKeys.contains($0.key) }
        return ServiceDeepLink(kind: .deferred, deeplinkId: nil, path: path, params: params, url: nil)
    }

    /// A direct deep link from a tapped URL of any scheme; nil for text that is no link.
    static func directDeepLink(_ text: String) -> ServiceDeepLink? {
        guard let link = LinkParser.parseAnyScheme(text) else { return nil }
        let path = link.queryParams[deepLinkPathKey].flatMap { $0.isEmpty ? nil : $0 }
        return ServiceDeepLink(kind: .direct, deeplinkId: link.deeplinkId, path: path, params: link.queryParams, url: LinkParser.url(text))
    }

    /// A direct deep link, to the deep-link listeners; with none set, it waits for one among
    /// the most recent.
    func deliver(_ link: ServiceDeepLink) {
        let listeners = locked { () -> (DeepLinkListener?, ServiceAttributionDelegate?)? in
            let taken = deepLinkListeners()
            if taken == nil {
                pendingLinks.append(link)
                // The bound (listeners.json's maxPendingDirectLinks) is on direct links, as in
                // every SDK: only they make room, so that taps never push out another kind.
                while pendingLinks.filter({ $0.kind == .direct }).count > SdkCore.maxPendingLinks,
                      let oldest = pendingLinks.firstIndex(where: { $0.kind == .direct }) {
                    pendingLinks.remove(at: oldest)
                }
            }
            return taken
        }
        guard let pair = listeners else { return }
        hand(link, to: pair.0, pair.1)
    }

    /// Under `lock`: the deep-link listener and the delegate as they are now, each read once
    /// (the delegate is weak: a second read may find it gone); nil when neither is set.
    private func deepLinkListeners() -> (DeepLinkListener?, ServiceAttributionDelegate?)? {
        let listener = onDeepLink
        let delegate = self.delegate
        return listener == nil && delegate == nil ? nil : (listener, delegate)
    }

    /// `link` to the listeners read under `lock`, later on the main thread; `ran`, there too,
    /// once their calls returned, never before: a process that ends with the calls still posted
    /// has not delivered the link.
    private func hand(
        _ link: ServiceDeepLink,
        to listener: DeepLinkListener?,
        _ delegate: ServiceAttributionDelegate?,
        ran: (() -> Void)? = nil
    ) {
        onMain {
            MainActorCall.run {
                listener?(link)
                delegate?.serviceAttribution(didReceive: link)
            }
            ran?()
        }
    }

    /// Parses a tapped link of any scheme and delivers it as a direct deep link.
    @discardableResult
    func handleDeepLink(_ text: String) -> ServiceDeepLink? {
        noteReengagementOpen(text)
        guard let link = SdkCore.directDeepLink(text) else {
            currentLog.debug("not a link: nothing delivered")
            return nil
        }
        // An http(s) link that opened the app may carry the click that brought the install. Its
        // scheme as the parser read it: the text, whatever a URL makes of it.
        let scheme = LinkParser.scheme(of: text)
        if scheme == "http" || scheme == "https" { noteOpenURL(text) }
        deliver(link)
        return link
    }

    var attributionListener: AttributionListener? {
        get { return locked { onAttribution } }
        set {
            let stored = locked { () -> [String: String]? in
                onAttribution = newValue
                attributionOwedToListener = newValue != nil && (stopped || disabled)
                return announcedWhileRunning()
            }
            if let listener = newValue, let attribution = stored {
                onMain { MainActorCall.run { listener(attribution) } }
            }
        }
    }

    var deepLinkListener: DeepLinkListener? {
        get { return locked { onDeepLink } }
        set {
            let (pending, isConfigured) = locked { () -> ([ServiceDeepLink], Bool) in
                onDeepLink = newValue
                return (newValue == nil ? [] : takePendingLinks(), configured)
            }
            if let listener = newValue, !pending.isEmpty {
                onMain {
                    MainActorCall.run {
                        for link in pending { listener(link) }
                    }
                }
            }
            // The deferred deep link kept on the device for the first listener, read off the app's thread.
            if newValue != nil && isConfigured { worker.async { self.deliverKeptDeferredLink() } }
        }
    }

    var errorListener: ErrorListener? {
        get { return locked { onError } }
        set { locked { onError = newValue } }
    }

    /// The delegate, held weakly; set, it hears the attribution already given and the deep
    /// links waiting.
    var listenerDelegate: ServiceAttributionDelegate? {
        get { return locked { delegate } }
        set {
            let (stored, pending, isConfigured) = locked { () -> ([String: String]?, [ServiceDeepLink], Bool) in
                delegate = newValue
                attributionOwedToDelegate = newValue != nil && (stopped || disabled)
                return newValue == nil ? (nil, [], configured) : (announcedWhileRunning(), takePendingLinks(), configured)
            }
            if let delegate = newValue, stored != nil || !pending.isEmpty {
                onMain { [weak delegate] in
                    MainActorCall.run {
                        if let attribution = stored { delegate?.serviceAttribution(didResolve: attribution) }
                        for link in pending { delegate?.serviceAttribution(didReceive: link) }
                    }
                }
            }
            // The deferred deep link kept on the device for the first listener, read off the app's thread.
            if newValue != nil && isConfigured { worker.async { self.deliverKeptDeferredLink() } }
        }
    }

    /// Under `lock`.
    private func announcedWhileRunning() -> [String: String]? {
        guard configured && !disabled && !stopped && !deleted else { return nil }
        return announced
    }

    /// Under `lock`.
    private func takePendingLinks() -> [ServiceDeepLink] {
        let pending = pendingLinks
        pendingLinks.removeAll()
        return pending
    }

    // MARK: - stop, anonymous mode, consent

    /// Nothing is sent and nothing is queued until `start()`, in this launch and the next ones;
    /// what was queued is dropped (reason `stopped`), and no session starts. A batch on its way
    /// is left to its answer (``settle(_:in:)``): what the service accepts of it is delivered,
    /// and only the rest is dropped, once the answer is in.
    func stop() {
        enqueueLock.lock()
        let (wasStopped, isConfigured, drafts, sending) = locked { () -> (Bool, Bool, Int, InFlight?) in
            let was = stopped
            stopped = true
            inFlight?.stopped = true
            stops += 1
            if reengagementWaiting { lastReengagementOpen = nil }
            reengagementWaiting = false
            sessionTracker.stop()
            if configured {
                if platform.store.isAvailable { platform.store.put(Key.stopped, "1") }
            } else {
                stoppedSetEarly = true
                writeEarly(Key.stopped, "1")
            }
            let drafts = early.count
            early.removeAll()
            return (was, configured, drafts, inFlight)
        }
        let onItsWay = { (queue: EventQueue?) -> Set<String> in
            guard let sending = sending, let queue = queue, sending.queue === queue else { return [] }
            return sending.ids
        }
        let dropped = SdkCore.eventsDropped(
            queued: queue?.clear(keeping: onItsWay(queue)) ?? [],
            waiting: pendingQueue?.clear() ?? [],
            kept: onItsWay(queue)
        )
        let droppedSessions = sessionQueue?.clear(keeping: onItsWay(sessionQueue)) ?? []
        if !wasStopped {
            // The retry waiting is void and its backoff gone, as Kotlin's: after a start(), a
            // first failure waits the first step again, not the minute a backoff reached before
            // the stop. Handed to the worker under the lock start() takes: a start() on another
            // thread hands its own work after this, so this never voids the retry that start's
            // first failure schedules, which would leave the queue to the next reading.
            worker.async {
                if self.retryPending {
                    self.retryPending = false
                    self.retryGeneration += 1
                }
                self.retryDelay = 0
            }
        }
        enqueueLock.unlock()
        if wasStopped { return }
        currentLog.info("stopped by the app: nothing is sent or queued until start()")
        reportDrop(.stopped, dropped.count + drafts, "the app stopped the SDK")
        reportSessionDrop(.stopped, droppedSessions.count, "the app stopped the SDK")
        if isConfigured { initialMatch.open() }
    }

    /// Sends again: remote configuration, the install if it was never recorded, and what is
    /// sent from now on. Started again, the SDK starts a session, as at a launch. Called while
    /// not stopped (an app calling it at every resume), it changes nothing and reads nothing.
    func start() {
        let now = self.isConfigured ? platform.clock() : Date()
        enqueueLock.lock()
        let (wasStopped, isConfigured, session) = locked { () -> (Bool, Bool, Date?) in
            let was = stopped
            stopped = false
            if configured {
                if platform.store.isAvailable { platform.store.put(Key.stopped, "0") }
            } else {
                stoppedSetEarly = true
                writeEarly(Key.stopped, "0")
            }
            let restarted = was && configured ? sessionTracker.restart(at: now) : nil
            return (was, configured, restarted)
        }
        let overflow = session.map { enqueueSession(startedAt: $0) } ?? []
        enqueueLock.unlock()
        guard wasStopped, isConfigured else {
            if isConfigured { currentLog.debug("start(): the SDK was not stopped, nothing changes") }
            return
        }
        currentLog.info("started by the app")
        reportSessionDrop(.queueFull, overflow.count, "the queue holds \(settings.maxQueuedSessions) sessions: the oldest makes room")
        worker.async {
            // Stopped again since: the next start() reads. A read that fell due while stopped
            // was skipped, ending its chain; this one starts the only chain (refreshQuietly
            // makes any read scheduled before it void).
            guard self.platform.store.isAvailable, !self.locked({ self.stopped }) else { return }
            if self.locked({ self.config == nil }) {
                // No configuration applied yet (the SDK was stopped at configure, say): the
                // initialization runs now, and tells the configure completions kept for it
                // (awaitStart) what it met, a refusal to start included.
                self.initialize(completion: nil)
            } else {
                self.refreshQuietly()
                self.flush()
                // What a listener set while stopped was not told: the attribution, and a
                // deferred deep link kept for want of one.
                self.tellOwedAttribution()
                self.deliverKeptDeferredLink()
            }
        }
    }

    /// The attribution kept, to a listener or delegate set while the SDK was stopped or switched
    /// off (which was not told it then), once it starts or is switched on again; the others
    /// heard it already.
    private func tellOwedAttribution() {
        let owed = locked { () -> (AttributionListener?, ServiceAttributionDelegate?) in
            defer {
                attributionOwedToListener = false
                attributionOwedToDelegate = false
            }
            return (attributionOwedToListener ? onAttribution : nil, attributionOwedToDelegate ? delegate : nil)
        }
        guard owed.0 != nil || owed.1 != nil, let attribution = storedAttribution() else { return }
        let running = locked { () -> Bool in
            guard configured && !disabled && !stopped && !deleted else { return false }
            announced = attribution
            return true
        }
        guard running else { return }
        let (listener, delegate) = owed
        onMain { [weak delegate] in
            MainActorCall.run {
                listener?(attribution)
                delegate?.serviceAttribution(didResolve: attribution)
            }
        }
    }

    var isStopped: Bool {
        return locked { stopped }
    }

    /// Under `lock`, before `configure`: a choice of the user's (stop, start, anonymous mode)
    /// written to the store at once when it can be read and written (not before the first
    /// unlock after a reboot), so that an app killed before `configure` keeps it. `configure`
    /// writes it again either way, from memory (a state restored from another device that it
    /// forgets included).
    private func writeEarly(_ key: String, _ value: String) {
        guard let store = earlyStore, store.isAvailable else { return }
        store.put(key, value)
    }

    /// Anonymous mode: no IDFA, IDFV or customer user id leaves the device, kept across launches.
    /// Switched on or off once configured, the flush tells the service the IDFA it now has
    /// (none while anonymous) through a consent update, once the install is recorded.
    func setAnonymous(_ value: Bool) {
        let changed = locked { () -> Bool in
            let was = anonymous
            anonymous = value
            if configured {
                if platform.store.isAvailable { platform.store.put(Key.anonymous, value ? "1" : "0") }
            } else {
                anonymousSetEarly = true
                writeEarly(Key.anonymous, value ? "1" : "0")
            }
            return configured && was != value
        }
        if changed { worker.async { self.flush() } }
    }

    var isAnonymous: Bool {
        return locked { anonymous }
    }

    /// The user's consent, kept across launches; sent with the install, or through the consent
    /// route once the install is recorded.
    func setConsent(_ value: ServiceConsent) {
        let isConfigured = locked { () -> Bool in
            consent = value
            if configured {
                if platform.store.isAvailable { SdkCore.storeConsent(value, in: platform.store) }
            } else {
                consentSetEarly = true
                if let store = earlyStore, store.isAvailable { SdkCore.storeConsent(value, in: store) }
            }
            return configured
        }
        if isConfigured { worker.async { self.flush() } }
    }

    var currentConsent: ServiceConsent? {
        return locked { consent }
    }

    /// The `consent` object as it now stands: the app's answers and the consent platform's
    /// TCF values.
    private func consentObject() -> JSONValue? {
        let app = locked { consent }
        let signals = platform.consentSignals
        let tcString = signals.tcString
        if let text = tcString, text.utf16.count > Requests.maxTcfStringLength {
            // Said once for each such string: the consent is read before every request.
            let first = locked { () -> Bool in
                defer { warnedTcString = text }
                return warnedTcString != text
            }
            if first { currentLog.warn("the consent platform's TCF string is \(text.utf16.count) characters, more than the \(Requests.maxTcfStringLength) the service takes: it is left out of the consent sent") }
        }
        return Requests.consent(app, tcString: tcString, tcfGdprApplies: signals.gdprApplies)
    }

    /// On the worker: the device's tracking as it now stands, as the install would report it
    /// (``Requests/tracking(_:)``): ATT's status read now, and the IDFA when ATT authorizes it,
    /// not even read in anonymous mode.
    private func trackingObject() -> JSONValue {
        let device = platform.device
        let isAnonymous = locked { anonymous }
        let status = device.trackingAuthorizationStatus
        let idfa = !isAnonymous && status == "authorized" ? device.advertisingIdentifier() : nil
        return Requests.tracking(attStatus: status, idfa: idfa, anonymous: isAnonymous)
    }

    /// On the worker, once the install is recorded: the consent update when the consent differs
    /// from the one last sent, or the device's tracking from the one the install or the last
    /// update reported (ATT answered or changed in Settings, anonymous mode switched); each
    /// update carries both as they now stand. A tracking never kept (the app stopped between
    /// recording the install and keeping what it sent) counts as changed: one update tells the
    /// service. False when the events must wait (a retry is scheduled).
    private func sendConsentIfChanged() -> Bool {
        if consentHeld { return true }
        // A stop (an opt-out) since the flush began: nothing more leaves, this update neither.
        guard isSending else { return false }
        let current = consentObject()
        let text = current?.text ?? ""
        let device = trackingObject()
        let trackingChanged = device.text != platform.store.get(Key.trackingSent)
        if text == (platform.store.get(Key.consentSent) ?? "") && !trackingChanged { return true }
        guard let serviceId = locked({ self.serviceId }) else { return true }
        // Consent withdrawn to nothing known is sent too: every answer null.
        let body = current ?? .object(["gdpr_applies": .null, "ad_user_data": .null, "ad_personalization": .null, "tcf_string": .null])
        do {
            try api.consent(serviceId: serviceId, consent: body, device: device, sentAt: platform.clock())
            platform.store.put(Key.consentSent, text)
            platform.store.put(Key.trackingSent, device.text)
            currentLog.info(trackingChanged ? "consent update sent, with the device's tracking changed since the service was last told" : "consent update sent")
            return true
        } catch let error as ServiceAttributionError {
            switch error {
            case let .authentication(statusCode):
                consentRefused(statusCode, "the consent update: the API key was rejected (HTTP \(statusCode))")
                return true
            case let .http(statusCode, message) where SdkCore.configurationStatuses.contains(statusCode):
                consentRefused(statusCode, "the consent update: \(message)")
                return true
            case let .http(statusCode, message) where statusCode != 409 && !SdkCore.isRetryable(statusCode):
                // Refused for good: sending it again would be refused the same way.
                currentLog.error("the consent update was refused (\(message)): not sent again until the consent or the device's tracking changes")
                platform.store.put(Key.consentSent, text)
                platform.store.put(Key.trackingSent, device.text)
                return true
            case .http(409, _):
                // The service holds no install of this id (never recorded, or lost): as its answer
                // asks, the install is sent again, holding the consent, before the events.
                currentLog.warn("the consent update: the service has no install \(serviceId): the install is sent again")
                platform.store.remove(Key.installTracked)
                scheduleRetry(error)
                return false
            default:
                scheduleRetry(error)
                return false
            }
        } catch {
            scheduleRetry(error)
            return false
        }
    }

    private static func storeConsent(_ consent: ServiceConsent?, in store: KeyValueStore) {
        guard let consent = consent else { return store.remove(Key.consent) }
        let flag: (Bool?) -> JSONValue = { $0.map(JSONValue.bool) ?? JSONValue.null }
        store.put(Key.consent, JSONValue.object([
            "gdpr_applies": flag(consent.gdprApplies),
            "ad_user_data": flag(consent.adUserData),
            "ad_personalization": flag(consent.adPersonalization),
        ]).text)
    }

    private static func parseConsent(_ text: String) -> ServiceConsent? {
        guard let object = (try? JSONValue.parse(text))?.objectValue else { return nil }
        return ServiceConsent(
            gdprApplies: object["gdpr_applies"]?.boolValue,
            adUserData: object["ad_user_data"]?.boolValue,
            adPersonalization: object["ad_personalization"]?.boolValue
        )
    }

    // MARK: - install

    private enum InstallOutcome {
        case recorded
        /// Refused for good, with the status.
        case refused(Int, String)
        case failed(Error)
    }

    private enum InstallState {
        case recorded
        /// A configuration error: not tried again in this process.
        case blocked
        /// Not recorded yet: tried again after the retry delay.
        case later
        /// Held for the app's App Tracking Transparency answer: the status is read again in a
        /// second, or as the app becomes active.
        case waiting
    }

    private func sendInstall(_ body: JSONValue) -> InstallOutcome {
        do {
            try api.install(body)
            return .recorded
        } catch let error as ServiceAttributionError {
            switch error {
            case let .authentication(statusCode):
                return .refused(statusCode, "the API key was rejected (HTTP \(statusCode))")
            case let .http(statusCode, message) where !SdkCore.isRetryable(statusCode):
                return .refused(statusCode, message)
            default:
                return .failed(error)
            }
        } catch {
            return .failed(error)
        }
    }

    /// On the worker: reports the first open once per install.
    private func ensureInstall() -> InstallState {
        if platform.store.get(Key.installTracked) != nil {
            // Recorded, at an earlier launch or in this one: the install never waits for the
            // app's tracking answer again in this process (not even sent again after a 409).
            installHeldForTracking = false
            locked {
                trackingWait = nil
                installSeenRecorded = true
                openURL = nil
            }
            startPolling()
            return .recorded
        }
        if blockedCode != nil { return .blocked }
        // Before anything of the report is read: it goes with the tracking as it is once the
        // wait is over. The attribution's first read, behind the install, waits with it.
        installHeldForTracking = waitsForTracking()
        if installHeldForTracking { return .waiting }
        if waitsForVendorId() { return .waiting }
        var input = installInput()
        if input.platformAdsToken == nil, adsTokenFailures > 0, adsTokenFailures < SdkCore.maxAdsTokenTries {
            // Apple's framework could not make the token yet: the install, sent once, waits for
            // it, read again at its retries, and goes without it after the last try.
            initialMatch.open()
            return .later
        }
        var bare = bareInstall
        var outcome = sendInstall(bare ? Requests.minimalInstall(input) : Requests.install(input))
        if !bare, case let .refused(statusCode, message) = outcome, !SdkCore.configurationStatuses.contains(statusCode) {
            // Only a device signal can make a report the service refuses for good: the report
            // goes again with its required fields only, so it never costs the install and every
            // event after it.
            currentLog.warn("install refused (\(message)): sent again with its required fields only")
            // Its own attempt, with its own `sent_at`: the first one's may be a request's
            // timeout old, past the tolerance the service moves a device's times by.
            input.sentAt = platform.clock()
            outcome = sendInstall(Requests.minimalInstall(input))
            bare = true
            bareInstall = true
        }
        switch outcome {
        case .recorded:
            platform.store.put(Key.installTracked, "1")
            locked {
                installSeenRecorded = true
                openURL = nil
            }
            // The consent the service now holds: none, when the bare install was the one
            // recorded, so that the consent route sends it next.
            platform.store.put(Key.consentSent, bare ? "" : input.consent?.text ?? "")
            // The tracking it reported: none with the bare install, so that a device that has
            // an IDFA or an ATT status tells it through the consent route next.
            platform.store.put(Key.trackingSent, (bare ? Requests.tracking(attStatus: nil, idfa: nil, anonymous: false) : Requests.tracking(input)).text)
            currentLog.info("install recorded")
            startPolling()
            return .recorded
        case let .refused(statusCode, message):
            configurationError(statusCode, "the install was refused (\(message))")
            return .blocked
        case let .failed(error):
            if let unexpected = error as? UnexpectedAnswer {
                currentLog.warning("install not recorded yet: \(unexpected.localizedDescription)")
            } else {
                currentLog.info("install not recorded yet: \(error.localizedDescription)")
            }
            // An attempt was made and did not resolve: a reader sees `failed` until the retry.
            initialMatch.open()
            return .later
        }
    }

    private enum VendorIdRead {
        /// The report reads the IDFV as known, or asks for it to be read when it is not.
        case due
        /// A read on the main thread is on its way: the install waits for it.
        case asked
        /// That read is over: the next try goes with whatever it gave.
        case done
    }

    /// On the worker, before the install's report is made: whether it waits for the IDFV, which
    /// UIKit gives on the main thread only. Not known yet (`configure` called off the main
    /// thread, whose read has not run; none given then), it is read there, and the worker goes
    /// on meanwhile: a flush once that read is over makes the report with whatever it gave. The
    /// worker never waits for the main thread, which may itself be waiting for the worker or a
    /// lock of the SDK's. One read a try, so that a device that gives none holds no install; none
    /// in anonymous mode, where the IDFV is not sent.
    private func waitsForVendorId() -> Bool {
        switch vendorIdRead {
        case .asked:
            return true
        case .done:
            vendorIdRead = .due
            return false
        case .due:
            if locked({ anonymous }) { return false }
            let asked = platform.device.readIdentifierForVendor { [weak self] in
                self?.worker.async { [weak self] in
                    guard let self = self, self.vendorIdRead == .asked else { return }
                    self.vendorIdRead = .done
                    self.flush()
                }
            }
            if asked { vendorIdRead = .asked }
            return asked
        }
    }

    private func installInput() -> Requests.InstallInput {
        let device = platform.device
        let (userId, serviceId, openURL, platformAds, isAnonymous) = locked {
            (customerUserId, self.serviceId, self.openURL, self.platformAds, anonymous)
        }
        let firstOpen = firstOpenDate() ?? platform.clock()
        // Read at each try: a token is good for 24 hours, and an install retried after a long
        // offline spell must not carry one Apple no longer resolves. A read that fails keeps the
        // one read before.
        if platformAds {
            do {
                adsToken = try device.platformAdsToken() ?? adsToken
            } catch {
                adsTokenFailures += 1
                currentLog.warn("Apple Ads attribution token unavailable (try \(adsTokenFailures) of \(SdkCore.maxAdsTokenTries)): \(error.localizedDescription)")
            }
        }
        var input = Requests.InstallInput(serviceId: serviceId ?? "", firstOpen: firstOpen)
        input.sentAt = platform.clock()
        input.osVersion = device.osVersion
        input.deviceModel = device.deviceModel
        input.appVersion = device.appVersion
        input.locale = device.locale
        input.timezone = device.timezone
        input.trackingAuthorizationStatus = device.trackingAuthorizationStatus
        input.anonymous = isAnonymous
        if !isAnonymous {
            // Not even read in anonymous mode. As the main thread read it: never waited for here.
            input.identifierForVendor = device.identifierForVendor
            input.advertisingIdentifier = device.advertisingIdentifier()
            input.customerUserId = userId
        }
        input.platformAdsToken = adsToken
        input.openURL = openURL
        input.consent = consentObject()
        if let wrapper = wrapper {
            input.sdkPlatform = wrapper.platform
            input.sdkVersion = wrapper.version
        }
        return input
    }

    // MARK: - waiting for the app's tracking answer

    /// Before `configure`: the install waits for the app's App Tracking Transparency answer, up
    /// to `timeout` seconds from `configure` (``waitsForTracking()``); the last call before
    /// `configure` wins. A timeout outside ``trackingWaitLimits``, or not finite, is refused with
    /// an error in the log and changes nothing. Once `configure` was called it changes nothing
    /// either, with a warning: the install may be on its way. Before `configure` the line goes
    /// to `sink` at once, at the default level, rather than wait for `configure`'s.
    func waitForTrackingAuthorization(timeout: TimeInterval, log sink: LogSink) {
        let valid = timeout.isFinite && SdkCore.trackingWaitLimits.contains(timeout)
        let (late, log) = locked { () -> (Bool, Logger) in
            // A configure waiting for the device's first unlock was called: it has the app's log.
            let called = configured || waitingForProtectedData != nil
            if valid && !called { trackingWaitTimeout = timeout }
            return (called, called ? self.log : Logger(sink: sink, level: .default))
        }
        let limits = SdkCore.trackingWaitLimits
        if !valid {
            log.error("waitForTrackingAuthorization: the timeout must be \(SdkCore.seconds(limits.lowerBound)) to \(SdkCore.seconds(limits.upperBound)) seconds, not \(SdkCore.seconds(timeout)): nothing changes")
        } else if late {
            log.warning("waitForTrackingAuthorization was called after configure: it changes nothing, as the install may be on its way (call it before configure)")
        }
    }

    /// The install's wait for the app's tracking answer: from this process's `configure`, for
    /// `timeout` seconds at most.
    private struct TrackingWait {
        let since: Date
        let timeout: TimeInterval
    }

    /// On the worker, before the install is sent: whether it waits for the app's App Tracking
    /// Transparency answer, as `waitForTrackingAuthorization` asked: while ATT's status reads
    /// `not_determined` and fewer than the timeout's seconds have passed since `configure`.
    /// Meanwhile the status is read again every second, and as the app becomes active. Once
    /// the wait is over (any other status, none readable, or the time run out) it is said in the
    /// log with why, and it never holds the install again in this process.
    private func waitsForTracking() -> Bool {
        guard let wait = locked({ trackingWait }) else { return false }
        let status = platform.device.trackingAuthorizationStatus
        let waited = platform.clock().timeIntervalSince(wait.since)
        let limit = SdkCore.seconds(wait.timeout)
        // A clock set back since configure ends the wait rather than lengthen it.
        if status == "not_determined" && waited >= 0 && waited < wait.timeout {
            if !trackingWaitSaid {
                trackingWaitSaid = true
                currentLog.info("the install waits for the app's tracking authorization, up to \(limit) s")
            }
            scheduleTrackingRead(after: min(1, wait.timeout - waited))
            return true
        }
        locked { trackingWait = nil }
        let why: String
        switch status {
        case "not_determined"?:
            why = waited < 0 ? "the device's clock went back during the wait" : "no tracking authorization came in \(limit) s"
        case let answered?:
            why = "the app's tracking authorization is \(answered)"
        case nil:
            why = "the device gives no tracking authorization status"
        }
        if trackingWaitSaid {
            currentLog.info("\(why): the install goes, with the tracking as it is now")
        } else {
            currentLog.debug("\(why): the install goes without waiting")
        }
        return false
    }

    /// On the worker: the tracking status read again after `delay` (a second, or what is left of
    /// the wait) by a flush, on the platform's scheduler; one read at a time. A read that finds
    /// the install no longer held (the app became active meanwhile, and it went) does nothing.
    private func scheduleTrackingRead(after delay: TimeInterval) {
        if trackingReadScheduled { return }
        trackingReadScheduled = true
        platform.scheduler.schedule(after: delay, on: worker) { [weak self] in
            guard let self = self else { return }
            self.trackingReadScheduled = false
            if self.installHeldForTracking { self.flush() }
        }
    }

    /// Seconds as the log says them: `60`, `1.5`.
    private static func seconds(_ value: TimeInterval) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    // MARK: - attribution

    /// On the worker: the attribution kept from an earlier launch goes to the listeners; else it
    /// is read until it resolves.
    private func startPolling() {
        let alreadyPolling = locked { () -> Bool in
            if attributionRefused { return true }
            let was = polling
            polling = true
            return was
        }
        if alreadyPolling { return }
        if let stored = storedAttribution() {
            initialMatch.open()
            announce(stored)
            // A deferred deep link an earlier launch had no listener for.
            deliverKeptDeferredLink()
            return
        }
        let delay = settings.retryDelay
        poller.async { self.poll(delay: delay) }
    }

    private func storedAttribution() -> [String: String]? {
        guard let text = platform.store.get(Key.attribution), let answer = (try? JSONValue.parse(text))?.objectValue else { return nil }
        var params: [String: String] = [:]
        for (key, value) in answer {
            if let text = value.stringValue { params[key] = text }
        }
        return params[SdkCore.matchStatus] == nil ? nil : params
    }

    /// On the poller: one attribution read; `failed`, a match still pending (an empty map), an
    /// unknown status, an answer not of the contract's shape and errors are asked again after
    /// `delay`, which doubles up to the maximum: a service or a proxy that answers at once never
    /// makes a tight loop.
    private func poll(delay: TimeInterval) {
        let (isRunning, id) = locked { (!disabled && !deleted && !stopped, serviceId) }
        guard isRunning, let serviceId = id else {
            locked { polling = false }
            initialMatch.open()
            return
        }
        do {
            let answer = try api.attribution(serviceId: serviceId, waitSeconds: settings.attributionWaitSeconds)
            let status = answer[SdkCore.matchStatus]
            if answer.isEmpty {
                // Still pending: asked again later, the service's own wait aside.
                currentLog.debug("attribution still pending: asking again in \(Int(delay * 1000)) ms")
            } else if let status = status, SdkCore.settledStatuses.contains(status) {
                // Not kept while stopped or switched off: asked again at start, or when on again.
                let keep = locked { () -> Bool in
                    let running = !disabled && !deleted && !stopped
                    if !running { polling = false }
                    return running
                }
                if keep { platform.store.put(Key.attribution, JSONValue.object(answer.mapValues { .string($0) }).text) }
                currentLog.info("attribution resolved: \(status)")
                initialMatch.open()
                if keep { resolved(answer) }
                return
            } else {
                currentLog.info("attribution not resolved (\(status ?? "no status")): asking again")
                initialMatch.open()
            }
        } catch let error as ServiceAttributionError {
            switch error {
            case .http(404, _):
                currentLog.warn("the service knows no install \(serviceId): attribution stops until the install is reported again")
                // Reporting it again (an event's Conflict) starts the reads anew.
                locked { polling = false }
                initialMatch.open()
                return
            case let .authentication(statusCode):
                currentLog.error("reading the attribution: the API key was rejected (HTTP \(statusCode)): not read again until refreshConfig")
                locked {
                    attributionRefused = true
                    polling = false
                }
                initialMatch.open()
                return
            default:
                initialMatch.open()
            }
        } catch let unexpected as UnexpectedAnswer {
            currentLog.warning("\(unexpected.localizedDescription): asking again in \(Int(delay * 1000)) ms")
            initialMatch.open()
        } catch {
            initialMatch.open()
        }
        let following = min(delay * 2, settings.maxRetryDelay)
        platform.scheduler.schedule(after: wait(before: delay), on: poller) { [weak self] in self?.poll(delay: following) }
    }

    /// The install's attribution, resolved for the first time: to the listeners, with the
    /// deferred deep link it carries, once per install.
    private func resolved(_ attribution: [String: String]) {
        announce(attribution)
        deliverKeptDeferredLink()
    }

    /// The deferred deep link of the attribution kept on the device, once per install, to the
    /// deep-link listener or the delegate. With none set it stays on the device, not in memory
    /// among the direct links (which the process's end loses, and later taps push out), for the
    /// first one set, in this launch or a later one. Marked delivered on the device only once
    /// their calls ran on the main thread (``deferredDeepLinkRan()``): a process killed with the
    /// calls still posted offers it again at the next launch. ``deferredHandedOver`` keeps it
    /// from a second hand-over in this process meanwhile.
    private func deliverKeptDeferredLink() {
        let ready = locked {
            configured && !disabled && !stopped && !deleted && !deferredHandedOver && (onDeepLink != nil || delegate != nil)
        }
        guard ready, platform.store.isAvailable, let attribution = storedAttribution(),
              let link = SdkCore.deferredDeepLink(attribution) else { return }
        // The listeners are read again, once, in the step that claims the link, and the link goes
        // to those: the app may have cleared them since the look above, and a link claimed for
        // none would reach no one in this process. The state too, which a stop meanwhile changes.
        // The claim is in memory: the device says delivered once the calls ran.
        let listeners = locked { () -> (DeepLinkListener?, ServiceAttributionDelegate?)? in
            guard configured && !disabled && !stopped && !deleted && !deferredHandedOver, let taken = deepLinkListeners(),
                  platform.store.get(Key.deferredDelivered) == nil else { return nil }
            deferredHandedOver = true
            return taken
        }
        guard let pair = listeners else { return }
        hand(link, to: pair.0, pair.1) { self.deferredDeepLinkRan() }
    }

    /// On the main thread, once the deep-link listener's and the delegate's calls with the
    /// deferred deep link returned: the link is marked delivered on the device, on the worker,
    /// off the app's thread. Marked even if the SDK was stopped or switched off since, or the
    /// install's data deleted: the app has the link.
    private func deferredDeepLinkRan() {
        worker.async {
            // `configure` waited for the files to be readable, and they stay so until the device
            // restarts, which ends the process: unreadable here only in theory. A write then
            // would not reach the disk; unmarked, the link is offered again at the next launch,
            // as after a process that ended before the calls ran, and never again in this one.
            guard self.platform.store.isAvailable else {
                self.currentLog.debug("deferred deep link: not marked delivered, the SDK's files cannot be written now")
                return
            }
            self.platform.store.put(Key.deferredDelivered, "1")
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
        if let params = storedAttribution() { return params }
        return [SdkCore.matchStatus: isInitialized ? "failed" : "not_configured"]
    }

    /// Calls `completion` (on a background queue) once the first attribution attempt of this
    /// process has finished, matched or not; at once before configure, while disabled or
    /// stopped, and once the install's data is deleted (no attempt is made for it any more).
    func awaitAttributionParams(_ completion: @escaping ([String: String]) -> Void) {
        let (isConfigured, isDisabled, isStopped, isDeleted) = locked { (configured, disabled, stopped, deleted) }
        if !isConfigured || isDisabled || isStopped || isDeleted { return completion(attributionParams()) }
        // Kept on the device (a later launch): answered at once, offline or not, not after the
        // remote configuration's read.
        if storedAttribution() != nil { return completion(attributionParams()) }
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
                self.forgetDeletedInstall("the install's data is deleted")
                completion(nil)
            } catch {
                self.currentLog.error("deleting the install's data failed: \(error.localizedDescription)")
                completion(SdkCore.appFacing(error))
            }
        }
    }

    /// On the worker: the install's data is deleted at the service (by deleteUserData, or on
    /// request through its API, which the SDK learns from the service's answers): kept on the
    /// device, and nothing more is sent or queued for the install, in this launch or a later one.
    private func forgetDeletedInstall(_ why: String) {
        enqueueLock.lock()
        locked {
            deleted = true
            // The user's id goes with their data, as the id of events that will never be sent;
            // under the lock, so that a setCustomerUserId under way does not keep it again.
            customerUserId = nil
            platform.store.remove(Key.customerUserId)
            sessionTracker.disable()
        }
        platform.store.put(Key.deleted, "1")
        platform.store.remove(Key.attribution)
        let dropped = SdkCore.eventsDropped(queued: queue?.clear() ?? [], waiting: pendingQueue?.clear() ?? [])
        let droppedSessions = sessionQueue?.clear() ?? []
        enqueueLock.unlock()
        currentLog.info("\(why): nothing more is sent for it")
        reportDrop(.deleted, dropped.count, "the install's data was deleted: the service ignores its events")
        reportSessionDrop(.deleted, droppedSessions.count, "the install's data was deleted: the service ignores its sessions")
        initialMatch.open()
    }

    /// Remembers the link that opened the app, for the install's `open_url` on its first launch.
    func noteOpenURL(_ url: String) {
        locked {
            if openURL == nil && !installSeenRecorded { openURL = url }
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

    /// Events dropped on this install, kept across launches: before `configure`, the count
    /// earlier launches kept on the device, where `configure` reads it, besides this process's.
    var droppedEventCount: Int {
        return locked { () -> Int in
            guard !configured, let store = earlyStore, store.isAvailable else { return droppedTotal }
            return droppedTotal + (store.get(Key.droppedEvents).flatMap { Int($0) } ?? 0)
        }
    }

    /// Events on the device now: queued, and waiting for a configuration to say how to protect
    /// them.
    var queuedEventCount: Int {
        return (queue?.count ?? 0) + (pendingQueue?.count ?? 0)
    }

    /// Sessions dropped on this install, kept across launches (the app hears of none).
    var droppedSessionCount: Int {
        return locked { droppedSessionsTotal }
    }

    /// Sessions queued on the device now.
    var queuedSessionCount: Int {
        return sessionQueue?.count ?? 0
    }

    /// Waits until the worker and the poller have done what was handed to them so far (tests).
    func drain() {
        worker.sync {}
        poller.sync {}
        worker.sync {}
    }
}

extension SdkCore {
    /// What the worker delivers from one queue on the device, by delivery.json's rules: the
    /// events (POST /v1/events) or the sessions (POST /v1/sessions, sessions.json). Worker-queue
    /// state.
    fileprivate final class Lane {
        enum Kind {
            case events
            case sessions
        }

        let kind: Kind
        let queue: EventQueue
        let maxPerRequest: Int
        /// Items a request may hold: the maximum, or less while a batch refused as a whole is
        /// being split to find the item refused alone.
        var batchLimit: Int
        /// The last item of the batch whose refusal started the splitting: once it has left the
        /// queue, requests are whole again.
        var splitUntil: String?
        /// The lane's route refused with 401, 403 or 404: its items stay queued, and are not
        /// sent again until the next launch or refreshConfig; the other lane goes on.
        var held = false

        init(_ kind: Kind, _ queue: EventQueue, maxPerRequest: Int) {
            self.kind = kind
            self.queue = queue
            self.maxPerRequest = maxPerRequest
            batchLimit = maxPerRequest
        }

        var route: String {
            return kind == .events ? "POST /v1/events" : "POST /v1/sessions"
        }

        /// The field that says when the item happened, which decides `expired`.
        var timeField: String {
            return kind == .events ? "event_time" : "started_at"
        }

        /// "1 event", "3 sessions".
        func counted(_ count: Int) -> String {
            return "\(count) \(kind == .events ? "event" : "session")\(count == 1 ? "" : "s")"
        }

        func id(of item: JSONValue) -> String? {
            return queue.kind.id(of: item)
        }

        func endSplitting() {
            splitUntil = nil
            batchLimit = maxPerRequest
        }
    }
}

extension ServiceAttributionError {
    var isAuthentication: Bool {
        if case .authentication = self { return true }
        return false
    }
}
