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
        var transitionStart: [Int32] = [0]
        var transitions: [Transition] = []
        var epsilonStart: [Int32] = [0]
        var epsilons: [StateID] = []
        transitionStart.reserveCapacity(builder.states.count + 1)
        epsilonStart.reserveCapacity(builder.states.count + 1)
        for state in builder.states {
            transitions += state.transitions
            transitionStart.append(Int32(transitions.count))
            epsilons += state.epsilons
            epsilonStart.append(Int32(epsilons.count))
        }
        self.transitionStart = transitionStart
        self.transitions = transitions
        self.epsilonStart = epsilonStart
        self.epsilons = epsilons
        self.kinds = builder.states.map(\.kind)
        self.start = start
        self.variableStarts = variableStarts
        self.variableNames = variableNames
    }
}

/// Mutable states while an NFA is being built; frozen into `NFA`'s flat arrays at the end.
struct NFABuilder {
    struct State {
        var transitions: [NFA.Transition] = []
        var epsilons: [NFA.StateID] = []
        var kind: NFA.Kind = .plain
    }

    var states: [State] = []
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    mutating func add(_ kind: NFA.Kind = .plain) throws(AutomatonError) -> NFA.StateID {
        guard states.count < limit else { throw .tooManyNFAStates(needed: states.count + 1, limit: limit) }
        states.append(State(kind: kind))
        return NFA.StateID(states.count - 1)
    }

    mutating func addTransition(from: NFA.StateID, _ low: UInt8, _ high: UInt8, to: NFA.StateID) {
        states[Int(from)].transitions.append(NFA.Transition(low: low, high: high, next: to))
    }

    mutating func addEpsilon(from: NFA.StateID, to: NFA.StateID) {
        states[Int(from)].epsilons.append(to)
    }

    mutating func setKind(_ state: NFA.StateID, _ kind: NFA.Kind) {
        states[Int(state)].kind = kind
    }
}
