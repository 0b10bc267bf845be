import Flutter
import Foundation
@_spi(Wrapper) import ServiceAttribution
import UIKit

/// The iOS side of the Flutter plugin: each method of the channel `service_attribution` calls
/// the iOS SDK, with the argument maps, results and error codes of the Android side. The Dart
/// side has already checked the arguments; what waits (the attribution match, a deletion)
/// runs off the main thread and answers on it, as a channel result must.
public class ServiceAttributionPlugin: NSObject, FlutterPlugin {
    static let channelName = "service_attribution"
    /// The Flutter package's name and version, reported in the install.
    static let wrapper = WrapperInfo(platform: "flutter", version: "2.10.0", sealsCustomParameters: true)

    public static func register(with registrar: FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: channelName, binaryMessenger: registrar.messenger())
        let instance = ServiceAttributionPlugin()
        registrar.addMethodCallDelegate(instance, channel: channel)
        // The Universal Link that opens the app goes with the install report (its click id
        // attributes the install); the plugin only notes it and leaves it to the app.
        registrar.addApplicationDelegate(instance)
    }

    public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        let arguments = call.arguments as? [String: Any] ?? [:]
        switch call.method {
        case "configure":
            guard let apiKey = arguments["apiKey"] as? String else {
                result(FlutterError(code: "argument", message: "apiKey is required", details: nil))
                return
            }
            let level = (arguments["logLevel"] as? NSNumber)?.intValue ?? 1
            ServiceAttribution.configure(
                apiKey: apiKey,
                logLevel: LogLevel(integer: level) ?? .default,
                customerUserId: arguments["customerUserId"] as? String,
                wrapper: ServiceAttributionPlugin.wrapper
            )
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
            // Not taken before configure or while disabled: the Dart side answers false.
            if ServiceAttribution.isSdkDisabled {
                result(false)
                return
            }
            do {
                let taken = try ServiceAttribution.sendEvent(type, name: name, parameters: arguments["parameters"] as? [String: Any])
                result(taken)
            } catch {
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
                    result(FlutterError(code: "native", message: error.localizedDescription, details: nil))
                } else {
                    result(nil)
                }
            }
        default:
            result(FlutterMethodNotImplemented)
        }
    }

    private func blank(_ name: String?) -> Bool {
        return (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    // MARK: - Application delegate

    /// A Universal Link tapped while the app runs or that launched it. Returns false so the app
    /// and other plugins still handle it.
    public func application(
        _ application: UIApplication,
        continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([Any]) -> Void
    ) -> Bool {
        _ = try? ServiceAttribution.handleUniversalLink(userActivity)
        return false
    }
}
