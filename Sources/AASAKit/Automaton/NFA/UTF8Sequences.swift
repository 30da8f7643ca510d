/// `?` as bytes: one UTF-8 encoded scalar.
///
/// The matcher only ever feeds valid UTF-8 to an automaton (invalid lines are error records,
/// and decoded text that is not valid UTF-8 is compared undecoded, SPEC 12), so a lead byte
/// followed by the right number of continuation bytes is exactly one scalar. Four paths, three
/// shared continuation states.
extension NFABuilder {
    /// Adds the states for one scalar from `from`; returns the state after it.
    mutating func addAnyScalar(from: NFA.StateID) throws(AutomatonError) -> NFA.StateID {
        let end = try add()
        let oneMore = try add()
        let twoMore = try add()
        let threeMore = try add()
        addTransition(from: from, 0x00, 0x7F, to: end)
        addTransition(from: from, 0xC0, 0xDF, to: oneMore)
        addTransition(from: from, 0xE0, 0xEF, to: twoMore)
        addTransition(from: from, 0xF0, 0xF7, to: threeMore)
        addTransition(from: threeMore, 0x80, 0xBF, to: twoMore)
        addTransition(from: twoMore, 0x80, 0xBF, to: oneMore)
        addTransition(from: oneMore, 0x80, 0xBF, to: end)
        return end
    }

    /// `*`: a state that loops on every byte; returns it (pieces that follow hang off it).
    mutating func addAnyRun(from: NFA.StateID) throws(AutomatonError) -> NFA.StateID {
        let loop = try add()
        addEpsilon(from: from, to: loop)
        addTransition(from: loop, 0x00, 0xFF, to: loop)
        return loop
    }

    /// A literal: one state per byte.
    mutating func addLiteral(_ text: String, from: NFA.StateID) throws(AutomatonError) -> NFA.StateID {
        var current = from
        for byte in text.utf8 {
            let next = try add()
            addTransition(from: current, byte, byte, to: next)
            current = next
        }
        return current
    }
}
