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

    func testBoundedTheOldestGoFirstAndAreReturned() {
        let queue = EventQueue(store: MemoryStore(), max: 3)
        let dropped = (1...5).flatMap { queue.add(event($0)) }
        XCTAssertEqual(queue.peek(10), [event(3), event(4), event(5)])
        XCTAssertEqual(dropped, [event(1), event(2)])
    }

    func testRemoveByIdKeepsTheOthersInOrder() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        (1...5).forEach { queue.add(event($0)) }
        queue.remove(ids: ["e2", "e4", "unknown"])
        XCTAssertEqual(queue.peek(10), [event(1), event(3), event(5)])
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 3)
    }

    func testAnEventAddedWhileABatchIsOutIsNotRemovedWithIt() {
        let queue = EventQueue(store: MemoryStore(), max: 3)
        (1...3).forEach { queue.add(event($0)) }
        let batch = queue.peek(3)
        // Meanwhile the app sends one more: the oldest (in the batch) makes room.
        queue.add(event(4))
        queue.remove(ids: Set(batch.compactMap(EventQueue.id)))
        XCTAssertEqual(queue.peek(10), [event(4)])
    }

    func testClearEmptiesTheStore() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        queue.add(event(1))
        XCTAssertEqual(queue.clear(), [event(1)])
        XCTAssertNil(store.get("event_queue"))
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 0)
    }

    func testAClearKeepingTheBatchOnItsWayLeavesItOnTheDeviceForItsAnswer() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        (1...4).forEach { queue.add(event($0)) }
        XCTAssertEqual(queue.clear(keeping: ["e1", "e2"]), [event(3), event(4)])
        XCTAssertEqual(EventQueue(store: store, max: 10).peek(10), [event(1), event(2)])
        // What the answer left: only the items still there are counted.
        XCTAssertEqual(queue.remove(ids: ["e1", "e2", "e3"]), 2)
        XCTAssertNil(store.get("event_queue"))
    }

    func testTheSessionsQueueIsKeptApartAndRemovesBySessionId() {
        let store = MemoryStore()
        let events = EventQueue(store: store, max: 10)
        let sessions = EventQueue(store: store, max: 10, kind: .sessions)
        events.add(event(1))
        sessions.add([.object(["session_id": .string("s1")]), .object(["session_id": .string("s2")])])
        sessions.remove(ids: ["s1", "e1"])
        XCTAssertEqual(EventQueue(store: store, max: 10).peek(10), [event(1)])
        XCTAssertEqual(EventQueue(store: store, max: 10, kind: .sessions).peek(10), [.object(["session_id": .string("s2")])])
        sessions.clear()
        XCTAssertNil(store.get("session_queue"))
        XCTAssertEqual(EventQueue(store: store, max: 10).count, 1)
    }

    func testAnUnreadableQueueIsEmptyAndItsLossIsKnown() {
        let store = MemoryStore()
        store.put("event_queue", "not json")
        let queue = EventQueue(store: store, max: 10)
        XCTAssertEqual(queue.count, 0)
        XCTAssertEqual(queue.lostOnLoad?.count, 1)
        XCTAssertNil(store.get("event_queue"), "forgotten, so that the loss is told once")
        XCTAssertNil(EventQueue(store: store, max: 10).lostOnLoad)
    }

    func testKeptALineAnItem() {
        let store = MemoryStore()
        let queue = EventQueue(store: store, max: 10)
        queue.add(event(1))
        queue.add([event(2), event(3)])
        XCTAssertEqual(store.get("event_queue"), "{\"event_id\":\"e1\"}\n{\"event_id\":\"e2\"}\n{\"event_id\":\"e3\"}\n")
    }

    func testAnItemAddedIsALineAppendedNotTheQueueWrittenAgain() {
        let store = CountingStore()
        let queue = EventQueue(store: store, max: 1000)
        (1...1000).forEach { queue.add(event($0)) }
        XCTAssertEqual(store.appends, 1000)
        XCTAssertEqual(store.puts, 0)
        // Items leaving it write it whole (the worker does, having sent them).
        queue.remove(ids: ["e1"])
        XCTAssertEqual(store.puts, 1)
        XCTAssertEqual(EventQueue(store: store, max: 1000).count, 999)
    }

    func testPastTheBoundTheQueueIsWrittenWholeOnceForEveryMaxItemsAndALaunchReadsTheNewest() {
        let store = CountingStore()
        let queue = EventQueue(store: store, max: 10)
        let dropped = (1...25).flatMap { queue.add(event($0)) }
        XCTAssertEqual(dropped, (1...15).map(event))
        // Lines for the first 20; the 21st writes the newest 10 whole; 4 more lines.
        XCTAssertEqual(store.appends, 24)
        XCTAssertEqual(store.puts, 1)
        XCTAssertEqual(store.get("event_queue")?.split(separator: "\n").count, 14)
        let next = EventQueue(store: store, max: 10)
        XCTAssertEqual(next.peek(100), (16...25).map(event))
        XCTAssertNil(next.lostOnLoad, "what the bound dropped was told as it was dropped")
    }

    func testALineCutShortIsLostAloneAndTheNextAddedIsWhole() throws {
        let store = MemoryStore()
        store.put("event_queue", "{\"event_id\":\"e1\"}\n{\"event_id\":\"e")
        let queue = EventQueue(store: store, max: 10)
        XCTAssertEqual(queue.peek(10), [event(1)])
        XCTAssertEqual(queue.lostOnLoad?.count, 1)
        queue.add(event(2))
        XCTAssertEqual(EventQueue(store: store, max: 10).peek(10), [event(1), event(2)])
    }

    func testAnItemThatIsNoObjectOrHasNoIdIsLostAloneAndTheRestKeptInOrder() throws {
        let store = MemoryStore()
        store.put("event_queue", [#"{"event_id":"e1"}"#, "7", #"{"event_type":"LOGIN"}"#, #"{"event_id":""}"#, #""x""#, #"{"event_id":"e2"}"#].map { $0 + "\n" }.joined())
        let queue = EventQueue(store: store, max: 10)
        XCTAssertEqual(queue.peek(10), [event(1), event(2)])
        XCTAssertEqual(queue.lostOnLoad, EventQueue.Loss(count: 4, why: try XCTUnwrap(queue.lostOnLoad?.why)))
        // Written back without them: the next launch reads the two, and loses nothing more.
        let next = EventQueue(store: store, max: 10)
        XCTAssertEqual(next.peek(10), [event(1), event(2)])
        XCTAssertNil(next.lostOnLoad)
        // Each one can be taken off the queue: none is sent for ever.
        next.remove(ids: ["e1", "e2"])
        XCTAssertEqual(next.count, 0)
    }

    func testASessionWithNoSessionIdIsLostAlone() {
        let store = MemoryStore()
        store.put("session_queue", #"{"session_id":"s1"}"# + "\n" + #"{"event_id":"e1"}"# + "\n")
        let sessions = EventQueue(store: store, max: 10, kind: .sessions)
        XCTAssertEqual(sessions.peek(10), [.object(["session_id": .string("s1")])])
        XCTAssertEqual(sessions.lostOnLoad?.count, 1)
    }
}

/// A store in memory that counts how the queue writes to it.
private final class CountingStore: KeyValueStore {
    private let inner = MemoryStore()
    private(set) var puts = 0
    private(set) var appends = 0

    func get(_ key: String) -> String? {
        return inner.get(key)
    }

    func put(_ key: String, _ value: String) {
        puts += 1
        inner.put(key, value)
    }

    func remove(_ key: String) {
        inner.remove(key)
    }

    func append(_ key: String, lines: [String]) {
        appends += 1
        inner.append(key, lines: lines)
    }
}
