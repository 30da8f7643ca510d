/// One rule as the oracle evaluates it: the defaults chain applied (`ReferenceRule`) and every
/// pattern parsed into globs for the rule's flags, once, when the matcher is made. Evaluation is
/// still rule by rule, in order; preparing only stops the oracle from re-parsing `$(lang)`'s
/// 631 alternatives for every rule of every URL.
struct PreparedRule: Sendable {
    let entryIndex: Int
    let ruleIndex: Int
    let rule: ReferenceRule
    let text: ReferenceText
    let path: [Glob]
    let query: QueryComparison.Prepared
    let fragment: Glob

    init(_ source: Rule, of entry: Entry, domainDefaults: RuleKeys, variables: ReferenceVariables) {
        let rule = ReferenceRule(source, entry: entry, domainDefaults: domainDefaults)
        let text = ReferenceText(caseSensitive: rule.caseSensitive, percentEncoded: rule.percentEncoded)
        entryIndex = entry.index
        ruleIndex = source.index
        self.rule = rule
        self.text = text
        path = PathComparison.prepare(rule.path, text: text, variables: variables)
        query = QueryComparison.prepare(rule.query, text: text, variables: variables)
        fragment = Glob(rule.fragment, text: text, variables: variables)
    }

    /// The most rows (`Glob.weight`) evaluating this rule computes for a path, the query's items
    /// and a fragment of one character: each row is as long as its text plus one.
    var weight: (path: Int, query: Int, fragment: Int) {
        let query: Int
        switch self.query {
        case .text(_, let glob): query = glob.weight
        case .items(let predicates): query = predicates.reduce(0) { $0 &+ $1.glob.weight }
        case .voided: query = 0
        }
        return (path.reduce(0) { $0 &+ $1.weight }, query, fragment.weight)
    }
}
