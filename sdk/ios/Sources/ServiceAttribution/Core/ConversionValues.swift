import Foundation

// The app's conversion value schema (remote configuration's `skadnetwork`) evaluated on the
// device, event by event, as the service's reference does (src/skadnetwork/conversion-evaluation.ts;
// sdk/conformance/conversion-values.json holds the cases): the install's first open starts the
// clock, an event falls in the window of its time since then, each window keeps its counts,
// USD revenue and parameters reached, and Apple is asked for an update only when the fine or
// the coarse value rises or the window becomes locked. Nothing here ever lowers a value:
// SKAdNetwork 4 would take a lower one, but a later event never undoes an earlier one's worth.

/// SKAdNetwork's and AdAttributionKit's coarse conversion values, lowest first.
enum CoarseValue: String, CaseIterable, Equatable {
    case low
    case medium
    case high

    var rank: Int {
        switch self {
        case .low: return 0
        case .medium: return 1
        case .high: return 2
        }
    }
}

/// One rule of a window: an event, how often it happened in the window, its revenue there in
/// USD, or a numeric parameter one occurrence reached; what meeting it is worth; whether it
/// locks the window.
struct ConversionRule: Equatable {
    /// USD from `min` (included) to `max` (excluded; nil: no upper bound).
    struct RevenueRange: Equatable {
        let min: Double
        let max: Double?
    }

    /// One occurrence's parameter `name` at least `atLeast`.
    struct Threshold: Equatable {
        let name: String
        let atLeast: Double
    }

    /// The event as the export names it (`service_purchase`).
    let event: String
    let minCount: Int
    let revenueUsd: RevenueRange?
    let parameter: Threshold?
    /// The fine value, 0 to 63; read in the first window only.
    let fine: Int?
    let coarse: CoarseValue
    let lock: Bool

    /// A rule as the service writes it (src/skadnetwork/conversion-schema.ts), its defaults
    /// applied; nil for one this SDK cannot evaluate.
    static func parse(_ value: JSONValue) -> ConversionRule? {
        guard let object = value.objectValue,
              let event = object["event"]?.stringValue,
              let coarse = object["coarse"]?.stringValue.flatMap(CoarseValue.init(rawValue:)) else { return nil }
        var minCount = 1
        if let count = present(object["min_count"]) {
            guard let parsed = count.int64Value, parsed >= 1 else { return nil }
            minCount = Int(clamping: parsed)
        }
        var revenueUsd: RevenueRange?
        if let range = present(object["revenue_usd"]) {
            guard let members = range.objectValue else { return nil }
            var low = 0.0
            if let value = present(members["min"]) {
                guard let number = value.numberValue else { return nil }
                low = number
            }
            var high: Double?
            if let value = present(members["max"]) {
                guard let number = value.numberValue else { return nil }
                high = number
            }
            revenueUsd = RevenueRange(min: low, max: high)
        }
        var parameter: Threshold?
        if let threshold = present(object["parameter"]) {
            guard let name = threshold.objectValue?["name"]?.stringValue,
                  let atLeast = threshold.objectValue?["at_least"]?.numberValue else { return nil }
            parameter = Threshold(name: name, atLeast: atLeast)
        }
        var fine: Int?
        if let value = present(object["fine"]) {
            guard let parsed = value.int64Value, (0...63).contains(parsed) else { return nil }
            fine = Int(parsed)
        }
        var lock = false
        if let value = present(object["lock"]) {
            guard let parsed = value.boolValue else { return nil }
            lock = parsed
        }
        return ConversionRule(
            event: event, minCount: minCount, revenueUsd: revenueUsd, parameter: parameter,
            fine: fine, coarse: coarse, lock: lock
        )
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "event": .string(event),
            "min_count": .int(Int64(minCount)),
            "coarse": .string(coarse.rawValue),
            "lock": .bool(lock),
        ]
        if let range = revenueUsd {
            var members: [String: JSONValue] = ["min": .double(range.min)]
            if let max = range.max { members["max"] = .double(max) }
            object["revenue_usd"] = .object(members)
        }
        if let threshold = parameter {
            object["parameter"] = .object(["name": .string(threshold.name), "at_least": .double(threshold.atLeast)])
        }
        if let value = fine { object["fine"] = .int(Int64(value)) }
        return .object(object)
    }

    /// A member that is there and not null.
    private static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value = value, value != .null else { return nil }
        return value
    }
}

/// Remote configuration's `skadnetwork`: the schema's version, its three windows' rules, and
/// the rates that turn revenue into USD.
struct ConversionSchema: Equatable {
    /// Made by the service at each save: a new one means new rules, never new values.
    let version: Int64
    /// The rules of the windows [0, 48), [48, 168) and [168, 840) hours after the first open.
    let windows: [[ConversionRule]]
    /// USD of one unit of each currency, by its upper-case ISO 4217 code.
    let usdRates: [String: Double]

    /// The schema of remote configuration, or nil for none (`null`) and for one this SDK
    /// cannot evaluate. The service checks every schema before it saves it, so the second
    /// means a shape newer than this SDK: nothing is evaluated rather than a part of it.
    static func parse(_ value: JSONValue?) -> ConversionSchema? {
        guard let object = value?.objectValue,
              let version = object["version"]?.int64Value,
              let windows = object["windows"].flatMap(ConversionSchema.windows(from:)) else { return nil }
        let rates = object["usd_rates"].map(ConversionSchema.rates(from:)) ?? [:]
        return ConversionSchema(version: version, windows: windows, usdRates: rates)
    }

    /// The three windows' rules (`[{"rules": [...]}, {...}, {...}]`), or nil.
    static func windows(from value: JSONValue) -> [[ConversionRule]]? {
        guard let list = value.arrayValue, list.count == ConversionEvaluation.windows.count else { return nil }
        var windows: [[ConversionRule]] = []
        for window in list {
            guard let rules = window.objectValue?["rules"]?.arrayValue else { return nil }
            var parsed: [ConversionRule] = []
            for rule in rules {
                guard let one = ConversionRule.parse(rule) else { return nil }
                parsed.append(one)
            }
            windows.append(parsed)
        }
        return windows
    }

    /// Rates by upper-case code; a code whose rate is not a positive number is left out (its
    /// revenue then adds nothing, as a currency without a rate).
    static func rates(from value: JSONValue) -> [String: Double] {
        var rates: [String: Double] = [:]
        for (code, rate) in value.objectValue ?? [:] {
            if let number = rate.numberValue, number.isFinite, number > 0 { rates[code.uppercased()] = number }
        }
        return rates
    }

    var json: JSONValue {
        return .object([
            "version": .int(version),
            "windows": .array(windows.map { rules in JSONValue.object(["rules": .array(rules.map { $0.json })]) }),
            "usd_rates": .object(usdRates.mapValues { JSONValue.double($0) }),
        ])
    }
}

/// An event as the evaluation sees it.
struct ConversionEvent: Equatable {
    struct Revenue: Equatable {
        let amount: Double
        let currency: String
    }

    /// An event's `revenue` and `currency` as the service reads them.
    enum RevenueReading: Equatable {
        /// No revenue: none sent, or no currency named as text (a guessed one would be a wrong figure).
        case noRevenue
        case revenue(Revenue)
        /// The service refuses the whole event for its revenue.
        case refused
    }

    /// The largest revenue the service takes, either way (src/ingest/limits.ts, maxRevenueAmount).
    static let maxRevenueAmount: Double = 1_000_000_000_000

    /// The export's `event_name` (`service_purchase`).
    let name: String
    /// Hours since the install's first open.
    let hoursAfterInstall: Double
    let revenue: Revenue?
    /// The event's numeric parameters (booleans, strings and nested values are none).
    let parameters: [String: Double]
    /// The service refuses the whole event for its revenue: it never counts there, so it counts
    /// for nothing here either.
    let refused: Bool

    /// An event the app sent, as the service will read it: named as the export names it, its
    /// revenue read as the service reads it (``readRevenue(_:)``). An event timed before the
    /// first open (sent before `configure` on the first launch) counts at the first open.
    init(_ draft: Draft, firstOpen: Date) {
        name = EventNames.exportName(draft.type, name: draft.name)
        hoursAfterInstall = max(0, draft.time.timeIntervalSince(firstOpen) / 3600)
        var numbers: [String: Double] = [:]
        for (key, value) in draft.parameters {
            if let number = value.numberValue, number.isFinite { numbers[key] = number }
        }
        parameters = numbers
        switch ConversionEvent.readRevenue(draft.parameters) {
        case let .revenue(read):
            revenue = read
            refused = false
        case .noRevenue:
            revenue = nil
            refused = false
        case .refused:
            revenue = nil
            refused = true
        }
    }

    init(name: String, hoursAfterInstall: Double, revenue: Revenue?, parameters: [String: Double], refused: Bool = false) {
        self.name = name
        self.hoursAfterInstall = hoursAfterInstall
        self.revenue = revenue
        self.parameters = parameters
        self.refused = refused
    }

    private static let decimal = try! NSRegularExpression(pattern: "^[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)$")

    /// `revenue` and `currency` as the service reads them (readRevenue in src/ingest/revenue.ts):
    /// refused for a value that is no finite number or plain decimal string (`"1,000"`,
    /// `"$4.99"`, a boolean) or one past a trillion either way, with a currency or without;
    /// otherwise the amount with the currency as given, or none without a currency as text.
    static func readRevenue(_ parameters: [String: JSONValue]) -> RevenueReading {
        // A null value is never sent: no revenue.
        guard let value = parameters["revenue"], value != .null else { return .noRevenue }
        guard let amount = amount(value), abs(amount) <= maxRevenueAmount else { return .refused }
        guard let currency = parameters["currency"]?.stringValue else { return .noRevenue }
        return .revenue(Revenue(amount: amount, currency: currency))
    }

    /// A finite number, or a plain decimal string (`"9.99"`) trimmed as the service trims it.
    private static func amount(_ value: JSONValue) -> Double? {
        if let number = value.numberValue { return number.isFinite ? number : nil }
        guard let text = value.stringValue?.trimmedAsService,
              decimal.firstMatch(in: text, options: [], range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil,
              let number = Double(text), number.isFinite else { return nil }
        return number
    }
}

/// One update to ask Apple for: the window the event fell in, its values, whether to lock it.
struct ConversionCall: Equatable {
    let window: Int
    /// The first window's fine value; nil in later windows, where Apple reads the coarse one.
    let fine: Int?
    let coarse: CoarseValue
    let lock: Bool
}

/// What one window has seen, and the values it set.
struct ConversionWindowState: Equatable {
    /// Per event name, how often it happened in the window.
    var counts: [String: Int] = [:]
    /// Per event name, its revenue in the window, in USD.
    var revenueUsd: [String: Double] = [:]
    /// Per event name, the highest value each numeric parameter reached.
    var parameters: [String: [String: Double]] = [:]
    var fine: Int?
    var coarse: CoarseValue?
    var locked = false
}

/// The install's evaluation, kept on the device with the SDK's other state.
struct ConversionState: Equatable {
    var windows = [ConversionWindowState](repeating: ConversionWindowState(), count: ConversionEvaluation.windows.count)
    /// Apple was told of the install's first launch (or given a value, which tells it too).
    var registered = false

    var json: JSONValue {
        return .object([
            "registered": .bool(registered),
            "windows": .array(windows.map { (window) -> JSONValue in
                var object: [String: JSONValue] = [
                    "counts": .object(window.counts.mapValues { JSONValue.int(Int64($0)) }),
                    "revenue_usd": .object(window.revenueUsd.mapValues { JSONValue.double($0) }),
                    "parameters": .object(window.parameters.mapValues { reached in
                        JSONValue.object(reached.mapValues { JSONValue.double($0) })
                    }),
                    "locked": .bool(window.locked),
                ]
                if let fine = window.fine { object["fine"] = .int(Int64(fine)) }
                if let coarse = window.coarse { object["coarse"] = .string(coarse.rawValue) }
                return JSONValue.object(object)
            }),
        ])
    }

    /// The state as `json` wrote it; nil for anything else.
    static func parse(_ text: String) -> ConversionState? {
        guard let object = (try? JSONValue.parse(text))?.objectValue,
              let list = object["windows"]?.arrayValue, list.count == ConversionEvaluation.windows.count else { return nil }
        var state = ConversionState()
        state.registered = object["registered"]?.boolValue ?? false
        for (index, value) in list.enumerated() {
            guard let members = value.objectValue else { return nil }
            var window = ConversionWindowState()
            for (name, count) in members["counts"]?.objectValue ?? [:] {
                if let number = count.int64Value { window.counts[name] = Int(clamping: number) }
            }
            for (name, usd) in members["revenue_usd"]?.objectValue ?? [:] {
                if let number = usd.numberValue { window.revenueUsd[name] = number }
            }
            for (name, reached) in members["parameters"]?.objectValue ?? [:] {
                var values: [String: Double] = [:]
                for (parameter, value) in reached.objectValue ?? [:] {
                    if let number = value.numberValue { values[parameter] = number }
                }
                window.parameters[name] = values
            }
            window.fine = members["fine"]?.int64Value.map { Int(clamping: $0) }
            window.coarse = members["coarse"]?.stringValue.flatMap(CoarseValue.init(rawValue:))
            window.locked = members["locked"]?.boolValue ?? false
            state.windows[index] = window
        }
        return state
    }
}

/// The evaluation's one step, which the SDK repeats on every event it takes.
enum ConversionEvaluation {
    /// Apple's three conversion windows, in hours since the install's first open: [from, to).
    static let windows: [(from: Double, to: Double)] = [(0, 48), (48, 168), (168, 840)]

    /// The window of an event this many hours after the first open; nil past the last.
    static func window(ofHours hours: Double) -> Int? {
        return windows.firstIndex { hours >= $0.from && hours < $0.to }
    }

    /// The state after the event, and the update it asks Apple for (nil when none). Every rule
    /// the window now meets counts: the fine value is the highest of theirs, the coarse value
    /// the highest, and a lock rule among them locks the window.
    static func evaluate(
        _ rules: [[ConversionRule]],
        _ state: ConversionState,
        _ event: ConversionEvent,
        rates: [String: Double]
    ) -> (state: ConversionState, call: ConversionCall?) {
        if event.refused { return (state, nil) }
        guard let index = window(ofHours: event.hoursAfterInstall), index < state.windows.count else { return (state, nil) }
        let before = state.windows[index]
        // A locked window takes nothing more: its postback is on its way.
        if before.locked { return (state, nil) }

        var current = before
        current.counts[event.name, default: 0] += 1
        var usd = 0.0
        // The code as the service records it, trimmed and in upper case: " usd " is USD.
        if let revenue = event.revenue, let rate = rates[revenue.currency.trimmedAsService.uppercased()] {
            usd = revenue.amount * rate
        }
        current.revenueUsd[event.name, default: 0] += usd
        if !event.parameters.isEmpty {
            var reached = current.parameters[event.name] ?? [:]
            for (name, value) in event.parameters {
                reached[name] = Swift.max(reached[name] ?? value, value)
            }
            current.parameters[event.name] = reached
        }

        let met = (index < rules.count ? rules[index] : []).filter { meets($0, current) }
        var fine = before.fine
        var coarse = before.coarse
        for rule in met {
            if index == 0, let value = rule.fine, fine.map({ value > $0 }) ?? true {
                fine = value
            }
            if coarse.map({ rule.coarse.rank > $0.rank }) ?? true {
                coarse = rule.coarse
            }
        }
        let lock = met.contains { $0.lock }
        let rose = fine != before.fine || coarse != before.coarse
        current.fine = fine
        current.coarse = coarse
        current.locked = lock
        var next = state
        next.windows[index] = current
        guard rose || lock, let value = coarse else { return (next, nil) }
        next.registered = true
        return (next, ConversionCall(window: index, fine: index == 0 ? fine : nil, coarse: value, lock: lock))
    }

    private static func meets(_ rule: ConversionRule, _ window: ConversionWindowState) -> Bool {
        if window.counts[rule.event, default: 0] < rule.minCount { return false }
        if let range = rule.revenueUsd {
            let revenue = window.revenueUsd[rule.event, default: 0]
            if revenue < range.min { return false }
            if let max = range.max, revenue >= max { return false }
        }
        if let threshold = rule.parameter {
            guard let reached = window.parameters[rule.event]?[threshold.name], reached >= threshold.atLeast else {
                return false
            }
        }
        return true
    }
}

/// The export's `event_name` of an event (sdk/conformance/event-types.json), which the schema's
/// rules name: `service_` and the type in lower snake case, a custom event's own name for
/// `custom`. The service's rule (src/domain/event-types.ts): letters and digits of every script
/// kept, a lower-case letter or digit followed by a capital split, every other run of
/// characters one `_`, NFC first.
enum EventNames {
    private static let caseBreak = try! NSRegularExpression(pattern: "([\\p{Ll}\\p{N}])(\\p{Lu})")
    private static let separators = try! NSRegularExpression(pattern: "[^\\p{L}\\p{M}\\p{N}]+")
    private static let edges = try! NSRegularExpression(pattern: "^_+|_+$")

    static func exportName(_ type: EventType, name: String?) -> String {
        if type == .custom, let name = name, !name.isEmpty { return "service_" + snakeCase(name) }
        return "service_" + snakeCase(type.rawValue)
    }

    static func snakeCase(_ value: String) -> String {
        var text = value.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        text = replacing(caseBreak, in: text, with: "$1_$2")
        text = replacing(separators, in: text, with: "_")
        text = replacing(edges, in: text, with: "")
        return text.lowercasedAsService
    }

    private static func replacing(_ pattern: NSRegularExpression, in text: String, with template: String) -> String {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return pattern.stringByReplacingMatches(in: text, options: [], range: range, withTemplate: template)
    }
}

extension JSONValue {
    /// A number as a double, an integer's too; nil for anything else.
    var numberValue: Double? {
        switch self {
        case let .int(value): return Double(value)
        case let .double(value): return value
        default: return nil
        }
    }
}
