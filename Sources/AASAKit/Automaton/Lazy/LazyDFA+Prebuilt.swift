extension LazyDFA {
    /// A lazy DFA's whole transition table, determinised and minimised ahead of time, for
    /// compiled artifacts.
    ///
    /// Why: a `classify` worker otherwise starts with an empty cache and builds every state it
    /// meets, once per thread and once per process; a fleet of short-lived workers repeats that
    /// warm-up on every start, and each thread holds its own copy. A prebuilt table is built
    /// once by `aasa compile`, loaded with one copy, shared read-only by every thread, and makes
    /// a search a plain table walk from the first URL on. It pays only while the table is small
    /// (see `Budget`); larger automata keep the lazy form, whose cache holds just the states
    /// the input visits.
    public final class Prebuilt: Sendable {
        /// Row width: the number of byte classes.
        let stride: Int
        /// The class of each byte (256 entries, each `< stride`).
        let classOf: [UInt8]
        /// Premultiplied state ids: `cells[state + class]` is the next state. Row 0 is the dead
        /// state, row 1 (id `stride`) the start.
        let cells: [Int32]
        /// Per state (row number): the index of its accepted tags in `tagSets`.
        let acceptOf: [Int32]
        let tagSets: [TagSet]
        /// A table built eagerly too large for dense rows (`LazyDFA+Eager.swift`); `cells` and
        /// `acceptOf` are empty then.
        let compact: Compact?
        public let stateCount: Int

        /// Whether the table is dense rows (what artifacts store), not `Compact`.
        var isDense: Bool { compact == nil }

        /// Heap bytes of the table.
        public var memoryUsage: Int {
            cells.count * 4 + acceptOf.count * 4 + 256 + (compact?.memoryUsage ?? 0) + tagSets.reduce(0) { $0 + $1.memoryUsage }
        }

        init(stride: Int, classOf: [UInt8], cells: [Int32], acceptOf: [Int32], tagSets: [TagSet]) {
            self.stride = stride
            self.classOf = classOf
            self.cells = cells
            self.acceptOf = acceptOf
            self.tagSets = tagSets
            self.compact = nil
            self.stateCount = acceptOf.count
        }

        init(stride: Int, classOf: [UInt8], compact: Compact, stateCount: Int, tagSets: [TagSet]) {
            self.stride = stride
            self.classOf = classOf
            self.cells = []
            self.acceptOf = []
            self.tagSets = tagSets
            self.compact = compact
            self.stateCount = stateCount
        }

        /// When a stored dense table pays (`aasa compile`), and the bounds on the work of
        /// finding out.
        ///
        /// The defaults keep a table within `Planner.denseRowLimit` (1 MiB, the size of a core's
        /// L2 cache here, so walking it costs what a warm lazy cache costs; over it, the plan
        /// builds a compact table at load instead) and at most 65 536 states, and stop
        /// determinising after about four million subset positions stepped (a fraction of a
        /// second) when the table is not done by then. On the 250 real documents of the shared
        /// corpus, 262 of the 264 automata get a table (a few kilobytes each; the artifact is
        /// 856 KB) and the two largest stay lazy; synthetic documents of 1 000 rules and more,
        /// and blow-up patterns such as `*a` followed by many `?`, stay lazy too, as does any automaton
        /// with a step the lazy DFA would charge (`DenseDFA.heaviestStep`).
        public struct Budget: Sendable, Equatable {
            public var maxTableBytes: Int
            public var maxStates: Int
            public var maxWork: Int
            /// The work all of one document's tables may take together, built or not
            /// (`eager-dfa-work`): a document has an automaton per query item name, and 3 000
            /// names each failing its own `maxWork` took `aasa compile` 211 s for a 44 KB file.
            public var maxDocumentWork: Int

            public init(
                maxTableBytes: Int = Planner.denseRowLimit, maxStates: Int = 65_536, maxWork: Int = 1 << 22,
                maxDocumentWork: Int = AASAKit.Configuration.Automata().eagerMaxWork
            ) {
                self.maxTableBytes = maxTableBytes
                self.maxStates = maxStates
                self.maxWork = maxWork
                self.maxDocumentWork = maxDocumentWork
            }
        }

        /// Determinises and minimises `nfa` when its DFA fits `budget`; nil when it does not.
        public convenience init?(nfa: NFA, budget: Budget = Budget()) {
            var spent = 0
            self.init(nfa: nfa, budget: budget, spent: &spent)
        }

        /// As `init(nfa:budget:)`, telling in `spent` the work determinising and minimising
        /// took, built or not.
        convenience init?(nfa: NFA, budget: Budget, spent: inout Int) {
            spent = 0
            let classes = nfa.byteClasses()
            let stride = classes.count
            let maxStates = min(budget.maxStates, budget.maxTableBytes / (4 * stride))
            guard maxStates >= 2,
                let dense = try? DenseDFA(
                    nfa: nfa, maxStates: maxStates, maxWork: budget.maxWork, maxStep: LazyDFA.heavyWeight, spent: &spent)
            else {
                return nil
            }
            // A step the lazy DFA charges (`LazyDFA.heavyWeight`) stays lazy here too: a stored
            // table charges nothing, so the artifact would decide a URL that `--rules` refuses
            // for work, and the records of the two would differ.
            guard dense.heaviestStep < LazyDFA.heavyWeight else { return nil }
            // Minimising shares the attempt's work bound; past it the table is kept as built
            // (larger, never wrong). A never-accepting automaton minimises to the dead state
            // alone: keep a start row.
            var minimizing = 0
            let minimized = dense.minimized(maxWork: budget.maxWork - spent, spent: &minimizing)
            spent += minimizing
            let minimal = minimized.flatMap { $0.stateCount >= 2 ? $0 : nil } ?? dense
            var tagSets: [TagSet] = []
            var indexOfTags: [[Int32]: Int32] = [:]
            var acceptOf: [Int32] = []
            acceptOf.reserveCapacity(minimal.stateCount)
            for tags in minimal.accepts {
                if let known = indexOfTags[tags] {
                    acceptOf.append(known)
                } else {
                    let index = Int32(tagSets.count)
                    indexOfTags[tags] = index
                    tagSets.append(TagSet(sorted: tags))
                    acceptOf.append(index)
                }
            }
            self.init(
                stride: stride, classOf: classes.classOf, cells: minimal.transitions.map { $0 * Int32(stride) },
                acceptOf: acceptOf, tagSets: tagSets)
        }

        /// The index in `tagSets` of what the whole of `text` is accepted with, or -1 when the
        /// walk dies (nothing matches).
        @inline(__always)
        func acceptIndex(_ text: ByteView) -> Int32 {
            if let compact {
                return classOf.withView { compact.acceptIndex(text, classOf: $0) }
            }
            let stride = self.stride
            let final = cells.withView { table in
                classOf.withView { classOf -> Int in
                    var state = stride
                    for byte in text {
                        // Decoding and construction guarantee 256 classes `< stride` and cells
                        // that are premultiplied row ids of this table (the views assert both
                        // reads in test builds).
                        state = Int(table[state &+ Int(classOf[Int(byte)])])
                        if state == 0 { return 0 }
                    }
                    return state
                }
            }
            return final == 0 ? -1 : acceptOf[final / stride]
        }

        /// The tags of every pattern matching the whole of `text`: the same answer as the lazy
        /// search, with no cache and no state construction.
        @inline(__always)
        func search(_ text: ByteView) -> TagSet {
            let accept = acceptIndex(text)
            return accept < 0 ? .empty : tagSets[Int(accept)]
        }
    }

    /// Whether searches use a table determinised ahead of time rather than the lazy cache.
    public var isPrebuilt: Bool { prebuilt != nil }
}
