import Foundation

/// Events (or sessions, ``Kind/sessions``) waiting to be sent, in the order they were sent,
/// written to the store before `add` returns, so that an app killed while offline sends them at
/// its next launch. Kept a JSON object a line: `add` appends its lines (`sendEvent` costs the
/// same with a thousand events queued as with none), and the queue is written whole when items
/// leave it, on the worker, or once for every `max` items the bound drops. Each keeps its id
/// (`event_id`, `session_id`), so a request that reached the service but whose answer was lost
/// is sent again and deduplicated there. Thread-safe:
/// `sendEvent` and the app's lifecycle add on the app's thread while the worker sends; the worker
/// removes what it sent by id, never by position, so an item dropped or added meanwhile is never
/// mistaken for another.
final class EventQueue {
    /// What a queue holds: where the store keeps it, and the field that names each item.
    struct Kind {
        let key: String
        let idField: String

        static let events = Kind(key: "event_queue", idField: "event_id")
        static let sessions = Kind(key: "session_queue", idField: "session_id")
        /// Events taken while no configuration of the service's had said how to protect their
        /// parameters, as drafts (``Drafts/json(_:)``): queued once one does.
        static let pending = Kind(key: "pending_events", idField: "event_id")

        /// The id of a queued item of this kind.
        func id(of item: JSONValue) -> String? {
            return item.objectValue?[idField]?.stringValue
        }
    }

    /// What the queue kept on the device lost when it was read back (a damaged value, a line
    /// cut short): `count` items, and `why`, for the log. Each line is read alone, so the count
    /// is exact.
    struct Loss: Equatable {
        let count: Int
        let why: String

        /// "2 events lost: the events' queue kept on the device could not be read back (...)".
        func describe(_ noun: String, _ queue: String) -> String {
            let plural = count == 1 ? "" : "s"
            return "\(count) \(noun)\(plural) lost: \(queue) kept on the device could not be read back (\(why))"
        }
    }

    let kind: Kind
    private let store: KeyValueStore
    private let max: Int
    private let lock = NSLock()
    private var events: [JSONValue]
    /// Under `lock`: the lines kept in the store, the items the bound dropped since the queue was
    /// last written whole included (a launch reads the newest `max`).
    private var storedLines: Int
    /// What reading the queue back lost, for the core to report once; nil when nothing was lost.
    let lostOnLoad: Loss?

    init(store: KeyValueStore, max: Int, kind: Kind = .events) {
        self.store = store
        self.max = max
        self.kind = kind
        let loaded = EventQueue.load(store, kind, max: max)
        events = loaded.items
        storedLines = loaded.lines
        lostOnLoad = loaded.loss
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return events.count
    }

    /// Adds the event and keeps it on the device; returns the oldest events dropped to stay
    /// within the bound (a device offline for months must not fill its storage).
    @discardableResult
    func add(_ event: JSONValue) -> [JSONValue] {
        return add([event])
    }

    @discardableResult
    func add(_ added: [JSONValue]) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        events.append(contentsOf: added)
        var dropped: [JSONValue] = []
        if events.count > max {
            dropped = Array(events.prefix(events.count - max))
            events.removeFirst(events.count - max)
        }
        if storedLines + added.count > 2 * max {
            save()
        } else {
            store.append(kind.key, lines: added.map { $0.text })
            storedLines += added.count
        }
        return dropped
    }

    func peek(_ count: Int) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        return Array(events.prefix(count))
    }

    /// Of these items, those the queue still holds, in their order: one the bound dropped since
    /// they were peeked is left out.
    func stillHeld(_ items: [JSONValue]) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        let held = Set(events.compactMap { kind.id(of: $0) })
        return items.filter { item in kind.id(of: item).map { held.contains($0) } ?? true }
    }

    /// Removes the items of these ids (sent, or dropped); the others keep their order. Returns
    /// how many it found: an item dropped meanwhile is not counted twice.
    @discardableResult
    func remove(ids: Set<String>) -> Int {
        if ids.isEmpty { return 0 }
        lock.lock()
        defer { lock.unlock() }
        let before = events.count
        events.removeAll { event in kind.id(of: event).map { ids.contains($0) } ?? false }
        save()
        return before - events.count
    }

    /// Empties the queue but for the items of the `kept` ids (a batch on its way to the service,
    /// which its answer settles); returns what it took out.
    @discardableResult
    func clear(keeping kept: Set<String> = []) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        let isKept = { (event: JSONValue) -> Bool in self.kind.id(of: event).map { kept.contains($0) } ?? false }
        let held = events.filter { !isKept($0) }
        if held.count == events.count {
            events.removeAll()
            store.remove(kind.key)
            storedLines = 0
        } else {
            events.removeAll { !isKept($0) }
            save()
        }
        return held
    }

    /// The `event_id` of a queued event.
    static func id(of event: JSONValue) -> String? {
        return Kind.events.id(of: event)
    }

    /// The queue kept on the device, line by line: a line that is no JSON object, or has no id
    /// (it could never be taken off the queue, which goes by id, and would be sent for ever), or
    /// is cut short (the process killed as it wrote it), is lost alone. Never silently empty:
    /// what was lost is in the answer, and the queue is written back without it, so that the
    /// loss is reported once. Of more than `max` (the bound dropped the oldest, which stayed in
    /// the store until it was next written whole), the newest `max`.
    private static func load(_ store: KeyValueStore, _ kind: Kind, max: Int) -> (items: [JSONValue], lines: Int, loss: Loss?) {
        guard let text = store.get(kind.key) else { return ([], 0, nil) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        var items: [JSONValue] = []
        var lost = 0
        for line in lines {
            guard let item = try? JSONValue.parse(String(line)), item.objectValue != nil,
                  let id = kind.id(of: item), !id.isEmpty else {
                lost += 1
                continue
            }
            items.append(item)
        }
        if items.count > max { items.removeFirst(items.count - max) }
        if lost == 0 { return (items, lines.count, nil) }
        if items.isEmpty {
            store.remove(kind.key)
        } else {
            store.put(kind.key, EventQueue.text(items))
        }
        return (items, items.count, Loss(count: lost, why: "\(lost == 1 ? "an item" : "items") with no \(kind.idField), of another shape or cut short"))
    }

    /// The items as the store keeps them, a line each.
    private static func text(_ items: [JSONValue]) -> String {
        return items.map { $0.text + "\n" }.joined()
    }

    /// Under `lock`: the queue written whole.
    private func save() {
        if events.isEmpty {
            store.remove(kind.key)
        } else {
            store.put(kind.key, EventQueue.text(events))
        }
        storedLines = events.count
    }
}
