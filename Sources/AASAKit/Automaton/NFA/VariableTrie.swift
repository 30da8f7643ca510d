import Synchronization

/// A substitution variable's alternatives as one sub-automaton: literal values share a byte
/// trie, values with `*` or `?` hang off it as small chains, and every alternative ends in the
/// variable's single `ret` state. A variable of many literal values only is then made minimal:
/// trie nodes with the same futures (the same bytes to the same nodes, and whether a value ends
/// there) are one state, so shared endings are shared too.
///
/// `$(lang)` has 631 values of two or three letters: as a trie that is 803 states, minimal 175,
/// built once and shared by every call site, against 631 separate copies per use for the naive
/// translation (and millions of patterns for list expansion). Every call site holds its states
/// in a DFA state, and every automaton that calls it a copy (`variable-positions`, `nfa-states`).
extension NFABuilder {
    /// Builds the sub-automaton for `values` (raw, as the document or the predefined table
    /// gives them: `$` is a literal there) as rules in `mode` compare them; returns its entry
    /// state.
    ///
    /// A value of Latin-1 scalars (U+0000 to U+00FF, so every ASCII value) is read scalar by
    /// scalar: such text is already in NFC (no scalar there decomposes, and none is a combining
    /// mark or the second half of a composition: `VariableAutomatonTests` checks every pair),
    /// folding is per scalar, and its pieces are its scalars, so it is never parsed into strings.
    /// Other values go through `Pattern` and `normalized(for:)`, which decide what a rule's
    /// literal compares.
    // PERF: parsing and normalising every value (NFC for `café`) and a per-node
    // dictionary of children cost 900 M of the 10 000-domain fleet stream's 3 082 M
    // instructions (`aasa classify --rules`, callgrind); with the predefined variables copied
    // (`NFACompiler.variableID`), the run takes 1 896 M
    // (`Benchmarks/Records/2026-12-02-variables-first-use.md`).
    mutating func addVariable(_ values: [String], mode: TextMode) throws(AutomatonError) -> NFA.StateID {
        // Many literal values only (no `*`, no `?`): built aside as a trie, made minimal, copied
        // in. The copy is checked against this builder's limit as building in place would be.
        // A short list's trie is about as small as its minimal form, and making it minimal
        // would cost each document's first use more than it saves.
        // PERF: the quick fleet's first use with `--rules` (`aasa-bench --quick --suite fleet`,
        // callgrind), in instructions a URL: 14 136 with no variable made minimal, 15 056 with
        // every literal one, 14 434 from 64 values (`$(lang)` and `$(region)`, once a process).
        guard values.count < Self.minimizedValues
            || values.contains(where: { $0.unicodeScalars.contains { $0 == "*" || $0 == "?" } })
        else {
            var aside = NFABuilder(limit: Int(Int32.max))
            _ = try aside.addValues(values, mode: mode)
            return try append(try aside.minimizedTrie())
        }
        return try addValues(values, mode: mode)
    }

    /// The fewest literal values a variable is made minimal for: `$(lang)` (631) and
    /// `$(region)` (257) are, the one-character classes (`$(alpha)`, 52) are not.
    static let minimizedValues = 64

    /// `addVariable`'s trie and chains, as built: its entry state.
    private mutating func addValues(_ values: [String], mode: TextMode) throws(AutomatonError) -> NFA.StateID {
        let root = try add()
        let ret = try add(.ret)
        var trie = TrieChildren(root: root)
        for value in values {
            var cursor = Cursor(current: root, inTrie: true)
            if value.unicodeScalars.allSatisfy({ $0.value < 0x100 }) {
                var afterStar = false
                for scalar in value.unicodeScalars {
                    switch scalar {
                    case "*":
                        // A run of `*` is one `*`, as `Pattern` parses it.
                        if !afterStar { try addAnyRun(&cursor) }
                        afterStar = true
                        continue
                    case "?":
                        try addAnyOne(&cursor)
                    default:
                        let folded = mode.folded ? TextNormalization.fold(scalar) : scalar
                        if folded.value < 0x80 {
                            try addTrieByte(UInt8(folded.value), &cursor, &trie)
                        } else {
                            for byte in String(folded).utf8 { try addTrieByte(byte, &cursor, &trie) }
                        }
                    }
                    afterStar = false
                }
            } else {
                for piece in Pattern(parsing: value, allowVariables: false).normalized(for: mode).pieces {
                    switch piece {
                    case .literal(let text):
                        for byte in text.utf8 { try addTrieByte(byte, &cursor, &trie) }
                    case .anyOne:
                        try addAnyOne(&cursor)
                    case .anyMany:
                        try addAnyRun(&cursor)
                    case .variable:
                        // Values never hold references (the parser runs with variables off).
                        continue
                    }
                }
            }
            addEpsilon(from: cursor.current, to: ret)
        }
        return root
    }

    /// This builder, a variable's trie of literal values alone (state 0 its root, state 1 its
    /// `ret`, single-byte edges that lead from lower to higher states, value ends joined to
    /// `ret`), with the states that have the same futures merged; any other builder unchanged.
    ///
    /// Futures are found from the leaves up (a trie node's children come after it): a node's
    /// future is whether a value ends there and, byte by byte, its children's futures. The
    /// merged states are numbered root, `ret`, then in breadth-first order from the root, each
    /// with its edges in byte order: one shape for one set of values, whatever their order.
    func minimizedTrie() throws(AutomatonError) -> NFABuilder {
        let count = kinds.count
        guard count >= 2, kinds[0] == .plain, kinds[1] == .ret else { return self }
        var edges = [[(byte: UInt8, next: Int)]](repeating: [], count: count)
        for (from, edge) in transitions {
            let source = Int(from)
            let target = Int(edge.next)
            guard edge.low == edge.high, target > source, target != 1, source != 1, kinds[target] == .plain else { return self }
            edges[source].append((edge.low, target))
        }
        var ends = [Bool](repeating: false, count: count)
        for (from, to) in epsilons {
            guard to == 1, from != 1 else { return self }
            ends[Int(from)] = true
        }
        struct Future: Hashable {
            var ends: Bool
            var bytes: [UInt8]
            var classes: [Int32]
        }
        var classOf = [Int32](repeating: -1, count: count)
        var classes: [Future: Int32] = [:]
        var futures: [Future] = []
        for state in stride(from: count - 1, through: 0, by: -1) where state != 1 {
            guard kinds[state] == .plain else { return self }
            let sorted = edges[state].sorted { $0.byte < $1.byte }
            let future = Future(ends: ends[state], bytes: sorted.map(\.byte), classes: sorted.map { classOf[$0.next] })
            if let known = classes[future] {
                classOf[state] = known
            } else {
                classOf[state] = Int32(futures.count)
                classes[future] = Int32(futures.count)
                futures.append(future)
            }
        }
        // Numbered root first, then `ret`, then breadth-first.
        var number = [Int32](repeating: -1, count: futures.count)
        var order: [Int32] = [classOf[0]]
        number[Int(classOf[0])] = 0
        var next: Int32 = 2
        var index = 0
        while index < order.count {
            for child in futures[Int(order[index])].classes where number[Int(child)] < 0 {
                number[Int(child)] = next
                next += 1
                order.append(child)
            }
            index += 1
        }
        var minimal = NFABuilder(limit: limit)
        for state in 0..<Int(next) { _ = try minimal.add(state == 1 ? .ret : .plain) }
        for klass in order {
            let future = futures[Int(klass)]
            let from = number[Int(klass)]
            for (byte, child) in zip(future.bytes, future.classes) {
                minimal.addTransition(from: from, byte, byte, to: number[Int(child)])
            }
            if future.ends { minimal.addEpsilon(from: from, to: 1) }
        }
        return minimal
    }

    /// Where a value being added has got to, and whether that state is still a trie node
    /// (shared with other values) or a private state after a wildcard.
    struct Cursor {
        var current: NFA.StateID
        var inTrie: Bool
    }

    /// The children of the variable's trie nodes, by byte: a list per node in flat arrays,
    /// indexed by state number from the root (a trie node has few children: `$(lang)`'s root
    /// has 26, its other nodes fewer).
    struct TrieChildren {
        let root: NFA.StateID
        /// Per state: its most recently added child, or -1.
        private var firstChild: [NFA.StateID] = []
        /// Per state: the next child of its parent, or -1.
        private var sibling: [NFA.StateID] = []
        /// Per state: the byte that leads to it from its parent.
        private var label: [UInt8] = []

        init(root: NFA.StateID) {
            self.root = root
        }

        func child(of node: NFA.StateID, _ byte: UInt8) -> NFA.StateID? {
            let index = Int(node - root)
            guard index < firstChild.count else { return nil }
            var child = firstChild[index]
            while child >= 0 {
                if label[Int(child)] == byte { return child + root }
                child = sibling[Int(child)]
            }
            return nil
        }

        mutating func add(_ child: NFA.StateID, of node: NFA.StateID, _ byte: UInt8) {
            let parent = Int(node - root)
            let index = Int(child - root)
            let needed = Swift.max(parent, index) + 1
            if needed > firstChild.count {
                // Doubling: states are added one at a time.
                let more = Swift.max(needed - firstChild.count, firstChild.count, 16)
                firstChild.append(contentsOf: repeatElement(-1, count: more))
                sibling.append(contentsOf: repeatElement(-1, count: more))
                label.append(contentsOf: repeatElement(0, count: more))
            }
            sibling[index] = firstChild[parent]
            label[index] = byte
            firstChild[parent] = NFA.StateID(index)
        }
    }

    /// One byte of a literal: the trie's child by that byte when there is one, else a new state.
    private mutating func addTrieByte(_ byte: UInt8, _ cursor: inout Cursor, _ trie: inout TrieChildren)
        throws(AutomatonError)
    {
        if cursor.inTrie, let child = trie.child(of: cursor.current, byte) {
            cursor.current = child
            return
        }
        let next = try add()
        addTransition(from: cursor.current, byte, byte, to: next)
        if cursor.inTrie { trie.add(next, of: cursor.current, byte) }
        cursor.current = next
    }

    private mutating func addAnyOne(_ cursor: inout Cursor) throws(AutomatonError) {
        try detach(&cursor)
        cursor.current = try addAnyScalar(from: cursor.current)
    }

    private mutating func addAnyRun(_ cursor: inout Cursor) throws(AutomatonError) {
        try detach(&cursor)
        cursor.current = try addAnyRun(from: cursor.current)
    }

    /// Leaves the trie for a fresh private state, so wildcard paths are not shared.
    private mutating func detach(_ cursor: inout Cursor) throws(AutomatonError) {
        guard cursor.inTrie else { return }
        cursor.inTrie = false
        let fresh = try add()
        addEpsilon(from: cursor.current, to: fresh)
        cursor.current = fresh
    }
}

/// The predefined variables' sub-automata, built once per process and mode and copied into
/// each automaton that calls them (`NFABuilder.append`).
///
/// Every document that uses `$(lang)` in a mode would build the very same 631-value trie; the
/// copy costs a few instructions a state instead.
enum PredefinedVariableAutomata {
    /// Per variable (`PredefinedVariables.names`) and mode (`TextMode.index`): the built
    /// sub-automaton, numbered from 0, or `nil` until first asked for.
    private static let built = Mutex<[NFABuilder?]>(
        [NFABuilder?](repeating: nil, count: PredefinedVariables.names.count * TextMode.all.count))

    /// The sub-automaton of predefined variable number `index` in `mode`; `nil` only if it could
    /// not be built (the caller then builds it in place, and meets the same error there).
    static func automaton(_ index: Int, mode: TextMode) -> NFABuilder? {
        let slot = index * TextMode.all.count + mode.index
        return built.withLock { table -> NFABuilder? in
            if let known = table[slot] { return known }
            var builder = NFABuilder(limit: Int(Int32.max))
            guard (try? builder.addVariable(PredefinedVariables.tables[index], mode: mode)) != nil else { return nil }
            table[slot] = builder
            return builder
        }
    }
}
