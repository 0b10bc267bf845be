import Foundation

/// The SDK's storage: one small file per key in Application Support/com.service.attribution,
/// excluded from backups (a backup restored onto another phone must not carry this install's
/// identity: the IDFV changes with the device, so would the install). The exclusion is asked
/// for at the first write of each process and again at each later write until it holds; a
/// failure is reported (once for a run of them). Should a state reach another device all the
/// same, `configure` tells it by the IDFV kept beside the `service_id`, and forgets it. Files
/// are readable from the first unlock after a reboot on, as iOS protects an app's files by
/// default. Thread-safe: the worker and attribution queues both use it.
final class FileStore: KeyValueStore {
    private let directory: URL
    private let lock = NSLock()
    private var cache: [String: String?] = [:]
    private var writeFailed: ((String) -> Void)?
    /// A write failed since the last one that reached the disk: one warning for a run of them.
    private var failing = false
    /// What failed before anyone listened (a write before `configure`), said once one does.
    private var unreported: [String] = []

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
        writeFailed = report
        let earlier = unreported
        unreported.removeAll()
        lock.unlock()
        earlier.forEach(report)
    }

    func put(_ key: String, _ value: String) {
        lock.lock()
        cache[key] = .some(value)
        var failures: [String] = []
        do {
            try prepareDirectory()
            if let exclusion = excludeFromBackups() { failures.append(exclusion) }
            var options: Data.WritingOptions = [.atomic]
            #if os(iOS)
            options.insert(.completeFileProtectionUntilFirstUserAuthentication)
            #endif
            try Data(value.utf8).write(to: file(key), options: options)
            failing = false
        } catch {
            // Kept in memory for this process; the next write tries the disk again. Said once
            // for a run of failures: a full disk fails every write, and each event is one.
            if !failing { failures.append("the SDK's state was not saved (\(key)): \(error.localizedDescription); it is kept in memory and written again with the next change, but lost if the app ends first") }
            failing = true
        }
        let report = writeFailed
        if report == nil { unreported = Array((unreported + failures).suffix(4)) }
        lock.unlock()
        if let report = report { failures.forEach(report) }
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

    /// Under `lock`: the folder was made in this process.
    private var prepared = false
    /// Under `lock`: the folder is excluded from backups (asked for in this process).
    private var excluded = false
    /// Under `lock`: the exclusion failed since it last held; one warning for a run of them.
    private var exclusionFailing = false

    private func prepareDirectory() throws {
        if prepared { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: nil)
        prepared = true
    }

    /// Under `lock`, once the folder exists: excludes it from backups (iCloud, a computer's),
    /// until that holds; tried again at each write after a failure. The warning to report, once
    /// for a run of failures, or nil.
    private func excludeFromBackups() -> String? {
        if excluded { return nil }
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        do {
            try url.setResourceValues(values)
            excluded = true
            exclusionFailing = false
            return nil
        } catch {
            if exclusionFailing { return nil }
            exclusionFailing = true
            return "the SDK's folder could not be excluded from backups (\(error.localizedDescription)): tried again with the next write; meanwhile a backup may carry this install's state to another device, where the SDK forgets it (its IDFV differs) and tracks a new install"
        }
    }
}
