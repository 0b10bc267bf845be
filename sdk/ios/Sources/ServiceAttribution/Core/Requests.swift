import Foundation

/// An event as sendEvent took it, before remote configuration says how to protect it.
struct Draft: Equatable {
    let eventId: String
    let type: EventType
    let name: String?
    let parameters: [String: JSONValue]
    let time: Date
    let customerUserId: String?
    /// Anonymous mode as sendEvent found it: an event taken while anonymous never carries the
    /// customer user id, and is sent marked `anonymous`, even once anonymous mode is off when
    /// it is queued or sent. Nil before `configure` when this launch's mode is not known yet
    /// (no `setAnonymous` in this process): `configure` sets it to the mode it reads.
    var anonymous: Bool? = nil
}

/// sendEvent's rules (sdk/conformance/parameters.json), before anything is queued.
enum Drafts {
    static let customNameRule = "a name is required for custom events"

    /// The event to queue, or nil for a manual `install`, which the SDK tracks itself. Throws
    /// ``ServiceAttributionError/invalidArgument(_:)`` for `custom` without a name: a
    /// programming error, seen at once.
    static func create(
        _ type: EventType,
        name: String?,
        parameters: [String: Any]?,
        time: Date,
        customerUserId: String?,
        anonymous: Bool? = nil,
        log: Logger
    ) throws -> Draft? {
        try checkName(type, name)
        if type == .install {
            log.info("INSTALL is tracked by the SDK itself: this event is not sent")
            return nil
        }
        let cleaned = Parameters.clean(parameters)
        if !cleaned.dropped.isEmpty {
            log.warn("\(type.rawValue): values JSON cannot hold were left out: \(cleaned.dropped.joined(separator: ", "))")
        }
        return Draft(
            eventId: UUID().uuidString.lowercased(),
            type: type,
            // A standard event's name means nothing to the service: it is not sent.
            name: type == .custom ? name : nil,
            parameters: cleaned.parameters,
            time: time,
            customerUserId: anonymous == true ? nil : customerUserId,
            anonymous: anonymous
        )
    }

    static func checkName(_ type: EventType, _ name: String?) throws {
        if type == .custom && (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ServiceAttributionError.invalidArgument(customNameRule)
        }
    }

    /// A draft as the SDK keeps it on the device until a configuration of the service's says how
    /// to protect its parameters: as sendEvent took it, parameters neither hashed nor sealed yet,
    /// with its customer user id and the anonymous mode it was taken in.
    static func json(_ draft: Draft) -> JSONValue {
        return .object([
            "event_id": .string(draft.eventId),
            "event_type": .string(draft.type.rawValue),
            "event_name": draft.name.map(JSONValue.string) ?? .null,
            "parameters": .object(draft.parameters),
            "event_time": .string(Requests.iso(draft.time)),
            "customer_user_id": draft.customerUserId.map(JSONValue.string) ?? .null,
            "anonymous": draft.anonymous.map(JSONValue.bool) ?? .null,
        ])
    }

    /// A draft kept on the device (``json(_:)``), read back; nil for a value of another shape.
    static func parse(_ value: JSONValue) -> Draft? {
        guard let object = value.objectValue,
              let eventId = object["event_id"]?.stringValue, !eventId.isEmpty,
              let type = object["event_type"]?.stringValue.flatMap({ EventType(rawValue: $0) }),
              let time = object["event_time"]?.stringValue.flatMap({ Requests.date($0) }),
              let parameters = (object["parameters"] ?? .object([:])).objectValue else { return nil }
        return Draft(
            eventId: eventId,
            type: type,
            name: object["event_name"]?.stringValue,
            parameters: parameters,
            time: time,
            customerUserId: object["customer_user_id"]?.stringValue,
            anonymous: object["anonymous"]?.boolValue
        )
    }
}

/// Device signals as the install's schema takes them: a value the schema would refuse costs
/// only itself, never the install (a time zone such as `GMT+01:00` is no IANA name, a locale
/// with `@rg=` no BCP 47 tag).
enum Fields {
    static let locale = try! NSRegularExpression(pattern: "^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
    static let timezone = try! NSRegularExpression(pattern: "^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$")
    static let uuid = try! NSRegularExpression(
        pattern: "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
    )

    /// Trimmed, nil when empty, cut to `max` UTF-16 units (the service counts as JavaScript does)
    /// without splitting a character.
    static func text(_ value: String?, max: Int) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        if trimmed.utf16.count <= max { return trimmed }
        var out = ""
        var units = 0
        for character in trimmed {
            let size = String(character).utf16.count
            if units + size > max { break }
            out.append(character)
            units += size
        }
        return out.isEmpty ? nil : out
    }

    static func matching(_ value: String?, _ pattern: NSRegularExpression, max: Int) -> String? {
        guard let value = value, value.utf16.count <= max else { return nil }
        let range = NSRange(value.startIndex..<value.endIndex, in: value)
        return pattern.firstMatch(in: value, options: [], range: range) == nil ? nil : value
    }

    /// A customer user id the service takes (sdk/conformance/customer-user-ids.json); blank is no id.
    static func customerUserId(_ value: String?) -> String? {
        guard let value = value, !isBlank(value), customerUserIdProblem(value) == nil else { return nil }
        return value
    }

    /// Why the service would refuse `value` as a customer user id, and every event and the
    /// install that carry it: more than 256 characters (Unicode scalars), a control character (a
    /// line break typed with it). Nil when it takes it, and for no id (nil or blank).
    static func customerUserIdProblem(_ value: String?) -> String? {
        guard let value = value, !isBlank(value) else { return nil }
        if value.unicodeScalars.count > 256 { return "has more than 256 characters" }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character"
        }
        return nil
    }

    private static func isBlank(_ value: String) -> Bool {
        value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// A device id the service takes (a UUID), nil for anything else and for the all-zero id
    /// the OS hands out without consent.
    static func deviceId(_ value: String?) -> String? {
        guard let id = matching(value, uuid, max: 36) else { return nil }
        return id.allSatisfy({ $0 == "0" || $0 == "-" }) ? nil : id
    }
}

/// The bodies of POST /v1/installs, of each event of POST /v1/events
/// (sdk/conformance/requests.json) and of each session of POST /v1/sessions (sessions.json).
enum Requests {
    static let sdkPlatform = "ios"
    static let sdkVersion = "1.0.0"
    static let attStatuses: Set<String> = ["authorized", "denied", "restricted", "not_determined"]

    private static let isoFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    /// What the install report is made of, read on the worker queue.
    struct InstallInput {
        var serviceId: String
        var firstOpen: Date
        /// The clock when the report goes out, set again on each attempt: with it the service
        /// reads `first_open_time` on its own clock, however wrong the device's is.
        var sentAt = Date()
        var osVersion: String?
        var deviceModel: String?
        var appVersion: String?
        var locale: String?
        var timezone: String?
        var identifierForVendor: String?
        var advertisingIdentifier: String?
        var trackingAuthorizationStatus: String?
        var platformAdsToken: String?
        var openURL: String?
        var customerUserId: String?
        /// The `consent` object (``Requests/consent(_:tcString:tcfGdprApplies:)``); nil sends none.
        var consent: JSONValue?
        /// Anonymous mode: no IDFA, IDFV or customer user id in the report.
        var anonymous = false
        var sdkPlatform: String = Requests.sdkPlatform
        var sdkVersion: String = Requests.sdkVersion
    }

    static func install(_ input: InstallInput) -> JSONValue {
        let device = tracking(input).objectValue
        var body: [String: JSONValue] = [
            "service_id": .string(input.serviceId),
            "os": .string("ios"),
            "os_version": optional(Fields.text(input.osVersion, max: 64)),
            "device_model": optional(Fields.text(input.deviceModel, max: 64)),
            "app_version": optional(Fields.text(input.appVersion, max: 64)),
            "sdk_platform": .string(input.sdkPlatform),
            "sdk_version": .string(input.sdkVersion),
            "first_open_time": .string(iso(input.firstOpen)),
            "sent_at": .string(iso(input.sentAt)),
            "idfv": optional(input.anonymous ? nil : Fields.deviceId(input.identifierForVendor)),
            "maid": device?["maid"] ?? .null,
            "install_referrer": .null,
            "att_status": device?["att_status"] ?? .null,
            "platform_ads_token": optional(input.platformAdsToken.flatMap { $0.isEmpty || $0.utf16.count > 8_192 ? nil : $0 }),
            "open_url": optional(input.openURL.flatMap { $0.utf16.count > 2_048 ? nil : $0 }),
            "customer_user_id": optional(input.anonymous ? nil : Fields.customerUserId(input.customerUserId)),
            "locale": optional(Fields.matching(input.locale, Fields.locale, max: 35)),
            "timezone": optional(Fields.matching(input.timezone, Fields.timezone, max: 64)),
        ]
        if let consent = input.consent { body["consent"] = consent }
        // The install says so: its postbacks then name no address or user agent.
        if input.anonymous { body["anonymous"] = .bool(true) }
        return .object(body)
    }

    /// The device's tracking as the install reports it (its `maid` and `att_status`), and as
    /// every consent update carries it (`device`): ATT's status, and the IDFA only with the
    /// user's consent, ATT's `authorized`, never in anonymous mode.
    static func tracking(_ input: InstallInput) -> JSONValue {
        return tracking(attStatus: input.trackingAuthorizationStatus, idfa: input.advertisingIdentifier, anonymous: input.anonymous)
    }

    static func tracking(attStatus: String?, idfa: String?, anonymous: Bool) -> JSONValue {
        let att = attStatus.flatMap { attStatuses.contains($0) ? $0 : nil }
        let maid = att == "authorized" && !anonymous ? Fields.deviceId(idfa) : nil
        return .object(["maid": optional(maid), "att_status": optional(att)])
    }

    /// The longest TCF string the service takes; a longer one is left out rather than cost the
    /// request.
    static let maxTcfStringLength = 4_096

    /// The `consent` object of the install and of the consent update: what the app set, with
    /// `gdpr_applies` from the consent platform's `IABTCF_gdprApplies` when the app did not say,
    /// and the platform's TCF string. Nil when nothing at all is known.
    static func consent(_ app: ServiceConsent?, tcString: String?, tcfGdprApplies: Bool?) -> JSONValue? {
        let tcf = tcString.flatMap { $0.isEmpty || $0.utf16.count > maxTcfStringLength ? nil : $0 }
        let gdprApplies = app?.gdprApplies ?? tcfGdprApplies
        if gdprApplies == nil && app?.adUserData == nil && app?.adPersonalization == nil && tcf == nil { return nil }
        return .object([
            "gdpr_applies": flag(gdprApplies),
            "ad_user_data": flag(app?.adUserData),
            "ad_personalization": flag(app?.adPersonalization),
            "tcf_string": optional(tcf),
        ])
    }

    /// The install with nothing but what the SDK itself makes: sent once when the service
    /// refused the full report for good, so a device signal it does not take never costs the
    /// install and every event after it. A first open ahead of the clock is the clock's now.
    static func minimalInstall(_ input: InstallInput) -> JSONValue {
        var body: [String: JSONValue] = [
            "service_id": .string(input.serviceId),
            "os": .string("ios"),
            "sdk_platform": .string(input.sdkPlatform),
            "sdk_version": .string(input.sdkVersion),
            "first_open_time": .string(iso(min(input.firstOpen, input.sentAt))),
            "sent_at": .string(iso(input.sentAt)),
        ]
        if input.anonymous { body["anonymous"] = .bool(true) }
        return .object(body)
    }

    /// An event as it is queued; anonymous mode leaves out the customer user id and marks the
    /// event `anonymous`. The mark stays with the event in the queue, across launches, so that
    /// it still goes with it once anonymous mode is off when it is sent.
    static func event(_ draft: Draft, parameters: [String: JSONValue], serviceId: String, anonymous: Bool = false) -> JSONValue {
        var event: [String: JSONValue] = [
            "event_id": .string(draft.eventId),
            "event_type": .string(draft.type.rawValue),
            "event_name": optional(draft.name),
            "parameters": parameters.isEmpty ? .null : .object(parameters),
            "event_time": .string(iso(draft.time)),
            "service_id": .string(serviceId),
            "customer_user_id": optional(anonymous ? nil : draft.customerUserId),
        ]
        // The missing id alone would not tell the service to leave out the install's device
        // ids too; only an anonymous event has the key (sdk/conformance/requests.json).
        if anonymous { event["anonymous"] = .bool(true) }
        return .object(event)
    }

    /// A session as it is queued (sdk/conformance/sessions.json): its own fresh id, the install,
    /// and the device clock when it started. Anonymous mode changes nothing: a session carries no
    /// id of the user or the device.
    static func session(id: String, serviceId: String, startedAt: Date) -> JSONValue {
        return .object([
            "session_id": .string(id),
            "service_id": .string(serviceId),
            "started_at": .string(iso(startedAt)),
        ])
    }

    /// A queued event as anonymous mode sends it: without its customer user id and marked
    /// `anonymous`, whenever it was queued (one queued before the mode went on included).
    static func anonymized(_ event: JSONValue) -> JSONValue {
        guard var object = event.objectValue else { return event }
        object["customer_user_id"] = .null
        object["anonymous"] = .bool(true)
        return .object(object)
    }

    /// `items` with a `timeField` after `sentAt` moved back to it. The device clock went back
    /// since the item was made (a clock set days ahead, put right while the item waited
    /// offline): it happened before it left, and the service refuses an item more than 24 hours
    /// after its request's `sent_at`, which would lose it. Kept on the device as made.
    static func notAfter(_ items: [JSONValue], _ timeField: String, sentAt: Date) -> [JSONValue] {
        return items.map { item in
            guard var object = item.objectValue,
                  let text = object[timeField]?.stringValue,
                  let time = date(text), time > sentAt else { return item }
            object[timeField] = .string(iso(sentAt))
            return .object(object)
        }
    }

    /// An ISO 8601 time as ``iso(_:)`` writes it, also without milliseconds.
    static func date(_ text: String) -> Date? {
        return isoFormatter.date(from: text) ?? plainIsoFormatter.date(from: text)
    }

    private static let plainIsoFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    /// ISO 8601 in UTC with milliseconds and `Z`.
    static func iso(_ date: Date) -> String {
        return isoFormatter.string(from: date)
    }

    private static func flag(_ value: Bool?) -> JSONValue {
        guard let value = value else { return .null }
        return .bool(value)
    }

    private static func optional(_ value: String?) -> JSONValue {
        guard let value = value else { return .null }
        return .string(value)
    }
}
