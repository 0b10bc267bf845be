import Foundation
import XCTest
@testable import ServiceAttribution

/// Every scenario of sdk/conformance/delivery.json, against the SDK's own queue and transport
/// with a scripted service. Each event's parameter `n` is its index (the order `sendEvent` was
/// called in); "given queued" is a store an earlier launch left with those events on it.
final class DeliveryTests: XCTestCase {
    /// Each scenario's test, by the scenario's name: a scenario added to the vectors without a
    /// test here fails `testEveryScenarioOfTheVectorsHasItsTest`.
    static let scenarios: [String: (DeliveryTests) -> () throws -> Void] = [
        "a batch refused as a whole with 413 is split until the one event refused alone is known":
            DeliveryTests.testABatchRefusedAsAWholeWith413IsSplitUntilTheOneEventRefusedAloneIsKnown,
        "a 4xx naming no event (400, 422) splits the batch as a 413 does":
            DeliveryTests.testA4xxNamingNoEventSplitsTheBatchAsA413Does,
        "an event rejected by name in a 202 is dropped alone; one rejected as retryable is kept":
            DeliveryTests.testAnEventRejectedByNameIsDroppedAloneOneRejectedAsRetryableIsKept,
        "events the service ignores are reported by the reason it gives":
            DeliveryTests.testEventsTheServiceIgnoresAreReportedByTheReasonItGives,
        "a full queue drops its oldest event, with a warning and a count":
            DeliveryTests.testAFullQueueDropsItsOldestEventWithAWarningAndACount,
        "an event older than the backend keeps is dropped before it is sent":
            DeliveryTests.testAnEventOlderThanTheBackendKeepsIsDroppedBeforeItIsSent,
        "a 2xx whose body is not the contract's is retried like a 5xx":
            DeliveryTests.testA2xxWhoseBodyIsNotTheContractsIsRetriedLikeA5xx,
        "a 4xx whose body is not the service's is retried like a 5xx, never a refusal":
            DeliveryTests.testA4xxWhoseBodyIsNotTheServicesIsRetriedLikeA5xxNeverARefusal,
        "every events request carries sent_at, the device clock when it left":
            DeliveryTests.testEveryEventsRequestCarriesSentAtTheDeviceClockWhenItLeft,
        "an install refused with 404 is a configuration error, not a stall":
            DeliveryTests.testAnInstallRefusedWith404IsAConfigurationErrorNotAStall,
        "an install refused with 401 or 403 keeps its events queued":
            DeliveryTests.testAnInstallRefusedWith401Or403KeepsItsEventsQueued,
        "an install refused with another 4xx is sent bare once, then reported":
            DeliveryTests.testAnInstallRefusedWithAnother4xxIsSentBareOnceThenReported,
        "stopped means no request at all, and it survives a restart":
            DeliveryTests.testStoppedMeansNoRequestAtAllAndItSurvivesARestart,
        "stopping drops what was queued, with the reason stopped":
            DeliveryTests.testStoppingDropsWhatWasQueuedWithTheReasonStopped,
        "events sent before configure are delivered once it runs":
            DeliveryTests.testEventsSentBeforeConfigureAreDeliveredOnceItRuns,
    ]

    /// A scenario of the vectors, by its name.
    static func scenario(_ name: String) throws -> [String: Any] {
        let scenarios = try XCTUnwrap(try Vectors.conformance("delivery.json")["scenarios"] as? [[String: Any]])
        return try XCTUnwrap(scenarios.first { $0["name"] as? String == name }, name)
    }

    func testEveryScenarioOfTheVectorsHasItsTest() throws {
        let vectors = try Vectors.conformance("delivery.json")
        let names = try XCTUnwrap(vectors["scenarios"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(names), Set(DeliveryTests.scenarios.keys))
        // The drop reasons and error kinds are the SDK's.
        let reasons = try XCTUnwrap(vectors["dropReasons"] as? [String: Any]).keys
        for reason in reasons { XCTAssertNotNil(ServiceError.DropReason(rawValue: reason), reason) }
        XCTAssertEqual(Set(reasons), Set([ServiceError.DropReason.queueFull, .refused, .expired, .stopped, .disabled, .deleted].map { $0.rawValue }))
        let kinds = try XCTUnwrap(vectors["errorKinds"] as? [String: Any]).keys
        XCTAssertEqual(Set(kinds), Set([ServiceError.Kind.configuration, .eventsDropped, .conversionValue].map { $0.rawValue }))
        let limits = try XCTUnwrap(vectors["limits"] as? [String: Int])
        let settings = SdkSettings(baseURL: "")
        XCTAssertEqual(settings.maxQueuedEvents, limits["maxQueuedEvents"])
        XCTAssertEqual(settings.maxEventsPerRequest, limits["maxEventsPerRequest"])
        XCTAssertEqual(settings.maxEventAge, TimeInterval(try XCTUnwrap(limits["maxEventAgeDays"])) * 86_400)
        XCTAssertEqual(settings.retryDelay, TimeInterval(try XCTUnwrap(limits["firstRetryDelaySeconds"])))
        XCTAssertEqual(settings.maxRetryDelay, TimeInterval(try XCTUnwrap(limits["maxRetryDelaySeconds"])))
    }

    /// A service that refuses, with `status` and a detail naming no event, any events request
    /// that holds one of `indexes`.
    private func refusing(_ status: Int, holding indexes: Set<Int>) -> (HTTPRequest) -> HTTPResponse? {
        return { request in
            guard FakeService.path(request) == "/v1/events",
                  FakeService.events(request).contains(where: { FakeService.index($0).map { indexes.contains($0) } ?? false }) else { return nil }
            return HTTPResponse(statusCode: status, body: #"{"error":"Refused","detail":"the request is refused as a whole"}"#)
        }
    }

    private func assertSplit(
        queued count: Int, status: Int, refused index: Int, next: ClosedRange<Int>, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let harness = Harness(store: try Harness.given(queued: count))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = refusing(status, holding: [index])
        XCTAssertNil(harness.configure())
        harness.eventually("the queue emptied") { harness.queuedIndexes.isEmpty }
        // Every event but the refused one, in order, each stored once.
        XCTAssertEqual(harness.acceptedIndexes, (0..<count).filter { $0 != index }, file: file, line: line)
        XCTAssertEqual(heard.errors, [ServiceError(
            kind: .eventsDropped, reason: .refused, code: nil, count: 1,
            message: try XCTUnwrap(heard.errors.first?.message)
        )], file: file, line: line)
        XCTAssertEqual(harness.core.droppedEventCount, 1, file: file, line: line)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("dropped (refused)") }.count, 1, file: file, line: line)
        // No request held more than the limit; the refused event went alone once.
        let batches = harness.service.sent("POST", "/v1/events").map(FakeService.events)
        XCTAssertTrue(batches.allSatisfy { $0.count <= 100 }, file: file, line: line)
        XCTAssertEqual(batches.filter { $0.count == 1 && FakeService.index($0[0]) == index }.count, 1, file: file, line: line)
        // Found alone, the refused one ends the search: the next request is whole again.
        let indexes = batches.map { $0.compactMap(FakeService.index) }
        let alone = try XCTUnwrap(indexes.firstIndex(of: [index]), file: file, line: line)
        XCTAssertEqual(indexes[alone + 1], Array(next), file: file, line: line)
        // Splitting is over: what follows goes 100 a request again (queued while offline, so
        // that all 150 wait together).
        harness.service.offline = true
        try harness.sendIndexed(150, from: count)
        harness.settle()
        harness.service.offline = false
        harness.eventually("the next events") { harness.acceptedIndexes.count == count - 1 + 150 }
        let after = harness.service.sent("POST", "/v1/events").suffix(2).map { FakeService.events($0).count }
        XCTAssertEqual(after, [100, 50], file: file, line: line)
    }

    func testABatchRefusedAsAWholeWith413IsSplitUntilTheOneEventRefusedAloneIsKnown() throws {
        try assertSplit(queued: 150, status: 413, refused: 37, next: 38...137)
    }

    func testA4xxNamingNoEventSplitsTheBatchAsA413Does() throws {
        try assertSplit(queued: 10, status: 422, refused: 4, next: 5...9)
        try assertSplit(queued: 10, status: 400, refused: 4, next: 5...9)
    }

    func testABatchTooLargeWithNoBadEventIsDeliveredWholeInHalves() throws {
        let harness = Harness(store: try Harness.given(queued: 100))
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", FakeService.events(request).count > 50 else { return nil }
            return HTTPResponse(statusCode: 413, body: #"{"error":"Payload Too Large","detail":"too large"}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes.count == 100 }
        XCTAssertEqual(harness.acceptedIndexes, Array(0..<100))
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testAnEventRejectedByNameIsDroppedAloneOneRejectedAsRetryableIsKept() throws {
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        var answered = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !answered else { return nil }
            answered = true
            return HTTPResponse(statusCode: 202, body: #"{"accepted":1,"ignored":[],"rejected":[{"index":1,"event_id":"a","error":"Unprocessable Entity","detail":"event_time: is required","retryable":false},{"index":2,"event_id":"b","error":"Conflict","detail":"install not recorded yet","retryable":true}],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("#2 delivered") { harness.acceptedIndexes == [0, 2] }
        let batches = harness.service.sent("POST", "/v1/events").map { FakeService.events($0).compactMap(FakeService.index) }
        XCTAssertEqual(batches, [[0, 1, 2], [2]])
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] }, [["events_dropped", "refused", "1"]])
        XCTAssertEqual(harness.core.droppedEventCount, 1)
        XCTAssertTrue(harness.queuedIndexes.isEmpty)
    }

    func testEventsTheServiceIgnoresAreReportedByTheReasonItGives() throws {
        let harness = Harness(store: try Harness.given(queued: 4))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":1,"ignored":[{"index":0,"event_id":"a","reason":"install_deleted","detail":"in words"},{"index":1,"event_id":"b","reason":"app_disabled","detail":"in words"},{"index":2,"event_id":"c","reason":"app_disabled","detail":"in words"}],"rejected":[],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the batch answered") { harness.queuedIndexes.isEmpty }
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] },
                       [["events_dropped", "deleted", "1"], ["events_dropped", "disabled", "2"]])
        XCTAssertEqual(harness.core.droppedEventCount, 3)
    }

    func testARepeatTheServiceStoredOnceIsDeliveredNotDropped() throws {
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":1,"ignored":[{"index":1,"event_id":"b","reason":"duplicate_event","detail":"an event of this install with this event_id came earlier in the request"}],"rejected":[],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the batch answered") { harness.queuedIndexes.isEmpty }
        XCTAssertTrue(heard.errors.isEmpty, "the service kept the event: nothing was lost")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testARepeatIsDeliveredAndAnItemTheAnswerNamesNotIsStillOneDrop() throws {
        // Of three, one stored, one a repeat of it, one neither accepted nor named: that one is
        // lost and told, the repeat is not.
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":1,"ignored":[{"index":1,"event_id":"b","reason":"duplicate_event","detail":"in words"},{"index":1,"event_id":"b","reason":"duplicate_event","detail":"named twice"}],"rejected":[],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the batch answered") { harness.queuedIndexes.isEmpty }
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] }, [["events_dropped", "refused", "1"]])
        XCTAssertEqual(harness.core.droppedEventCount, 1)
        XCTAssertEqual(harness.log.messages(.info).filter { $0.contains("1 event repeated an id sent earlier in the same request") }.count, 1)
    }

    func testAnEventStoredNotQuiteAsSentIsDeliveredAndTheServicesWarningLogged() throws {
        let harness = Harness(store: try Harness.given(queued: 1))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":1,"ignored":[],"rejected":[],"warnings":[{"index":0,"event_id":"a","detail":"parameters.currency: XYZ is no currency code; the revenue is not recorded"}]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the batch answered") { harness.queuedIndexes.isEmpty }
        XCTAssertTrue(heard.errors.isEmpty, "delivered: nothing was lost")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("event stored with a change: #0 (a)") && $0.contains("XYZ") }.count, 1)
    }

    func testADeletionMadeThroughTheServicesApiIsLearnedFromItsAnswersAndKept() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        // The app's backend deleted the install on a person's request: the service ignores what
        // comes for it from now on.
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[{"index":0,"event_id":"a","reason":"install_deleted","detail":"in words"}],"rejected":[],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.core.setCustomerUserId("user-8812")
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.eventually("the deletion is kept") { harness.store.get(SdkCore.Key.deleted) == "1" }
        XCTAssertNil(harness.store.get(SdkCore.Key.customerUserId), "the customer user id goes with the data")
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] }, [["events_dropped", "deleted", "1"]])
        // Nothing more is taken or sent, in this launch or the next.
        XCTAssertFalse(try harness.core.sendEvent(.share, name: nil, parameters: nil))
        let posted = harness.service.count("POST", "/v1/events")
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertFalse(try next.core.sendEvent(.search, name: nil, parameters: nil))
        next.settle()
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), posted)
    }

    func testAFullQueueDropsItsOldestEventWithAWarningAndACount() throws {
        let store = try Harness.given(queued: 1000)
        let harness = Harness(store: store)
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNotNil(harness.configure())
        try harness.sendIndexed(5, from: 1000)
        harness.settle()
        XCTAssertEqual(harness.core.queuedEventCount, 1000)
        XCTAssertEqual(harness.queuedIndexes, Array(5..<1005), "#0 to #4 dropped, the oldest first")
        XCTAssertEqual(harness.core.droppedEventCount, 5)
        XCTAssertEqual(heard.dropped, ["queue_full": 5])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("dropped (queue_full)") }.count, 5)
        // The count is kept on the device.
        let next = Harness(store: store)
        next.service.offline = true
        next.configure()
        XCTAssertEqual(next.core.droppedEventCount, 5)
    }

    func testAnEventOlderThanTheBackendKeepsIsDroppedBeforeItIsSent() throws {
        let harness = Harness(store: try Harness.given(queued: 2, ages: [0: 31 * 86_400]))
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.eventually("#1 delivered") { harness.acceptedIndexes == [1] }
        XCTAssertEqual(harness.service.deliveredEvents.compactMap(FakeService.index), [1], "#0 never sent")
        XCTAssertEqual(heard.dropped, ["expired": 1])
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }

    func testA2xxWhoseBodyIsNotTheContractsIsRetriedLikeA5xx() throws {
        try assertRetriedLikeA5xx("a 2xx whose body is not the contract's is retried like a 5xx")
    }

    func testA4xxWhoseBodyIsNotTheServicesIsRetriedLikeA5xxNeverARefusal() throws {
        try assertRetriedLikeA5xx("a 4xx whose body is not the service's is retried like a 5xx, never a refusal")
    }

    /// The scenario's answer, not the service's, to the first events request: both events
    /// delivered on the second attempt, after the first retry delay, with a warning and no drop.
    private func assertRetriedLikeA5xx(_ name: String) throws {
        let scenario = try DeliveryTests.scenario(name)
        let events = try XCTUnwrap((scenario["backend"] as? [String: Any])?["events"] as? [String: Any])
        let status = try XCTUnwrap(events["status"] as? Int)
        let body = try XCTUnwrap(events["body"] as? String)
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        var times = 0
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", times < 1 else { return nil }
            times += 1
            return HTTPResponse(statusCode: status, body: body)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes == [0, 1] }
        let attempts = harness.service.sent("POST", "/v1/events")
        XCTAssertEqual(attempts.count, 2)
        // The second attempt left after the first retry delay, 2 s by the device clock.
        let sentAt = attempts.compactMap { FakeService.body($0)?["sent_at"]?.stringValue }
        XCTAssertEqual(sentAt, [Requests.iso(Harness.epoch), Requests.iso(Harness.epoch.addingTimeInterval(2))])
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        XCTAssertEqual(heard.errors, [])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("POST /v1/events answered \(status)") && $0.contains(body) }.count, 1)
    }

    func testTheRetryDelayDoublesToAMinute() throws {
        let harness = Harness(store: try Harness.given(queued: 1))
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? HTTPResponse(statusCode: 503, body: "{}") : nil
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled(8)
        let retries = harness.scheduler.delays.filter { $0 < 3600 }
        XCTAssertEqual(Array(retries.prefix(7)), [2, 4, 8, 16, 32, 60, 60])
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testTheRetryable4xxOfTheVectorsAreRetriedWholeNeverSplitNorDropped() throws {
        let retryable = try XCTUnwrap(try Vectors.conformance("delivery.json")["retryable4xx"] as? [Int])
        XCTAssertEqual(retryable, [408, 425, 429])
        for status in 400...499 {
            XCTAssertEqual(SdkCore.isRetryable(status), retryable.contains(status), "HTTP \(status)")
        }
        for status in retryable {
            let harness = Harness(store: try Harness.given(queued: 3))
            let heard = Heard()
            heard.listen(to: harness.core)
            var answered = false
            harness.service.answer = { request in
                guard FakeService.path(request) == "/v1/events", !answered else { return nil }
                answered = true
                return HTTPResponse(statusCode: status, body: #"{"error":"Too Early","detail":"sent again later"}"#)
            }
            XCTAssertNil(harness.configure())
            harness.eventually("HTTP \(status): delivered") { harness.acceptedIndexes == [0, 1, 2] }
            XCTAssertEqual(harness.service.sent("POST", "/v1/events").map { FakeService.events($0).count }, [3, 3], "HTTP \(status): never halved")
            XCTAssertEqual(harness.core.droppedEventCount, 0, "HTTP \(status)")
            XCTAssertEqual(heard.errors, [], "HTTP \(status)")
        }
    }

    func testEveryEventsRequestCarriesSentAtTheDeviceClockWhenItLeft() throws {
        let harness = Harness()
        harness.clockOffset = 30 * 3600
        XCTAssertNil(harness.configure())
        try harness.sendIndexed(1)
        harness.eventually("delivered") { harness.acceptedIndexes == [0] }
        let request = try XCTUnwrap(harness.service.sent("POST", "/v1/events").first)
        let body = try XCTUnwrap(FakeService.body(request))
        XCTAssertEqual(Set(body.keys), ["sent_at", "events"])
        XCTAssertEqual(body["sent_at"], .string(Requests.iso(harness.now)), "the device clock, 30 hours ahead")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testAnEventMadeWhileTheClockWasDaysAheadLeavesAtItsSendOnceTheClockIsRight() throws {
        // #0 made with the clock two days ahead, put right before it leaves; #1 made since.
        let harness = Harness(store: try Harness.given(queued: 2, ages: [0: -48 * 3600]))
        XCTAssertNil(harness.configure())
        harness.eventually("both delivered") { harness.acceptedIndexes == [0, 1] }
        let request = try XCTUnwrap(harness.service.sent("POST", "/v1/events").first)
        let sentAt = try XCTUnwrap(FakeService.body(request)?["sent_at"])
        let times = FakeService.events(request).map { $0.objectValue?["event_time"] }
        XCTAssertEqual(times.first, sentAt, "moved back to its send: the service refuses one 24 hours after it")
        XCTAssertNotEqual(times.last, sentAt, "one made before its send leaves as made")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testAnInstallRefusedWith404IsAConfigurationErrorNotAStall() throws {
        let store = try Harness.given(queued: 3, installRecorded: false)
        let harness = Harness(store: store)
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/installs" ? HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no route"}"#) : nil
        }
        XCTAssertNil(harness.configure())
        try harness.sendIndexed(1, from: 3)
        harness.runScheduled()
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0), String($0.count)] }, [["configuration", "404", "1"]])
        XCTAssertEqual(harness.log.messages(.error).count, 1, "\(harness.log.messages(.error))")
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1, "not tried again in this process")
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 0)
        XCTAssertEqual(harness.queuedIndexes, [0, 1, 2, 3])
        XCTAssertEqual(harness.core.droppedEventCount, 0)

        let restarted = Harness(store: store)
        XCTAssertNil(restarted.configure())
        restarted.eventually("delivered after the restart") { restarted.acceptedIndexes == [0, 1, 2, 3] }
        XCTAssertEqual(restarted.service.count("POST", "/v1/installs"), 1)
    }

    func testAnInstallRefusedWith401Or403KeepsItsEventsQueued() throws {
        for status in [401, 403] {
            let harness = Harness(store: try Harness.given(queued: 2, installRecorded: false))
            let heard = Heard()
            heard.listen(to: harness.core)
            var refusing = true
            harness.service.answer = { request in
                guard FakeService.path(request) == "/v1/installs", refusing else { return nil }
                return HTTPResponse(statusCode: status, body: #"{"error":"Unauthorized","detail":"the key was revoked"}"#)
            }
            XCTAssertNil(harness.configure())
            harness.runScheduled()
            XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0), String($0.count)] }, [["configuration", String(status), "1"]])
            XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1)
            XCTAssertEqual(harness.queuedIndexes, [0, 1], "the events stay queued")
            XCTAssertFalse(harness.core.isSdkDisabled, "a refused install does not disable the SDK")
            // refreshConfig tries the install again.
            refusing = false
            let refreshed = expectation(description: "refreshed")
            harness.core.refreshConfig { _ in refreshed.fulfill() }
            wait(for: [refreshed], timeout: 10)
            harness.eventually("delivered after refreshConfig") { harness.acceptedIndexes == [0, 1] }
            XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 2)
        }
    }

    func testAKeyRejectedOnGetConfigDisablesAndDropsTheQueueAsDisabled() throws {
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"bad key"}"#) : nil
        }
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .authentication(statusCode: 401))
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(heard.dropped, ["disabled": 2])
        XCTAssertTrue(harness.queuedIndexes.isEmpty)
    }

    func testAKeyRejectedOnARefreshEndsTheReadingUntilRefreshConfig() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        var rejecting = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/config", rejecting else { return nil }
            return HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"revoked"}"#)
        }
        harness.eventually("the refresh rejected") { harness.core.isSdkDisabled }
        let reads = harness.service.count("GET", "/v1/config")
        harness.runScheduled()
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), reads, "not asked again with a key the service refuses")
        rejecting = false
        let refreshed = expectation(description: "refreshed")
        harness.core.refreshConfig { error in
            XCTAssertNil(error)
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 10)
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), reads + 1)
        XCTAssertFalse(harness.core.isSdkDisabled)
    }

    func testAKeyRejectedOnARefreshIsToldToTheAppAsAtConfigureOnce() throws {
        // Kotlin tells InitListener.onError and getLastInitError(), Unity its error listener: the
        // app hears of a key revoked after configure, not the log alone. As at configure: the
        // error in `lastInitError`, at error level in the log, the SDK off; and, as no completion
        // waits for the periodic read, a configuration error with the status to the listeners.
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        XCTAssertNil(harness.core.initError)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"revoked"}"#) : nil
        }
        harness.eventually("the refresh rejected") { harness.core.isSdkDisabled }
        XCTAssertEqual(harness.core.initError as? ServiceAttributionError, .authentication(statusCode: 401))
        let told = heard.errors.filter { $0.kind == .configuration }
        XCTAssertEqual(told, [ServiceError(
            kind: .configuration, reason: nil, code: 401, count: 1,
            message: try XCTUnwrap(told.first?.message)
        )])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.hasPrefix("remote configuration refresh: the API key was rejected") }.count, 1)

        // Once: read again as start() restarts a stopped SDK, and rejected again, the key is
        // still the one error to fix, not told a second time.
        let reads = harness.service.count("GET", "/v1/config")
        harness.core.stop()
        harness.core.start()
        harness.settle()
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), reads + 1)
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(heard.errors.filter { $0.kind == .configuration }.count, 1)
        XCTAssertEqual(harness.core.initError as? ServiceAttributionError, .authentication(statusCode: 401))
    }

    func testAKeyRefreshConfigFindsRejectedEndsThePeriodicReading() throws {
        // refreshConfig's completion tells the app; the hourly read scheduled before it would
        // otherwise ask again with the refused key and tell the error listener a second time.
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"revoked"}"#) : nil
        }
        let refreshed = expectation(description: "refreshed")
        var answer: Error?
        harness.core.refreshConfig { error in
            answer = error
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 60)
        XCTAssertEqual(answer as? ServiceAttributionError, .authentication(statusCode: 401))
        XCTAssertTrue(harness.core.isSdkDisabled)
        let reads = harness.service.count("GET", "/v1/config")
        harness.runScheduled()
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), reads)
        XCTAssertEqual(heard.errors.filter { $0.kind == .configuration }, [])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.hasPrefix("remote configuration refresh: the API key was rejected") }.count, 1)
    }

    func testA403OnGetConfigIsAFirewallsBlockThatSwitchesNothingOffAndDropsNothing() throws {
        // The service rejects a key with 401; a web firewall in front answers 403 for a phone's
        // address on its block list.
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 403, body: #"{"error":"Forbidden","detail":"Forbidden"}"#) : nil
        }
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .http(statusCode: 403, message: "HTTP 403: GET /v1/config refused by something between the app and the service"))
        XCTAssertFalse(harness.core.isSdkDisabled)
        XCTAssertEqual(heard.dropped, [:])
        harness.eventually("sent under the configuration in force") { harness.service.deliveredEvents.count == 2 }
    }

    func testAnAppSwitchedOffByRemoteConfigurationDropsItsQueueAsDisabled() throws {
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.config = #"{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
        XCTAssertNil(harness.configure())
        XCTAssertEqual(heard.dropped, ["disabled": 3])
        XCTAssertEqual(harness.core.droppedEventCount, 3)
    }

    func testDeletingTheInstallsDataDropsItsQueueAsDeleted() throws {
        let store = try Harness.given(queued: 2)
        let harness = Harness(store: store)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? HTTPResponse(statusCode: 503, body: "{}") : nil
        }
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        let deleted = expectation(description: "deleted")
        harness.core.deleteUserData { error in
            XCTAssertNil(error)
            deleted.fulfill()
        }
        wait(for: [deleted], timeout: 10)
        harness.settle()
        XCTAssertEqual(heard.dropped, ["deleted": 2])
        XCTAssertFalse(try harness.core.sendEvent(.login, name: nil, parameters: nil), "the service ignores a deleted install's events")
        // Kept across launches.
        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        XCTAssertFalse(try next.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(next.core.attributionParams(), [SdkCore.matchStatus: "skipped"])
    }

    func testADeletionAnsweredByAProxysPageFailsAsNoAnswerOfTheServicesAndDeletesNothing() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.service.answer = { request in
            guard request.method == "DELETE" else { return nil }
            return HTTPResponse(statusCode: 407, body: "<html>Proxy Authentication Required</html>")
        }
        let failed = expectation(description: "failed")
        harness.core.deleteUserData { error in
            // One of the SDK's own errors, as the Kotlin SDK's IOException is: `network`.
            guard case .network(let message)? = error as? ServiceAttributionError else {
                return XCTFail("\(String(describing: error))")
            }
            XCTAssertTrue(message.contains("407"), message)
            failed.fulfill()
        }
        wait(for: [failed], timeout: 10)
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil), "the install's data is not deleted")
    }

    func testAnInstallRefusedWithAnother4xxIsSentBareOnceThenReported() throws {
        let harness = Harness(store: try Harness.given(queued: 1, installRecorded: false))
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/installs" ? HTTPResponse(statusCode: 422, body: #"{"error":"Unprocessable Entity","detail":"body.os: must be one of android, ios"}"#) : nil
        }
        XCTAssertNil(harness.configure())
        harness.runScheduled()
        let installs = harness.service.sent("POST", "/v1/installs").compactMap(FakeService.body)
        XCTAssertEqual(installs.count, 2)
        XCTAssertNotNil(installs.first?["locale"], "the full body first")
        XCTAssertEqual(Set(installs.last?.keys.map { $0 } ?? []), ["service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at"])
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, String($0.code ?? 0), String($0.count)] }, [["configuration", "422", "1"]])
        XCTAssertEqual(harness.queuedIndexes, [0])
    }

    func testStoppedMeansNoRequestAtAllAndItSurvivesARestart() throws {
        // Stopped before the first launch's configure: not even GET /v1/config.
        let store = MemoryStore()
        let first = Harness(store: store)
        first.core.stop()
        XCTAssertNil(first.configure())
        XCTAssertFalse(try first.core.sendEvent(.login, name: nil, parameters: nil))
        first.runScheduled()
        XCTAssertEqual(first.service.requests, [])

        let restarted = Harness(store: store)
        XCTAssertNil(restarted.configure())
        XCTAssertTrue(restarted.core.isStopped)
        XCTAssertFalse(try restarted.core.sendEvent(.login, name: nil, parameters: nil))
        restarted.runScheduled()
        XCTAssertEqual(restarted.service.requests, [])
        XCTAssertEqual(restarted.core.queuedEventCount, 0)
        XCTAssertEqual(restarted.core.attributionParams(), [SdkCore.matchStatus: "not_configured"])

        // start() sends the install, never sent, and the events sent after it.
        restarted.core.start()
        XCTAssertFalse(restarted.core.isStopped)
        try restarted.sendIndexed(2)
        restarted.eventually("delivered after start") { restarted.acceptedIndexes == [0, 1] }
        XCTAssertEqual(restarted.service.count("GET", "/v1/config"), 1)
        XCTAssertEqual(restarted.service.count("POST", "/v1/installs"), 1)
        // Started is kept too.
        let later = Harness(store: store)
        XCTAssertNil(later.configure())
        XCTAssertFalse(later.core.isStopped)
    }

    func testStoppedAfterTheInstallSendsNothingMore() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("attribution read") { harness.core.attributionParams()[SdkCore.matchStatus] == "organic" }
        let before = harness.service.requests.count
        harness.core.stop()
        XCTAssertFalse(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.core.setConsent(ServiceConsent(adUserData: false))
        let refreshed = expectation(description: "refresh")
        harness.core.refreshConfig { _ in refreshed.fulfill() }
        wait(for: [refreshed], timeout: 10)
        harness.runScheduled()
        XCTAssertEqual(harness.service.requests.count, before, "no request at all, not even the hour's GET /v1/config")
    }

    func testStoppingDropsWhatWasQueuedWithTheReasonStopped() throws {
        let store = try Harness.given(queued: 4)
        let harness = Harness(store: store)
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.configure()
        harness.core.stop()
        harness.settle()
        XCTAssertEqual(harness.core.queuedEventCount, 0)
        XCTAssertTrue(harness.queuedIndexes.isEmpty)
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] }, [["events_dropped", "stopped", "4"]])
        XCTAssertEqual(harness.core.droppedEventCount, 4)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("4 events dropped (stopped)") }.count, 1)
    }

    func testAStartOnAnotherThreadRightAfterAStopKeepsItsOwnSessionAndEvents() throws {
        // Four events an earlier launch queued, and this launch's session, wait while the
        // service cannot be reached. The user opts out, and a thread of the app's starts the SDK
        // again and sends an event while that stop() is still under way (it says it in the log,
        // once it emptied the queues under the lock start() takes): the stop drops what was
        // queued before it, and only that; the start's session and the event sent after it are
        // kept, and sent.
        let harness = Harness(store: try Harness.given(queued: 4))
        harness.service.offline = true
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.configure()
        XCTAssertEqual(harness.core.queuedEventCount, 4)
        XCTAssertEqual(harness.core.queuedSessionCount, 1)
        var startReturned = false
        var taken = false
        harness.log.whenWritten = { _, message in
            guard message.hasPrefix("stopped by the app: nothing is sent or queued"), !startReturned else { return }
            let returned = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                harness.core.start()
                taken = (try? harness.core.sendEvent(.levelComplete, name: nil, parameters: ["n": 100])) ?? false
                returned.signal()
            }
            startReturned = returned.wait(timeout: .now() + 10) == .success
        }
        harness.core.stop()
        harness.settle()
        XCTAssertTrue(startReturned, "the other thread's start() and sendEvent returned while the stop was under way")
        XCTAssertTrue(taken)
        XCTAssertFalse(harness.core.isStopped)
        XCTAssertEqual(heard.dropped, ["stopped": 4], "the events queued before the stop, and none sent after the start")
        XCTAssertEqual(harness.core.droppedSessionCount, 1, "the launch's session, not the start's")
        XCTAssertEqual(harness.queuedIndexes, [100])
        XCTAssertEqual(harness.core.queuedSessionCount, 1, "the start's session")
        harness.service.offline = false
        harness.eventually("the event sent after the start") { harness.acceptedIndexes == [100] }
        harness.eventually("the start's session") { harness.service.acceptedSessions.count == 1 }
        XCTAssertEqual(heard.dropped, ["stopped": 4])
        XCTAssertEqual(harness.core.droppedEventCount, 4)
    }

    func testAStopWhileABatchIsOnItsWayDropsTheRestButNotWhatTheServiceAccepts() throws {
        var settings = Harness.settings
        settings.maxEventsPerRequest = 2
        let harness = Harness(store: try Harness.given(queued: 5))
        let heard = Heard()
        heard.listen(to: harness.core)
        var stopped = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !stopped else { return nil }
            // The user opts out while the first batch is on its way; the service stores it.
            stopped = true
            harness.core.stop()
            return nil
        }
        XCTAssertNil(harness.configure(settings: settings))
        harness.runScheduled()
        XCTAssertEqual(harness.acceptedIndexes, [0, 1])
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 1, "nothing leaves after the stop")
        XCTAssertEqual(heard.dropped, ["stopped": 3], "only the events that never left")
        XCTAssertEqual(harness.core.droppedEventCount, 3)
        XCTAssertEqual(harness.core.queuedEventCount, 0)
        XCTAssertEqual(harness.queuedIndexes, [], "nothing of it on the device for a later launch")
    }

    func testAStopWhileABatchIsOnItsWayThatFailsDropsItOnceItsAnswerIsIn() throws {
        var settings = Harness.settings
        settings.maxEventsPerRequest = 2
        let harness = Harness(store: try Harness.given(queued: 5))
        let heard = Heard()
        heard.listen(to: harness.core)
        var stopped = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events" else { return nil }
            if !stopped {
                stopped = true
                harness.core.stop()
            }
            return HTTPResponse(statusCode: 503, body: "{}")
        }
        XCTAssertNil(harness.configure(settings: settings))
        harness.runScheduled()
        XCTAssertEqual(harness.acceptedIndexes, [])
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 1, "not sent again after the stop")
        // The three that never left as the stop came, then the batch once its answer failed.
        XCTAssertEqual(heard.errors.map { [$0.reason?.rawValue ?? "", String($0.count)] }, [["stopped", "3"], ["stopped", "2"]])
        XCTAssertEqual(harness.core.droppedEventCount, 5)
        XCTAssertEqual(harness.core.queuedEventCount, 0)
        XCTAssertEqual(harness.queuedIndexes, [])
    }

    /// A full queue (three places, #0 to #2) whose batch is on its way when the app sends #3:
    /// the bound takes #0, which is in that batch. `answer` answers that batch (nil: stored).
    private func fullWhileTheBatchIsOnItsWay(_ answer: @escaping (HTTPRequest) -> HTTPResponse?) throws -> (Harness, Heard) {
        var settings = Harness.settings
        settings.maxQueuedEvents = 3
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        var answered = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !answered else { return nil }
            answered = true
            try harness.sendIndexed(1, from: 3)
            return answer(request)
        }
        XCTAssertNil(harness.configure(settings: settings))
        harness.runScheduled()
        return (harness, heard)
    }

    func testAnEventTheBoundTakesWhileOnItsWayThatTheServiceStoresIsDeliveredNotReportedDropped() throws {
        let (harness, heard) = try fullWhileTheBatchIsOnItsWay { _ in nil }
        XCTAssertEqual(harness.acceptedIndexes, [0, 1, 2, 3], "every event delivered, once")
        XCTAssertEqual(heard.dropped, [:], "no drop told of an event the service stored")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        XCTAssertEqual(harness.queuedIndexes, [])
    }

    func testAnEventTheBoundTakesWhileOnItsWayIsReportedOnceWhenItsAnswerRefusesItOrFails() throws {
        // Refused by name: the refusal alone is told, not the bound's drop too.
        let (refused, refusedHeard) = try fullWhileTheBatchIsOnItsWay { _ in
            HTTPResponse(statusCode: 202, body: #"{"accepted":2,"ignored":[],"rejected":[{"index":0,"event_id":"a","error":"Unprocessable Entity","detail":"event_time: is required","retryable":false}],"warnings":[]}"#)
        }
        XCTAssertEqual(refused.acceptedIndexes, [1, 2, 3])
        XCTAssertEqual(refusedHeard.errors.map { [$0.reason?.rawValue ?? "", String($0.count)] }, [["refused", "1"]])
        XCTAssertEqual(refused.core.droppedEventCount, 1)

        // The request failed: #0 is off the queue, so not sent again, and the bound's drop is told then.
        let (failed, failedHeard) = try fullWhileTheBatchIsOnItsWay { _ in HTTPResponse(statusCode: 503, body: "{}") }
        failed.eventually("the others delivered") { failed.acceptedIndexes == [1, 2, 3] }
        XCTAssertEqual(failed.service.deliveredEvents.compactMap(FakeService.index).filter { $0 == 0 }.count, 1, "#0 left once, never again")
        XCTAssertEqual(failedHeard.errors.map { [$0.reason?.rawValue ?? "", String($0.count)] }, [["queue_full", "1"]])
        XCTAssertEqual(failed.core.droppedEventCount, 1)
    }

    func testAnEventTheBoundTakesWhileTheConsentUpdateBeforeItsBatchIsOnItsWayIsToldOnceAndNeverSent() throws {
        var settings = Harness.settings
        settings.maxQueuedEvents = 3
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        var consentSet = false
        var overflowed = false
        harness.service.answer = { request in
            let path = FakeService.path(request)
            if path == "/v1/sessions" && !consentSet {
                // The app sets a consent as the launch's session is on its way: the events'
                // batch, #0 to #2 once taken, waits for the update.
                consentSet = true
                harness.core.setConsent(ServiceConsent(adUserData: false))
            } else if path.hasSuffix("/consent") && consentSet && !overflowed {
                // #3 comes as the update is on its way: the bound takes #0, and tells it.
                overflowed = true
                try harness.sendIndexed(1, from: 3)
            }
            return nil
        }
        XCTAssertNil(harness.configure(settings: settings))
        harness.runScheduled()
        XCTAssertTrue(overflowed)
        XCTAssertEqual(harness.acceptedIndexes, [1, 2, 3])
        XCTAssertFalse(harness.service.deliveredEvents.compactMap(FakeService.index).contains(0), "#0, told dropped, never leaves")
        XCTAssertEqual(heard.dropped, ["queue_full": 1])
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }

    func testEventsSentBeforeConfigureAreDeliveredOnceItRuns() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        try harness.sendIndexed(3)
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes == [0, 1, 2] }
        XCTAssertEqual(heard.errors, [])
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testAnEventNotSentWhileStoppedIsSaidAtInfoOncePerReasonTheRestAtDebug() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.core.stop()
        XCTAssertFalse(try harness.core.sendEvent(.share, name: nil, parameters: nil))
        XCTAssertFalse(try harness.core.sendEvent(.search, name: nil, parameters: nil))
        XCTAssertEqual(
            harness.log.messages(.info).filter { $0.contains("is not sent") },
            ["the SDK is stopped: SHARE is not sent, nor any event while it is"]
        )
        XCTAssertEqual(harness.log.messages(.debug).filter { $0.contains("SEARCH is not sent") }.count, 1)
    }

    func testAWarningAboutACallBeforeConfigureIsSaidWhenConfigureRunsAtItsLevel() throws {
        let harness = Harness()
        harness.core.setCustomerUserId("user\n42")
        XCTAssertEqual(harness.log.messages(.warn), [], "nothing is written before configure")
        XCTAssertNil(harness.configure(logLevel: .info))
        XCTAssertTrue(harness.log.messages(.warn).contains { $0.contains("customer user id") }, "\(harness.log.messages(.warn))")
        XCTAssertEqual(harness.log.messages(.debug), [], "the level configure gives holds for the lines before it too")
    }

    func testTheQueueIsOnTheDeviceBeforeSendEventReturns() throws {
        // Once a configuration of the service's says how to protect it: queued, protected.
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.service.offline = true
        try harness.sendIndexed(1)
        // Read as the next launch would, without letting the SDK's queues run.
        XCTAssertEqual(EventQueue(store: harness.store, max: 1000).peek(10).compactMap(FakeService.index), [0])

        // Before one (an install's first launch, offline): on the device as it was taken, until
        // one does.
        let first = Harness()
        first.service.offline = true
        first.configure()
        try first.sendIndexed(1)
        XCTAssertEqual(EventQueue(store: first.store, max: 1000).count, 0, "not queued under a guess of the protection")
        let kept = EventQueue(store: first.store, max: 1000, kind: .pending).peek(10).compactMap { Drafts.parse($0) }
        XCTAssertEqual(kept.compactMap { $0.parameters["n"] }, [.int(0)])
    }

    func testOnlyA4xxIsARefusalA1xxOr3xxIsRetriedAsA5xxIs() throws {
        // Only a 4xx is the service's verdict on a request (delivery.json); anything else that is
        // no success came from something in the way, or is the service's own error.
        for status in [100, 101, 103, 199, 300, 301, 302, 303, 304, 307, 308, 399, 500, 503, 599] {
            XCTAssertTrue(SdkCore.isRetryable(status), "HTTP \(status)")
        }
        for status in [101, 302, 307] {
            let harness = Harness(store: try Harness.given(queued: 3, installRecorded: false))
            let heard = Heard()
            heard.listen(to: harness.core)
            // The install, the events and the consent update each answered so once.
            var answered = Set<String>()
            harness.service.answer = { request in
                let path = FakeService.path(request)
                let route = path.hasSuffix("/consent") ? "consent" : path
                guard ["/v1/installs", "/v1/events", "consent"].contains(route), answered.insert(route).inserted else { return nil }
                return HTTPResponse(statusCode: status, body: "<html>elsewhere</html>")
            }
            XCTAssertNil(harness.configure())
            harness.eventually("HTTP \(status): delivered") { harness.acceptedIndexes == [0, 1, 2] }
            let installs = harness.service.sent("POST", "/v1/installs").compactMap(FakeService.body)
            XCTAssertEqual(installs.count, 2, "HTTP \(status): the install sent again")
            XCTAssertTrue(installs.allSatisfy { $0["locale"] != nil }, "HTTP \(status): the full report, never the bare one")
            XCTAssertEqual(harness.service.sent("POST", "/v1/events").map { FakeService.events($0).count }, [3, 3], "HTTP \(status): never halved")
            // A consent update answered so is sent again too, not given up until it changes.
            harness.core.setConsent(ServiceConsent(adUserData: true))
            harness.eventually("HTTP \(status): the consent update sent again") {
                harness.service.requests.filter { $0.method == "POST" && FakeService.path($0).hasSuffix("/consent") }.count == 2
            }
            XCTAssertEqual(heard.errors, [], "HTTP \(status)")
            XCTAssertEqual(harness.core.droppedEventCount, 0, "HTTP \(status)")
        }
    }
}
