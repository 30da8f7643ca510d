/// The determiniser's allocation-free form, for the lazy DFA's cache and the analyses' explorer
/// (`URLExplorer.Track`): seeds, closure and result all live in `StateScratch` buffers that grow
/// once and are reused for every state built.
///
/// PERF: building a state through `step` allocated three arrays (positions, tags, unique tags),
/// retained an array slice per NFA state visited and hashed the subset twice (lookup, then
/// insert); at 10 000 path rules that was about 8 600 instructions per state for subsets of
/// five positions (callgrind, `paths-10000` unseen URLs). This form writes into reused buffers
/// and reads the NFA through views (`BufferView`: no retain, no bounds check in release), and the
/// cache hashes the result once.
extension Determinizer {
    /// Fills `scratch.seeds` with the positions `positions` reach on `byte`.
    func collectSeeds(from positions: BufferView<UInt64>, on byte: UInt8, scratch: StateScratch) {
        scratch.seeds.removeAll()
        nfa.transitionStart.withView { starts in
            nfa.transitions.withView { transitions in
                for position in positions {
                    let state = Int(truncatingIfNeeded: position & 0xFFFF_FFFF)
                    let high = position & 0xFFFF_FFFF_0000_0000
                    // Positions come from closures of this NFA, so `state + 1` indexes
                    // `transitionStart`, whose entries index `transitions`.
                    for index in Int(starts[state])..<Int(starts[state &+ 1]) {
                        let transition = transitions[index]
                        if transition.low <= byte && byte <= transition.high {
                            scratch.seeds.append(UInt64(UInt32(bitPattern: transition.next)) | high)
                        }
                    }
                }
            }
        }
    }

    /// The epsilon closure of `scratch.seeds`, left in `scratch.positions` (sorted: the
    /// canonical key of a DFA state; unsorted with `canonical: false`, for NFA simulation,
    /// which never compares subsets) and `scratch.tags` (sorted, without duplicates); the
    /// positions it visited in `scratch.visits`, the state's weight.
    ///
    /// Returns false, leaving a partial closure, as soon as it has visited more than `cap`
    /// positions: variables shared by many call sites can make one closure hold (call sites ×
    /// variable states) positions, so its size is checked as it grows, never after.
    func closeSeeds(scratch: StateScratch, cap: Int, canonical: Bool = true) -> Bool {
        scratch.clearVisited()
        scratch.stack.removeAll()
        scratch.positions.removeAll()
        scratch.tags.removeAll()
        var visits = 0
        scratch.seeds.withView { seeds in
            for seed in seeds where scratch.visit(seed) {
                scratch.stack.append(seed)
                visits &+= 1
            }
        }
        // The views are passed to a function, not captured, so that the loop keeps `visits`
        // in a register whatever the closures' inlining.
        visits = nfa.transitionStart.withView { transitionStart in
            nfa.epsilonStart.withView { epsilonStart in
                nfa.epsilons.withView { epsilons in
                    nfa.kinds.withView { kinds in
                        drainStack(
                            scratch: scratch, cap: cap, visits: visits, transitionStart: transitionStart,
                            epsilonStart: epsilonStart, epsilons: epsilons, kinds: kinds)
                    }
                }
            }
        }
        scratch.visits = visits
        if visits > cap { return false }
        if canonical, scratch.positions.count > 1 { scratch.positions.sort() }
        if scratch.tags.count > 1 {
            scratch.tags.sort()
            var kept = 1
            for index in 1..<scratch.tags.count where scratch.tags[index] != scratch.tags[kept - 1] {
                scratch.tags[kept] = scratch.tags[index]
                kept += 1
            }
            scratch.tags.truncate(to: kept)
        }
        return true
    }

    /// `closeSeeds`' loop: pops positions until the stack is empty or more than `cap` were
    /// visited; returns the visits counted so far.
    ///
    /// Every state id on the stack is an NFA state (seeds come from transitions, the rest from
    /// epsilons, calls and returns of this NFA), and the start arrays have stateCount + 1
    /// entries, so every read below is in bounds (`BufferView` asserts it).
    private func drainStack(
        scratch: StateScratch, cap: Int, visits: Int, transitionStart: BufferView<Int32>,
        epsilonStart: BufferView<Int32>, epsilons: BufferView<NFA.StateID>, kinds: BufferView<NFA.Kind>
    ) -> Int {
        var visits = visits
        while let position = scratch.stack.popLast() {
            if visits > cap { break }
            let state = Int(truncatingIfNeeded: position & 0xFFFF_FFFF)
            let continuation = NFA.StateID(truncatingIfNeeded: position >> 32) - 1
            switch kinds[state] {
            case .plain:
                break
            case .match(let tag):
                scratch.tags.append(tag)
            case .call(let variable, let next):
                let entry = nfa.variableStarts[Int(variable)]
                if entry >= 0 {
                    let packed = Self.pack(entry, continuation: next)
                    if scratch.visit(packed) {
                        scratch.stack.append(packed)
                        visits &+= 1
                    }
                }
            case .ret:
                if continuation >= 0 {
                    let packed = Self.pack(continuation, continuation: -1)
                    if scratch.visit(packed) {
                        scratch.stack.append(packed)
                        visits &+= 1
                    }
                }
            }
            if transitionStart[state &+ 1] > transitionStart[state] { scratch.positions.append(position) }
            let high = position & 0xFFFF_FFFF_0000_0000
            for index in Int(epsilonStart[state])..<Int(epsilonStart[state &+ 1]) {
                let packed = UInt64(UInt32(bitPattern: epsilons[index])) | high
                if scratch.visit(packed) {
                    scratch.stack.append(packed)
                    visits &+= 1
                }
            }
        }
        return visits
    }
}
