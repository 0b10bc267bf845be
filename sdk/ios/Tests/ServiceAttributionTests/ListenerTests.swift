import Foundation
import XCTest
@testable import ServiceAttribution

/// sdk/conformance/listeners.json: what the attribution, deep-link and error listeners receive,
/// through the closures and the delegate.
final class ListenerTests: XCTestCase {
    private func cases(_ key: String) throws -> [[String: Any]] {
        return try XCTUnwrap(try Vectors.conformance("listeners.json")[key] as? [[String: Any]], key)
    }

    /// The deep link a vector expects, compared field by field with the SDK's.
    private func assertDeepLink(_ actual: ServiceDeepLink?, _ expected: Any?, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let expected = expected as? [String: Any] else {
            XCTAssertNil(actual, name, file: file, line: line)
            return
        }
        guard let link = actual else { return XCTFail("\(name): no deep link", file: file, line: line) }
        XCTAssertEqual(link.kind.rawValue, expected["kind"] as? String, name, file: file, line: line)
        XCTAssertEqual(link.deeplinkId, expected["deeplinkId"] as? String, name, file: file, line: line)
        XCTAssertEqual(link.path, expected["path"] as? String, name, file: file, line: line)
        XCTAssertEqual(link.params, expected["params"] as? [String: String], name, file: file, line: line)
        XCTAssertEqual(link.url?.absoluteString, expected["url"] as? String, name, file: file, line: line)
    }

    func testTheAttributionKeysAreTheVectors() throws {
        let keys = try XCTUnwrap(try Vectors.conformance("listeners.json")["attributionKeys"] as? [String])
        XCTAssertEqual(SdkCore.attributionKeys, Set(keys))
    }

    // MARK: deferred deep links

    func testTheDeferredDeepLinkEachAttributionGives() throws {
        for testCase in try cases("deferred") {
            let name = testCase["name"] as? String ?? "?"
            let attribution = try XCTUnwrap(testCase["attribution"] as? [String: String], name)
            assertDeepLink(SdkCore.deferredDeepLink(attribution), testCase["deepLink"], name)
        }
    }

    /// End to end: the service answers each vector's attribution; the listeners hear the map,
    /// and the deferred deep link once per install, never at a later launch.
    func testTheListenersHearTheAttributionAndItsDeferredDeepLinkOncePerInstall() throws {
        for testCase in try cases("deferred") {
            let name = testCase["name"] as? String ?? "?"
            let attribution = try XCTUnwrap(testCase["attribution"] as? [String: String], name)
            let harness = Harness()
            harness.service.attribution = try XCTUnwrap(JSONValue(foundation: attribution)?.text)
            let closures = Heard()
            closures.listen(to: harness.core)
            let delegate = Heard()
            harness.core.listenerDelegate = delegate
            XCTAssertNil(harness.configure(), name)
            harness.eventually("\(name): attribution") { closures.attributions.count == 1 }
            XCTAssertEqual(closures.attributions, [attribution], "\(name): the route's whole map")
            XCTAssertEqual(delegate.attributions, [attribution], name)
            let expected = testCase["deepLink"] as? [String: Any]
            XCTAssertEqual(closures.deepLinks.count, expected == nil ? 0 : 1, name)
            assertDeepLink(closures.deepLinks.first, expected, name)
            assertDeepLink(delegate.deepLinks.first, expected, name)

            // The next launch: the stored map again, the deferred deep link never again.
            let next = Harness(store: harness.store, service: harness.service)
            let later = Heard()
            later.listen(to: next.core)
            XCTAssertNil(next.configure(), name)
            next.runScheduled(3)
            XCTAssertEqual(later.attributions, [attribution], "\(name): the stored map at the next start")
            XCTAssertEqual(later.deepLinks, [], name)
            XCTAssertEqual(next.service.requests.filter { FakeService.path($0).hasSuffix("/attribution") }.count, 1, "read once per install")
        }
    }

    func testADeferredDeepLinkWithNoListenerYetStaysOnTheDeviceUntilOneIsSet() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        first.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7"}"#
        XCTAssertNil(first.configure())
        first.eventually("attribution") { first.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        // The process ends before the app sets a deep-link listener.
        XCTAssertNil(store.get(SdkCore.Key.deferredDelivered), "not delivered: nobody had it")

        let second = Harness(store: store, service: first.service)
        XCTAssertNil(second.configure())
        let heard = Heard()
        heard.listen(to: second.core)
        second.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        XCTAssertEqual(heard.deepLinks.first?.path, "/levels/7")

        let third = Harness(store: store, service: first.service)
        let later = Heard()
        later.listen(to: third.core)
        XCTAssertNil(third.configure())
        third.runScheduled(3)
        XCTAssertEqual(later.deepLinks, [], "once per install")
    }

    /// A configured launch whose attribution carries a deferred deep link, kept on the device for
    /// want of a listener; then a listener is set, and the app clears it again just as the
    /// worker, having found it set, reads the attribution to offer the link.
    private func deferredLinkOfferedAsTheListenerIsCleared(file: StaticString = #filePath, line: UInt = #line) -> Harness {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7","promo":"W"}"#
        XCTAssertNil(harness.configure(), file: file, line: line)
        harness.eventually("attribution", file: file, line: line) { harness.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        XCTAssertNil(harness.store.get(SdkCore.Key.deferredDelivered), file: file, line: line)
        harness.store.beforeRead = { [unowned harness] key in
            guard key == SdkCore.Key.attribution else { return }
            harness.store.beforeRead = nil
            harness.core.deepLinkListener = nil
        }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertNil(harness.store.beforeRead, "the link was offered without a read of the attribution", file: file, line: line)
        XCTAssertNil(harness.core.deepLinkListener, file: file, line: line)
        XCTAssertEqual(heard.deepLinks, [], "the listener cleared before the link was handed over", file: file, line: line)
        return harness
    }

    func testTheDeferredDeepLinkOfferedAsTheListenerIsClearedIsNotMarkedDeliveredAndTheNextListenerGetsItOnce() throws {
        let harness = deferredLinkOfferedAsTheListenerIsCleared()
        XCTAssertNil(harness.store.get(SdkCore.Key.deferredDelivered), "marked delivered with no listener")

        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        XCTAssertEqual(heard.deepLinks.first?.path, "/levels/7")
        XCTAssertEqual(heard.deepLinks.first?.params, ["deep_link_path": "/levels/7", "promo": "W"])
        XCTAssertEqual(harness.store.get(SdkCore.Key.deferredDelivered), "1")

        let next = Harness(store: harness.store, service: harness.service)
        XCTAssertNil(next.configure())
        let later = Heard()
        later.listen(to: next.core)
        next.runScheduled(3)
        XCTAssertEqual(later.deepLinks, [], "once per install")
    }

    func testTheDeferredDeepLinkOfferedAsTheListenerIsClearedReachesALaterLaunchsListenerTheProcessHavingEnded() throws {
        let first = deferredLinkOfferedAsTheListenerIsCleared()
        // The process ends before the app sets a listener again.
        let second = Harness(store: first.store, service: first.service)
        XCTAssertNil(second.configure())
        let heard = Heard()
        heard.listen(to: second.core)
        second.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        XCTAssertEqual(heard.deepLinks.first?.path, "/levels/7")
    }

    func testADeferredDeepLinkWaitingForAListenerIsNotPushedOutByMoreDirectLinksThanAreKept() throws {
        let kept = try XCTUnwrap(try Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as? Int)
        let harness = deferredLinkOfferedAsTheListenerIsCleared()
        let paths = (0...kept).map { "/direct/\($0)" }
        for path in paths {
            harness.core.handleDeepLink("myapp://open?deep_link_path=" + path.replacingOccurrences(of: "/", with: "%2F"))
        }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        // The most recent direct links in order, then the deferred one.
        XCTAssertEqual(heard.deepLinks.map { $0.path ?? "" }, Array(paths.dropFirst()) + ["/levels/7"])
        XCTAssertEqual(heard.deepLinks.last?.kind, .deferred)
    }

    /// A first launch matched with a deferred deep link and a deep-link listener set, whose main
    /// thread is busy: the link is handed over, the listener's call (and the attribution
    /// listener's, and configure's completion) posted and not run yet.
    private func deferredLinkHandedToABusyMainThread(file: StaticString = #filePath, line: UInt = #line) -> (Harness, Heard) {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7","promo":"W"}"#
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.main.hold()
        XCTAssertTrue(harness.configureLater { _ in }, file: file, line: line)
        harness.eventually("attribution", file: file, line: line) { harness.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        // The read that kept the attribution has handed the link over by the time the queues settle.
        harness.settle()
        XCTAssertGreaterThan(harness.main.heldCount, 0, file: file, line: line)
        XCTAssertEqual(heard.deepLinks, [], "the listener's call waits on the busy main thread", file: file, line: line)
        XCTAssertNil(harness.store.get(SdkCore.Key.deferredDelivered), "marked delivered before the listener ran", file: file, line: line)
        return (harness, heard)
    }

    func testADeferredDeepLinkWhoseListenerCallHasNotRunIsNotMarkedDeliveredAndTheNextLaunchOffersItAgain() throws {
        let (first, _) = deferredLinkHandedToABusyMainThread()
        // The process is killed before its main thread ran the listener's call: that work goes too.
        first.main.dropHeld()
        XCTAssertNil(first.store.get(SdkCore.Key.deferredDelivered))

        let second = Harness(store: first.store, service: first.service)
        XCTAssertNil(second.configure())
        let heard = Heard()
        heard.listen(to: second.core)
        second.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        XCTAssertEqual(heard.deepLinks.first?.path, "/levels/7")
        XCTAssertEqual(heard.deepLinks.first?.params, ["deep_link_path": "/levels/7", "promo": "W"])
        XCTAssertEqual(second.store.get(SdkCore.Key.deferredDelivered), "1")

        let third = Harness(store: first.store, service: first.service)
        let later = Heard()
        later.listen(to: third.core)
        XCTAssertNil(third.configure())
        third.runScheduled(3)
        XCTAssertEqual(later.deepLinks, [], "once its call ran, never again")
    }

    func testADeferredDeepLinkHandedOverIsNotHandedOverAgainWhileItsListenerCallWaits() throws {
        let (harness, heard) = deferredLinkHandedToABusyMainThread()
        // Offers while the listener's call waits: the listener set again, a delegate set, a
        // start after a stop, and a switch-off and on by remote configuration.
        heard.listen(to: harness.core)
        let delegate = Heard()
        harness.core.listenerDelegate = delegate
        harness.settle()
        harness.core.stop()
        harness.core.start()
        harness.settle()
        for enabled in [false, true] {
            harness.service.config = #"{"enabled":\#(enabled),"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#
            let done = DispatchSemaphore(value: 0)
            harness.core.refreshConfig { _ in done.signal() }
            _ = done.wait(timeout: .now() + 10)
            harness.settle()
        }
        XCTAssertFalse(harness.core.isSdkDisabled)
        XCTAssertNil(harness.store.get(SdkCore.Key.deferredDelivered), "marked delivered before the listener ran")

        harness.main.runHeld()
        harness.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred], "handed over once")
        XCTAssertEqual(delegate.deepLinks, [], "the link went to the listener set when it was handed over")
        XCTAssertEqual(harness.store.get(SdkCore.Key.deferredDelivered), "1")
    }

    func testADeferredDeepLinkIsMarkedDeliveredOnceItsListenerCallRanEvenIfTheSdkWasStoppedMeanwhile() throws {
        let (harness, heard) = deferredLinkHandedToABusyMainThread()
        harness.core.stop()
        harness.settle()
        harness.main.runHeld()
        harness.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        // The app had the link: marked, by the worker, stopped or not.
        XCTAssertEqual(harness.store.get(SdkCore.Key.deferredDelivered), "1")

        let next = Harness(store: harness.store, service: harness.service)
        next.core.start()
        let later = Heard()
        later.listen(to: next.core)
        XCTAssertNil(next.configure())
        next.runScheduled(3)
        XCTAssertEqual(later.attributions.count, 1)
        XCTAssertEqual(later.deepLinks, [], "once per install")
    }

    func testAFailedMatchIsNotGivenToTheListener() throws {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"failed"}"#
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.runScheduled(5)
        XCTAssertEqual(heard.attributions, [])
        harness.service.attribution = #"{"service_match_status":"organic","media_source":"organic"}"#
        harness.eventually("organic") { heard.attributions.count == 1 }
        XCTAssertEqual(heard.attributions, [["service_match_status": "organic", "media_source": "organic"]])
    }

    func testAListenerSetLaterIsCalledAtOnceWithTheStoredMap() throws {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7"}"#
        XCTAssertNil(harness.configure())
        harness.eventually("attribution") { harness.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.attributions, [["service_match_status": "matched", "media_source": "facebook_ads", "deep_link_path": "/levels/7"]])
        // The deferred deep link that waited for a listener.
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        XCTAssertEqual(heard.deepLinks.first?.path, "/levels/7")
        let delegate = Heard()
        harness.core.listenerDelegate = delegate
        harness.settle()
        XCTAssertEqual(delegate.attributions.count, 1)
    }

    func testAListenerSetWhileStoppedHearsTheKeptAttributionAndItsDeferredDeepLinkOnceStarted() throws {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7"}"#
        XCTAssertNil(harness.configure())
        harness.eventually("attribution") { harness.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        harness.core.stop()
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.attributions, [], "never called while stopped")
        XCTAssertEqual(heard.deepLinks, [])
        harness.core.start()
        harness.settle()
        XCTAssertEqual(heard.attributions.count, 1)
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        // Stopped and started again: told once, and the link once per install.
        harness.core.stop()
        harness.core.start()
        harness.settle()
        XCTAssertEqual(heard.attributions.count, 1)
        XCTAssertEqual(heard.deepLinks.count, 1)
    }

    func testAListenerSetWhileSwitchedOffHearsTheKeptAttributionAndItsDeferredDeepLinkOnceSwitchedOn() throws {
        let harness = Harness()
        harness.service.attribution = #"{"service_match_status":"matched","media_source":"facebook_ads","deep_link_path":"/levels/7"}"#
        XCTAssertNil(harness.configure())
        harness.eventually("attribution") { harness.core.attributionParams()[SdkCore.matchStatus] == "matched" }
        let refresh = { (config: String) in
            harness.service.config = config
            let done = DispatchSemaphore(value: 0)
            harness.core.refreshConfig { _ in done.signal() }
            _ = done.wait(timeout: .now() + 10)
            harness.settle()
        }
        refresh(#"{"enabled":false,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#)
        XCTAssertTrue(harness.core.isSdkDisabled)
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.attributions, [], "never called while switched off")
        XCTAssertEqual(heard.deepLinks, [])
        refresh(#"{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#)
        XCTAssertEqual(heard.attributions.count, 1)
        XCTAssertEqual(heard.deepLinks.map { $0.kind }, [.deferred])
        // A refresh that finds it on already tells nothing again.
        refresh(#"{"enabled":true,"refresh_interval_seconds":3600,"encryption":{"enabled":false}}"#)
        XCTAssertEqual(heard.attributions.count, 1)
        XCTAssertEqual(heard.deepLinks.count, 1)
    }

    func testNoAttributionListenerCallWhileStoppedOrAfterDeletion() throws {
        let store = MemoryStore()
        let first = Harness(store: store)
        XCTAssertNil(first.configure())
        first.eventually("attribution") { first.core.attributionParams()[SdkCore.matchStatus] == "organic" }

        let stopped = Harness(store: store)
        stopped.core.stop()
        let heard = Heard()
        heard.listen(to: stopped.core)
        XCTAssertNil(stopped.configure())
        stopped.runScheduled(3)
        XCTAssertEqual(heard.attributions, [])

        let deleted = Harness(store: store)
        deleted.core.start()
        XCTAssertNil(deleted.configure())
        let done = expectation(description: "deleted")
        deleted.core.deleteUserData { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        let afterDeletion = Heard()
        afterDeletion.listen(to: deleted.core)
        deleted.settle()
        XCTAssertEqual(afterDeletion.attributions, [])
    }

    // MARK: direct deep links

    func testTheDirectDeepLinkEachURLGives() throws {
        for testCase in try cases("direct") {
            let name = testCase["name"] as? String ?? "?"
            let url = try XCTUnwrap(testCase["url"] as? String)
            assertDeepLink(SdkCore.directDeepLink(url), testCase["deepLink"], name)
            // deeplinkId and params are links.json's for the same URL.
            if let expected = testCase["deepLink"] as? [String: Any], (url.hasPrefix("http://") || url.hasPrefix("https://")) {
                let link = try XCTUnwrap(LinkParser.parse(url, allowedHosts: nil), name)
                XCTAssertEqual(link.deeplinkId, expected["deeplinkId"] as? String, name)
                XCTAssertEqual(link.queryParams, expected["params"] as? [String: String], name)
            }
        }
    }

    /// A link whose text holds a raw space, or another character a URL may not hold, is a link,
    /// as the Kotlin and Unity SDKs read it (and browsers open it): its parameters as written,
    /// the space kept, and its URL with those characters percent-encoded, on every iOS.
    func testADirectDeepLinkWhoseTextHoldsASpaceIsALinkWithTheParamsKotlinGives() throws {
        let custom = try XCTUnwrap(SdkCore.directDeepLink("myapp://open?deep_link_path=%2Flevels%2F7&promo=WINTER SALE"))
        XCTAssertEqual(custom.kind, .direct)
        XCTAssertNil(custom.deeplinkId)
        XCTAssertEqual(custom.path, "/levels/7")
        XCTAssertEqual(custom.params, ["deep_link_path": "/levels/7", "promo": "WINTER SALE"])
        XCTAssertEqual(custom.url?.absoluteString, "myapp://open?deep_link_path=%2Flevels%2F7&promo=WINTER%20SALE")

        let bare = try XCTUnwrap(SdkCore.directDeepLink("myapp:open?deep_link_path=/levels/7 b&tag=a|b"))
        XCTAssertEqual(bare.path, "/levels/7 b")
        XCTAssertEqual(bare.params, ["deep_link_path": "/levels/7 b", "tag": "a|b"])
        XCTAssertEqual(bare.url?.absoluteString, "myapp:open?deep_link_path=/levels/7%20b&tag=a%7Cb")

        // The link host's: its deeplinkId, and a malformed escape kept as written, as in links.json.
        let web = try XCTUnwrap(SdkCore.directDeepLink("https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=50% off"))
        XCTAssertEqual(web.deeplinkId, "Kx3v9QpZ2aQ")
        XCTAssertEqual(web.path, "/levels/7")
        XCTAssertEqual(web.params, ["deep_link_path": "/levels/7", "promo": "50% off"])
        XCTAssertEqual(web.url?.absoluteString, "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=50%25%20off")
        XCTAssertEqual(
            LinkParser.parse("https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=50% off", allowedHosts: nil),
            ParsedLink(deeplinkId: "Kx3v9QpZ2aQ", queryParams: web.params)
        )

        // Text with no scheme is still no link, spaces or not.
        XCTAssertNil(SdkCore.directDeepLink("not a link"))
        XCTAssertNil(SdkCore.directDeepLink("/levels/7 b?deep_link_path=%2Flevels%2F7"))

        // Through handleDeepLink: delivered, and an http(s) one is the install's open_url.
        let harness = Harness()
        let text = "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=WINTER SALE"
        XCTAssertEqual(harness.core.handleDeepLink(text)?.params["promo"], "WINTER SALE")
        let heard = Heard()
        heard.listen(to: harness.core)
        XCTAssertNil(harness.configure())
        harness.eventually("install") { harness.service.count("POST", "/v1/installs") == 1 }
        XCTAssertEqual(heard.deepLinks.map { $0.path }, ["/levels/7"])
        let install = try XCTUnwrap(harness.service.sent("POST", "/v1/installs").first)
        XCTAssertEqual(try JSONValue.parse(try XCTUnwrap(install.body)).objectValue?["open_url"], .string(text))
    }

    /// Each direct case through the entry it names, to the listeners: handleDeepLink, or the
    /// Universal Link's handleUniversalLink; a link parsed before a listener is set waits for it.
    func testADirectDeepLinkReachesTheListenersAlsoWhenSetAfterwards() throws {
        for testCase in try cases("direct") {
            let name = testCase["name"] as? String ?? "?"
            let url = try XCTUnwrap(testCase["url"] as? String)
            let harness = Harness()
            XCTAssertNil(harness.configure())
            if testCase["entry"] as? String == "handleDeepLink" {
                harness.core.handleDeepLink(url)
            } else {
                // handleUniversalLink's own path: the parsed link, delivered.
                let link = try XCTUnwrap(SdkCore.directDeepLink(url))
                harness.core.deliver(link)
            }
            let heard = Heard()
            heard.listen(to: harness.core)
            let delegate = Heard()
            harness.core.listenerDelegate = delegate
            harness.settle()
            let expected = testCase["deepLink"] as? [String: Any]
            XCTAssertEqual(heard.deepLinks.count, expected == nil ? 0 : 1, name)
            assertDeepLink(heard.deepLinks.first, expected, name)
            XCTAssertEqual(delegate.deepLinks, [], "\(name): a waiting link goes to the first listener set")
            // Once a listener is set, the next link goes to every listener at once.
            if expected != nil {
                harness.core.handleDeepLink(url)
                harness.settle()
                XCTAssertEqual(heard.deepLinks.count, 2, name)
                XCTAssertEqual(delegate.deepLinks.count, 1, name)
            }
        }
    }

    func testTheMostRecentDirectLinksWaitForAListenerTheOldestDroppedTheRestInOrder() throws {
        let kept = try XCTUnwrap(try Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as? Int)
        XCTAssertEqual(SdkCore.maxPendingLinks, kept)
        // A link that cold-started the app, then a second before any listener: both arrive.
        let harness = Harness()
        XCTAssertNil(harness.configure())
        let two = ["myapp://open?deep_link_path=%2Fcold", "myapp://open?deep_link_path=%2Fsecond"]
        for url in two { harness.core.handleDeepLink(url) }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.deepLinks.map { $0.url?.absoluteString }, two)

        // Past the bound, the oldest go first; the rest come in the order they were handed over.
        let more = Harness()
        XCTAssertNil(more.configure())
        let urls = (0..<(kept + 3)).map { "myapp://open?deep_link_path=%2Flevels%2F\($0)" }
        for url in urls { more.core.handleDeepLink(url) }
        let late = Heard()
        more.core.listenerDelegate = late
        more.settle()
        XCTAssertEqual(late.deepLinks.map { $0.url?.absoluteString }, Array(urls.suffix(kept)))
        XCTAssertEqual(late.deepLinks.map { $0.path }, (3..<(kept + 3)).map { "/levels/\($0)" })
    }

    func testDirectLinksPastTheBoundPushOutOnlyOlderDirectLinksNeverALinkOfAnotherKindWaitingWithThem() throws {
        let kept = try XCTUnwrap(try Vectors.conformance("listeners.json")["maxPendingDirectLinks"] as? Int)
        let harness = Harness()
        XCTAssertNil(harness.configure())
        let deferred = try XCTUnwrap(SdkCore.deferredDeepLink(["service_match_status": "matched", "deep_link_path": "/levels/7"]))
        harness.core.deliver(deferred)
        let direct = try (0...kept).map { try XCTUnwrap(SdkCore.directDeepLink("myapp://open?deep_link_path=%2Fdirect%2F\($0)")) }
        for link in direct { harness.core.deliver(link) }
        let heard = Heard()
        heard.listen(to: harness.core)
        harness.settle()
        XCTAssertEqual(heard.deepLinks, [deferred] + Array(direct.dropFirst()))
    }

    func testHandleUniversalLinkDeliversTheDirectDeepLink() throws {
        let url = try XCTUnwrap(URL(string: "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&promo=WINTER"))
        let received = expectation(description: "delivered on the main thread")
        // Other tests' links may be waiting in the shared SDK: they come first.
        received.assertForOverFulfill = false
        let previous = ServiceAttribution.onDeepLink
        ServiceAttribution.onDeepLink = { link in
            XCTAssertTrue(Thread.isMainThread)
            if link.url == url {
                XCTAssertEqual(link.deeplinkId, "Kx3v9QpZ2aQ")
                XCTAssertEqual(link.path, "/levels/7")
                received.fulfill()
            }
        }
        let result = try ServiceAttribution.handleUniversalLink(url, allowedHosts: ["go.example.com"])
        XCTAssertEqual(result?.deeplinkId, "Kx3v9QpZ2aQ")
        wait(for: [received], timeout: 10)
        ServiceAttribution.onDeepLink = previous
        // handleDeepLink through the public API, a custom scheme.
        let custom = try XCTUnwrap(URL(string: "myapp://open?deep_link_path=%2Flevels%2F7"))
        XCTAssertEqual(ServiceAttribution.handleDeepLink(custom)?.path, "/levels/7")
        XCTAssertNil(ServiceAttribution.handleDeepLink(try XCTUnwrap(URL(string: "no-scheme"))))
    }

    // MARK: errors and threads

    func testListenersRunOnTheMainThreadByDefault() throws {
        let core = SdkCore()
        let delivered = expectation(description: "delivered")
        core.deepLinkListener = { _ in
            XCTAssertTrue(Thread.isMainThread)
            delivered.fulfill()
        }
        core.handleDeepLink("myapp://open?deep_link_path=%2Fhome")
        wait(for: [delivered], timeout: 10)
    }

    func testTheDelegateIsHeldWeakly() {
        let harness = Harness()
        var delegate: Heard? = Heard()
        harness.core.listenerDelegate = delegate
        XCTAssertNotNil(harness.core.listenerDelegate)
        delegate = nil
        XCTAssertNil(harness.core.listenerDelegate)
    }

    func testTheErrorListenerHearsDropsAndConfigurationErrorsThroughBothRoutes() throws {
        let harness = Harness()
        let closures = Heard()
        closures.listen(to: harness.core)
        let delegate = Heard()
        harness.core.listenerDelegate = delegate
        harness.service.answer = { request in
            FakeService.path(request) == "/v1/installs" ? HTTPResponse(statusCode: 403, body: #"{"error":"Forbidden","detail":"revoked"}"#) : nil
        }
        XCTAssertNil(harness.configure())
        harness.settle()
        let expected = [ServiceError.Kind.configuration]
        XCTAssertEqual(closures.errors.map { $0.kind }, expected)
        XCTAssertEqual(delegate.errors.map { $0.kind }, expected)
        XCTAssertEqual(closures.errors.first?.code, 403)
        XCTAssertNil(closures.errors.first?.reason)
    }
}
