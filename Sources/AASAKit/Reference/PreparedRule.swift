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

    /// What evaluating a rule costs besides its globs: the evaluation it records, with a copy
    /// of the rule and a row per component (about 1.3 µs a rule of 60 000 `{"#": ""}`, at about a
    /// nanosecond a cell).
    static let cellsPerRule = 1_024

    /// The most glob table cells evaluating this rule against `texts` computes (every component
    /// is compared, whatever the others' verdicts), and `cellsPerRule`: a rule whose patterns are
    /// all empty still compares whole texts, so 14 000 of them cannot pass as free.
    func cells(against texts: ComparedURL.Texts) -> Int {
        var cells = Self.cellsPerRule
        for glob in path { cells = ReferenceWork.sum(cells, glob.cells(texts: 1, scalars: texts.path.scalars.count)) }
        return ReferenceWork.sum(
            cells, QueryComparison.cells(query, texts: texts), fragment.cells(texts: 1, scalars: texts.fragment.scalars.count))
    }
}
