import Foundation

/// When a session starts (sdk/conformance/sessions.json), with no platform type: the core drives
/// it with the app's lifecycle and the SDK's state, each step at the device clock's time, and
/// queues a session each time a step returns one. Sessions feed retention and active users; they
/// are not events.
///
/// A session starts at a launch (the process starts and `configure` runs), however soon after the
/// last one; when the app comes back to the foreground after at least `intervalSeconds` in the
/// background (a return after less continues the session); and when the SDK is started again
/// after `stop`. Going to the background ends nothing on the wire. Nothing starts while the SDK
/// is stopped or switched off, and a launch or a return in that state owes no session later
/// either: switching on again starts none by itself.
///
/// A launch in the background (iOS launches an app for a silent push, a background fetch, a
/// location update) is no visit of the user: its session starts when the app first comes to the
/// foreground, as a launch's would. So does one made while the SDK is off only as an earlier
/// launch's configuration says, once this launch's own read switches it on (`oweLaunch`).
struct SessionTracker {
    /// The interval until a configuration gives one (sessions.json's
    /// `defaultSessionIntervalSeconds`).
    static let defaultIntervalSeconds: Int64 = 1_800

    /// How long the app must be away, in seconds, for its return to start a session: the remote
    /// configuration's `session_interval_seconds`.
    var intervalSeconds: Int64
    /// `stop`, until `restart`.
    private(set) var isStopped = false
    /// Switched off by remote configuration (or the install's data deleted), until `enable`.
    private(set) var isDisabled = false
    private var inForeground = false
    /// When the app went to the background; nil while it is in the foreground.
    private var backgroundSince: Date?
    /// A launch or a start again made while the app was in the background: its next return to
    /// the foreground starts the session, however soon.
    private var owed = false

    init(intervalSeconds: Int64 = SessionTracker.defaultIntervalSeconds) {
        self.intervalSeconds = intervalSeconds
    }

    private var isOn: Bool {
        return !isStopped && !isDisabled
    }

    /// The process started and `configure` ran: the session starting now, if any. What came
    /// before (an earlier process's time away) does not count; `stop` and a switch-off stand.
    mutating func launch(at time: Date, inForeground: Bool) -> Date? {
        self.inForeground = inForeground
        backgroundSince = inForeground ? nil : time
        owed = false
        guard isOn else { return nil }
        if inForeground { return time }
        owed = true
        return nil
    }

    /// The app went to the background: nothing on the wire; the time away counts from now.
    mutating func enterBackground(at time: Date) {
        guard inForeground else { return }
        inForeground = false
        backgroundSince = time
    }

    /// The app came back to the foreground: the session starting now, when the app was away at
    /// least the interval or one is owed.
    mutating func enterForeground(at time: Date) -> Date? {
        guard !inForeground else { return nil }
        inForeground = true
        let away = backgroundSince.map { time.timeIntervalSince($0) } ?? 0
        backgroundSince = nil
        let due = owed || away >= TimeInterval(max(intervalSeconds, 1))
        owed = false
        return isOn && due ? time : nil
    }

    /// `stop`: nothing starts until `restart`.
    mutating func stop() {
        isStopped = true
        owed = false
    }

    /// `start` after `stop`: the session starting now, as at a launch (in the background, at the
    /// next return to the foreground). Nil when the SDK was not stopped.
    mutating func restart(at time: Date) -> Date? {
        guard isStopped else { return nil }
        isStopped = false
        guard !isDisabled else { return nil }
        if inForeground { return time }
        owed = true
        return nil
    }

    /// A configuration with `enabled: false` (or a rejected key, or the install's data deleted):
    /// nothing starts until `enable`.
    mutating func disable() {
        isDisabled = true
        owed = false
    }

    /// A configuration with the SDK on again: no session by itself; the next return after the
    /// interval starts one.
    mutating func enable() {
        isDisabled = false
    }

    /// A launch in the background while the SDK was off only as an earlier launch's
    /// configuration said, switched on by this launch's own read before the app came to the
    /// foreground: its session is owed to the first return, however soon, as a background
    /// launch's is. Nothing while stopped or switched off, or once in the foreground.
    mutating func oweLaunch() {
        guard isOn, !inForeground else { return }
        owed = true
    }
}
