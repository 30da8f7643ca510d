extension LazyDFA {
    /// The mutable half of a lazy DFA: the states built so far, for one thread.
    ///
    /// States are added on demand while searching. When the next state would take the cache over
    /// its budget, everything is cleared (the search keeps the subset it is in and goes on), as
    /// RE2 does; the counters let benchmarks and tests see how often that happens.
    ///
    /// A state's subset lives in one flat arena (`positionArena`), found again by its hash
    /// (`HashSlots`): building a state allocates nothing once the arena and the index have
    /// grown, and its subset is hashed once.
    public final class Cache {
        let dfa: LazyDFA
        let table: TransitionTable
        /// Everything else a search changes, in one cell without dynamic exclusivity checks:
        /// a cache belongs to one thread, and no access to the store calls out to code that
        /// reaches it again while the access lasts (the closures lent a view of its arrays only
        /// read it, or write the scratch).
        // PERF: exclusivity checks on this storage are pure cost (callgrind: `swift_beginAccess`
        // was 8% of building states, paths-10000).
        let store: UnsharedCell<Store>
        let scratch: StateScratch
        /// Held once: making one per state copied the NFA (eight array retains and releases).
        let determinizer: Determinizer

        /// The cache's mutable state.
        struct Store {
            /// Per state (by row): where its positions are in `positionArena`.
            var spans: [Span] = []
            var positionArena: [UInt64] = []
            /// The states' rows by the hash of their positions and tag set (`hash(of:tagSet:)`):
            /// a row is the index's id.
            var rows = HashSlots()
            var tagSets: [TagSet] = []
            /// The index of each non-empty tag set (the empty one is always set 0).
            var tagSetIndex: [[Int32]: Int32] = [:]
            var startState: Int32 = TransitionTable.unknown
            /// With a prebuilt table: the index in `tagSets` of each of its tag sets.
            var prebuiltTagSets: [Int32] = []
            /// The prebuilt table's tag sets are this cache's, index for index (its set 0 is the
            /// empty one, as here): no interning at reset, and `prebuiltTagSets` is unused.
            var prebuiltSharesTagSets = false
            /// The budget searches charge (`WorkMeter`): the cache's own, begun at every
            /// search, until a matcher shares one across its automata for a whole URL
            /// (`share(meter:)`).
            var meter: WorkMeter
            var ownsMeter = true
            /// Heavy transitions (`LazyDFA.heavyWeight`), kept out of the table: `state + class`
            /// (a premultiplied id plus a class is unique) → the target and the closure's weight.
            var heavyTargets: [Int: (target: Int32, weight: Int32)] = [:]
            /// The start state's closure weight, charged by every search when it is heavy.
            var startWeight = 0
            var memoryUsage = 0
            /// The thread's account of its caches' memory, when its owner keeps one
            /// (`LazyCacheMemory`).
            var account: LazyCacheMemory?
            /// `memoryUsage` right after a reset: the dead state and the tag sets of a prebuilt
            /// table, which emptying the cache cannot free. The account leaves it out, so that
            /// emptied caches do not keep a thread's total over its budget.
            var baseline = 0
            /// What this cache has added to the account: the most `memoryUsage - baseline` has
            /// been since the cache was last released. A clear keeps the arrays' memory for
            /// the states to come, so only a release (`release()`) takes this back.
            var charged = 0
            var statesBuilt = 0
            var clearCount = 0
            var fallbackCount = 0
            /// The bitset form of NFA simulation (`BitsetSimulation`), made by the first search
            /// simulated since the last reset when the automaton allows it (`bitsetTried`), its
            /// tables counted like derived rows (`noteDerived`) and dropped with the states.
            var bitset: BitsetSimulation?
            var bitsetTried = false
        }

        /// Where one state's positions are.
        struct Span {
            var start: Int32
            var count: Int32
        }

        /// The tag sets of the states, by index (`searchTagSet`'s answers).
        var tagSets: [TagSet] { store.value.tagSets }

        /// The tags of tag set `index` (a `searchTagSet` answer), in increasing order, lent to
        /// `body` without copying the tag-set arrays out (which retained two arrays a search).
        @inline(__always)
        func withSortedTags<R>(of index: Int32, _ body: (BufferView<Int32>) -> R) -> R {
            store.value.tagSets[Int(index)].sorted.withView(body)
        }
        /// The number of tags in tag set `index` (a `searchTagSet` answer).
        @inline(__always)
        func tagCount(of index: Int32) -> Int { store.value.tagSets[Int(index)].sorted.count }

        /// Tag number `position`, in increasing order, of tag set `index`.
        @inline(__always)
        func tag(_ position: Int, of index: Int32) -> Int32 { store.value.tagSets[Int(index)].sorted[position] }

        /// Whether tag set `index` (a `searchTagSet` answer) holds `tag`.
        @inline(__always)
        func tagSet(_ index: Int32, contains tag: Int) -> Bool {
            store.value.tagSets[Int(index)].contains(tag)
        }
        /// The prebuilt table's tag sets are this cache's, index for index (`Store`).
        var prebuiltSharesTagSets: Bool { store.value.prebuiltSharesTagSets }
        /// The budget searches charge (`Store.meter`).
        public var meter: WorkMeter { store.value.meter }
        /// Bytes in use by states, against `configuration.cacheCapacity`.
        public var memoryUsage: Int { store.value.memoryUsage }
        /// States built since the cache was made (deterministic for a given input sequence).
        public var statesBuilt: Int { store.value.statesBuilt }
        /// Times the cache was cleared because it was full.
        public var clearCount: Int { store.value.clearCount }
        /// Searches finished by NFA simulation.
        public var fallbackCount: Int { store.value.fallbackCount }

        /// A cache charging its searches to `meter` when given (`share(meter:)`), else to its
        /// own.
        init(dfa: LazyDFA, meter: WorkMeter? = nil, account: LazyCacheMemory? = nil) {
            self.dfa = dfa
            // A table answers every search: its cache never determinises, and must not ask for
            // an NFA that may still be stored (`DeferredNFA`). It holds only the dead state, so
            // its buffers start at their smallest.
            // PERF (memory): the heap a stream's domains add, jemalloc `stats.allocated` at exit
            // of `aasa classify --compiled --jobs 1` less that of an empty input: the 10 000-domain
            // stream kept by `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet` 22.3 → 21.1 MB;
            // 2 000 domains serving 1 200 distinct documents (the shared real corpus, each copy's
            // paths under its own prefix), each met once, 21.1 → 18.6 MB.
            let prebuilt = dfa.prebuilt != nil
            self.table = TransitionTable(classes: dfa.classes, rows: prebuilt ? 1 : 16)
            let nfa = prebuilt ? .acceptingNothing : dfa.nfa
            self.determinizer = Determinizer(nfa: nfa)
            self.scratch = StateScratch(stateCount: nfa.stateCount, room: prebuilt ? 1 : 16)
            self.store = UnsharedCell(
                Store(meter: meter ?? WorkMeter(limit: dfa.configuration.maxURLWork), ownsMeter: meter == nil, account: account))
            if dfa.prebuilt == nil {
                // Room for the first few states at once, rather than growing one state at a time.
                store.value.spans.reserveCapacity(16)
                store.value.positionArena.reserveCapacity(64)
                store.value.tagSets.reserveCapacity(4)
            }
            reset()
        }

        /// The bytes this cache holds that `memoryUsage` leaves out: its objects, and the room
        /// its table, scratch and index were made with. Read when the cache is made (it grows
        /// with the states built, which `memoryUsage` counts), so that an owner making caches in
        /// numbers its input chooses (`QueryItemEvaluator`: one per item name a URL has) can
        /// charge them to its thread's account: a few kilobytes each, thousands a URL.
        var emptyFootprint: Int {
            Self.objectBytes + table.heldBytes + scratch.heldBytes + store.value.rows.heldBytes
                + store.value.spans.capacity * MemoryLayout<Span>.stride + store.value.positionArena.capacity * 8
                + store.value.tagSets.capacity * MemoryLayout<TagSet>.stride
        }

        /// The objects and array headers of an empty cache (about twenty allocations, each
        /// with the allocator's rounding), which no capacity counts: an estimate.
        static let objectBytes = 1_024

        /// Charges this cache's searches to `meter`, which its owner begins once per URL.
        public func share(meter: WorkMeter) {
            store.value.meter = meter
            store.value.ownsMeter = false
        }

        /// Whether the last search (or, with a shared meter, the current URL) ran over its
        /// work budget; its answer is then meaningless and the URL is an error.
        public var workExceeded: Bool { store.value.meter.exceeded }

        /// Empties the cache between two URLs and gives its memory back: its thread's caches
        /// together hold more than their budget (`LazyCacheMemory`). Counted as a clear, so
        /// that what was derived from its states (`FirstSightRows`) is forgotten too.
        public func release() {
            store.value.clearCount += 1
            reset(releasingMemory: true)
        }

        /// Clears every state but the dead one; `releasingMemory` gives the arrays' memory back
        /// instead of keeping it for the states to come.
        func reset(releasingMemory: Bool = false) {
            if releasingMemory {
                table.removeAllReleasingMemory()
                store.value.spans = []
                store.value.positionArena = []
                store.value.rows.removeAllReleasingMemory()
                store.value.tagSets = []
                store.value.tagSetIndex = [:]
                store.value.heavyTargets = [:]
            }
            table.removeAll()
            store.value.spans.removeAll(keepingCapacity: true)
            store.value.positionArena.removeAll(keepingCapacity: true)
            store.value.rows.removeAll()
            store.value.tagSets.removeAll(keepingCapacity: true)
            if !store.value.tagSetIndex.isEmpty { store.value.tagSetIndex.removeAll(keepingCapacity: true) }
            if releasingMemory {
                store.value.account?.bytes -= store.value.charged
                store.value.charged = 0
            }
            store.value.bitset = nil
            store.value.bitsetTried = false
            // The empty cache rebuilt below is not charged (`baseline`).
            store.value.baseline = .max
            store.value.memoryUsage = 0
            store.value.startState = TransitionTable.unknown
            store.value.startWeight = 0
            if !store.value.heavyTargets.isEmpty { store.value.heavyTargets.removeAll(keepingCapacity: true) }
            // The dead state: no positions, no tags (tag set 0 is the empty set); it loops to itself.
            let empty = TagSet.empty
            store.value.tagSets.append(empty)
            store.value.memoryUsage += empty.memoryUsage
            let dead = [UInt64]().withView { none in
                insert(positions: none, tagSet: 0, hash: Self.hash(of: none, tagSet: 0), tagCount: 0)
            }
            table.fillRow(dead, with: TransitionTable.dead)
            // PERF: a 10 000-rule table has tens of thousands of tag sets; interning them
            // made every new matcher cost milliseconds (aasa-bench unseen URLs). Eager tables
            // start with the empty set, so theirs are used as they are.
            store.value.prebuiltSharesTagSets = false
            store.value.prebuiltTagSets = []
            if let prebuilt = dfa.prebuilt {
                if prebuilt.tagSets.first?.isEmpty == true {
                    store.value.tagSets = prebuilt.tagSets
                    store.value.prebuiltSharesTagSets = true
                } else {
                    store.value.prebuiltTagSets = prebuilt.tagSets.map { internTags($0.sorted) }
                }
            }
            store.value.baseline = store.value.memoryUsage
        }

        /// Counts `bytes` of what was derived from this cache's states or NFA and is forgotten
        /// when the cache clears (a matcher's `FirstSightRows`, the `BitsetSimulation` tables)
        /// toward the cache's budget and its thread's account: decision rows of thousands of
        /// apps, one per tag set, held 1.4 GB in one matcher while its cache stayed under budget.
        func noteDerived(bytes: Int) {
            store.value.memoryUsage += bytes
            noteGrowth()
        }

        /// Charges the account for a new peak of this cache's states (`Store.charged`).
        @inline(__always)
        private func noteGrowth() {
            let used = store.value.memoryUsage &- store.value.baseline
            guard used > store.value.charged else { return }
            store.value.account?.bytes += used &- store.value.charged
            store.value.charged = used
        }

        /// Mixes a state's positions and tag set index (a multiply-xorshift per word).
        static func hash(of positions: BufferView<UInt64>, tagSet: Int32) -> UInt64 {
            var hash = UInt64(UInt32(bitPattern: tagSet)) &+ WordMix.seed
            for position in positions { hash = WordMix.mix(hash, position) }
            return hash
        }

        /// The index of the tag set `tags` (sorted, unique), interning it if new.
        func internTags(_ tags: [Int32]) -> Int32 {
            lookupTags(tags) ?? appendTags(tags)
        }

        /// `internTags` for the scratch's tags: an array is made only for a new set.
        func internTags(_ tags: ScratchBuffer<Int32>) -> Int32 {
            lookupTags(tags) ?? appendTags(tags.array)
        }

        private func appendTags(_ tags: [Int32]) -> Int32 {
            let index = Int32(store.value.tagSets.count)
            let set = TagSet(sorted: tags)
            store.value.tagSets.append(set)
            store.value.tagSetIndex[tags] = index
            store.value.memoryUsage += set.memoryUsage
            noteGrowth()
            return index
        }

        /// `lookupTags` for the scratch's tags: an array is made only to look a set up in
        /// `tagSetIndex`.
        @inline(__always)
        func lookupTags(_ tags: ScratchBuffer<Int32>) -> Int32? {
            if tags.isEmpty, !store.value.tagSets.isEmpty { return 0 }
            return store.value.tagSetIndex[tags.array]
        }

        /// The index of the tag set `tags` (sorted, unique), if interned.
        @inline(__always)
        func lookupTags(_ tags: [Int32]) -> Int32? {
            // The empty set is interned first, at index 0; most states accept nothing.
            if tags.isEmpty, !store.value.tagSets.isEmpty { return 0 }
            return store.value.tagSetIndex[tags]
        }

        /// The state with these positions and tag set, if built.
        func find(positions: BufferView<UInt64>, tagSet: Int32, hash: UInt64) -> Int32? {
            var probe = store.value.rows.probe(hash)
            while let row = store.value.rows.next(&probe) {
                let span = store.value.spans[Int(row)]
                let id = row * Int32(table.rowWidth)
                if Int(span.count) == positions.count, table.tagSet(of: id) == tagSet, samePositions(span, positions) { return id }
            }
            return nil
        }

        // PERF: inlined into `find`'s probe loop, as it was into the former own table's: a
        // lazy classify of 30 000 distinct URLs against 4 423 path rules, callgrind, 996.3 M →
        // 987.7 M instructions (`Benchmarks/Records/2026-12-07-hash-slots-and-reachability.md`).
        @inline(__always)
        private func samePositions(_ span: Span, _ positions: BufferView<UInt64>) -> Bool {
            store.value.positionArena.withView { arena in
                let stored = arena[Int(span.start)..<(Int(span.start) + positions.count)]
                for index in 0..<positions.count where stored[index] != positions[index] { return false }
                return true
            }
        }

        /// Adds a state known to be new; returns its premultiplied id.
        func insert(positions: BufferView<UInt64>, tagSet: Int32, hash: UInt64, tagCount: Int) -> Int32 {
            let id = table.addRow(tagSet: tagSet)
            store.value.spans.append(Span(start: Int32(store.value.positionArena.count), count: Int32(positions.count)))
            store.value.positionArena.append(contentsOf: positions)
            _ = store.value.rows.append(hash: hash)
            store.value.memoryUsage += dfa.stateOverhead + positions.count * 16 + tagCount * 8
            noteGrowth()
            store.value.statesBuilt += 1
            return id
        }

        /// The subset of `state` (for the NFA fallback).
        func subset(of state: Int32) -> Determinizer.Subset {
            let span = store.value.spans[table.row(of: state)]
            let positions = Array(store.value.positionArena[Int(span.start)..<Int(span.start + span.count)])
            return Determinizer.Subset(positions: positions, tags: store.value.tagSets[Int(table.tagSet(of: state))].sorted)
        }

        func tags(of state: Int32) -> TagSet {
            store.value.tagSets[Int(table.tagSet(of: state))]
        }

        @inline(__always)
        func start() -> Int32 {
            let known = store.value.startState
            return known != TransitionTable.unknown ? known : buildStart()
        }

        /// Builds the start state; `TransitionTable.dead` with the meter exhausted when its
        /// closure alone passes the work limit.
        private func buildStart() -> Int32 {
            if store.value.startState == TransitionTable.unknown {
                scratch.seeds.removeAll()
                scratch.seeds.append(Determinizer.pack(determinizer.nfa.start, continuation: -1))
                let meter = store.value.meter
                guard determinizer.closeSeeds(scratch: scratch, cap: meter.limit) else {
                    meter.exhaust()
                    return TransitionTable.dead
                }
                let weight = scratch.visits
                let state = intern(from: nil).state
                store.value.startState = state
                store.value.startWeight = weight
            }
            return store.value.startState
        }

        /// The state whose subset `closeSeeds` left in the scratch: found, or built. When the
        /// new state does not fit, the cache is cleared first and `source` (the state the
        /// search is in) is rebuilt; its new id is returned beside the result.
        func intern(from source: Int32?) -> (state: Int32, source: Int32?) {
            let tagCount = scratch.tags.count
            var knownHash: UInt64?
            if let knownTags = lookupTags(scratch.tags) {
                let found: Int32? = scratch.positions.withView { positions in
                    let hash = Self.hash(of: positions, tagSet: knownTags)
                    knownHash = hash
                    return find(positions: positions, tagSet: knownTags, hash: hash)
                }
                if let found { return (found, source) }
            }
            var from = source
            var cleared = false
            let cost = dfa.stateOverhead + scratch.positions.count * 16 + tagCount * 8 + 64
            if store.value.memoryUsage + cost > dfa.configuration.cacheCapacity, table.stateCount > 2 {
                store.value.clearCount += 1
                cleared = true
                let kept = source.map { subset(of: $0) }
                reset()
                if let kept {
                    let tags = internTags(kept.tags)
                    from = kept.positions.withView { positions in
                        insert(
                            positions: positions, tagSet: tags, hash: Self.hash(of: positions, tagSet: tags),
                            tagCount: kept.tags.count)
                    }
                }
            }
            let tags = internTags(scratch.tags)
            let state = scratch.positions.withView { positions in
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
            let meter = store.value.meter
            if let heavy = store.value.heavyTargets[Int(state) + cls] {
                return meter.charge(Int(heavy.weight)) ? heavy.target : TransitionTable.dead
            }
            let span = store.value.spans[table.row(of: state)]
            store.value.positionArena.withView { arena in
                determinizer.collectSeeds(
                    from: arena[Int(span.start)..<Int(span.start + span.count)], on: dfa.representatives[cls], scratch: scratch)
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
            store.value.heavyTargets[Int(from) + cls] = (next, Int32(clamping: weight))
            return meter.charge(weight) ? next : TransitionTable.dead
        }

        func noteFallback() { store.value.fallbackCount += 1 }
    }
}

/// The bytes of lazy DFA states held by one thread's caches together: per cache, the most its
/// states have taken since it was last released, which its arrays keep through a clear.
/// `dfa-cache-bytes` bounds each cache; this lets the thread's owner bound them all: a fleet
/// meets thousands of documents, and each hostile one could otherwise keep a full cache for the
/// rest of the run (`Classifier`).
public final class LazyCacheMemory {
    // PERF: read before every URL of a classify thread, so held in an `UnsharedCell` (one
    // thread owns the account, its classifier and its caches): a dynamic exclusivity check on
    // a stored property cost a warm URL of the 10 000-domain fleet stream 1 593 against 1 526
    // instructions without (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa classify
    // --compiled --jobs 1`, callgrind, stream twice − once).
    private let cell = UnsharedCell(0)

    public internal(set) var bytes: Int {
        @inline(__always) get { cell.value }
        @inline(__always) set { cell.value = newValue }
    }

    public init() {}
}
