import Foundation
#if os(iOS)
import StoreKit
#endif
#if os(iOS) && canImport(AdAttributionKit)
// Weakly linked (LC_LOAD_WEAK_DYLIB): AdAttributionKit exists from iOS 17.4 only, and a
// Swift-only framework may otherwise be linked strongly under SwiftPM, which would keep the app
// from launching before 17.4. Every use is behind `#available(iOS 17.4, *)`. (Its SDK needs
// Xcode 15.3, whose Swift 5.10 knows `@_weakLinked import`.)
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
/// - Before iOS 15.4: nothing. The calls there are deprecated, and their postbacks carry the
///   same fine value the 15.4 call does, for a share of devices too small to weigh.
/// - iOS 17.4 and later, also: `Postback.updateConversionValue(_:coarseConversionValue:lockPostback:)`.
///
/// AdAttributionKit is linked weakly, so the SDK still runs from iOS 13: by the podspec's
/// `weak_frameworks` under CocoaPods, and under SwiftPM by `@_weakLinked import`, which makes
/// every reference to the framework weak, so the linker loads it with `LC_LOAD_WEAK_DYLIB`.
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
        }
        #endif
        #if os(iOS) && canImport(AdAttributionKit)
        if #available(iOS 17.4, *) {
            attributionKitCalls.run {
                do {
                    try await Postback.updateConversionValue(0, lockPostback: false)
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
        }
        #endif
        #if os(iOS) && canImport(AdAttributionKit)
        if #available(iOS 17.4, *) {
            let coarse = AppleConversionValues.attributionKitCoarse(call.coarse)
            let lock = call.lock
            attributionKitCalls.run {
                do {
                    try await Postback.updateConversionValue(fine, coarseConversionValue: coarse, lockPostback: lock)
                } catch {
                    failed("AdAttributionKit: \(error.localizedDescription)")
                }
            }
        }
        #endif
    }

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
