import Foundation

/// The SDK's storage: one small file per key in Application Support/com.service.attribution,
/// excluded from backups (a backup restored onto another phone must not carry this install's
/// identity: the IDFV changes with the device, so would the install). Files are readable from
/// the first unlock after a reboot on, as iOS protects an app's files by default. Thread-safe:
/// the worker and attribution queues both use it.
final class FileStore: KeyValueStore {
    private let directory: URL
    private let lock = NSLock()
    private var cache: [String: String?] = [:]
    private var writeFailed: ((String) -> Void)?
    /// A write failed since the last one that reached the disk: one warning for a run of them.
    private var failing = false

    init(directory: URL) {
        self.directory = directory
    }

    /// Application Support/com.service.attribution (Caches when Application Support is missing).
    static func standard() -> FileStore {
        let manager = FileManager.default
        let base = manager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? manager.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        return FileStore(directory: base.appendingPathComponent("com.service.attribution", isDirectory: true))
    }

    /// False while files written earlier cannot be read: an app woken in the background before
    /// the first unlock after a reboot. `configure` then waits for the unlock
    /// (``ProtectedDataAvailability``), events held in memory, rather than take the install for
    /// a new one.
    var isAvailable: Bool {
        let probe = file("service_id")
        guard FileManager.default.fileExists(atPath: probe.path) else { return true }
        return (try? Data(contentsOf: probe)) != nil
    }

    func get(_ key: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        let value = (try? Data(contentsOf: file(key))).map { String(decoding: $0, as: UTF8.self) }
        cache[key] = .some(value)
        return value
    }

    func reportWriteFailures(to report: @escaping (String) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        writeFailed = report
    }

    func put(_ key: String, _ value: String) {
        lock.lock()
        cache[key] = .some(value)
        var failure: String?
        do {
            try prepareDirectory()
            var options: Data.WritingOptions = [.atomic]
            #if os(iOS)
            options.insert(.completeFileProtectionUntilFirstUserAuthentication)
            #endif
            try Data(value.utf8).write(to: file(key), options: options)
            failing = false
        } catch {
            // Kept in memory for this process; the next write tries the disk again. Said once
            // for a run of failures: a full disk fails every write, and each event is one.
            if !failing { failure = "the SDK's state was not saved (\(key)): \(error.localizedDescription); it is kept in memory and written again with the next change, but lost if the app ends first" }
            failing = true
        }
        let report = writeFailed
        lock.unlock()
        if let message = failure { report?(message) }
    }

    func remove(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        cache[key] = .some(nil)
        try? FileManager.default.removeItem(at: file(key))
    }

    private func file(_ key: String) -> URL {
        return directory.appendingPathComponent(key, isDirectory: false)
    }

    private var prepared = false

    private func prepareDirectory() throws {
        if prepared { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: nil)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        try? url.setResourceValues(values)
        prepared = true
    }
}
