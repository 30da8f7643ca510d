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
    }

    public let items: [Item]
    /// The absence of a URL is proven (one text mode, exploration complete).
    public let isProof: Bool

    /// Covers `document` on `domain`.
    /// - Throws: `AutomatonError` when the rules exceed a compile limit.
    public init(document: AASADocument, domain: String, maxNFAStates: Int = Configuration.default.automata.maxNFAStates) throws(AutomatonError) {
        let analysis = try AnalysisDocument(document: document, domain: domain, maxNFAStates: maxNFAStates)
        let result = URLExplorer(sides: [analysis], domain: domain, witnessesPerOutcome: 2).explore()
        let check = try WitnessCheck(sides: [analysis])
        let facts = RuleReachability(analysis: analysis, result: result, check: check)
        let locations = RuleLocations(document)
        var items: [Item] = []
        for rule in analysis.rules {
            for app in rule.apps {
                var item = Item(
                    app: analysis.appIDs[app], entry: rule.entryIndex, rule: rule.ruleIndex,
                    decision: rule.exclude ? .exclude : .match)
                if let evidence = facts.deciding[rule.id][app] {
                    item.url = evidence.url
                    if evidence.url == nil { item.reason = "the rule decides some URL, but no example could be confirmed" }
                } else if !result.isProof {
                    item.url = try Self.urlMatchedByRuleAlone(
                        rule.id, app: app, document: document, domain: domain, check: check, maxNFAStates: maxNFAStates)
                    if item.url == nil {
                        item.reason = "no URL found; the search is not exhaustive for this document (several text modes or its state budget)"
                    }
                } else if !facts.matches[rule.id] {
                    item.reason = "no URL can match this rule"
                } else {
                    let covering = facts.shadowedBy[rule.id].keys.sorted().map { locations.paths[$0].description }
                    item.reason = "every URL it matches is decided earlier by \(covering.joined(separator: ", "))"
                }
                items.append(item)
            }
        }
        self.items = items
        isProof = result.isProof
    }

    /// When the whole document is too big to explore: URLs the rule matches on its own, kept
    /// when the matcher confirms that the rule decides them in the whole document.
    static func urlMatchedByRuleAlone(
        _ rule: Int, app: Int, document: AASADocument, domain: String, check: WitnessCheck, maxNFAStates: Int
    ) throws(AutomatonError) -> String? {
        let alone = try AnalysisDocument(document: document, domain: domain, maxNFAStates: maxNFAStates, onlyRule: rule)
        let result = URLExplorer(sides: [alone], domain: domain, maxStates: 5_000, maxWork: 1_000_000, witnessesPerOutcome: 4).explore()
        let expected = alone.decision(app: app, rule: Int32(rule))
        for outcome in result.outcomes where outcome.alive[0].contains(rule) {
            for url in outcome.witnesses where check.decisions(url, side: 0)?[app] == expected {
                return url
            }
        }
        return nil
    }
}
