import Flutter
import ServiceAttribution
import XCTest
@testable import service_attribution

/// The Dart side of the channel, as a messenger: every call the plugin sends it, decoded by the
/// standard codec, and answered as ServicePlugin's handler answers (true), or false for the
/// methods of `answeredFalse`, or as Flutter answers a handler that throws (the methods of
/// `failing`): an error envelope with the generic code `error`.
final class DartSide: NSObject, FlutterBinaryMessenger {
    private let codec = FlutterStandardMethodCodec.sharedInstance()
    var calls: [FlutterMethodCall] = []
    var failing: Set<String> = []
    var failed: [FlutterMethodCall] = []
    var answeredFalse: Set<String> = []

    func send(onChannel channel: String, message: Data?) {
        send(onChannel: channel, message: message, binaryReply: nil)
    }

    func send(onChannel channel: String, message: Data?, binaryReply callback: FlutterBinaryReply? = nil) {
        guard let message = message else { return }
        let call = codec.decodeMethodCall(message)
        if failing.contains(call.method) {
            failed.append(call)
            let error = FlutterError(code: "error", message: "type 'Null' is not a subtype of type 'Map'", details: nil)
            callback?(codec.encodeErrorEnvelope(error))
            return
        }
        calls.append(call)
        callback?(codec.encodeSuccessEnvelope(!answeredFalse.contains(call.method)))
    }

    func setMessageHandlerOnChannel(
        _ channel: String,
        binaryMessageHandler handler: FlutterBinaryMessageHandler? = nil
    ) -> FlutterBinaryMessengerConnection {
        return 0
    }

    func cleanUpConnection(_ connection: FlutterBinaryMessengerConnection) {}

    func received(_ method: String) -> [[String: Any]] {
        return calls.filter { $0.method == method }.compactMap { $0.arguments as? [String: Any] }
    }
}

/// The plugin's answers to the Dart side's calls back (compiled and run where Xcode is, from an
/// app's RunnerTests target, which `@testable import service_attribution` needs; parsed only by
/// tool/check.mjs here). The SDK's listeners are the iOS SDK's own (`ServiceAttribution.onError`,
/// `onDeepLink`), called as the SDK calls them, on the main thread.
@MainActor
final class ServiceAttributionPluginTests: XCTestCase {
    private var plugins: [ServiceAttributionPlugin] = []

    /// A plugin of an engine whose Dart side is `dart`.
    private func plugin(_ dart: DartSide) -> ServiceAttributionPlugin {
        let plugin = ServiceAttributionPlugin()
        plugin.channel = FlutterMethodChannel(name: ServiceAttributionPlugin.channelName, binaryMessenger: dart)
        plugins.append(plugin)
        return plugin
    }

    /// Calls `method` as the Dart side does and returns the answer.
    @discardableResult
    private func call(_ plugin: ServiceAttributionPlugin, _ method: String, _ arguments: [String: Any]? = nil) -> Any? {
        var answer: Any?
        plugin.handle(FlutterMethodCall(methodName: method, arguments: arguments)) { answer = $0 }
        return answer
    }

    private func listen(_ plugin: ServiceAttributionPlugin, _ names: [String], _ listening: Bool = true) {
        for name in names { call(plugin, "listen", ["listener": name, "listening": listening]) }
    }

    /// The listeners are the process's: each test's plugins stop theirs as it ends.
    private func stopAll() {
        for plugin in plugins { listen(plugin, ["attribution", "deepLink", "error"], false) }
        plugins.removeAll()
    }

    private let refusal = ServiceError(kind: .eventsDropped, reason: .refused, code: nil, count: 1, message: "1 event dropped: refused")
    private let deferred = ServiceDeepLink(kind: .deferred, deeplinkId: nil, path: "/levels/9", params: ["deep_link_path": "/levels/9"], url: nil)

    func testWhatADartHandlerFailsOnIsKeptForTheNextListenerTheListenersKept() {
        defer { stopAll() }
        let dart = DartSide()
        let plugin = plugin(dart)
        dart.failing = ["onError", "onDeepLink"]
        listen(plugin, ["error", "deepLink"])
        ServiceAttribution.onError?(refusal)
        ServiceAttribution.onDeepLink?(deferred)
        XCTAssertEqual(dart.failed.map { $0.method }, ["onError", "onDeepLink"])
        // Not sent again at once, to the handler that failed on it.
        XCTAssertTrue(dart.calls.isEmpty)

        // Its streams still listen: the next error is handed over as ever.
        dart.failing = []
        ServiceAttribution.onError?(ServiceError(kind: .eventsDropped, reason: .expired, code: nil, count: 2, message: "2 events dropped: expired"))
        XCTAssertEqual(dart.received("onError").map { $0["reason"] as? String }, ["expired"])

        // The Dart side listens anew: each item it failed on reaches it, once.
        listen(plugin, ["error", "deepLink"])
        XCTAssertEqual(dart.received("onError").map { $0["reason"] as? String }, ["expired", "refused"])
        XCTAssertEqual(dart.received("onDeepLink").map { $0["kind"] as? String }, ["deferred"])
        XCTAssertEqual(dart.received("onDeepLink").first?["path"] as? String, "/levels/9")
        listen(plugin, ["error", "deepLink"])
        XCTAssertEqual(dart.received("onError").count, 2)
        XCTAssertEqual(dart.received("onDeepLink").count, 1)
    }

    func testAFalseAnswerStopsOnlyTheListenerOfTheMethodThatAnsweredIt() {
        defer { stopAll() }
        let before = DartSide()
        listen(plugin(before), ["deepLink"])
        let dart = DartSide()
        let plugin = plugin(dart)
        listen(plugin, ["error", "deepLink"])
        // A Dart side that answers false to a deep link (as it answers an error no stream hears).
        dart.answeredFalse = ["onDeepLink"]
        ServiceAttribution.onDeepLink?(deferred)
        XCTAssertEqual(dart.received("onDeepLink").count, 1)

        // Its error stream still listens.
        ServiceAttribution.onError?(refusal)
        XCTAssertEqual(dart.received("onError").map { $0["reason"] as? String }, ["refused"])
        // Its deep-link listener stopped: the deferred link it answered false to, and the next
        // link, go to the engine that listened before it.
        XCTAssertEqual(before.received("onDeepLink").map { $0["path"] as? String }, ["/levels/9"])
        ServiceAttribution.onDeepLink?(ServiceDeepLink(kind: .direct, deeplinkId: nil, path: "/next", params: ["deep_link_path": "/next"], url: URL(string: "myapp://open?deep_link_path=%2Fnext")))
        XCTAssertEqual(before.received("onDeepLink").map { $0["path"] as? String }, ["/levels/9", "/next"])
        XCTAssertEqual(dart.received("onDeepLink").count, 1)
    }

    private struct Unexpected: Error {}

    func testAnErrorNoMethodExpectedIsAnsweredNativeOnce() {
        defer { stopAll() }
        var answers: [Any?] = []
        ServiceAttributionPlugin.answering("sendEvent", { answers.append($0) }) { _ in throw Unexpected() }
        XCTAssertEqual(answers.count, 1)
        let error = answers.first as? FlutterError
        XCTAssertEqual(error?.code, "native")
        XCTAssertTrue(error?.message?.hasPrefix("sendEvent: ") ?? false, "\(String(describing: error?.message))")

        // Answered before it failed: no second answer, which Flutter does not take.
        answers.removeAll()
        ServiceAttributionPlugin.answering("isStopped", { answers.append($0) }) { answer in
            answer(false)
            throw Unexpected()
        }
        XCTAssertEqual(answers.count, 1)
        XCTAssertEqual(answers.first as? Bool, false)

        // An argument's error keeps its own code.
        let dart = DartSide()
        let answer = call(plugin(dart), "sendEvent", ["eventType": "CUSTOM", "eventName": " ", "parameters": NSNull()]) as? FlutterError
        XCTAssertEqual(answer?.code, "argument")
    }
}
