/// A growable buffer of plain values, cleared in O(1), for the determiniser's per-state work.
///
/// PERF: the same buffers as `Array`s cost, per state built, five `removeAll(keepingCapacity:)`
/// calls through the generic `replaceSubrange` and a uniqueness check per append: about a quarter
/// of the instructions of building a state (callgrind, paths-10000, unseen URLs). The pointer never
/// leaves this type: reads go through `withUnsafeBufferPointer`, writes through `append`.
final class ScratchBuffer<Element: BitwiseCopyable> {
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow() }
        base[count] = element
        count &+= 1
    }

    @inline(__always)
    func popLast() -> Element? {
        guard count > 0 else { return nil }
        count &-= 1
        return base[count]
    }

    @inline(__always)
    func removeAll() { count = 0 }

    /// Keeps the first `newCount` elements.
    func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncating past the end")
        count = newCount
    }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "scratch index out of range")
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count, "scratch index out of range")
            base[index] = newValue
        }
    }

    /// The elements, valid only inside `body` (which must not append).
    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    var array: [Element] { withUnsafeBufferPointer { Array($0) } }

    private func grow() {
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity *= 2
    }
}

extension ScratchBuffer where Element: Comparable {
    func sort() {
        var elements = UnsafeMutableBufferPointer(start: base, count: count)
        elements.sort()
    }
}

/// The lazy DFA cache's scratch space for building states (see `Determinizer+Scratch`).
final class StateScratch {
    let seeds = ScratchBuffer<UInt64>()
    let stack = ScratchBuffer<UInt64>()
    /// `closeSeeds`' result: the subset's sorted positions and tags.
    let positions = ScratchBuffer<UInt64>()
    let tags = ScratchBuffer<Int32>()
    /// Positions the last `closeSeeds` visited (byte-consuming or not): its cost.
    var visits = 0
    /// Visited positions outside variables (continuation none), by NFA state: a sparse set.
    private let dense: ScratchBuffer<Int32>
    private let sparse: ScratchBuffer<Int32>
    /// Visited positions inside variable alternatives (they carry a continuation).
    @exclusivity(unchecked) private var visitedPairs = Set<UInt64>()

    init(stateCount: Int) {
        dense = ScratchBuffer(capacity: max(1, stateCount))
        sparse = ScratchBuffer(capacity: max(1, stateCount))
        for _ in 0..<stateCount { sparse.append(0) }
    }

    /// Forgets every visited position.
    @inline(__always)
    func clearVisited() {
        dense.removeAll()
        if !visitedPairs.isEmpty { visitedPairs.removeAll(keepingCapacity: true) }
    }

    /// Marks a position visited; returns whether it was new.
    @inline(__always)
    func visit(_ position: UInt64) -> Bool {
        if position >> 32 == 0 {
            let state = Int(truncatingIfNeeded: position)
            let slot = Int(sparse[state])
            if slot < dense.count && dense[slot] == Int32(truncatingIfNeeded: state) { return false }
            sparse[state] = Int32(dense.count)
            dense.append(Int32(truncatingIfNeeded: state))
            return true
        }
        return visitedPairs.insert(position).inserted
    }
}
