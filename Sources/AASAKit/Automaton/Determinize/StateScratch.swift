/// Scratch space for building DFA states (see `Determinizer+Scratch`): the lazy DFA cache's, and
/// each of the analyses' explorer tracks.
final class StateScratch {
    // Sized for the states of real documents (a handful of positions); they grow when needed.
    let seeds: ScratchBuffer<UInt64>
    let stack: ScratchBuffer<UInt64>
    /// `closeSeeds`' result: the subset's sorted positions and tags.
    let positions: ScratchBuffer<UInt64>
    let tags: ScratchBuffer<Int32>
    /// Positions the last `closeSeeds` visited (byte-consuming or not): its cost.
    var visits = 0
    /// Visited positions outside variables (continuation none), by NFA state: a sparse set.
    private let dense: ScratchBuffer<Int32>
    private let sparse: ScratchBuffer<Int32>
    /// Visited positions inside variable alternatives (they carry a continuation).
    private let visitedPairs = UnsharedCell(Set<UInt64>())

    /// `room`: positions each buffer holds before growing (a cache over a prebuilt table never
    /// builds a state, and needs none).
    init(stateCount: Int, room: Int = 16) {
        seeds = ScratchBuffer(capacity: room)
        stack = ScratchBuffer(capacity: room)
        positions = ScratchBuffer(capacity: room)
        tags = ScratchBuffer(capacity: room)
        dense = ScratchBuffer(capacity: max(1, stateCount))
        sparse = ScratchBuffer(capacity: max(1, stateCount))
        sparse.append(repeating: 0, count: stateCount)
    }

    /// The bytes its buffers hold, room included.
    var heldBytes: Int {
        (seeds.capacity + stack.capacity + positions.capacity) * 8 + (tags.capacity + dense.capacity + sparse.capacity) * 4
    }

    /// Forgets every visited position.
    @inline(__always)
    func clearVisited() {
        dense.removeAll()
        if !visitedPairs.value.isEmpty { visitedPairs.value.removeAll(keepingCapacity: true) }
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
        return visitedPairs.value.insert(position).inserted
    }
}
