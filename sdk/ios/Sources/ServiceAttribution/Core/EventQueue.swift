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

        /// The id of a queued item of this kind.
        func id(of item: JSONValue) -> String? {
            return item.objectValue?[idField]?.stringValue
        }
    }

    let kind: Kind
    private let store: KeyValueStore
    private let max: Int
    private let lock = NSLock()
    private var events: [JSONValue]

    init(store: KeyValueStore, max: Int, kind: Kind = .events) {
        self.store = store
        self.max = max
        self.kind = kind
        events = EventQueue.load(store, kind.key)
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

    private static func load(_ store: KeyValueStore, _ key: String) -> [JSONValue] {
        guard let text = store.get(key), let value = try? JSONValue.parse(text) else { return [] }
        return value.arrayValue ?? []
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
