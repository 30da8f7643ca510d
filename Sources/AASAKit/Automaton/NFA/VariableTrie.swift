/// A substitution variable's alternatives as one sub-automaton: literal values share a byte
/// trie, values with `*` or `?` hang off it as small chains, and every alternative ends in the
/// variable's single `ret` state.
///
/// `$(lang)` has 631 values of two or three letters: as a trie that is about 700 states, built
/// once and shared by every call site, against 631 separate copies per use for the naive
/// translation (and millions of patterns for list expansion).
extension NFABuilder {
    /// Builds the sub-automaton for `values` (already parsed with `$` literal and normalised
    /// for the mode); returns its entry state.
    mutating func addVariable(_ values: [Pattern]) throws(AutomatonError) -> NFA.StateID {
        let root = try add()
        let ret = try add(.ret)
        var children: [NFA.StateID: [UInt8: NFA.StateID]] = [:]
        for value in values {
            var current = root
            var inTrie = true
            for piece in value.pieces {
                switch piece {
                case .literal(let text):
                    for byte in text.utf8 {
                        if inTrie, let child = children[current]?[byte] {
                            current = child
                            continue
                        }
                        let next = try add()
                        addTransition(from: current, byte, byte, to: next)
                        if inTrie { children[current, default: [:]][byte] = next }
                        current = next
                    }
                case .anyOne:
                    // Leave the trie: wildcard paths are not shared.
                    let detached = try detach(from: &current, inTrie: &inTrie)
                    current = try addAnyScalar(from: detached)
                case .anyMany:
                    let detached = try detach(from: &current, inTrie: &inTrie)
                    current = try addAnyRun(from: detached)
                case .variable:
                    // Values never hold references (the parser runs with variables off).
                    continue
                }
            }
            addEpsilon(from: current, to: ret)
        }
        return root
    }

    /// Steps from a trie node to a fresh private state, so what follows is not shared.
    private mutating func detach(from current: inout NFA.StateID, inTrie: inout Bool) throws(AutomatonError)
        -> NFA.StateID
    {
        guard inTrie else { return current }
        inTrie = false
        let fresh = try add()
        addEpsilon(from: current, to: fresh)
        current = fresh
        return fresh
    }
}
