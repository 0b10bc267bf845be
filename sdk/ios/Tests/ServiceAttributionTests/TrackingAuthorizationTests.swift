import Foundation
import XCTest
@testable import ServiceAttribution

/// The install held for the app's App Tracking Transparency answer (`waitForTrackingAuthorization`
/// before `configure`): held, with what goes after it, while ATT's status reads `not_determined`
/// and the timeout has not passed since this launch's `configure`; the status read again every
/// second on the SDK's scheduler (the test's clock) and at once as the app becomes active; never
/// held for an install recorded already, without the call, or once ATT is answered or has no
/// status; refused timeouts and a call after `configure` changing nothing.
final class TrackingAuthorizationTests: XCTestCase {
    private let waitBegan = "the install waits for the app's tracking authorization, up to"

    /// A launch whose app asked for the wait before `configure`, ATT not answered yet.
    private func waiting(_ timeout: TimeInterval, store: MemoryStore = MemoryStore()) -> Harness {
        let harness = Harness(store: store)
        harness.device.trackingAuthorizationStatus = "not_determined"
        harness.core.waitForTrackingAuthorization(timeout: timeout, log: harness.log)
        return harness
    }

    private func installs(_ harness: Harness) -> [[String: JSONValue]] {
        return harness.service.sent("POST", "/v1/installs").compactMap(FakeService.body)
    }

    private func consentUpdates(_ harness: Harness) -> Int {
        return harness.service.requests.filter { $0.method == "POST" && FakeService.path($0).hasSuffix("/consent") }.count
    }

    /// The info lines that hold `text`.
    private func said(_ harness: Harness, _ text: String) -> [String] {
        return harness.log.messages(.info).filter { $0.contains(text) }
    }

    func testTheInstallWaitsWhileNotDeterminedAndGoesWithTheIdfaOnceAuthorized() throws {
        let harness = waiting(60)
        let idfa = try XCTUnwrap(harness.device.idfa)
        let matched = Latch()
        XCTAssertNil(harness.configure())
        harness.core.awaitAttributionParams { _ in matched.open() }
        XCTAssertTrue(try harness.core.sendEvent(.tutorialComplete, name: nil, parameters: nil))
        harness.runScheduled(10)

        // Held, and everything behind it with it; remote configuration is read all the same.
        XCTAssertEqual(harness.service.count("GET", "/v1/config"), 1)
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)
        XCTAssertEqual(harness.service.count("POST", "/v1/sessions"), 0)
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 0)
        XCTAssertEqual(consentUpdates(harness), 0)
        XCTAssertEqual(harness.core.queuedEventCount, 1, "the event is kept on the device meanwhile")
        XCTAssertEqual(harness.core.queuedSessionCount, 1)
        XCTAssertFalse(matched.opened, "the first match attempt waits with the install")
        XCTAssertEqual(said(harness, waitBegan), ["the install waits for the app's tracking authorization, up to 60 s"], "said once")
        // Read again every second, on the SDK's scheduler, one read at a time (3600: the
        // configuration's refresh).
        XCTAssertEqual(harness.scheduler.elapsed, 10)
        XCTAssertEqual(harness.scheduler.delays.filter { $0 != 3600 }, Array(repeating: 1, count: 11))

        // The user allows tracking: the next second's read sends the install, with the IDFA.
        harness.device.trackingAuthorizationStatus = "authorized"
        harness.eventually("the event") { harness.service.deliveredEvents.count == 1 }
        XCTAssertEqual(harness.scheduler.elapsed, 11)
        XCTAssertEqual(installs(harness).count, 1)
        let install = try XCTUnwrap(installs(harness).first)
        XCTAssertEqual(install["att_status"], .string("authorized"))
        XCTAssertEqual(install["maid"], .string(idfa))
        XCTAssertEqual(install["sent_at"], .string(Requests.iso(Harness.epoch.addingTimeInterval(11))))
        XCTAssertEqual(harness.service.acceptedSessions.count, 1)
        XCTAssertTrue(matched.opened)
        XCTAssertEqual(said(harness, "the app's tracking authorization is authorized: the install goes").count, 1)
        // The install reported the tracking as it is: nothing to update.
        harness.runScheduled(3)
        XCTAssertEqual(consentUpdates(harness), 0)
        XCTAssertEqual(installs(harness).count, 1)
    }

    func testTheAnswerIsReadAtOnceAsTheAppBecomesActive() throws {
        let harness = waiting(60)
        XCTAssertNil(harness.configure())
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)

        // ATT's prompt closes, which makes the app active again: the user asked the app not to track.
        harness.device.trackingAuthorizationStatus = "denied"
        harness.lifecycle.becomeActive()
        harness.settle()
        XCTAssertEqual(harness.scheduler.elapsed, 0, "at once, not at the next second's read")
        let install = try XCTUnwrap(installs(harness).first)
        XCTAssertEqual(install["att_status"], .string("denied"))
        XCTAssertEqual(install["maid"] ?? .null, .null)
        XCTAssertEqual(said(harness, "the app's tracking authorization is denied: the install goes").count, 1)
        // The second's read that was scheduled finds the install gone, and reads nothing more.
        harness.runScheduled(3)
        XCTAssertEqual(installs(harness).count, 1)
        XCTAssertEqual(harness.scheduler.delays.filter { $0 == 1 }.count, 1)
    }

    func testTheInstallGoesWhenTheTimeoutPasses() throws {
        let harness = waiting(5)
        XCTAssertNil(harness.configure())
        harness.runScheduled(4)
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0, "4 s: still waiting")
        harness.runScheduled(1)
        let install = try XCTUnwrap(installs(harness).first, "5 s: the time ran out")
        XCTAssertEqual(install["sent_at"], .string(Requests.iso(Harness.epoch.addingTimeInterval(5))))
        XCTAssertEqual(install["att_status"], .string("not_determined"))
        XCTAssertEqual(install["maid"] ?? .null, .null)
        XCTAssertEqual(said(harness, "no tracking authorization came in 5 s: the install goes").count, 1)

        // A timeout of a fraction: the last read comes when what is left of it has passed.
        let fraction = waiting(2.5)
        XCTAssertNil(fraction.configure())
        fraction.runScheduled(2)
        XCTAssertEqual(fraction.service.count("POST", "/v1/installs"), 0)
        fraction.runScheduled(1)
        XCTAssertEqual(fraction.scheduler.elapsed, 2.5)
        XCTAssertEqual(installs(fraction).first?["sent_at"], .string(Requests.iso(Harness.epoch.addingTimeInterval(2.5))))
        XCTAssertEqual(said(fraction, waitBegan), ["the install waits for the app's tracking authorization, up to 2.5 s"])
    }

    func testAnInstallRecordedAtAnEarlierLaunchNeverWaits() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        first.eventually("the install") { store.get(SdkCore.Key.installTracked) != nil }

        // A later launch: the app asks at every launch, and ATT reads not_determined again (the
        // user reset it in Settings, say).
        let next = waiting(60, store: store)
        XCTAssertNil(next.configure())
        XCTAssertTrue(try next.core.sendEvent(.login, name: nil, parameters: nil))
        next.settle()
        XCTAssertEqual(next.service.deliveredEvents.count, 1, "sent at once")
        XCTAssertEqual(next.scheduler.elapsed, 0)
        XCTAssertEqual(next.service.count("POST", "/v1/installs"), 0)
        XCTAssertEqual(said(next, waitBegan), [])
    }

    func testWithoutTheCallTheInstallNeverWaits() throws {
        let harness = Harness()
        harness.device.trackingAuthorizationStatus = "not_determined"
        XCTAssertNil(harness.configure())
        let install = try XCTUnwrap(installs(harness).first, "sent as configure runs")
        XCTAssertEqual(install["att_status"], .string("not_determined"))
        XCTAssertEqual(harness.scheduler.elapsed, 0)
        XCTAssertEqual(said(harness, waitBegan), [])
    }

    func testAnAnsweredOrUnreadableStatusNeverHolds() throws {
        for status in ["authorized", "denied", "restricted", nil] as [String?] {
            let name = status ?? "no status"
            let harness = Harness()
            let idfa = try XCTUnwrap(harness.device.idfa)
            harness.device.trackingAuthorizationStatus = status
            harness.core.waitForTrackingAuthorization(timeout: 60, log: harness.log)
            XCTAssertNil(harness.configure())
            let install = try XCTUnwrap(installs(harness).first, "\(name): sent as configure runs")
            XCTAssertEqual(install["att_status"] ?? .null, status.map(JSONValue.string) ?? .null, name)
            let maid: JSONValue = status == "authorized" ? .string(idfa) : .null
            XCTAssertEqual(install["maid"] ?? .null, maid, name)
            XCTAssertEqual(harness.scheduler.elapsed, 0, name)
            XCTAssertEqual(said(harness, waitBegan), [], name)
            XCTAssertEqual(harness.log.messages(.debug).filter { $0.hasSuffix(": the install goes without waiting") }.count, 1, name)
        }
    }

    func testATimeoutOutsideOneTo360SecondsIsRefusedAndChangesNothing() throws {
        for timeout in [0, 0.999, 360.001, 361, -5, .nan, .infinity, -.infinity] as [TimeInterval] {
            let harness = Harness()
            harness.device.trackingAuthorizationStatus = "not_determined"
            harness.core.waitForTrackingAuthorization(timeout: timeout, log: harness.log)
            let refusals = harness.log.messages(.error).filter { $0.contains("the timeout must be 1 to 360 seconds") }
            XCTAssertEqual(refusals.count, 1, "\(timeout)")
            XCTAssertNil(harness.configure())
            XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1, "\(timeout): not held")
            XCTAssertEqual(said(harness, waitBegan), [], "\(timeout)")
        }

        // A refused value after a valid one leaves the valid one.
        let kept = waiting(30)
        kept.core.waitForTrackingAuthorization(timeout: 0, log: kept.log)
        XCTAssertNil(kept.configure())
        XCTAssertEqual(kept.service.count("POST", "/v1/installs"), 0)
        XCTAssertEqual(said(kept, waitBegan), ["the install waits for the app's tracking authorization, up to 30 s"])

        // The bounds themselves are taken.
        for timeout in [1, 360] as [TimeInterval] {
            let bound = waiting(timeout)
            XCTAssertNil(bound.configure())
            XCTAssertEqual(bound.service.count("POST", "/v1/installs"), 0, "\(timeout)")
            XCTAssertEqual(bound.log.messages(.error), [], "\(timeout)")
        }
    }

    func testACallAfterConfigureChangesNothing() throws {
        let harness = Harness()
        harness.device.trackingAuthorizationStatus = "not_determined"
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/installs" ? HTTPResponse(statusCode: 503, body: #"{"error":"Service Unavailable"}"#) : nil
        }
        XCTAssertNil(harness.configure())
        XCTAssertNil(harness.store.get(SdkCore.Key.installTracked), "not recorded yet: the install is on its way")

        harness.core.waitForTrackingAuthorization(timeout: 60, log: harness.log)
        // A warning the app must see: written at error level, iOS having no warning tier.
        XCTAssertEqual(harness.log.messages(.error).filter { $0.contains("waitForTrackingAuthorization was called after configure") }.count, 1)
        harness.service.answer = nil
        harness.eventually("the install") { harness.store.get(SdkCore.Key.installTracked) != nil }
        XCTAssertEqual(harness.scheduler.elapsed, 2, "at its retry, not held")
        XCTAssertEqual(installs(harness).last?["att_status"], .string("not_determined"))
        XCTAssertEqual(said(harness, waitBegan), [])
    }

    func testALaunchThatEndedWhileWaitingWaitsAgainFromItsOwnConfigure() throws {
        let store = MemoryStore()
        let first = waiting(10, store: store)
        XCTAssertNil(first.configure())
        XCTAssertTrue(try first.core.sendEvent(.levelStart, name: nil, parameters: nil))
        first.runScheduled(3)
        XCTAssertEqual(first.service.count("POST", "/v1/installs"), 0)

        // The process ends there. The next launch, ten minutes later, asks again: its wait counts
        // from its own configure, not from the first launch's.
        let next = waiting(10, store: store)
        next.setClock(600)
        XCTAssertNil(next.configure())
        next.runScheduled(9)
        XCTAssertEqual(next.service.count("POST", "/v1/installs"), 0, "within its own 10 s")
        XCTAssertEqual(said(next, waitBegan).count, 1)
        next.runScheduled(1)
        let install = try XCTUnwrap(installs(next).first)
        XCTAssertEqual(install["sent_at"], .string(Requests.iso(Harness.epoch.addingTimeInterval(610))))
        next.eventually("the first launch's event") { next.service.deliveredEvents.count == 1 }
    }

    func testWhileTheInstallWaitsTheTimeLentInTheBackgroundIsGivenBack() throws {
        let harness = waiting(60)
        harness.lifecycle.lendsBackgroundTime = true
        XCTAssertNil(harness.configure())
        harness.lifecycle.enterBackground()
        harness.settle()
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 1)
        XCTAssertEqual(harness.lifecycle.backgroundTimes.ended, 1, "nothing can be sent while the install waits")
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 0)

        // Back in the foreground, the prompt answered: the install goes as the app becomes active.
        harness.lifecycle.enterForeground()
        harness.device.trackingAuthorizationStatus = "authorized"
        harness.lifecycle.becomeActive()
        harness.settle()
        XCTAssertEqual(harness.service.count("POST", "/v1/installs"), 1)
    }
}
