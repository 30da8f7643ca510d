extension LazyDFA.Cache {
    /// Builds every state reachable from the start, row by row, with the lazy construction
    /// itself (so the states are exactly the ones searches would build). Returns false, leaving
    /// a partial cache, past `maxStates`, past `maxWork` NFA positions read (a few states of
    /// huge subsets cost as much as many small ones), or when the cache had to be cleared.
    /// `spent` gets the positions read and the closures' visits, finished or not; closures stop
    /// at `maxClosures` visits (16 × `maxWork` when nil).
    func determinizeAll(maxStates: Int, maxWork: Int, maxClosures: Int? = nil, spent: inout Int) -> Bool {
        var work = 0
        // Closures are charged apart, with more room: a linear DFA's closures visit about the
        // positions its states keep, once per distinct target of a row.
        var closureWork = 0
        defer { spent = work + closureWork }
        let closureCap = maxClosures ?? 16 * maxWork
        let startState = start()
        if meter.exceeded || startState == TransitionTable.dead { return false }
        let clears = clearCount
        var row = table.row(of: startState)
        var classSeeds = ClassSeeds(stride: table.stride)
        while row < table.stateCount {
            work += Int(store.value.spans[row].count) + 1
            if work > maxWork { return false }
            // Closures count too: one blown-up closure must not cost more than the whole budget.
            guard computeRow(
                Int32(row * table.rowWidth), &classSeeds, closures: &closureWork, maxWork: maxWork, maxClosures: closureCap)
            else {
                return false
            }
            if clearCount != clears || table.stateCount > maxStates { return false }
            row += 1
        }
        return true
    }

    /// Reused buffers for `computeRow`.
    struct ClassSeeds {
        /// `(class, seed)` pairs of one row, then the seeds bucketed by class.
        var pairs: [(cls: Int32, seed: UInt64)] = []
        var start: [Int]
        var fill: [Int]
        var sorted: [UInt64] = []
        /// The distinct seed lists of the row so far: their hash, range in `sorted`, target.
        var distinct: [(hash: UInt64, start: Int, end: Int, target: Int32)] = []

        init(stride: Int) {
            start = Array(repeating: 0, count: stride + 1)
            fill = Array(repeating: 0, count: stride)
        }
    }

    /// Computes every transition of `state` at once. Reading each NFA position once per row
    /// (its byte ranges cover runs of classes) instead of once per class, and closing each
    /// distinct seed list once (most classes of a row lead to the same state: the dead one, or
    /// the loop of a `*` already passed), makes a row cost a few closures instead of one per
    /// class.
    /// Returns false when the row's (class, seed) pairs passed `maxWork`, or its closures,
    /// added to `spent`, passed `maxClosures` visited positions (the row is then partial).
    private func computeRow(
        _ state: Int32, _ work: inout ClassSeeds, closures spent: inout Int, maxWork: Int, maxClosures: Int
    ) -> Bool {
        let stride = table.stride
        work.pairs.removeAll(keepingCapacity: true)
        let span = store.value.spans[table.row(of: state)]
        let classOf = dfa.classes.classOf
        let nfa = dfa.nfa
        // The (class, seed) pairs are positions × classes: bounded by the work left too.
        let maxPairs = maxWork
        let fits: Bool = store.value.positionArena.withView { arena in
            nfa.transitionStart.withView { starts in
                nfa.transitions.withView { transitions in
                    for position in arena[Int(span.start)..<Int(span.start + span.count)] {
                        if work.pairs.count > maxPairs { return false }
                        let nfaState = Int(truncatingIfNeeded: position & 0xFFFF_FFFF)
                        let high = position & 0xFFFF_FFFF_0000_0000
                        for index in Int(starts[nfaState])..<Int(starts[nfaState + 1]) {
                            let transition = transitions[index]
                            let seed = UInt64(UInt32(bitPattern: transition.next)) | high
                            for cls in Int(classOf[Int(transition.low)])...Int(classOf[Int(transition.high)]) {
                                work.pairs.append((Int32(cls), seed))
                            }
                        }
                    }
                    return true
                }
            }
        }
        guard fits else { return false }
        // Counting sort of the seeds by class, keeping each class's seeds in position order.
        for cls in 0...stride { work.start[cls] = 0 }
        for pair in work.pairs { work.start[Int(pair.cls) + 1] += 1 }
        for cls in 0..<stride {
            work.start[cls + 1] += work.start[cls]
            work.fill[cls] = work.start[cls]
        }
        if work.sorted.count < work.pairs.count { work.sorted = Array(repeating: 0, count: work.pairs.count * 2) }
        for pair in work.pairs {
            work.sorted[work.fill[Int(pair.cls)]] = pair.seed
            work.fill[Int(pair.cls)] += 1
        }
        work.distinct.removeAll(keepingCapacity: true)
        var source = state
        for cls in 0..<stride where table.get(source, class: cls) == TransitionTable.unknown {
            let (low, high) = (work.start[cls], work.start[cls + 1])
            if low == high {
                table.set(source, class: cls, to: TransitionTable.dead)
                continue
            }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for index in low..<high { hash = (hash ^ work.sorted[index]) &* 0x100_0000_01B3 }
            var known: Int32?
            for entry in work.distinct where entry.hash == hash && entry.end - entry.start == high - low {
                if (0..<(high - low)).allSatisfy({ work.sorted[entry.start + $0] == work.sorted[low + $0] }) {
                    known = entry.target
                    break
                }
            }
            if let known {
                table.set(source, class: cls, to: known)
                continue
            }
            scratch.seeds.removeAll()
            for index in low..<high { scratch.seeds.append(work.sorted[index]) }
            guard determinizer.closeSeeds(scratch: scratch, cap: min(maxWork, maxClosures - spent)) else { return false }
            spent += scratch.visits
            let next: Int32
            if scratch.positions.isEmpty && scratch.tags.isEmpty {
                next = TransitionTable.dead
            } else {
                let (interned, from) = intern(from: source)
                // A clear renumbers every state: the caller stops (`determinizeAll`).
                guard let from, from == source else { return true }
                source = from
                next = interned
            }
            work.distinct.append((hash, low, high, next))
            table.set(source, class: cls, to: next)
        }
        return true
    }
}

extension LazyDFA.Prebuilt {
    /// What determinising an automaton whole came to (`eager`).
    enum EagerOutcome {
        case built(LazyDFA.Prebuilt)
        /// Past `maxStates` states or its work bound: the DFA is blowing up.
        case notDetermined
        /// Determined, but its dense rows (`bytes`) stay within the minimum.
        case denseRowsWithinMinimum(states: Int, bytes: Int)
        /// Determined, but the compact form refused it.
        case notCompactable(states: Int)
    }

    /// The whole DFA of `nfa`, determinised now, in the compact form (`Compact`), when it has
    /// at most `maxStates` states and its dense rows would take more than `minimumBytes`.
    /// `Planner` decides when to ask (`Plan/Planner.swift` says why).
    ///
    /// `maxStates` bounds the work: a document whose DFA blows up is left lazy after building
    /// that many states.
    ///
    /// With `budget` (a document's `eager-dfa-work`), the positions read and visited and the
    /// table's cells are charged to it, and closures stop where it ends.
    static func eager(
        _ nfa: NFA, configuration: LazyDFA.Configuration, maxStates: Int, minimumBytes: Int, budget: EagerBudget? = nil
    ) -> EagerOutcome {
        guard maxStates >= 2, let dfa = try? LazyDFA(nfa: nfa, configuration: configuration) else { return .notDetermined }
        let cache = dfa.makeCache()
        var spent = 0
        // Eight positions a state on average: a linear DFA (trie nodes and a few `*` loops)
        // uses about five; a blow-up's subsets hold hundreds and stop here early.
        let determined = cache.determinizeAll(
            maxStates: maxStates, maxWork: min(8 * maxStates, budget?.left ?? .max),
            maxClosures: budget.map { min(128 * maxStates, max(0, $0.left)) }, spent: &spent)
        budget?.left -= spent + cache.table.stateCount * cache.table.stride
        guard determined else { return .notDetermined }
        let table = cache.table
        let stride = table.stride
        let rows = table.stateCount
        guard rows * stride * 4 > minimumBytes else { return .denseRowsWithinMinimum(states: rows, bytes: rows * stride * 4) }
        // Rows as the cache numbered them: 0 dead, then the start (built first).
        let startRow = table.row(of: cache.start())
        guard startRow == 1 else { return .notCompactable(states: rows) }
        var targets = [Int32](repeating: 0, count: rows * stride)
        var acceptOf = [Int32](repeating: 0, count: rows)
        for row in 0..<rows {
            let id = Int32(row * table.rowWidth)
            for cls in 0..<stride {
                let next = table.get(id, class: cls)
                targets[row * stride + cls] = next <= 0 ? 0 : Int32(table.row(of: next))
            }
            acceptOf[row] = table.tagSet(of: id)
        }
        let classOf = dfa.classes.classOf
        guard let compact = Compact(targets: targets, acceptOf: acceptOf, stride: stride, classOf: classOf) else {
            return .notCompactable(states: rows)
        }
        return .built(LazyDFA.Prebuilt(stride: stride, classOf: classOf, compact: compact, stateCount: rows, tagSets: cache.tagSets))
    }

    /// `eager`'s table, or nil (tests).
    convenience init?(
        eager nfa: NFA, configuration: LazyDFA.Configuration, maxStates: Int, minimumBytes: Int
    ) {
        guard case .built(let table) = Self.eager(
            nfa, configuration: configuration, maxStates: maxStates, minimumBytes: minimumBytes),
            let compact = table.compact
        else { return nil }
        self.init(stride: table.stride, classOf: table.classOf, compact: compact, stateCount: table.stateCount, tagSets: table.tagSets)
    }
}
