/// The Analysis folder: questions about *all* URLs of a domain, answered on the compiled
/// automata instead of by sampling. `URLExplorer` walks the product of one or two documents'
/// automata, phase by phase (path, query, fragment), and reports each distinct outcome (which
/// rules match together) with a shortest URL; `SemanticLint` (`aasa lint`), `SemanticDiff`
/// (`aasa diff`, after `RuleIdentity` has tried to prove two documents equal rule by rule
/// without a walk) and `Coverage` (`aasa cover`) read those outcomes, and every URL
/// they print is first re-checked by the matcher (`WitnessCheck`). `docs/analysis.md` explains
/// the walk and when an answer is a proof.
///
/// What it will not do: decide single URLs (the matcher does, here only to confirm witnesses);
/// build automata of its own (it reads the `DocumentNFAs` the matcher is built from, so both
/// reason about the same languages); claim that no URL does something unless a walk proved it
/// (past the `analysis-work` or `analysis-states` budget such claims are withheld with a note;
/// across text modes one text cannot serve, only what a walk per mode class proves is claimed,
/// and lint names the claims it could not settle); or depend on a clock (budgets are counts, so
/// a document always gets the same report).
///
/// This type: one document prepared for reasoning about *sets* of URLs rather than one URL at
/// a time.
///
/// The matcher needs automata it can run; the analyses (lint, diff, cover) need the same
/// automata plus, per rule, which components constrain it, and the document's apps: the
/// `DocumentNFAs` the matcher's automata are built from, and what the explorer asks of them.
struct AnalysisDocument {
    typealias QueryConstraint = DocumentNFAs.QueryConstraint

    let document: AASADocument
    let domain: String
    let appIDs: [String]
    /// The rules and their automata, exactly as the matcher compiles them.
    let nfas: DocumentNFAs
    var rules: [EffectiveRule] { nfas.rules }
    var queryConstraints: [QueryConstraint] { nfas.queryConstraints }
    var fragmentConstrained: [Bool] { nfas.fragmentConstrained }
    var predicateRule: [Int32] { nfas.predicateRule }
    var path: [NFA?] { nfas.path }
    var queryText: [NFA?] { nfas.queryText }
    var fragment: [NFA?] { nfas.fragment }
    var items: [[ExactString: DocumentNFAs.ItemAutomaton]] { nfas.items }

    /// Which rules an analysis compiles into its automata. The others keep their ids, their
    /// entry and rule numbers and their apps, so that whatever is printed numbers rules as the
    /// whole document does, but never match: a walk spends none of its budget on them.
    enum Scope {
        /// Every rule: lint and cover ask about all of them.
        case all
        /// One rule, to look for URLs that it matches when the whole document is too big to
        /// explore (`Coverage`).
        case rule(Int)
        /// The rules of the entries naming this app (compared scalar by scalar), for a diff of
        /// that app alone: SPEC 3 decides an app by the first matching rule among the entries
        /// naming it, in order, so no other rule can change its decision, whatever matches.
        /// The entries kept are whole (exclusions, their order, every entry naming the app, and
        /// their other apps, whose decisions are then partial and must not be read).
        case app(String)
    }

    /// The rules compiled into the automata (`Scope`), ascending.
    let compiledRules: [Int]

    /// The text modes some compiled rule compares in.
    var modes: Set<TextMode> { Set(compiledRules.map { rules[$0].mode }) }

    var hasTextQueries: Bool { compiledRules.contains { if case .text = queryConstraints[$0] { true } else { false } } }
    var hasItemQueries: Bool { compiledRules.contains { if case .items = queryConstraints[$0] { true } else { false } } }

    /// Whether every compiled `caseSensitive: false` rule spells its literals (variable values
    /// included) in ASCII. Then such a rule treats every non-ASCII scalar alike (only `?` and
    /// `*` can read one), and the explorer can feed it folded text one byte at a time.
    let foldedLiteralsAreASCII: Bool

    /// The `caseSensitive: false`-ness of the compiled rules with query item dictionaries: with
    /// both values, item names would compare differently per rule.
    var itemCases: Set<Bool> {
        Set(compiledRules.compactMap { rule -> Bool? in
            if case .items = queryConstraints[rule] { return rules[rule].mode.folded }
            return nil
        })
    }

    /// Prepares `document`, compiling the rules of `scope` (the others never match).
    /// `resolved` is the document's rules when the caller has them (`DocumentNFAs`). `limits`:
    /// the `nfa-states` and `variable-positions` the matcher is held to hold here too, so that
    /// an analysis refuses what `match` refuses and follows a raised limit as far (for the
    /// rules it compiles: a diff of one app is not refused for another app's variables); and
    /// `analysis-pairs`, which only analyses have.
    init(
        document: AASADocument, domain: String, limits: Configuration.Automata, scope: Scope = .all,
        resolved: [EffectiveRule]? = nil
    ) throws(AutomatonError) {
        self.document = document
        self.domain = domain
        appIDs = document.appIDs
        let rules = resolved ?? EffectiveRule.resolve(document)
        let compiledRules: [Int]
        switch scope {
        case .all:
            compiledRules = Array(rules.indices)
        case .rule(let rule):
            compiledRules = [rule]
        case .app(let app):
            // `EffectiveRule.apps` indexes `appIDs`; an app the document does not name has no rule.
            let index = appIDs.firstIndex { $0.isExactly(app) }
            compiledRules = index.map { index in rules.indices.filter { rules[$0].apps.contains(index) } } ?? []
        }
        self.compiledRules = compiledRules
        var only: Bitset?
        if compiledRules.count < rules.count {
            var set = Bitset(capacity: rules.count)
            for rule in compiledRules { set.insert(rule) }
            only = set
        }
        let nfas = try DocumentNFAs(
            document: document, maxNFAStates: limits.maxNFAStates, maxVariablePositions: limits.maxVariablePositions,
            onlyRules: only, resolved: rules)
        self.nfas = nfas
        // What an analysis keeps and prints grows with each compiled rule's apps, whatever its
        // automata cost: refused here, before any walk.
        switch scope {
        case .rule:
            break  // A search for one rule's URLs is part of an analysis of the whole document, already held to it.
        case .all, .app:
            let pairs = compiledRules.reduce(0) { $0 + rules[$1].apps.count }
            if pairs > limits.maxAnalysisPairs {
                throw .overLimit(.analysisPairs, found: pairs, maximum: limits.maxAnalysisPairs, location: nil)
            }
        }
        let resolve = nfas.resolve
        foldedLiteralsAreASCII = compiledRules.allSatisfy { id in
            let rule = rules[id]
            guard rule.mode.folded else { return true }
            if case .items(let items) = rule.query, !items.allSatisfy({ $0.name.utf8.allSatisfy { $0 < 0x80 } }) {
                return false
            }
            return Self.patterns(of: rule).allSatisfy { pattern in
                pattern.pieces.allSatisfy { piece in
                    switch piece {
                    case .literal(let text): return text.utf8.allSatisfy { $0 < 0x80 }
                    case .anyOne, .anyMany: return true
                    case .variable(let name): return (resolve(name) ?? []).allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
                    }
                }
            }
        }
    }

    /// Every pattern of `rule`: path alternatives, fragment, query text or item values.
    static func patterns(of rule: EffectiveRule) -> [Pattern] {
        var patterns = rule.path + [rule.fragment]
        switch rule.query {
        case .universal: break
        case .text(let pattern): patterns.append(pattern)
        case .items(let items): patterns += items.map(\.pattern)
        }
        return patterns
    }

    /// The non-ASCII scalars of the compiled case-insensitive rules' literals, item names and
    /// variable values, folded: what a witness may need to spell in capitals.
    func foldedNonASCIIScalars() -> Set<Unicode.Scalar> {
        var result = Set<Unicode.Scalar>()
        func add(_ text: String) {
            for scalar in text.unicodeScalars where !scalar.isASCII { result.insert(TextNormalization.fold(scalar)) }
        }
        for id in compiledRules where rules[id].mode.folded {
            let rule = rules[id]
            if case .items(let items) = rule.query { for item in items { add(item.name) } }
            for pattern in Self.patterns(of: rule) {
                for piece in pattern.pieces {
                    switch piece {
                    case .literal(let text): add(text)
                    case .anyOne, .anyMany: break
                    case .variable(let name): for value in nfas.resolve(name) ?? [] { add(value) }
                    }
                }
            }
        }
        return result
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
