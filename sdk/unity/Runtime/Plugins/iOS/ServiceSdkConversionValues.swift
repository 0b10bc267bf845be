// The conversion values the C# core's evaluation makes (Runtime/Core/ConversionValues.cs), handed
// to Apple for the Unity layer (Runtime/Unity/UnityServices.cs, through [DllImport("__Internal")]):
// each update goes to SKAdNetwork and, from iOS 17.4, to AdAttributionKit too, whose API is Swift
// only, hence this file beside the Objective-C one. Both answer later; a refusal comes back
// through `refused` (a C function the C# side marks MonoPInvokeCallback) with Apple's message.
//
// - iOS 16.1 and later: SKAdNetwork.updatePostbackConversionValue(_:coarseValue:lockWindow:).
// - iOS 15.4 to 16.0: updatePostbackConversionValue(_:), the first window's fine value alone
//   (SKAdNetwork 3: one postback, fine values only).
// - Before iOS 15.4: registerAppForAdNetworkAttribution() at the first launch, and from iOS 14
//   updateConversionValue(_:) with the first window's fine value (without a call at the first
//   launch Apple makes no postback at all for the install).
// - iOS 17.4 and later, also: Postback.updateConversionValue(_:coarseConversionValue:lockPostback:);
//   from iOS 18, Postback.updateConversionValue(_:) with a PostbackUpdate naming the install's
//   conversions alone (`conversionTypes: [.install]`), as the iOS SDK does. On iOS 18 an update
//   naming no conversion type reaches re-engagement postbacks too, whose windows start at the
//   re-engagement and which the schema (the install's windows) does not describe. PostbackUpdate
//   comes with the iOS 18 SDK (Xcode 16, Swift 6): an app built with an older Xcode sends the
//   17.4 forms on every iOS.
// - iOS 18 and later, at an AdAttributionKit re-engagement open (ServiceSdkReengageConversion):
//   one Postback.updateConversionValue(_:) with a PostbackUpdate of fine value 0, unlocked, for
//   the re-engagement's conversions alone (`conversionTypes: [.reengagement]`), as the iOS SDK
//   does. Below iOS 18, or in an app built with an older Xcode, nothing.
//
// AdAttributionKit (iOS 17.4) is linked weakly by its import below, as in the iOS SDK, and every
// use is behind #available, so the app still launches on older iOS. Its calls are asynchronous:
// each waits for the one before, so that they reach Apple in the order the core made them (a
// lower value never after a higher one, nor an update after the lock).
import Foundation
import StoreKit
#if canImport(AdAttributionKit)
// Weakly linked (LC_LOAD_WEAK_DYLIB): AdAttributionKit exists from iOS 17.4 only, and a
// Swift-only framework may otherwise be linked strongly, which would keep the app from launching
// before 17.4. The framework is named nowhere else (not in the Editor's post-build step): the
// SDKs of Xcode before 15.3 do not have it, and a link that names it fails there (`ld:
// framework not found AdAttributionKit`); with those, this file builds without it and calls
// SKAdNetwork alone. (Its SDK needs Xcode 15.3, whose Swift 5.10 knows `@_weakLinked import`.)
@_weakLinked import AdAttributionKit
#endif

/// Apple's refusal, as a NUL-terminated UTF-8 string valid for the call only.
public typealias ServiceSdkRefused = @convention(c) (UnsafePointer<CChar>?) -> Void

private func serviceSdkReport(_ refused: ServiceSdkRefused?, _ message: String) {
    guard let refused = refused else { return }
    message.withCString { refused($0) }
}

/// Asynchronous calls run one at a time, in the order they were handed over.
private final class ServiceSdkInOrder: @unchecked Sendable {
    private let lock = NSLock()
    /// The last call handed over: a `Task<Void, Never>`, typed loosely for iOS before 13.
    private var last: Any?

    @available(iOS 13.0, *)
    func run(_ work: @escaping @Sendable () async -> Void) {
        lock.lock()
        defer { lock.unlock() }
        let previous = last as? Task<Void, Never>
        last = Task {
            await previous?.value
            await work()
        }
    }
}

private let serviceSdkAttributionKitCalls = ServiceSdkInOrder()

#if canImport(AdAttributionKit)
/// AdAttributionKit's coarse value: 0 low, 1 medium, 2 high.
@available(iOS 17.4, *)
private func serviceSdkCoarse(_ coarse: Int32) -> CoarseConversionValue {
    return coarse >= 2 ? .high : coarse == 1 ? .medium : .low
}

/// AdAttributionKit's update of the install's conversions; nothing before iOS 17.4. `coarse`
/// 0 low, 1 medium, 2 high, or nil for none.
@available(iOS 13.0, *)
private func serviceSdkUpdateInstall(_ fine: Int, coarse: Int32?, lock: Bool) async throws {
    #if compiler(>=6.0)
    if #available(iOS 18.0, *) {
        let update = PostbackUpdate(
            fineConversionValue: fine,
            lockPostback: lock,
            coarseConversionValue: coarse.map(serviceSdkCoarse),
            conversionTypes: [.install]
        )
        try await Postback.updateConversionValue(update)
        return
    }
    #endif
    if #available(iOS 17.4, *) {
        if let coarse = coarse {
            try await Postback.updateConversionValue(fine, coarseConversionValue: serviceSdkCoarse(coarse), lockPostback: lock)
        } else {
            try await Postback.updateConversionValue(fine, lockPostback: lock)
        }
    }
}
#endif

/// The install's first launch told to Apple: fine value 0, no coarse value, nothing claimed.
@_cdecl("ServiceSdkRegisterConversion")
public func serviceSdkRegisterConversion(_ refused: ServiceSdkRefused?) {
    if #available(iOS 15.4, *) {
        SKAdNetwork.updatePostbackConversionValue(0) { error in
            if let error = error { serviceSdkReport(refused, "SKAdNetwork: \(error.localizedDescription)") }
        }
    } else {
        SKAdNetwork.registerAppForAdNetworkAttribution()
    }
    #if canImport(AdAttributionKit)
    if #available(iOS 17.4, *) {
        serviceSdkAttributionKitCalls.run {
            do {
                try await serviceSdkUpdateInstall(0, coarse: nil, lock: false)
            } catch {
                serviceSdkReport(refused, "AdAttributionKit: \(error.localizedDescription)")
            }
        }
    }
    #endif
}

/// One update: `window` 0 to 2; `fine` 0 to 63, or -1 in later windows (Apple then reads the
/// coarse value, and takes 0); `coarse` 0 low, 1 medium, 2 high; `lockWindow` 1 to lock.
@_cdecl("ServiceSdkUpdateConversionValue")
public func serviceSdkUpdateConversionValue(
    _ window: Int32,
    _ fine: Int32,
    _ coarse: Int32,
    _ lockWindow: Int32,
    _ refused: ServiceSdkRefused?
) {
    let value = fine < 0 ? 0 : Int(fine)
    let lock = lockWindow != 0
    if #available(iOS 16.1, *) {
        let level: SKAdNetwork.CoarseConversionValue = coarse >= 2 ? .high : coarse == 1 ? .medium : .low
        SKAdNetwork.updatePostbackConversionValue(value, coarseValue: level, lockWindow: lock) { error in
            if let error = error { serviceSdkReport(refused, "SKAdNetwork: \(error.localizedDescription)") }
        }
    } else if #available(iOS 15.4, *) {
        if window == 0 && fine >= 0 {
            SKAdNetwork.updatePostbackConversionValue(value) { error in
                if let error = error { serviceSdkReport(refused, "SKAdNetwork: \(error.localizedDescription)") }
            }
        }
    } else if #available(iOS 14.0, *), window == 0 && fine >= 0 {
        SKAdNetwork.updateConversionValue(value)
    }
    #if canImport(AdAttributionKit)
    if #available(iOS 17.4, *) {
        serviceSdkAttributionKitCalls.run {
            do {
                try await serviceSdkUpdateInstall(value, coarse: coarse, lock: lock)
            } catch {
                serviceSdkReport(refused, "AdAttributionKit: \(error.localizedDescription)")
            }
        }
    }
    #endif
}

/// An AdAttributionKit re-engagement opened the app (its URL's query names
/// `AdAttributionKitReengagementOpen`, `Postback.reengagementOpenURLParameter`): one update with
/// a fine value of 0 for the re-engagement's conversions alone. The fine value 0 claims nothing:
/// it is the update after the open that Apple needs to send the re-engagement's postback, and the
/// install's postbacks keep the values the schema gave them. Re-engagements exist from iOS 18,
/// and so does the update that names its conversions (`PostbackUpdate`, in the iOS 18 SDK, which
/// Xcode 16's Swift 6 compiler brings): below iOS 18, or built with an older Xcode, nothing is
/// done and `refused` is not called. On AdAttributionKit's queue, after the updates before it.
@_cdecl("ServiceSdkReengageConversion")
public func serviceSdkReengageConversion(_ refused: ServiceSdkRefused?) {
    #if canImport(AdAttributionKit) && compiler(>=6.0)
    if #available(iOS 18.0, *) {
        serviceSdkAttributionKitCalls.run {
            do {
                let update = PostbackUpdate(fineConversionValue: 0, lockPostback: false, conversionTypes: [.reengagement])
                try await Postback.updateConversionValue(update)
            } catch {
                serviceSdkReport(refused, "AdAttributionKit: \(error.localizedDescription)")
            }
        }
    }
    #endif
}
