/// The DFA states an explorer track has met: canonical subsets (sorted positions, sorted tags)
/// kept once in a flat arena and found by content through `HashSlots`.
///
/// The explorer steps every automaton along every product state it visits, and most steps land
/// on a subset it already knows. Building each one as a `Determinizer.Subset` to look it up in a
/// dictionary allocated three arrays and hashed them through `Hasher` per step; here the subset
/// is read straight from the determiniser's reused buffers (`StateScratch`), hashed once, and
/// stored only when new. It will not forget states: an exploration is bounded by its own budgets
/// (`analysis-states`, `analysis-work`), not by this table.
// PERF: `aasa lint --limit analysis-work=10000000` (the former default) of artsy's real file
// (eleven exclusions, seven of them substring searches: the shared corpus's heaviest),
// callgrind: 6.47 G → 3.25 G instructions, 0.88 → 0.43 s (three alternated runs); lint, cover
// and diff reports byte-identical over the shared corpus.
struct InternedSubsets {
    /// Every subset's positions, one after another; subset `id` holds
    /// `positions[starts[id]..<starts[id + 1]]`.
    private var positions: [UInt64] = []
    private var starts: [Int32] = [0]
    /// Every subset's accepted tags (read when a phase ends, not per step).
    private(set) var tags: [[Int32]] = []
    /// Subset ids by hash.
    private var index = HashSlots()

    var count: Int { tags.count }

    /// The number of byte-consuming positions of subset `id`: the cost of stepping it.
    @inline(__always)
    func positionCount(_ id: Int32) -> Int {
        Int(starts[Int(id) + 1] - starts[Int(id)])
    }

    /// Lends subset `id`'s positions to `body`.
    @inline(__always)
    func withPositions<Result>(_ id: Int32, _ body: (BufferView<UInt64>) -> Result) -> Result {
        let range = Int(starts[Int(id)])..<Int(starts[Int(id) + 1])
        return positions.withView { body($0[range]) }
    }

    /// The id of the subset `scratch` holds after `Determinizer.closeSeeds`, and whether it is
    /// new.
    mutating func intern(_ scratch: StateScratch) -> (id: Int32, isNew: Bool) {
        let hash = scratch.positions.withView { positions in
            scratch.tags.withView { tags in Self.hash(positions, tags) }
        }
        var probe = index.probe(hash)
        while let known = index.next(&probe) {
            if holds(known, scratch) { return (known, false) }
        }
        let id = index.append(hash: hash)
        scratch.positions.withView { positions.append(contentsOf: $0) }
        starts.append(Int32(positions.count))
        tags.append(scratch.tags.withView { Array($0) })
        return (id, true)
    }

    private func holds(_ id: Int32, _ scratch: StateScratch) -> Bool {
        guard positionCount(id) == scratch.positions.count, tags[Int(id)].count == scratch.tags.count else { return false }
        let same = withPositions(id) { stored in
            scratch.positions.withView { positions in
                for index in 0..<positions.count where stored[index] != positions[index] { return false }
                return true
            }
        }
        return same && scratch.tags.withView { $0.elementsEqual(tags[Int(id)]) }
    }

    private static func hash(_ positions: BufferView<UInt64>, _ tags: BufferView<Int32>) -> UInt64 {
        var hash = UInt64(positions.count) &+ WordMix.seed
        for position in positions { hash = WordMix.mix(hash, position) }
        for tag in tags { hash = WordMix.mix(hash, UInt64(UInt32(bitPattern: tag)) | 1 << 32) }
        return hash
    }
}
