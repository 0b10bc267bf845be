import Foundation

/// Opens once; work handed to it before then runs when it opens, work handed after at once.
final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [() -> Void] = []

    var opened: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isOpen
    }

    func open() {
        lock.lock()
        if isOpen {
            lock.unlock()
            return
        }
        isOpen = true
        let work = waiting
        waiting.removeAll()
        lock.unlock()
        work.forEach { $0() }
    }

    func wait(_ work: @escaping () -> Void) {
        lock.lock()
        if isOpen {
            lock.unlock()
            work()
            return
        }
        waiting.append(work)
        lock.unlock()
    }
}
