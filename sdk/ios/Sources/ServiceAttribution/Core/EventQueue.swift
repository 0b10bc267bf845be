import Foundation

/// Events (or sessions, ``Kind/sessions``) waiting to be sent, in the order they were sent,
/// written to the store before `add` returns, so that an app killed while offline sends them at
/// its next launch. Each keeps its id (`event_id`, `session_id`), so a request that reached the
/// service but whose answer was lost is sent again and deduplicated there. Thread-safe:
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

    /// What the queue kept on the device lost when it was read back (a damaged value): `count`
    /// items, at least that many when `atLeast` (the text itself could not be read, and how many
    /// it held is not known), and `why`, for the log.
    struct Loss: Equatable {
        let count: Int
        let atLeast: Bool
        let why: String

        /// "2 events lost: the events' queue kept on the device could not be read back (...)".
        func describe(_ noun: String, _ queue: String) -> String {
            let plural = count == 1 ? "" : "s"
            return "\(atLeast ? "at least " : "")\(count) \(noun)\(plural) lost: \(queue) kept on the device could not be read back (\(why))"
        }
    }

    let kind: Kind
    private let store: KeyValueStore
    private let max: Int
    private let lock = NSLock()
    private var events: [JSONValue]
    /// What reading the queue back lost, for the core to report once; nil when nothing was lost.
    let lostOnLoad: Loss?

    init(store: KeyValueStore, max: Int, kind: Kind = .events) {
        self.store = store
        self.max = max
        self.kind = kind
        let loaded = EventQueue.load(store, kind)
        events = loaded.items
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
        save()
        return dropped
    }

    func peek(_ count: Int) -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        return Array(events.prefix(count))
    }

    /// Removes the items of these ids (sent, or dropped); the others keep their order.
    func remove(ids: Set<String>) {
        if ids.isEmpty { return }
        lock.lock()
        defer { lock.unlock() }
        events.removeAll { event in kind.id(of: event).map { ids.contains($0) } ?? false }
        save()
    }

    /// Empties the queue; returns what it held.
    @discardableResult
    func clear() -> [JSONValue] {
        lock.lock()
        defer { lock.unlock() }
        let held = events
        events.removeAll()
        store.remove(kind.key)
        return held
    }

    /// The `event_id` of a queued event.
    static func id(of event: JSONValue) -> String? {
        return Kind.events.id(of: event)
    }

    /// The queue kept on the device, item by item: an item that is no JSON object, or has no id
    /// (it could never be taken off the queue, which goes by id, and would be sent for ever), is
    /// lost alone; a text that cannot be read at all loses what it held. Never silently empty:
    /// what was lost is in the answer, and the queue is written back without it, so that the
    /// loss is reported once.
    private static func load(_ store: KeyValueStore, _ kind: Kind) -> (items: [JSONValue], loss: Loss?) {
        guard let text = store.get(kind.key) else { return ([], nil) }
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        guard let array = parsed as? [Any] else {
            store.remove(kind.key)
            let why = parsed == nil ? "its text is not JSON" : "its text is no JSON array"
            return ([], Loss(count: 1, atLeast: true, why: why))
        }
        var items: [JSONValue] = []
        var lost = 0
        for element in array {
            guard let item = JSONValue(foundation: element), item.objectValue != nil,
                  let id = kind.id(of: item), !id.isEmpty else {
                lost += 1
                continue
            }
            items.append(item)
        }
        if lost == 0 { return (items, nil) }
        if items.isEmpty {
            store.remove(kind.key)
        } else {
            store.put(kind.key, JSONValue.array(items).text)
        }
        return (items, Loss(count: lost, atLeast: false, why: "\(lost == 1 ? "an item" : "items") with no \(kind.idField) or of another shape"))
    }

    /// Under `lock`.
    private func save() {
        if events.isEmpty {
            store.remove(kind.key)
        } else {
            store.put(kind.key, JSONValue.array(events).text)
        }
    }
}
