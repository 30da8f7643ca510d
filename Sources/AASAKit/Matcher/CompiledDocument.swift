/// A document compiled for one domain: every rule's patterns in a few automata, plus the tables
/// that turn accept sets into per-app decisions. Immutable and `Sendable`: compile once, share
/// across threads, give each thread its own `DFAMatcher`.
///
/// For each component kind (path, query text, fragment) and each text mode that some rule uses,
/// one NFA holds the patterns of all those rules, tagged with their rule numbers. Components a
/// rule leaves at `*` are not compiled at all: such rules are "universal" for that component,
/// so a document of path-only rules never reads the query or fragment. Query dictionaries get
/// one automaton per (mode, item name), tagged with predicate numbers (SPEC 7).
public final class CompiledDocument: Sendable {
    /// What the decision step needs to know about one rule, by rule id (evaluation order).
    public struct RuleInfo: Sendable {
        public var entryIndex: Int
        public var ruleIndex: Int
        public var exclude: Bool
        public var apps: [Int32]
        public var mode: TextMode
        var queryKind: QueryKind
        var fragmentIsUniversal: Bool
    }

    enum QueryKind: Sendable {
        case universal
        case text
        case items(predicates: [Int32])
    }

    /// The automaton of one query item name in one mode.
    struct QueryGroup: Sendable {
        var dfa: LazyDFA
        /// The predicates (tags) compiled in this automaton.
        var predicates: [Int32]
        /// The predicates that an empty value does not satisfy: they fail when the URL has no
        /// item of this name (a missing item counts as present and empty, SPEC 7).
        var failOnMissing: [Int32]
    }

    public let domain: String
    /// The domain, ASCII-lowercased, as bytes: the host check compares against it.
    let domainBytes: [UInt8]
    public let appIDs: [String]
    public let rules: [RuleInfo]
    /// Indexed by `TextMode.index`.
    let path: [LazyDFA?]
    let queryText: [LazyDFA?]
    let fragment: [LazyDFA?]
    /// Per mode: normalised item name → group.
    let queryGroups: [[ExactString: QueryGroup]]
    let predicateCount: Int
    /// Modes whose path automaton exists, in `TextMode.all` order.
    let pathModes: [TextMode]

    /// Compiles `document` for `domain`.
    ///
    /// - Throws: `AutomatonError` when a limit of `configuration.automata` is exceeded.
    /// - Complexity: O(total pattern and variable-value length); no determinisation happens
    ///   here (the lazy DFAs build states while matching).
    public init(document: AASADocument, domain: String, configuration: Configuration = .default)
        throws(AutomatonError)
    {
        self.domain = domain
        self.domainBytes = domain.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
        self.appIDs = document.appIDs
        let effective = EffectiveRule.resolve(document)
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        let resolve: NFACompiler.VariableResolver = { variables.resolve($0) }

        var pathPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var queryPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var fragmentPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var itemPatterns = [[ExactString: [(pattern: Pattern, tag: Int32)]]](repeating: [:], count: 4)
        var infos: [RuleInfo] = []
        var predicateCount: Int32 = 0
        for rule in effective {
            let tag = Int32(rule.id)
            let mode = rule.mode.index
            for alternative in rule.path { pathPatterns[mode].append((alternative, tag)) }
            var queryKind = QueryKind.universal
            switch rule.query {
            case .universal:
                break
            case .text(let pattern):
                queryKind = .text
                queryPatterns[mode].append((pattern, tag))
            case .items(let predicates):
                var ids: [Int32] = []
                for (name, pattern) in predicates {
                    itemPatterns[mode][ExactString(name), default: []].append((pattern, predicateCount))
                    ids.append(predicateCount)
                    predicateCount += 1
                }
                queryKind = ids.isEmpty ? .universal : .items(predicates: ids)
            }
            let fragmentIsUniversal = rule.fragment.isUniversal
            if !fragmentIsUniversal { fragmentPatterns[mode].append((rule.fragment, tag)) }
            infos.append(
                RuleInfo(
                    entryIndex: rule.entryIndex, ruleIndex: rule.ruleIndex, exclude: rule.exclude,
                    apps: rule.apps.map(Int32.init), mode: rule.mode, queryKind: queryKind,
                    fragmentIsUniversal: fragmentIsUniversal))
        }
        func build(_ patterns: [(pattern: Pattern, tag: Int32)], _ mode: TextMode) throws(AutomatonError) -> LazyDFA? {
            if patterns.isEmpty { return nil }
            let nfa = try NFACompiler.compile(patterns, mode: mode, maxStates: configuration.automata.maxNFAStates, variables: resolve)
            return try LazyDFA(nfa: nfa, configuration: configuration.automata)
        }
        var path: [LazyDFA?] = []
        var queryText: [LazyDFA?] = []
        var fragment: [LazyDFA?] = []
        var groups: [[ExactString: QueryGroup]] = []
        for mode in TextMode.all {
            path.append(try build(pathPatterns[mode.index], mode))
            queryText.append(try build(queryPatterns[mode.index], mode))
            fragment.append(try build(fragmentPatterns[mode.index], mode))
            var modeGroups: [ExactString: QueryGroup] = [:]
            for (name, patterns) in itemPatterns[mode.index] {
                guard let dfa = try build(patterns, mode) else { continue }
                let onEmpty = dfa.search("", cache: dfa.makeCache())
                modeGroups[name] = QueryGroup(
                    dfa: dfa, predicates: patterns.map(\.tag),
                    failOnMissing: patterns.map(\.tag).filter { !onEmpty.contains(Int($0)) })
            }
            groups.append(modeGroups)
        }
        self.rules = infos
        self.path = path
        self.queryText = queryText
        self.fragment = fragment
        self.queryGroups = groups
        self.predicateCount = Int(predicateCount)
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
    }

    /// Assembles a compiled document from its parts (compiled artifacts).
    init(
        domain: String, appIDs: [String], rules: [RuleInfo], path: [LazyDFA?], queryText: [LazyDFA?],
        fragment: [LazyDFA?], queryGroups: [[ExactString: QueryGroup]], predicateCount: Int
    ) {
        self.domain = domain
        self.domainBytes = domain.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
        self.appIDs = appIDs
        self.rules = rules
        self.path = path
        self.queryText = queryText
        self.fragment = fragment
        self.queryGroups = queryGroups
        self.predicateCount = predicateCount
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
    }

    /// Heap bytes of the compiled automata (NFAs and class maps; caches are per thread).
    public var memoryUsage: Int {
        let all = (path + queryText + fragment).compactMap { $0 } + queryGroups.flatMap { $0.values.map(\.dfa) }
        return all.reduce(0) { $0 + $1.memoryUsage }
    }

    /// NFA states over all automata.
    public var nfaStateCount: Int {
        let all = (path + queryText + fragment).compactMap { $0 } + queryGroups.flatMap { $0.values.map(\.dfa) }
        return all.reduce(0) { $0 + $1.nfa.stateCount }
    }
}

extension CompiledDocument {
    /// Every automaton of the document with a stable label (`path raw/exact`,
    /// `query-item "id" decoded/folded`), for dumps and statistics.
    public var labelledAutomata: [(label: String, dfa: LazyDFA)] {
        var result: [(String, LazyDFA)] = []
        for mode in TextMode.all {
            if let dfa = path[mode.index] { result.append(("path \(mode)", dfa)) }
            if let dfa = queryText[mode.index] { result.append(("query \(mode)", dfa)) }
            if let dfa = fragment[mode.index] { result.append(("fragment \(mode)", dfa)) }
            for name in queryGroups[mode.index].keys.sorted(by: { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }) {
                if let group = queryGroups[mode.index][name] {
                    result.append(("query-item \(JSONWriter.escape(name.string)) \(mode)", group.dfa))
                }
            }
        }
        return result
    }
}
