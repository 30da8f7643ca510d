/// `aasa cover`: for every rule and app, a URL that this rule decides, or the reason none exists.
///
/// Turning the result into a test matrix pins a document's behaviour: each URL is checked by
/// the matcher before it is listed, and a rule without URL says why (it can never match, or
/// earlier rules decide every URL it matches), which is a proof when `isProof`.
public struct Coverage: Sendable {
    public struct Item: Sendable, Hashable {
        public var app: String
        public var entry: Int
        public var rule: Int
        public var decision: DecisionKind
        /// A URL on which this rule decides for `app`; `nil` when there is none.
        public var url: String?
        /// Why there is no URL.
        public var reason: String?
        /// There is no URL and that is proven (the rule never matches, or earlier rules decide
        /// every URL it matches), rather than the search having run short (`reason` says how).
        public var provenAbsent = false
    }

    public let items: [Item]
    /// The absence of a URL is proven for every item without one (the exploration complete, in
    /// one text or, for rules in several modes, one text per mode class).
    public let isProof: Bool

    /// Covers `document` on `domain`, within `configuration`'s automaton limits.
    /// - Throws: `AutomatonError` when the rules exceed a compile limit.
    public init(document: AASADocument, domain: String, configuration: Configuration = .default) throws(AutomatonError) {
        let analysis = try AnalysisDocument(document: document, domain: domain, limits: configuration.automata)
        let limits = configuration.automata
        let result = URLExplorer(
            sides: [analysis], domain: domain, maxStates: limits.maxAnalysisStates, maxWork: limits.maxAnalysisWork,
            witnessesPerOutcome: 2
        ).explore()
        // The searches rule by rule share what the whole search left of the budget, so that a
        // document of thousands of rules costs one budget, not one per rule.
        var workLeft = limits.maxAnalysisWork - result.work
        let check = try WitnessCheck(sides: [analysis], configuration: configuration)
        let facts = RuleReachability(analysis: analysis, result: result, check: check)
        // Rules in modes one text cannot serve: a walk per mode class, as lint takes, proves
        // which (rule, app) pairs no URL has (`SemanticLint` says why that is a proof).
        var classes: RuleReachability?
        if !result.isProof, result.complete, workLeft > 0 {
            let walk = URLExplorer(
                sides: [analysis], domain: domain, maxStates: limits.maxAnalysisStates, maxWork: workLeft, witnessesPerOutcome: 2
            ).explore(.perModeClass, everyRule: true)
            workLeft -= walk.work
            if walk.isProof { classes = RuleReachability(analysis: analysis, result: walk, check: check) }
        }
        /// The facts that prove an absence, when some walk is a proof.
        let proof = result.isProof ? facts : classes
        let locations = RuleLocations(document)
        // Short of a proof, every URL the walk wrote is judged by the matcher, whatever outcome
        // the walk expected of it: with several modes or both query shapes a URL may show
        // another rule deciding than its outcome said, and serves that rule.
        var judged: [AppDecision: String] = [:]
        var seen = Set<String>()
        func judge(_ urls: [String]) {
            for url in WitnessCheck.toJudge(urls, seen: &seen) {
                for decision in check.decisions(url, side: 0) ?? [] where decision.kind != .noMatch && judged[decision] == nil {
                    judged[decision] = url
                }
            }
        }
        let unproven = !result.isProof || facts.unconfirmedOutcomes > 0
        if unproven { judge(result.outcomes.flatMap(\.witnesses)) }
        var items: [Item] = []
        var searchedAlone = false
        for rule in analysis.rules {
            // URLs the rule matches on its own, looked for once per rule and only when needed.
            var alone: [String]?
            for app in rule.apps {
                var item = Item(
                    app: analysis.appIDs[app], entry: rule.entryIndex, rule: rule.ruleIndex,
                    decision: rule.exclude ? .exclude : .match)
                item.url = facts.deciding[rule.id][app]?.url ?? judged[analysis.decision(app: app, rule: Int32(rule.id))]
                let absent = proof.map { $0.deciding[rule.id][app] == nil } ?? false
                if item.url == nil, facts.deciding[rule.id][app] != nil || (!result.isProof && !absent) {
                    if alone == nil, workLeft > 0 {
                        let found = try Self.urlsMatchedByRuleAlone(
                            rule.id, of: analysis, limits: configuration.automata, maxWork: min(1_000_000, workLeft))
                        alone = found.urls
                        workLeft -= found.work
                        searchedAlone = true
                    }
                    item.url = alone?.first { check.rules($0, side: 0)?[app] == Int32(rule.id) }
                }
                if item.url == nil {
                    if alone == nil, workLeft <= 0, !absent {
                        // Who spent it: the walk of the whole document, and the searches of
                        // earlier rules if any ran (a lone rule's walk had been blamed on rules
                        // that do not exist).
                        let spender = searchedAlone ? "the document's walk and the searches of earlier rules" : "the document's walk"
                        item.reason = "not searched: \(spender) spent the work budget (\(Configuration.Limit.analysisWork.hint))"
                    } else if facts.deciding[rule.id][app] != nil {
                        item.reason = "the search found the rule deciding, but no URL for it could be confirmed"
                    } else if let proof, absent {
                        item.provenAbsent = true
                        if !proof.matches[rule.id] {
                            item.reason = "no URL can match this rule"
                        } else {
                            // The rules that decide this app there: for a rule that decides its
                            // other apps, the list of every shadowing rule was empty (an audit's
                            // finding).
                            let covering = proof.covering(
                                rule.id, perModeClass: !result.isProof, seen: facts, include: { analysis.rules[$0].apps.contains(app) })
                            item.reason = "every URL it matches is decided earlier by \(covering.map { locations.paths[$0].description }.joined(separator: ", "))"
                        }
                    } else {
                        item.reason = "no URL found; the search is not exhaustive for this document: "
                            + result.incompleteness([analysis]).joined(separator: "; ")
                    }
                }
                items.append(item)
            }
        }
        // Rules still without a URL, in a document the walk finished: the walks that read the
        // URL's own text through every mode, as `diff` does, propose more URLs to judge.
        if unproven, result.complete, items.contains(where: { $0.url == nil }) {
            for strategy in URLExplorer.Strategy.rawTextWalks([analysis]) where workLeft > 0 {
                let raw = URLExplorer(
                    sides: [analysis], domain: domain, maxStates: limits.maxAnalysisStates, maxWork: min(1_000_000, workLeft),
                    witnessesPerOutcome: 2
                ).explore(strategy)
                workLeft -= raw.work
                judge(raw.outcomes.flatMap(\.witnesses))
            }
            for index in items.indices where items[index].url == nil {
                let item = items[index]
                if let url = judged[AppDecision(app: item.app, kind: item.decision, entry: item.entry, rule: item.rule)] {
                    items[index].url = url
                    items[index].reason = nil
                }
            }
        }
        self.items = items
        // With several modes, a proof only where every rule without a URL was proven to have none.
        isProof = result.isProof || (classes != nil && items.allSatisfy { $0.url != nil || $0.provenAbsent })
    }

    /// URLs that rule `rule` matches on its own (shortest first): when the whole document is
    /// too big to explore, or its outcome had no confirmed URL, each is a candidate the matcher
    /// then checks against the whole document.
    static func urlsMatchedByRuleAlone(
        _ rule: Int, of analysis: AnalysisDocument, limits: Configuration.Automata, maxWork: Int
    ) throws(AutomatonError) -> (urls: [String], work: Int) {
        let alone = try AnalysisDocument(
            document: analysis.document, domain: analysis.domain, limits: limits, scope: .rule(rule),
            resolved: analysis.rules)
        let result = URLExplorer(
            // Each search rule by rule stores at most 5 000 states, and never more than the
            // whole analysis may (`analysis-states`).
            sides: [alone], domain: analysis.domain, maxStates: min(5_000, limits.maxAnalysisStates), maxWork: maxWork,
            witnessesPerOutcome: 4
        ).explore()
        // Compiling the rule's automata walks every rule: charged too. So is each state the
        // search stored, as a few allocations and the words of rule sets that hashing it reads:
        // a state is cheap to step but not to store, and a thousand searches that each fill
        // their state budget would otherwise cost many times what the work budget says.
        let perState = 8 + (alone.rules.count + alone.predicateRule.count) / 64
        let work = result.work + result.states * perState + alone.rules.count
        return (result.outcomes.filter { $0.alive[0].contains(rule) }.flatMap(\.witnesses), work)
    }
}
