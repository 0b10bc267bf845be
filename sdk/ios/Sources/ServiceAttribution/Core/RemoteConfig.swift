import Foundation

/// Whether and how parameter values are sealed, as GET /v1/config says.
enum Encryption: Equatable {
    case off
    case on(keyId: String, publicKey: String, clearKeys: Set<String>)
}

/// The app's remote configuration (GET /v1/config).
struct RemoteConfig: Equatable {
    let enabled: Bool
    let refreshIntervalSeconds: Int64
    let encryption: Encryption
    /// The app's conversion value schema (`skadnetwork`); nil when the app has none.
    var skadnetwork: ConversionSchema? = nil
    /// How long the app must be away from the foreground, in seconds, for its return to start a
    /// session (`session_interval_seconds`).
    var sessionIntervalSeconds: Int64 = SessionTracker.defaultIntervalSeconds

    /// What the SDK runs with when the fetch fails for a reason other than the key and no
    /// configuration of the service's is kept on the device (an install's first launch offline):
    /// on, so that the install and the sessions go. It stands for no answer: it decides nothing
    /// of how events are protected (they wait on the device for a configuration of the
    /// service's), and GET /v1/config is asked again as a delivery is retried, from 2 s doubling
    /// to a minute. Its interval is the one a failed refresh waits once a configuration is known.
    static let placeholder = RemoteConfig(enabled: true, refreshIntervalSeconds: defaultRefreshIntervalSeconds, encryption: .off)

    /// How often the configuration is read again when it gives no interval
    /// (sdk/conformance/remote-config.json).
    static let defaultRefreshIntervalSeconds: Int64 = 3600

    /// The contract's largest integer: JSON's exact ones, 2^53 - 1.
    private static let maxContractInteger: Int64 = 9_007_199_254_740_991

    /// An interval as the contract gives it, a whole number of seconds from 1 to 2^53 - 1
    /// (`900.0` is 900); nil for any other value, which is then taken as none given: the default.
    /// Never the nearest value allowed, as though it were the owner's setting: a damaged 0 taken
    /// as 1 s would read the configuration every second, and start a session at every return to
    /// the foreground (sdk/conformance/remote-config.json).
    static func contractSeconds(_ value: JSONValue?) -> Int64? {
        guard let seconds = value?.int64Value, seconds >= 1, seconds <= maxContractInteger else { return nil }
        return seconds
    }

    enum ParseError: Error {
        case invalid(String)
    }

    static func parse(_ text: String) throws -> RemoteConfig {
        guard let json = try JSONValue.parse(text).objectValue else { throw ParseError.invalid("not an object") }
        guard let enabled = json["enabled"]?.boolValue else { throw ParseError.invalid("enabled") }
        let interval = contractSeconds(json["refresh_interval_seconds"]) ?? defaultRefreshIntervalSeconds
        var encryption = Encryption.off
        if let sealing = json["encryption"]?.objectValue, sealing["enabled"]?.boolValue == true {
            guard let keyId = sealing["key_id"]?.stringValue, let publicKey = sealing["public_key"]?.stringValue else {
                throw ParseError.invalid("encryption")
            }
            // A key that cannot seal would leave each event to be hashed or stripped instead:
            // such an answer is refused whole, as one that is not the contract's JSON, and the
            // configuration in force stays (as the Kotlin SDK does).
            do {
                _ = try Sealer(keyId: keyId, publicKeySpki: publicKey)
            } catch {
                throw ParseError.invalid("encryption: its key cannot seal (\(error))")
            }
            let clearKeys = (sealing["clear_keys"]?.arrayValue ?? []).compactMap { $0.stringValue }
            encryption = .on(keyId: keyId, publicKey: publicKey, clearKeys: Set(clearKeys))
        }
        var config = RemoteConfig(enabled: enabled, refreshIntervalSeconds: interval, encryption: encryption)
        config.skadnetwork = ConversionSchema.parse(json["skadnetwork"])
        config.sessionIntervalSeconds = contractSeconds(json["session_interval_seconds"]) ?? SessionTracker.defaultIntervalSeconds
        return config
    }

    var json: JSONValue {
        let sealing: JSONValue
        switch encryption {
        case .off:
            sealing = .object(["enabled": .bool(false)])
        case let .on(keyId, publicKey, clearKeys):
            sealing = .object([
                "enabled": .bool(true),
                "key_id": .string(keyId),
                "public_key": .string(publicKey),
                "clear_keys": .array(clearKeys.sorted().map { .string($0) }),
            ])
        }
        return .object([
            "enabled": .bool(enabled),
            "refresh_interval_seconds": .int(refreshIntervalSeconds),
            "session_interval_seconds": .int(sessionIntervalSeconds),
            "encryption": sealing,
            "skadnetwork": skadnetwork?.json ?? .null,
        ])
    }
}
