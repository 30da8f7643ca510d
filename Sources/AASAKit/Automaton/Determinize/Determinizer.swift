/// Subset construction, shared by the lazy DFA, the eager DFA and NFA simulation.
///
/// A DFA state is a set of NFA *positions*. Because variables are shared sub-automata entered by
/// `call` and left by `ret`, a position is a pair: the NFA state, and the state to continue at
/// when the current variable alternative ends (or none, outside variables). Pairs are packed in
/// a `UInt64` (state in the low half, continuation + 1 in the high half).
///
/// Only positions that can consume a byte are kept in a state's key; epsilon-only states are
/// followed and dropped, and `match` states contribute their tag. Two subsets with the same
/// byte-consuming positions and the same tags behave identically, so they are one DFA state.
struct Determinizer {
    let nfa: NFA

    /// A DFA state's content: sorted byte-consuming positions, and sorted accepted tags.
    struct Subset: Hashable {
        var positions: [UInt64]
        var tags: [Int32]
    }

    @inline(__always)
    static func pack(_ state: NFA.StateID, continuation: NFA.StateID) -> UInt64 {
        UInt64(UInt32(bitPattern: state)) | (UInt64(UInt32(bitPattern: continuation + 1)) << 32)
    }

    @inline(__always)
    static func unpack(_ position: UInt64) -> (state: NFA.StateID, continuation: NFA.StateID) {
        (NFA.StateID(truncatingIfNeeded: position & 0xFFFF_FFFF), NFA.StateID(truncatingIfNeeded: position >> 32) - 1)
    }

    /// Scratch space reused across closures, so building a state does not allocate sets.
    struct Scratch {
        /// Visited positions outside variables (continuation none), by NFA state.
        var visitedStates = SparseSet(capacity: 0)
        /// Visited positions inside variable alternatives (they carry a continuation).
        var visitedPairs = Set<UInt64>()
        var stack: [UInt64] = []
        var seeds: [UInt64] = []
        /// Positions the last closure visited.
        var visits = 0

        /// Marks a position visited; returns whether it was new.
        @inline(__always)
        mutating func visit(_ position: UInt64) -> Bool {
            if position >> 32 == 0 {
                return visitedStates.insert(Int32(truncatingIfNeeded: position))
            }
            return visitedPairs.insert(position).inserted
        }
    }

    /// The epsilon closure of `seeds`: a canonical (sorted) subset. Nil as soon as it
    /// has visited more than `cap` positions (`closeSeeds` says why); `scratch.visits` holds
    /// the positions visited, the subset's weight.
    func closure(of seeds: [UInt64], scratch: inout Scratch, cap: Int) -> Subset? {
        if scratch.visitedStates.capacity < nfa.stateCount {
            scratch.visitedStates = SparseSet(capacity: nfa.stateCount)
        }
        scratch.visitedStates.removeAll()
        scratch.visitedPairs.removeAll(keepingCapacity: true)
        scratch.stack.removeAll(keepingCapacity: true)
        var positions: [UInt64] = []
        var tags: [Int32] = []
        var visits = 0
        for seed in seeds where scratch.visit(seed) {
            scratch.stack.append(seed)
            visits += 1
        }
        while let position = scratch.stack.popLast() {
            if visits > cap {
                scratch.visits = visits
                return nil
            }
            let (state, continuation) = Self.unpack(position)
            func push(_ next: NFA.StateID, _ nextContinuation: NFA.StateID) {
                let packed = Self.pack(next, continuation: nextContinuation)
                if scratch.visit(packed) {
                    scratch.stack.append(packed)
                    visits += 1
                }
            }
            switch nfa.kinds[Int(state)] {
            case .plain:
                break
            case .match(let tag):
                tags.append(tag)
            case .call(let variable, let next):
                let entry = nfa.variableStarts[Int(variable)]
                if entry >= 0 { push(entry, next) }
            case .ret:
                if continuation >= 0 { push(continuation, -1) }
            }
            if !nfa.transitions(of: state).isEmpty { positions.append(position) }
            for next in nfa.epsilons(of: state) { push(next, continuation) }
        }
        scratch.visits = visits
        if visits > cap { return nil }
        positions.sort()
        tags.sort()
        var uniqueTags: [Int32] = []
        uniqueTags.reserveCapacity(tags.count)
        for tag in tags where uniqueTags.last != tag { uniqueTags.append(tag) }
        return Subset(positions: positions, tags: uniqueTags)
    }

    /// The start state's subset, nil past `cap` visited positions.
    func start(scratch: inout Scratch, cap: Int) -> Subset? {
        closure(of: [Self.pack(nfa.start, continuation: -1)], scratch: &scratch, cap: cap)
    }

    /// The subset reached from `subset` on `byte`, nil past `cap` visited positions.
    func step(_ subset: Subset, on byte: UInt8, scratch: inout Scratch, cap: Int) -> Subset? {
        var seeds = scratch.seeds
        seeds.removeAll(keepingCapacity: true)
        for position in subset.positions {
            let (state, continuation) = Self.unpack(position)
            for transition in nfa.transitions(of: state) where transition.low <= byte && byte <= transition.high {
                seeds.append(Self.pack(transition.next, continuation: continuation))
            }
        }
        let result = closure(of: seeds, scratch: &scratch, cap: cap)
        scratch.seeds = seeds
        return result
    }
}
