extension LazyDFA {
    /// The mutable half of a lazy DFA: the states built so far, for one thread.
    ///
    /// States are added on demand while searching. When the next state would take the cache over
    /// its budget, everything is cleared (the search keeps the subset it is in and goes on), as
    /// RE2 does; the counters let benchmarks and tests see how often that happens.
    public final class Cache {
        unowned let dfa: LazyDFA
        // PERF: a cache belongs to one thread; exclusivity checks on the table are pure cost.
        @exclusivity(unchecked) var table: TransitionTable
        /// Per state (by row index): its subset and the index of its tag set.
        var subsets: [Determinizer.Subset] = []
        var tagSetOfState: [Int32] = []
        var tagSets: [TagSet] = []
        var tagSetIndex: [[Int32]: Int32] = [:]
        var stateIndex: [Determinizer.Subset: Int32] = [:]
        var startState: Int32 = TransitionTable.unknown
        var scratch = Determinizer.Scratch()
        let classOf: [UInt8]

        /// Bytes in use by states, against `configuration.cacheCapacity`.
        public private(set) var memoryUsage = 0
        /// States built since the cache was made (deterministic for a given input sequence).
        public private(set) var statesBuilt = 0
        /// Times the cache was cleared because it was full.
        public private(set) var clearCount = 0
        /// Searches finished by NFA simulation.
        public private(set) var fallbackCount = 0

        init(dfa: LazyDFA) {
            self.dfa = dfa
            self.table = TransitionTable(stride: dfa.classes.count)
            self.classOf = dfa.classes.classOf
            reset()
        }

        /// Clears every state but the dead one.
        func reset() {
            table.removeAll()
            subsets.removeAll(keepingCapacity: true)
            tagSetOfState.removeAll(keepingCapacity: true)
            tagSets.removeAll(keepingCapacity: true)
            tagSetIndex.removeAll(keepingCapacity: true)
            stateIndex.removeAll(keepingCapacity: true)
            memoryUsage = 0
            startState = TransitionTable.unknown
            let dead = Determinizer.Subset(positions: [], tags: [])
            _ = insert(dead)
            // The dead state loops to itself.
            for cls in 0..<table.stride { table.set(TransitionTable.dead, class: cls, to: TransitionTable.dead) }
        }

        /// Adds a state (or finds it); returns its premultiplied id.
        func insert(_ subset: Determinizer.Subset) -> Int32 {
            if let existing = stateIndex[subset] { return existing }
            let id = table.addRow()
            subsets.append(subset)
            let tagIndex: Int32
            if let known = tagSetIndex[subset.tags] {
                tagIndex = known
            } else {
                tagIndex = Int32(tagSets.count)
                let tags = TagSet(sorted: subset.tags)
                tagSets.append(tags)
                tagSetIndex[subset.tags] = tagIndex
                memoryUsage += tags.memoryUsage
            }
            tagSetOfState.append(tagIndex)
            stateIndex[subset] = id
            memoryUsage += dfa.stateOverhead + subset.positions.count * 16 + subset.tags.count * 8
            statesBuilt += 1
            return id
        }

        func subset(of state: Int32) -> Determinizer.Subset {
            subsets[Int(state) / table.stride]
        }

        func tags(of state: Int32) -> TagSet {
            tagSets[Int(tagSetOfState[Int(state) / table.stride])]
        }

        func start() -> Int32 {
            if startState == TransitionTable.unknown {
                let determinizer = Determinizer(nfa: dfa.nfa)
                startState = insert(determinizer.start(scratch: &scratch))
            }
            return startState
        }

        /// Computes (and caches) the transition of `state` on the class of `byte`, clearing the
        /// cache first when the new state would not fit.
        func computeTransition(from state: Int32, byte: UInt8) -> Int32 {
            let cls = Int(classOf[Int(byte)])
            let determinizer = Determinizer(nfa: dfa.nfa)
            let source = subset(of: state)
            let target = determinizer.step(source, on: dfa.representatives[cls], scratch: &scratch)
            if target.positions.isEmpty && target.tags.isEmpty {
                table.set(state, class: cls, to: TransitionTable.dead)
                return TransitionTable.dead
            }
            if let existing = stateIndex[target] {
                table.set(state, class: cls, to: existing)
                return existing
            }
            var from = state
            let cost = dfa.stateOverhead + target.positions.count * 16 + target.tags.count * 8 + 64
            if memoryUsage + cost > dfa.configuration.cacheCapacity, table.stateCount > 2 {
                clearCount += 1
                reset()
                from = insert(source)
            }
            let next = insert(target)
            table.set(from, class: cls, to: next)
            return next
        }

        func noteFallback() { fallbackCount += 1 }
    }
}
