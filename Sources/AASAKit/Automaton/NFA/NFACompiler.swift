/// Compiles many tagged patterns into one NFA: a trie of their pieces rooted at the start state
/// (patterns with a common prefix share its states), each pattern ending in a `match(tag)`
/// state.
///
/// All patterns of one component kind and text mode go into one NFA, so one DFA pass over a
/// URL component answers "which rules match" for all of them at once (RE2::Set's idea). Patterns
/// are anchored at both ends by construction: the DFA runs from the start state over the whole
/// component and reads the accept set at the end of the text.
public struct NFACompiler {
    /// Resolves a variable name to its alternatives (custom first, then predefined), or `nil`
    /// when undefined.
    public typealias VariableResolver = (String) -> [String]?
    /// The predefined variable (its position in `PredefinedVariables.names`) that a name
    /// resolves to, or `nil` when the name is not predefined or the document defines it.
    public typealias PredefinedResolver = (String) -> Int?

    let mode: TextMode
    let resolve: VariableResolver
    let predefined: PredefinedResolver
    var builder: NFABuilder
    // Exact keys: "é" and "e\u{301}" name two different variables.
    var variableIDs: [ExactString: Int32] = [:]
    var variableNames: [String] = []
    var variableStarts: [NFA.StateID] = []
    /// Per variable: the states of its sub-automaton (`NFA.variableSize`).
    var variableSizes: [Int] = []
    /// Over every call site so far, the states of the variable it calls: the most
    /// (state, return point) pairs a DFA state can hold through variables.
    var variablePositions = 0
    let maxVariablePositions: Int
    /// The JSON path of a pattern's rule, for the message of a limit passed there.
    let locate: (Int32) -> JSONPath?

    public init(
        mode: TextMode, maxStates: Int, maxVariablePositions: Int = Configuration.Automata().maxVariablePositions,
        variables: @escaping VariableResolver, predefined: @escaping PredefinedResolver = { _ in nil },
        locate: @escaping (Int32) -> JSONPath? = { _ in nil }
    ) {
        self.mode = mode
        self.resolve = variables
        self.predefined = predefined
        self.builder = NFABuilder(limit: maxStates)
        self.maxVariablePositions = maxVariablePositions
        self.locate = locate
    }

    /// Compiles `patterns`; tag `t` is accepted at the end of a text that some pattern tagged
    /// `t` matches whole.
    ///
    /// With `predefined`, the predefined variables it names are copied from automata built once
    /// a process (`PredefinedVariableAutomata`) instead of being built from `variables`' values
    /// (which must then be exactly the predefined ones: the same automaton either way).
    public static func compile(
        _ patterns: [(pattern: Pattern, tag: Int32)], mode: TextMode, maxStates: Int,
        maxVariablePositions: Int = Configuration.Automata().maxVariablePositions,
        variables: @escaping VariableResolver, predefined: @escaping PredefinedResolver = { _ in nil },
        locate: @escaping (Int32) -> JSONPath? = { _ in nil }
    ) throws(AutomatonError) -> NFA {
        var compiler = NFACompiler(
            mode: mode, maxStates: maxStates, maxVariablePositions: maxVariablePositions, variables: variables,
            predefined: predefined, locate: locate)
        return try compiler.compile(patterns)
    }

    mutating func compile(_ patterns: [(pattern: Pattern, tag: Int32)]) throws(AutomatonError) -> NFA {
        let start = try builder.add()
        // Patterns share their common prefixes, piece by piece: a trie rooted at the start
        // state. A node's language is exactly the prefix that leads to it, so hanging another
        // pattern's continuation off it changes no tag's language.
        // PERF: without sharing, the start state's closure held one position per pattern and
        // every state after `/` one per rule still alive: at 10 000 path rules an unseen URL
        // built about 12 states of about 250 positions each, 99.9% of the time (callgrind,
        // `aasa-bench` match suite, 226 µs per URL). With sharing those subsets hold a handful
        // of positions (4.1 µs per URL, full match suite, together with `StateScratch`).
        var children = TrieChildren()
        for (pattern, tag) in patterns {
            var current = start
            for piece in pattern.pieces {
                switch piece {
                case .literal(let text):
                    for byte in text.utf8 {
                        let edge = TrieEdge(from: current, kind: 0, value: Int32(byte))
                        current = try follow(edge, &children) { builder, from throws(AutomatonError) in
                            let next = try builder.add()
                            builder.addTransition(from: from, byte, byte, to: next)
                            return next
                        }
                    }
                case .anyOne:
                    current = try follow(TrieEdge(from: current, kind: 1, value: 0), &children) {
                        builder, from throws(AutomatonError) in try builder.addAnyScalar(from: from)
                    }
                case .anyMany:
                    current = try follow(TrieEdge(from: current, kind: 2, value: 0), &children) {
                        builder, from throws(AutomatonError) in try builder.addAnyRun(from: from)
                    }
                case .variable(let name):
                    let variable = try variableID(name)
                    let edge = TrieEdge(from: current, kind: 3, value: variable)
                    let before = builder.stateCount
                    current = try follow(edge, &children) { builder, from throws(AutomatonError) in
                        let next = try builder.add()
                        let call = try builder.add(.call(variable: variable, next: next))
                        builder.addEpsilon(from: from, to: call)
                        return next
                    }
                    // A new call site (the trie shares calls with equal prefixes): checked as the
                    // count grows, so a blow-up is refused before any closure is computed.
                    if builder.stateCount != before {
                        variablePositions += variableSizes[Int(variable)]
                        if variablePositions > maxVariablePositions {
                            throw .overLimit(
                                .variablePositions, found: variablePositions, maximum: maxVariablePositions,
                                location: locate(tag))
                        }
                    }
                }
            }
            let accept = try builder.add(.match(tag: tag))
            builder.addEpsilon(from: current, to: accept)
        }
        return NFA(builder: builder, start: start, variableStarts: variableStarts, variableNames: variableNames)
    }

    /// The trie node `edge` leads to, built by `build` (from the edge's node) the first time.
    private mutating func follow(
        _ edge: TrieEdge, _ children: inout TrieChildren,
        build: (inout NFABuilder, NFA.StateID) throws(AutomatonError) -> NFA.StateID
    ) throws(AutomatonError) -> NFA.StateID {
        if let known = children.next(edge) { return known }
        let next = try build(&builder, edge.from)
        children.add(edge, next: next)
        return next
    }

    /// An edge of the pattern trie: from a node, by a piece (0 byte, 1 `?`, 2 `*`, 3 variable).
    struct TrieEdge: Hashable {
        var from: NFA.StateID
        var kind: UInt8
        var value: Int32

        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: from)) << 32 | UInt64(kind) << 24 ^ UInt64(UInt32(bitPattern: value)))
        }
    }

    /// The pattern trie's edges. Most nodes have one child (a pattern's bytes follow one
    /// another), so each node's first edge is kept by node number and only the others go in a
    /// dictionary.
    // PERF: with `JSONObject`'s key comparison on storage: 330 000 → 301 227 instructions a
    // document on first use (the 250 real documents, as measured for `ExactString.hash`).
    struct TrieChildren {
        private var first: [(kind: UInt8, value: Int32, next: NFA.StateID)?] = []
        private var others: [TrieEdge: NFA.StateID] = [:]

        func next(_ edge: TrieEdge) -> NFA.StateID? {
            let node = Int(edge.from)
            guard node < first.count, let only = first[node] else { return nil }
            if only.kind == edge.kind && only.value == edge.value { return only.next }
            return others.isEmpty ? nil : others[edge]
        }

        mutating func add(_ edge: TrieEdge, next: NFA.StateID) {
            let node = Int(edge.from)
            if node >= first.count { first.append(contentsOf: repeatElement(nil, count: node + 1 - first.count)) }
            if first[node] == nil {
                first[node] = (edge.kind, edge.value, next)
            } else {
                others[edge] = next
            }
        }
    }

    /// The variable's id, building its shared sub-automaton on first use.
    mutating func variableID(_ name: String) throws(AutomatonError) -> Int32 {
        if let id = variableIDs[ExactString(name)] { return id }
        let id = Int32(variableNames.count)
        variableIDs[ExactString(name)] = id
        variableNames.append(name)
        variableStarts.append(-1)
        variableSizes.append(0)
        // A predefined variable the document does not override is copied from the automaton
        // built once for the process: the copy is what building it here makes.
        // PERF: with the scalar-wise build of the other variables (`addVariable`), the
        // 10 000-domain fleet stream (`aasa classify --rules`, 200 000 URLs, callgrind) went from
        // 3 082 176 475 to 1 895 647 540 instructions, this function from 1 288.7 M to 98.6 M
        // (`Benchmarks/Records/2026-12-02-variables-first-use.md`).
        var entry: NFA.StateID?
        if let index = predefined(name), let automaton = PredefinedVariableAutomata.automaton(index, mode: mode) {
            assert(
                resolve(name).flatMap { PredefinedVariables.index(of: name, values: $0) } == index,
                "a name taken for a predefined variable resolves to other values")
            entry = try builder.append(automaton)
        } else if let values = resolve(name) {
            entry = try builder.addVariable(values, mode: mode)
        }
        if let entry {
            variableStarts[Int(id)] = entry
            variableSizes[Int(id)] = builder.stateCount - Int(entry)
        }
        return id
    }
}
