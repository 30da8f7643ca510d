/// Runs an NFA directly, one subset per byte, caching nothing.
///
/// The lazy DFA's fallback when its cache thrashes: memory stays bounded by one subset, time
/// is O(n × subset size). It shares the determiniser's closure and step, so it computes exactly
/// the subsets the DFA would have, and charges `meter` exactly what the lazy DFA would: every
/// heavy step (`LazyDFA.heavyWeight`), and a step whose closure alone passes the limit ends the
/// run.
struct NFASimulation {
    let nfa: NFA

    /// The tags accepted at the end of `text`, read from `subset`; nil past the work budget.
    func run(from subset: Determinizer.Subset, text: ByteView, meter: WorkMeter) -> TagSet? {
        let determinizer = Determinizer(nfa: nfa)
        var scratch = Determinizer.Scratch()
        var current = subset
        for index in 0..<text.count {
            guard
                let next = determinizer.step(current, on: text[index], scratch: &scratch, canonical: false, cap: meter.limit)
            else {
                meter.exhaust()
                return nil
            }
            if scratch.visits >= LazyDFA.heavyWeight, !meter.charge(scratch.visits) { return nil }
            current = next
            // Nothing left that can read a byte: only the end of the text can still accept.
            if current.positions.isEmpty, index + 1 < text.count { return .empty }
        }
        return TagSet(sorted: current.tags)
    }
}
