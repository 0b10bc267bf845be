import Foundation
#if os(iOS)
import UIKit
#endif

/// The app's lifecycle on iOS, from UIKit's notifications: `didEnterBackgroundNotification` and
/// `willEnterForegroundNotification`, which UIKit posts on the main thread for the app as a whole
/// (with scenes too: once the last scene leaves the foreground, once the first comes back). The
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

    func observe(background: @escaping () -> Void, foreground: @escaping () -> Void) {
        #if os(iOS)
        let center = NotificationCenter.default
        // No queue: each block runs at once on the posting thread, the main thread.
        let added = [
            center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in background() },
            center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in foreground() },
        ]
        lock.lock()
        observers += added
        lock.unlock()
        #endif
    }

    deinit {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    #if os(iOS)
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
