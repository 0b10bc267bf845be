import Foundation

/// The attribution service's SDK for iOS.
///
/// Call ``configure(apiKey:logLevel:customerUserId:baseURL:completion:)`` once, early, from the
/// main thread (in `application(_:didFinishLaunchingWithOptions:)` or your `App`'s `init`).
/// Every other member is safe from any thread, before or after it. The SDK then tracks the
/// install once, sends events in the order they were sent (kept on the device while offline),
/// reports sessions from the app's lifecycle by itself, follows its remote configuration and
/// reads the install's attribution.
///
/// ```swift
/// ServiceAttribution.configure(apiKey: "sdk_…")
/// try ServiceAttribution.sendEvent(.purchase, parameters: ["revenue": 9.99, "currency": "EUR"])
/// let params = await ServiceAttribution.awaitAttributionParams()
/// ```
public enum ServiceAttribution {
    /// Inside an app extension (a widget, a notification service extension…) `configure` is
    /// refused: the extension has a container of its own, where the SDK would make a second
    /// install of the app, with the app's IDFV, and a session at each of its launches.
    static let inAppExtension = Bundle.main.bundleURL.pathExtension == "appex"
    /// The SDK's files, one instance for the process: `stop`, `setAnonymous` and `setConsent`
    /// called before `configure` are written there at once; nil in an app extension.
    static let store: FileStore? = inAppExtension ? nil : FileStore.standard()
    static let core = SdkCore(
        store: store,
        refusal: inAppExtension ? .appExtension : nil,
        refusalLog: inAppExtension ? UnifiedLogSink() : nil
    )
    static let device = AppleDevice()

    /// This SDK's version, sent in the install report.
    public static let sdkVersion = Requests.sdkVersion

    /// The Info.plist key that holds the service's address (`https://attribution.example.com`),
    /// read when `configure` is given no `baseURL`.
    public static let baseURLInfoPlistKey = "ServiceAttributionBaseURL"

    /// The reserved key of ``attributionParams`` that always holds the match status:
    /// `matched`, `matched_no_params`, `organic`, `skipped`, `failed` or `not_configured`.
    public static let matchStatusKey = SdkCore.matchStatus

    /// The listeners as a delegate, held weakly, beside the closures ``onAttribution``,
    /// ``onDeepLink`` and ``onError`` (both are called, on the main thread). Kept by the SDK
    /// under its lock: safe to set from any thread.
    public static var delegate: ServiceAttributionDelegate? {
        get { return core.listenerDelegate }
        set { core.listenerDelegate = newValue }
    }

    // MARK: - Configuration

    /// Starts the SDK: fetches remote configuration, tracks the install once, sends the events
    /// sent before, and starts this launch's session (sessions are tracked from the app's
    /// lifecycle from then on). A repeat call is a no-op, its `customerUserId` included; its
    /// `completion` is called once the first call's initialization is complete, with its error.
    ///
    /// - Parameters:
    ///   - apiKey: The app's SDK key. An empty or rejected key disables the SDK.
    ///   - logLevel: What the SDK writes to the unified log; ``LogLevel/warn`` acts as
    ///     ``LogLevel/error`` on iOS.
    ///   - customerUserId: The app's own user id, if already known (1 to 256 characters).
    ///   - baseURL: The service's address; nil reads the Info.plist key
    ///     ``baseURLInfoPlistKey``. Without either, or with one that is no absolute http or https
    ///     URL (``ServiceAttributionError/invalidArgument(_:)`` naming it), the SDK disables itself.
    ///   - completion: Called once on the main thread when initialization is complete, remote
    ///     configuration included: nil, or the error it met. After
    ///     ``ServiceAttributionError/authentication(statusCode:)`` (a rejected key) or
    ///     ``ServiceAttributionError/missingBaseURL`` (or an address that is no URL) the SDK is
    ///     disabled; after any other error
    ///     it goes on with the configuration the service gave an earlier launch, kept on the
    ///     device, or, with none, sends the install and sessions while events wait on the device
    ///     for the configuration, asked for again from 2 s doubling to a minute.
    ///     While the SDK is stopped (``stop()``, in this launch or kept from an earlier one)
    ///     initialization waits for ``start()``, and so does `completion`: the initialization
    ///     that `start()` runs calls it, once, with nil or the error it met (a refusal to start
    ///     included).
    ///     In an app extension (a widget, a notification service extension) `configure` is
    ///     refused: ``ServiceAttributionError/appExtension``, with one warning in the log, and
    ///     nothing opened, stored or sent there.
    public static func configure(
        apiKey: String,
        logLevel: LogLevel = .default,
        customerUserId: String? = nil,
        baseURL: URL? = nil,
        completion: ((Error?) -> Void)? = nil
    ) {
        launch(apiKey: apiKey, logLevel: logLevel, customerUserId: customerUserId, baseURL: baseURL, wrapper: nil, completion: completion)
    }

    /// Holds the install's report until the user answers the app's App Tracking Transparency
    /// prompt, so that an install the user lets the app track carries the IDFA. Call it before
    /// ``configure(apiKey:logLevel:customerUserId:baseURL:completion:)``, at every launch, and
    /// show the prompt (`ATTrackingManager.requestTrackingAuthorization(completionHandler:)`)
    /// when the app sees fit. The SDK never shows it.
    ///
    /// While the install is not recorded by the service, ATT's status is `notDetermined` and
    /// fewer than `timeout` seconds have passed since this launch's `configure`, the install is
    /// not sent, nor what goes after it: sessions, events (kept on the device meanwhile) and
    /// consent updates; ``awaitAttributionParams()`` answers once the install has gone and its
    /// first match attempt finished. Remote configuration is read as usual. The status is read
    /// again every second and each time the app becomes active (the prompt closing makes it
    /// active). As soon as it is anything else, or the time has run out, the install goes with
    /// the tracking as it is then: the IDFA only when the user authorized tracking. One line in
    /// the log says the wait began, one that it ended, and why. An install recorded at an earlier
    /// launch never waits; a launch that ended while its install waited waits again at its next
    /// `configure`, for a timeout counted from that one.
    ///
    /// - Parameter timeout: The longest wait, 1 to 360 seconds. Another value, or one not finite,
    ///   is refused with an error in the log and changes nothing (a later valid call is taken);
    ///   of several valid calls, the last before `configure` counts. Called once `configure` has
    ///   been called, it changes nothing, with a warning in the log: the install may be on its
    ///   way.
    public static func waitForTrackingAuthorization(timeout: TimeInterval) {
        core.waitForTrackingAuthorization(timeout: timeout, log: UnifiedLogSink())
    }

    /// As ``configure(apiKey:logLevel:customerUserId:baseURL:completion:)``, for a layer over
    /// this SDK (the Flutter plugin), which reports itself in the install and may ask for the
    /// spec's rules of its platform.
    @_spi(Wrapper)
    public static func configure(
        apiKey: String,
        logLevel: LogLevel,
        customerUserId: String?,
        wrapper: WrapperInfo,
        completion: ((Error?) -> Void)? = nil
    ) {
        let info = Wrapper(platform: wrapper.platform, version: wrapper.version, sealsCustomValues: wrapper.sealsCustomParameters)
        launch(apiKey: apiKey, logLevel: logLevel, customerUserId: customerUserId, baseURL: nil, wrapper: info, completion: completion)
    }

    private static func launch(
        apiKey: String,
        logLevel: LogLevel,
        customerUserId: String?,
        baseURL: URL?,
        wrapper: Wrapper?,
        completion: ((Error?) -> Void)?
    ) {
        // In an app extension nothing is opened, read or sent: one warning, and the completion.
        guard let store = store, core.refusal == nil else {
            core.refuseConfigure(log: UnifiedLogSink(), logLevel: logLevel, completion: completion)
            return
        }
        // UIKit gives the IDFV on the main thread only: read now where `configure` is called
        // as documented, else once the main thread is free, which the install waits for
        // without blocking any thread (`readIdentifierForVendor`).
        device.captureIdentifierForVendor()
        let configured = Bundle.main.object(forInfoDictionaryKey: baseURLInfoPlistKey) as? String
        let address = baseURL?.absoluteString ?? configured?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var platform = Platform(store: store, device: device, log: UnifiedLogSink(), http: URLSessionTransport())
        platform.consentSignals = ConsentPlatformDefaults()
        platform.conversionValues = AppleConversionValues()
        platform.lifecycle = UIKitLifecycle()
        platform.protectedData = UIKitProtectedData()
        core.configure(
            platform: platform,
            settings: SdkSettings(baseURL: address),
            apiKey: apiKey,
            logLevel: logLevel,
            customerUserId: customerUserId,
            wrapper: wrapper,
            completion: completion
        )
    }

    /// Fetches remote configuration again (also done at startup and every interval it names).
    /// After a configuration error (``ServiceError/Kind/configuration``) it also lets the
    /// install be sent again.
    public static func refreshConfig() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            core.refreshConfig { error in
                if let error = error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Fetches remote configuration again; `completion` runs on the main thread with nil or the
    /// error (``ServiceAttributionError/notConfigured`` before `configure`).
    public static func refreshConfig(completion: @escaping (Error?) -> Void) {
        core.refreshConfig { error in DispatchQueue.main.async { completion(error) } }
    }

    // MARK: - Customer user id and events

    /// Sets the app's own id of the user, or clears it with nil; the last write wins. It applies
    /// from the next event on, and is kept for the next launches. A blank id, or one over 256
    /// characters, clears it (with a warning).
    public static func setCustomerUserId(_ customerUserId: String?) {
        core.setCustomerUserId(customerUserId)
    }

    /// Sends an event: written to the device before this returns (before `configure`, kept in
    /// memory until it runs; until a configuration of the service's says how to protect its
    /// parameters, kept as it was taken), sent in order as soon as it can be. The queue holds
    /// 1,000 events: beyond, the oldest is dropped and reported (``onError``).
    ///
    /// - Parameters:
    ///   - event: The event type; ``EventType/install`` is tracked by the SDK and not sent.
    ///   - name: The name of a ``EventType/custom`` event, required there; ignored otherwise.
    ///   - parameters: Strings, finite numbers, booleans, arrays and string-keyed dictionaries
    ///     (revenue events: `revenue` and `currency`). A nil or `NSNull` value leaves out its
    ///     key; a value JSON cannot hold (NaN, a `Date`, `Data`, a `URL`, an object of yours)
    ///     loses only its own key, with a warning. The matching parameters `email`, `name`,
    ///   `phone_number`, `date_of_birth` and `gender` are hashed or sealed on the device.
    /// - Returns: True when the event was taken; false for ``EventType/install``, while the
    ///   SDK is disabled or stopped (``stop()``), after ``deleteUserData()``, and in an app
    ///   extension, where nothing is kept.
    /// - Throws: ``ServiceAttributionError/invalidArgument(_:)`` for a custom event without a
    ///   name; nothing is sent.
    @discardableResult
    public static func sendEvent(_ event: EventType, name: String? = nil, parameters: [String: Any]? = nil) throws -> Bool {
        return try core.sendEvent(event, name: name, parameters: parameters)
    }

    // MARK: - State

    /// The install's stable local identity; nil before `configure`.
    public static var serviceId: String? {
        return core.serviceIdentifier
    }

    /// True before `configure`, after a rejected key and while remote configuration has the SDK
    /// switched off.
    public static var isSdkDisabled: Bool {
        return core.isSdkDisabled
    }

    /// True once `configure` has run; says nothing about being enabled.
    public static var isConfigured: Bool {
        return core.isConfigured
    }

    /// True when configured and switched on by remote configuration.
    public static var isEnabled: Bool {
        return core.isEnabled
    }

    /// The most recent initialization failure, or nil: that of `configure`, or a key rejected
    /// on a later read of remote configuration (the SDK then switched off).
    public static var lastInitError: Error? {
        return core.initError
    }

    // MARK: - Attribution

    /// The attribution parameters known now, without waiting. On iOS the map always holds
    /// ``matchStatusKey``: `not_configured` before `configure` has completed and while the SDK
    /// is disabled, `failed` while the match is not resolved (read again later), and once
    /// resolved the service's answer (`matched` with the campaign's parameters and the
    /// deferred deep link's `deep_link_path`, `matched_no_params`, `organic`, `skipped`).
    public static var attributionParams: [String: String] {
        return core.attributionParams()
    }

    /// The attribution parameters once this launch's first match attempt has finished, matched
    /// or not; at once before `configure` and while disabled. Bound it with a timeout of your
    /// own if you must.
    public static func awaitAttributionParams() async -> [String: String] {
        return await withCheckedContinuation { (continuation: CheckedContinuation<[String: String], Never>) in
            core.awaitAttributionParams { params in continuation.resume(returning: params) }
        }
    }

    /// As ``awaitAttributionParams()``; `completion` runs on the main thread.
    public static func awaitAttributionParams(completion: @escaping ([String: String]) -> Void) {
        core.awaitAttributionParams { params in DispatchQueue.main.async { completion(params) } }
    }

    /// Starts Apple Ads attribution: the install report carries Apple's AdServices token, which
    /// the service resolves with Apple. Call it before or right after `configure`: only the
    /// install's first report carries the token. True on iOS; false elsewhere (macOS, where
    /// only the tests run), where it changes nothing.
    @discardableResult
    public static func enablePlatformAdsAttribution() -> Bool {
        guard AppleDevice.platformAdsAvailable else { return false }
        core.enablePlatformAds()
        return true
    }

    // MARK: - Privacy

    /// Permanently deletes the install's data at the service, for a user's privacy request. On
    /// success the attribution kept on the device and the events not sent yet are dropped too.
    /// - Throws: ``ServiceAttributionError/notConfigured`` before `configure`; the service's or
    ///   the network's error otherwise.
    public static func deleteUserData() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            core.deleteUserData { error in
                if let error = error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// As ``deleteUserData()``; `completion` runs on the main thread with nil or the error.
    public static func deleteUserData(completion: @escaping (Error?) -> Void) {
        core.deleteUserData { error in DispatchQueue.main.async { completion(error) } }
    }

    // MARK: - Links

    /// Parses a Universal Link of the service from its URL alone, with no network call;
    /// callable before `configure`. The link that opened the app on its first launch also goes
    /// with the install report, whose click id attributes it. The link also goes to the
    /// deep-link listeners (``onDeepLink``, ``delegate``) as a direct ``ServiceDeepLink``.
    /// A link an AdAttributionKit re-engagement opened the app with (iOS 18: its query has
    /// `AdAttributionKitReengagementOpen`), of any host, allowed or not, makes the one conversion
    /// value update Apple needs to send the re-engagement's postback.
    ///
    /// - Parameters:
    ///   - url: The tapped link (`userActivity.webpageURL`).
    ///   - allowedHosts: Hosts to accept, compared without case; nil accepts any host. It does
    ///     not verify that the app owns the domain.
    /// - Returns: Nil for a URL that is no http(s) link with a host, or whose host is not
    ///   allowed.
    /// - Throws: ``ServiceAttributionError/invalidArgument(_:)`` when `allowedHosts` holds a
    ///   blank host name.
    public static func handleUniversalLink(_ url: URL, allowedHosts: Set<String>? = nil) throws -> ServiceLinkResult? {
        try LinkParser.checkAllowedHosts(allowedHosts)
        let text = url.absoluteString
        // Before the hosts are compared: a re-engagement opens the app with any of its universal
        // links, often on the app's own domain rather than the link host.
        core.noteReengagementOpen(text)
        guard let link = LinkParser.parse(text, allowedHosts: allowedHosts) else { return nil }
        core.noteOpenURL(text)
        if let deepLink = SdkCore.directDeepLink(text) { core.deliver(deepLink) }
        return ServiceLinkResult(deeplinkId: link.deeplinkId, queryParams: link.queryParams, url: url)
    }

    /// The link of a browsing-web user activity (a tapped Universal Link), as
    /// ``handleUniversalLink(_:allowedHosts:)``; nil for any other activity.
    public static func handleUniversalLink(_ userActivity: NSUserActivity, allowedHosts: Set<String>? = nil) throws -> ServiceLinkResult? {
        guard userActivity.activityType == NSUserActivityTypeBrowsingWeb, let url = userActivity.webpageURL else {
            try LinkParser.checkAllowedHosts(allowedHosts)
            return nil
        }
        return try handleUniversalLink(url, allowedHosts: allowedHosts)
    }
}

extension ServiceAttribution {
    // MARK: - Listeners

    /// Called on the main thread (main-actor code) with the install's attribution once it is
    /// resolved (`service_match_status` `matched`, `matched_no_params`, `organic` or
    /// `skipped`), every key the service answered included; again at every later launch with
    /// the map kept on the device; at once when set after that. Never while the SDK is stopped
    /// or disabled, nor after ``deleteUserData()``.
    public static var onAttribution: (@MainActor ([String: String]) -> Void)? {
        get { return core.attributionListener }
        set { core.attributionListener = newValue }
    }

    /// Called on the main thread (main-actor code) with each deep link to route: `direct` for a
    /// link that opened the app (``handleUniversalLink(_:allowedHosts:)``,
    /// ``handleDeepLink(_:)``), `deferred` for the link that brought the install, once per
    /// install. A link parsed while no deep-link listener is set waits for one.
    public static var onDeepLink: (@MainActor (ServiceDeepLink) -> Void)? {
        get { return core.deepLinkListener }
        set { core.deepLinkListener = newValue }
    }

    /// Called on the main thread (main-actor code) when events are dropped
    /// (``ServiceError/Kind/eventsDropped``, with the reason and how many) or the service
    /// refuses the install (``ServiceError/Kind/configuration``, with the HTTP status).
    public static var onError: (@MainActor (ServiceError) -> Void)? {
        get { return core.errorListener }
        set { core.errorListener = newValue }
    }

    /// Delivers a link that opened the app, of any scheme (a Universal Link, or your own
    /// `myapp://open?deep_link_path=…` or `myapp:open?…`), to ``onDeepLink`` and the
    /// ``delegate`` as a direct ``ServiceDeepLink``: its `deep_link_path` parameter is its
    /// `path`; only a link of the link host (`https://<link host>/<deeplinkId>`) has a
    /// `deeplinkId`. Parsed from the URL alone, callable before `configure`. A URL an
    /// AdAttributionKit re-engagement opened the app with (iOS 18: its query has
    /// `AdAttributionKitReengagementOpen`) also makes the one conversion value update Apple needs
    /// to send the re-engagement's postback.
    /// - Returns: The deep link delivered; nil for a URL with no scheme, of which nothing is
    ///   delivered.
    @discardableResult
    public static func handleDeepLink(_ url: URL) -> ServiceDeepLink? {
        return core.handleDeepLink(url.absoluteString)
    }

    // MARK: - Delivery, consent and privacy

    /// Events the SDK dropped on this install (each also reported to ``onError``), kept across
    /// launches.
    public static var droppedEventCount: Int {
        return core.droppedEventCount
    }

    /// Stops the SDK at the user's request, in this launch and the next ones: no request at all
    /// leaves the device, no session starts and ``sendEvent(_:name:parameters:)`` queues nothing
    /// (it answers false); what was queued is dropped (reason `stopped`). Callable before
    /// `configure`, and written to the device at once then too: an app killed before
    /// `configure` keeps it.
    public static func stop() {
        core.stop()
    }

    /// Undoes ``stop()``: remote configuration is fetched, the install is sent if it never was,
    /// a session starts, and the events sent from now on are delivered. After a `configure`
    /// that found the SDK stopped, this is its initialization: the `configure` completion is
    /// called once it is complete.
    public static func start() {
        core.start()
    }

    /// True after ``stop()``, until ``start()``, across launches. A stop of an earlier launch is
    /// read by `configure`: before it, only a stop of this launch counts.
    public static var isStopped: Bool {
        return core.isStopped
    }

    /// Anonymous mode, kept across launches: no IDFA, IDFV or customer user id leaves the
    /// device (the install report and every event sent from now on, queued ones included).
    /// Callable before `configure`, and written to the device at once then too.
    public static func setAnonymous(_ anonymous: Bool) {
        core.setAnonymous(anonymous)
    }

    /// True while anonymous mode is on.
    public static var isAnonymous: Bool {
        return core.isAnonymous
    }

    /// The user's consent as your consent screen asked it, kept across launches: sent with the
    /// install, or to the service as soon as it changes once the install is recorded. The TCF
    /// string and `gdprApplies` your consent platform stores (`IABTCF_TCString`,
    /// `IABTCF_gdprApplies` in `UserDefaults.standard`) are read by the SDK at each launch;
    /// `gdprApplies` set here wins over the platform's. Callable before `configure`, and written
    /// to the device at once then too.
    public static func setConsent(_ consent: ServiceConsent) {
        core.setConsent(consent)
    }

    /// The consent last set with ``setConsent(_:)``, nil if none.
    public static var consent: ServiceConsent? {
        return core.currentConsent
    }
}

/// Who wraps this SDK (the Flutter plugin): its name and version for the install report, and
/// whether it follows the spec's parameter rule 4 (custom values sealed on the device when
/// remote configuration turns sealing on, its clear keys excepted).
@_spi(Wrapper)
public struct WrapperInfo: Sendable {
    public let platform: String
    public let version: String
    public let sealsCustomParameters: Bool

    public init(platform: String, version: String, sealsCustomParameters: Bool) {
        self.platform = platform
        self.version = version
        self.sealsCustomParameters = sealsCustomParameters
    }
}
