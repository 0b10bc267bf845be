import Foundation
#if os(iOS)
import StoreKit
#endif
#if os(iOS) && canImport(AdAttributionKit)
// Weakly linked (LC_LOAD_WEAK_DYLIB): AdAttributionKit exists from iOS 17.4 only, and a
// Swift-only framework may otherwise be linked strongly (SwiftPM and CocoaPods both link it
// through this import), which would keep the app from launching before 17.4. Every use is
// behind `#available(iOS 17.4, *)`. (Its SDK needs Xcode 15.3, whose Swift 5.10 knows
// `@_weakLinked import`.)
@_weakLinked import AdAttributionKit
#endif

/// The conversion values on iOS: each update goes to SKAdNetwork and, from iOS 17.4, to
/// AdAttributionKit too (an install is attributed through one or the other, and the app cannot
/// tell which). Both answer later; a refusal goes to `failed`, never back to the event.
///
/// - iOS 16.1 and later: `SKAdNetwork.updatePostbackConversionValue(_:coarseValue:lockWindow:)`,
///   SKAdNetwork 4's three windows with their coarse values and locks.
/// - iOS 15.4 to 16.0: `updatePostbackConversionValue(_:)`, the first window's fine value
///   alone. These versions know one postback and fine values only: the first window's updates
///   are what they can carry, a coarse value or a later window has no call there.
/// - iOS 15.0 to 15.3: `registerAppForAdNetworkAttribution()` at the first launch and
///   `updateConversionValue(_:)` with the first window's fine value: without a call at the first
///   launch Apple makes no postback at all for the install.
/// - iOS 17.4 and later, also: `Postback.updateConversionValue(_:coarseConversionValue:lockPostback:)`;
///   from iOS 18, `Postback.updateConversionValue(_:)` with a `PostbackUpdate` for the
///   install's conversions alone (``updateInstall(_:coarse:lock:)``).
/// - iOS 18 and later, at an AdAttributionKit re-engagement open: one update with a fine value
///   of 0 for the re-engagement's conversions alone (``reengage(failed:)``).
///
/// AdAttributionKit is linked weakly, so the SDK still runs from iOS 15: by `@_weakLinked
/// import`, which makes every reference to the framework weak, so the linker loads it with
/// `LC_LOAD_WEAK_DYLIB`, under SwiftPM and CocoaPods alike. Neither manifest names it: the SDKs
/// of Xcode before 15.3, which both take, do not have it, and a link that names it fails there.
///
/// The updates reach Apple in the order the SDK made them: SKAdNetwork's calls are made in
/// turn; AdAttributionKit's are asynchronous, so each waits for the one before
/// (``SerialTasks``): a lower value never lands after a higher one, nor an update after the
/// lock.
final class AppleConversionValues: ConversionValueSink {
    private let attributionKitCalls = SerialTasks()

    func register(failed: @escaping @Sendable (String) -> Void) {
        #if os(iOS)
        // Fine value 0, no coarse value: the first launch is verified, nothing is claimed.
        if #available(iOS 15.4, *) {
            SKAdNetwork.updatePostbackConversionValue(0) { error in
                if let error = error { failed("SKAdNetwork: \(error.localizedDescription)") }
            }
        } else {
            // Before 15.4 this is the call that registers the first launch: without one, Apple
            // makes no postback at all for the install.
            SKAdNetwork.registerAppForAdNetworkAttribution()
        }
        #endif
        #if os(iOS) && canImport(AdAttributionKit)
        if #available(iOS 17.4, *) {
            attributionKitCalls.run {
                do {
                    try await AppleConversionValues.updateInstall(0, coarse: nil, lock: false)
                } catch {
                    failed("AdAttributionKit: \(error.localizedDescription)")
                }
            }
        }
        #endif
    }

    func update(_ call: ConversionCall, failed: @escaping @Sendable (String) -> Void) {
        #if os(iOS)
        // Later windows have no fine value: Apple reads their coarse one, and takes 0 here.
        let fine = call.fine ?? 0
        if #available(iOS 16.1, *) {
            let coarse = AppleConversionValues.storeKitCoarse(call.coarse)
            SKAdNetwork.updatePostbackConversionValue(fine, coarseValue: coarse, lockWindow: call.lock) { error in
                if let error = error { failed("SKAdNetwork: \(error.localizedDescription)") }
            }
        } else if #available(iOS 15.4, *) {
            if call.window == 0, let value = call.fine {
                SKAdNetwork.updatePostbackConversionValue(value) { error in
                    if let error = error { failed("SKAdNetwork: \(error.localizedDescription)") }
                }
            }
        } else if call.window == 0, let value = call.fine {
            // Before 15.4 (SKAdNetwork 3, one postback): the first window's fine value, by the
            // call those versions have, which answers nothing.
            SKAdNetwork.updateConversionValue(value)
        }
        #endif
        #if os(iOS) && canImport(AdAttributionKit)
        if #available(iOS 17.4, *) {
            let coarse = call.coarse
            let lock = call.lock
            attributionKitCalls.run {
                do {
                    try await AppleConversionValues.updateInstall(fine, coarse: coarse, lock: lock)
                } catch {
                    failed("AdAttributionKit: \(error.localizedDescription)")
                }
            }
        }
        #endif
    }

    func reengage(failed: @escaping @Sendable (String) -> Void) {
        // Re-engagements exist from iOS 18, and so does the update that names its conversions
        // (`PostbackUpdate`, in the iOS 18 SDK, which Xcode 16's Swift 6 compiler brings): with
        // an older Xcode, or below iOS 18, nothing is done. The fine value 0 claims nothing: it
        // is the update after the open that Apple needs to send the re-engagement's postback.
        #if os(iOS) && canImport(AdAttributionKit) && compiler(>=6.0)
        if #available(iOS 18.0, *) {
            attributionKitCalls.run {
                do {
                    // The re-engagement's conversions alone: the install's postbacks keep the
                    // values the schema gave them.
                    let update = PostbackUpdate(fineConversionValue: 0, lockPostback: false, conversionTypes: [.reengagement])
                    try await Postback.updateConversionValue(update)
                } catch {
                    failed("AdAttributionKit: \(error.localizedDescription)")
                }
            }
        }
        #endif
    }

    #if os(iOS) && canImport(AdAttributionKit)
    /// AdAttributionKit's update of the install's conversions; nothing before iOS 17.4. From
    /// iOS 18 an update without conversion types reaches every conversion of the app, the
    /// re-engagements' too, whose windows start at the re-engagement and which the schema (the
    /// install's windows, from the first open) does not describe: so there the update names
    /// `.install` alone. Before iOS 18 there is no re-engagement and no `PostbackUpdate`, and
    /// the 17.4 forms, which name no type, reach the install's conversions only. A compiler
    /// older than Swift 6 (Xcode 15) has no iOS 18 SDK: an app built with it sends the 17.4
    /// forms on every iOS, as before, and makes no re-engagement update at all.
    private static func updateInstall(_ fine: Int, coarse: CoarseValue?, lock: Bool) async throws {
        #if compiler(>=6.0)
        if #available(iOS 18.0, *) {
            let update = PostbackUpdate(
                fineConversionValue: fine,
                lockPostback: lock,
                coarseConversionValue: coarse.map(AppleConversionValues.attributionKitCoarse),
                conversionTypes: [.install]
            )
            try await Postback.updateConversionValue(update)
            return
        }
        #endif
        if #available(iOS 17.4, *) {
            if let coarse = coarse {
                try await Postback.updateConversionValue(fine, coarseConversionValue: attributionKitCoarse(coarse), lockPostback: lock)
            } else {
                try await Postback.updateConversionValue(fine, lockPostback: lock)
            }
        }
    }
    #endif

    #if os(iOS)
    @available(iOS 16.1, *)
    private static func storeKitCoarse(_ value: CoarseValue) -> SKAdNetwork.CoarseConversionValue {
        switch value {
        case .low: return .low
        case .medium: return .medium
        case .high: return .high
        }
    }
    #endif

    #if os(iOS) && canImport(AdAttributionKit)
    @available(iOS 17.4, *)
    private static func attributionKitCoarse(_ value: CoarseValue) -> CoarseConversionValue {
        switch value {
        case .low: return .low
        case .medium: return .medium
        case .high: return .high
        }
    }
    #endif
}

/// Asynchronous work run one at a time, in the order it was handed over: each piece starts once
/// the one before has ended, whatever the threads it was handed over from.
final class SerialTasks {
    private let lock = NSLock()
    private var last: Task<Void, Never>?

    func run(_ work: @escaping @Sendable () async -> Void) {
        lock.lock()
        defer { lock.unlock() }
        let previous = last
        last = Task {
            await previous?.value
            await work()
        }
    }
}
