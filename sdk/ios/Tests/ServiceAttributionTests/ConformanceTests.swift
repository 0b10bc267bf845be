import CryptoKit
import Foundation
import XCTest
@testable import ServiceAttribution

/// Every case of sdk/conformance that applies to iOS, run against the SDK's own code.
final class ConformanceTests: XCTestCase {
    private func cases(_ file: String, _ key: String = "cases") throws -> [[String: Any]] {
        return try XCTUnwrap(try Vectors.conformance(file)[key] as? [[String: Any]], "\(file): \(key)")
    }

    // MARK: event-types.json

    func testEventTypesAreTheVectorsInTheirOrderWithTheirWireValues() throws {
        let types = try cases("event-types.json", "eventTypes")
        XCTAssertEqual(EventType.allCases.map { $0.rawValue }, types.map { $0["wire"] as? String ?? "" })
        // Swift cases are lowerCamelCase, as Flutter's.
        XCTAssertEqual(EventType.allCases.map { "\($0)" }, types.map { $0["flutter"] as? String ?? "" })
        for type in types {
            let wire = try XCTUnwrap(type["wire"] as? String)
            let event = try XCTUnwrap(EventType(rawValue: wire))
            XCTAssertEqual(event.wireName, wire)
            let sent = try Drafts.create(event, name: "Boss Defeated", parameters: nil, time: Date(), customerUserId: nil, log: Logger(sink: nil, level: .none))
            XCTAssertEqual(sent != nil, type["sentBySendEvent"] as? Bool, wire)
        }
    }

    // MARK: log-levels.json

    func testLogLevels() throws {
        let vectors = try Vectors.conformance("log-levels.json")
        let levels = try XCTUnwrap(vectors["levels"] as? [[String: Any]])
        for level in levels {
            let value = try XCTUnwrap(level["value"] as? Int)
            let parsed = try XCTUnwrap(LogLevel(integer: value), "level \(value)")
            XCTAssertEqual("\(parsed)", (level["name"] as? String)?.lowercased())
            XCTAssertEqual(parsed.integer, value)
        }
        for invalid in try XCTUnwrap(vectors["invalid"] as? [Int]) {
            XCTAssertNil(LogLevel(integer: invalid), "\(invalid)")
            XCTAssertFalse(LogLevel.integerRange.contains(invalid))
        }
        let defaults = try XCTUnwrap(vectors["default"] as? [String: Any])
        XCTAssertEqual(LogLevel.default.integer, defaults["flutter"] as? Int)
        XCTAssertEqual("\(LogLevel.default)", (defaults["kotlin"] as? String)?.lowercased())
        let names = try XCTUnwrap(vectors["kotlinLevels"] as? [String])
        XCTAssertEqual(LogLevel.allCases.map { "\($0)" }, names.map { $0.lowercased() })
        let shown = try XCTUnwrap(vectors["shown"] as? [String: [String]])
        for configured in LogLevel.allCases {
            // iOS has no warning tier: configured at WARN it shows what ERROR shows.
            let row = configured == .warn ? "ERROR" : "\(configured)".uppercased()
            let expected = try XCTUnwrap(shown[row]).map { $0.lowercased() }
            let actual = LogLevel.allCases.filter { $0 != .none && Logger.shows(configured: configured, message: $0) }.map { "\($0)" }
            XCTAssertEqual(actual, expected, "configured \(configured)")
        }
    }

    func testLogLevelTwoActsAsThreeOnIOS() {
        let log = RecordingLog()
        let logger = Logger(sink: log, level: LogLevel(integer: 2)!)
        logger.warn("a warning")
        logger.error("an error")
        XCTAssertEqual(log.messages(.warn), [])
        XCTAssertEqual(log.messages(.error), ["an error"])
    }

    // MARK: parameters.json

    func testParameterRules() throws {
        var ran = 0
        for testCase in try cases("parameters.json") {
            let name = testCase["name"] as? String ?? "?"
            guard let expect = (testCase["expect"] as? [String: Any])?["kotlin"] as? [String: Any] else { continue }
            let input = try XCTUnwrap(testCase["input"] as? [String: Any])
            let type = try XCTUnwrap(EventType(rawValue: try XCTUnwrap(input["eventType"] as? String)))
            let eventName = input["eventName"] as? String
            let parameters = (input["parameters"] as? [String: Any]).map { Vectors.native($0) as? [String: Any] ?? [:] }
            let log = Logger(sink: nil, level: .none)
            ran += 1
            if expect["throws"] != nil {
                XCTAssertThrowsError(try Drafts.create(type, name: eventName, parameters: parameters, time: Date(), customerUserId: nil, log: log), name) { error in
                    XCTAssertEqual(error as? ServiceAttributionError, .invalidArgument(Drafts.customNameRule))
                }
                continue
            }
            let draft = try Drafts.create(type, name: eventName, parameters: parameters, time: Date(), customerUserId: nil, log: log)
            if expect["dropped"] as? Bool == true {
                XCTAssertNil(draft, name)
                continue
            }
            let sent = try XCTUnwrap(expect["sent"] as? [String: Any])
            let event = Requests.event(try XCTUnwrap(draft, name), parameters: draft!.parameters, serviceId: "s")
            let object = try XCTUnwrap(event.objectValue)
            let actual = JSONValue.object([
                "event_type": object["event_type"] ?? .null,
                "event_name": object["event_name"] ?? .null,
                "parameters": object["parameters"] ?? .null,
            ])
            XCTAssertEqual(JSONMatch.differences(actual, sent), [], name)
        }
        XCTAssertGreaterThan(ran, 20)
    }

    // MARK: links.json

    func testLinkParsing() throws {
        var ran = 0
        for testCase in try cases("links.json") {
            let name = testCase["name"] as? String ?? "?"
            let url = try XCTUnwrap(testCase["url"] as? String)
            let hosts = (testCase["allowedHosts"] as? [String]).map(Set.init)
            let expect = ((testCase["platforms"] as? [String: Any])?["kotlin"] ?? testCase["expect"]) as? [String: Any]
            let expected = try XCTUnwrap(expect, name)
            ran += 1
            if expected["throws"] != nil {
                XCTAssertThrowsError(try LinkParser.checkAllowedHosts(hosts), name)
                if let link = URL(string: url) {
                    XCTAssertThrowsError(try ServiceAttribution.handleUniversalLink(link, allowedHosts: hosts), name)
                }
                continue
            }
            XCTAssertNoThrow(try LinkParser.checkAllowedHosts(hosts), name)
            let parsed = LinkParser.parse(url, allowedHosts: hosts)
            guard let result = expected["result"] as? [String: Any] else {
                XCTAssertNil(parsed, name)
                continue
            }
            let link = try XCTUnwrap(parsed, name)
            XCTAssertEqual(link.deeplinkId, result["deeplinkId"] as? String, name)
            XCTAssertEqual(link.queryParams, result["queryParams"] as? [String: String], name)
            // Through the public API too, whose result carries the URL.
            if let tapped = URL(string: url) {
                let facade = try ServiceAttribution.handleUniversalLink(tapped, allowedHosts: hosts)
                XCTAssertEqual(facade?.deeplinkId, link.deeplinkId, name)
                XCTAssertEqual(facade?.queryParams, link.queryParams, name)
                XCTAssertEqual(facade?.url, tapped, name)
            }
        }
        XCTAssertGreaterThan(ran, 20)
    }

    // MARK: customer-user-ids.json

    func testCustomerUserIdsKeptRefusedOrNone() throws {
        for testCase in try cases("customer-user-ids.json") {
            let name = testCase["name"] as? String ?? "?"
            let value: String
            if let text = testCase["value"] as? String {
                value = text
            } else {
                let repeated = try XCTUnwrap(testCase["value"] as? [String: Any], name)
                value = String(repeating: try XCTUnwrap(repeated["repeat"] as? String, name),
                               count: try XCTUnwrap(repeated["times"] as? Int, name))
            }
            switch testCase["outcome"] as? String {
            case "kept":
                XCTAssertEqual(Fields.customerUserId(value), value, name)
            case "refused":
                XCTAssertNil(Fields.customerUserId(value), name)
                XCTAssertNotNil(Fields.customerUserIdProblem(value), name)
            default:
                XCTAssertNil(Fields.customerUserId(value), name)
                XCTAssertNil(Fields.customerUserIdProblem(value), name)
            }
        }
    }

    // MARK: pii.json

    func testMatchingParametersWithSealingOff() throws {
        let protector = Protector(sealer: { _ in nil }, sealsCustomValues: false)
        for testCase in try cases("pii.json") {
            let name = testCase["name"] as? String ?? "?"
            let parameters = try XCTUnwrap(JSONValue(foundation: try XCTUnwrap(testCase["parameters"])))
            let protected = protector.protect(try XCTUnwrap(parameters.objectValue), encryption: .off)
            XCTAssertEqual(JSONMatch.differences(.object(protected.parameters), try XCTUnwrap(testCase["encryptionOff"])), [], name)
            let normalised = try XCTUnwrap(testCase["normalised"] as? [String: Any])
            for key in Protector.piiKeys {
                guard let raw = (testCase["parameters"] as? [String: Any])?[key] else { continue }
                let expected = normalised[key] as? String
                if let text = raw as? String, Protector.preHashed(text) == nil {
                    let actual = Protector.normalise(key, text).flatMap { $0.isEmpty ? nil : $0 }
                    XCTAssertEqual(actual, expected, "\(name): \(key)")
                }
            }
        }
    }

    func testMatchingParametersWithSealingOn() throws {
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let protector = Protector(sealer: { try? sealer.seal(Data($0.utf8)) }, sealsCustomValues: false)
        let encryption = Encryption.on(keyId: recipient.keyId, publicKey: recipient.publicKeySpki, clearKeys: ["revenue", "currency"])
        for testCase in try cases("pii.json") {
            let name = testCase["name"] as? String ?? "?"
            let parameters = try XCTUnwrap(JSONValue(foundation: try XCTUnwrap(testCase["parameters"]))?.objectValue)
            let protected = protector.protect(parameters, encryption: encryption)
            let differences = JSONMatch.differences(.object(protected.parameters), try XCTUnwrap(testCase["encryptionOn"])) { envelope in
                XCTAssertTrue(envelope.hasPrefix("sv1.\(recipient.keyId)."), name)
                return JSONMatch.open(envelope, with: recipient.privateKey)
            }
            XCTAssertEqual(differences, [], name)
        }
    }

    func testAMatchingParameterListedAsClearIsHashedNotSealed() throws {
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let protector = Protector(sealer: { try? sealer.seal(Data($0.utf8)) }, sealsCustomValues: false)
        let protected = protector.protect(
            ["email": .string("jane.doe@example.com")],
            encryption: .on(keyId: recipient.keyId, publicKey: recipient.publicKeySpki, clearKeys: ["email"])
        )
        XCTAssertEqual(protected.parameters["email"], .string("sha256:86e0b9e56c17cc4d12387e1949b85053fbe73bc3ce5a1188713a9d300cc6133d"))
    }

    func testUnderFlutterCustomValuesAreSealedLeafByLeafAsTheVectorsHaveThem() throws {
        let recipient = try Vectors.recipient()
        let sealer = try Sealer(keyId: recipient.keyId, publicKeySpki: recipient.publicKeySpki)
        let protector = Protector(sealer: { try? sealer.seal(Data($0.utf8)) }, sealsCustomValues: true)
        let customValues = try XCTUnwrap(try Vectors.conformance("pii.json")["customValues"] as? [String: Any])
        let clearKeys = Set(try XCTUnwrap(customValues["clearKeys"] as? [String]))
        let encryption = Encryption.on(keyId: recipient.keyId, publicKey: recipient.publicKeySpki, clearKeys: clearKeys)
        let testCases = try XCTUnwrap(customValues["cases"] as? [[String: Any]])
        XCTAssertFalse(testCases.isEmpty)
        for testCase in testCases {
            let name = testCase["name"] as? String ?? "?"
            let parameters = try XCTUnwrap(JSONValue(foundation: try XCTUnwrap(testCase["parameters"]))?.objectValue, name)
            let protected = protector.protect(parameters, encryption: encryption)
            let differences = JSONMatch.differences(.object(protected.parameters), try XCTUnwrap(testCase["encryptionOn"])) { envelope in
                XCTAssertTrue(envelope.hasPrefix("sv1.\(recipient.keyId)."), name)
                XCTAssertLessThanOrEqual(envelope.utf16.count, Protector.maxStringLength, name)
                return JSONMatch.open(envelope, with: recipient.privateKey)
            }
            XCTAssertEqual(differences, [], name)
            XCTAssertEqual(protected.dropped.sorted(), (try XCTUnwrap(testCase["dropped"] as? [String])).sorted(), name)
        }
    }

    // MARK: requests.json

    func testInstallReportOfAnIOSDevice() throws {
        let installs = try cases("requests.json", "installs")
        let iosCases = installs.filter { (($0["input"] as? [String: Any])?["device"] as? [String: Any])?["os"] as? String == "ios" }
        XCTAssertFalse(iosCases.isEmpty)
        for testCase in iosCases {
            let name = testCase["name"] as? String ?? "?"
            let input = try XCTUnwrap(testCase["input"] as? [String: Any])
            let device = try XCTUnwrap(input["device"] as? [String: Any])
            var install = Requests.InstallInput(serviceId: UUID().uuidString.lowercased(), firstOpen: Date())
            install.osVersion = device["osVersion"] as? String
            install.deviceModel = device["deviceModel"] as? String
            install.appVersion = device["appVersion"] as? String
            install.locale = device["locale"] as? String
            install.timezone = device["timezone"] as? String
            install.identifierForVendor = device["idfv"] as? String
            install.advertisingIdentifier = device["advertisingId"] as? String
            install.trackingAuthorizationStatus = device["attStatus"] as? String
            install.platformAdsToken = device["platformAdsToken"] as? String
            install.openURL = input["openUrl"] as? String
            install.customerUserId = input["customerUserId"] as? String
            var expected = try XCTUnwrap((testCase["request"] as? [String: Any])?["body"] as? [String: Any])
            // The same report from the iOS SDK names itself.
            expected["sdk_platform"] = Requests.sdkPlatform
            expected["sdk_version"] = Requests.sdkVersion
            XCTAssertEqual(JSONMatch.differences(Requests.install(install), expected), [], name)
        }
    }

    /// The install cases that name iOS (consent, the consent platform's TCF values, anonymous
    /// mode), end to end through the core: the vector's device as an iOS device reports it (its
    /// own `os`, `sdk_platform` and `sdk_version`; the advertising id, where the vector has one,
    /// with ATT's `authorized`, the only way iOS gives it).
    func testInstallReportsOfTheCasesNamingIOS() throws {
        let installs = try cases("requests.json", "installs").filter { ($0["platforms"] as? [String])?.contains("ios") == true }
        XCTAssertGreaterThanOrEqual(installs.count, 3)
        for testCase in installs {
            let name = testCase["name"] as? String ?? "?"
            let input = try XCTUnwrap(testCase["input"] as? [String: Any])
            let device = try XCTUnwrap(input["device"] as? [String: Any])
            let harness = Harness()
            harness.device.osVersion = device["osVersion"] as? String
            harness.device.deviceModel = device["deviceModel"] as? String
            harness.device.appVersion = device["appVersion"] as? String
            harness.device.locale = device["locale"] as? String
            harness.device.timezone = device["timezone"] as? String
            harness.device.idfa = device["advertisingId"] as? String
            harness.device.identifierForVendor = device["idfv"] as? String
            harness.device.trackingAuthorizationStatus = harness.device.idfa != nil ? "authorized" : device["attStatus"] as? String
            harness.device.token = nil
            var expected = try XCTUnwrap((testCase["request"] as? [String: Any])?["body"] as? [String: Any])
            expected["os"] = "ios"
            expected["sdk_platform"] = Requests.sdkPlatform
            expected["sdk_version"] = Requests.sdkVersion
            if harness.device.idfa != nil { expected["att_status"] = "authorized" }
            if input["anonymous"] as? Bool == true {
                // The device has every id; none may leave it.
                harness.device.identifierForVendor = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
                harness.core.setAnonymous(true)
            }
            if let consent = input["consent"] as? [String: Any] {
                harness.core.setConsent(ServiceConsent(
                    gdprApplies: consent["gdprApplies"] as? Bool,
                    adUserData: consent["adUserData"] as? Bool,
                    adPersonalization: consent["adPersonalization"] as? Bool
                ))
            }
            if let tcf = input["tcf"] as? [String: Any] {
                harness.consentPlatform.tcString = tcf["IABTCF_TCString"] as? String
                harness.consentPlatform.gdprApplies = (tcf["IABTCF_gdprApplies"] as? Int).map { $0 == 1 }
            }
            XCTAssertNil(harness.configure(customerUserId: input["customerUserId"] as? String), name)
            let install = try XCTUnwrap(harness.service.sent("POST", "/v1/installs").first, name)
            let body = try JSONValue.parse(try XCTUnwrap(install.body))
            XCTAssertEqual(JSONMatch.differences(body, expected), [], name)
            XCTAssertEqual(harness.service.requests.filter { FakeService.path($0).hasSuffix("/consent") }, [], "\(name): the install carried the consent")
        }
    }

    func testEventRequests() throws {
        let recipient = try Vectors.recipient()
        var ran = 0
        for testCase in try cases("requests.json", "events") {
            let name = testCase["name"] as? String ?? "?"
            let platforms = testCase["platforms"] as? [String] ?? []
            guard platforms.contains("kotlin") || platforms.contains("ios") else { continue }
            let input = try XCTUnwrap(testCase["input"] as? [String: Any])
            let encryption = try XCTUnwrap(input["encryption"] as? [String: Any])
            let harness = Harness()
            if input["anonymous"] as? Bool == true { harness.core.setAnonymous(true) }
            if encryption["enabled"] as? Bool == true {
                var sealing = encryption
                sealing["public_key"] = recipient.publicKeySpki
                let config: [String: Any] = ["enabled": true, "refresh_interval_seconds": 3600, "encryption": sealing]
                harness.service.config = try XCTUnwrap(JSONValue(foundation: config)?.text)
            }
            XCTAssertNil(harness.configure(), name)
            for step in try XCTUnwrap(input["steps"] as? [[String: Any]]) {
                if let send = step["sendEvent"] as? [String: Any] {
                    let type = try XCTUnwrap(EventType(rawValue: try XCTUnwrap(send["eventType"] as? String)))
                    let parameters = (send["parameters"] as? [String: Any]).map { Vectors.native($0) as? [String: Any] ?? [:] }
                    XCTAssertTrue(try harness.core.sendEvent(type, name: send["eventName"] as? String, parameters: parameters))
                } else if step.keys.contains("setCustomerUserId") {
                    harness.core.setCustomerUserId(step["setCustomerUserId"] as? String)
                }
            }
            let request = try XCTUnwrap(testCase["request"] as? [String: Any])
            let expected = try XCTUnwrap((request["body"] as? [String: Any])?["events"] as? [Any])
            harness.eventually("\(name): \(expected.count) events") { harness.service.deliveredEvents.count >= expected.count }
            let delivered = harness.service.deliveredEvents
            XCTAssertEqual(JSONMatch.differences(.array(delivered), expected) { JSONMatch.open($0, with: recipient.privateKey) }, [], name)
            // JSONMatch takes a null for a key left out; `anonymous` is left out altogether of
            // an event the vector does not show sent anonymous.
            for (event, wanted) in zip(delivered, expected) where (wanted as? [String: Any])?["anonymous"] == nil {
                XCTAssertFalse(event.objectValue?.keys.contains("anonymous") ?? false, "\(name): \(event.text) is marked anonymous")
            }
            let serviceId = try XCTUnwrap(harness.core.serviceIdentifier)
            XCTAssertTrue(delivered.allSatisfy { $0.objectValue?["service_id"] == .string(serviceId) }, name)
            let ids = delivered.compactMap { $0.objectValue?["event_id"]?.stringValue }
            XCTAssertEqual(Set(ids).count, delivered.count, "\(name): a fresh event_id per event")
            // The envelope: sent_at, the device clock when the request left, and the events.
            for sent in harness.service.sent("POST", "/v1/events") {
                let body = try XCTUnwrap(FakeService.body(sent))
                XCTAssertEqual(Set(body.keys), Set((request["body"] as? [String: Any] ?? [:]).keys), name)
                XCTAssertEqual(JSONMatch.differences(body["sent_at"], "{{time}}"), [], name)
            }
            for sent in harness.service.requests {
                XCTAssertEqual(sent.headers["Authorization"], "sdk_test")
                if sent.body != nil { XCTAssertEqual(sent.headers["Content-Type"], "application/json") }
            }
            ran += 1
        }
        XCTAssertGreaterThan(ran, 4)
    }

    /// requests.json's `other` cases that name iOS and give the device's tracking at the install
    /// and at a later start (`deviceAtInstall`, `deviceNow`), each run by
    /// testTrackingUpdatesAtALaterStart; check.mjs holds this list to the vectors'.
    static let trackingUpdates = [
        "tracking update on iOS: App Tracking Transparency denied at a later start, after the install reported it authorized with its IDFA",
    ]

    /// Each tracking update case through the core: the install with the tracking it had then, a
    /// later launch with the tracking it has now, and the one consent update that tells it.
    func testTrackingUpdatesAtALaterStart() throws {
        let trackingCases = try cases("requests.json", "other").filter {
            ($0["platforms"] as? [String])?.contains("ios") == true && ($0["input"] as? [String: Any])?["deviceAtInstall"] != nil
        }
        XCTAssertEqual(trackingCases.compactMap { $0["name"] as? String }.sorted(), ConformanceTests.trackingUpdates.sorted())
        let updates = { (harness: Harness) in
            harness.service.requests.filter { $0.method == "POST" && FakeService.path($0).hasSuffix("/consent") }
        }
        for testCase in trackingCases {
            let name = testCase["name"] as? String ?? "?"
            let input = try XCTUnwrap(testCase["input"] as? [String: Any])
            let atInstall = try XCTUnwrap(input["deviceAtInstall"] as? [String: Any])
            let now = try XCTUnwrap(input["deviceNow"] as? [String: Any])
            let request = try XCTUnwrap(testCase["request"] as? [String: Any])
            let store = MemoryStore()
            let first = Harness(store: store)
            first.device.idfa = atInstall["advertisingId"] as? String
            first.device.trackingAuthorizationStatus = atInstall["attStatus"] as? String
            XCTAssertNil(first.configure(), name)
            first.eventually("\(name): the install") { first.store.get(SdkCore.Key.installTracked) != nil }
            let install = try XCTUnwrap(FakeService.body(first.service.sent("POST", "/v1/installs")[0]), name)
            XCTAssertEqual(install["maid"] ?? .null, first.device.idfa.map(JSONValue.string) ?? .null, name)
            XCTAssertEqual(install["att_status"] ?? .null, first.device.trackingAuthorizationStatus.map(JSONValue.string) ?? .null, name)
            first.runScheduled(3)
            XCTAssertEqual(updates(first), [], "\(name): the install told the tracking it had")

            let next = Harness(store: store)
            next.device.idfa = now["advertisingId"] as? String
            next.device.trackingAuthorizationStatus = now["attStatus"] as? String
            if let consent = input["consent"] as? [String: Any] {
                next.core.setConsent(ServiceConsent(
                    gdprApplies: consent["gdprApplies"] as? Bool,
                    adUserData: consent["adUserData"] as? Bool,
                    adPersonalization: consent["adPersonalization"] as? Bool
                ))
            }
            XCTAssertNil(next.configure(), name)
            next.eventually("\(name): the update") { !updates(next).isEmpty }
            next.runScheduled(3)
            let sent = updates(next)
            XCTAssertEqual(sent.count, 1, "\(name): sent once")
            let serviceId = try XCTUnwrap(next.core.serviceIdentifier)
            XCTAssertEqual(sent.first?.method, request["method"] as? String, name)
            XCTAssertEqual(sent.first.map(FakeService.path), (request["path"] as? String)?.replacingOccurrences(of: "{{service_id}}", with: serviceId), name)
            let body = try JSONValue.parse(try XCTUnwrap(sent.first?.body, name))
            XCTAssertEqual(JSONMatch.differences(body, try XCTUnwrap(request["body"])), [], name)
            XCTAssertEqual(next.service.count("POST", "/v1/installs"), 0, "\(name): the install is not reported again")
        }
    }

    func testTheBodylessRequests() throws {
        let harness = Harness()
        XCTAssertNil(harness.configure())
        harness.eventually("attribution read") { harness.service.count("GET", "/v1/installs/\(harness.core.serviceIdentifier ?? "")/attribution") > 0 }
        let serviceId = try XCTUnwrap(harness.core.serviceIdentifier)
        let deleted = expectation(description: "deleted")
        harness.core.deleteUserData { error in
            XCTAssertNil(error)
            deleted.fulfill()
        }
        wait(for: [deleted], timeout: 5)
        let other = try cases("requests.json", "other")
        for testCase in other {
            let request = try XCTUnwrap(testCase["request"] as? [String: Any])
            // The consent update has a body: ConsentTests.testTheConsentUpdateRequest.
            if !(request["body"] is NSNull) && request["body"] != nil { continue }
            let method = try XCTUnwrap(request["method"] as? String)
            let path = try XCTUnwrap(request["path"] as? String).replacingOccurrences(of: "{{service_id}}", with: serviceId)
            let sent = harness.service.requests.filter { $0.method == method && FakeService.path($0) == path }
            XCTAssertFalse(sent.isEmpty, "\(method) \(path)")
            for request in sent {
                XCTAssertNil(request.body)
                if let query = (testCase["request"] as? [String: Any])?["query"] as? [String: String], query["wait_seconds"] != nil {
                    let components = URLComponents(string: request.url)
                    let wait = components?.queryItems?.first { $0.name == "wait_seconds" }?.value.flatMap { Int($0) }
                    XCTAssertNotNil(wait)
                    XCTAssertTrue((0...20).contains(wait ?? -1))
                }
            }
        }
    }

    // MARK: remote-config.json

    /// A case's answer of GET /v1/config: on, with its field as the case writes it (left out
    /// when its `json` is null).
    private func remoteConfigAnswer(_ testCase: [String: Any]) throws -> String {
        let field = try XCTUnwrap(testCase["field"] as? String)
        let value = (testCase["json"] as? String).map { ",\"\(field)\":\($0)" } ?? ""
        return "{\"enabled\":true\(value)}"
    }

    func testTheRemoteConfigurationsIntervalsAreTakenAsTheVectorsSay() throws {
        for testCase in try cases("remote-config.json") {
            let name = testCase["name"] as? String ?? "?"
            let seconds = try XCTUnwrap(testCase["seconds"] as? NSNumber, name).int64Value
            let config = try RemoteConfig.parse(try remoteConfigAnswer(testCase))
            switch testCase["field"] as? String {
            case "refresh_interval_seconds":
                XCTAssertEqual(config.refreshIntervalSeconds, seconds, name)
            case "session_interval_seconds":
                XCTAssertEqual(config.sessionIntervalSeconds, seconds, name)
            default:
                XCTFail("\(name): a field this test does not know")
            }
            XCTAssertEqual(try RemoteConfig.parse(config.json.text), config, "\(name): kept on the device as taken")
        }
    }

    /// Configured with each `refresh_interval_seconds` case's answer, the core reads the
    /// configuration again after the interval taken.
    func testTheCoreReadsTheConfigurationAgainAfterTheRefreshIntervalTaken() throws {
        for testCase in try cases("remote-config.json") where testCase["field"] as? String == "refresh_interval_seconds" {
            let name = testCase["name"] as? String ?? "?"
            let seconds = try XCTUnwrap(testCase["seconds"] as? NSNumber, name).doubleValue
            let harness = Harness()
            harness.service.config = try remoteConfigAnswer(testCase)
            XCTAssertNil(harness.configure(), name)
            XCTAssertFalse(harness.core.isSdkDisabled, "\(name): the rest of the configuration is taken")
            XCTAssertTrue(harness.scheduler.pending.contains(seconds), "\(name): \(harness.scheduler.pending)")
        }
    }

    func testTheRemoteConfigurationsDefaultsAreTheSdks() throws {
        let defaults = try XCTUnwrap(try Vectors.conformance("remote-config.json")["defaults"] as? [String: Int])
        XCTAssertEqual(defaults["refresh_interval_seconds"], Int(RemoteConfig.defaultRefreshIntervalSeconds))
        XCTAssertEqual(defaults["session_interval_seconds"], Int(SessionTracker.defaultIntervalSeconds))
        XCTAssertEqual(RemoteConfig.placeholder.refreshIntervalSeconds, RemoteConfig.defaultRefreshIntervalSeconds)
    }
}
