import Foundation

/// A deep link for the app to route: one that opened the app (`direct`) or the one that brought
/// the install (`deferred`, from its attribution). Delivered to
/// ``ServiceAttribution/onDeepLink`` and ``ServiceAttributionDelegate/serviceAttribution(didReceive:)``
/// on the main thread.
public struct ServiceDeepLink: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        /// A link that opened the app: ``ServiceAttribution/handleUniversalLink(_:allowedHosts:)``
        /// or ``ServiceAttribution/handleDeepLink(_:)`` parsed it. The service records nothing
        /// for it; the SDK only delivers it.
        case direct
        /// The link of the click that brought the install, from its attribution (its
        /// `deep_link_path` and custom parameters). Delivered once per install.
        case deferred
    }

    public let kind: Kind
    /// The link's single path segment on the link host (`https://go.example.com/<deeplinkId>`);
    /// nil for a custom scheme's link, a link without one, and a deferred link.
    public let deeplinkId: String?
    /// Where in the app to go: the link's `deep_link_path` parameter; nil when it has none.
    public let path: String?
    /// The link's parameters, percent-decoded (`deep_link_path` included); for a deferred link,
    /// the attribution's keys that are not the attribution route's own (the link's custom
    /// parameters).
    public let params: [String: String]
    /// The tapped URL; nil for a deferred link.
    public let url: URL?

    public init(kind: Kind, deeplinkId: String?, path: String?, params: [String: String], url: URL?) {
        self.kind = kind
        self.deeplinkId = deeplinkId
        self.path = path
        self.params = params
        self.url = url
    }
}

/// What the SDK tells the app when it cannot do what it was asked: delivered to
/// ``ServiceAttribution/onError`` and ``ServiceAttributionDelegate/serviceAttribution(didFail:)``
/// on the main thread.
public struct ServiceError: Error, Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        /// The service refused the install with 401, 403 or 404 (a wrong address or path, a
        /// revoked or mistyped key), or refused its bare form too. Reported once; the install is
        /// not tried again until the app's next launch or ``ServiceAttribution/refreshConfig()``.
        /// The events stay queued on the device meanwhile. Also a key rejected (``code`` 401) on
        /// a read of remote configuration after `configure` that no completion waits for (the
        /// periodic refresh): the SDK is switched off, as ``ServiceAttribution/lastInitError`` says.
        case configuration
        /// Events were dropped, for ``reason``; ``count`` says how many.
        case eventsDropped = "events_dropped"
        /// Apple refused a conversion value update that the app's conversion value schema made
        /// (SKAdNetwork or AdAttributionKit answered an error): ``message`` names which and
        /// what it said; ``count`` is 1. Later events and updates go on.
        case conversionValue = "conversion_value"
    }

    /// Why events were dropped: the only reasons the SDK drops an event it took.
    public enum DropReason: String, Equatable, Sendable {
        /// The queue held its bound (1,000 events): the oldest went to make room.
        case queueFull = "queue_full"
        /// The service refused this event for good (alone in its request, or by name).
        case refused
        /// Older than the service keeps (30 days by the device's clock) when about to be sent.
        case expired
        /// The app called ``ServiceAttribution/stop()``.
        case stopped
        /// Remote configuration switched the SDK off, or GET /v1/config rejected the API key.
        case disabled
        /// The install's data was deleted (``ServiceAttribution/deleteUserData()``).
        case deleted
    }

    public let kind: Kind
    /// For ``Kind/eventsDropped``: why.
    public let reason: DropReason?
    /// For ``Kind/configuration``: the HTTP status the service answered.
    public let code: Int?
    /// For ``Kind/eventsDropped``: how many events were dropped; 1 for the other kinds.
    public let count: Int
    /// A sentence for the log.
    public let message: String

    public init(kind: Kind, reason: DropReason?, code: Int?, count: Int, message: String) {
        self.kind = kind
        self.reason = reason
        self.code = code
        self.count = count
        self.message = message
    }
}

extension ServiceError: LocalizedError {
    public var errorDescription: String? {
        return message
    }
}

/// What the user agreed to, as the app's consent screen asked it; nil is unknown. Kept on the
/// device across launches and sent with the install (`consent`), and again through
/// `POST /v1/installs/{service_id}/consent` whenever it changes once the install is recorded.
/// The TCF string and `gdprApplies` that the app's consent platform (CMP) stores in
/// `UserDefaults.standard` (`IABTCF_TCString`, `IABTCF_gdprApplies`) are read by the SDK itself.
public struct ServiceConsent: Equatable, Sendable {
    /// Whether the GDPR applies to the user; nil leaves it to `IABTCF_gdprApplies`.
    public var gdprApplies: Bool?
    /// Whether the user agreed that their data be sent for advertising.
    public var adUserData: Bool?
    /// Whether the user agreed to personalized advertising.
    public var adPersonalization: Bool?

    public init(gdprApplies: Bool? = nil, adUserData: Bool? = nil, adPersonalization: Bool? = nil) {
        self.gdprApplies = gdprApplies
        self.adUserData = adUserData
        self.adPersonalization = adPersonalization
    }
}

/// The app's listener as a delegate, beside the closures ``ServiceAttribution/onAttribution``,
/// ``ServiceAttribution/onDeepLink`` and ``ServiceAttribution/onError``: every method has an
/// empty default, and each runs on the main thread. Held weakly by
/// ``ServiceAttribution/delegate``.
///
/// Main-actor isolated, as the SDK calls it on the main thread: an app delegate, a view
/// controller or any other `@MainActor` type conforms to it from a Swift 6 module too.
@MainActor
public protocol ServiceAttributionDelegate: AnyObject {
    /// The install's attribution, once resolved (`service_match_status` `matched`,
    /// `matched_no_params`, `organic` or `skipped`), with every key the service answered; again
    /// at every later launch with the map kept on the device; at once when the delegate is set
    /// after that.
    func serviceAttribution(didResolve attribution: [String: String])

    /// A deep link to route: direct (a tapped link) or deferred (the install's link).
    func serviceAttribution(didReceive deepLink: ServiceDeepLink)

    /// Events dropped, or the service refusing the install (a configuration error).
    func serviceAttribution(didFail error: ServiceError)
}

extension ServiceAttributionDelegate {
    public func serviceAttribution(didResolve attribution: [String: String]) {}

    public func serviceAttribution(didReceive deepLink: ServiceDeepLink) {}

    public func serviceAttribution(didFail error: ServiceError) {}
}
