extension LazyDFA {
    /// The mutable half of a lazy DFA: the states built so far, for one thread.
    ///
    /// States are added on demand while searching. When the next state would take the cache over
    /// its budget, everything is cleared (the search keeps the subset it is in and goes on), as
    /// RE2 does; the counters let benchmarks and tests see how often that happens.
    ///
    /// A state's subset lives in one flat arena (`positionArena`), found again through an
    /// open-addressing table of its hash: building a state allocates nothing once the arena
    /// and the table have grown, and its subset is hashed once.
    public final class Cache {
        let dfa: LazyDFA
        // PERF: a cache belongs to one thread; exclusivity checks on its storage are pure cost
        // (callgrind: `swift_beginAccess` was 8% of building states, paths-10000).
        let table: TransitionTable
        /// Per state (by row): where its positions are in `positionArena`, and their hash.
        @exclusivity(unchecked) var spans: [Span] = []
        @exclusivity(unchecked) var positionArena: [UInt64] = []
        /// Open addressing over rows: `row + 1`, or 0 for an empty slot; the count is a power of 2.
        @exclusivity(unchecked) var slots: [Int32] = []
        @exclusivity(unchecked) var tagSets: [TagSet] = []
        @exclusivity(unchecked) var tagSetIndex: [[Int32]: Int32] = [:]
        @exclusivity(unchecked) var startState: Int32 = TransitionTable.unknown
        /// With a prebuilt table: the index in `tagSets` of each of its tag sets.
        @exclusivity(unchecked) var prebuiltTagSets: [Int32] = []
        /// The prebuilt table's tag sets are this cache's, index for index (its set 0 is the
        /// empty one, as here): no interning at reset, and `prebuiltTagSets` is unused.
        @exclusivity(unchecked) var prebuiltSharesTagSets = false
        let scratch: StateScratch
        /// The budget searches charge (`WorkMeter`): the cache's own, begun at every search,
        /// until a matcher shares one across its automata for a whole URL (`share(meter:)`).
        @exclusivity(unchecked) public private(set) var meter: WorkMeter
        @exclusivity(unchecked) var ownsMeter = true
        /// Heavy transitions (`LazyDFA.heavyWeight`), kept out of the table: `state + class`
        /// (a premultiplied id plus a class is unique) → the target and the closure's weight.
        @exclusivity(unchecked) var heavyTargets: [Int: (target: Int32, weight: Int32)] = [:]
        /// The start state's closure weight, charged by every search when it is heavy.
        @exclusivity(unchecked) var startWeight = 0
        /// Held once: making one per state copied the NFA (eight array retains and releases).
        let determinizer: Determinizer

        /// Where one state's positions are, and their hash (with its tag set mixed in).
        struct Span {
            var start: Int32
            var count: Int32
            var hash: UInt64
        }


        /// Bytes in use by states, against `configuration.cacheCapacity`.
        @exclusivity(unchecked) public private(set) var memoryUsage = 0
        /// States built since the cache was made (deterministic for a given input sequence).
        @exclusivity(unchecked) public private(set) var statesBuilt = 0
        /// Times the cache was cleared because it was full.
        @exclusivity(unchecked) public private(set) var clearCount = 0
        /// Searches finished by NFA simulation.
        @exclusivity(unchecked) public private(set) var fallbackCount = 0

        init(dfa: LazyDFA) {
            self.dfa = dfa
            self.table = TransitionTable(classes: dfa.classes)
            self.determinizer = Determinizer(nfa: dfa.nfa)
            self.scratch = StateScratch(stateCount: dfa.nfa.stateCount)
            self.meter = WorkMeter(limit: dfa.configuration.maxURLWork)
            reset()
        }

        /// Charges this cache's searches to `meter`, which its owner begins once per URL.
        public func share(meter: WorkMeter) {
            self.meter = meter
            ownsMeter = false
        }

        /// Whether the last search (or, with a shared meter, the current URL) ran over its
        /// work budget; its answer is then meaningless and the URL is an error.
        public var workExceeded: Bool { meter.exceeded }

        /// Clears every state but the dead one.
        func reset() {
            table.removeAll()
            spans.removeAll(keepingCapacity: true)
            positionArena.removeAll(keepingCapacity: true)
            if slots.isEmpty {
                slots = Array(repeating: 0, count: 64)
            } else {
                for index in slots.indices { slots[index] = 0 }
            }
            tagSets.removeAll(keepingCapacity: true)
            tagSetIndex.removeAll(keepingCapacity: true)
            memoryUsage = 0
            startState = TransitionTable.unknown
            startWeight = 0
            if !heavyTargets.isEmpty { heavyTargets.removeAll(keepingCapacity: true) }
            // The dead state: no positions, no tags (tag set 0 is the empty set); it loops to itself.
            let empty = internTags([])
            let none = UnsafeBufferPointer<UInt64>(start: nil, count: 0)
            let dead = insert(positions: none, tagSet: empty, hash: Self.hash(of: none, tagSet: empty), tagCount: 0)
            for cls in 0..<table.stride { table.set(dead, class: cls, to: TransitionTable.dead) }
            // PERF: a 10 000-rule table has tens of thousands of tag sets; interning them
            // made every new matcher cost milliseconds (aasa-bench unseen URLs). Eager tables
            // start with the empty set, so theirs are used as they are.
            prebuiltSharesTagSets = false
            prebuiltTagSets = []
            if let prebuilt = dfa.prebuilt {
                if prebuilt.tagSets.first?.isEmpty == true {
                    tagSets = prebuilt.tagSets
                    prebuiltSharesTagSets = true
                } else {
                    prebuiltTagSets = prebuilt.tagSets.map { internTags($0.sorted) }
                }
            }
        }

        /// Mixes a state's positions and tag set index (a multiply-xorshift per word).
        static func hash(of positions: UnsafeBufferPointer<UInt64>, tagSet: Int32) -> UInt64 {
            var hash = UInt64(UInt32(bitPattern: tagSet)) &+ 0x9E37_79B9_7F4A_7C15
            for position in positions {
                hash = (hash ^ position) &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 29
            }
            return hash
        }

        /// The index of the tag set `tags` (sorted, unique), interning it if new.
        func internTags(_ tags: [Int32]) -> Int32 {
            if let known = lookupTags(tags) { return known }
            let index = Int32(tagSets.count)
            let set = TagSet(sorted: tags)
            tagSets.append(set)
            tagSetIndex[tags] = index
            memoryUsage += set.memoryUsage
            return index
        }

        /// `lookupTags` and `internTags` for the scratch's tags: an array is made only for a
        /// non-empty set (an accepting state).
        @inline(__always)
        func lookupTags(_ tags: ScratchBuffer<Int32>) -> Int32? {
            if tags.isEmpty, !tagSets.isEmpty { return 0 }
            return tagSetIndex[tags.array]
        }

        func internTags(_ tags: ScratchBuffer<Int32>) -> Int32 {
            if tags.isEmpty, !tagSets.isEmpty { return 0 }
            return internTags(tags.array)
        }

        @inline(__always)
        func lookupTags(_ tags: [Int32]) -> Int32? {
            // The empty set is interned first, at index 0; most states accept nothing.
            if tags.isEmpty, !tagSets.isEmpty { return 0 }
            return tagSetIndex[tags]
        }

        /// The state with these positions and tag set, if built.
        func find(positions: UnsafeBufferPointer<UInt64>, tagSet: Int32, hash: UInt64) -> Int32? {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                let row = Int(entry) - 1
                let span = spans[row]
                if span.hash == hash, Int(span.count) == positions.count {
                    let id = Int32(row * table.rowWidth)
                    if table.tagSet(of: id) == tagSet, samePositions(span, positions) { return id }
                }
                slot = (slot + 1) & mask
            }
        }

        private func samePositions(_ span: Span, _ positions: UnsafeBufferPointer<UInt64>) -> Bool {
            positionArena.withUnsafeBufferPointer { arena in
                for index in 0..<positions.count where arena[Int(span.start) + index] != positions[index] { return false }
                return true
            }
        }

        /// Adds a state known to be new; returns its premultiplied id.
        func insert(positions: UnsafeBufferPointer<UInt64>, tagSet: Int32, hash: UInt64, tagCount: Int) -> Int32 {
            let id = table.addRow(tagSet: tagSet)
            let row = spans.count
            spans.append(Span(start: Int32(positionArena.count), count: Int32(positions.count), hash: hash))
            positionArena.append(contentsOf: positions)
            if spans.count * 2 > slots.count { growSlots() } else { place(row: row, hash: hash) }
            memoryUsage += dfa.stateOverhead + positions.count * 16 + tagCount * 8
            statesBuilt += 1
            return id
        }

        private func place(row: Int, hash: UInt64) {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(row + 1)
        }

        private func growSlots() {
            slots = Array(repeating: 0, count: slots.count * 2)
            for row in spans.indices { place(row: row, hash: spans[row].hash) }
        }

        /// The subset of `state` (for the NFA fallback).
        func subset(of state: Int32) -> Determinizer.Subset {
            let span = spans[table.row(of: state)]
            let positions = Array(positionArena[Int(span.start)..<Int(span.start + span.count)])
            return Determinizer.Subset(positions: positions, tags: tagSets[Int(table.tagSet(of: state))].sorted)
        }

        func tags(of state: Int32) -> TagSet {
            tagSets[Int(table.tagSet(of: state))]
        }

        @inline(__always)
        func start() -> Int32 {
            startState != TransitionTable.unknown ? startState : buildStart()
        }

        /// Builds the start state; `TransitionTable.dead` with the meter exhausted when its
        /// closure alone passes the work limit.
        private func buildStart() -> Int32 {
            if startState == TransitionTable.unknown {
                scratch.seeds.removeAll()
                scratch.seeds.append(Determinizer.pack(dfa.nfa.start, continuation: -1))
                guard determinizer.closeSeeds(scratch: scratch, cap: meter.limit) else {
                    meter.exhaust()
                    return TransitionTable.dead
                }
                let weight = scratch.visits
                startState = intern(from: nil).state
                startWeight = weight
            }
            return startState
        }

        /// The state whose subset `closeSeeds` left in the scratch: found, or built. When the
        /// new state does not fit, the cache is cleared first and `source` (the state the
        /// search is in) is rebuilt; its new id is returned beside the result.
        func intern(from source: Int32?) -> (state: Int32, source: Int32?) {
            let tagCount = scratch.tags.count
            var knownHash: UInt64?
            if let knownTags = lookupTags(scratch.tags) {
                let found: Int32? = scratch.positions.withUnsafeBufferPointer { positions in
                    let hash = Self.hash(of: positions, tagSet: knownTags)
                    knownHash = hash
                    return find(positions: positions, tagSet: knownTags, hash: hash)
                }
                if let found { return (found, source) }
            }
            var from = source
            var cleared = false
            let cost = dfa.stateOverhead + scratch.positions.count * 16 + tagCount * 8 + 64
            if memoryUsage + cost > dfa.configuration.cacheCapacity, table.stateCount > 2 {
                clearCount += 1
                cleared = true
                let kept = source.map { subset(of: $0) }
                reset()
                if let kept {
                    let tags = internTags(kept.tags)
                    from = kept.positions.withUnsafeBufferPointer { positions in
                        insert(
                            positions: positions, tagSet: tags, hash: Self.hash(of: positions, tagSet: tags),
                            tagCount: kept.tags.count)
                    }
                }
            }
            let tags = internTags(scratch.tags)
            let state = scratch.positions.withUnsafeBufferPointer { positions in
                let hash = !cleared ? knownHash ?? Self.hash(of: positions, tagSet: tags) : Self.hash(of: positions, tagSet: tags)
                // After a clear the new state may be the rebuilt source (a loop).
                if cleared, let found = find(positions: positions, tagSet: tags, hash: hash) { return found }
                return insert(positions: positions, tagSet: tags, hash: hash, tagCount: tagCount)
            }
            return (state, from)
        }

        /// Computes (and caches) the transition of `state` on the class of `byte`, clearing the
        /// cache first when the new state would not fit. A heavy transition is charged to the
        /// meter every time (`WorkMeter` says why); past the budget the answer is
        /// `TransitionTable.dead` with the meter exceeded.
        func computeTransition(from state: Int32, byte: UInt8) -> Int32 {
            let cls = table.classOf(byte)
            if let heavy = heavyTargets[Int(state) + cls] {
                return meter.charge(Int(heavy.weight)) ? heavy.target : TransitionTable.dead
            }
            let span = spans[table.row(of: state)]
            positionArena.withUnsafeBufferPointer { arena in
                determinizer.collectSeeds(
                    from: UnsafeBufferPointer(rebasing: arena[Int(span.start)..<Int(span.start + span.count)]),
                    on: dfa.representatives[cls], scratch: scratch)
            }
            guard determinizer.closeSeeds(scratch: scratch, cap: meter.limit) else {
                meter.exhaust()
                return TransitionTable.dead
            }
            if scratch.positions.isEmpty && scratch.tags.isEmpty {
                table.set(state, class: cls, to: TransitionTable.dead)
                return TransitionTable.dead
            }
            let weight = scratch.visits
            let (next, from) = intern(from: state)
            guard let from else { return next }
            if weight < LazyDFA.heavyWeight {
                table.set(from, class: cls, to: next)
                return next
            }
            heavyTargets[Int(from) + cls] = (next, Int32(clamping: weight))
            return meter.charge(weight) ? next : TransitionTable.dead
        }

        func noteFallback() { fallbackCount += 1 }
    }
}
