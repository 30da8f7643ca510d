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
    /// Per mode: the path patterns matched as prefix (in `path`) and suffix, or nil.
    let pathSplits: [SuffixSplit?]
    let queryText: [LazyDFA?]
    let fragment: [LazyDFA?]
    /// Per mode: normalised item name → group.
    let queryGroups: [[ExactString: QueryGroup]]
    let predicateCount: Int
    /// Modes whose path automaton exists, in `TextMode.all` order.
    let pathModes: [TextMode]
    /// Per rule: its query and fragment are `*`, so a path match alone decides.
    let decidesOnPath: [Bool]
    /// The decision rows of every tag set of the path automaton, when the plan's path
    /// strategy is `soloPathCompiledRows` (`PathDecisions`).
    let pathDecisions: PathDecisions?
    /// How the matcher turns the path's tag set into decisions (`Planner.path`).
    let pathPlan: PathPlan
    /// Per mode: how many path patterns could have been split, and the minimum asked for
    /// (`SplitPlan`); nil for a document loaded from an artifact, which stores only the split.
    let splitCandidates: [Int]?
    let splitMinimum: Int

    /// Per tag set of a prebuilt path table: what it decides for each app, computed once for
    /// every thread. A matcher otherwise computes a row the first time it meets a tag set,
    /// which at 10 000 rules is most URLs of a fresh matcher (tens of thousands of sets).
    ///
    /// One fixed-width row per tag set, at `tagSet * width`: whether it decides on the path
    /// alone (1, or 0 when a rule that would decide an app also needs the query or fragment),
    /// the number of its `SuffixSplit` prefix groups, the groups themselves (or where they
    /// start in `groupTags` when there are more than `inlineGroups`), then one deciding rule
    /// id (or -1) per app. Why one row: at 10 000 rules these rows are cold, and a URL reads
    /// its own with one cache miss instead of one per array (the groups' own array cost a
    /// dependent miss more: at 10 000 generated path rules, nine tag sets in ten have one to
    /// three groups). The width is eight words when that leaves room for two groups or more:
    /// two rows a cache line.
    struct PathDecisions: Sendable {
        let width: Int
        let rows: [Int32]
        /// Prefix groups (tags from the rule count on) of the tag sets that have more than
        /// `inlineGroups`, row after row. A path whose tag set has none cannot match a split
        /// rule: the suffix side is skipped.
        let groupTags: [Int32]
        /// Groups a row holds itself.
        let inlineGroups: Int
        var firstAppSlot: Int { Self.groupsSlot + inlineGroups }

        static let decidedSlot = 0
        static let groupCountSlot = 1
        /// The groups, or when there are more than `inlineGroups`, their start in `groupTags`.
        static let groupsSlot = 2

        /// Words a row takes with `appCount` apps: eight when that leaves room for two groups
        /// or more (two rows a cache line), else just enough for two groups and the apps.
        static func width(appCount: Int) -> Int {
            let minimum = groupsSlot + 2 + appCount
            return minimum <= 8 ? 8 : minimum
        }
    }

    /// The decision row of a path tag set (`tags`, sorted), appended to `row`: per app, the
    /// first rule of `tags` that names it; false (nothing appended) when such a rule also needs
    /// the query or fragment. Tags from `rules.count` on are split prefix groups, not rules.
    static func appendDecisionRow(
        for tags: [Int32], rules: [RuleInfo], decidesOnPath: [Bool], appCount: Int, to row: inout [Int32]
    ) -> Bool {
        let start = row.count
        row.append(contentsOf: repeatElement(-1, count: appCount))
        var remaining = appCount
        for rule in tags {
            if Int(rule) >= rules.count { break }
            let apps = rules[Int(rule)].apps
            guard apps.contains(where: { row[start + Int($0)] < 0 }) else { continue }
            guard decidesOnPath[Int(rule)] else {
                row.removeLast(appCount)
                return false
            }
            for app in apps where row[start + Int(app)] < 0 {
                row[start + Int(app)] = rule
                remaining -= 1
            }
            if remaining == 0 { break }
        }
        return true
    }

    /// `pathDecisions` for the automata just built, when the plan computes them now
    /// (`Planner.path`).
    static func pathDecisions(
        path: [LazyDFA?], plan: PathPlan, rules: [RuleInfo], decidesOnPath: [Bool], appCount: Int
    ) -> PathDecisions? {
        // Rows for every tag set cost tag sets x apps words, two counts a compiled artifact
        // sets independently (65 536 tag sets and 10 000 app IDs, under a megabyte of file,
        // would be 2.6 GB): the plan keeps them within eight times the table's own cells, and
        // otherwise each matcher builds just the rows its URLs meet (`DFAMatcher.annotate`).
        guard plan.strategy == .soloPathCompiledRows, let mode = plan.modes.first, let table = path[mode.index]?.prebuilt else {
            return nil
        }
        let width = PathDecisions.width(appCount: appCount)
        let inlineGroups = width - PathDecisions.groupsSlot - appCount
        var rows: [Int32] = []
        var groupTags: [Int32] = []
        rows.reserveCapacity(table.tagSets.count * width)
        var decision: [Int32] = []
        for tags in table.tagSets {
            decision.removeAll(keepingCapacity: true)
            let decided = appendDecisionRow(
                for: tags.sorted, rules: rules, decidesOnPath: decidesOnPath, appCount: appCount, to: &decision)
            let groups = tags.sorted.filter { Int($0) >= rules.count }
            rows += [decided ? 1 : 0, Int32(groups.count)]
            if groups.count <= inlineGroups {
                rows += groups + repeatElement(-1, count: inlineGroups - groups.count)
            } else {
                rows += [Int32(groupTags.count)] + repeatElement(-1, count: inlineGroups - 1)
                groupTags += groups
            }
            rows += decided ? decision : Array(repeating: -1, count: appCount)
        }
        return PathDecisions(width: width, rows: rows, groupTags: groupTags, inlineGroups: inlineGroups)
    }

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
        self.domainBytes = domain.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
        self.appIDs = appIDs
        let infos = nfas.rules.map { rule in
            let queryKind: QueryKind
            switch nfas.queryConstraints[rule.id] {
            case .universal: queryKind = .universal
            case .text: queryKind = .text
            case .items(let predicates): queryKind = .items(predicates: predicates)
            }
            return RuleInfo(
                entryIndex: rule.entryIndex, ruleIndex: rule.ruleIndex, exclude: rule.exclude,
                apps: rule.apps.map(Int32.init), mode: rule.mode, queryKind: queryKind,
                fragmentIsUniversal: !nfas.fragmentConstrained[rule.id])
        }
        func lazy(_ nfa: NFA?) throws(AutomatonError) -> LazyDFA? {
            guard let nfa else { return nil }
            return try Planner.automaton(nfa, configuration: configuration.automata)
        }
        var path: [LazyDFA?] = []
        var queryText: [LazyDFA?] = []
        var fragment: [LazyDFA?] = []
        var groups: [[ExactString: QueryGroup]] = []
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
        self.queryGroups = groups
        self.predicateCount = nfas.predicateRule.count
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
        self.decidesOnPath = infos.map(Self.decidesOnPath)
        self.splitCandidates = nfas.pathSplitCandidates
        self.splitMinimum = configuration.automata.suffixSplitMinimum
        self.pathPlan = Planner.path(path, modes: pathModes, appCount: appIDs.count)
        self.pathDecisions = Self.pathDecisions(
            path: path, plan: pathPlan, rules: infos, decidesOnPath: decidesOnPath, appCount: appIDs.count)
    }

    /// Whether `rule`'s query and fragment are `*`.
    static func decidesOnPath(_ rule: RuleInfo) -> Bool {
        if case .universal = rule.queryKind { return rule.fragmentIsUniversal }
        return false
    }

    /// Assembles a compiled document from its parts (compiled artifacts).
    init(
        domain: String, appIDs: [String], rules: [RuleInfo], path: [LazyDFA?], pathSplits: [SuffixSplit?],
        queryText: [LazyDFA?], fragment: [LazyDFA?], queryGroups: [[ExactString: QueryGroup]], predicateCount: Int
    ) {
        self.domain = domain
        self.domainBytes = domain.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
        self.appIDs = appIDs
        self.rules = rules
        self.path = path
        self.pathSplits = pathSplits
        self.queryText = queryText
        self.fragment = fragment
        self.queryGroups = queryGroups
        self.predicateCount = predicateCount
        self.pathModes = TextMode.all.filter { path[$0.index] != nil }
        self.decidesOnPath = rules.map(Self.decidesOnPath)
        // An artifact stores the split made, not how many patterns could have been split.
        self.splitCandidates = nil
        self.splitMinimum = -1
        self.pathPlan = Planner.path(path, modes: pathModes, appCount: appIDs.count)
        self.pathDecisions = Self.pathDecisions(
            path: path, plan: pathPlan, rules: rules, decidesOnPath: decidesOnPath, appCount: appIDs.count)
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
    public var memoryUsage: Int {
        let all = (path + queryText + fragment).compactMap { $0 } + queryGroups.flatMap { $0.values.map(\.dfa) }
        return all.reduce(0) { $0 + $1.memoryUsage } + pathSplits.reduce(0) { $0 + ($1?.memoryUsage ?? 0) }
            + (pathDecisions.map { $0.rows.count + $0.groupTags.count } ?? 0) * 4
    }

    /// Path patterns matched as prefix and suffix (`SuffixSplit`), over all modes.
    public var splitPatternCount: Int { pathSplits.reduce(0) { $0 + ($1?.entries.count ?? 0) } }

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
