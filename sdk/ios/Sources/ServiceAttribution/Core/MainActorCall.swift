import Foundation

/// Runs the app's main-actor code (the listeners, the delegate: ``ServiceAttributionDelegate``
/// and the listener closures are `@MainActor`) from the closures the core hands to its
/// `mainThread`, which runs them on the main thread: `DispatchQueue.main` in an app
/// (``Platform/mainThread``), a queue of their own standing for it in the tests.
///
/// `MainActor.assumeIsolated` (Swift 5.9) checks the thread and runs the code isolated; the
/// main thread counts as the main actor outside a task from iOS 17 and macOS 14 on, so it is
/// used there. Elsewhere (iOS 15 to 16, Swift 5.7 and 5.8, the tests' queue) the code runs as
/// `assumeIsolated` runs it after its check: the isolation is a compile-time property of a
/// synchronous function, with the same calling convention without it, so the closure is called
/// as a plain one. Only the core calls this, always through `mainThread`, and the device's
/// read of UIKit's IDFV, always on the main thread.
enum MainActorCall {
    static func run(_ body: @MainActor () -> Void) {
        #if compiler(>=5.9)
        if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *), Thread.isMainThread {
            MainActor.assumeIsolated(body)
            return
        }
        #endif
        typealias Isolated = @MainActor () -> Void
        typealias Plain = () -> Void
        withoutActuallyEscaping(body) { (isolated: @escaping Isolated) in
            let plain = unsafeBitCast(isolated, to: Plain.self)
            plain()
        }
    }
}
