import Foundation
import XCTest
@testable import ServiceAttribution

/// How long a retry waits (sdk/conformance/delivery.json's `retryWait`): its backoff jittered
/// between half of it and the whole, so that devices that failed together do not come back
/// together, and never less than the `Retry-After` the service last answered with, up to an hour.
final class RetryWaitTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A generator that gives the same numbers every run (SplitMix64).
    private struct SeededRandom: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static func answer(_ status: Int, retryAfter: String? = nil) -> HTTPResponse {
        return HTTPResponse(statusCode: status, body: #"{"error":"Later","detail":"scripted"}"#, retryAfter: retryAfter)
    }

    /// The service's script: `first` to the first request of `path`, the usual answer to the rest.
    private static func firstThenUsual(_ path: String, _ first: @escaping () -> HTTPResponse) -> (HTTPRequest) throws -> HTTPResponse? {
        var answered = false
        return { request in
            guard FakeService.path(request) == path, !answered else { return nil }
            answered = true
            return first()
        }
    }

    func testTheWaitsAreDeliveryJsonsRetryWait() throws {
        let retryWait = try XCTUnwrap(try Vectors.conformance("delivery.json")["retryWait"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(retryWait["maxRetryAfterSeconds"] as? Double), RetryWait.maxRetryAfter)
        XCTAssertEqual(try XCTUnwrap(retryWait["jitterLowestShare"] as? Double), RetryWait.jitterLowestShare)
    }

    func testARetryAfterIsReadAsSecondsOrAsAnHttpDateAndAtMostAnHour() {
        XCTAssertEqual(RetryWait.retryAfter("30", now: now), 30)
        XCTAssertEqual(RetryWait.retryAfter("0", now: now), 0)
        XCTAssertEqual(RetryWait.retryAfter(httpDate(now.addingTimeInterval(90)), now: now), 90)
        XCTAssertEqual(RetryWait.retryAfter(httpDate(now.addingTimeInterval(-90)), now: now), 0)
        XCTAssertEqual(RetryWait.retryAfter("86400", now: now), RetryWait.maxRetryAfter)
        XCTAssertEqual(RetryWait.retryAfter("99999999999999999999999", now: now), RetryWait.maxRetryAfter)
        for unreadable in [nil, "", "soon", "-5", "1.5"] as [String?] {
            XCTAssertNil(RetryWait.retryAfter(unreadable, now: now), unreadable ?? "nil")
        }
    }

    func testTheJitterSpreadsABackoffOverItsSecondHalf() {
        var random = SeededRandom(state: 7)
        let waits = (0..<1_000).map { _ in RetryWait.jittered(2, using: &random) }
        XCTAssertTrue(waits.allSatisfy { (1...2).contains($0) })
        // Spread over the half, not bunched at one end.
        XCTAssertLessThan(try XCTUnwrap(waits.min()), 1.1)
        XCTAssertGreaterThan(try XCTUnwrap(waits.max()), 1.9)
        XCTAssertTrue((400...600).contains(waits.filter { $0 < 1.5 }.count))
        XCTAssertEqual(RetryWait.jittered(0, using: &random), 0)
    }

    func testARetryWaitsWhatTheJitterMakesOfItsBackoffAndTheSdkShipsWithTheJitterOn() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? RetryWaitTests.answer(503) : nil
        }
        var settings = Harness.settings
        settings.jitter = { $0 / 2 }
        harness.configure(settings: settings)
        try harness.sendIndexed(1)
        harness.settle()
        XCTAssertTrue(harness.scheduler.pending.contains(1))
        XCTAssertFalse(harness.scheduler.pending.contains(2))

        let shipped = (0..<200).map { _ in SdkSettings(baseURL: "").jitter(2) }
        XCTAssertTrue(shipped.allSatisfy { (1...2).contains($0) })
        XCTAssertGreaterThan(Set(shipped).count, 1)
    }

    func testEventsAnswered503WithARetryAfterWaitAsLongAsItAsksNotTheBackoff() throws {
        let harness = Harness()
        harness.service.answer = RetryWaitTests.firstThenUsual("/v1/events") { RetryWaitTests.answer(503, retryAfter: "30") }
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        XCTAssertTrue(harness.scheduler.pending.contains(30), "\(harness.scheduler.pending)")
        XCTAssertFalse(harness.scheduler.pending.contains(2))
        XCTAssertTrue(harness.log.messages(.info).contains { $0.contains("as the service asked (Retry-After)") })
        harness.eventually("delivered at the second attempt") { harness.service.acceptedEvents.count == 1 }
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 2)
        XCTAssertGreaterThanOrEqual(harness.scheduler.elapsed, 30)
    }

    func testAStopAndAStartBeginTheBackoffAgain() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? RetryWaitTests.answer(503) : nil
        }
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        for _ in 0..<2 {
            harness.scheduler.runNext()
            harness.settle()
        }
        XCTAssertTrue(harness.scheduler.pending.contains(8), "\(harness.scheduler.delays)")
        harness.core.stop()
        harness.settle()
        harness.core.start()
        harness.settle()
        try harness.sendIndexed(1, from: 1)
        harness.settle()
        XCTAssertTrue(harness.scheduler.pending.contains(2), "the first step again: \(harness.scheduler.pending)")
        XCTAssertFalse(harness.scheduler.pending.contains(16), "\(harness.scheduler.pending)")
    }

    func testGoingToTheBackgroundSendsNothingBeforeARetryAftersTimeWhichTheRetryKeeps() throws {
        let harness = Harness()
        harness.lifecycle.lendsBackgroundTime = true
        harness.service.answer = RetryWaitTests.firstThenUsual("/v1/events") { RetryWaitTests.answer(503, retryAfter: "30") }
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        harness.lifecycle.enterBackground()
        harness.settle()
        XCTAssertEqual(harness.service.count("POST", "/v1/events"), 1, "nothing sent in the background")
        XCTAssertEqual(harness.lifecycle.backgroundTimes.begun, 0, "no time asked of iOS for it")
        XCTAssertTrue(harness.scheduler.pending.contains(30), "the retry kept its time")
    }

    func testAnInstallAnswered429WithARetryAfterDateIsSentAgainAtThatDate() throws {
        let harness = Harness()
        harness.service.answer = RetryWaitTests.firstThenUsual("/v1/installs") { [unowned harness] in
            RetryWaitTests.answer(429, retryAfter: self.httpDate(harness.now.addingTimeInterval(45)))
        }
        harness.configure()
        XCTAssertTrue(harness.scheduler.pending.contains(45), "\(harness.scheduler.pending)")
        harness.eventually("the install sent again") { harness.service.count("POST", "/v1/installs") == 2 }
    }

    func testARetryAfterOfADayIsWaitedForAnHour() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/events" ? RetryWaitTests.answer(503, retryAfter: "86400") : nil
        }
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        XCTAssertTrue(harness.scheduler.pending.contains(RetryWait.maxRetryAfter), "\(harness.scheduler.pending)")
    }

    func testARefusalWithARetryAfterHoldsNothingBack() throws {
        let harness = Harness()
        harness.service.answer = RetryWaitTests.firstThenUsual("/v1/events") { RetryWaitTests.answer(400, retryAfter: "600") }
        harness.configure()
        try harness.sendIndexed(1)
        harness.settle()
        try harness.sendIndexed(1, from: 1)
        harness.settle()
        // Refused alone and dropped; the next one went at once, not ten minutes later.
        XCTAssertEqual(harness.service.acceptedEvents.count, 1)
        XCTAssertFalse(harness.scheduler.delays.contains(600))
    }

    func testTheAttributionIsAskedAgainNoSoonerThanItsRetryAfter() throws {
        let harness = Harness()
        harness.service.answer = { request in
            FakeService.path(request).hasSuffix("/attribution") ? RetryWaitTests.answer(503, retryAfter: "120") : nil
        }
        harness.configure()
        harness.settle()
        XCTAssertGreaterThan(harness.service.requests.filter { FakeService.path($0).hasSuffix("/attribution") }.count, 0)
        XCTAssertTrue(harness.scheduler.pending.contains(120), "\(harness.scheduler.pending)")
    }
}
