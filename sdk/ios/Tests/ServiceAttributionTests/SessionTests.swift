import Foundation
import XCTest
@testable import ServiceAttribution

/// Every case of sdk/conformance/sessions.json: the `lifecycle` cases against the session rules
/// alone (``SessionTracker`` on the test's clock) and again through the core (the app's lifecycle
/// driven by a fake of UIKit's notifications, the device clock set at each step, the sessions the
/// scripted service stored), the `requests` case against what the core sends; then delivery by
/// delivery.json's rules with the sessions' own bound, and what a drop does. Times are seconds
/// of the device clock from ``Harness/epoch``.
final class SessionTests: XCTestCase {
    private struct LifecycleCase {
        let name: String
        /// The configuration's `session_interval_seconds` as the case gives it, whatever its
        /// type (one the contract refuses too); nil when it gives none.
        let interval: JSONValue?
        let steps: [(at: TimeInterval, step: String)]
        let sessions: [TimeInterval]
    }

    private func lifecycleCases() throws -> [LifecycleCase] {
        let cases = try XCTUnwrap(try Vectors.conformance("sessions.json")["lifecycle"] as? [[String: Any]])
        return try cases.map { testCase -> LifecycleCase in
            let name = testCase["name"] as? String ?? "?"
            let steps = try XCTUnwrap(testCase["steps"] as? [[String: Any]], name).map { step -> (at: TimeInterval, step: String) in
                let at = try XCTUnwrap(step["at"] as? NSNumber, name).doubleValue
                let kind = try XCTUnwrap(step["step"] as? String, name)
                return (at, kind)
            }
            let sessions = try XCTUnwrap(testCase["sessions"] as? [NSNumber], name).map { $0.doubleValue }
            let interval = testCase["config"].flatMap { JSONValue(foundation: $0) }.flatMap { $0 == .null ? nil : $0 }
            return LifecycleCase(name: name, interval: interval, steps: steps, sessions: sessions)
        }
    }

    /// A remote configuration, with `session_interval_seconds` when `interval` is given.
    static func config(enabled: Bool = true, interval: JSONValue? = nil) -> String {
        var config: [String: JSONValue] = [
            "enabled": .bool(enabled),
            "refresh_interval_seconds": .int(3600),
            "encryption": .object(["enabled": .bool(false)]),
        ]
        if let interval = interval { config["session_interval_seconds"] = interval }
        return JSONValue.object(config).text
    }

    /// When each session the service stored started, each session once (a retry sends one
    /// again), in the order the service got them.
    private func sessionStarts(_ service: FakeService) -> [TimeInterval] {
        var seen = Set<String>()
        return service.acceptedSessions.compactMap { session -> TimeInterval? in
            guard let object = session.objectValue, let id = object["session_id"]?.stringValue, seen.insert(id).inserted,
                  let text = object["started_at"]?.stringValue, let time = Requests.date(text) else { return nil }
            return (time.timeIntervalSince(Harness.epoch) * 1000).rounded() / 1000
        }
    }

    private func refresh(_ harness: Harness) {
        let done = expectation(description: "refreshed")
        harness.core.refreshConfig { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        harness.settle()
    }

    /// The app goes to the background at `away` and comes back at `back`.
    private func leave(_ harness: Harness, at away: TimeInterval, returning back: TimeInterval) {
        harness.setClock(away)
        harness.lifecycle.enterBackground()
        harness.setClock(back)
        harness.lifecycle.enterForeground()
    }

    // MARK: sessions.json

    func testEveryLifecycleCaseAgainstTheSessionRules() throws {
        let cases = try lifecycleCases()
        XCTAssertGreaterThanOrEqual(cases.count, 8)
        for testCase in cases {
            // The interval as the configuration's parsing takes it (remote-config.json: one the
            // contract refuses is the default).
            let interval = try RemoteConfig.parse(SessionTests.config(interval: testCase.interval)).sessionIntervalSeconds
            var tracker = SessionTracker(intervalSeconds: interval)
            var started: [TimeInterval] = []
            for (at, step) in testCase.steps {
                let time = Harness.epoch.addingTimeInterval(at)
                var session: Date?
                switch step {
                case "start":
                    // A process starts: what the device keeps (stop, the configuration) stands.
                    session = tracker.launch(at: time, inForeground: true)
                case "background":
                    tracker.enterBackground(at: time)
                case "foreground":
                    session = tracker.enterForeground(at: time)
                case "stop":
                    tracker.stop()
                case "start_again":
                    session = tracker.restart(at: time)
                case "disable":
                    tracker.disable()
                case "enable":
                    tracker.enable()
                default:
                    XCTFail("\(testCase.name): a step this test does not know: \(step)")
                }
                if let session = session { started.append(session.timeIntervalSince(Harness.epoch)) }
            }
            XCTAssertEqual(started, testCase.sessions, testCase.name)
        }
    }

    /// The same cases through the core, as an app lives them: each `start` a process of its own
    /// over the device's store, `background` and `foreground` UIKit's notifications, `stop` and
    /// `start_again` the app's calls, `disable` and `enable` the configuration the service
    /// answers (before the first start: the one an earlier launch kept, which switched the SDK
    /// off), and what the service stored at the end.
    func testEveryLifecycleCaseThroughTheCore() throws {
        for testCase in try lifecycleCases() {
            let name = testCase.name
            let store = MemoryStore()
            let service = FakeService()
            service.config = SessionTests.config(interval: testCase.interval)
            var harness: Harness?
            for (at, step) in testCase.steps {
                harness?.setClock(at)
                switch step {
                case "start":
                    let process = Harness(store: store, service: service)
                    process.setClock(at)
                    XCTAssertNil(process.configure(), name)
                    harness = process
                case "background":
                    try XCTUnwrap(harness, name).lifecycle.enterBackground()
                case "foreground":
                    try XCTUnwrap(harness, name).lifecycle.enterForeground()
                case "stop":
                    try XCTUnwrap(harness, name).core.stop()
                case "start_again":
                    try XCTUnwrap(harness, name).core.start()
                case "disable":
                    service.config = SessionTests.config(enabled: false, interval: testCase.interval)
                    if let running = harness {
                        refresh(running)
                    } else {
                        let earlier = Harness(store: store, service: service)
                        earlier.setClock(at)
                        earlier.configure()
                    }
                case "enable":
                    service.config = SessionTests.config(interval: testCase.interval)
                    if let running = harness { refresh(running) }
                default:
                    XCTFail("\(name): a step this test does not know: \(step)")
                }
                harness?.settle()
            }
            XCTAssertEqual(sessionStarts(service), testCase.sessions, name)
            XCTAssertEqual(harness?.core.queuedSessionCount, 0, "\(name): nothing left on the device")
        }
    }

    func testTheRequestCase() throws {
        let cases = try XCTUnwrap(try Vectors.conformance("sessions.json")["requests"] as? [[String: Any]])
        XCTAssertFalse(cases.isEmpty)
        for testCase in cases {
            let name = testCase["name"] as? String ?? "?"
            let request = try XCTUnwrap(testCase["request"] as? [String: Any], name)
            let expected = try XCTUnwrap(request["body"] as? [String: Any], name)
            let harness = Harness()
            XCTAssertNil(harness.configure(), name)
            let sent = harness.service.sent(try XCTUnwrap(request["method"] as? String), try XCTUnwrap(request["path"] as? String))
            XCTAssertEqual(sent.count, 1, name)
            let first = try XCTUnwrap(sent.first, name)
            XCTAssertEqual(JSONMatch.differences(try JSONValue.parse(try XCTUnwrap(first.body)), expected), [], name)
            // The placeholders' values: the install's id, the device clock when the app started.
            let session = try XCTUnwrap(FakeService.sessions(first).first?.objectValue, name)
            XCTAssertEqual(session["service_id"], .string(try XCTUnwrap(harness.core.serviceIdentifier)), name)
            XCTAssertEqual(session["started_at"], .string(Requests.iso(Harness.epoch)), name)
            XCTAssertEqual(FakeService.body(first)?["sent_at"], .string(Requests.iso(Harness.epoch)), name)
            XCTAssertEqual(first.headers["Authorization"], "sdk_test", name)
            XCTAssertEqual(first.headers["Content-Type"], "application/json", name)
        }
    }

    func testTheLimitsAndTheDefaultIntervalAreTheVectors() throws {
        let limits = try XCTUnwrap(try Vectors.conformance("sessions.json")["limits"] as? [String: Int])
        let settings = SdkSettings(baseURL: "")
        XCTAssertEqual(Int(SessionTracker.defaultIntervalSeconds), limits["defaultSessionIntervalSeconds"])
        XCTAssertEqual(settings.maxSessionsPerRequest, limits["maxSessionsPerRequest"])
        XCTAssertEqual(settings.maxQueuedSessions, limits["maxQueuedSessions"])
        XCTAssertEqual(try RemoteConfig.parse(#"{"enabled":true}"#).sessionIntervalSeconds, SessionTracker.defaultIntervalSeconds)
        let sixty = try RemoteConfig.parse(#"{"enabled":true,"session_interval_seconds":60}"#)
        XCTAssertEqual(sixty.sessionIntervalSeconds, 60)
        XCTAssertEqual(try RemoteConfig.parse(sixty.json.text), sixty, "kept on the device with the configuration")
    }

    // MARK: when sessions start

    func testEachSessionHasAFreshIdKeptOnARetryAndSentAtIsSetOnEachAttempt() throws {
        let harness = Harness()
        var failures = 0
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", failures < 1 else { return nil }
            failures += 1
            return HTTPResponse(statusCode: 503, body: "{}")
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the launch's session") { harness.service.acceptedSessions.count == 1 }
        let attempts = harness.service.sent("POST", "/v1/sessions")
        XCTAssertEqual(attempts.count, 2)
        XCTAssertEqual(FakeService.sessions(attempts[0]), FakeService.sessions(attempts[1]), "the same session, its id kept")
        let sentAt = attempts.compactMap { FakeService.body($0)?["sent_at"]?.stringValue }
        XCTAssertEqual(sentAt, [Requests.iso(Harness.epoch), Requests.iso(Harness.epoch.addingTimeInterval(2))])
        // A return after the interval: another session, with an id of its own.
        leave(harness, at: 100, returning: 100 + 1_800)
        harness.eventually("the return's session") { harness.service.acceptedSessions.count == 2 }
        let ids = harness.service.acceptedSessions.compactMap { $0.objectValue?["session_id"]?.stringValue }
        XCTAssertEqual(Set(ids).count, 2)
        XCTAssertTrue(ids.allSatisfy { JSONMatch.matches(JSONMatch.idPattern, $0) }, "\(ids)")
        XCTAssertEqual(sessionStarts(harness.service), [0, 1_900])
    }

    func testALaunchInTheBackgroundStartsItsSessionWhenTheAppFirstComesToTheForeground() throws {
        let harness = Harness()
        harness.lifecycle.isInForeground = false
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.core.queuedSessionCount, 0, "a launch for a silent push is no visit")
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 0)
        harness.setClock(30)
        harness.lifecycle.enterForeground()
        harness.settle()
        XCTAssertEqual(sessionStarts(harness.service), [30], "the launch's session, however soon")
    }

    func testSendEventNeverMakesASession() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        try harness.sendIndexed(3)
        harness.eventually("the events") { harness.acceptedIndexes == [0, 1, 2] }
        XCTAssertEqual(sessionStarts(harness.service), [0], "the launch's only")
        XCTAssertTrue(harness.service.deliveredEvents.allSatisfy { $0.objectValue?["session_id"] == nil })
    }

    func testTheIntervalIsKeptWithTheConfigurationForALaunchOffline() throws {
        let harness = Harness()
        harness.service.config = SessionTests.config(interval: .int(60))
        XCTAssertNil(harness.configure())
        let next = Harness(store: harness.store)
        next.service.offline = true
        next.configure()
        leave(next, at: 10, returning: 70)
        next.settle()
        XCTAssertEqual(next.core.queuedSessionCount, 2, "the launch's, and the return's after the kept 60 seconds")
    }

    // MARK: delivery

    func testSessionsGoOutOnlyAfterTheInstallIsRecorded() throws {
        let harness = Harness()
        var failures = 0
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/installs", failures < 2 else { return nil }
            failures += 1
            return HTTPResponse(statusCode: 503, body: "{}")
        }
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 0, "not before the install")
        XCTAssertEqual(harness.core.queuedSessionCount, 1, "kept on the device meanwhile")
        harness.eventually("the session") { harness.service.acceptedSessions.count == 1 }
        let paths = harness.service.requests.map { FakeService.path($0) }
        XCTAssertLessThan(try XCTUnwrap(paths.lastIndex(of: "/v1/installs")), try XCTUnwrap(paths.firstIndex(of: "/v1/sessions")))
    }

    func testSessionsGoBeforeTheEventsNeverBehindABacklogOfThem() throws {
        // 250 events an earlier launch queued offline, and this launch's session.
        let harness = Harness(store: try Harness.given(queued: 250))
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes.count == 250 && harness.service.acceptedSessions.count == 1 }
        let posts = harness.service.requests.filter { $0.method == "POST" }.map { FakeService.path($0) }
        XCTAssertEqual(posts, ["/v1/sessions", "/v1/events", "/v1/events", "/v1/events"])
        XCTAssertEqual(harness.acceptedIndexes, Array(0..<250))
    }

    func testASessionQueuedOfflineIsSentAtTheNextLaunch() throws {
        let store = MemoryStore()
        let offline = Harness(store: store)
        offline.service.answer = { request in
            if FakeService.path(request) == "/v1/config" { return nil }
            throw ServiceAttributionError.network("offline")
        }
        XCTAssertNil(offline.configure())
        // The process may end here: the session is on the device already.
        XCTAssertEqual(EventQueue(store: store, max: 100, kind: .sessions).count, 1)
        let next = Harness(store: store)
        next.setClock(60)
        XCTAssertNil(next.configure())
        next.eventually("both launches' sessions") { next.service.acceptedSessions.count == 2 }
        XCTAssertEqual(sessionStarts(next.service), [0, 60], "in the order they started")
        XCTAssertEqual(next.service.count("POST", "/v1/sessions"), 1, "one request")
        XCTAssertEqual(next.core.queuedSessionCount, 0)
    }

    func testAFullQueueDropsItsOldestSessionWithAWarningAndACountButTellsTheAppNothing() throws {
        let harness = Harness()
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.configure()
        // The launch's session and 104 returns after the interval: 105 sessions for 100 places.
        for index in 1...104 {
            leave(harness, at: TimeInterval(index * 2_000), returning: TimeInterval(index * 2_000 + 1_800))
        }
        harness.settle()
        XCTAssertEqual(harness.core.queuedSessionCount, 100)
        XCTAssertEqual(harness.core.droppedSessionCount, 5)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("1 session dropped (queue_full)") }.count, 5)
        XCTAssertEqual(heard.errors, [], "the app sent nothing: its error listener hears nothing of sessions")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        // Online again: the newest 100, in the order they started, in one request.
        harness.service.offline = false
        harness.eventually("delivered") { harness.service.acceptedSessions.count == 100 }
        XCTAssertEqual(harness.service.sent("POST", "/v1/sessions").map { FakeService.sessions($0).count }, [100])
        XCTAssertEqual(sessionStarts(harness.service), (5...104).map { TimeInterval($0 * 2_000 + 1_800) })
        let next = Harness(store: harness.store)
        next.configure()
        XCTAssertEqual(next.core.droppedSessionCount, 5, "the count is kept on the device")
    }

    func testASessionOfAnInstallNotRecordedYetIsKeptAndTheInstallReportedAgain() throws {
        let harness = Harness()
        var conflict = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", conflict else { return nil }
            conflict = false
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[],"rejected":[{"index":0,"session_id":"s","error":"Conflict","detail":"the install is not recorded yet","retryable":true}]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.service.acceptedSessions.count == 1 }
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 2, "reported again before the session")
        let attempts = harness.service.sent("POST", "/v1/sessions").map { FakeService.sessions($0) }
        XCTAssertEqual(attempts.count, 2)
        XCTAssertEqual(attempts.first, attempts.last)
        XCTAssertEqual(harness.core.droppedSessionCount, 0)
    }

    func testABatchRefusedAsAWholeIsSplitUntilTheOneSessionRefusedAloneIsKnown() throws {
        let harness = Harness()
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.configure()
        for index in 1...3 {
            leave(harness, at: TimeInterval(index * 2_000), returning: TimeInterval(index * 2_000 + 1_800))
        }
        harness.settle()
        XCTAssertEqual(harness.core.queuedSessionCount, 4)
        // The service cannot take the third one, and refuses any request that holds it whole.
        let refused = Requests.iso(Harness.epoch.addingTimeInterval(5_800))
        let holdsRefused: (HTTPRequest) -> Bool = { request in
            FakeService.sessions(request).contains { $0.objectValue?["started_at"]?.stringValue == refused }
        }
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", holdsRefused(request) else { return nil }
            return HTTPResponse(statusCode: 413, body: #"{"error":"Payload Too Large","detail":"too large"}"#)
        }
        harness.service.offline = false
        harness.eventually("the queue emptied") { harness.core.queuedSessionCount == 0 }
        XCTAssertEqual(sessionStarts(harness.service), [0, 3_800, 7_800])
        let alone = harness.service.sent("POST", "/v1/sessions").filter { FakeService.sessions($0).count == 1 && holdsRefused($0) }
        XCTAssertEqual(alone.count, 1, "the refused session went alone once")
        XCTAssertEqual(harness.core.droppedSessionCount, 1)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("1 session dropped (refused)") }.count, 1)
        XCTAssertEqual(heard.errors, [])
    }

    func testSessionsTheServiceIgnoresOrRefusesByNameAreDroppedWithTheReason() throws {
        let harness = Harness()
        harness.service.offline = true
        harness.configure()
        leave(harness, at: 10, returning: 2_000)
        harness.settle()
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[{"index":0,"session_id":"a","reason":"app_disabled","detail":"in words"}],"rejected":[{"index":1,"session_id":"b","error":"Unprocessable Entity","detail":"started_at: is more than 30 days old","retryable":false}]}"#)
        }
        harness.service.offline = false
        harness.eventually("answered") { harness.core.queuedSessionCount == 0 }
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 1, "neither is sent again")
        XCTAssertEqual(harness.core.droppedSessionCount, 2)
        let warnings = harness.log.messages(.error)
        XCTAssertEqual(warnings.filter { $0.contains("1 session dropped (disabled)") }.count, 1)
        XCTAssertEqual(warnings.filter { $0.contains("1 session dropped (refused)") && $0.contains("started_at") }.count, 1)
    }

    func testASessionOlderThanTheServiceKeepsIsDroppedBeforeItIsSent() throws {
        let store = MemoryStore()
        let earlier = Harness(store: store)
        earlier.service.offline = true
        earlier.setClock(-31 * 86_400)
        earlier.configure()
        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        next.eventually("this launch's session") { next.service.acceptedSessions.count == 1 }
        XCTAssertEqual(sessionStarts(next.service), [0])
        XCTAssertEqual(next.service.sent("POST", "/v1/sessions").flatMap { FakeService.sessions($0) }.count, 1, "the old one never sent")
        XCTAssertEqual(next.core.droppedSessionCount, 1)
        XCTAssertEqual(next.log.messages(.error).filter { $0.contains("1 session dropped (expired)") }.count, 1)
    }

    func testASessionsRouteRefusedWith404IsAConfigurationErrorToldOnceThatHoldsTheSessionsAndTheEventsGoOn() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        var routeMissing = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", routeMissing else { return nil }
            return HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no route"}"#)
        }
        XCTAssertNil(harness.configure())
        try harness.sendIndexed(2)
        harness.runScheduled()
        XCTAssertEqual(harness.acceptedIndexes, [0, 1], "a service older than sessions still takes the events")
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 1, "not sent again in this process")
        XCTAssertEqual(harness.core.queuedSessionCount, 1, "kept on the device")
        XCTAssertEqual(harness.core.droppedSessionCount, 0)
        // A configuration error, as the install's: the app is told, once.
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0), String($0.count)] }, [["configuration", "404", "1"]])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("POST /v1/sessions") }.count, 1)
        // refreshConfig, like the next launch, sends them again.
        routeMissing = false
        refresh(harness)
        harness.eventually("delivered") { harness.service.acceptedSessions.count == 1 }
        XCTAssertEqual(harness.core.queuedSessionCount, 0)
    }

    func testAnEventsRouteRefusedWith401403Or404HoldsBackTheEventsAloneAndIsToldOnce() throws {
        for status in [401, 403, 404] {
            let harness = Harness()
            let heard = Heard()
            heard.listen(to: harness.core)
            var refusing = true
            harness.service.answer = { request in
                guard FakeService.path(request) == "/v1/events", refusing else { return nil }
                return HTTPResponse(statusCode: status, body: #"{"error":"Refused","detail":"a wrong key or address"}"#)
            }
            XCTAssertNil(harness.configure())
            try harness.sendIndexed(2)
            harness.runScheduled()
            XCTAssertEqual(
                heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0), String($0.count)] },
                [["configuration", String(status), "1"]],
                "HTTP \(status): a configuration error, told once"
            )
            XCTAssertEqual(harness.service.count("POST", "/v1/events"), 1, "HTTP \(status): not tried again in this process")
            XCTAssertEqual(harness.queuedIndexes, [0, 1], "HTTP \(status): kept on the device")
            XCTAssertEqual(harness.core.droppedEventCount, 0)
            // The other routes meet their own answer: a session after a long time away, a consent update.
            let now = harness.now.timeIntervalSince(Harness.epoch)
            leave(harness, at: now + 1, returning: now + 1 + 3_600)
            harness.core.setConsent(ServiceConsent(adPersonalization: false))
            harness.runScheduled()
            XCTAssertEqual(harness.service.acceptedSessions.count, 2, "HTTP \(status): the launch's session, then the return's")
            XCTAssertEqual(
                harness.service.requests.filter { $0.method == "POST" && FakeService.path($0).hasSuffix("/consent") }.count, 1,
                "HTTP \(status): the consent update goes"
            )
            XCTAssertEqual(harness.service.count("POST", "/v1/events"), 1)
            XCTAssertEqual(heard.errors.count, 1, "HTTP \(status): told once")
            // refreshConfig, like the next launch, sends the events.
            refusing = false
            refresh(harness)
            harness.eventually("HTTP \(status): delivered after refreshConfig") { harness.acceptedIndexes == [0, 1] }
        }
    }

    // MARK: stop, switched off, deleted

    func testStoppingDropsQueuedSessionsStartsNoneAndStartingAgainStartsOne() throws {
        let harness = Harness()
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.configure()
        XCTAssertEqual(harness.core.queuedSessionCount, 1)
        harness.core.stop()
        harness.settle()
        XCTAssertEqual(harness.core.queuedSessionCount, 0)
        XCTAssertEqual(harness.core.droppedSessionCount, 1)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("1 session dropped (stopped)") }.count, 1)
        XCTAssertEqual(heard.errors, [])
        leave(harness, at: 100, returning: 4_000)
        harness.settle()
        XCTAssertEqual(harness.core.queuedSessionCount, 0, "nothing starts while stopped")
        // Stopped is kept: the next launch starts none either.
        let next = Harness(store: harness.store)
        next.configure()
        XCTAssertEqual(next.core.queuedSessionCount, 0)
        XCTAssertEqual(next.service.requests, [])
        // Started again: a session, sent once the service is reachable.
        harness.service.offline = false
        harness.setClock(5_000)
        harness.core.start()
        harness.eventually("the session of the start") { harness.service.acceptedSessions.count == 1 }
        XCTAssertEqual(sessionStarts(harness.service), [5_000])
    }

    func testAStopWhileTheSessionsAreOnTheirWayDropsNoneTheServiceStores() throws {
        let harness = Harness()
        var stopped = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", !stopped else { return nil }
            stopped = true
            harness.core.stop()
            return nil
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled()
        XCTAssertEqual(sessionStarts(harness.service), [0])
        XCTAssertEqual(harness.core.droppedSessionCount, 0, "the session the service stored is no drop")
        XCTAssertEqual(harness.core.queuedSessionCount, 0)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("dropped (stopped)") }, [])
    }

    func testASessionTheBoundTakesWhileOnItsWayThatTheServiceStoresIsNoDrop() throws {
        var settings = Harness.settings
        settings.maxQueuedSessions = 1
        let harness = Harness()
        var answered = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/sessions", !answered else { return nil }
            answered = true
            // The launch's session is on its way when the app comes back after the interval: the
            // queue holds one session, and its bound takes the launch's to make room.
            self.leave(harness, at: 2_000, returning: 3_800)
            return nil
        }
        XCTAssertNil(harness.configure(settings: settings))
        harness.runScheduled()
        XCTAssertEqual(sessionStarts(harness.service), [0, 3_800])
        XCTAssertEqual(harness.core.droppedSessionCount, 0, "the session the service stored is no drop")
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("dropped (queue_full)") }, [])
        XCTAssertEqual(harness.core.queuedSessionCount, 0)
    }

    func testAConfigurationThatSwitchesTheSdkOffDropsTheLaunchsSessionAndTheNextLaunchMakesNone() throws {
        let harness = Harness()
        harness.service.config = SessionTests.config(enabled: false)
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 0)
        XCTAssertEqual(harness.core.droppedSessionCount, 1)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("1 session dropped (disabled)") }.count, 1)
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.core.droppedSessionCount, 1, "none made: the kept configuration has the SDK off")
        XCTAssertEqual(next.service.count("POST", "/v1/sessions"), 0)
    }

    func testALaunchOffOnlyAsKeptMakesItsSessionOnceItsOwnReadSwitchesTheSdkOn() throws {
        let harness = Harness()
        harness.service.config = SessionTests.config(enabled: false)
        XCTAssertNil(harness.configure())
        // Switched on again by the app's owner: the next launch's own read decides, not the
        // configuration the last one kept.
        harness.service.config = SessionTests.config(enabled: true)
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        next.eventually("the launch's session") { next.service.acceptedSessions.count == 1 }
        XCTAssertEqual(next.core.droppedSessionCount, 1, "only the first launch's, dropped as it was switched off")
        next.runScheduled()
        XCTAssertEqual(next.service.acceptedSessions.count, 1, "one session for the launch")
    }

    func testALaunchInTheBackgroundOffOnlyAsKeptOwesItsSessionToTheFirstReturnOnceItsOwnReadSwitchesTheSdkOn() throws {
        let harness = Harness()
        harness.service.config = SessionTests.config(enabled: false)
        XCTAssertNil(harness.configure())
        // Switched on again by the app's owner; the next launch is iOS's, in the background (a
        // silent push), and its own read switches the SDK on before the user opens the app.
        harness.service.config = SessionTests.config(enabled: true)
        let next = Harness(store: harness.store, service: harness.service)
        next.lifecycle.isInForeground = false
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.core.queuedSessionCount, 0, "a launch for a silent push is no visit")
        XCTAssertEqual(next.service.acceptedSessions.count, 0)
        // Opened well within the interval: the launch's session, owed to its first return.
        next.setClock(600)
        next.lifecycle.enterForeground()
        next.eventually("the launch's session") { next.service.acceptedSessions.count == 1 }
        XCTAssertEqual(sessionStarts(next.service), [600])
    }

    func testALaunchInTheBackgroundOffOnlyAsKeptOpenedBeforeItsReadAnswersMakesItsSessionOnceTheReadSwitchesTheSdkOn() throws {
        let harness = Harness()
        harness.service.config = SessionTests.config(enabled: false)
        XCTAssertNil(harness.configure())
        harness.service.config = SessionTests.config(enabled: true)
        let next = Harness(store: harness.store, service: harness.service)
        next.lifecycle.isInForeground = false
        var opened = false
        next.service.answer = { request in
            guard FakeService.path(request) == "/v1/config", !opened else { return nil }
            // The user opens the app while this launch's read is on its way.
            opened = true
            next.setClock(20)
            next.lifecycle.enterForeground()
            return nil
        }
        XCTAssertNil(next.configure())
        next.eventually("the launch's session") { next.service.acceptedSessions.count == 1 }
        XCTAssertEqual(sessionStarts(next.service), [20], "the session of the return, made once the read switched the SDK on")
        next.runScheduled()
        XCTAssertEqual(next.service.acceptedSessions.count, 1, "one session for the launch")
    }

    func testDeletingTheInstallsDataDropsItsSessionsAndStartsNoMore() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/sessions" ? HTTPResponse(statusCode: 503, body: "{}") : nil
        }
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.core.queuedSessionCount, 1)
        let deleted = expectation(description: "deleted")
        harness.core.deleteUserData { error in
            XCTAssertNil(error)
            deleted.fulfill()
        }
        wait(for: [deleted], timeout: 10)
        harness.settle()
        XCTAssertEqual(harness.core.queuedSessionCount, 0)
        XCTAssertEqual(harness.core.droppedSessionCount, 1)
        leave(harness, at: 10, returning: 4_000)
        harness.runScheduled()
        XCTAssertEqual(harness.core.queuedSessionCount, 0, "none after the deletion, the hour's refresh included")
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.core.queuedSessionCount, 0, "nor at the next launch")
    }
}
