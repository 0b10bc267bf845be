import Flutter
import Foundation
@_spi(Wrapper) import ServiceAttribution
import UIKit

/// The iOS side of the Flutter plugin: each method of the channel `service_attribution` calls
/// the iOS SDK, with the argument maps, results and error codes of the Android side. The Dart
/// side has already checked the arguments; what waits (the attribution match, a deletion)
/// runs off the main thread and answers on it, as a channel result must.
///
/// The SDK's listeners (`onAttribution`, `onDeepLink`, `onError`) are set while the Dart side's
/// stream of the same name has a listener (the channel's `listen`), and call the Dart side back
/// on the main thread with `onAttribution`, `onDeepLink` and `onError`. The SDK has one of each
/// for the process, and an app may run several engines: it calls the engine whose stream began
/// listening last, and when that one stops (its engine going away included), the one before it
/// that still listens, as the Android side does. The SDK's refusal to start, which it tells the
/// `configure` completion alone, reaches `onError` too. The SDK's error listener is set from the
/// plugin's registration on: what it hears while no Dart error stream listens (the events a
/// `stop()` before `configure` drops, a drop as `configure` runs) waits for the first that does,
/// as on the Android side.
///
/// Everything here runs on the main thread: the channel's calls, the engine's detach, the
/// `configure` completion and UIKit's application and scene calls.
public class ServiceAttributionPlugin: NSObject, FlutterPlugin, FlutterSceneLifeCycleDelegate {
    static let channelName = "service_attribution"
    /// The channel, for the calls back to the Dart side. Internal, not private, so that the
    /// XCTests can give a plugin a channel over a messenger of their own.
    var channel: FlutterMethodChannel?
    /// The Flutter package's name and version, reported in the install.
    static let wrapper = WrapperInfo(platform: "flutter", version: "2.10.0", sealsCustomParameters: true)

    /// The Dart side's names of the SDK's listeners (the channel's `listen`).
    private static let listenerNames = ["attribution", "deepLink", "error"]
    /// The plugins (of which engines) whose Dart stream of each name listens, in the order they
    /// began: the last is the one the SDK's listener calls.
    private static var owners: [String: [ServiceAttributionPlugin]] = [:]
    /// The errors told while no Dart error stream listened (`configure` runs early in `main`, the
    /// listener may come after it, and an engine's stream may stop and another begin), and those
    /// a Dart handler failed on: the most recent ``maxPendingErrors``, oldest first, for the next
    /// stream that begins to listen. The SDK counts its drops whether or not anyone hears them
    /// (`droppedEventCount`); these are what the app's listener would have heard.
    private static var pendingErrors: [[String: Any]] = []
    /// As many as the deep links kept for a listener (listeners.json's maxPendingDirectLinks).
    static let maxPendingErrors = 10
    /// Set by the first `configure`, the only one whose completion the SDK tells of its start
    /// (a later call changes nothing, and its completion would tell the same refusal again).
    /// From then on, a plugin registered later (another engine's) leaves the SDK's error
    /// listener as it is.
    private static var configureCalled = false

    public static func register(with registrar: FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: channelName, binaryMessenger: registrar.messenger())
        let instance = ServiceAttributionPlugin()
        instance.channel = channel
        registrar.addMethodCallDelegate(instance, channel: channel)
        // Published so that the engine, as it goes away, calls detachFromEngine(for:): Flutter
        // calls it only on what a registrar published. Unpublished, a destroyed engine's plugin
        // would keep the SDK's listeners, and a refusal to start would go to its dead channel.
        registrar.publish(instance)
        // The link that opens the app goes with the install report (its click id attributes the
        // install); the plugin only notes it and leaves it to the app. UIKit hands it to the
        // application delegate, or with the UIScene lifecycle (Flutter's default from 3.41) to
        // the scene's delegate alone: the plugin takes both.
        registrar.addApplicationDelegate(instance)
        registrar.addSceneDelegate(instance)
        // Before configure: the SDK tells at once what it drops then (the events a stop() before
        // configure drops), and keeps nothing for a listener set later, where the Android side
        // tells it at configure. The relay keeps it for the first Dart error stream. Not once
        // configure was called (another engine registering later): configure set the relay then,
        // and a listener the app set natively since stays.
        if !configureCalled { ServiceAttribution.onError = errorRelay }
    }

    /// The engine goes away; the SDK outlives it, and must not call a channel that is gone.
    public func detachFromEngine(for registrar: FlutterPluginRegistrar) {
        for name in Self.listenerNames { listen(name, false) }
        channel = nil
    }

    /// Answers every call once, with one of the documented codes: a Swift error no method
    /// expected is logged and answered `native` (``answering(_:_:_:)``), as the Android side
    /// answers an unexpected exception, and not passed off as an argument's mistake.
    public func handle(_ call: FlutterMethodCall, result reply: @escaping FlutterResult) {
        Self.answering(call.method, reply) { result in
            let arguments = call.arguments as? [String: Any] ?? [:]
            switch call.method {
            case "configure":
                guard let apiKey = arguments["apiKey"] as? String else {
                    result(FlutterError(code: "argument", message: "apiKey is required", details: nil))
                    return
                }
                let level = (arguments["logLevel"] as? NSNumber)?.intValue ?? 1
                // Answered at once, as the Dart side's configure documents: a refusal comes later
                // (remote configuration is read off the main thread), on the error stream.
                var started: ((Error?) -> Void)?
                if !Self.configureCalled {
                    Self.configureCalled = true
                    started = { error in
                        if let error = error, let refusal = Self.refusalMap(error) { Self.tellError(refusal) }
                    }
                    // From configure on, whatever the app set natively since the registration: an
                    // error told before the Dart side's error stream listens (a drop as configure
                    // runs, say) waits for its first listener.
                    ServiceAttribution.onError = Self.errorRelay
                }
                ServiceAttribution.configure(
                    apiKey: apiKey,
                    logLevel: LogLevel(integer: level) ?? .default,
                    customerUserId: arguments["customerUserId"] as? String,
                    wrapper: ServiceAttributionPlugin.wrapper,
                    completion: started
                )
                result(nil)
            case "waitForTrackingAuthorization":
                // The Dart side checked the bounds; the SDK refuses a value outside them in its log
                // too, and a call after configure.
                guard let seconds = (arguments["timeoutSeconds"] as? NSNumber)?.doubleValue else {
                    result(FlutterError(code: "argument", message: "timeoutSeconds is required", details: nil))
                    return
                }
                ServiceAttribution.waitForTrackingAuthorization(timeout: seconds)
                result(nil)
            case "setCustomerUserId":
                ServiceAttribution.setCustomerUserId(arguments["customerUserId"] as? String)
                result(nil)
            case "sendEvent":
                guard let wire = arguments["eventType"] as? String, let type = EventType(rawValue: wire) else {
                    result(FlutterError(code: "argument", message: "unknown eventType", details: nil))
                    return
                }
                let name = arguments["eventName"] as? String
                if type == .custom && blank(name) {
                    result(FlutterError(code: "argument", message: "eventName is required for custom events", details: nil))
                    return
                }
                // Before configure the SDK keeps the event and answers true; false while it is
                // disabled or stopped. Any other error than an argument's is unexpected: handle
                // answers it `native`.
                do {
                    let taken = try ServiceAttribution.sendEvent(type, name: name, parameters: arguments["parameters"] as? [String: Any])
                    result(taken)
                } catch let error as ServiceAttributionError {
                    guard case .invalidArgument = error else { throw error }
                    result(FlutterError(code: "argument", message: error.localizedDescription, details: nil))
                }
            case "getServiceId":
                result(ServiceAttribution.serviceId)
            case "isSdkDisabled":
                result(ServiceAttribution.isSdkDisabled)
            case "getAttributionParams":
                // Never empty on iOS: it always holds service_match_status.
                result(ServiceAttribution.attributionParams)
            case "awaitAttributionParams":
                ServiceAttribution.awaitAttributionParams { params in result(params) }
            case "enablePlatformAdsAttribution":
                result(ServiceAttribution.enablePlatformAdsAttribution())
            case "deleteUserData":
                ServiceAttribution.deleteUserData { error in
                    if let error = error {
                        result(Self.flutterError(error))
                    } else {
                        result(nil)
                    }
                }
            case "handleDeepLink":
                // The Dart side delivers the direct deep link itself; the SDK notes the link that
                // opened the app (it goes with a new install's report).
                if let text = arguments["url"] as? String, let url = URL(string: text) {
                    _ = ServiceAttribution.handleDeepLink(url)
                }
                result(nil)
            case "stop":
                ServiceAttribution.stop()
                result(nil)
            case "start":
                ServiceAttribution.start()
                result(nil)
            case "isStopped":
                result(ServiceAttribution.isStopped)
            case "setAnonymous":
                ServiceAttribution.setAnonymous((arguments["anonymous"] as? Bool) ?? false)
                result(nil)
            case "isAnonymous":
                result(ServiceAttribution.isAnonymous)
            case "setConsent":
                // A null from Dart arrives as NSNull: not a Bool, so nil (unknown).
                ServiceAttribution.setConsent(ServiceConsent(
                    gdprApplies: arguments["gdprApplies"] as? Bool,
                    adUserData: arguments["adUserData"] as? Bool,
                    adPersonalization: arguments["adPersonalization"] as? Bool
                ))
                result(nil)
            case "getDroppedEventCount":
                result(ServiceAttribution.droppedEventCount)
            case "listen":
                listen(arguments["listener"] as? String, (arguments["listening"] as? Bool) ?? false)
                result(nil)
            default:
                result(FlutterMethodNotImplemented)
            }
        }
    }

    /// Runs `body` with a result that answers once at most (what comes after the first answer is
    /// dropped: Flutter takes one reply per call). An error `body` throws, which no method
    /// expected (not an argument's: those answer `argument` themselves), is logged and answered
    /// `native`, with the method and the error in the message, unless the call was answered
    /// already. A runtime trap (a force unwrap of nil, say) is no Swift error and stops the app
    /// whatever catches it.
    static func answering(
        _ method: String,
        _ result: @escaping FlutterResult,
        _ body: (@escaping FlutterResult) throws -> Void
    ) {
        let once = AnswerOnce(result)
        do {
            try body(once.answer)
        } catch {
            let message = "\(method): the plugin failed unexpectedly: \(error)"
            log(message)
            once.answer(FlutterError(code: "native", message: message, details: nil))
        }
    }

    /// A channel result answered once at most; the completions that answer may come on
    /// another thread than the call.
    private final class AnswerOnce {
        private let result: FlutterResult
        private let lock = NSLock()
        private var answered = false

        init(_ result: @escaping FlutterResult) {
            self.result = result
        }

        func answer(_ value: Any?) {
            lock.lock()
            let first = !answered
            answered = true
            lock.unlock()
            if first { result(value) }
        }
    }

    /// A line in the app's console (Xcode's), under the SDKs' tag.
    static func log(_ message: String) {
        NSLog("ServiceSdk: %@", message)
    }

    // MARK: - Listeners

    /// Sets (or clears) the SDK's listener that the Dart stream [name] is fed by. The SDK has one
    /// of each for the process, and an app may run several engines (add-to-app, a background
    /// isolate's): the listener calls the engine whose stream began listening last, and when that
    /// one stops (its engine going away included), the one before it that still listens, whose
    /// stream would otherwise hear nothing for the rest of the process. Set again, the SDK tells
    /// the stored attribution at once, and a deferred deep link not yet handed over.
    private func listen(_ name: String?, _ listening: Bool) {
        guard let name = name, Self.listenerNames.contains(name) else { return }
        var plugins = Self.owners[name] ?? []
        let before = plugins.last
        plugins.removeAll { $0 === self }
        if listening { plugins.append(self) }
        Self.owners[name] = plugins
        let told = plugins.last
        // Another engine's stream stopped: the SDK's listener is as it was.
        if !listening && told === before { return }
        switch name {
        case "attribution":
            if let plugin = told {
                ServiceAttribution.onAttribution = { [weak plugin] attribution in
                    plugin?.callDart("onAttribution", attribution)
                }
            } else {
                ServiceAttribution.onAttribution = nil
            }
        case "deepLink":
            if let plugin = told {
                ServiceAttribution.onDeepLink = { [weak plugin] deepLink in
                    plugin?.tellDeepLink(ServiceAttributionPlugin.channelMap(deepLink))
                }
            } else {
                ServiceAttribution.onDeepLink = nil
            }
        case "error":
            // Kept whether a stream listens or not: the relay calls the one that does, or keeps
            // the error for the first that will.
            ServiceAttribution.onError = Self.errorRelay
        default:
            break
        }
        if listening && name == "deepLink", let deferred = Self.unheardDeferred {
            Self.unheardDeferred = nil
            tellDeepLink(deferred)
        }
        if listening && name == "error" && !Self.pendingErrors.isEmpty {
            let pending = Self.pendingErrors
            Self.pendingErrors.removeAll()
            for error in pending { callDart("onError", error) { failed in Self.unheardError(error, failed) } }
        }
    }

    /// The deferred deep link handed to a Dart side that was gone (a hot restart): the SDK
    /// counts it delivered once it hands it over, so it waits here for the next deep-link
    /// listener, of any engine, rather than be lost for the install.
    private static var unheardDeferred: [String: Any]?

    /// A deep link to this engine's Dart side; the deferred one kept if no Dart code took it:
    /// told to the stream that listens now, or kept for the first that will; one a Dart handler
    /// failed on is kept for the next listener set, never sent again at once.
    private func tellDeepLink(_ link: [String: Any]) {
        callDart("onDeepLink", link) { failed in
            guard link["kind"] as? String == ServiceDeepLink.Kind.deferred.rawValue else { return }
            if !failed, let owner = Self.owners["deepLink"]?.last {
                owner.tellDeepLink(link)
            } else {
                Self.unheardDeferred = link
            }
        }
    }

    /// The SDK's error listener: tells the Dart stream that listens, or keeps the error.
    private static let errorRelay: @MainActor (ServiceError) -> Void = { error in
        ServiceAttributionPlugin.tellError(ServiceAttributionPlugin.channelMap(error))
    }

    /// The `configuration` error (delivery.json's) of a `configure` refusal that leaves the SDK
    /// off, as the Dart side's `ServiceError.fromChannel` reads it: the key rejected on GET
    /// /v1/config (with its status), no service address in Info.plist, an app extension, a blank
    /// key. Nil for an error the SDK goes on after (offline, a 5xx, a 403 or 404 there): an
    /// install the service then refuses is reported by the SDK's own error listener.
    static func refusalMap(_ error: Error) -> [String: Any]? {
        let code: Int?
        switch error as? ServiceAttributionError {
        case .authentication(let statusCode)?:
            code = statusCode
        case .missingBaseURL?, .appExtension?, .invalidArgument?:
            code = nil
        default:
            return nil
        }
        return [
            "kind": ServiceError.Kind.configuration.rawValue,
            "reason": NSNull(),
            "code": orNull(code),
            "count": 1,
            "message": "the SDK did not start: \(error.localizedDescription)",
        ]
    }

    /// An error (a refusal to start included), to the engine whose error stream listens, or kept
    /// for the first one: the most recent ``maxPendingErrors``.
    private static func tellError(_ error: [String: Any]) {
        if let owner = owners["error"]?.last {
            owner.callDart("onError", error) { failed in unheardError(error, failed) }
            return
        }
        keepError(error)
    }

    /// An error no Dart code took: told again to the stream that listens now (another engine's,
    /// or kept for the first that will); one a Dart handler failed on is kept for the next
    /// listener set, never sent again at once to the handler that failed.
    private static func unheardError(_ error: [String: Any], _ failed: Bool) {
        if failed {
            keepError(error)
        } else {
            tellError(error)
        }
    }

    /// Kept for the next Dart error stream that listens: the most recent ``maxPendingErrors``.
    private static func keepError(_ error: [String: Any]) {
        if pendingErrors.count >= maxPendingErrors { pendingErrors.removeFirst() }
        pendingErrors.append(error)
    }

    /// The listener whose stream a call to the Dart side feeds; nil for any other method.
    static func listenerName(of method: String) -> String? {
        switch method {
        case "onAttribution": return "attribution"
        case "onDeepLink": return "deepLink"
        case "onError": return "error"
        default: return nil
        }
    }

    /// Calls the Dart side on the main thread, as a channel must be called. `unheard` runs when
    /// no Dart code took the call: a hot restart keeps the engine and this plugin but not the
    /// isolate whose streams listened, and until the new one sets its handler the engine answers
    /// every call with `FlutterMethodNotImplemented`; the new one answers `false` to an error
    /// while its error stream has no listener yet. Either way this engine's streams listen no
    /// more than its Dart side says anew (all of them for no handler, the one whose method
    /// answered `false` else), and what the call carried waits for the next listener.
    ///
    /// A handler that threw on the call (a `FlutterError` answer: a map it could not read, say)
    /// took nothing either: what the call carried is kept for the next listener too
    /// (`unheard(true)`), and the failure logged once. Its streams go on listening: the next
    /// item may well be read, and sending the same one again at once would fail the same way.
    private func callDart(_ method: String, _ arguments: Any, unheard: ((_ failed: Bool) -> Void)? = nil) {
        let send = { [weak self] in
            // The engine went away after the call was made: what it carried waits for the next
            // listener (another engine's), never handed to none.
            guard let self = self, let channel = self.channel else {
                unheard?(false)
                return
            }
            channel.invokeMethod(method, arguments: arguments) { [weak self] answer in
                guard let self = self else { return }
                if (answer as? NSObject) === FlutterMethodNotImplemented {
                    for name in Self.listenerNames { self.listen(name, false) }
                    unheard?(false)
                } else if let failure = answer as? FlutterError {
                    // The attribution needs no keeping: the SDK tells it again to the next listener set.
                    let kept = method == "onAttribution" ? "the SDK tells it again to the next listener" : "kept for the next listener"
                    Self.log("\(method): the Dart side failed to handle it (\(failure.code): \(failure.message ?? "")); \(kept)")
                    unheard?(true)
                } else if let heard = answer as? Bool, !heard {
                    if let name = Self.listenerName(of: method) { self.listen(name, false) }
                    unheard?(false)
                }
            }
        }
        if Thread.isMainThread {
            send()
        } else {
            DispatchQueue.main.async(execute: send)
        }
    }

    /// A deep link as the Dart side's `ServiceDeepLink.fromChannel` reads it.
    static func channelMap(_ deepLink: ServiceDeepLink) -> [String: Any] {
        return [
            "kind": deepLink.kind.rawValue,
            "deeplinkId": orNull(deepLink.deeplinkId),
            "path": orNull(deepLink.path),
            "params": deepLink.params,
            "url": orNull(deepLink.url?.absoluteString),
        ]
    }

    /// An error as the Dart side's `ServiceError.fromChannel` reads it.
    static func channelMap(_ error: ServiceError) -> [String: Any] {
        return [
            "kind": error.kind.rawValue,
            "reason": orNull(error.reason?.rawValue),
            "code": orNull(error.code),
            "count": error.count,
            "message": error.message,
        ]
    }

    /// A failure as the Dart side's `PlatformException`, with the code the Android side gives
    /// the same failure (`deleteUserData` documents them) and a refusal's HTTP status.
    static func flutterError(_ error: Error) -> FlutterError {
        let message = error.localizedDescription
        switch error as? ServiceAttributionError {
        case .authentication(let statusCode)?:
            return FlutterError(code: "authentication", message: message, details: ["httpCode": statusCode])
        case .http(let statusCode, _)?:
            return FlutterError(code: "http", message: message, details: ["httpCode": statusCode])
        case .network?:
            return FlutterError(code: "network", message: message, details: nil)
        case .notConfigured?:
            return FlutterError(code: "not_configured", message: message, details: nil)
        default:
            return FlutterError(code: "native", message: message, details: nil)
        }
    }

    /// The value, or NSNull for nil, which the channel's codec sends as null.
    private static func orNull(_ value: Any?) -> Any {
        return value ?? NSNull()
    }

    private func blank(_ name: String?) -> Bool {
        return (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    // MARK: - Links that open the app

    /// A Universal Link (a browsing-web activity): the SDK notes it for the install's report if
    /// it is the service's, and an AdAttributionKit re-engagement whatever its host.
    private static func noteOpening(_ userActivity: NSUserActivity) {
        _ = try? ServiceAttribution.handleUniversalLink(userActivity)
    }

    /// A URL the app is asked to open (its own scheme, say): noted by the SDK as the Dart side's
    /// `handleDeepLink` has it noted. The direct deep link the SDK makes of it is not delivered
    /// to Dart, which delivers direct links from its own calls alone.
    private static func noteOpening(_ url: URL) {
        _ = ServiceAttribution.handleDeepLink(url)
    }

    // Each returns false, so that the app and other plugins still handle the link.

    /// Application delegate: a Universal Link tapped while the app runs or that launched it.
    public func application(
        _ application: UIApplication,
        continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([Any]) -> Void
    ) -> Bool {
        Self.noteOpening(userActivity)
        return false
    }

    /// Application delegate: a URL to open, while the app runs or that launched it.
    public func application(
        _ application: UIApplication,
        open url: URL,
        options: [UIApplication.OpenURLOptionsKey: Any] = [:]
    ) -> Bool {
        Self.noteOpening(url)
        return false
    }

    /// Scene delegate: the scene connects, for a launch by a Universal Link or a URL (UIKit
    /// gives it here, and not to `continue` or `openURLContexts`, when the link launched the app).
    public func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions?
    ) -> Bool {
        guard let options = connectionOptions else { return false }
        options.userActivities.forEach { Self.noteOpening($0) }
        options.urlContexts.forEach { Self.noteOpening($0.url) }
        return false
    }

    /// Scene delegate: a Universal Link tapped while the app runs.
    public func scene(_ scene: UIScene, continue userActivity: NSUserActivity) -> Bool {
        Self.noteOpening(userActivity)
        return false
    }

    /// Scene delegate: URLs to open while the app runs.
    public func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) -> Bool {
        URLContexts.forEach { Self.noteOpening($0.url) }
        return false
    }
}
