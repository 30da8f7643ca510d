/// Runs an NFA directly, one subset per byte, caching nothing.
///
/// The lazy DFA's way through text whose states it would not reuse: memory stays bounded by
/// one subset, time is O(n × subset size). It steps with the determiniser's own seeds and
/// closure (`Determinizer+Scratch`), in the cache's scratch, so it computes exactly the subsets
/// the DFA would have, allocates nothing per byte, and charges `meter` exactly what the lazy
/// DFA would: every heavy step (`LazyDFA.heavyWeight`), and a step whose closure alone passes
/// the limit ends the run. What it skips is what makes a state a key: sorting its positions,
/// hashing them, and storing them.
///
/// A small automaton without variables steps as a bitset instead (`BitsetSimulation`, made
/// once per cache and given here), to the same subsets, charges and ends.
///
/// What it will not do: remember anything between two runs, or two bytes.
// PERF: it stepped through `Determinizer.step`, which allocated a subset's two arrays a byte,
// and was no faster than building a state a byte: `aasa match` of 20 random `a`/`b` paths of
// 60 KB against `/*a` and twenty `?`, `--limit dfa-cache-bytes=8K` (every search simulated),
// 0.92 → 0.31 s (`Benchmarks/Records/2026-12-07-simulate-new-subsets.md`).
struct NFASimulation {
    let determinizer: Determinizer
    let scratch: StateScratch
    /// The bitset form of the steps, when the automaton allows it: it reads all but the last
    /// byte, whose tags the general step gives.
    var bitset: BitsetSimulation? = nil

    /// How a run ended.
    enum End {
        /// The text was read: `scratch.tags` holds the tags accepted at its end (sorted,
        /// without duplicates).
        case read
        /// No position is left that can read a byte, and bytes remain: nothing is accepted.
        case dead
        /// Past the work budget (`meter.exceeded`).
        case overBudget
    }

    /// Reads `text` from the subset whose positions are `positions` (a state's, copied before
    /// the first step: it may live in the scratch). `text` is not empty.
    func run(from positions: BufferView<UInt64>, text: ByteView, meter: WorkMeter) -> End {
        let current = ScratchBuffer<UInt64>(capacity: max(16, positions.count))
        var first = 0
        if let bitset, text.count > 1 {
            // No variables, so a position is its state's id.
            var bits = [UInt64](repeating: 0, count: bitset.words)
            for position in positions { bits[Int(position >> 6)] |= 1 << (position & 63) }
            switch bitset.run(&bits, text: text[0..<text.count - 1], meter: meter) {
            case .read: break
            case .dead: return .dead
            case .overBudget: return .overBudget
            }
            for word in bits.indices {
                var set = bits[word]
                while set != 0 {
                    current.append(UInt64(word << 6 | set.trailingZeroBitCount))
                    set &= set &- 1
                }
            }
            first = text.count - 1
        } else {
            current.append(contentsOf: positions)
        }
        for index in first..<text.count {
            current.withView { determinizer.collectSeeds(from: $0, on: text[index], scratch: scratch) }
            guard determinizer.closeSeeds(scratch: scratch, cap: meter.limit, canonical: false) else {
                meter.exhaust()
                return .overBudget
            }
            if scratch.visits >= LazyDFA.heavyWeight, !meter.charge(scratch.visits) { return .overBudget }
            if scratch.positions.isEmpty, index + 1 < text.count { return .dead }
            current.removeAll()
            scratch.positions.withView { current.append(contentsOf: $0) }
        }
        return .read
    }
}
