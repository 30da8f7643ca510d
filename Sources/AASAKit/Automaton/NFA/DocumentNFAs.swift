/// A document's rules compiled into tagged NFAs: one per component kind and text mode, and one
/// per (mode, query item name).
///
/// Path, query-text and fragment automata are tagged with rule ids (evaluation order), item
/// automata with predicate ids. A query or fragment a rule leaves at `*` is not compiled: such a
/// rule is universal for that component (path patterns are always compiled). The matcher (`CompiledDocument`) and the analyses
/// (`AnalysisDocument`) both start here, so they reason about the very same languages.
struct DocumentNFAs {
    /// How a rule constrains the query (SPEC 7).
    enum QueryConstraint {
        case universal
        case text
        case items(predicates: [Int32])
    }

    /// The automaton of one query item name in one mode, and the predicates it carries.
    struct ItemAutomaton {
        var nfa: NFA
        var predicates: [Int32]
    }

    let rules: [EffectiveRule]
    /// Per rule: how its query is constrained, and whether its fragment is.
    let queryConstraints: [QueryConstraint]
    let fragmentConstrained: [Bool]
    /// Per predicate id: the rule it belongs to.
    let predicateRule: [Int32]
    /// Indexed by `TextMode.index`.
    let path: [NFA?]
    /// Per mode: the `literal * literal` path patterns taken out of `path` (`SuffixSplit`), when
    /// the matcher asked for the split; the analyses never do.
    let pathSplits: [SuffixSplit?]
    /// Per mode: how many path patterns could have been split (the plan's record); 0 when the
    /// split was not asked for.
    let pathSplitCandidates: [Int]
    let queryText: [NFA?]
    let fragment: [NFA?]
    /// Per mode: normalised item name (compared scalar by scalar) → automaton.
    let items: [[ExactString: ItemAutomaton]]
    let resolve: NFACompiler.VariableResolver

    /// Compiles `document`; with `onlyRules`, only those rules' patterns go into the automata (the
    /// other rules keep their ids and constraints but never match).
    ///
    /// With `splitMinimum`, a mode's path patterns of the shape `literal * literal` go to a
    /// `SuffixSplit` when there are at least that many of them (the matcher's compilation).
    ///
    /// `resolved` is `EffectiveRule.resolve(document)` when the caller has it already: a
    /// search rule by rule compiles the same document once per rule.
    ///
    /// - Throws: `AutomatonError` past `maxNFAStates` in all the automata together.
    init(
        document: AASADocument, maxNFAStates: Int,
        maxVariablePositions: Int = Configuration.Automata().maxVariablePositions, onlyRules: Bitset? = nil,
        resolved: [EffectiveRule]? = nil, splitMinimum: Int? = nil
    ) throws(AutomatonError) {
        let rules = resolved ?? EffectiveRule.resolve(document)
        self.rules = rules
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        let resolve: NFACompiler.VariableResolver = { variables.resolve($0) }
        self.resolve = resolve
        // A document without variables of its own (most of them) captures nothing.
        let predefined: NFACompiler.PredefinedResolver =
            variables.isEmpty
            ? { PredefinedVariables.index(of: $0) } : { variables[$0] == nil ? PredefinedVariables.index(of: $0) : nil }

        var pathPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var queryPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var fragmentPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var itemPatterns = [[ExactString: [(pattern: Pattern, tag: Int32)]]](repeating: [:], count: 4)
        var constraints: [QueryConstraint] = []
        var fragmentConstrained: [Bool] = []
        var predicateRule: [Int32] = []
        for rule in rules {
            let tag = Int32(rule.id)
            let mode = rule.mode.index
            let compiled = onlyRules?.contains(rule.id) ?? true
            if compiled {
                for alternative in rule.path { pathPatterns[mode].append((alternative, tag)) }
            }
            switch rule.query {
            case .universal:
                constraints.append(.universal)
            case .text(let pattern):
                if compiled { queryPatterns[mode].append((pattern, tag)) }
                constraints.append(.text)
            case .items(let predicates):
                var ids: [Int32] = []
                // A rule left out never matches: its predicates get no ids, so that a search
                // on one rule carries only that rule's predicates in its states (a document of
                // thousands of items made every state thousands of bits wide).
                for (name, pattern) in predicates where compiled {
                    let id = Int32(predicateRule.count)
                    predicateRule.append(tag)
                    itemPatterns[mode][ExactString(name), default: []].append((pattern, id))
                    ids.append(id)
                }
                constraints.append(ids.isEmpty ? .universal : .items(predicates: ids))
            }
            fragmentConstrained.append(!rule.fragment.isUniversal)
            if compiled && !rule.fragment.isUniversal { fragmentPatterns[mode].append((rule.fragment, tag)) }
        }
        // Only an error names a rule's place in the document, so the places are found then.
        let ruleLocation: (Int32) -> JSONPath? = { rule in
            let paths = RuleLocations(document).paths
            return paths.indices.contains(Int(rule)) ? paths[Int(rule)] : nil
        }
        let predicates = predicateRule
        // `nfa-states` holds for the document, not for each automaton: every automaton that
        // calls a variable has its own copy of the variable's sub-automaton, and a query
        // dictionary has an automaton per item name, so 4 000 names each calling one variable
        // of 150 000 states made 600 million states from a 120 KB file (40 s and 7 GB, then
        // an abort) while each automaton stayed under a per-automaton limit. Counted as the
        // states are added, so compiling stops at the limit.
        var statesUsed = 0
        func build(_ patterns: [(pattern: Pattern, tag: Int32)], _ mode: TextMode, itemTags: Bool = false)
            throws(AutomatonError) -> NFA?
        {
            if patterns.isEmpty { return nil }
            do {
                let nfa = try NFACompiler.compile(
                    patterns, mode: mode, maxStates: maxNFAStates - statesUsed, maxVariablePositions: maxVariablePositions,
                    variables: resolve, predefined: predefined,
                    locate: { tag in
                        // Item automata are tagged with predicate ids; split groups have no rule.
                        let rule = itemTags ? (predicates.indices.contains(Int(tag)) ? predicates[Int(tag)] : -1) : tag
                        return ruleLocation(rule)
                    })
                statesUsed += nfa.stateCount
                return nfa
            } catch .tooManyNFAStates(let needed, _) {
                throw .tooManyNFAStates(needed: statesUsed + needed, limit: maxNFAStates)
            }
        }
        var path: [NFA?] = []
        var pathSplits: [SuffixSplit?] = []
        var pathSplitCandidates: [Int] = []
        var queryText: [NFA?] = []
        var fragment: [NFA?] = []
        var items: [[ExactString: ItemAutomaton]] = []
        path.reserveCapacity(TextMode.all.count)
        pathSplits.reserveCapacity(TextMode.all.count)
        pathSplitCandidates.reserveCapacity(TextMode.all.count)
        queryText.reserveCapacity(TextMode.all.count)
        fragment.reserveCapacity(TextMode.all.count)
        items.reserveCapacity(TextMode.all.count)
        for mode in TextMode.all {
            var patterns = pathPatterns[mode.index]
            var split: SuffixSplit?
            var candidates = 0
            if let splitMinimum {
                (patterns, split, candidates) = SuffixSplit.split(
                    patterns, groupBase: TagLayout(ruleCount: rules.count).firstGroup, minimum: splitMinimum)
            }
            pathSplitCandidates.append(candidates)
            path.append(try build(patterns, mode))
            pathSplits.append(split)
            queryText.append(try build(queryPatterns[mode.index], mode))
            fragment.append(try build(fragmentPatterns[mode.index], mode))
            var byName: [ExactString: ItemAutomaton] = [:]
            // In the order the document first names each item, not the dictionary's (hash
            // order changes from run to run): which automaton passes `nfa-states` or
            // `variable-positions` first, and so which rule the refusal names, was different on
            // every run, and with it the error records (an audit's finding).
            let named = itemPatterns[mode.index].sorted { ($0.value.first?.tag ?? 0) < ($1.value.first?.tag ?? 0) }
            for (name, patterns) in named {
                if let nfa = try build(patterns, mode, itemTags: true) {
                    byName[name] = ItemAutomaton(nfa: nfa, predicates: patterns.map(\.tag))
                }
            }
            items.append(byName)
        }
        queryConstraints = constraints
        self.fragmentConstrained = fragmentConstrained
        self.predicateRule = predicateRule
        self.path = path
        self.pathSplits = pathSplits
        self.pathSplitCandidates = pathSplitCandidates
        self.queryText = queryText
        self.fragment = fragment
        self.items = items
    }
}
