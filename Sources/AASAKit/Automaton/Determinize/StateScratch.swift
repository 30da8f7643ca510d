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
    /// Visited positions outside variables (continuation none), by NFA state: the state was
    /// visited by the current closure when its stamp is `stamp`. Forgetting them all is one
    /// increment, and a visit one load and one compare.
    // PERF: a sparse set (two arrays, two dependent loads a visit) before: `aasa match` of two
    // random `a`/`b` paths of 64 KB against `*a` and 200 `?` in four path modes (every step
    // simulated), callgrind, 7 709 M → 7 134 M instructions (−7.5%); the 10 000-domain fleet's
    // first use with `--rules` (20 000 URLs), −0.1% (`Benchmarks/Records/2026-12-07-simulate-new-subsets.md`).
    private let stamps: ScratchBuffer<UInt32>
    private var stamp: UInt32 = 1
    /// Visited positions inside variable alternatives (they carry a continuation).
    private let visitedPairs = UnsharedCell(Set<UInt64>())

    /// `room`: positions each buffer holds before growing (a cache over a prebuilt table never
    /// builds a state, and needs none). `stamp` is the first closure's: tests start near its wrap.
    init(stateCount: Int, room: Int = 16, stamp: UInt32 = 1) {
        self.stamp = max(1, stamp)
        seeds = ScratchBuffer(capacity: room)
        stack = ScratchBuffer(capacity: room)
        positions = ScratchBuffer(capacity: room)
        tags = ScratchBuffer(capacity: room)
        stamps = ScratchBuffer(capacity: max(1, stateCount))
        stamps.append(repeating: 0, count: stateCount)
    }

    /// The bytes its buffers hold, room included.
    var heldBytes: Int {
        (seeds.capacity + stack.capacity + positions.capacity) * 8 + (tags.capacity + stamps.capacity) * 4
    }

    /// Forgets every visited position.
    @inline(__always)
    func clearVisited() {
        stamp &+= 1
        if stamp == 0 {
            // Wrapped: no state may keep a stamp equal to a new one by age.
            for state in 0..<stamps.count { stamps[state] = 0 }
            stamp = 1
        }
        if !visitedPairs.value.isEmpty { visitedPairs.value.removeAll(keepingCapacity: true) }
    }

    /// Marks a position visited; returns whether it was new.
    @inline(__always)
    func visit(_ position: UInt64) -> Bool {
        if position >> 32 == 0 {
            let state = Int(truncatingIfNeeded: position)
            if stamps[state] == stamp { return false }
            stamps[state] = stamp
            return true
        }
        return visitedPairs.value.insert(position).inserted
    }
}
