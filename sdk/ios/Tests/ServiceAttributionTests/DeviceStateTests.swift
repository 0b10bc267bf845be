import Foundation
import XCTest
@testable import ServiceAttribution

/// Where the SDK's state lives and how long it may work: an app extension refused, choices made
/// before `configure` kept on the device at once, a state restored from another device
/// forgotten, the IDFV read on the main thread with nothing of the SDK's waiting for it, the
/// time iOS lends in the background, and answers that drop items without naming them.
final class DeviceStateTests: XCTestCase {
    // MARK: app extensions

    func testConfigureInAnAppExtensionIsRefusedAndNothingIsKept() throws {
        let harness = Harness(refusal: .appExtension)
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertFalse(try harness.core.sendEvent(.login, name: nil, parameters: nil), "kept nowhere, not even in memory")
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .appExtension)
        XCTAssertEqual(harness.configure() as? ServiceAttributionError, .appExtension, "each configure hears it")
        XCTAssertFalse(try harness.core.sendEvent(.share, name: nil, parameters: nil))
        harness.runScheduled()
        XCTAssertEqual(harness.service.requests, [], "no request at all")
        XCTAssertNil(harness.store.get(SdkCore.Key.serviceId), "no install made in the extension's container")
        XCTAssertFalse(harness.core.isConfigured)
        XCTAssertTrue(harness.core.isSdkDisabled)
        XCTAssertEqual(harness.core.initError as? ServiceAttributionError, .appExtension)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("app extension") }.count, 1, "one warning")
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 0)
        XCTAssertEqual(heard.errors, [])
    }

    func testSendEventInAnAppExtensionBeforeConfigureSaysItKeepsNothing() throws {
        let log = RecordingLog()
        let core = SdkCore(store: MemoryStore(), refusal: .appExtension, refusalLog: log)
        XCTAssertFalse(try core.sendEvent(.login, name: nil, parameters: nil))
        XCTAssertEqual(log.messages(.warn).filter { $0.contains("nothing is kept") }.count, 1, "\(log.messages(.warn))")
    }

    // MARK: before configure

    func testStopAnonymousModeAndConsentBeforeConfigureAreOnTheDeviceAtOnce() throws {
        let store = MemoryStore()
        let killed = Harness(store: store)
        killed.core.setAnonymous(true)
        killed.core.setConsent(ServiceConsent(adUserData: false))
        killed.core.stop()
        XCTAssertEqual(store.get(SdkCore.Key.stopped), "1")
        XCTAssertEqual(store.get(SdkCore.Key.anonymous), "1")
        XCTAssertNotNil(store.get(SdkCore.Key.consent))
        // The app is killed before configure; the next launch keeps the user's choices.
        let next = Harness(store: store)
        XCTAssertNil(next.configure())
        XCTAssertTrue(next.core.isStopped)
        XCTAssertTrue(next.core.isAnonymous)
        XCTAssertEqual(next.core.currentConsent, ServiceConsent(adUserData: false))
        next.runScheduled()
        XCTAssertEqual(next.service.requests, [])

        // start() before configure is kept at once too.
        let started = Harness(store: store)
        started.core.start()
        XCTAssertEqual(store.get(SdkCore.Key.stopped), "0")
    }

    func testTheDroppedEventCountReadBeforeConfigureIsTheOneKeptAcrossLaunches() throws {
        let store = MemoryStore()
        // An earlier launch dropped 3 events, and kept the count.
        store.put(SdkCore.Key.droppedEvents, "3")
        let next = Harness(store: store)
        XCTAssertEqual(next.core.droppedEventCount, 3)
        XCTAssertNil(next.configure())
        XCTAssertEqual(next.core.droppedEventCount, 3)
    }

    func testNothingIsWrittenBeforeConfigureWhileTheFilesCannotBeRead() throws {
        let store = MemoryStore()
        store.available = false
        let harness = Harness(store: store)
        harness.core.stop()
        XCTAssertNil(store.get(SdkCore.Key.stopped), "not before the first unlock")
        XCTAssertTrue(harness.core.isStopped, "kept in memory, written by configure")
    }

    // MARK: a state restored from another device

    func testAStateKeptUnderAnotherIDFVIsForgottenAndANewInstallTracked() throws {
        let store = try Harness.given(queued: 3)
        store.put(SdkCore.Key.stopped, "0")
        let earlierId = try XCTUnwrap(store.get(SdkCore.Key.serviceId))
        XCTAssertEqual(store.get(SdkCore.Key.vendorId), "6F9619FF-8B86-D011-B42D-00CF4FC964FF", "kept beside the service_id")
        store.put(SdkCore.Key.deleted, "1")

        // The same files on another device (a backup restored there): another IDFV.
        let restored = Harness(store: store)
        restored.device.identifierForVendor = "A1B2C3D4-0000-4000-8000-000000000001"
        XCTAssertNil(restored.configure())
        restored.eventually("a new install") { restored.service.count("POST", "/v1/installs") == 1 }
        XCTAssertNotEqual(restored.core.serviceIdentifier, earlierId)
        XCTAssertEqual(store.get(SdkCore.Key.vendorId), "A1B2C3D4-0000-4000-8000-000000000001")
        XCTAssertNil(store.get(SdkCore.Key.deleted), "the other install's deletion does not silence this one")
        XCTAssertEqual(restored.queuedIndexes, [], "nor do its events go as this install's")
        XCTAssertEqual(restored.service.deliveredEvents, [])
        XCTAssertEqual(restored.log.messages(.info).filter { $0.contains("another IDFV") }.count, 0)
        XCTAssertTrue(restored.log.messages(.warn).contains { $0.contains("another IDFV") })
    }

    func testAnIDFVNotGivenYetIsNotTakenForAnotherDevice() throws {
        let store = try Harness.given(queued: 2)
        let serviceId = store.get(SdkCore.Key.serviceId)
        for missing in [nil, "00000000-0000-0000-0000-000000000000"] as [String?] {
            let launch = Harness(store: store)
            launch.service.offline = true
            launch.device.identifierForVendor = missing
            launch.configure()
            XCTAssertEqual(launch.core.serviceIdentifier, serviceId, missing ?? "nil")
            XCTAssertEqual(launch.queuedIndexes, [0, 1], missing ?? "nil")
            XCTAssertEqual(store.get(SdkCore.Key.vendorId), "6F9619FF-8B86-D011-B42D-00CF4FC964FF")
        }
        // A state kept before the IDFV was (a launch whose device gave none) is this install's.
        store.remove(SdkCore.Key.vendorId)
        let relaunched = Harness(store: store)
        relaunched.service.offline = true
        relaunched.device.identifierForVendor = "A1B2C3D4-0000-4000-8000-000000000001"
        relaunched.configure()
        XCTAssertEqual(relaunched.core.serviceIdentifier, serviceId)
        XCTAssertEqual(store.get(SdkCore.Key.vendorId), "A1B2C3D4-0000-4000-8000-000000000001")
    }

    // MARK: the IDFV, read on the main thread

    func testTheInstallWaitsForTheIDFVTheMainThreadReadsAndNothingWaitsForThatThread() throws {
        let harness = Harness()
        // `configure` called off a busy main thread: UIKit's IDFV is not read yet.
        harness.device.identifierForVendor = nil
        harness.device.givenOnMainThread = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
        harness.device.mainThread = harness.main
        harness.main.hold()
        XCTAssertTrue(harness.configureLater { _ in })
        // The worker drains with the main thread held: it waits for nothing there.
        harness.runScheduled()
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0, "the install waits for the read")
        XCTAssertEqual(harness.device.vendorIdReads, 1)
        XCTAssertTrue(try harness.core.sendEvent(.login, name: nil, parameters: nil), "the app's calls do not wait either")
        harness.runScheduled()
        XCTAssertEqual(harness.device.vendorIdReads, 1, "one read asked, whatever flushes meanwhile")
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)

        harness.main.runHeld()
        harness.eventually("the install, then the event") { harness.service.deliveredEvents.count == 1 }
        let installs = harness.service.sent("POST", "/v1/installs").compactMap { FakeService.body($0)?["idfv"] }
        XCTAssertEqual(installs, [JSONValue.string("6F9619FF-8B86-D011-B42D-00CF4FC964FF")])
        XCTAssertEqual(harness.device.vendorIdReads, 1)
    }

    func testAnIDFVTheMainThreadCannotReadHoldsNoInstall() throws {
        let harness = Harness()
        // UIKit gives none on the main thread either: the install goes without it, and its retry
        // asks again, finding the one iOS gives by then.
        harness.device.identifierForVendor = nil
        harness.device.mainThread = harness.main
        let device = harness.device
        var failures = 1
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/installs", failures > 0 else { return nil }
            failures -= 1
            device.givenOnMainThread = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
            return HTTPResponse(statusCode: 503, body: #"{"error":"Service Unavailable","detail":"scripted"}"#)
        }
        XCTAssertNil(harness.configure())
        harness.eventually("recorded") { harness.store.get(SdkCore.Key.installTracked) != nil }
        let installs = harness.service.sent("POST", "/v1/installs").compactMap { FakeService.body($0)?["idfv"] }
        XCTAssertEqual(installs, [JSONValue.null, JSONValue.string("6F9619FF-8B86-D011-B42D-00CF4FC964FF")])
        XCTAssertEqual(harness.device.vendorIdReads, 2, "one read a try")
    }

    func testAnonymousModeAsksNoReadOfTheIDFV() throws {
        let harness = Harness()
        harness.device.identifierForVendor = nil
        harness.device.givenOnMainThread = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
        harness.device.mainThread = harness.main
        harness.core.setAnonymous(true)
        XCTAssertNil(harness.configure())
        harness.eventually("the install") { harness.service.count("POST", "/v1/installs") == 1 }
        let install = try XCTUnwrap(harness.service.sent("POST", "/v1/installs").first)
        XCTAssertEqual(FakeService.body(install)?["idfv"], JSONValue.null)
        XCTAssertEqual(harness.device.vendorIdReads, 0, "not even read")
    }

    // MARK: the background

    func testGoingToTheBackgroundSendsWhatIsQueuedInTheTimeIOSLends() throws {
        let harness = Harness()
        harness.lifecycle.lendsBackgroundTime = true
        XCTAssertNil(harness.configure())
        harness.eventually("the install") { harness.service.count("POST", "/v1/installs") == 1 }
        // Offline: the event waits for its retry, seconds away.
        harness.service.offline = true
        try harness.sendIndexed(2)
        harness.settle()
        XCTAssertEqual(harness.queuedIndexes, [0, 1])
        harness.service.offline = false
        harness.lifecycle.enterBackground()
        harness.settle()
        // Sent at once, not at the retry; the time given back once nothing is left.
        XCTAssertEqual(harness.acceptedIndexes, [0, 1])
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 1)
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 1)
        // The retry that waited finds its work done.
        let posted = harness.service.count("POST", "/v1/events")
        harness.runScheduled(3)
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), posted)

        // Nothing queued: no time asked for.
        harness.lifecycle.enterForeground()
        harness.settle()
        harness.lifecycle.enterBackground()
        harness.settle()
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 1)
    }

    func testTheTimeLentIsGivenBackOnceWhenIOSTakesItBack() throws {
        let harness = Harness()
        harness.lifecycle.lendsBackgroundTime = true
        harness.service.offline = true
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        harness.lifecycle.enterBackground()
        harness.settle()
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 1)
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 0, "still offline: kept for the retry")
        harness.lifecycle.expireBackgroundTime()
        harness.settle()
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 1)
        XCTAssertEqual(harness.queuedIndexes, [0], "what is left stays queued")
        // Back online, a later flush gives nothing back twice.
        harness.service.offline = false
        harness.eventually("delivered") { harness.acceptedIndexes == [0] }
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 1)
    }

    func testGoingToTheBackgroundLeavesTheInstallToItsRetryAndReadsNoAppleAdsTokenEarly() throws {
        // Apple's framework cannot make the Ads token yet: the install waits for it, read again
        // at its retries (2 s, then 4), three reads at most. A user who leaves the app and comes
        // back a few times meanwhile must not spend those reads within seconds, as the Kotlin and
        // Unity SDKs leave the install to its own retry.
        let harness = Harness()
        harness.lifecycle.lendsBackgroundTime = true
        harness.core.enablePlatformAds()
        harness.device.tokenFailures = 2
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.device.tokenReads, 1)
        XCTAssertTrue(harness.scheduler.pending.contains(2), "the install's retry: \(harness.scheduler.pending)")
        for _ in 0..<3 {
            harness.lifecycle.enterBackground()
            harness.settle()
            harness.lifecycle.enterForeground()
            harness.settle()
        }
        XCTAssertEqual(harness.device.tokenReads, 1, "no read of the token before the install's retry")
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)
        XCTAssertTrue(harness.scheduler.pending.contains(2), "the retry kept its time: \(harness.scheduler.pending)")
        // The time lent is kept for that retry, asked for once.
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 1)
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 0)

        // The retries read it, the third read makes it, and the install carries it.
        harness.eventually("the install") { harness.service.count("POST", "/v1/installs") == 1 }
        XCTAssertEqual(harness.device.tokenReads, 3)
        let body = harness.service.sent("POST", "/v1/installs").first.flatMap(FakeService.body)
        XCTAssertEqual(body?["platform_ads_token"], .string("c2FtcGxlLWFkc2VydmljZXMtdG9rZW4"))
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 1, "given back once nothing is left")
    }

    func testNoTimeIsAskedForWhileStopped() throws {
        let harness = Harness()
        harness.lifecycle.lendsBackgroundTime = true
        harness.service.offline = true
        harness.configure()
        try harness.sendIndexed(1)
        harness.core.stop()
        harness.lifecycle.enterBackground()
        harness.settle()
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 0)
    }

    // MARK: answers that drop items without naming them

    /// The events route answers its first request 202 with `body`, as usual after; the result
    /// says whether it has answered yet.
    private func answerFirstEvents(of harness: Harness, with body: String) -> () -> Bool {
        var answered = false
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !answered else { return nil }
            answered = true
            return HTTPResponse(statusCode: 202, body: body)
        }
        return { answered }
    }

    func testEveryItemAnAnswerDropsIsCountedWithTheServicesReason() throws {
        let harness = Harness(store: try Harness.given(queued: 4))
        let heard = Heard()
        heard.listen(to: harness.core)
        // #0 stored; a refusal naming index 9 of a request of 4; #2 ignored for a reason the SDK
        // does not know; #3 named nowhere, and not counted as accepted either.
        let answered = answerFirstEvents(of: harness, with: #"{"accepted":1,"ignored":[{"index":2,"event_id":"c","reason":"install_event","detail":"INSTALL is tracked by the SDK itself"}],"rejected":[{"index":9,"event_id":null,"error":"Unprocessable Entity","detail":"event_time: is required","retryable":false}],"warnings":[]}"#)
        XCTAssertNil(harness.configure())
        harness.eventually("answered") { answered() && harness.queuedIndexes.isEmpty }
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "", String($0.count)] }, [["events_dropped", "refused", "3"]])
        let message = try XCTUnwrap(heard.errors.first?.message)
        XCTAssertTrue(message.contains("event_time: is required"), message)
        XCTAssertTrue(message.contains("install_event"), message)
        XCTAssertTrue(message.contains("1 event neither counted as accepted"), message)
        XCTAssertEqual(harness.core.droppedEventCount, 3)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("3 events dropped (refused)") }.count, 1)
    }

    func testAVerdictNamingNoItemSpeaksOnlyForAnItemTheAnswerDidNotAccept() throws {
        let harness = Harness(store: try Harness.given(queued: 2))
        let heard = Heard()
        heard.listen(to: harness.core)
        var answers = [
            // Both accepted: neither a refusal of #5 nor an install deletion of #7 can speak of them.
            #"{"accepted":2,"ignored":[{"index":7,"event_id":null,"reason":"install_deleted","detail":"deleted"}],"rejected":[{"index":5,"event_id":null,"error":"Unprocessable Entity","detail":"no such event","retryable":false}],"warnings":[]}"#,
        ]
        harness.service.answer = { request in
            guard FakeService.path(request) == "/v1/events", !answers.isEmpty else { return nil }
            return HTTPResponse(statusCode: 202, body: answers.removeFirst())
        }
        XCTAssertNil(harness.configure())
        harness.eventually("answered") { answers.isEmpty && harness.queuedIndexes.isEmpty }
        XCTAssertEqual(heard.errors, [])
        XCTAssertEqual(harness.core.droppedEventCount, 0)
        XCTAssertNil(harness.store.get(SdkCore.Key.deleted), "an entry naming no item deletes nothing")
        XCTAssertTrue(harness.log.messages(.warn).contains { $0.contains("does not add up") })

        // A count accepted below 0 accepts none: one event, one drop.
        answers = [#"{"accepted":-1,"ignored":[],"rejected":[],"warnings":[]}"#]
        try harness.sendIndexed(1, from: 2)
        harness.eventually("answered") { answers.isEmpty && harness.queuedIndexes.isEmpty }
        XCTAssertEqual(heard.errors.map { $0.count }, [1])
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }

    func testAnItemRefusedForARetryAndIgnoredIsKeptForTheRetryAsTheFirstVerdictSays() throws {
        let harness = Harness(store: try Harness.given(queued: 1))
        let heard = Heard()
        heard.listen(to: harness.core)
        let answered = answerFirstEvents(of: harness, with: #"{"accepted":0,"ignored":[{"index":0,"event_id":null,"reason":"app_disabled","detail":"off"}],"rejected":[{"index":0,"event_id":null,"error":"Service Unavailable","detail":"later","retryable":true}],"warnings":[]}"#)
        XCTAssertNil(harness.configure())
        harness.eventually("sent again and stored") { answered() && harness.acceptedIndexes == [0] }
        XCTAssertEqual(heard.errors, [], "no drop for an event sent again")
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    func testAnAnswerThatAccountsForEveryItemDropsNothingMore() throws {
        let harness = Harness(store: try Harness.given(queued: 3))
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.eventually("delivered") { harness.acceptedIndexes == [0, 1, 2] }
        XCTAssertEqual(heard.errors, [])
        XCTAssertEqual(harness.core.droppedEventCount, 0)
    }

    // MARK: a damaged queue

    func testADamagedQueueLosesOnlyWhatItCannotReadAndTellsTheApp() throws {
        let store = try Harness.given(queued: 2)
        // Two items an update or a damaged file left: one that is no object, one with no event_id.
        let kept = try XCTUnwrap(store.get(EventQueue.Kind.events.key))
        store.put(EventQueue.Kind.events.key, kept + "7\n" + #"{"event_type":"LOGIN","parameters":{"n":9}}"# + "\n")
        let harness = Harness(store: store)
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.eventually("the two readable events") { harness.acceptedIndexes == [0, 1] }
        harness.runScheduled()
        XCTAssertEqual(harness.acceptedIndexes, [0, 1], "the item with no id is not sent, let alone for ever")
        XCTAssertEqual(harness.queuedIndexes, [])
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "none", String($0.count)] }, [["events_dropped", "none", "2"]])
        XCTAssertEqual(harness.core.droppedEventCount, 2)
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("2 events lost") }.count, 1)
        // Told once: the next launch reads a queue written back without them.
        let next = Harness(store: store)
        let heardNext = Heard()
        heardNext.listen(to: next.core)
        XCTAssertNil(next.configure())
        XCTAssertEqual(heardNext.errors, [])
    }

    func testAQueueLineCutShortIsReportedNotSilentlyLost() throws {
        let store = try Harness.given(queued: 1)
        store.put(EventQueue.Kind.events.key, #"{"event_id":"e1","#)
        let harness = Harness(store: store)
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        XCTAssertEqual(heard.errors.map { [$0.kind.rawValue, $0.reason?.rawValue ?? "none", String($0.count)] }, [["events_dropped", "none", "1"]])
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("1 event lost") }.count, 1)
        XCTAssertEqual(harness.core.droppedEventCount, 1)
    }
}
