import Foundation

/// The errors the SDK reports to the app.
public enum ServiceAttributionError: Error, Equatable, Sendable {
    /// A call broke a rule of its arguments (a ``EventType/custom`` event without a name, a
    /// blank host in `allowedHosts`, an empty API key); nothing was done.
    case invalidArgument(String)

    /// The call needs ``ServiceAttribution/configure(apiKey:logLevel:customerUserId:baseURL:completion:)``
    /// first.
    case notConfigured

    /// The SDK is switched off (remote configuration, or a rejected API key).
    case disabled

    /// The service's address is not set: neither `baseURL` nor the Info.plist key
    /// `ServiceAttributionBaseURL`.
    case missingBaseURL

    /// The service rejected the API key (HTTP 401 or 403). On its configuration the SDK has
    /// disabled itself; on another route (`deleteUserData`) that route alone failed.
    case authentication(statusCode: Int)

    /// The service answered with a non-success HTTP status.
    case http(statusCode: Int, message: String)

    /// No answer came back (offline, a timeout, a TLS failure).
    case network(String)

    /// `configure` ran in an app extension (a widget, a notification service extension: a
    /// bundle ending in `.appex`), where the SDK does not run: the app itself tracks the install
    /// and sends events. Nothing was opened, stored or sent; `sendEvent` there keeps nothing.
    case appExtension
}

extension ServiceAttributionError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case let .invalidArgument(message):
            return message
        case .notConfigured:
            return "ServiceAttribution.configure has not been called"
        case .disabled:
            return "the SDK is disabled"
        case .missingBaseURL:
            return "the service's address is not set (Info.plist key ServiceAttributionBaseURL)"
        case let .authentication(statusCode):
            return "the API key was rejected (HTTP \(statusCode))"
        case let .http(statusCode, message):
            return message.isEmpty ? "HTTP \(statusCode)" : message
        case let .network(message):
            return "the service could not be reached: \(message)"
        case .appExtension:
            return "configure ran in an app extension: the SDK runs in the app itself, where its data is kept; nothing is sent from the extension, and its events are not kept"
        }
    }
}
