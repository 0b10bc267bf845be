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
        writing(key, first: { cache[key] = .some(value) }, write: { try writeWhole(value, key) })
    }

    func remove(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        cache[key] = .some(nil)
        try? FileManager.default.removeItem(at: file(key))
        if FileManager.default.fileExists(atPath: file(key).path) {
            unwritten.insert(key)
        } else {
            unwritten.remove(key)
        }
    }

    /// Adds the lines at the end of the key's file, without writing again what it holds: an
    /// event added to a queue of a thousand costs what the event does. A key whose last write
    /// did not reach the disk is written whole instead, from memory, so that the file catches up.
    func append(_ key: String, lines: [String]) {
        if lines.isEmpty { return }
        let text = lines.map { $0 + "\n" }.joined()
        var inMemory = false
        writing(key, write: {
            if unwritten.contains(key) || !FileManager.default.fileExists(atPath: file(key).path) {
                let whole = (current(key) ?? "") + text
                cache[key] = .some(whole)
                inMemory = true
                try writeWhole(whole, key)
            } else {
                try appendBytes(Array(text.utf8), key)
                // Read from the file at the next get: the queue keeps its items in memory, and
                // a copy of a long file here would cost what the append saves.
                cache.removeValue(forKey: key)
            }
        }, kept: {
            // As for put: kept in memory, and on the disk with the key's next write.
            if !inMemory { cache[key] = .some((current(key) ?? "") + text) }
        })
    }

    /// A write of the key: under `lock`, `first`, then the folder made and excluded from
    /// backups, then `write`; should any of it fail, `kept` (the value in memory for this
    /// process) and a warning, said once the lock is let go (once for a run of failures: a full
    /// disk fails every write, and each event is one). A key whose write failed is written whole
    /// at its next append.
    private func writing(_ key: String, first: () -> Void = {}, write: () throws -> Void, kept: () -> Void = {}) {
        lock.lock()
        first()
        var failures: [String] = []
        do {
            try prepareDirectory()
            if let exclusion = excludeFromBackups() { failures.append(exclusion) }
            try write()
            unwritten.remove(key)
            failing = false
        } catch {
            kept()
            unwritten.insert(key)
            failures.append(contentsOf: failed(key, error))
        }
        let report = writeFailed
        if report == nil { unreported = Array((unreported + failures).suffix(4)) }
        lock.unlock()
        if let report = report { failures.forEach(report) }
    }

    /// Under `lock`: the key's value as this process knows it, from memory or from its file.
    private func current(_ key: String) -> String? {
        if let cached = cache[key] { return cached }
        return (try? Data(contentsOf: file(key))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Under `lock`: the file replaced whole (written beside it, then moved over it).
    private func writeWhole(_ value: String, _ key: String) throws {
        var options: Data.WritingOptions = [.atomic]
        #if os(iOS)
        options.insert(.completeFileProtectionUntilFirstUserAuthentication)
        #endif
        try Data(value.utf8).write(to: file(key), options: options)
    }

    /// Under `lock`: the bytes added at the end of the key's file, which exists. A line an
    /// earlier process left cut short (killed as it wrote) is ended first, so that it is lost
    /// alone; a write that fails is taken back, so that the file is as it was.
    private func appendBytes(_ added: [UInt8], _ key: String) throws {
        let descriptor = open(file(key).path, O_RDWR | O_APPEND)
        if descriptor < 0 { throw FileStore.posixError() }
        defer { _ = close(descriptor) }
        let end = lseek(descriptor, 0, SEEK_END)
        if end < 0 { throw FileStore.posixError() }
        var bytes = added
        if end > 0 {
            var last: UInt8 = 0
            if pread(descriptor, &last, 1, end - 1) == 1, last != UInt8(ascii: "\n") {
                bytes.insert(UInt8(ascii: "\n"), at: 0)
            }
        }
        var done = 0
        while done < bytes.count {
            let count = bytes[done...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = FileStore.posixError()
                _ = ftruncate(descriptor, end)
                throw error
            }
            done += count
        }
    }

    private static func posixError() -> POSIXError {
        return POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// Under `lock`: the warning for a write that failed, none while a run of failures goes on.
    private func failed(_ key: String, _ error: Error) -> [String] {
        defer { failing = true }
        if failing { return [] }
        return ["the SDK's state was not saved (\(key)): \(error.localizedDescription); it is kept in memory and written again with the next change, but lost if the app ends first"]
    }

    private func file(_ key: String) -> URL {
        return directory.appendingPathComponent(key, isDirectory: false)
    }

    /// Under `lock`: the keys whose last write did not reach the disk, their value in memory.
    private var unwritten = Set<String>()

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
