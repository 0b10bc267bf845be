import Foundation
#if os(iOS)
import AdSupport
import UIKit
#endif
// AppTrackingTransparency (iOS 14) and AdServices (iOS 14.3) are on every iOS the package
// supports (15 and later), so their uses need no `#available`. They are weakly linked
// (LC_LOAD_WEAK_DYLIB) like AdAttributionKit, which costs nothing where a framework exists:
// under SwiftPM by `@_weakLinked import` (Swift 5.8 and later), under CocoaPods by the
// podspec's `weak_frameworks` too.
#if os(iOS) && canImport(AppTrackingTransparency)
#if compiler(>=5.8)
@_weakLinked import AppTrackingTransparency
#else
import AppTrackingTransparency
#endif
#endif
#if os(iOS) && canImport(AdServices)
#if compiler(>=5.8)
@_weakLinked import AdServices
#else
import AdServices
#endif
#endif

/// The device's signals on iOS, where AppTrackingTransparency and AdServices always exist
/// (iOS 15 and later). On macOS, where only the tests run, the iOS-only signals are nil.
final class AppleDevice: DeviceSignals {
    private let lock = NSLock()
    private var vendorId: String?

    /// Reads what UIKit gives on the main thread only (the IDFV); `configure` calls it there.
    func captureOnMainThread() {
        #if os(iOS)
        let id = UIDevice.current.identifierForVendor?.uuidString
        lock.lock()
        if id != nil { vendorId = id }
        lock.unlock()
        #endif
    }

    var osVersion: String? {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        if version.patchVersion == 0 { return "\(version.majorVersion).\(version.minorVersion)" }
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    /// The hardware model (`iPhone15,2`), the simulated one in the simulator.
    var deviceModel: String? {
        if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] { return simulated }
        var info = utsname()
        guard uname(&info) == 0 else { return nil }
        let size = MemoryLayout.size(ofValue: info.machine)
        let machine = withUnsafePointer(to: &info.machine) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: size) { String(cString: $0) }
        }
        return machine.isEmpty ? nil : machine
    }

    var appVersion: String? {
        return Bundle.main.infoDictionary?["CFBundleShortVersionString"] as? String
    }

    /// A BCP 47 tag of the user's language and region (`en-US`); `Locale.identifier` may carry
    /// `@rg=` and calendar keywords the service does not take.
    var locale: String? {
        let current = Locale.current as NSLocale
        guard let language = current.object(forKey: .languageCode) as? String else { return nil }
        if let region = current.object(forKey: .countryCode) as? String { return "\(language)-\(region)" }
        return language
    }

    var timezone: String? {
        return TimeZone.current.identifier
    }

    var identifierForVendor: String? {
        lock.lock()
        let captured = vendorId
        lock.unlock()
        if captured != nil { return captured }
        #if os(iOS)
        if Thread.isMainThread {
            captureOnMainThread()
        } else {
            DispatchQueue.main.sync { self.captureOnMainThread() }
        }
        lock.lock()
        defer { lock.unlock() }
        return vendorId
        #else
        return nil
        #endif
    }

    /// The IDFV without waiting for the main thread: read there now if this is it, else what
    /// `captureOnMainThread` read (nil when it has not run yet).
    var identifierForVendorKnownNow: String? {
        if Thread.isMainThread { captureOnMainThread() }
        lock.lock()
        defer { lock.unlock() }
        return vendorId
    }

    var trackingAuthorizationStatus: String? {
        #if os(iOS) && canImport(AppTrackingTransparency)
        switch ATTrackingManager.trackingAuthorizationStatus {
        case .authorized: return "authorized"
        case .denied: return "denied"
        case .restricted: return "restricted"
        case .notDetermined: return "not_determined"
        @unknown default: return nil
        }
        #else
        return nil
        #endif
    }

    /// The IDFA only when the user authorized tracking through ATT.
    func advertisingIdentifier() -> String? {
        #if os(iOS)
        guard trackingAuthorizationStatus == "authorized" else { return nil }
        return ASIdentifierManager.shared().advertisingIdentifier.uuidString
        #else
        return nil
        #endif
    }

    func platformAdsToken() throws -> String? {
        #if os(iOS) && canImport(AdServices)
        return try AAAttribution.attributionToken()
        #else
        return nil
        #endif
    }

    /// Whether AdServices can give a token here: on iOS, not on macOS (the tests).
    static var platformAdsAvailable: Bool {
        #if os(iOS) && canImport(AdServices)
        return true
        #else
        return false
        #endif
    }
}
