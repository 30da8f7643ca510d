/// A document compiled for one domain: every rule's patterns in a few automata, and the plan
/// that says how they run and how accept sets become per-app decisions (`PathPlan`). Immutable and `Sendable`: compile once, share
/// across threads, give each thread its own `DFAMatcher`.
///
/// For each component kind (path, query text, fragment) and each text mode that some rule uses,
/// one NFA holds the patterns of all those rules, tagged with their rule numbers. A query or
/// fragment a rule leaves at `*` is not compiled at all: such rules are "universal" for that
/// component, so a document of path-only rules never reads the query or fragment (paths are
/// always compiled). Query dictionaries get
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

        /// The query item predicates of this rule's dictionary (the tags of the query-item
        /// automata), empty when its query is not a dictionary.
        public var queryItemPredicates: [Int32] {
            if case .items(let predicates) = queryKind { return predicates }
            return []
        }
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
    /// The domain, ASCII-lowercased, as bytes: the host check compares against it. Computed
    /// when asked (a matcher asks once): a fleet makes a document for every domain it meets,
    /// most of them sharing another's automata and never making a matcher of their own (on
    /// the 10 000-domain fleet stream, an allocation and about 500 instructions a domain met).
    var domainBytes: [UInt8] { Self.lowercasedBytes(domain) }
    public let appIDs: [String]
    public let rules: [RuleInfo]
    /// Indexed by `TextMode.index`.
    let path: [LazyDFA?]
    /// Per mode: the path patterns matched as prefix (in `path`) and suffix, or nil.
    let pathSplits: [SuffixSplit?]
    let queryText: [LazyDFA?]
    let fragment: [LazyDFA?]
    /// The query item groups, numbered, with what each rule's dictionary needs
    /// (`QueryItemIndex`).
    let queryItems: QueryItemIndex
    /// Per mode: normalised item name → group (for the artifact, dumps and statistics; the
    /// matcher reads `queryItems`).
    var queryGroups: [[ExactString: QueryGroup]] {
        TextMode.all.map { mode in
            mode.index < queryItems.numbers.count ? queryItems.numbers[mode.index].mapValues { queryItems.groups[Int($0)] } : [:]
        }
    }
    let predicateCount: Int
    /// Modes whose path automaton exists, in `TextMode.all` order.
    let pathModes: [TextMode]
    /// How the matcher turns the path's tag set into decisions, and what it reads to do so:
    /// the tag layout, each rule's apps, and with `soloPathCompiledRows` every tag set's
    /// decision row (`Planner.path`).
    let pathPlan: PathPlan
    /// Per mode: how many path patterns could have been split, and the minimum asked for
    /// (`SplitPlan`); nil for a document loaded from an artifact, which stores only the split.
    let splitCandidates: [Int]?
    let splitMinimum: Int
    /// The same object for every document holding these automata and rule tables: one compile
    /// shared by domains serving identical JSON, or one artifact body shared by its domains.
    /// A thread's matcher (its caches) can then serve all of them (`Classifier`).
    let automata: AutomataIdentity

    /// Marks documents that hold the same automata and rule tables (`automata`).
    final class AutomataIdentity: Sendable {}

    /// Compiles `document` for `domain`.
    ///
    /// - Throws: `AutomatonError` when a limit of `configuration.automata` is exceeded.
    /// - Complexity: O(total pattern and variable-value length) for the NFAs, plus the
    ///   determinisation of every automaton the plan makes a compact table (`Planner`: dense
    ///   rows over `configuration.automata.compactTableMinimumBytes`, whole DFA under
    ///   `configuration.automata.eagerMaxStates` and twice its NFA); the others stay lazy.
    public convenience init(document: AASADocument, domain: String, configuration: Configuration = .default)
        throws(AutomatonError)
    {
        try self.init(
            nfas: try DocumentNFAs(
                document: document, maxNFAStates: configuration.automata.maxNFAStates,
                maxVariablePositions: configuration.automata.maxVariablePositions,
                splitMinimum: configuration.automata.suffixSplitMinimum),
            appIDs: document.appIDs, domain: domain, configuration: configuration)
    }

    /// Builds the matcher's automata from NFAs already compiled (the analyses have them).
    init(nfas: DocumentNFAs, appIDs: [String], domain: String, configuration: Configuration) throws(AutomatonError) {
        self.domain = domain
        self.appIDs = appIDs
        // The rules of an entry share one array of its apps: a copy per rule made a 130 KB
        // document of 10 000 apps and 21 500 rules hold 860 MB (apps × rules).
        var entryApps: (entry: Int, apps: [Int32]) = (-1, [])
        let infos = nfas.rules.map { rule in
            if rule.entryIndex != entryApps.entry { entryApps = (rule.entryIndex, rule.apps.map(Int32.init)) }
            let queryKind: QueryKind
            switch nfas.queryConstraints[rule.id] {
            case .universal: queryKind = .universal
            case .text: queryKind = .text
            case .items(let predicates): queryKind = .items(predicates: predicates)
            }
            return RuleInfo(
                entryIndex: rule.entryIndex, ruleIndex: rule.ruleIndex, exclude: rule.exclude,
                apps: entryApps.apps, mode: rule.mode, queryKind: queryKind,
                fragmentIsUniversal: !nfas.fragmentConstrained[rule.id])
        }
        // One budget for all the document's compile-time tables (`eager-dfa-work`).
        let budget = EagerBudget(configuration.automata.eagerMaxWork)
        func lazy(_ nfa: NFA?) throws(AutomatonError) -> LazyDFA? {
            guard let nfa else { return nil }
            return try Planner.automaton(nfa, configuration: configuration.automata, budget: budget)
        }
        var path: [LazyDFA?] = []
        var queryText: [LazyDFA?] = []
        var fragment: [LazyDFA?] = []
        var groups: [[ExactString: QueryGroup]] = []
        path.reserveCapacity(TextMode.all.count)
        queryText.reserveCapacity(TextMode.all.count)
        fragment.reserveCapacity(TextMode.all.count)
        groups.reserveCapacity(TextMode.all.count)
        for mode in TextMode.all {
            path.append(try lazy(nfas.path[mode.index]))
            queryText.append(try lazy(nfas.queryText[mode.index]))
            fragment.append(try lazy(nfas.fragment[mode.index]))
            var modeGroups: [ExactString: QueryGroup] = [:]
            for (name, item) in nfas.items[mode.index] {
                guard let dfa = try lazy(item.nfa) else { continue }
                let onEmpty = dfa.search("", cache: dfa.makeCache())
                modeGroups[name] = QueryGroup(
                    dfa: dfa, predicates: item.predicates,
                    failOnMissing: item.predicates.filter { !onEmpty.contains(Int($0)) })
            }
            groups.append(modeGroups)
        }
        self.rules = infos
        self.path = path
        self.pathSplits = nfas.pathSplits
        self.queryText = queryText
        self.fragment = fragment
        self.predicateCount = nfas.predicateRule.count
        self.queryItems = QueryItemIndex(groups: groups, rules: infos, predicateCount: nfas.predicateRule.count)
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
        self.splitCandidates = nfas.pathSplitCandidates
        self.splitMinimum = configuration.automata.suffixSplitMinimum
        self.pathPlan = Planner.path(path, modes: pathModes, rules: infos, appCount: appIDs.count)
        self.automata = AutomataIdentity()
    }

    /// The document of `domain` with `appIDs` around the automata, rule tables and plan of
    /// `first` (a document compiled from the same JSON, or decoded from the same artifact body):
    /// they are immutable, so documents can hold the same ones. `appIDs` must be as many as
    /// `first`'s: the rules name apps by number.
    init(sharing first: CompiledDocument, domain: String, appIDs: [String]) {
        self.domain = domain
        self.appIDs = appIDs
        rules = first.rules
        path = first.path
        pathSplits = first.pathSplits
        queryText = first.queryText
        fragment = first.fragment
        queryItems = first.queryItems
        predicateCount = first.predicateCount
        pathModes = first.pathModes
        pathPlan = first.pathPlan
        splitCandidates = first.splitCandidates
        splitMinimum = first.splitMinimum
        automata = first.automata
    }

    /// Assembles a compiled document from its parts (compiled artifacts).
    init(
        domain: String, appIDs: [String], rules: [RuleInfo], path: [LazyDFA?], pathSplits: [SuffixSplit?],
        queryText: [LazyDFA?], fragment: [LazyDFA?], queryGroups: [[ExactString: QueryGroup]], predicateCount: Int
    ) {
        self.domain = domain
        self.appIDs = appIDs
        self.rules = rules
        self.path = path
        self.pathSplits = pathSplits
        self.queryText = queryText
        self.fragment = fragment
        self.queryItems = QueryItemIndex(groups: queryGroups, rules: rules, predicateCount: predicateCount)
        self.predicateCount = predicateCount
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
        // An artifact stores the split made, not how many patterns could have been split.
        self.splitCandidates = nil
        self.splitMinimum = -1
        self.pathPlan = Planner.path(path, modes: pathModes, rules: rules, appCount: appIDs.count)
        self.automata = AutomataIdentity()
    }

    /// `domain`'s UTF-8 bytes, ASCII-lowercased.
    static func lowercasedBytes(_ domain: String) -> [UInt8] {
        var bytes = Array(domain.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A { bytes[index] |= 0x20 }
        return bytes
    }

    /// The document's plan: each automaton's choice (made when it was built), each path mode's
    /// split, and the path strategy. Assembled on demand (for `aasa debug plan` and tests):
    /// compiling a document only keeps the choices.
    public var plan: DocumentPlan {
        DocumentPlan(
            automata: labelledAutomata.map { ($0.label, $0.dfa.choice) },
            splits: pathModes.map { mode in
                SplitPlan(
                    mode: mode, candidates: splitCandidates?[mode.index] ?? 0, minimum: splitMinimum,
                    split: pathSplits[mode.index].map { ($0.entries.count, $0.prefixes.count) })
            },
            path: pathPlan)
    }

    /// Heap bytes of the compiled automata (NFAs and class maps; caches are per thread).
    /// Summed in place: a fleet's `DocumentBudget` asks once per document it loads.
    public var memoryUsage: Int {
        var bytes = (pathPlan.decisionRows?.memoryUsage ?? 0) + (pathPlan.rowTable?.memoryUsage ?? 0)
        for automata in [path, queryText, fragment] {
            for dfa in automata { bytes += dfa?.memoryUsage ?? 0 }
        }
        for group in queryItems.groups { bytes += group.dfa.memoryUsage }
        for split in pathSplits { bytes += split?.memoryUsage ?? 0 }
        return bytes
    }

    /// How many automata the document holds (path, query text, fragment and query items).
    var automatonCount: Int {
        var count = queryItems.groups.count
        for automata in [path, queryText, fragment] {
            for dfa in automata where dfa != nil { count += 1 }
        }
        return count
    }

    /// The plan's row table when it alone decides a path (`PathRowTable`): no mode splits a
    /// `literal * literal` pattern out of its automaton. `classify` decides a routed URL from it
    /// before reaching for the matcher.
    var routedRows: PathRowTable? {
        guard let table = pathPlan.rowTable, pathPlan.modes.allSatisfy({ pathSplits[$0.index] == nil }) else { return nil }
        return table
    }

    /// The first automaton of the document, if it has one (every one has its configuration).
    var anyAutomaton: LazyDFA? {
        for case let dfa? in path { return dfa }
        for case let dfa? in queryText { return dfa }
        for case let dfa? in fragment { return dfa }
        if let group = queryItems.groups.first { return group.dfa }
        return nil
    }

    /// Path patterns matched as prefix and suffix (`SuffixSplit`), over all modes.
    public var splitPatternCount: Int { pathSplits.reduce(0) { $0 + ($1?.entries.count ?? 0) } }

    /// NFA states over all automata.
    public var nfaStateCount: Int {
        let all = (path + queryText + fragment).compactMap { $0 } + queryItems.groups.map(\.dfa)
        return all.reduce(0) { $0 + $1.nfaStateCount }
    }
}

extension CompiledDocument {
    /// Every automaton of the document with a stable label (`path raw/exact`,
    /// `query-item "id" decoded/folded`), for dumps and statistics.
    public var labelledAutomata: [(label: String, dfa: LazyDFA)] {
        var result: [(String, LazyDFA)] = []
        let queryGroups = queryGroups
        for mode in TextMode.all {
            if let dfa = path[mode.index] { result.append(("path \(mode)", dfa)) }
            if let dfa = queryText[mode.index] { result.append(("query \(mode)", dfa)) }
            if let dfa = fragment[mode.index] { result.append(("fragment \(mode)", dfa)) }
            let groups = queryGroups[mode.index]
            for name in groups.keys.sorted(by: { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }) {
                if let group = groups[name] {
                    result.append(("query-item \(JSONWriter.escape(name.string)) \(mode)", group.dfa))
                }
            }
        }
        return result
    }
}
