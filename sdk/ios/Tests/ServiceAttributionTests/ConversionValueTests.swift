import Foundation
import XCTest
@testable import ServiceAttribution

/// The conversion value schema on the device: every case of sdk/conformance/conversion-values.json
/// against the evaluation, and again through the events the app sends; the export names the
/// rules use (event-types.json); and the core: the schema from remote configuration, the
/// windows' state kept across launches, a new version's rules, the first launch registered
/// once (with a schema or without), Apple's refusals on the error listener, nothing while stopped.
final class ConversionValueTests: XCTestCase {
    private static func vectors() throws -> [String: JSONValue] {
        return try XCTUnwrap(JSONValue(foundation: try Vectors.conformance("conversion-values.json"))?.objectValue)
    }

    private static func rates() throws -> [String: Double] {
        return ConversionSchema.rates(from: try XCTUnwrap(try vectors()["rates"]))
    }

    /// A named schema's windows as the vectors write them.
    private static func windows(_ name: String) throws -> JSONValue {
        return try XCTUnwrap(try vectors()["schemas"]?.objectValue?[name]?.objectValue?["windows"], name)
    }

    private static func event(_ value: JSONValue) throws -> ConversionEvent {
        let object = try XCTUnwrap(value.objectValue)
        var revenue: ConversionEvent.Revenue?
        var refused = false
        if let members = object["revenue"]?.objectValue {
            // The amount as the app passes it (a number or a string), read as the service reads it.
            let given: [String: JSONValue] = [
                "revenue": try XCTUnwrap(members["amount"]),
                "currency": try XCTUnwrap(members["currency"]),
            ]
            switch ConversionEvent.readRevenue(given) {
            case let .revenue(read): revenue = read
            case .noRevenue: revenue = nil
            case .refused: refused = true
            }
        }
        var parameters: [String: Double] = [:]
        for (key, member) in object["parameters"]?.objectValue ?? [:] {
            if let number = member.numberValue { parameters[key] = number }
        }
        return ConversionEvent(
            name: try XCTUnwrap(object["name"]?.stringValue),
            hoursAfterInstall: try XCTUnwrap(object["hours_after_install"]?.numberValue),
            revenue: revenue,
            parameters: parameters,
            refused: refused
        )
    }

    /// A vector's expected call; nil for `null`.
    private static func call(_ value: JSONValue) throws -> ConversionCall? {
        guard let object = value.objectValue else { return nil }
        return ConversionCall(
            window: Int(try XCTUnwrap(object["window"]?.int64Value)),
            fine: object["fine"]?.int64Value.map { Int($0) },
            coarse: try XCTUnwrap(object["coarse"]?.stringValue.flatMap(CoarseValue.init(rawValue:))),
            lock: try XCTUnwrap(object["lock"]?.boolValue)
        )
    }

    /// Runs every case; `evaluate` gives the call each event makes from the state before it.
    private func runCases(
        _ evaluate: ([[ConversionRule]], ConversionState, JSONValue) throws -> (state: ConversionState, call: ConversionCall?)
    ) throws {
        let cases = try XCTUnwrap(try ConversionValueTests.vectors()["cases"]?.arrayValue)
        XCTAssertGreaterThan(cases.count, 0)
        for testCase in cases {
            let object = try XCTUnwrap(testCase.objectValue)
            let name = object["name"]?.stringValue ?? "?"
            let schema = try XCTUnwrap(object["schema"]?.stringValue, name)
            let rules = try XCTUnwrap(ConversionSchema.windows(from: try ConversionValueTests.windows(schema)), name)
            let events = try XCTUnwrap(object["events"]?.arrayValue, name)
            let expected = try XCTUnwrap(object["calls"]?.arrayValue, name)
            XCTAssertEqual(events.count, expected.count, name)
            var state = ConversionState()
            for (index, event) in events.enumerated() {
                let step = try evaluate(rules, state, event)
                XCTAssertEqual(step.call, try ConversionValueTests.call(expected[index]), "\(name), event \(index)")
                // Kept on the device and read back at the next launch, the state is the same.
                XCTAssertEqual(ConversionState.parse(step.state.json.text), step.state, "\(name), event \(index)")
                state = step.state
            }
        }
    }

    // MARK: - conversion-values.json

    func testEveryCaseOfTheVectors() throws {
        let rates = try ConversionValueTests.rates()
        try runCases { rules, state, event in
            ConversionEvaluation.evaluate(rules, state, try ConversionValueTests.event(event), rates: rates)
        }
    }

    /// The same cases through what the app hands sendEvent: a standard type where the export
    /// name is one, a custom event otherwise; revenue and currency as parameters; the event's
    /// time that many hours after the first open.
    func testEveryCaseThroughTheEventsTheAppSends() throws {
        let rates = try ConversionValueTests.rates()
        let firstOpen = Harness.epoch
        let log = Logger(sink: nil, level: .none)
        try runCases { rules, state, value in
            let object = try XCTUnwrap(value.objectValue)
            let exported = try XCTUnwrap(object["name"]?.stringValue)
            let standard = EventType.allCases.first { $0 != .custom && EventNames.exportName($0, name: nil) == exported }
            var parameters: [String: Any] = [:]
            for (key, member) in object["parameters"]?.objectValue ?? [:] { parameters[key] = member.foundationValue }
            if let revenue = object["revenue"]?.objectValue {
                parameters["revenue"] = revenue["amount"]?.foundationValue
                parameters["currency"] = revenue["currency"]?.foundationValue
            }
            let hours = try XCTUnwrap(object["hours_after_install"]?.numberValue)
            let draft = try XCTUnwrap(try Drafts.create(
                standard ?? .custom,
                name: standard == nil ? String(exported.dropFirst("service_".count)) : nil,
                parameters: parameters,
                time: firstOpen.addingTimeInterval(hours * 3600),
                customerUserId: nil,
                log: log
            ))
            let event = ConversionEvent(draft, firstOpen: firstOpen)
            XCTAssertEqual(event.name, exported)
            return ConversionEvaluation.evaluate(rules, state, event, rates: rates)
        }
    }

    /// AdAttributionKit's updates are asynchronous: each waits for the one before, so a lower
    /// value never lands after a higher one, nor an update after the lock.
    func testAsynchronousUpdatesRunInTheOrderTheyWereMade() {
        let tasks = SerialTasks()
        let order = RecordingLog()
        let secondStarted = DispatchSemaphore(value: 0)
        let done = expectation(description: "both ran")
        done.expectedFulfillmentCount = 2
        tasks.run {
            // The first update is slow: the second, made after it, may not overtake it.
            let overtaken = secondStarted.wait(timeout: .now() + 0.5) == .success
            order.write(.info, overtaken ? "second overtook the first" : "first")
            done.fulfill()
        }
        tasks.run {
            secondStarted.signal()
            order.write(.info, "second")
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order.messages(.info), ["first", "second"])
    }

    func testTheWindowsAreApplesInHoursSinceTheFirstOpen() {
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 0), 0)
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 47.99), 0)
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 48), 1)
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 167.99), 1)
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 168), 2)
        XCTAssertEqual(ConversionEvaluation.window(ofHours: 839.99), 2)
        XCTAssertNil(ConversionEvaluation.window(ofHours: 840))
    }

    func testRevenueIsReadAsTheServiceReadsIt() throws {
        let log = Logger(sink: nil, level: .none)
        func revenue(_ parameters: [String: Any]) throws -> ConversionEvent.Revenue? {
            let draft = try XCTUnwrap(try Drafts.create(.purchase, name: nil, parameters: parameters, time: Harness.epoch, customerUserId: nil, log: log))
            return ConversionEvent(draft, firstOpen: Harness.epoch).revenue
        }
        XCTAssertEqual(try revenue(["revenue": 9.99, "currency": "EUR"]), ConversionEvent.Revenue(amount: 9.99, currency: "EUR"))
        XCTAssertEqual(try revenue(["revenue": "4.50", "currency": "USD"]), ConversionEvent.Revenue(amount: 4.5, currency: "USD"))
        XCTAssertEqual(try revenue(["revenue": 3, "currency": "usd"]), ConversionEvent.Revenue(amount: 3, currency: "usd"))
        // No currency, no revenue: a guessed one would be a wrong figure.
        XCTAssertNil(try revenue(["revenue": 9.99]))
        XCTAssertNil(try revenue(["revenue": "1,000", "currency": "USD"]))
        XCTAssertNil(try revenue(["revenue": "1e3", "currency": "USD"]))
    }

    func testAnEventWhoseRevenueTheServiceRefusesIsRefusedWholeAsTheServiceRefusesIt() throws {
        // readRevenue in src/ingest/revenue.ts: the service refuses the whole event for a revenue
        // that is no finite number or plain decimal string, or past a trillion either way, with a
        // currency or without; a revenue it reads needs a currency to count.
        let log = Logger(sink: nil, level: .none)
        func event(_ revenue: Any, _ currency: Any?) throws -> ConversionEvent {
            var parameters: [String: Any] = ["revenue": revenue]
            if let currency = currency { parameters["currency"] = currency }
            let draft = try XCTUnwrap(try Drafts.create(.purchase, name: nil, parameters: parameters, time: Harness.epoch, customerUserId: nil, log: log))
            return ConversionEvent(draft, firstOpen: Harness.epoch)
        }
        let refused: [Any] = [
            "1,000", "$4.99", "4,99", "1e3", "", " ", "0x10", "Infinity", "NaN", "\u{0661}", String(repeating: "9", count: 400),
            true, [1], ["amount": 1], 1_000_000_000_000.001, Int64(-2_000_000_000_000), "1000000000001",
        ]
        for value in refused {
            XCTAssertTrue(try event(value, "USD").refused, "revenue \(value)")
            XCTAssertTrue(try event(value, nil).refused, "revenue \(value) without a currency")
            XCTAssertTrue(try event(value, 978).refused, "revenue \(value) with a currency that is no text")
        }
        let taken: [Any] = [9.99, 3, "4.50", " 4.50 ", "\u{FEFF}4.50\u{00A0}", "+1.", ".5", "-1", Int64(1_000_000_000_000), -1e12, "1000000000000"]
        for value in taken {
            let read = try event(value, "USD")
            XCTAssertFalse(read.refused, "revenue \(value)")
            XCTAssertNotNil(read.revenue, "revenue \(value)")
            XCTAssertFalse(try event(value, nil).refused, "revenue \(value) without a currency")
            XCTAssertNil(try event(value, nil).revenue, "revenue \(value) without a currency")
        }
        XCTAssertEqual(ConversionEvent.readRevenue(["currency": .string("USD")]), .noRevenue)

        // A refused event counts nothing, though it alone would meet the rules.
        let rules = try XCTUnwrap(ConversionSchema.windows(from: try ConversionValueTests.windows("game")))
        var state = ConversionState()
        for _ in 0..<3 {
            let step = ConversionEvaluation.evaluate(rules, state, try event("1,000", "USD"), rates: ["USD": 1])
            XCTAssertNil(step.call)
            XCTAssertEqual(step.state, state)
            state = step.state
        }
        XCTAssertEqual(state, ConversionState())
    }

    func testACurrencyIsTrimmedAsTheServiceTrimsIt() throws {
        let rules = try XCTUnwrap(ConversionSchema.windows(from: try ConversionValueTests.windows("ranges")))
        func call(_ currency: String) -> ConversionCall? {
            let event = ConversionEvent(
                name: "service_purchase", hoursAfterInstall: 1,
                revenue: ConversionEvent.Revenue(amount: 2, currency: currency), parameters: [:]
            )
            return ConversionEvaluation.evaluate(rules, ConversionState(), event, rates: ["USD": 1]).call
        }
        // JavaScript's trim(): the byte order mark is a space to it, U+0085 is not.
        for currency in ["USD", "usd", " usd ", "\tUSD\n", "\u{FEFF}USD\u{00A0}", "\u{3000}usd\u{2029}"] {
            XCTAssertEqual(call(currency), ConversionCall(window: 0, fine: 10, coarse: .low, lock: false), currency)
        }
        XCTAssertNil(call("\u{0085}USD"))
    }

    // MARK: - event-types.json

    func testExportNamesAreTheVectorsAndTheServices() throws {
        let vectors = try Vectors.conformance("event-types.json")
        for type in try XCTUnwrap(vectors["eventTypes"] as? [[String: Any]]) {
            let wire = try XCTUnwrap(type["wire"] as? String)
            let event = try XCTUnwrap(EventType(rawValue: wire))
            XCTAssertEqual(EventNames.exportName(event, name: nil), type["exportEventName"] as? String, wire)
        }
        for custom in try XCTUnwrap(vectors["customNames"] as? [[String: Any]]) {
            let name = try XCTUnwrap(custom["name"] as? String)
            XCTAssertEqual(EventNames.exportName(.custom, name: name), custom["exportEventName"] as? String, name)
        }
        // The service's own cases (src/domain/event-types.test.ts).
        XCTAssertEqual(EventNames.exportName(.custom, name: "  --Gems  bought!! "), "service_gems_bought")
        XCTAssertEqual(EventNames.exportName(.custom, name: "Cafe\u{0301} Visit"), "service_café_visit")
        XCTAssertEqual(EventNames.exportName(.custom, name: "ÉtapeFinie"), "service_étape_finie")
        XCTAssertEqual(EventNames.exportName(.custom, name: "Straße"), "service_straße")
        XCTAssertEqual(EventNames.exportName(.custom, name: "購入 完了 1"), "service_購入_完了_1")
        XCTAssertEqual(EventNames.exportName(.levelComplete, name: "ignored"), "service_level_complete")
    }

    // MARK: - the core

    /// GET /v1/config's answer with the vectors' `game` schema (or `windows`) at `version`; with
    /// `enabled` false, one that switches the SDK off.
    private static func config(version: Int64, windows: JSONValue? = nil, enabled: Bool = true) throws -> String {
        let rules = try windows ?? ConversionValueTests.windows("game")
        let schema = JSONValue.object([
            "version": .int(version),
            "windows": rules,
            "usd_rates": .object(["EUR": .double(1.1), "USD": .int(1)]),
        ])
        return JSONValue.object([
            "enabled": .bool(enabled),
            "refresh_interval_seconds": .int(3600),
            "encryption": .object(["enabled": .bool(false)]),
            "skadnetwork": schema,
        ]).text
    }

    func testEventsMakeTheSchemasUpdatesAndTheWindowsSurviveALaunch() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "Tutorial Completion", parameters: nil))
        XCTAssertEqual(harness.conversionValues.calls, [ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)])
        // 3 EUR is 3.30 USD: the range 0.99 to 4.99.
        XCTAssertTrue(try harness.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 3, "currency": "EUR"]))
        XCTAssertEqual(harness.conversionValues.calls.last, ConversionCall(window: 0, fine: 20, coarse: .medium, lock: false))
        // A value lower than the one set makes no call.
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        XCTAssertEqual(harness.conversionValues.calls.count, 2)
        harness.eventually("the events are delivered") { harness.service.acceptedEvents.count == 3 }

        // The next launch goes on from what the first one saw: 3.30 + 2 USD is past 4.99.
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.registrations, 0, "registered once per install")
        XCTAssertTrue(try next.core.sendEvent(.purchase, name: nil, parameters: ["revenue": "2", "currency": "USD"]))
        XCTAssertEqual(next.conversionValues.calls, [ConversionCall(window: 0, fine: 40, coarse: .high, lock: false)])
        // The third purchase locks the first window; nothing more goes to it.
        XCTAssertTrue(try next.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 1, "currency": "USD"]))
        XCTAssertEqual(next.conversionValues.calls.last, ConversionCall(window: 0, fine: 63, coarse: .high, lock: true))
        XCTAssertTrue(try next.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 100, "currency": "USD"]))
        XCTAssertEqual(next.conversionValues.calls.count, 2)
        // Two days after the first open, the second window: its own counts, coarse values alone.
        next.clockOffset = 50 * 3600
        XCTAssertTrue(try next.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertTrue(try next.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(next.conversionValues.calls.last, ConversionCall(window: 1, fine: nil, coarse: .low, lock: false))
        // Past 35 days, nothing.
        next.clockOffset = 840 * 3600
        let before = next.store.get(SdkCore.Key.conversionValues)
        XCTAssertTrue(try next.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 100, "currency": "USD"]))
        XCTAssertEqual(next.conversionValues.calls.count, 3)
        XCTAssertEqual(next.store.get(SdkCore.Key.conversionValues), before)
    }

    func testANewVersionKeepsTheWindowsButEvaluatesWithItsRules() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        harness.clockOffset = 50 * 3600
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(harness.conversionValues.calls, [])

        // Version 2: one login in the second window is worth medium.
        var game = try XCTUnwrap(try ConversionValueTests.windows("game").arrayValue)
        game[1] = .object(["rules": .array([.object(["event": .string("service_login"), "coarse": .string("medium")])])])
        harness.service.config = try ConversionValueTests.config(version: 2, windows: .array(game))
        let refreshed = expectation(description: "refreshed")
        harness.core.refreshConfig { error in
            XCTAssertNil(error)
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 10)
        harness.settle()
        XCTAssertTrue(harness.log.messages(.info).contains { $0.contains("conversion value schema version 2") })
        // The login seen under version 1 still counts: this one is the second.
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(harness.conversionValues.calls, [ConversionCall(window: 1, fine: nil, coarse: .medium, lock: false)])
        let state = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertEqual(state.windows[1].counts["service_login"], 2)
    }

    func testEventsSentBeforeTheFirstConfigurationAreEvaluatedOnceItIsRead() throws {
        let harness = Harness()
        // Before configure an event takes the device's own clock: the harness's is set to it.
        harness.clockOffset = Date().timeIntervalSince(Harness.epoch)
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial_completion", parameters: nil))
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.conversionValues.calls, [ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)])
        // That update told Apple of the first launch: no registration besides.
        XCTAssertEqual(harness.conversionValues.registrations, 0)
    }

    /// A first launch that reaches no service: a tutorial's end and a purchase wait on the device.
    private func offlineFirstLaunch(_ store: MemoryStore) throws -> Harness {
        let offline = Harness(store: store)
        offline.service.offline = true
        offline.configure()
        XCTAssertTrue(try offline.core.sendEvent(.custom, name: "tutorial_completion", parameters: nil))
        XCTAssertTrue(try offline.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 3, "currency": "EUR"]))
        offline.settle()
        return offline
    }

    func testEventsOfAFirstLaunchThatEndsBeforeItsConfigurationAreEvaluatedAtTheNext() throws {
        let store = MemoryStore()
        let offline = try offlineFirstLaunch(store)
        XCTAssertEqual(offline.conversionValues.calls, [], "no schema known yet")
        // The process ends before any configuration came: the events are on the device, and the
        // next launch evaluates them, in order, with the schema it reads.
        let next = Harness(store: store)
        next.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.calls, [
            ConversionCall(window: 0, fine: 1, coarse: .low, lock: false),
            ConversionCall(window: 0, fine: 20, coarse: .medium, lock: false),
        ])
        next.eventually("the events are delivered") { next.service.acceptedEvents.count == 2 }
        // Evaluated once: a later launch makes no call for them.
        let later = Harness(store: store, service: next.service)
        XCTAssertNil(later.configure())
        XCTAssertEqual(later.conversionValues.calls, [])
    }

    func testEventsEvaluatedAfterTheirWindowAreCountedThereAndAppleIsNotAsked() throws {
        let store = MemoryStore()
        let offline = Harness(store: store)
        offline.service.offline = true
        offline.configure()
        // Three purchases on the first day, the third of which would lock the first window.
        for _ in 0..<3 {
            XCTAssertTrue(try offline.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 1, "currency": "USD"]))
        }
        offline.settle()
        XCTAssertEqual(offline.conversionValues.calls, [], "no schema known yet")

        // The next launch is on the fourth day, in Apple's second window: Apple's update acts
        // on the window the install is in now, so the first day's values would go to the second
        // window, and its lock would lock it. They are counted in the first window alone.
        let next = Harness(store: store)
        next.clockOffset = 96 * 3600
        next.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.calls, [])
        XCTAssertEqual(next.conversionValues.registrations, 0)
        let state = try XCTUnwrap(store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertEqual(state.windows[0].counts["service_purchase"], 3)
        XCTAssertEqual(state.windows[0].revenueUsd["service_purchase"], 3)
        // The values Apple holds for the first window are the ones it was told: none.
        XCTAssertNil(state.windows[0].fine)
        XCTAssertNil(state.windows[0].coarse)
        XCTAssertFalse(state.windows[0].locked)
        XCTAssertEqual(state.windows[1], ConversionWindowState())
        XCTAssertTrue(next.log.messages(.info).contains { $0.contains("not the one the install is in now") })

        // The second window is not locked: its own events make its own update.
        XCTAssertTrue(try next.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertTrue(try next.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(next.conversionValues.calls, [ConversionCall(window: 1, fine: nil, coarse: .low, lock: false)])
        next.eventually("the events are delivered") { next.service.acceptedEvents.count == 5 }
    }

    func testEventsQueuedByALaunchThatEndedBeforeItForgotThemAreNeitherQueuedNorEvaluatedAgain() throws {
        let store = MemoryStore()
        _ = try offlineFirstLaunch(store)
        let waiting = try XCTUnwrap(store.get(EventQueue.Kind.pending.key))

        // The next launch queues and evaluates them; the service takes no event yet, so they
        // stay queued.
        let next = Harness(store: store)
        next.service.config = try ConversionValueTests.config(version: 1)
        next.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? HTTPResponse(statusCode: 503, body: "{}") : nil
        }
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.calls.count, 2)
        XCTAssertEqual(EventQueue(store: store, max: 1000).count, 2)
        let evaluated = try XCTUnwrap(store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        // As a process ends between the queue's write and the waiting events' removal: on the
        // device both queued and still waiting.
        store.put(EventQueue.Kind.pending.key, waiting)

        let later = Harness(store: store)
        later.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(later.configure())
        // Each once: not queued again, and not counted again (3 EUR twice would be worth 40).
        XCTAssertEqual(later.conversionValues.calls, [])
        XCTAssertEqual(try XCTUnwrap(store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse)), evaluated)
        XCTAssertNil(store.get(EventQueue.Kind.pending.key))
        later.eventually("the events are delivered") { later.service.acceptedEvents.count == 2 }
        later.runScheduled(3)
        XCTAssertEqual(later.service.deliveredEvents.count, 2)
        XCTAssertEqual(later.core.queuedEventCount, 0)
    }

    func testApplesRefusalsGoToTheErrorListenerAndTheEventsGoOn() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.conversionValues.refusal = "SKAdNetwork: the operation couldn't be completed"
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        harness.eventually("the event is delivered") { harness.service.acceptedEvents.count == 1 }
        let refused = heard.errors.filter { $0.kind == .conversionValue }
        XCTAssertEqual(refused.count, 2, "the registration and the update")
        XCTAssertTrue(refused.allSatisfy { $0.count == 1 && $0.reason == nil && $0.code == nil && $0.message.contains("SKAdNetwork") })
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("conversion value update was refused") }.count, 2)
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testARefusedUpdateIsAskedForAgainByTheWindowsNextEventOnce() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        let tutorial = ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)
        harness.conversionValues.refusal = "SKAdNetwork: the operation couldn't be completed"
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        harness.settle()
        let refused = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertNil(refused.windows[0].fine, "the device holds no value Apple refused")
        // Apple still refuses: the next event asks once, and no more.
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [tutorial, tutorial])
        // Apple takes it now: asked again by the window's next event, whatever it is, then held.
        harness.conversionValues.refusal = nil
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.settle()
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [tutorial, tutorial, tutorial])
        let held = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertEqual(held.windows[0].fine, 1)
    }

    func testARefusedLockLeavesTheWindowOpenWithTheValuesAppleTook() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        func purchase(_ revenue: Double) throws {
            XCTAssertTrue(try harness.core.sendEvent(.purchase, name: nil, parameters: ["revenue": revenue, "currency": "USD"]))
            harness.settle()
        }
        let medium = ConversionCall(window: 0, fine: 20, coarse: .medium, lock: false)
        let locked = ConversionCall(window: 0, fine: 63, coarse: .high, lock: true)
        try purchase(1)
        XCTAssertEqual(harness.conversionValues.calls, [medium])
        // The third purchase locks the first window: refused, the window stays open, and Apple's
        // value stays the one it took.
        harness.conversionValues.refusal = "SKAdNetwork: the window is locked"
        try purchase(0.5)
        try purchase(0.5)
        let state = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertFalse(state.windows[0].locked)
        XCTAssertEqual(state.windows[0].fine, 20)
        XCTAssertEqual(state.windows[0].counts["service_purchase"], 3)
        harness.conversionValues.refusal = nil
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.settle()
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [medium, locked, locked])
    }

    func testARefusedRegistrationIsMadeAgainAtTheNextLaunchUnlessAnUpdateWasMadeSince() throws {
        let first = Harness()
        first.service.config = try ConversionValueTests.config(version: 1)
        first.conversionValues.refusal = "SKAdNetwork: the operation couldn't be completed"
        XCTAssertNil(first.configure())
        first.settle()
        XCTAssertEqual(first.conversionValues.registrations, 1)
        let state = try XCTUnwrap(first.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertFalse(state.registered)
        // Not at each configuration of the launch: at the next launch.
        let refreshed = expectation(description: "refreshed")
        first.core.refreshConfig { _ in refreshed.fulfill() }
        wait(for: [refreshed], timeout: 10)
        first.settle()
        XCTAssertEqual(first.conversionValues.registrations, 1)
        let next = Harness(store: first.store, service: first.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.registrations, 1)

        // An update Apple takes registers the install too: no registration after it.
        let refused = Harness()
        refused.service.config = try ConversionValueTests.config(version: 1)
        refused.conversionValues.refusal = "SKAdNetwork: the operation couldn't be completed"
        XCTAssertNil(refused.configure())
        refused.settle()
        refused.conversionValues.refusal = nil
        XCTAssertTrue(try refused.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        refused.settle()
        XCTAssertEqual(refused.conversionValues.calls, [ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)])
        let later = Harness(store: refused.store, service: refused.service)
        XCTAssertNil(later.configure())
        XCTAssertEqual(later.conversionValues.registrations, 0)
    }

    func testWithoutASchemaTheFirstLaunchIsRegisteredAndNothingMore() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        harness.settle()
        // Apple makes no postback for an install that never called it: the registration goes
        // out with no schema, and no event makes an update.
        XCTAssertEqual(harness.conversionValues.calls, [])
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        let state = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertTrue(state.registered)
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.registrations, 0, "registered once per install")
    }

    func testAFirstLaunchThatReadsNoConfigurationIsRegisteredOnce() throws {
        // Apple makes no postback for an install that never registered: a first launch offline
        // (or with the service out of reach) is registered all the same, once.
        let harness = Harness()
        harness.service.offline = true
        harness.service.config = try ConversionValueTests.config(version: 1)
        harness.configure()
        harness.settle()
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        XCTAssertEqual(harness.conversionValues.calls, [])
        XCTAssertNil(harness.store.get(SdkCore.Key.config), "no configuration was read")
        let state = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertTrue(state.registered)

        // Online again: the reading registers nothing more, and an event makes its update.
        harness.service.offline = false
        harness.eventually("the configuration is read") { harness.store.get(SdkCore.Key.config) != nil }
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        XCTAssertEqual(harness.conversionValues.calls, [ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)])

        // Nor does a later launch.
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.conversionValues.registrations, 0, "registered once per install")
    }

    func testAnEventWhoseRevenueTheServiceRefusesCountsForNothing() throws {
        // Three purchases would lock the first window (fine 63); the service refuses each of these
        // for its revenue, so Apple is told nothing of them.
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        let refused: [Any] = ["1,000", "$4.99", 2e12]
        for revenue in refused {
            XCTAssertTrue(try harness.core.sendEvent(.purchase, name: nil, parameters: ["revenue": revenue, "currency": "USD"]))
        }
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [])
        XCTAssertEqual(harness.log.messages(.info).filter { $0.contains("its revenue is one the service refuses") }.count, 3)
        XCTAssertTrue(try harness.core.sendEvent(.purchase, name: nil, parameters: ["revenue": "1.50", "currency": "USD"]))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [ConversionCall(window: 0, fine: 20, coarse: .medium, lock: false)])
    }

    func testAnAppTheServiceSwitchesOffStillRegistersItsFirstLaunchWithApple() throws {
        // Apple sends the ad networks no postback for an install that never registered: the
        // service's switch (remote configuration, a rejected key) stops what the service is
        // sent, not what Apple is told.
        let off = Harness()
        off.service.config = ConversionValueTests.switchedOff
        XCTAssertNil(off.configure())
        XCTAssertFalse(try off.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        off.settle()
        XCTAssertEqual(off.conversionValues.registrations, 1)
        XCTAssertEqual(off.conversionValues.calls, [], "no event of a switched-off app is evaluated")
        XCTAssertEqual(off.service.acceptedEvents.count, 0)

        let rejected = Harness()
        rejected.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"bad key"}"#) : nil
        }
        XCTAssertEqual(rejected.configure() as? ServiceAttributionError, .authentication(statusCode: 401))
        rejected.settle()
        XCTAssertEqual(rejected.conversionValues.registrations, 1)

        // The app's own stop() keeps it back.
        let stopped = Harness()
        stopped.core.stop()
        XCTAssertNil(stopped.configure())
        stopped.settle()
        XCTAssertEqual(stopped.conversionValues.registrations, 0)
    }

    func testAStopMadeAsTheFirstLaunchIsAboutToBeRegisteredKeepsTheRegistrationBack() throws {
        // The user opts out just as the SDK's worker, the configuration applied, comes to
        // register the first launch (it reads the install's first open then): the stop has
        // returned before Apple is asked, so Apple is told nothing, as of a launch found stopped.
        let harness = Harness()
        var stopped = false
        harness.store.beforeRead = { key in
            guard key == SdkCore.Key.firstOpen, !stopped else { return }
            stopped = true
            harness.core.stop()
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled()
        XCTAssertTrue(stopped)
        XCTAssertTrue(harness.core.isStopped)
        XCTAssertEqual(harness.conversionValues.registrations, 0)
        // Started again in the first window: registered then, once.
        harness.core.start()
        harness.runScheduled()
        XCTAssertEqual(harness.conversionValues.registrations, 1)
    }

    func testAnEventSentAsAReadingSwitchesTheAppOffIsNeverEvaluated() throws {
        // README: "Nothing is evaluated while the SDK is stopped, switched off…". The first
        // reading says off and brings a schema: the worker applying it takes that schema,
        // registers the first launch with Apple (and says so in the log), and only then switches
        // the SDK off. The app sends its tutorial's end in between, from its own thread (here,
        // as that line is written): the switch-off drops it, unevaluated, so Apple is given no
        // value for an event the service never receives.
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.config = try ConversionValueTests.config(version: 1, enabled: false)
        var taken: Bool?
        harness.log.whenWritten = { _, message in
            guard message.hasPrefix("the install's first launch is registered"), taken == nil else { return }
            taken = try? harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil)
        }
        XCTAssertNil(harness.configure())
        XCTAssertEqual(taken, true, "the app sent its event as the reading was applied")
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        XCTAssertEqual(harness.conversionValues.calls, [], "no event a switch-off drops is evaluated")
        let state = try XCTUnwrap(harness.store.get(SdkCore.Key.conversionValues).flatMap(ConversionState.parse))
        XCTAssertEqual(state.windows[0], ConversionWindowState(), "nothing counted either")
        XCTAssertEqual(heard.dropped, ["disabled": 1], "dropped as disabled, and told")
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 0)

        // The same when a later reading switches an app that was on off, with a new schema: the
        // app's event comes as its version is said in the log, before the switch-off.
        let later = Harness()
        let heardLater = Heard()
        heardLater.listen(to: later.core)
        later.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(later.configure())
        later.service.config = try ConversionValueTests.config(version: 2, enabled: false)
        var takenLater: Bool?
        later.log.whenWritten = { _, message in
            guard message.hasPrefix("conversion value schema version 2"), takenLater == nil else { return }
            takenLater = try? later.core.sendEvent(.custom, name: "tutorial completion", parameters: nil)
        }
        let refreshed = expectation(description: "refreshed")
        later.core.refreshConfig { error in
            XCTAssertNil(error)
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 10)
        later.settle()
        XCTAssertEqual(takenLater, true, "the app sent its event as the reading was applied")
        XCTAssertTrue(later.core.isSdkDisabled)
        XCTAssertEqual(later.conversionValues.calls, [], "no event a switch-off drops is evaluated")
        XCTAssertEqual(heardLater.dropped, ["disabled": 1])
        XCTAssertEqual(later.service.count("POST", "/v1/events"), 0)
    }

    func testAStoppedSdkEvaluatesNothing() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        harness.core.stop()
        XCTAssertFalse(try harness.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        harness.settle()
        XCTAssertEqual(harness.conversionValues.calls, [])
    }

    func testTheSchemaIsKeptWithTheConfigurationForALaunchOffline() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 7)
        XCTAssertNil(harness.configure())
        let offline = FakeService()
        offline.offline = true
        let next = Harness(store: harness.store, service: offline)
        next.configure()
        XCTAssertTrue(try next.core.sendEvent(.custom, name: "tutorial completion", parameters: nil))
        XCTAssertEqual(next.conversionValues.calls, [ConversionCall(window: 0, fine: 1, coarse: .low, lock: false)])
        let kept = try XCTUnwrap(try RemoteConfig.parse(try XCTUnwrap(harness.store.get(SdkCore.Key.config))).skadnetwork)
        XCTAssertEqual(kept.version, 7)
        XCTAssertEqual(kept.usdRates, ["EUR": 1.1, "USD": 1])
    }

    // MARK: - AdAttributionKit re-engagement

    /// A universal link as iOS opens the app with it at a re-engagement: the conversion's tag
    /// under `AdAttributionKitReengagementOpen`.
    private static let reengagementOpen = "https://example.com/offer?item=7&AdAttributionKitReengagementOpen=tag-1"
    private static let switchedOff = #"{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#

    func testAReengagementOpenMakesOneUpdateForItsPostbackAndEvaluatesNothing() throws {
        XCTAssertTrue(SdkCore.isReengagementOpen(ConversionValueTests.reengagementOpen))
        XCTAssertTrue(SdkCore.isReengagementOpen("myapp://offer?AdAttributionKitReengagementOpen"))
        XCTAssertFalse(SdkCore.isReengagementOpen("https://example.com/offer?item=7"))
        XCTAssertFalse(SdkCore.isReengagementOpen("https://example.com/AdAttributionKitReengagementOpen"))
        XCTAssertFalse(SdkCore.isReengagementOpen("https://example.com/offer?adattributionkitreengagementopen=1"))

        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        harness.core.handleDeepLink("https://example.com/offer?item=7")
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 0)
        XCTAssertNotNil(harness.core.handleDeepLink(ConversionValueTests.reengagementOpen), "still delivered as a deep link")
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 1)
        // The same open handed over twice (the plugin's glue and the app) makes one update.
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 1)
        // The schema describes the install's windows: nothing is evaluated for the open, and
        // the install is not registered again.
        XCTAssertEqual(harness.conversionValues.calls, [])
        XCTAssertEqual(harness.conversionValues.registrations, 1)
        // Another re-engagement, with a tag of its own, makes its own update.
        harness.core.handleDeepLink("myapp://offer?AdAttributionKitReengagementOpen=tag-2")
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 2)
    }

    func testAReengagementOpenBeforeConfigureIsToldOnceAConfigurationIsApplied() throws {
        let harness = Harness()
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 0)
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.conversionValues.reengagements, 1)
        harness.runScheduled()
        XCTAssertEqual(harness.conversionValues.reengagements, 1, "once, not at each refresh")
    }

    func testAStopMadeAsAReengagementOpenIsToldToAppleKeepsTheUpdateBack() throws {
        let harness = Harness()
        harness.service.config = try ConversionValueTests.config(version: 1)
        XCTAssertNil(harness.configure())
        // The user opts out just as the SDK's worker comes to tell Apple of the open (it says it
        // in the log): the stop has returned before Apple is asked, so Apple is told nothing.
        var stopped = false
        harness.log.whenWritten = { _, message in
            guard message.hasPrefix("an AdAttributionKit re-engagement opened the app: its conversion value is updated"), !stopped else { return }
            stopped = true
            harness.core.stop()
        }
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertTrue(stopped)
        XCTAssertEqual(harness.conversionValues.reengagements, 0)
        // Apple was never told of it: the same open handed over once started again is told.
        harness.core.start()
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 1)
    }

    func testNoReengagementUpdateWhileStoppedSwitchedOffOrDeleted() throws {
        // Stopped: the open is not told, not even once started again.
        let stopped = Harness()
        stopped.core.stop()
        stopped.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        XCTAssertNil(stopped.configure())
        stopped.core.start()
        stopped.runScheduled()
        XCTAssertEqual(stopped.conversionValues.reengagements, 0)

        // Opened before configure, stopped before the configuration came.
        let stoppedLater = Harness()
        stoppedLater.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        stoppedLater.core.stop()
        XCTAssertNil(stoppedLater.configure())
        stoppedLater.core.start()
        stoppedLater.runScheduled()
        XCTAssertEqual(stoppedLater.conversionValues.reengagements, 0)

        // Switched off by the configuration the open waited for, and after it.
        let off = Harness()
        off.service.config = ConversionValueTests.switchedOff
        off.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        XCTAssertNil(off.configure())
        off.core.handleDeepLink("https://example.com/offer?AdAttributionKitReengagementOpen=tag-2")
        off.runScheduled()
        XCTAssertEqual(off.conversionValues.reengagements, 0)

        // After deleteUserData.
        let deleted = Harness()
        XCTAssertNil(deleted.configure())
        let done = expectation(description: "deleted")
        deleted.core.deleteUserData { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        deleted.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        deleted.settle()
        XCTAssertEqual(deleted.conversionValues.reengagements, 0)
        // Nor at a later launch of the deleted install, the open handled before configure.
        let next = Harness(store: deleted.store, service: deleted.service)
        next.core.handleDeepLink("https://example.com/offer?AdAttributionKitReengagementOpen=tag-3")
        XCTAssertNil(next.configure())
        next.runScheduled()
        XCTAssertEqual(next.conversionValues.reengagements, 0)
    }

    func testAReengagementOpenDroppedUntoldIsTakenWhenHandedAgain() throws {
        // Opened before configure, stopped before the configuration came: Apple was never told,
        // so the same URL handed again after start() makes the update, once.
        let harness = Harness()
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.core.stop()
        XCTAssertNil(harness.configure())
        harness.core.start()
        harness.runScheduled()
        XCTAssertEqual(harness.conversionValues.reengagements, 0)
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 1)
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        XCTAssertEqual(harness.conversionValues.reengagements, 1, "told already: no second update")
    }

    func testNoReengagementUpdateInAnAppExtension() throws {
        let harness = Harness(refusal: .appExtension)
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .appExtension)
        harness.runScheduled()
        XCTAssertEqual(harness.conversionValues.reengagements, 0)
    }

    func testARefusedReengagementUpdateGoesToTheErrorListener() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.conversionValues.refusal = "AdAttributionKit: the operation couldn't be completed"
        harness.core.handleDeepLink(ConversionValueTests.reengagementOpen)
        harness.settle()
        let refused = heard.errors.filter { $0.kind == .conversionValue }
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused.allSatisfy { $0.message.contains("AdAttributionKit") })
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("conversion value update was refused") }.count, 1)
    }
}
