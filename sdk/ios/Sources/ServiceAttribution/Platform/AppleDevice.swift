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
/// Unchecked `Sendable`: what it keeps is under its lock, and the main thread's reads hand it over.
final class AppleDevice: DeviceSignals, @unchecked Sendable {
    private let lock = NSLock()
    private var vendorId: String?
    /// Under `lock`: what waits for a read of the IDFV asked on the main thread; nil while none is.
    private var waitingForRead: [() -> Void]?

    /// Reads the IDFV from any thread, never waiting: at once on the main thread (where
    /// `configure` is called), else as soon as the main thread is free.
    func captureIdentifierForVendor() {
        if Thread.isMainThread {
            MainActorCall.run { self.captureOnMainThread() }
        } else {
            DispatchQueue.main.async { MainActorCall.run { self.captureOnMainThread() } }
        }
    }

    /// `UIDevice` is main-actor (UIKit's annotations, an error in Swift 6): its IDFV is read
    /// here only. What waits for the read goes on after it, on the main thread, outside the lock.
    @MainActor
    private func captureOnMainThread() {
        #if os(iOS)
        let id = UIDevice.current.identifierForVendor?.uuidString
        lock.lock()
        if id != nil { vendorId = id }
        let waiting = waitingForRead ?? []
        waitingForRead = nil
        lock.unlock()
        waiting.forEach { $0() }
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

    /// What the main thread read; read again here only when none is known and this is the main
    /// thread (a configure that waited for the device's first unlock resumes on it, where iOS
    /// now gives the IDFV it gave no one before): no thread of the SDK's waits for the main one.
    var identifierForVendor: String? {
        lock.lock()
        let known = vendorId
        lock.unlock()
        #if os(iOS)
        if known == nil, Thread.isMainThread {
            MainActorCall.run { self.captureOnMainThread() }
            lock.lock()
            defer { lock.unlock() }
            return vendorId
        }
        #endif
        return known
    }

    /// A read on the main thread, asked once for all that wait for it; none on macOS (the
    /// tests), where there is no IDFV.
    func readIdentifierForVendor(then done: @escaping () -> Void) -> Bool {
        #if os(iOS)
        lock.lock()
        if vendorId != nil {
            lock.unlock()
            return false
        }
        let asked = waitingForRead != nil
        waitingForRead = (waitingForRead ?? []) + [done]
        lock.unlock()
        if !asked { DispatchQueue.main.async { MainActorCall.run { self.captureOnMainThread() } } }
        return true
        #else
        return false
        #endif
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
