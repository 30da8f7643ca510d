/// Runs an NFA directly, one subset per byte, caching nothing.
///
/// The lazy DFA's fallback when its cache thrashes: memory stays bounded by one subset, time
/// is O(n × subset size). It shares the determiniser's closure and step, so it computes exactly
/// the subsets the DFA would have.
struct NFASimulation {
    let nfa: NFA

    func run(from subset: Determinizer.Subset, text: UnsafeBufferPointer<UInt8>) -> TagSet {
        let determinizer = Determinizer(nfa: nfa)
        var scratch = Determinizer.Scratch()
        var current = subset
        for index in text.indices {
            current = determinizer.step(current, on: text[index], scratch: &scratch, canonical: false)
            // Nothing left that can read a byte: only the end of the text can still accept.
            if current.positions.isEmpty, index + 1 < text.count { return .empty }
        }
        return TagSet(sorted: current.tags)
    }

    func run(_ text: UnsafeBufferPointer<UInt8>) -> TagSet {
        let determinizer = Determinizer(nfa: nfa)
        var scratch = Determinizer.Scratch()
        return run(from: determinizer.start(scratch: &scratch), text: text)
    }
}
