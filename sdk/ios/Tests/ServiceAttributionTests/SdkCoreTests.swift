import Foundation
import XCTest
@testable import ServiceAttribution

/// The SDK's behaviour against a scripted service: the install, the queue and its retries,
/// requests refused for good, remote configuration, attribution and its match status, deletion.
final class SdkCoreTests: XCTestCase {
    private func eventTypes(_ events: [JSONValue]) -> [String] {
        return events.compactMap { $0.objectValue?["event_type"]?.stringValue }
    }

    // MARK: install and events

    func testTheInstallIsReportedOnceThenEventsInOrder() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure(customerUserId: "user-8812"))
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        try harness.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 9.99, "currency": "EUR"])
        harness.eventually("two events") { harness.service.deliveredEvents.count == 2 }
        XCTAssertEqual(eventTypes(harness.service.deliveredEvents), ["LOGIN", "PURCHASE"])
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1)
        let install = try XCTUnwrap(harness.service.requests.first { FakeService.path($0) == "/v1/installs" })
        let body = try XCTUnwrap(try JSONValue.parse(try XCTUnwrap(install.body)).objectValue)
        XCTAssertEqual(body["os"], .string("ios"))
        XCTAssertEqual(body["sdk_platform"], .string("ios"))
        XCTAssertEqual(body["customer_user_id"], .string("user-8812"))
        XCTAssertEqual(body["idfv"], .string("6F9619FF-8B86-D011-B42D-00CF4FC964FF"))
        XCTAssertEqual(body["maid"], .string("6F9619FF-8B86-D011-B42D-00CF4FC964FE"))
        XCTAssertEqual(body["platform_ads_token"], .null, "only once the app enables Apple Ads attribution")
        XCTAssertEqual(body["service_id"], .string(try XCTUnwrap(harness.core.serviceIdentifier)))

        // The next launch: the same install, not reported again.
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        try next.core.sendEvent(.share, name: nil, parameters: nil)
        next.eventually("the next launch's event") { next.service.deliveredEvents.count == 3 }
        XCTAssertEqual(next.service.count("POST", "/v1/installs"), 1)
        XCTAssertEqual(next.core.serviceIdentifier, harness.core.serviceIdentifier)
        XCTAssertEqual(next.service.deliveredEvents.last?.objectValue?["customer_user_id"], .string("user-8812"))
    }

    func testAppleAdsAttributionPutsTheTokenInTheInstall() throws {
        let harness = Harness()
        harness.core.enablePlatformAds()
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.service.count("POST", "/v1/installs") == 1 }
        let install = try XCTUnwrap(harness.service.requests.first { FakeService.path($0) == "/v1/installs" })
        let body = try JSONValue.parse(try XCTUnwrap(install.body)).objectValue
        XCTAssertEqual(body?["platform_ads_token"], .string("c2FtcGxlLWFkc2VydmljZXMtdG9rZW4"))
    }

    func testTheInstallWaitsForAnAppleAdsTokenThatFailsAtFirst() throws {
        let waiting = Harness()
        waiting.core.enablePlatformAds()
        waiting.device.tokenFailures = 2
        XCTAssertNil(waiting.configure())
        waiting.runScheduled()
        waiting.eventually("install") { waiting.service.count("POST", "/v1/installs") == 1 }
        XCTAssertEqual(waiting.device.tokenReads, 3)
        let body = waiting.service.sent("POST", "/v1/installs").first.flatMap(FakeService.body)
        XCTAssertEqual(body?["platform_ads_token"], .string("c2FtcGxlLWFkc2VydmljZXMtdG9rZW4"))

        // One that keeps failing holds the install three reads, then it goes without.
        let failing = Harness()
        failing.core.enablePlatformAds()
        failing.device.tokenFailures = 100
        XCTAssertNil(failing.configure())
        failing.runScheduled()
        failing.eventually("install") { failing.service.count("POST", "/v1/installs") == 1 }
        XCTAssertEqual(failing.device.tokenReads, SdkCore.maxAdsTokenTries)
        XCTAssertEqual(failing.service.sent("POST", "/v1/installs").first.flatMap(FakeService.body)?["platform_ads_token"], .null)
    }

    func testEachTryOfTheInstallCarriesAFreshAppleAdsToken() throws {
        // Good for 24 hours: an install retried after a long offline spell takes a token read
        // for that try, not the first try's.
        let harness = Harness()
        harness.core.enablePlatformAds()
        harness.service.offline = true
        harness.configure()
        harness.device.token = "second-token"
        harness.service.offline = false
        harness.eventually("recorded") { harness.store.get(SdkCore.Key.installTracked) != nil }
        let sent = harness.service.sent("POST", "/v1/installs").last.flatMap(FakeService.body)
        XCTAssertEqual(sent?["platform_ads_token"], .string("second-token"))
        XCTAssertGreaterThanOrEqual(harness.device.tokenReads, 2)
    }

    func testEventsSentBeforeConfigureGoOutAfterIt() throws {
        let harness = Harness()
        XCTAssertTrue(try harness.core.sendEvent(.tutorialComplete, name: nil, parameters: nil))
        XCTAssertTrue(try harness.core.sendEvent(.custom, name: "Boss Defeated", parameters: ["level": 7]))
        XCTAssertNil(harness.configure())
        harness.eventually("early events") { harness.service.deliveredEvents.count == 2 }
        XCTAssertEqual(eventTypes(harness.service.deliveredEvents), ["TUTORIAL_COMPLETE", "CUSTOM"])
    }

    func testACustomEventWithoutANameThrowsAndAManualInstallIsDropped() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        XCTAssertThrowsError(try harness.core.sendEvent(.custom, name: "  ", parameters: nil))
        XCTAssertFalse(try harness.core.sendEvent(.install, name: nil, parameters: nil))
        harness.core.drain()
        XCTAssertEqual(harness.service.deliveredEvents, [])
    }

    // MARK: requests refused for good never stop the SDK

    func testAnEventsRequestRefusedForGoodIsDroppedWithOneErrorAndTheNextIsDelivered() throws {
        let harness = Harness()
        var refusals = 0
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", refusals == 0 else { return nil }
            refusals += 1
            return HTTPResponse(statusCode: 422, body: #"{"error":"Unprocessable Entity","detail":"events: must be a list"}"#)
        }
        XCTAssertNil(harness.configure())
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        harness.eventually("the refusal") { refusals == 1 }
        try harness.core.sendEvent(.share, name: nil, parameters: nil)
        harness.eventually("the next event") { harness.service.deliveredEvents.count == 2 }
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 2)
        XCTAssertEqual(eventTypes(harness.service.deliveredEvents), ["LOGIN", "SHARE"])
        // Alone in its request, the refused event is the one dropped, with one warning (written
        // at error level: iOS has no warning tier).
        XCTAssertEqual(harness.log.messages(.error).count, 1, "\(harness.log.messages(.error))")
        XCTAssertTrue(harness.log.messages(.error).first?.contains("1 event dropped (refused)") == true)
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }

    func testAnEventTheServiceRejectsForGoodIsDroppedTheOthersAreNot() throws {
        let harness = Harness()
        var first = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", first else { return nil }
            first = false
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":null,"error":"Unprocessable Entity","detail":"event_name: must be at most 100 characters","retryable":false}],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        try harness.core.sendEvent(.custom, name: String(repeating: "n", count: 101), parameters: nil)
        harness.eventually("the verdict") { !first }
        try harness.core.sendEvent(.search, name: nil, parameters: nil)
        harness.eventually("the next event") { harness.service.count("POST", "/v1/events") == 2 }
        let last = try XCTUnwrap(harness.service.requests.last(where: { FakeService.path($0) == "/v1/events" }))
        XCTAssertEqual(eventTypes(FakeService.events(last)), ["SEARCH"])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("dropped (refused)") && $0.contains("event_name") }.count, 1)
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }

    func testAnInstallRefusedForGoodGoesAgainWithoutDeviceSignalsAndEventsFollow() throws {
        let harness = Harness()
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/installs", let body = request.body, body.contains("\"locale\"") else { return nil }
            return HTTPResponse(statusCode: 422, body: #"{"error":"Unprocessable Entity","detail":"body.locale: must be a BCP 47 language tag"}"#)
        }
        XCTAssertNil(harness.configure())
        try harness.core.sendEvent(.levelStart, name: nil, parameters: ["level": 1])
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 2)
        let bare = try XCTUnwrap(FakeService.body(harness.service.sent("POST", "/v1/installs")[1]))
        XCTAssertEqual(Set(bare.keys), ["service_id", "os", "sdk_platform", "sdk_version", "first_open_time", "sent_at"])
        // Recovered: a warning, no error, no error listener call.
        XCTAssertEqual(harness.log.messages(.error), [])
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("required fields only") }.count, 1)
    }

    func testABareInstallThatFailedIsRetriedBareAlone() throws {
        let harness = Harness()
        var bareFailures = 1
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/installs", let body = request.body else { return nil }
            if body.contains("\"locale\"") {
                return HTTPResponse(statusCode: 422, body: #"{"error":"Unprocessable Entity","detail":"body.locale: must be a BCP 47 language tag"}"#)
            }
            guard bareFailures > 0 else { return nil }
            bareFailures -= 1
            return HTTPResponse(statusCode: 503, body: #"{"error":"Service Unavailable","detail":"scripted"}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("recorded") { harness.store.get(SdkCore.Key.installTracked) != nil }
        // Full (422), bare (503), then bare again at the retry: the full one is not sent again
        // to be refused a second time.
        let full = harness.service.sent("POST", "/v1/installs").map { FakeService.body($0)?["locale"] != nil }
        XCTAssertEqual(full, [true, false, false])
        XCTAssertEqual(harness.log.messages(.warn).filter { $0.contains("required fields only") }.count, 1)
    }

    func testServerErrorsAndOfflineAreRetriedWithBackoffEachEventOnce() throws {
        let harness = Harness()
        var failures = 0
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", failures < 3 else { return nil }
            failures += 1
            if failures == 2 { throw ServiceAttributionError.network("offline") }
            return HTTPResponse(statusCode: failures == 1 ? 503 : 429, body: "{}")
        }
        XCTAssertNil(harness.configure())
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        try harness.core.sendEvent(.share, name: nil, parameters: nil)
        // [LOGIN] answered 503; then [LOGIN, SHARE] offline, answered 429, and accepted.
        harness.eventually("four attempts") { harness.service.count("POST", "/v1/events") == 4 }
        let attempts = harness.service.requests.filter { FakeService.path($0) == "/v1/events" }.map(FakeService.events)
        XCTAssertEqual(attempts.map(eventTypes), [["LOGIN"], ["LOGIN", "SHARE"], ["LOGIN", "SHARE"], ["LOGIN", "SHARE"]])
        // Each attempt carries the same events with the same ids: the service deduplicates.
        XCTAssertEqual(attempts[1], attempts[3])
        harness.core.drain()
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 4)
        XCTAssertEqual(harness.log.messages(.error), [])
    }

    func testAnEventKeptOfflineIsOnTheDeviceWhenSendEventReturnsAndSentAtTheNextLaunch() throws {
        let store = MemoryStore()
        let offline = Harness(store: store)
        offline.service.answer = { request in
            if FakeService.path(request) == "/v1/config" { return nil }
            throw ServiceAttributionError.network("offline")
        }
        XCTAssertNil(offline.configure())
        try offline.core.sendEvent(.share, name: nil, parameters: nil)
        // No drain: the process may end right here, before its worker runs again.
        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        next.eventually("the event sent just before the end") { next.service.deliveredEvents.count == 1 }
        XCTAssertEqual(eventTypes(next.service.deliveredEvents), ["SHARE"])
        XCTAssertEqual(next.service.count("POST", "/v1/installs"), 1)
    }

    func testAnInstallNotRecordedYetIsReportedAgainBeforeItsEvents() throws {
        let harness = Harness()
        var conflict = true
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", conflict else { return nil }
            conflict = false
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":"e","error":"Conflict","detail":"install not recorded","retryable":true}],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        harness.eventually("delivered") { !conflict && harness.service.count("POST", "/v1/events") == 2 }
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 2)
        XCTAssertEqual(eventTypes(harness.service.deliveredEvents), ["LOGIN", "LOGIN"])
    }

    func testAnAttributionReadAnswered404IsReadAgainOnceTheInstallIsReportedAgain() throws {
        // The service lost the install: its attribution is unknown, and the next event's answer
        // asks for the install again.
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        var reads = 0
        var conflict = true
        harness.service.answer = { request in
            let path = FakeService.path(request)
            if path.hasSuffix("/attribution") {
                reads += 1
                return reads == 1 ? HTTPResponse(statusCode: 404, body: #"{"error":"Not Found","detail":"no such install"}"#) : nil
            }
            guard path == "/v1/events", conflict else { return nil }
            conflict = false
            return HTTPResponse(statusCode: 202, body: #"{"accepted":0,"ignored":[],"rejected":[{"index":0,"event_id":"e","error":"Conflict","detail":"install not recorded","retryable":true}],"warnings":[]}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the first read, answered 404") { reads == 1 }
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        harness.eventually("read again once the install is reported again") { heard.attributions.count == 1 }
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 2)
        XCTAssertEqual(reads, 2)
    }

    func testAnAttributionReadRefusedForItsKeyIsNotReadAgainUntilRefreshConfig() throws {
        // The key is not accepted on the attribution route: the events go on, each meeting its
        // own answer, but the read is neither sent nor logged again at each flush.
        let harness = Harness()
        var refused = true
        harness.service.answer = { request in
            guard refused, FakeService.path(request).hasSuffix("/attribution") else { return nil }
            return HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"the key is not accepted on this route"}"#)
        }
        let reads = { harness.service.requests.filter { $0.method == "GET" && FakeService.path($0).hasSuffix("/attribution") }.count }
        let said = { harness.log.messages(.error).filter { $0.contains("not read again until refreshConfig") }.count }
        XCTAssertNil(harness.configure())
        XCTAssertEqual(reads(), 1)
        XCTAssertEqual(said(), 1)
        try harness.sendIndexed(3)
        harness.settle()
        XCTAssertEqual(harness.acceptedIndexes, [0, 1, 2])
        XCTAssertEqual(reads(), 1)
        XCTAssertEqual(said(), 1)
        // The app's refreshConfig (a key fixed on the service) lets it be read again.
        refused = false
        let done = DispatchSemaphore(value: 0)
        harness.core.refreshConfig { _ in done.signal() }
        _ = done.wait(timeout: .now() + 10)
        try harness.sendIndexed(1, from: 3)
        harness.eventually("read again after refreshConfig") { harness.core.attributionParams()[SdkCore.matchStatus] == "organic" }
        XCTAssertEqual(reads(), 2)
    }

    // MARK: remote configuration and keys

    func testARejectedKeyDisablesTheSdk() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"bad key"}"#) : nil
        }
        let error = harness.configure()
        XCTAssertEqual(error as? ServiceAttributionError, .authentication(statusCode: 401))
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertFalse(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertThrowsError(try harness.core.sendEvent(.custom, name: nil, parameters: nil))
        XCTAssertEqual(harness.core.attributionParams(), [SdkCore.matchStatus: "not_configured"])
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)
    }

    func testAnAppSwitchedOffSendsNothingUntilSwitchedOnAgain() throws {
        let harness = Harness()
        harness.service.config = #"{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
        XCTAssertNil(harness.configure())
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertFalse(try harness.core.sendEvent(.login, name: nil, parameters: nil))
        harness.service.config = #"{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
        let refreshed = expectation(description: "refreshed")
        harness.core.refreshConfig { error in
            XCTAssertNil(error)
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 5)
        XCTAssertTrue(harness.core.isEnabled)
        try harness.core.sendEvent(.share, name: nil, parameters: nil)
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(eventTypes(harness.service.deliveredEvents), ["SHARE"])
    }

    /// GET /v1/config's answer with sealing on, to the encryption vectors' recipient.
    static func sealing(keyId: String, publicKey: String, clearKeys: [String] = ["revenue", "currency"]) -> String {
        return JSONValue.object([
            "enabled": .bool(true),
            "refresh_interval_seconds": .int(3600),
            "encryption": .object([
                "enabled": .bool(true),
                "key_id": .string(keyId),
                "public_key": .string(publicKey),
                "clear_keys": .array(clearKeys.map { .string($0) }),
            ]),
        ]).text
    }

    func testEventsWaitForTheServicesConfigurationAndAFailedFirstFetchIsAskedAgainWithBackoff() throws {
        let recipient = try Vectors.recipient()
        let harness = Harness()
        harness.service.config = SdkCoreTests.sealing(keyId: recipient.keyId, publicKey: recipient.publicKeySpki)
        var failing = true
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" && failing ? HTTPResponse(statusCode: 500, body: "{}") : nil
        }
        let error = harness.configure()
        XCTAssertEqual(error as? ServiceAttributionError, .http(statusCode: 500, message: "HTTP 500"))
        XCTAssertFalse(harness.core.isSdkDisabled)
        XCTAssertTrue(try harness.core.sendEvent(.signUp, name: nil, parameters: ["email": "Jane.Doe@Example.COM"]))
        harness.runScheduled(6)
        // Nothing guessed: no configuration of the service's says how to protect the event, so it
        // waits on the device, neither hashed nor sent; the install and the session go meanwhile.
        XCTAssertEqual(harness.service.deliveredEvents, [])
        XCTAssertEqual(harness.core.queuedEventCount, 1)
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1)
        XCTAssertEqual(harness.service.acceptedSessions.count, 1)
        // GET /v1/config asked again as a delivery is retried, from 2 s doubling to a minute, not
        // in an hour.
        XCTAssertEqual(Array(harness.scheduler.delays.prefix(6)), [2, 4, 8, 16, 32, 60])
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 7)
        // The service answers: the event goes sealed, as its configuration says.
        failing = false
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        let parameters = try XCTUnwrap(harness.service.deliveredEvents.first?.objectValue?["parameters"]?.objectValue)
        let envelope = try XCTUnwrap(parameters["email"]?.stringValue)
        XCTAssertEqual(JSONMatch.open(envelope, with: recipient.privateKey), .string("jane.doe@example.com"))
        XCTAssertEqual(harness.core.droppedEventCount, 0)

        // A later launch whose fetch fails goes on with the configuration the service answered
        // before, kept on the device: nothing waits, and it is read again at its own interval.
        let next = Harness(store: harness.store)
        next.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 500, body: "{}") : nil
        }
        XCTAssertNotNil(next.configure())
        XCTAssertTrue(try next.core.sendEvent(.signUp, name: nil, parameters: ["email": "jane.doe@example.com"]))
        next.eventually("sent under the kept configuration") { next.service.deliveredEvents.count == 1 }
        let kept = try XCTUnwrap(next.service.deliveredEvents.first?.objectValue?["parameters"]?.objectValue?["email"]?.stringValue)
        XCTAssertEqual(JSONMatch.open(kept, with: recipient.privateKey), .string("jane.doe@example.com"))
        XCTAssertFalse(next.scheduler.delays.contains(2), "the kept configuration is not asked for again at once")
    }

    func testAStopAndStartWhileWaitingForTheConfigurationKeepsOneChainOfReads() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 500, body: "{}") : nil
        }
        XCTAssertNotNil(harness.configure())
        XCTAssertEqual(harness.scheduler.delays, [2])
        // Stopped and started twice before the read due in 2 s: each start reads at once, and
        // its failure schedules the next read, the one before it made void.
        for _ in 0..<2 {
            harness.core.stop()
            harness.core.start()
            harness.settle()
        }
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 3)
        XCTAssertEqual(harness.scheduler.delays, [2, 4, 8])
        // The reads scheduled before each start do nothing when they fall due: one chain, whose
        // wait doubles once a read, not one chain a start each doubling the same backoff.
        harness.runScheduled(5)
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 6)
        XCTAssertEqual(harness.scheduler.delays, [2, 4, 8, 16, 32, 60])
        XCTAssertEqual(harness.scheduler.pending, [60])
        // A start while not stopped reads nothing and schedules nothing.
        harness.core.start()
        harness.settle()
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 6)
        XCTAssertEqual(harness.scheduler.pending, [60])
    }

    func testAStopMadeAsConfigureReturnsSendsNothingNotEvenTheConfigurationsRead() throws {
        // The app stops the SDK right after configure (its user's opt-out, read from its own
        // settings): the worker has not begun, and must find the SDK stopped. The lifecycle's
        // registration is where configure has let go of its locks and not yet handed the
        // rest to the worker: the stop lands there every time.
        final class StopOnObserve: AppLifecycle {
            var stop: (() -> Void)?
            var isInForeground: Bool { return true }
            func observe(background: @escaping () -> Void, foreground: @escaping () -> Void, active: @escaping () -> Void) {
                stop?()
            }
        }
        let harness = Harness()
        let lifecycle = StopOnObserve()
        lifecycle.stop = { [unowned harness] in harness.core.stop() }
        var platform = harness.platform
        platform.lifecycle = lifecycle
        let done = DispatchSemaphore(value: 0)
        var completions: [Error?] = []
        XCTAssertTrue(harness.core.configure(
            platform: platform, settings: Harness.settings, apiKey: "sdk_test", logLevel: .debug,
            customerUserId: nil, wrapper: nil, completion: { error in
                completions.append(error)
                done.signal()
            }
        ))
        harness.runScheduled()
        XCTAssertTrue(harness.core.isStopped)
        XCTAssertEqual(harness.service.requests.count, 0, "stopped: no request at all")
        XCTAssertEqual(completions.count, 0, "the initialization, and with it the completion, waits for start()")
        // Started again: the configuration is read then, the install reported, and configure
        // completes.
        harness.core.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "configure completes once started")
        harness.eventually("reported once started") { harness.service.count("POST", "/v1/installs") == 1 }
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 1)
        XCTAssertEqual(completions.count, 1)
        XCTAssertNil(completions.first ?? nil)
    }

    func testAConfigureThatFoundTheSdkStoppedIsToldOfTheRefusalMetByTheInitializationThatStartRuns() throws {
        // As the Kotlin SDK keeps its InitListener for the initialization that start() runs: a
        // refusal to start met then reaches the completion of the configure that found the SDK
        // stopped, and of a repeat call made since, once.
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"bad key"}"#) : nil
        }
        harness.core.stop()
        var first: [Error?] = []
        var repeated: [Error?] = []
        XCTAssertTrue(harness.configureLater { first.append($0) })
        XCTAssertFalse(harness.configureLater { repeated.append($0) })
        harness.runScheduled()
        XCTAssertEqual(harness.service.requests, [], "stopped: nothing read yet")
        XCTAssertEqual(first.count, 0, "no initialization yet, so no completion")
        XCTAssertEqual(repeated.count, 0, "a repeat's completion waits for the first call's initialization")

        harness.core.start()
        harness.eventually("the completion") { !first.isEmpty }
        XCTAssertEqual(first.map { $0 as? ServiceAttributionError }, [.authentication(statusCode: 401)])
        XCTAssertEqual(repeated.map { $0 as? ServiceAttributionError }, [.authentication(statusCode: 401)])
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(harness.core.initError as? ServiceAttributionError, .authentication(statusCode: 401))
        // Once: a later stop and start reads again, and tells no completion again.
        harness.core.stop()
        harness.core.start()
        harness.runScheduled()
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 2)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(repeated.count, 1)

        // Stopped by an earlier launch, with no service address: the refusal comes at start() too.
        let store = MemoryStore()
        store.put(SdkCore.Key.stopped, "1")
        let kept = Harness(store: store)
        var told: [Error?] = []
        XCTAssertTrue(kept.core.configure(
            platform: kept.platform, settings: SdkSettings(baseURL: ""), apiKey: "sdk_test", logLevel: .debug,
            customerUserId: nil, wrapper: nil, completion: { told.append($0) }
        ))
        kept.runScheduled()
        XCTAssertTrue(kept.core.isStopped)
        XCTAssertEqual(told.count, 0)
        kept.core.start()
        kept.eventually("the refusal") { !told.isEmpty }
        XCTAssertEqual(told.map { $0 as? ServiceAttributionError }, [.missingBaseURL])
        XCTAssertTrue(kept.core.isSdkDisabled)
        XCTAssertEqual(kept.service.requests, [])
    }

    func testUnderFlutterAFirstLaunchThatEndsOfflineSendsItsValuesSealedAtTheNextNeverInClear() throws {
        let recipient = try Vectors.recipient()
        let flutter = Wrapper(platform: "flutter", version: "2.10.0", sealsCustomValues: true)
        let store = MemoryStore()
        let offline = Harness(store: store)
        offline.service.offline = true
        offline.configure(wrapper: flutter)
        XCTAssertTrue(try offline.core.sendEvent(.purchase, name: nil, parameters: [
            "revenue": 9.99, "currency": "EUR", "plan": "gold", "email": "jane.doe@example.com",
        ]))
        // The process ends here: the event is on the device as it was taken, for the service's
        // configuration to protect; nothing is queued under a guess.
        XCTAssertEqual(EventQueue(store: store, max: 1000).count, 0)
        XCTAssertEqual(EventQueue(store: store, max: 1000, kind: .pending).count, 1)

        let next = Harness(store: store)
        next.service.config = SdkCoreTests.sealing(keyId: recipient.keyId, publicKey: recipient.publicKeySpki)
        XCTAssertNil(next.configure(wrapper: flutter))
        next.eventually("the first launch's event") { next.service.deliveredEvents.count == 1 }
        let parameters = try XCTUnwrap(next.service.deliveredEvents.first?.objectValue?["parameters"]?.objectValue)
        XCTAssertEqual(parameters["revenue"], .double(9.99))
        XCTAssertEqual(parameters["currency"], .string("EUR"))
        for (key, value) in [("plan", JSONValue.string("gold")), ("email", .string("jane.doe@example.com"))] {
            let envelope = try XCTUnwrap(parameters[key]?.stringValue, key)
            XCTAssertEqual(JSONMatch.open(envelope, with: recipient.privateKey), value, key)
        }
        XCTAssertEqual(next.core.queuedEventCount, 0)
        XCTAssertNil(store.get(EventQueue.Kind.pending.key))
    }

    /// A store as a launch left it that queued the two events an earlier one kept waiting for a
    /// configuration, and ended before it forgot them: on the device, each both queued and still
    /// waiting. The service took neither.
    private static func queuedAndStillWaiting() throws -> MemoryStore {
        let store = MemoryStore()
        let offline = Harness(store: store)
        offline.service.offline = true
        offline.configure()
        XCTAssertTrue(try offline.core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertTrue(try offline.core.sendEvent(.purchase, name: nil, parameters: ["revenue": 3, "currency": "EUR"]))
        offline.settle()
        let waiting = try XCTUnwrap(store.get(EventQueue.Kind.pending.key))
        let next = Harness(store: store)
        next.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? HTTPResponse(statusCode: 503, body: "{}") : nil
        }
        XCTAssertNil(next.configure())
        XCTAssertEqual(EventQueue(store: store, max: 1000).count, 2)
        XCTAssertNil(store.get(EventQueue.Kind.pending.key))
        // As a process ends between the queue's write and the waiting events' removal.
        store.put(EventQueue.Kind.pending.key, waiting)
        XCTAssertEqual(EventQueue(store: store, max: 1000, kind: .pending).count, 2)
        return store
    }

    func testEventsBothQueuedAndStillWaitingAreCountedOnceByALaunchThatStartsStopped() throws {
        let store = try SdkCoreTests.queuedAndStillWaiting()
        let stopped = Harness(store: store)
        let heard = Heard()
        heard.listen(to: stopped.core)
        stopped.core.stop()
        stopped.configure()
        XCTAssertEqual(heard.dropped, ["stopped": 2])
        XCTAssertEqual(stopped.core.droppedEventCount, 2)
        XCTAssertEqual(stopped.core.queuedEventCount, 0)
        XCTAssertNil(store.get(EventQueue.Kind.events.key))
        XCTAssertNil(store.get(EventQueue.Kind.pending.key))
        XCTAssertEqual(stopped.service.requests, [])
    }

    func testAStopWhileTheConfigurationIsReadCountsOnceTheEventsBothQueuedAndStillWaiting() throws {
        let store = try SdkCoreTests.queuedAndStillWaiting()
        let harness = Harness(store: store)
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            // The user opts out before this launch's configuration is applied: the drafts still
            // wait beside the events the queue holds.
            if FakeService.path(request) == "/v1/config" { harness.core.stop() }
            return nil
        }
        harness.configure()
        harness.runScheduled()
        XCTAssertEqual(heard.dropped, ["stopped": 2])
        XCTAssertEqual(harness.core.droppedEventCount, 2)
        XCTAssertEqual(harness.core.queuedEventCount, 0)
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 0)
    }

    func testARejectedKeyCountsOnceTheEventsBothQueuedAndStillWaiting() throws {
        let store = try SdkCoreTests.queuedAndStillWaiting()
        let harness = Harness(store: store)
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/config" ? HTTPResponse(statusCode: 401, body: #"{"error":"Unauthorized","detail":"bad key"}"#) : nil
        }
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .authentication(statusCode: 401))
        XCTAssertEqual(heard.dropped, ["disabled": 2])
        XCTAssertEqual(harness.core.droppedEventCount, 2)
        XCTAssertEqual(harness.core.queuedEventCount, 0)
    }

    func testAConfigurationWhoseKeyCannotSealIsRefusedAndTheOneInForceStays() throws {
        let recipient = try Vectors.recipient()
        let harness = Harness()
        harness.service.config = SdkCoreTests.sealing(keyId: recipient.keyId, publicKey: recipient.publicKeySpki)
        XCTAssertNil(harness.configure())
        // A refresh answers a key that cannot seal: refused whole, the configuration in force
        // stays, and the events go on sealed, never hashed.
        harness.service.config = SdkCoreTests.sealing(keyId: recipient.keyId, publicKey: "MFkw")
        let refreshed = expectation(description: "refreshed")
        harness.core.refreshConfig { error in
            XCTAssertNotNil(error)
            refreshed.fulfill()
        }
        wait(for: [refreshed], timeout: 5)
        XCTAssertEqual(try RemoteConfig.parse(try XCTUnwrap(harness.store.get(SdkCore.Key.config))).encryption,
                       .on(keyId: recipient.keyId, publicKey: recipient.publicKeySpki, clearKeys: ["revenue", "currency"]))
        XCTAssertTrue(try harness.core.sendEvent(.signUp, name: nil, parameters: ["email": "jane.doe@example.com"]))
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        let envelope = try XCTUnwrap(harness.service.deliveredEvents.first?.objectValue?["parameters"]?.objectValue?["email"]?.stringValue)
        XCTAssertEqual(JSONMatch.open(envelope, with: recipient.privateKey), .string("jane.doe@example.com"))

        // On an install's first launch, such an answer is no configuration either: the events wait.
        let first = Harness()
        first.service.config = SdkCoreTests.sealing(keyId: recipient.keyId, publicKey: "MFkw")
        XCTAssertNotNil(first.configure())
        XCTAssertTrue(try first.core.sendEvent(.signUp, name: nil, parameters: ["email": "jane.doe@example.com"]))
        first.runScheduled(3)
        XCTAssertEqual(first.service.deliveredEvents, [])
        XCTAssertEqual(first.core.queuedEventCount, 1)
    }

    func testAConfigureRepeatedChangesNothing() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure(customerUserId: "first"))
        let again = harness.core.configure(
            platform: harness.platform, settings: Harness.settings, apiKey: "other", logLevel: .debug,
            customerUserId: "second", wrapper: nil, completion: nil
        )
        XCTAssertFalse(again)
        // A repeat's completion still comes, with the first call's outcome.
        let completed = expectation(description: "the repeat's completion")
        _ = harness.core.configure(
            platform: harness.platform, settings: Harness.settings, apiKey: "other", logLevel: .debug,
            customerUserId: nil, wrapper: nil, completion: { error in
                XCTAssertNil(error)
                completed.fulfill()
            }
        )
        wait(for: [completed], timeout: 5)
        try harness.core.sendEvent(.login, name: nil, parameters: nil)
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(harness.service.deliveredEvents.first?.objectValue?["customer_user_id"], .string("first"))
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 1)
    }

    func testWithoutTheServicesAddressTheSdkDisablesItself() {
        let harness = Harness()
        let error = harness.configure(settings: SdkSettings(baseURL: ""))
        XCTAssertEqual(error as? ServiceAttributionError, .missingBaseURL)
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(harness.service.requests, [])
    }

    func testAnAddressThatIsNoHTTPURLDisablesTheSdkAndSaysSoRatherThanFailAsOffline() {
        for address in ["attribution.example.com", "ftp://attribution.example.com", "https://", "https://x.test "] {
            let harness = Harness()
            let error = harness.configure(settings: SdkSettings(baseURL: address))
            guard case let .invalidArgument(message)? = error as? ServiceAttributionError else {
                return XCTFail("\(address): \(String(describing: error))")
            }
            XCTAssertTrue(message.contains(address), message)
            XCTAssertTrue(harness.core.isSdkDisabled)
            XCTAssertEqual(harness.service.requests, [])
        }
        XCTAssertTrue(SdkCore.isHTTPAddress("http://127.0.0.1:8787"))
        XCTAssertTrue(SdkCore.isHTTPAddress("https://attribution.example.com/base/"))
    }

    func testUnderFlutterCustomValuesAreSealedButTheClearKeys() throws {
        let recipient = try Vectors.recipient()
        let harness = Harness()
        harness.service.config = try XCTUnwrap(JSONValue.object([
            "enabled": .bool(true),
            "refresh_interval_seconds": .int(3600),
            "encryption": .object([
                "enabled": .bool(true),
                "key_id": .string(recipient.keyId),
                "public_key": .string(recipient.publicKeySpki),
                "clear_keys": .array([.string("revenue"), .string("currency")]),
            ]),
        ]).text)
        XCTAssertNil(harness.configure(wrapper: Wrapper(platform: "flutter", version: "2.10.0", sealsCustomValues: true)))
        try harness.core.sendEvent(.purchase, name: nil, parameters: [
            "revenue": 9.99, "currency": "EUR", "sku": "gem-pack", "items": [["n": 1]], "email": "jane.doe@example.com",
        ])
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        let parameters = try XCTUnwrap(harness.service.deliveredEvents.first?.objectValue?["parameters"]?.objectValue)
        XCTAssertEqual(parameters["revenue"], .double(9.99))
        XCTAssertEqual(parameters["currency"], .string("EUR"))
        for (key, value) in [("sku", JSONValue.string("gem-pack")), ("email", .string("jane.doe@example.com"))] {
            let envelope = try XCTUnwrap(parameters[key]?.stringValue, key)
            XCTAssertEqual(JSONMatch.open(envelope, with: recipient.privateKey), value, key)
        }
        // A list keeps its shape, as the Android SDK sends it: each leaf in it sealed on its own.
        let item = try XCTUnwrap(parameters["items"]?.arrayValue?.first?.objectValue, "items")
        XCTAssertEqual(parameters["items"]?.arrayValue?.count, 1)
        XCTAssertEqual(JSONMatch.open(try XCTUnwrap(item["n"]?.stringValue, "items[0].n"), with: recipient.privateKey), .int(1))
        let install = try XCTUnwrap(harness.service.requests.first { FakeService.path($0) == "/v1/installs" })
        let body = try JSONValue.parse(try XCTUnwrap(install.body)).objectValue
        XCTAssertEqual(body?["sdk_platform"], .string("flutter"))
        XCTAssertEqual(body?["sdk_version"], .string("2.10.0"))
    }

    func testTheCustomerUserIdIsKeptAcrossLaunchesAndCheckedAgainstTheLimit() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        first.core.setCustomerUserId("user-1")
        first.core.drain()
        let second = Harness(store: store)
        XCTAssertNil(second.configure())
        try second.core.sendEvent(.login, name: nil, parameters: nil)
        second.core.setCustomerUserId(String(repeating: "u", count: 257))
        try second.core.sendEvent(.share, name: nil, parameters: nil)
        second.eventually("two events") { second.service.deliveredEvents.count == 2 }
        XCTAssertEqual(second.service.deliveredEvents.map { $0.objectValue?["customer_user_id"] }, [.string("user-1"), .null])
        XCTAssertEqual(second.log.messages(.warn).filter { $0.contains("customer user id") }.count, 1)
    }

    func testLaunchedBeforeTheFirstUnlockEventsWaitInMemoryAndGoOnceItComes() throws {
        // An earlier launch recorded the install; this one is woken before the first unlock.
        let store = MemoryStore()
        let earlier = Harness(store: store)
        XCTAssertNil(earlier.configure())
        earlier.eventually("install") { store.get(SdkCore.Key.installTracked) != nil }
        let serviceId = store.get(SdkCore.Key.serviceId)
        store.available = false
        let harness = Harness(store: store)
        let done = expectation(description: "configure completes once unlocked")
        harness.configureLater { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        harness.settle()
        XCTAssertEqual(harness.service.requests, [], "nothing read or sent while the files are locked")
        XCTAssertTrue(try harness.core.sendEvent(.levelComplete, name: nil, parameters: ["n": 0]), "taken, in memory")
        XCTAssertTrue(try harness.core.sendEvent(.levelComplete, name: nil, parameters: ["n": 1]))

        store.available = true
        harness.protectedData.unlock()
        wait(for: [done], timeout: 10)
        harness.eventually("the events kept in memory") { harness.acceptedIndexes == [0, 1] }
        XCTAssertEqual(harness.core.serviceIdentifier, serviceId, "the same install, not a new one")
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        XCTAssertFalse(harness.core.isSdkDisabled)
    }

    func testAConfigureWhileTheFirstWaitsForTheUnlockChangesNothingAndBothCompleteOnceItIsDone() throws {
        let store = MemoryStore()
        let earlier = Harness(store: store)
        XCTAssertNil(earlier.configure())
        earlier.eventually("install") { store.get(SdkCore.Key.installTracked) != nil }
        store.available = false
        let harness = Harness(store: store)
        let done = expectation(description: "the waiting configure completes, once")
        done.assertForOverFulfill = true
        harness.configureLater { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        // Changes nothing, but completes (an `await` of it must not hang), with the first, once
        // the first's initialization is done: not before the unlock.
        let alsoDone = expectation(description: "the second configure completes with the first, once")
        alsoDone.assertForOverFulfill = true
        let again = harness.configureLater(apiKey: "sdk_other") { error in
            XCTAssertNil(error)
            XCTAssertTrue(store.available, "not before the unlock")
            alsoDone.fulfill()
        }
        XCTAssertFalse(again)

        store.available = true
        harness.protectedData.unlock()
        harness.protectedData.unlock()
        wait(for: [done, alsoDone], timeout: 10)
        harness.settle()
        XCTAssertFalse(harness.core.isSdkDisabled)
    }

    func testEventsSentBeforeConfigureGoWithTheCustomerUserIdOfAnEarlierLaunch() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure(customerUserId: "user-1"))
        first.settle()

        let second = Harness(store: store)
        try second.sendIndexed(1)
        XCTAssertNil(second.configure())
        second.eventually("the event") { second.acceptedIndexes == [0] }
        XCTAssertEqual(second.service.acceptedEvents.map { $0.objectValue?["customer_user_id"] }, [.string("user-1")])

        // Cleared before configure: the events before it go without it.
        let third = Harness(store: store)
        try third.sendIndexed(1, from: 1)
        third.core.setCustomerUserId(nil)
        XCTAssertNil(third.configure())
        third.eventually("the event") { third.acceptedIndexes == [1] }
        XCTAssertEqual(third.service.acceptedEvents.map { $0.objectValue?["customer_user_id"] }, [.null])
        XCTAssertNil(store.get(SdkCore.Key.customerUserId), "cleared for the next launches too")
    }

    func testAWriteTheDiskRefusesIsAWarningOnceForARunOfThem() throws {
        // A folder that cannot be made: a file stands where it would be.
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try Data("x".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let store = FileStore(directory: blocker.appendingPathComponent("store", isDirectory: true))
        let reported = RecordingLog()
        store.reportWriteFailures { reported.write(.warn, $0) }
        store.put("events", "[]")
        store.put("events", "[1]")
        XCTAssertEqual(store.get("events"), "[1]", "kept in memory for the process")
        XCTAssertEqual(reported.messages(.warn).count, 1)
        XCTAssertTrue(reported.messages(.warn)[0].contains("events"))

        // Through the core: the warning reaches the app's log.
        let harness = Harness()
        let failing = FileStore(directory: blocker.appendingPathComponent("core", isDirectory: true))
        let base = harness.platform
        let platform = Platform(store: failing, device: base.device, log: base.log, http: base.http)
        harness.core.configure(platform: platform, settings: Harness.settings, apiKey: "sdk_test", logLevel: .debug, customerUserId: nil, wrapper: nil, completion: nil)
        harness.settle()
        XCTAssertFalse(harness.log.messages(.warn).filter { $0.contains("was not saved") }.isEmpty, "a failed write is never silent")
    }

    func testTheFileStoreAddsLinesToAFileAndAWriteThatFailedIsMadeWholeByTheNext() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("q", isDirectory: false)
        let store = FileStore(directory: directory)
        store.append("q", lines: ["a"])
        store.append("q", lines: ["b", "c"])
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "a\nb\nc\n")
        XCTAssertEqual(store.get("q"), "a\nb\nc\n")
        XCTAssertEqual(FileStore(directory: directory).get("q"), "a\nb\nc\n")

        // A line an earlier process left cut short is ended before the next one.
        try Data("a\nb".utf8).write(to: file)
        FileStore(directory: directory).append("q", lines: ["c"])
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "a\nb\nc\n")

        // A queue over the real files, across launches.
        let queue = EventQueue(store: FileStore(directory: directory), max: 10, kind: .sessions)
        queue.add([.object(["session_id": .string("s1")]), .object(["session_id": .string("s2")])])
        queue.add(.object(["session_id": .string("s3")]))
        XCTAssertEqual(EventQueue(store: FileStore(directory: directory), max: 10, kind: .sessions).peek(10).compactMap { $0.objectValue?["session_id"]?.stringValue }, ["s1", "s2", "s3"])

        // The folder cannot be made (a file is where it goes): the write fails, kept in memory;
        // once it can, the next line writes the value whole.
        let blocked = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: blocked) }
        try Data("x".utf8).write(to: blocked)
        let failing = FileStore(directory: blocked)
        failing.put("q", "x\n")
        failing.append("q", lines: ["y"])
        XCTAssertEqual(failing.get("q"), "x\ny\n")
        try FileManager.default.removeItem(at: blocked)
        failing.append("q", lines: ["z"])
        XCTAssertEqual(try String(contentsOf: blocked.appendingPathComponent("q"), encoding: .utf8), "x\ny\nz\n")
    }

    // MARK: attribution

    func testAnAttributionThatArrivesWhileStoppedIsAskedForAgainAtStart() throws {
        let harness = Harness()
        let heard = Heard()
        heard.listen(to: harness.core)
        // The app stops the SDK while the attribution's request is under way.
        harness.service.answer = { request in
            if request.method == "GET", FakeService.path(request).hasSuffix("/attribution") { harness.core.stop() }
            return nil
        }
        XCTAssertNil(harness.configure())
        harness.eventually("the first read") { self.attributionReads(harness) == 1 }
        harness.settle()
        XCTAssertEqual(heard.attributions, [], "not kept, nor told, while stopped")
        harness.service.answer = nil
        harness.core.start()
        harness.eventually("read again") { self.attributionReads(harness) == 2 }
        harness.eventually("told") { heard.attributions.count == 1 }
        XCTAssertEqual(heard.attributions.first?["media_source"], "organic")
    }

    private func attributionReads(_ harness: Harness) -> Int {
        return harness.service.requests.filter { $0.method == "GET" && FakeService.path($0).hasSuffix("/attribution") }.count
    }

    func testTheMatchStatusIsAlwaysInTheMap() throws {
        let harness = Harness()
        XCTAssertEqual(harness.core.attributionParams(), [SdkCore.matchStatus: "not_configured"])
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","campaign_name":"Winter","deep_link_path":"/levels/7"}"#
        XCTAssertNil(harness.configure())
        let awaited = expectation(description: "awaited")
        var params: [String: String] = [:]
        harness.core.awaitAttributionParams { result in
            params = result
            awaited.fulfill()
        }
        wait(for: [awaited], timeout: 5)
        XCTAssertEqual(params[SdkCore.matchStatus], "matched")
        XCTAssertEqual(params["deep_link_path"], "/levels/7")
        // Kept: the next launch knows it without asking.
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.core.attributionParams()["campaign_name"], "Winter")
        next.core.drain()
        XCTAssertEqual(next.service.requests.filter { FakeService.path($0).hasSuffix("/attribution") }.count, 1)
    }

    func testFailedIsAskedAgainUntilResolved() throws {
        let harness = Harness()
        var answers = [#"{"service_match_status":"failed"}"#, "{}", #"{"service_match_status":"organic","media_source":"organic"}"#]
        harness.service.answer = { request in
            guard FakeService.path(request).hasSuffix("/attribution") else { return nil }
            let body = answers.count > 1 ? answers.removeFirst() : answers[0]
            return HTTPResponse(statusCode: 200, body: body)
        }
        XCTAssertNil(harness.configure())
        let awaited = expectation(description: "first attempt")
        var first: [String: String] = [:]
        harness.core.awaitAttributionParams { result in
            first = result
            awaited.fulfill()
        }
        wait(for: [awaited], timeout: 5)
        XCTAssertEqual(first, [SdkCore.matchStatus: "failed"])
        harness.eventually("organic") { harness.core.attributionParams()[SdkCore.matchStatus] == "organic" }
        XCTAssertEqual(harness.core.attributionParams()["media_source"], "organic")
    }

    func testAnAttributionAnswerNotOfTheContractsShapeIsAskedAgainLaterLikeA5xx() throws {
        let harness = Harness()
        var answers = ["<html>portal</html>", "[]", "{}", #"{"service_match_status":"organic","media_source":"organic"}"#]
        harness.service.answer = { request in
            guard FakeService.path(request).hasSuffix("/attribution") else { return nil }
            return HTTPResponse(statusCode: 200, body: answers.count > 1 ? answers.removeFirst() : answers[0])
        }
        XCTAssertNil(harness.configure())
        harness.settle()
        XCTAssertEqual(harness.service.requests.filter { FakeService.path($0).hasSuffix("/attribution") }.count, 1, "not asked again at once")
        harness.eventually("organic") { harness.core.attributionParams()[SdkCore.matchStatus] == "organic" }
        XCTAssertEqual(harness.service.requests.filter { FakeService.path($0).hasSuffix("/attribution") }.count, 4)
        // Each answer that did not settle waited, longer each time.
        let waits = harness.scheduler.delays.filter { $0 < 3600 }
        XCTAssertEqual(Array(waits.prefix(3)), [2, 4, 8])
        XCTAssertFalse(harness.log.messages(.error).filter { $0.contains("not the service's") }.isEmpty, "the unexpected answer is a warning")
    }

    func testOfflineTheMatchIsFailedNotOrganic() throws {
        let harness = Harness()
        harness.service.answer = { request in
            if FakeService.path(request) == "/v1/config" { return nil }
            throw ServiceAttributionError.network("offline")
        }
        XCTAssertNil(harness.configure())
        let awaited = expectation(description: "awaited")
        harness.core.awaitAttributionParams { params in
            XCTAssertEqual(params, [SdkCore.matchStatus: "failed"])
            awaited.fulfill()
        }
        wait(for: [awaited], timeout: 5)
    }

    // MARK: deletion

    func testDeletingTheInstallsData() throws {
        let unconfigured = Harness()
        let refused = expectation(description: "refused before configure")
        unconfigured.core.deleteUserData { error in
            XCTAssertEqual(error as? ServiceAttributionError, .notConfigured)
            refused.fulfill()
        }
        wait(for: [refused], timeout: 5)

        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.core.setCustomerUserId("user-8812")
        XCTAssertEqual(harness.store.get(SdkCore.Key.customerUserId), "user-8812")
        harness.eventually("attribution") { harness.core.attributionParams()[SdkCore.matchStatus] == "organic" }
        let deleted = expectation(description: "deleted")
        harness.core.deleteUserData { error in
            XCTAssertNil(error)
            deleted.fulfill()
        }
        wait(for: [deleted], timeout: 5)
        XCTAssertEqual(harness.service.count("DELETE", "/v1/installs/\(try XCTUnwrap(harness.core.serviceIdentifier))"), 1)
        XCTAssertEqual(harness.core.attributionParams(), [SdkCore.matchStatus: "skipped"])
        XCTAssertNil(harness.store.get(SdkCore.Key.customerUserId), "the customer user id goes with the data")

        // An app that names its user again keeps no id of a deleted install.
        harness.core.setCustomerUserId("user-8812")
        XCTAssertNil(harness.store.get(SdkCore.Key.customerUserId))

        // A later launch of the deleted install waits for no attempt: none is made for it, and the
        // user it is configured with is not kept either.
        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure(customerUserId: "user-8812"))
        XCTAssertNil(next.store.get(SdkCore.Key.customerUserId))
        let answered = expectation(description: "answered at once")
        next.core.awaitAttributionParams { params in
            XCTAssertEqual(params, [SdkCore.matchStatus: "skipped"])
            answered.fulfill()
        }
        wait(for: [answered], timeout: 5)
    }

    func testALaterLaunchsAwaitAnswersAtOnceWithTheAttributionKeptOnTheDevice() throws {
        let first = Harness()
        XCTAssertNil(first.configure())
        first.eventually("the attribution kept") { first.core.attributionParams()["media_source"] == "organic" }
        // The next launch on a network that has not answered its configuration's read yet.
        let held = DispatchSemaphore(value: 0)
        let next = Harness(store: first.store)
        next.service.answer = { request in
            if FakeService.path(request) == "/v1/config" { _ = held.wait(timeout: .now() + 10) }
            return nil
        }
        next.configureLater { _ in }
        let answered = expectation(description: "answered while the configuration's read waits")
        next.core.awaitAttributionParams { params in
            XCTAssertEqual(params["media_source"], "organic")
            answered.fulfill()
        }
        wait(for: [answered], timeout: 2)
        held.signal()
        next.settle()
    }

    func testAFailedDeletionReportsItsError() throws {
        let harness = Harness()
        harness.service.answer = { request in request.method == "DELETE" ? HTTPResponse(statusCode: 500, body: "{}") : nil }
        XCTAssertNil(harness.configure())
        let done = expectation(description: "done")
        harness.core.deleteUserData { error in
            XCTAssertEqual(error as? ServiceAttributionError, .http(statusCode: 500, message: "HTTP 500"))
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertNotEqual(harness.core.attributionParams(), [SdkCore.matchStatus: "skipped"])
    }

    // MARK: links

    func testTheLinkThatOpenedTheAppGoesWithTheInstall() throws {
        let harness = Harness()
        harness.core.noteOpenURL("https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d")
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.service.count("POST", "/v1/installs") == 1 }
        let install = try XCTUnwrap(harness.service.requests.first { FakeService.path($0) == "/v1/installs" })
        XCTAssertEqual(
            try JSONValue.parse(try XCTUnwrap(install.body)).objectValue?["open_url"],
            .string("https://go.example.com/Kx3v9QpZ2aQ?service_click_id=4fQx0ZsR8kT2mB7nW1cY9d")
        )
    }
}
