/// One document prepared for reasoning about *sets* of URLs rather than one URL at a time.
///
/// The matcher needs automata it can run; the analyses (lint, diff, cover) need the same
/// automata plus, per rule, which components constrain it. This keeps both: one NFA per
/// component kind and text mode, tagged with rule ids (path, query text, fragment) or predicate
/// ids (query items), compiled exactly as `CompiledDocument` compiles them, so an analysis
/// reasons about the very languages the matcher decides with.
struct AnalysisDocument {
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

    let document: AASADocument
    let domain: String
    let rules: [EffectiveRule]
    let appIDs: [String]
    /// Per rule: how its query is constrained, and whether its fragment is.
    let queryConstraints: [QueryConstraint]
    let fragmentConstrained: [Bool]
    /// Per predicate id: the rule it belongs to.
    let predicateRule: [Int32]
    /// Indexed by `TextMode.index`.
    let path: [NFA?]
    let queryText: [NFA?]
    let fragment: [NFA?]
    /// Per mode: normalised item name → automaton.
    let items: [[String: ItemAutomaton]]

    /// The rules compiled into the automata: all of them, or the one asked for.
    let compiledRules: [Int]

    /// The text modes some compiled rule compares in.
    var modes: Set<TextMode> { Set(compiledRules.map { rules[$0].mode }) }

    var hasTextQueries: Bool { compiledRules.contains { if case .text = queryConstraints[$0] { true } else { false } } }
    var hasItemQueries: Bool { compiledRules.contains { if case .items = queryConstraints[$0] { true } else { false } } }

    /// Whether every compiled `caseSensitive: false` rule spells its literals (variable values
    /// included) in ASCII. Then such a rule treats every non-ASCII scalar alike (only `?` and
    /// `*` can read one), and the explorer can feed it folded text one byte at a time.
    let foldedLiteralsAreASCII: Bool

    /// Whether compiled rules of both `caseSensitive` values have query item dictionaries: the
    /// item names would then compare differently per rule.
    var itemsInBothCases: Bool {
        let cases = Set(compiledRules.compactMap { rule -> Bool? in
            if case .items = queryConstraints[rule] { return rules[rule].mode.folded }
            return nil
        })
        return cases.count == 2
    }

    /// Prepares `document`; with `onlyRule`, only that rule is compiled (the others never
    /// match), to look for URLs that one rule matches when the whole document is too big to
    /// explore.
    init(document: AASADocument, domain: String, maxNFAStates: Int, onlyRule: Int? = nil) throws(AutomatonError) {
        self.document = document
        self.domain = domain
        let rules = EffectiveRule.resolve(document)
        self.rules = rules
        appIDs = document.appIDs
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        let resolve: NFACompiler.VariableResolver = { variables.resolve($0) }

        var pathPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var queryPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var fragmentPatterns = [[(pattern: Pattern, tag: Int32)]](repeating: [], count: 4)
        var itemPatterns = [[String: [(pattern: Pattern, tag: Int32)]]](repeating: [:], count: 4)
        var constraints: [QueryConstraint] = []
        var fragmentConstrained: [Bool] = []
        var predicateRule: [Int32] = []
        compiledRules = onlyRule.map { [$0] } ?? Array(rules.indices)
        for rule in rules {
            let tag = Int32(rule.id)
            let mode = rule.mode.index
            let compiled = onlyRule == nil || onlyRule == rule.id
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
                for (name, pattern) in predicates {
                    let id = Int32(predicateRule.count)
                    predicateRule.append(tag)
                    if compiled { itemPatterns[mode][name, default: []].append((pattern, id)) }
                    ids.append(id)
                }
                constraints.append(ids.isEmpty ? .universal : .items(predicates: ids))
            }
            fragmentConstrained.append(!rule.fragment.isUniversal)
            if compiled && !rule.fragment.isUniversal { fragmentPatterns[mode].append((rule.fragment, tag)) }
        }
        let maxStates = maxNFAStates
        func build(_ patterns: [(pattern: Pattern, tag: Int32)], _ mode: TextMode) throws(AutomatonError) -> NFA? {
            if patterns.isEmpty { return nil }
            return try NFACompiler.compile(patterns, mode: mode, maxStates: maxStates, variables: resolve)
        }
        var path: [NFA?] = []
        var queryText: [NFA?] = []
        var fragment: [NFA?] = []
        var items: [[String: ItemAutomaton]] = []
        for mode in TextMode.all {
            path.append(try build(pathPatterns[mode.index], mode))
            queryText.append(try build(queryPatterns[mode.index], mode))
            fragment.append(try build(fragmentPatterns[mode.index], mode))
            var byName: [String: ItemAutomaton] = [:]
            for (name, patterns) in itemPatterns[mode.index] {
                if let nfa = try build(patterns, mode) {
                    byName[name] = ItemAutomaton(nfa: nfa, predicates: patterns.map(\.tag))
                }
            }
            items.append(byName)
        }
        queryConstraints = constraints
        foldedLiteralsAreASCII = compiledRules.allSatisfy { id in
            let rule = rules[id]
            guard rule.mode.folded else { return true }
            var patterns = rule.path + [rule.fragment]
            switch rule.query {
            case .universal: break
            case .text(let pattern): patterns.append(pattern)
            case .items(let items):
                patterns += items.map(\.pattern)
                if !items.allSatisfy({ $0.name.utf8.allSatisfy { $0 < 0x80 } }) { return false }
            }
            return patterns.allSatisfy { pattern in
                pattern.pieces.allSatisfy { piece in
                    switch piece {
                    case .literal(let text): return text.utf8.allSatisfy { $0 < 0x80 }
                    case .anyOne, .anyMany: return true
                    case .variable(let name): return (resolve(name) ?? []).allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
                    }
                }
            }
        }
        self.fragmentConstrained = fragmentConstrained
        self.predicateRule = predicateRule
        self.path = path
        self.queryText = queryText
        self.fragment = fragment
        self.items = items
    }

    /// Per app index, the deciding rule id (or -1) when exactly the rules of `alive` match a
    /// URL (SPEC 3: entries and rules in order, the first matching rule naming the app decides).
    func decisions(alive: Bitset) -> [Int32] {
        var result = [Int32](repeating: -1, count: appIDs.count)
        var remaining = appIDs.count
        for rule in alive.members where remaining > 0 {
            for app in rules[rule].apps where result[app] < 0 {
                result[app] = Int32(rule)
                remaining -= 1
            }
        }
        return result
    }

    /// The decision record of app `app` given its deciding rule id.
    func decision(app: Int, rule: Int32) -> AppDecision {
        guard rule >= 0 else { return AppDecision(app: appIDs[app], kind: .noMatch) }
        let info = rules[Int(rule)]
        return AppDecision(app: appIDs[app], kind: info.exclude ? .exclude : .match, entry: info.entryIndex, rule: info.ruleIndex)
    }
}
