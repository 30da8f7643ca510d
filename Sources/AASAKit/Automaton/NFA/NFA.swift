/// A Thompson NFA over UTF-8 bytes, with variables as shared sub-automata.
///
/// States are numbered densely and stored in flat arrays (compressed rows), so an NFA of a
/// million states is a handful of allocations. A state has byte-range transitions, epsilon
/// edges, and a kind:
///
/// - `plain`: nothing more;
/// - `match(tag)`: reaching it at the end of the text accepts `tag` (a rule number);
/// - `call(variable, next)`: enter the variable's sub-automaton, and continue at `next` when
///   one of its alternatives has been read;
/// - `ret`: the end of an alternative: continue at the caller's `next`.
///
/// Calls are what make variables cheap: `$(lang)` is one trie of 631 values, built once and
/// *shared* by every pattern that uses it, instead of being copied per use or, worse, expanded
/// into a list of patterns. Values cannot contain variables (SPEC 9), so a call never nests and
/// "the caller's `next`" is a single state: the determiniser tracks (state, continuation) pairs,
/// a finite set, and the language stays regular.
public struct NFA: Sendable {
    public typealias StateID = Int32

    public struct Transition: Sendable, Hashable {
        public var low: UInt8
        public var high: UInt8
        public var next: StateID
    }

    public enum Kind: Sendable, Hashable {
        case plain
        case match(tag: Int32)
        case call(variable: Int32, next: StateID)
        case ret
    }

    /// `transitions[transitionStart[s]..<transitionStart[s + 1]]` are state `s`'s byte ranges.
    let transitionStart: [Int32]
    let transitions: [Transition]
    let epsilonStart: [Int32]
    let epsilons: [StateID]
    public let kinds: [Kind]
    public let start: StateID
    /// The entry state of each variable's sub-automaton; -1 for an undefined variable, which
    /// therefore never matches (SPEC 9).
    public let variableStarts: [StateID]
    /// The variables' names, for dumps.
    public let variableNames: [String]

    public var stateCount: Int { kinds.count }

    @inline(__always)
    func transitions(of state: StateID) -> ArraySlice<Transition> {
        transitions[Int(transitionStart[Int(state)])..<Int(transitionStart[Int(state) + 1])]
    }

    @inline(__always)
    func epsilons(of state: StateID) -> ArraySlice<StateID> {
        epsilons[Int(epsilonStart[Int(state)])..<Int(epsilonStart[Int(state) + 1])]
    }

    /// Heap bytes of the compiled NFA.
    public var memoryUsage: Int {
        transitionStart.count * 4 + transitions.count * 8 + epsilonStart.count * 4 + epsilons.count * 4
            + kinds.count * 9 + variableStarts.count * 4
    }

    /// The byte classes no transition tells apart.
    public func byteClasses() -> ByteClasses {
        var boundaries = [Bool](repeating: false, count: 257)
        for transition in transitions {
            boundaries[Int(transition.low)] = true
            boundaries[Int(transition.high) + 1] = true
        }
        return ByteClasses(boundaries: Array(boundaries[0..<256]))
    }

    /// Rebuilds an NFA from its arrays (compiled artifacts); the caller has validated them.
    init(
        transitionStart: [Int32], transitions: [Transition], epsilonStart: [Int32], epsilons: [StateID], kinds: [Kind],
        start: StateID, variableStarts: [StateID], variableNames: [String]
    ) {
        self.transitionStart = transitionStart
        self.transitions = transitions
        self.epsilonStart = epsilonStart
        self.epsilons = epsilons
        self.kinds = kinds
        self.start = start
        self.variableStarts = variableStarts
        self.variableNames = variableNames
    }

    init(builder: NFABuilder, start: StateID, variableStarts: [StateID], variableNames: [String]) {
        (transitionStart, transitions) = Self.rows(builder.transitions, stateCount: builder.stateCount)
        (epsilonStart, epsilons) = Self.rows(builder.epsilons, stateCount: builder.stateCount)
        self.kinds = builder.kinds
        self.start = start
        self.variableStarts = variableStarts
        self.variableNames = variableNames
    }

    /// Edges listed in the order they were added, grouped by source state (a stable counting
    /// sort, so each state keeps its own edges in order): the row starts and the rows.
    @inline(__always)
    private static func rows<Edge>(_ edges: [(from: StateID, edge: Edge)], stateCount: Int) -> ([Int32], [Edge]) {
        var starts = [Int32](repeating: 0, count: stateCount + 1)
        for (from, _) in edges { starts[Int(from) + 1] += 1 }
        for state in 0..<stateCount { starts[state + 1] += starts[state] }
        guard let first = edges.first?.edge else { return (starts, []) }
        var next = starts
        var rows = [Edge](repeating: first, count: edges.count)
        for (from, edge) in edges {
            rows[Int(next[Int(from)])] = edge
            next[Int(from)] += 1
        }
        return (starts, rows)
    }
}

/// States while an NFA is being built: their kinds, and every edge in the order it was added
/// (one list for byte ranges, one for epsilons), grouped into `NFA`'s rows at the end.
///
/// Why flat lists: two arrays per state cost two allocations for every byte of every literal,
/// most of the cost of compiling a small document.
struct NFABuilder {
    private(set) var kinds: [NFA.Kind] = []
    private(set) var transitions: [(from: NFA.StateID, edge: NFA.Transition)] = []
    private(set) var epsilons: [(from: NFA.StateID, edge: NFA.StateID)] = []
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    var stateCount: Int { kinds.count }

    mutating func add(_ kind: NFA.Kind = .plain) throws(AutomatonError) -> NFA.StateID {
        guard kinds.count < limit else { throw .tooManyNFAStates(needed: kinds.count + 1, limit: limit) }
        kinds.append(kind)
        return NFA.StateID(kinds.count - 1)
    }

    mutating func addTransition(from: NFA.StateID, _ low: UInt8, _ high: UInt8, to: NFA.StateID) {
        transitions.append((from, NFA.Transition(low: low, high: high, next: to)))
    }

    mutating func addEpsilon(from: NFA.StateID, to: NFA.StateID) {
        epsilons.append((from, to))
    }

    mutating func setKind(_ state: NFA.StateID, _ kind: NFA.Kind) {
        kinds[Int(state)] = kind
    }

    /// Copies `part`, a builder whose states call nothing (a variable's sub-automaton built on
    /// its own), after this builder's states; returns the state `part` numbers 0.
    ///
    /// The copy is what building `part` here would have produced: the same states in the same
    /// order, each with its edges in the same order. Past the limit it throws what that build
    /// would have thrown: the first state it could not add is state `limit`.
    mutating func append(_ part: NFABuilder) throws(AutomatonError) -> NFA.StateID {
        let offset = NFA.StateID(kinds.count)
        guard part.kinds.count <= limit - kinds.count else {
            throw .tooManyNFAStates(needed: limit + 1, limit: limit)
        }
        kinds.append(contentsOf: part.kinds)
        transitions.append(
            contentsOf: part.transitions.lazy.map { (from, edge) in
                (from: from + offset, edge: NFA.Transition(low: edge.low, high: edge.high, next: edge.next + offset))
            })
        epsilons.append(contentsOf: part.epsilons.lazy.map { (from, to) in (from: from + offset, edge: to + offset) })
        return offset
    }
}
