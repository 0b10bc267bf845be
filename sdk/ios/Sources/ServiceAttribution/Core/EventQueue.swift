import Foundation

/// Events waiting to be sent, in the order they were sent, kept in the store so that an app
/// killed while offline sends them at its next launch. Each keeps its `event_id`, so a request
/// that reached the service but whose answer was lost is sent again and deduplicated there.
/// Used on the SDK's worker queue only.
final class EventQueue {
    private static let key = "event_queue"
    private let store: KeyValueStore
    private let max: Int
    private var events: [JSONValue]

    init(store: KeyValueStore, max: Int) {
        self.store = store
        self.max = max
        events = EventQueue.load(store)
    }

    var count: Int {
        return events.count
    }

    func add(_ event: JSONValue) {
        events.append(event)
        // Bounded: a device offline for months must not fill its storage.
        if events.count > max { events.removeFirst(events.count - max) }
        save()
    }

    func peek(_ count: Int) -> [JSONValue] {
        return Array(events.prefix(count))
    }

    /// Removes the first `count` events but those at `keep`, which stay first, in order.
    func remove(_ count: Int, keep: Set<Int>) {
        let head = events.prefix(count)
        let kept = head.enumerated().filter { keep.contains($0.offset) }.map { $0.element }
        events.removeFirst(Swift.min(count, events.count))
        events.insert(contentsOf: kept, at: 0)
        save()
    }

    func clear() {
        events.removeAll()
        store.remove(EventQueue.key)
    }

    private static func load(_ store: KeyValueStore) -> [JSONValue] {
        guard let text = store.get(key), let value = try? JSONValue.parse(text) else { return [] }
        return value.arrayValue ?? []
    }

    private func save() {
        if events.isEmpty {
            store.remove(EventQueue.key)
        } else {
            store.put(EventQueue.key, JSONValue.array(events).text)
        }
    }
}
