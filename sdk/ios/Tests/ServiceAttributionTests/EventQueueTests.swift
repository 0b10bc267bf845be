import XCTest
@testable import ServiceAttribution

final class EventQueueTests: XCTestCase {
    private func event(_ n: Int) -> JSONValue {
        return .object(["event_id": .string("e\(n)")])
    }

    func testKeptAcrossLaunchesInOrder() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        (1...3).forEach { queue.add(event($0)) }
        let next = EventQueue(store: store, max: 10)
        XCTAssertEqual(next.peek(10), [event(1), event(2), event(3)])
    }

    func testBoundedTheOldestGoFirst() {
        let queue = EventQueue(store: MemoryStore(), max: 3)
        (1...5).forEach { queue.add(event($0)) }
        XCTAssertEqual(queue.peek(10), [event(3), event(4), event(5)])
    }

    func testRemoveKeepsTheEventsToRetryFirstInOrder() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        (1...5).forEach { queue.add(event($0)) }
        queue.remove(3, keep: [0, 2])
        XCTAssertEqual(queue.peek(10), [event(1), event(3), event(4), event(5)])
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 4)
    }

    func testClearEmptiesTheStore() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        queue.add(event(1))
        queue.clear()
        XCTAssertNil(store.get("event_queue"))
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 0)
    }

    func testAnUnreadableQueueIsEmpty() {
        let store = MemoryStore()
        store.put("event_queue", "not json")
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 0)
    }
}
