import Foundation
import XCTest
@testable import ServiceAttribution

/// Consent (the app's answers and the consent platform's TCF values), its update route, and
/// anonymous mode, kept across launches.
final class ConsentTests: XCTestCase {
    private let tcString = "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA"

    private func consentUpdates(_ harness: Harness) -> [[String: JSONValue]] {
        return harness.service.requests.filter { $0.method == "POST" && FakeService.path($0).hasSuffix("/consent") }.compactMap(FakeService.body)
    }

    /// requests.json's `other` case "consent update", end to end.
    func testTheConsentUpdateRequest() throws {
        let other = try XCTUnwrap(try Vectors.conformance("requests.json")["other"] as? [[String: Any]])
        let testCase = try XCTUnwrap(other.first { ($0["platforms"] as? [String])?.contains("ios") == true && $0["name"] as? String == "consent update" })
        let input = try XCTUnwrap(testCase["input"] as? [String: Any])
        let consent = try XCTUnwrap(input["consent"] as? [String: Any])
        let tcf = try XCTUnwrap(input["tcf"] as? [String: Any])
        let request = try XCTUnwrap(testCase["request"] as? [String: Any])

        let harness = Harness()
        // The vector's device says nothing of its tracking (its `device` all null): no ATT
        // status, no IDFA.
        harness.device.trackingAuthorizationStatus = nil
        harness.device.idfa = nil
        XCTAssertNil(harness.configure())
        harness.eventually("install recorded") { harness.store.get(SdkCore.Key.installTracked) != nil }
        XCTAssertEqual(consentUpdates(harness).count, 0, "nothing known, nothing to update")
        harness.consentPlatform.tcString = tcf["IABTCF_TCString"] as? String
        harness.consentPlatform.gdprApplies = (tcf["IABTCF_gdprApplies"] as? Int).map { $0 == 1 }
        harness.core.setConsent(ServiceConsent(
            gdprApplies: consent["gdprApplies"] as? Bool,
            adUserData: consent["adUserData"] as? Bool,
            adPersonalization: consent["adPersonalization"] as? Bool
        ))
        harness.eventually("the update") { !self.consentUpdates(harness).isEmpty }
        let serviceId = try XCTUnwrap(harness.core.serviceIdentifier)
        let sent = try XCTUnwrap(harness.service.requests.first { FakeService.path($0).hasSuffix("/consent") })
        XCTAssertEqual(sent.method, request["method"] as? String)
        XCTAssertEqual(FakeService.path(sent), (request["path"] as? String)?.replacingOccurrences(of: "{{service_id}}", with: serviceId))
        XCTAssertEqual(sent.headers["Content-Type"], "application/json")
        XCTAssertEqual(JSONMatch.differences(try JSONValue.parse(try XCTUnwrap(sent.body)), try XCTUnwrap(request["body"])), [])
        XCTAssertEqual(FakeService.body(sent)?["sent_at"], .string(Requests.iso(harness.now)))
        // Sent once: the same consent again sends nothing.
        harness.core.setConsent(try XCTUnwrap(harness.core.currentConsent))
        harness.runScheduled(3)
        XCTAssertEqual(consentUpdates(harness).count, 1)
    }

    func testConsentSetBeforeTheInstallGoesWithItAndIsKeptAcrossLaunches() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        first.core.setConsent(ServiceConsent(gdprApplies: false, adUserData: true, adPersonalization: true))
        first.consentPlatform.gdprApplies = true
        XCTAssertNil(first.configure())
        first.eventually("install") { first.service.count("POST", "/v1/installs") == 1 }
        let install = try XCTUnwrap(FakeService.body(first.service.sent("POST", "/v1/installs")[0]))
        XCTAssertEqual(install["consent"], .object([
            // The app's gdprApplies wins over the consent platform's.
            "gdpr_applies": .bool(false), "ad_user_data": .bool(true), "ad_personalization": .bool(true), "tcf_string": .null,
        ]))
        first.runScheduled(3)
        XCTAssertEqual(consentUpdates(first).count, 0)

        let next = Harness(store: store)
        next.consentPlatform.gdprApplies = true
        XCTAssertNil(next.configure())
        next.runScheduled(3)
        XCTAssertEqual(next.core.currentConsent, ServiceConsent(gdprApplies: false, adUserData: true, adPersonalization: true))
        XCTAssertEqual(consentUpdates(next).count, 0, "unchanged: not sent again")
    }

    func testANewTcfStringAtAStartIsSentAsAConsentUpdate() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        first.consentPlatform.tcString = "CPold"
        XCTAssertNil(first.configure())
        first.eventually("install") { first.store.get(SdkCore.Key.installTracked) != nil }
        XCTAssertEqual(try XCTUnwrap(FakeService.body(first.service.sent("POST", "/v1/installs")[0]))["consent"]?.objectValue?["tcf_string"], .string("CPold"))

        let next = Harness(store: store)
        next.consentPlatform.tcString = tcString
        XCTAssertNil(next.configure())
        next.eventually("the update") { self.consentUpdates(next).count == 1 }
        XCTAssertEqual(consentUpdates(next).first?["consent"]?.objectValue?["tcf_string"], .string(tcString))
        XCTAssertEqual(consentUpdates(next).first?["consent"]?.objectValue?["gdpr_applies"], .null)
    }

    func testAConsentUpdateAnswered409SendsTheInstallAgainHoldingTheConsent() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        harness.service.answer = { request in
            guard FakeService.path(request).hasSuffix("/consent") else { return nil }
            return HTTPResponse(statusCode: 409, body: #"{"error":"Conflict","detail":"no install"}"#)
        }
        harness.core.setConsent(ServiceConsent(adUserData: false))
        _ = try harness.core.sendEvent(.share, name: nil, parameters: nil)
        harness.eventually("the consent update") { self.consentUpdates(harness).count == 1 }
        harness.runScheduled(3)
        // The service holds no install of this id: the install again, holding the consent, then the event.
        harness.eventually("the install again") { harness.service.count("POST", "/v1/installs") == 2 }
        let install = harness.service.sent("POST", "/v1/installs").last.flatMap(FakeService.body)
        XCTAssertEqual(install?["consent"]?.objectValue?["ad_user_data"], .bool(false))
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(consentUpdates(harness).count, 1, "the install carried it: not sent again")
        XCTAssertEqual(harness.log.messages(.error), [])
    }

    func testALinkOpenedOnceTheInstallIsRecordedIsNotTheOpenUrlOfTheInstallSentAgain() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        harness.core.handleDeepLink("https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d")
        harness.service.answer = { request in
            guard FakeService.path(request).hasSuffix("/consent") else { return nil }
            return HTTPResponse(statusCode: 409, body: #"{"error":"Conflict","detail":"no install"}"#)
        }
        harness.core.setConsent(ServiceConsent(adUserData: false))
        harness.eventually("the consent update") { self.consentUpdates(harness).count == 1 }
        harness.runScheduled(3)
        harness.eventually("the install again") { harness.service.count("POST", "/v1/installs") == 2 }
        let install = harness.service.sent("POST", "/v1/installs").last.flatMap(FakeService.body)
        XCTAssertEqual(install?["open_url"], .null, "a link of a later open did not bring the install")
    }

    func testAStopWhileTheInstallIsOnItsWaySendsNoConsentUpdateAfterIt() throws {
        let harness = Harness()
        var stopped = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/installs", !stopped else { return nil }
            // The user opts out while the install is sent: a new consent, and a stop.
            stopped = true
            harness.core.setConsent(ServiceConsent(adUserData: false))
            harness.core.stop()
            return nil
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the install") { harness.service.count("POST", "/v1/installs") == 1 }
        harness.runScheduled(3)
        harness.settle()
        XCTAssertEqual(consentUpdates(harness).count, 0, "nothing after the stop")
    }

    /// The POST requests the service got, by what they carry: `consent`, `events 0,1` (the
    /// events' indexes), or the path.
    private func posts(_ harness: Harness) -> [String] {
        return harness.service.requests.filter { $0.method == "POST" }.map { request -> String in
            let path = FakeService.path(request)
            if path.hasSuffix("/consent") { return "consent" }
            if path == "/v1/events" {
                return "events " + FakeService.events(request).compactMap(FakeService.index).map { String($0) }.joined(separator: ",")
            }
            return path
        }
    }

    func testAConsentSetWhileAnEventsRequestIsOnItsWayGoesBeforeTheEventSentAfterIt() throws {
        let harness = Harness(store: try Harness.given(queued: 2))
        var changed = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !changed else { return nil }
            // The user withdraws consent while the queued events are on their way, then the app
            // sends an event: the same send run takes it in its next batch.
            changed = true
            harness.core.setConsent(ServiceConsent(adUserData: false))
            _ = try harness.core.sendEvent(.levelComplete, name: nil, parameters: ["n": 2])
            return nil
        }
        XCTAssertNil(harness.configure())
        harness.eventually("every event") { harness.acceptedIndexes == [0, 1, 2] }
        XCTAssertEqual(posts(harness), ["/v1/sessions", "events 0,1", "consent", "events 2"], "the consent update goes before the event sent after it")
        XCTAssertEqual(consentUpdates(harness).first?["consent"]?.objectValue?["ad_user_data"], .bool(false))
    }

    /// Events 0 and 1 queued, the first batch on its way when a consent is withdrawn and event 2
    /// sent; then, while the consent update that goes before event 2's batch is on its way,
    /// `meanwhile` (a stop), once.
    private func whileTheConsentUpdateBeforeABatchIsOnItsWay(_ meanwhile: @escaping (Harness) -> Void) throws -> (Harness, Heard) {
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        var changed = false
        var done = false
        harness.service.answer = { request in
            let path = FakeService.path(request)
            if path == "/v1/events" && !changed {
                changed = true
                harness.core.setConsent(ServiceConsent(adUserData: false))
                _ = try harness.core.sendEvent(.levelComplete, name: nil, parameters: ["n": 2])
            } else if path.hasSuffix("/consent") && !done {
                done = true
                meanwhile(harness)
            }
            return nil
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled()
        harness.settle()
        return (harness, heard)
    }

    func testAStopMadeWhileTheConsentUpdateBeforeABatchIsOnItsWaySendsNothingOfThatBatch() throws {
        // The user opts out too, while the update goes.
        let (harness, heard) = try whileTheConsentUpdateBeforeABatchIsOnItsWay { $0.core.stop() }
        XCTAssertEqual(posts(harness), ["/v1/sessions", "events 0,1", "consent"], "nothing of the batch the stop dropped leaves after it")
        XCTAssertEqual(heard.dropped, ["stopped": 1])
        XCTAssertEqual(harness.queuedIndexes, [])
    }

    func testAStopAndAStartMadeWhileTheConsentUpdateBeforeABatchIsOnItsWayNeverSendTheBatchTheStopDropped() throws {
        // The user opts out and in again, as a consent screen's switch does, while the update
        // goes: the batch the stop dropped is dropped, never sent.
        let (harness, heard) = try whileTheConsentUpdateBeforeABatchIsOnItsWay { harness in
            harness.core.stop()
            harness.core.start()
        }
        XCTAssertFalse(posts(harness).contains("events 2"), "\(posts(harness))")
        XCTAssertEqual(heard.dropped, ["stopped": 1])
        XCTAssertEqual(harness.queuedIndexes, [])
    }

    func testAConsentUpdateAnswered404IsAConfigurationErrorThatHoldsBackNoEvent() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request).hasSuffix("/consent") ? HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no route"}"#) : nil
        }
        harness.core.setConsent(ServiceConsent(adPersonalization: false))
        harness.runScheduled()
        XCTAssertEqual(consentUpdates(harness).count, 1)
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0)] }, [["configuration", "404"]])
        // A service without the route still takes the events, and the consent is not asked again.
        _ = try harness.core.sendEvent(.share, name: nil, parameters: nil)
        harness.runScheduled()
        harness.eventually("the event after the refused update") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(consentUpdates(harness).count, 1)
    }

    func testAfterABareInstallTheConsentGoesThroughTheConsentRoute() throws {
        let harness = Harness()
        harness.core.setConsent(ServiceConsent(gdprApplies: true, adUserData: false, adPersonalization: false))
        // The full report refused for good (a device signal the service does not take): the bare one goes.
        harness.service.answer = { request in
            guard request.method == "POST", FakeService.path(request) == "/v1/installs", FakeService.body(request)?["consent"] != nil else { return nil }
            return HTTPResponse(statusCode: 422, body: #"{"error":"Unprocessable Entity","detail":"device_model"}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the consent update") { !self.consentUpdates(harness).isEmpty }
        let installs = harness.service.sent("POST", "/v1/installs").compactMap(FakeService.body)
        XCTAssertEqual(installs.count, 2)
        XCTAssertNil(installs[1]["consent"], "the bare install carries no consent")
        let update = try XCTUnwrap(consentUpdates(harness).first?["consent"]?.objectValue)
        XCTAssertEqual(update["ad_user_data"], .bool(false), "ad_user_data false reaches the service")
        XCTAssertEqual(update["gdpr_applies"], .bool(true))
    }

    func testAConsentRouteRefusalReportedHidesNoEventsRouteRefusal() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            let path = FakeService.path(request)
            if path.hasSuffix("/consent") { return HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no route"}"#) }
            if path == "/v1/events" { return HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"revoked"}"#) }
            return nil
        }
        harness.core.setConsent(ServiceConsent(adPersonalization: false))
        harness.runScheduled(3)
        try harness.sendIndexed(1)
        harness.runScheduled(3)
        XCTAssertEqual(
            heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0)] },
            [["configuration", "404"], ["configuration", "401"]],
            "each route's refusal heard once"
        )
        XCTAssertEqual(harness.queuedIndexes, [0], "the event stays queued")
    }

    func testATcfStringTooLongForTheServiceIsAWarningOnce() throws {
        let harness = Harness()
        harness.consentPlatform.tcString = String(repeating: "C", count: Requests.maxTcfStringLength + 1)
        harness.consentPlatform.gdprApplies = true
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        try harness.sendIndexed(2)
        harness.eventually("the events") { harness.acceptedIndexes == [0, 1] }
        let install = try XCTUnwrap(FakeService.body(harness.service.sent("POST", "/v1/installs")[0]))
        XCTAssertEqual(install["consent"]?.objectValue?["tcf_string"], .null)
        XCTAssertEqual(install["consent"]?.objectValue?["gdpr_applies"], .bool(true))
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("TCF string") }.count, 1)
    }

    func testAnonymousModeIsKeptAcrossLaunchesAndCoversEventsQueuedBefore() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure(customerUserId: "user-8812"))
        first.service.offline = true
        try first.core.sendEvent(.login, name: nil, parameters: nil)
        first.settle()
        first.core.setAnonymous(true)
        XCTAssertTrue(first.core.isAnonymous)

        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        XCTAssertTrue(next.core.isAnonymous)
        try next.core.sendEvent(.share, name: nil, parameters: nil)
        next.eventually("delivered") { next.service.acceptedEvents.count == 2 }
        XCTAssertEqual(next.service.acceptedEvents.map { $0.objectValue?["customer_user_id"] ?? .null }, [.null, .null])
        // Both leave marked, the one queued before the mode went on too.
        XCTAssertEqual(next.service.acceptedEvents.map { $0.objectValue?["anonymous"] }, [.bool(true), .bool(true)])

        next.core.setAnonymous(false)
        let third = Harness(store: store)
        XCTAssertNil(third.configure())
        XCTAssertFalse(third.core.isAnonymous)
        try third.core.sendEvent(.search, name: nil, parameters: nil)
        third.eventually("delivered") { third.service.acceptedEvents.count == 1 }
        XCTAssertEqual(third.service.acceptedEvents.first?.objectValue?["customer_user_id"], .string("user-8812"))
        XCTAssertNil(third.service.acceptedEvents.first?.objectValue?["anonymous"])
    }

    func testAnEventTakenWhileAnonymousNeverCarriesTheIdOnceAnonymousModeIsOff() throws {
        let harness = Harness()
        // Before configure: #0 taken while anonymous, #1 after anonymous mode went off; both are
        // queued only as configure runs, with anonymous mode off by then.
        harness.core.setCustomerUserId("user-8812")
        harness.core.setAnonymous(true)
        try harness.sendIndexed(1)
        harness.core.setAnonymous(false)
        try harness.sendIndexed(1, from: 1)
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes == [0, 1] }
        // Once configured, offline: #2 taken while anonymous, sent after it went off.
        harness.service.offline = true
        harness.core.setAnonymous(true)
        try harness.sendIndexed(1, from: 2)
        harness.settle()
        XCTAssertEqual(harness.queuedIndexes, [2])
        XCTAssertFalse(harness.store.get(EventQueue.Kind.events.key)?.contains("user-8812") ?? true, "kept on the device without the id")
        harness.core.setAnonymous(false)
        harness.service.offline = false
        harness.eventually("delivered") { harness.acceptedIndexes == [0, 1, 2] }
        XCTAssertEqual(
            harness.service.acceptedEvents.map { $0.objectValue?["customer_user_id"] ?? .null },
            [.null, .string("user-8812"), .null]
        )
        // #0 and #2 say they were taken anonymous; #1 has no such key.
        XCTAssertEqual(harness.service.acceptedEvents.map { $0.objectValue?["anonymous"] }, [.bool(true), nil, .bool(true)])
    }

    /// An event taken while anonymous, kept on the device across a relaunch, goes marked
    /// `anonymous` and without the customer user id once the mode is off.
    func testAnEventTakenWhileAnonymousLeavesMarkedAnonymousAfterARelaunchWithTheModeOff() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure(customerUserId: "user-8812"))
        first.service.offline = true
        first.core.setAnonymous(true)
        try first.sendIndexed(1)
        first.settle()
        first.core.setAnonymous(false)
        XCTAssertEqual(first.queuedIndexes, [0])

        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        XCTAssertFalse(next.core.isAnonymous)
        next.eventually("delivered") { next.acceptedIndexes == [0] }
        let event = try XCTUnwrap(next.service.acceptedEvents.first?.objectValue)
        XCTAssertEqual(event["anonymous"], .bool(true))
        XCTAssertEqual(event["customer_user_id"] ?? .null, .null)
    }

    /// An event queued with the customer user id leaves marked `anonymous`, without the id,
    /// when anonymous mode went on before it could be sent.
    func testAnEventTakenBeforeAnonymousModeWentOnLeavesMarkedAnonymous() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure(customerUserId: "user-8812"))
        harness.service.offline = true
        try harness.sendIndexed(1)
        harness.settle()
        XCTAssertTrue(harness.store.get(EventQueue.Kind.events.key)?.contains("user-8812") ?? false, "queued with the id")
        harness.core.setAnonymous(true)
        harness.service.offline = false
        harness.eventually("delivered") { harness.acceptedIndexes == [0] }
        let event = try XCTUnwrap(harness.service.acceptedEvents.first?.objectValue)
        XCTAssertEqual(event["anonymous"], .bool(true))
        XCTAssertEqual(event["customer_user_id"] ?? .null, .null)
    }

    /// An event taken outside anonymous mode that waited for a configuration while the mode was
    /// on is not marked for it: anonymous is decided when it was sent and when it leaves.
    func testAnEventThatWaitedForAConfigurationWhileAnonymousModeWasOnLeavesWithItsIdOnceTheModeIsOff() throws {
        let harness = Harness()
        var eventsDown = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", eventsDown else { return nil }
            throw ServiceAttributionError.network("offline")
        }
        harness.service.offline = true
        harness.configure(customerUserId: "user-8812")
        try harness.sendIndexed(1)
        harness.settle()
        harness.core.setAnonymous(true)
        // The configuration comes, the events still fail: #0 is queued while the mode is on.
        harness.service.offline = false
        harness.eventually("tried once the configuration came") { harness.service.count("POST", "/v1/events") >= 1 }
        harness.core.setAnonymous(false)
        eventsDown = false
        harness.eventually("delivered") { harness.acceptedIndexes == [0] }
        let event = try XCTUnwrap(harness.service.acceptedEvents.first?.objectValue)
        XCTAssertNil(event["anonymous"])
        XCTAssertEqual(event["customer_user_id"], .string("user-8812"))
    }

    /// An event taken and sent outside anonymous mode has no `anonymous` key at all (not even
    /// false or null), also once the mode was on and off again before it.
    func testAnEventSentOutsideAnonymousModeHasNoAnonymousKey() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure(customerUserId: "user-8812"))
        try harness.sendIndexed(1)
        harness.eventually("#0 delivered") { harness.acceptedIndexes == [0] }
        harness.core.setAnonymous(true)
        harness.core.setAnonymous(false)
        try harness.sendIndexed(1, from: 1)
        harness.eventually("#1 delivered") { harness.acceptedIndexes == [0, 1] }
        for event in harness.service.deliveredEvents {
            XCTAssertEqual(event.objectValue?["customer_user_id"], .string("user-8812"))
            XCTAssertEqual(event.objectValue?.keys.contains("anonymous"), false, event.text)
        }
    }

    // MARK: the device's tracking

    private static let nobodysConsent: JSONValue = .object([
        "gdpr_applies": .null, "ad_user_data": .null, "ad_personalization": .null, "tcf_string": .null,
    ])

    private func installRecorded(_ harness: Harness) throws -> [String: JSONValue] {
        harness.eventually("install recorded") { harness.store.get(SdkCore.Key.installTracked) != nil }
        return try XCTUnwrap(harness.service.sent("POST", "/v1/installs").last.flatMap(FakeService.body))
    }

    func testTheSameTrackingAtALaterStartSendsNoUpdate() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        let install = try installRecorded(first)
        XCTAssertEqual(install["maid"], .string(try XCTUnwrap(first.device.idfa)))
        XCTAssertEqual(install["att_status"], .string("authorized"))
        first.runScheduled(3)
        XCTAssertEqual(consentUpdates(first).count, 0)

        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        next.lifecycle.enterForeground()
        next.lifecycle.becomeActive()
        next.runScheduled(3)
        XCTAssertEqual(consentUpdates(next).count, 0, "the tracking the install reported: nothing to tell")
    }

    func testAttDeniedAtALaterStartSendsAnUpdateWithNoIdfaOnce() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        _ = try installRecorded(first)

        // The user turned tracking off in Settings while the app was not running.
        let next = Harness(store: store)
        next.device.trackingAuthorizationStatus = "denied"
        XCTAssertNil(next.configure())
        next.eventually("the update") { !self.consentUpdates(next).isEmpty }
        let update = try XCTUnwrap(consentUpdates(next).first)
        XCTAssertEqual(update["device"], .object(["maid": .null, "att_status": .string("denied")]))
        XCTAssertEqual(update["consent"], ConsentTests.nobodysConsent, "the consent as it stands, none known")
        XCTAssertEqual(next.service.count("POST", "/v1/installs"), 0, "the install is not reported again")
        next.lifecycle.becomeActive()
        next.runScheduled(3)
        XCTAssertEqual(consentUpdates(next).count, 1, "told once")

        let third = Harness(store: store)
        third.device.trackingAuthorizationStatus = "denied"
        XCTAssertNil(third.configure())
        third.runScheduled(3)
        XCTAssertEqual(consentUpdates(third).count, 0, "the last update's tracking: nothing to tell")
    }

    func testAttAnsweredDuringTheSessionIsSentAsTheAppBecomesActive() throws {
        let harness = Harness()
        harness.device.trackingAuthorizationStatus = "not_determined"
        XCTAssertNil(harness.configure())
        let install = try installRecorded(harness)
        XCTAssertEqual(install["maid"] ?? .null, .null)
        XCTAssertEqual(install["att_status"], .string("not_determined"))
        harness.runScheduled(3)
        XCTAssertEqual(consentUpdates(harness).count, 0)
        // The app shows ATT's prompt, which leaves it in the foreground; the user allows tracking.
        harness.device.trackingAuthorizationStatus = "authorized"
        harness.lifecycle.becomeActive()
        harness.eventually("the update") { !self.consentUpdates(harness).isEmpty }
        XCTAssertEqual(
            consentUpdates(harness).first?["device"],
            .object(["maid": .string(try XCTUnwrap(harness.device.idfa)), "att_status": .string("authorized")])
        )
    }

    func testAnonymousModeOnAfterTheInstallSendsAnUpdateWithNoIdfa() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        _ = try installRecorded(harness)
        harness.core.setAnonymous(true)
        harness.eventually("the update") { self.consentUpdates(harness).count == 1 }
        XCTAssertEqual(consentUpdates(harness)[0]["device"], .object(["maid": .null, "att_status": .string("authorized")]))
        // Off again: the IDFA the device gives goes back to the service.
        harness.core.setAnonymous(false)
        harness.eventually("the second update") { self.consentUpdates(harness).count == 2 }
        XCTAssertEqual(
            consentUpdates(harness)[1]["device"],
            .object(["maid": .string(try XCTUnwrap(harness.device.idfa)), "att_status": .string("authorized")])
        )
        harness.core.setAnonymous(false)
        harness.runScheduled(3)
        XCTAssertEqual(consentUpdates(harness).count, 2, "no change, nothing sent")
    }

    func testNoTrackingUpdateBeforeTheInstallIsRecorded() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/installs" ? HTTPResponse(statusCode: 503, body: #"{"error":"Service Unavailable"}"#) : nil
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled(2)
        XCTAssertNil(harness.store.get(SdkCore.Key.installTracked))
        harness.device.trackingAuthorizationStatus = "denied"
        harness.core.setAnonymous(true)
        harness.lifecycle.becomeActive()
        harness.runScheduled(2)
        XCTAssertEqual(consentUpdates(harness).count, 0, "no consent route before the install")
        harness.service.answer = nil
        let install = try installRecorded(harness)
        // The install reports the tracking as it stands when it goes: nothing is left to update.
        XCTAssertEqual(install["maid"] ?? .null, .null)
        XCTAssertEqual(install["att_status"], .string("denied"))
        harness.runScheduled(3)
        XCTAssertEqual(consentUpdates(harness).count, 0)
    }

    func testAnInstallRecordedWithoutItsTrackingKeptTellsTheTrackingOnce() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        _ = try installRecorded(first)
        // As an app stopped between the two writes leaves the device: the install recorded, its tracking not kept.
        store.remove(SdkCore.Key.trackingSent)
        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        next.eventually("the update") { !self.consentUpdates(next).isEmpty }
        next.runScheduled(3)
        XCTAssertEqual(consentUpdates(next).map { $0["device"] }, [.object(["maid": .string(try XCTUnwrap(next.device.idfa)), "att_status": .string("authorized")])])
    }

    func testTheConsentPlatformIsReadFromUserDefaults() throws {
        let defaults = try XCTUnwrap(UserDefaults(suiteName: "ConsentTests.\(UUID().uuidString)"))
        let platform = ConsentPlatformDefaults(defaults: defaults)
        XCTAssertNil(platform.tcString)
        XCTAssertNil(platform.gdprApplies)
        defaults.set(tcString, forKey: "IABTCF_TCString")
        defaults.set(1, forKey: "IABTCF_gdprApplies")
        XCTAssertEqual(platform.tcString, tcString)
        XCTAssertEqual(platform.gdprApplies, true)
        defaults.set(0, forKey: "IABTCF_gdprApplies")
        XCTAssertEqual(platform.gdprApplies, false)
        defaults.set("1", forKey: "IABTCF_gdprApplies")
        XCTAssertEqual(platform.gdprApplies, true)
    }

    func testATcfStringTooLongForTheServiceIsLeftOut() {
        let long = String(repeating: "C", count: Requests.maxTcfStringLength + 1)
        XCTAssertNil(Requests.consent(nil, tcString: long, tcfGdprApplies: nil))
        XCTAssertEqual(Requests.consent(nil, tcString: long, tcfGdprApplies: true)?.objectValue?["tcf_string"], .null)
    }
}
