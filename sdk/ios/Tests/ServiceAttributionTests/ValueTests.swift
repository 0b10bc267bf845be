import Foundation
import XCTest
@testable import ServiceAttribution

/// JSON text, parameter cleaning and the install's field rules.
final class ValueTests: XCTestCase {
    func testJSONTextIsCompactSortedAndExact() throws {
        let value = JSONValue.object([
            "b": .array([.int(1), .double(9.99), .double(100), .null, .bool(false)]),
            "a": .string("Café \"q\" / \\ \n\u{01}"),
        ])
        XCTAssertEqual(value.text, #"{"a":"Café \"q\" / \\ \n\u0001","b":[1,9.99,100,null,false]}"#)
        XCTAssertEqual(try JSONValue.parse(value.text), JSONValue.object([
            "b": .array([.int(1), .double(9.99), .int(100), .null, .bool(false)]),
            "a": .string("Café \"q\" / \\ \n\u{01}"),
        ]))
    }

    func testBooleansAreNotNumbers() throws {
        XCTAssertEqual(try JSONValue.parse("[true,1,0,1.5]"), .array([.bool(true), .int(1), .int(0), .double(1.5)]))
        XCTAssertEqual(JSONValue.from(NSNumber(value: true)), .bool(true))
        XCTAssertEqual(JSONValue.from(NSNumber(value: 1)), .int(1))
        XCTAssertNil(JSONValue.from(NSNumber(value: Double.nan)))
    }

    func testParametersFromSwiftValues() {
        let optional: String? = nil
        let cleaned = Parameters.clean([
            "none": optional as Any,
            "some": Optional("x") as Any,
            "null": NSNull(),
            "int": 3,
            "float": Float(1.5),
            "bool": true,
            "list": [1, 2],
            "nested": ["a": optional as Any, "b": 1] as [String: Any],
            "date": Date(),
            "nan": Double.nan,
            "brokenList": [1, Double.infinity],
        ])
        XCTAssertEqual(cleaned.parameters, [
            "some": .string("x"),
            "int": .int(3),
            "float": .double(1.5),
            "bool": .bool(true),
            "list": .array([.int(1), .int(2)]),
            "nested": .object(["b": .int(1)]),
        ])
        XCTAssertEqual(cleaned.dropped, ["brokenList", "date", "nan"])
    }

    /// Nested past the service's five levels: the deepest map's key is dropped; an
    /// NSMutableArray that holds itself is dropped rather than recursing without end.
    func testParametersNestedPastTheServicesBound() {
        func nested(_ levels: Int) -> [String: Any] {
            var inner: [String: Any] = ["x": 1]
            for _ in 1..<levels { inner = ["k": inner] }
            return inner
        }
        XCTAssertEqual(Parameters.clean(nested(5)).dropped, [])
        let deeper = Parameters.clean(nested(6))
        XCTAssertEqual(deeper.dropped, ["k.k.k.k.k"])
        XCTAssertEqual(deeper.parameters, ["k": .object(["k": .object(["k": .object(["k": .object([:])])])])])
        let loop = NSMutableArray(array: [1])
        loop.add(loop)
        let looped = Parameters.clean(["loop": loop, "kept": true])
        XCTAssertEqual(looped.dropped, ["loop"])
        XCTAssertEqual(looped.parameters, ["kept": .bool(true)])
    }

    /// A Float, a Decimal (StoreKit 2's `Product.price`) and their NSNumber forms keep the
    /// decimal form the app gave them; booleans stay booleans, integers integers.
    func testNumbersKeepTheirDecimalForm() throws {
        let price = try XCTUnwrap(Decimal(string: "9.99"))
        let cleaned = Parameters.clean([
            "float": Float(9.99),
            "floatNumber": NSNumber(value: Float(9.99)),
            "decimal": price,
            "decimalNumber": NSDecimalNumber(string: "19.99"),
            "bigDecimal": try XCTUnwrap(Decimal(string: "1234567.891")),
            "floats": [Float(0.1), Float(2.5)],
            "nested": ["price": price] as [String: Any],
            "double": 9.99,
            "true": true,
            "falseNumber": NSNumber(value: false),
            "int": 7,
            "floatWhole": Float(3),
            "floatNaN": Float.nan,
            "decimalNaN": Decimal.nan,
        ])
        XCTAssertEqual(cleaned.parameters, [
            "float": .double(9.99),
            "floatNumber": .double(9.99),
            "decimal": .double(9.99),
            "decimalNumber": .double(19.99),
            "bigDecimal": .double(1234567.891),
            "floats": .array([.double(0.1), .double(2.5)]),
            "nested": .object(["price": .double(9.99)]),
            "double": .double(9.99),
            "true": .bool(true),
            "falseNumber": .bool(false),
            "int": .int(7),
            "floatWhole": .double(3),
        ])
        XCTAssertEqual(cleaned.dropped, ["decimalNaN", "floatNaN"])
        XCTAssertEqual(JSONValue.object(cleaned.parameters).text.contains("9.989999771118164"), false)
        XCTAssertEqual(JSONValue.from(NSNumber(value: Float(9.99)))?.text, "9.99")
        XCTAssertEqual(JSONValue.from(NSDecimalNumber(string: "0.3"))?.text, "0.3")
        XCTAssertEqual(JSONValue.from(NSNumber(value: true)), .bool(true))
    }

    func testParametersFromAFlutterChannel() {
        // What the standard message codec hands over: Foundation objects.
        let channel: NSDictionary = [
            "s": NSString(string: "x"),
            "n": NSNumber(value: 7),
            "d": NSNumber(value: 9.5),
            "b": NSNumber(value: false),
            "l": NSArray(array: [NSNull(), NSNumber(value: 1)]),
            "m": NSDictionary(dictionary: ["k": "v"]),
            "bytes": NSData(bytes: [1, 2] as [UInt8], length: 2),
        ]
        let cleaned = Parameters.clean(channel as? [String: Any])
        XCTAssertEqual(cleaned.parameters, [
            "s": .string("x"),
            "n": .int(7),
            "d": .double(9.5),
            "b": .bool(false),
            "l": .array([.null, .int(1)]),
            "m": .object(["k": .string("v")]),
        ])
        XCTAssertEqual(cleaned.dropped, ["bytes"])
    }

    func testAnInstallWithoutConsentCarriesNoIDFA() {
        var input = Requests.InstallInput(serviceId: "s", firstOpen: Date(timeIntervalSince1970: 0))
        input.advertisingIdentifier = "6F9619FF-8B86-D011-B42D-00CF4FC964FE"
        input.identifierForVendor = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
        for status in ["denied", "restricted", "not_determined", nil] as [String?] {
            input.trackingAuthorizationStatus = status
            let body = Requests.install(input).objectValue
            XCTAssertEqual(body?["maid"], .null, status ?? "no ATT")
            XCTAssertEqual(body?["idfv"], .string("6F9619FF-8B86-D011-B42D-00CF4FC964FF"))
            XCTAssertEqual(body?["att_status"], status.map { JSONValue.string($0) } ?? .null)
        }
        input.trackingAuthorizationStatus = "authorized"
        input.advertisingIdentifier = "00000000-0000-0000-0000-000000000000"
        XCTAssertEqual(Requests.install(input).objectValue?["maid"], .null)
        XCTAssertEqual(Requests.install(input).objectValue?["first_open_time"], .string("1970-01-01T00:00:00.000Z"))
    }

    func testDeviceSignalsTheServiceWouldRefuseAreLeftOut() {
        var input = Requests.InstallInput(serviceId: "s", firstOpen: Date())
        input.locale = "en_US@rg=gbzzzz"
        input.timezone = "GMT+01:00 Europe"
        input.deviceModel = String(repeating: "x", count: 80)
        input.identifierForVendor = "not-a-uuid"
        input.customerUserId = String(repeating: "u", count: 257)
        input.trackingAuthorizationStatus = "maybe"
        let body = Requests.install(input).objectValue
        XCTAssertEqual(body?["locale"], .null)
        XCTAssertEqual(body?["timezone"], .null)
        XCTAssertEqual(body?["device_model"], .string(String(repeating: "x", count: 64)))
        XCTAssertEqual(body?["idfv"], .null)
        XCTAssertEqual(body?["customer_user_id"], .null)
        XCTAssertEqual(body?["att_status"], .null)
        XCTAssertEqual(Fields.text("🎮🎮", max: 3), "🎮")
    }

    func testRemoteConfigurationRoundTrips() throws {
        let recipient = try Vectors.recipient()
        let text = #"{"enabled":true,"refresh_interval_seconds":60,"encryption":{"enabled":true,"key_id":"k1","public_key":"\#(recipient.publicKeySpki)","algorithm":"x","envelope_version":"sv1","clear_keys":["revenue","currency"]}}"#
        let config = try RemoteConfig.parse(text)
        XCTAssertEqual(config, RemoteConfig(enabled: true, refreshIntervalSeconds: 60, encryption: .on(keyId: "k1", publicKey: recipient.publicKeySpki, clearKeys: ["revenue", "currency"])))
        XCTAssertEqual(try RemoteConfig.parse(config.json.text), config)
        XCTAssertThrowsError(try RemoteConfig.parse(#"{"refresh_interval_seconds":60}"#))
    }

    func testAConfigurationWhoseSealingKeyCannotSealIsRefusedWhole() throws {
        let recipient = try Vectors.recipient()
        // Not base64url, too short for a P-256 key, not a point on the curve, a key id the
        // envelope cannot carry: each would leave the events hashed or stripped, not sealed.
        let point = String(repeating: "A", count: 120)
        for (keyId, publicKey) in [("k1", "p"), ("k1", "MFkw"), ("k1", point), ("bad key id", recipient.publicKeySpki)] {
            let text = #"{"enabled":true,"encryption":{"enabled":true,"key_id":"\#(keyId)","public_key":"\#(publicKey)","clear_keys":[]}}"#
            XCTAssertThrowsError(try RemoteConfig.parse(text), "\(keyId) \(publicKey)")
        }
        // Sealing off needs no key.
        XCTAssertEqual(try RemoteConfig.parse(#"{"enabled":true,"encryption":{"enabled":false,"public_key":"p"}}"#).encryption, .off)
    }
}
