import Foundation
#if os(iOS)
import UIKit
#endif

/// The app's lifecycle on iOS, from UIKit's notifications: `didEnterBackgroundNotification`,
/// `willEnterForegroundNotification` and `didBecomeActiveNotification`, which UIKit posts on the
/// main thread for the app as a whole (with scenes too: once the last scene leaves the
/// foreground, once the first comes back; active again also once a system alert, such as App
/// Tracking Transparency's prompt, is answered). The
/// app adds nothing: the SDK observes them from `configure` on. On macOS, where only the tests
/// run, the process counts as always in the foreground.
final class UIKitLifecycle: AppLifecycle {
    private let lock = NSLock()
    private var observers: [NSObjectProtocol] = []

    /// False for an app UIKit launched in the background (a silent push, a background fetch), whose
    /// session starts when it first comes to the foreground. Read on the main thread, where
    /// `configure` runs; elsewhere, and in an app extension, the app counts as in the foreground.
    var isInForeground: Bool {
        #if os(iOS)
        guard Thread.isMainThread, let application = UIKitLifecycle.application else { return true }
        return application.applicationState != .background
        #else
        return true
        #endif
    }

    func observe(background: @escaping () -> Void, foreground: @escaping () -> Void, active: @escaping () -> Void) {
        #if os(iOS)
        let center = NotificationCenter.default
        // No queue: each block runs at once on the posting thread, the main thread.
        let added = [
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in background() },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in foreground() },
            center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil) { _ in active() },
        ]
        lock.lock()
        observers += added
        lock.unlock()
        #endif
    }

    /// A background task of UIKit's (`beginBackgroundTask(withName:expirationHandler:)`), on the
    /// main thread, for the app's `UIApplication` looked up at run time: none in an app
    /// extension (where `configure` is refused anyway) or off the main thread.
    func beginBackgroundTime(expired: @escaping () -> Void) -> (() -> Void)? {
        #if os(iOS)
        guard Thread.isMainThread, let application = UIKitLifecycle.application else { return nil }
        let task = BackgroundTask(application: application)
        guard task.begin(expired: expired) else { return nil }
        return { task.end() }
        #else
        return nil
        #endif
    }

    deinit {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    #if os(iOS)
    /// One background task, ended exactly once, on the main thread: its identifier is UIKit's
    /// bookkeeping of the main thread's, read and written there only (`begin` runs there, UIKit
    /// calls the expiration handler there, `end` goes there).
    private final class BackgroundTask {
        private let application: UIApplication
        private var identifier: UIBackgroundTaskIdentifier = .invalid

        init(application: UIApplication) {
            self.application = application
        }

        /// On the main thread; false when UIKit lent no time (`.invalid`). The expiration
        /// handler tells `expired`, then ends the task before it returns, as UIKit requires.
        func begin(expired: @escaping () -> Void) -> Bool {
            identifier = application.beginBackgroundTask(withName: "ServiceAttribution: sending what is queued") {
                expired()
                self.endOnMainThread()
            }
            return identifier != .invalid
        }

        /// From any thread: ends the task on the main thread, unless it was ended already.
        func end() {
            if Thread.isMainThread {
                endOnMainThread()
            } else {
                DispatchQueue.main.async { self.endOnMainThread() }
            }
        }

        private func endOnMainThread() {
            guard identifier != .invalid else { return }
            let ending = identifier
            identifier = .invalid
            application.endBackgroundTask(ending)
        }
    }

    /// The app's `UIApplication`, looked up at run time: `UIApplication.shared` may not be used
    /// in an app extension, and there is none before UIKit has made it.
    private static var application: UIApplication? {
        let selector = NSSelectorFromString("sharedApplication")
        guard UIApplication.responds(to: selector), let unmanaged = UIApplication.perform(selector) else { return nil }
        return unmanaged.takeUnretainedValue() as? UIApplication
    }
    #endif
}

/// The first unlock after a reboot, from UIKit's `protectedDataDidBecomeAvailableNotification`:
/// an app woken in the background before it cannot read its files, so the SDK waits for it. On
/// macOS, where only the tests run, nothing is protected and the call never comes.
final class UIKitProtectedData: ProtectedDataAvailability {
    private let lock = NSLock()
    private var observers: [NSObjectProtocol] = []

    func whenAvailable(_ available: @escaping () -> Void) {
        #if os(iOS)
        let center = NotificationCenter.default
        let once = Once()
        let observer = center.addObserver(forName: UIApplication.protectedDataDidBecomeAvailableNotification, object: nil, queue: nil) { _ in
            if once.claim() { available() }
        }
        lock.lock()
        observers.append(observer)
        lock.unlock()
        #endif
    }

    deinit {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    /// True the first time only.
    private final class Once {
        private let lock = NSLock()
        private var claimed = false

        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if claimed { return false }
            claimed = true
            return true
        }
    }
}
