import Foundation

/// Work a test does item by item on both cores of the CI machine: children that mostly start up,
/// or generated documents of very uneven cost. Each thread takes the next item when it is free
/// (not a fixed share, as `ParallelMap` in the library does), so one slow item does not leave a
/// core idle.
public enum TwoAtATime {
    /// `body` of every item, on two threads, in the order of `items`.
    public static func map<Item, Value>(_ items: [Item], _ body: (Item) throws -> Value) -> [Result<Value, any Error>] {
        let lock = NSLock()
        nonisolated(unsafe) let items = items
        nonisolated(unsafe) var results = [Result<Value, any Error>?](repeating: nil, count: items.count)
        nonisolated(unsafe) var next = 0
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                while true {
                    let taken: Int? = lock.withLock {
                        guard next < items.count else { return nil }
                        defer { next += 1 }
                        return next
                    }
                    guard let index = taken else { return }
                    let result = Result { try body(items[index]) }
                    lock.withLock { results[index] = result }
                }
            }
        }
        return results.map { $0 ?? .failure(CancellationError()) }
    }
}
