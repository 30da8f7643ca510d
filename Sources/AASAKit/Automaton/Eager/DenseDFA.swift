/// A fully determinised DFA: every state reachable from the start, built up front.
///
/// Built with the same `Determinizer` as the lazy DFA, breadth-first over byte classes, so its
/// state numbering is canonical: the same NFA always gives the same table. That makes it the
/// automaton to dump (`aasa debug dfa`) and to ship in compiled artifacts when it is small; the
/// lazy DFA remains the engine for documents whose DFA would be large.
public struct DenseDFA: Sendable {
    public let classes: ByteClasses
    /// `transitions[state * classes.count + class]`; state 0 is dead, state 1 the start.
    public let transitions: [Int32]
    /// Accepted tags per state, sorted.
    public let accepts: [[Int32]]
    /// The most NFA positions one step's closure visited (the start's included; steps to the
    /// dead state left out): at `LazyDFA.heavyWeight` or more, the lazy DFA charges that step
    /// to every URL taking it (`WorkMeter`), so a table stored in its place must not answer
    /// for free what `--rules` refuses (`Prebuilt.init(nfa:budget:)`).
    public let heaviestStep: Int

    public static let dead: Int32 = 0
    public static let start: Int32 = 1

    public var stateCount: Int { accepts.count }

    /// Determinises `nfa` completely.
    /// - Parameter maxWork: a bound on the subset positions stepped in all (each step costs
    ///   time in proportion to its source subset), so that a few huge subsets cannot take
    ///   minutes before `maxStates` is reached; refused like too many states.
    /// - Throws: `AutomatonError.tooManyDFAStates` past `maxStates` or `maxWork`.
    /// - Complexity: O(states × classes × subset size); exponential in the worst case, hence
    ///   the limits.
    public init(nfa: NFA, maxStates: Int = 10_000, maxWork: Int = .max) throws(AutomatonError) {
        var spent = 0
        try self.init(nfa: nfa, maxStates: maxStates, maxWork: maxWork, spent: &spent)
    }

    /// As `init(nfa:maxStates:maxWork:)`, telling in `spent` the work it took (the measure
    /// `maxWork` bounds, here with the positions the closures visited), whether it built the
    /// table or gave up: a document's compile-time tables share one budget
    /// (`CompiledDocument.encode`). With `maxStep`, a step whose closure visits that many
    /// positions ends the attempt at once (a stored table must have none).
    init(nfa: NFA, maxStates: Int, maxWork: Int, maxStep: Int = .max, spent: inout Int) throws(AutomatonError) {
        var work = 0
        // The closures' visits, counted toward `spent` only: `maxWork` keeps its measure.
        var visited = 0
        defer { spent = work + visited }
        let classes = nfa.byteClasses()
        let representatives = classes.representatives
        let determinizer = Determinizer(nfa: nfa)
        var scratch = Determinizer.Scratch()
        let deadSubset = Determinizer.Subset(positions: [], tags: [])
        guard let startSubset = determinizer.start(scratch: &scratch, cap: maxWork) else {
            throw .tooManyDFAStates(limit: maxStates)
        }
        var heaviest = scratch.visits
        visited += scratch.visits
        guard heaviest < maxStep else { throw .tooManyDFAStates(limit: maxStates) }
        var subsets = [deadSubset, startSubset]
        var index: [Determinizer.Subset: Int32] = [deadSubset: 0]
        if index[subsets[1]] == nil { index[subsets[1]] = 1 }
        var transitions = [Int32](repeating: 0, count: 2 * classes.count)
        var next = 1
        while next < subsets.count {
            work += (subsets[next].positions.count + 1) * classes.count
            guard work <= maxWork else { throw .tooManyDFAStates(limit: maxStates) }
            for cls in 0..<classes.count {
                guard
                    let target = determinizer.step(
                        subsets[next], on: representatives[cls], scratch: &scratch, cap: max(0, maxWork - work))
                else { throw .tooManyDFAStates(limit: maxStates) }
                visited += scratch.visits
                if !target.positions.isEmpty || !target.tags.isEmpty {
                    heaviest = max(heaviest, scratch.visits)
                    guard heaviest < maxStep else { throw .tooManyDFAStates(limit: maxStates) }
                }
                let id: Int32
                if target.positions.isEmpty && target.tags.isEmpty {
                    id = Self.dead
                } else if let known = index[target] {
                    id = known
                } else {
                    guard subsets.count < maxStates else { throw .tooManyDFAStates(limit: maxStates) }
                    id = Int32(subsets.count)
                    index[target] = id
                    subsets.append(target)
                    transitions.append(contentsOf: repeatElement(0, count: classes.count))
                }
                transitions[next * classes.count + cls] = id
            }
            next += 1
        }
        self.classes = classes
        self.transitions = transitions
        self.accepts = subsets.map(\.tags)
        self.heaviestStep = heaviest
    }

    init(classes: ByteClasses, transitions: [Int32], accepts: [[Int32]], heaviestStep: Int) {
        self.classes = classes
        self.transitions = transitions
        self.accepts = accepts
        self.heaviestStep = heaviestStep
    }

    /// The tags accepted at the end of `text`.
    public func search(_ text: UnsafeBufferPointer<UInt8>) -> [Int32] {
        search(ByteView(text))
    }

    func search(_ text: ByteView) -> [Int32] {
        var state = Self.start
        for byte in text {
            state = transitions[Int(state) * classes.count + Int(classes.classOf[Int(byte)])]
            if state == Self.dead { return [] }
        }
        return accepts[Int(state)]
    }

    /// Heap bytes of the table.
    public var memoryUsage: Int { transitions.count * 4 + accepts.reduce(0) { $0 + $1.count * 4 + 16 } + 256 }
}
