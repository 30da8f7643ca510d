import Foundation

/// The oracle: a deliberately plain matcher written from `SPEC.md` alone.
///
/// Every fast path of the engine is checked against this type, so it trades all speed for
/// obviousness. It scans entries and rules in order (SPEC 3), resolves each rule against the
/// defaults chain on the spot (SPEC 10), normalises the URL text and the pattern for that rule
/// (SPEC 11, 12; the URL once per pair of flags, `ComparedURL`, since every rule with those
/// flags compares the same text), and runs a glob matcher that tries variable alternatives one
/// by one (SPEC 9).
/// It shares with the compiled engine only the document model, `URLSplitter`, the NFC
/// normaliser (`TextNormalization.nfc`) and the exact-text key (`ExactString`), never a
/// matcher: if both matched through the same helper, a bug in the helper would agree with itself.
///
/// What the Reference folder will not do: be fast (no automata, no caches; `Glob` is memoised
/// only so that `*a*a*…` stays polynomial), or share the engine's bounds: it compiles nothing,
/// so `nfa-states` and the cache budget do not apply to it, and its own work budget is not the
/// engine's (`workLimit`). It runs where an answer matters more than speed: the tests, `aasa
/// explain`, `--engine reference`, and the agreement checks of `aasa-bench`.
///
/// ```swift
/// let oracle = ReferenceMatcher(document: document, domain: "example.com")
/// let decision = try oracle.decide("https://example.com/buy/1")
/// ```
public struct ReferenceMatcher: Sendable {
    public let document: AASADocument
    public let domain: String
    let variables: ReferenceVariables
    /// Per entry (in order), its rules resolved and their globs parsed, once.
    let prepared: [(entry: Entry, rules: [PreparedRule])]
    /// Per app, the positions in `prepared` of the entries naming it, in order.
    let entriesByApp: [ExactString: [Int]]
    /// The `url-work` this matcher answers to (`Configuration.Automata.maxURLWork`).
    public let workLimit: Int

    /// Glob table cells a URL may cost per unit of `url-work` (NFA positions): a cell is a
    /// comparison of one pattern token with one character, far cheaper than a position. The
    /// other work of a decision is charged in cells too, at about their cost: a row's allocation
    /// (`Glob.cellsPerRow`), a rule's evaluation (`PreparedRule.cellsPerRule`), a byte normalised
    /// (`ComparedURL.cellsPerNormalizedByte`).
    public static let cellsPerWorkUnit = 1_000

    /// `workLimit`: a URL whose evaluation would compute more than `cellsPerWorkUnit` times this
    /// many glob table cells is refused (`URLSplitError.workLimitExceeded`) before the rule that
    /// would pass the budget is evaluated (`evaluate(_:against:work:)`). Hostile documents (a variable of thousands of `*x*` values called from dozens
    /// of rules) would otherwise take minutes for one long URL.
    public init(document: AASADocument, domain: String, workLimit: Int = Configuration.default.automata.maxURLWork) {
        self.document = document
        self.domain = domain
        self.workLimit = workLimit
        // Every `$(` followed by a name and `)` anywhere in a pattern: a superset of the real
        // references is harmless, it only parses a few more alternatives up front.
        var names = Set<ExactString>()
        for entry in document.entries {
            var texts: [String] = entry.rules.compactMap(\.keys.path) + [entry.defaults.path, entry.defaults.fragment].compactMap { $0 }
            texts += entry.rules.compactMap(\.keys.fragment)
            for keys in entry.rules.map(\.keys) + [entry.defaults, document.applinks?.defaults ?? RuleKeys()] {
                switch keys.query {
                case .text(let text)?: texts.append(text)
                case .items(let items)?: texts += items.map(\.pattern)
                default: break
                }
                texts += [keys.path, keys.fragment].compactMap { $0 }
            }
            for text in texts {
                var rest = Substring(text)
                while let open = rest.range(of: "$(") {
                    rest = rest[open.upperBound...]
                    if let close = rest.firstIndex(of: ")") { names.insert(ExactString(String(rest[..<close]))) }
                }
            }
        }
        let variables = ReferenceVariables(
            custom: document.applinks?.substitutionVariables ?? SubstitutionVariables(), referencedNames: names)
        self.variables = variables
        let domainDefaults = document.applinks?.defaults ?? RuleKeys()
        prepared = document.entries.map { entry in
            (entry, entry.rules.map { PreparedRule($0, of: entry, domainDefaults: domainDefaults, variables: variables) })
        }
        var entriesByApp: [ExactString: [Int]] = [:]
        for (position, entry) in document.entries.enumerated() {
            for app in Set(entry.appIDs.map(ExactString.init)) { entriesByApp[app, default: []].append(position) }
        }
        self.entriesByApp = entriesByApp
    }

    /// The decision for every app of the document (or for `app` alone), in app order.
    ///
    /// - Throws: `URLSplitError` when the URL cannot be split; an error is never a `no_match`.
    /// - Complexity: O(rules × (URL length × pattern length + variable alternatives)).
    public func decide(_ url: String, app: String? = nil) throws(URLSplitError) -> URLDecision {
        try decide(url, app: app, host: .domain)
    }

    /// As `decide(_:app:)`, the document served by `host`.
    public func decide(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> URLDecision {
        let compared = ComparedURL(try URLSplitter.split(url), onItsHost: host == .urlHost)
        var work = ReferenceWork(workLimit: workLimit)
        var decisions: [AppDecision] = []
        for app in app.map({ [$0] }) ?? document.appIDs {
            decisions.append(try decide(compared, app: app, work: &work).decision)
        }
        return URLDecision(decisions: decisions)
    }

    /// The decision for one app with the evaluation of every rule that was tried, in order, for
    /// `aasa explain`.
    public func explain(_ url: String, app: String) throws(URLSplitError) -> ReferenceExplanation {
        let compared = ComparedURL(try URLSplitter.split(url), onItsHost: false)
        var work = ReferenceWork(workLimit: workLimit)
        let (decision, trail) = try decide(compared, app: app, work: &work)
        return ReferenceExplanation(url: compared.url, hostMatches: hostMatches(compared.url), decision: decision, trail: trail)
    }

    /// Whether the rules apply to `url` at all (SPEC 3).
    private func serves(_ url: ComparedURL) -> Bool {
        url.onItsHost || hostMatches(url.url)
    }

    func hostMatches(_ url: SplitURL) -> Bool {
        // Byte comparison: String == would also equate canonically equivalent hosts.
        asciiLowercased(url.host).utf8.elementsEqual(asciiLowercased(domain).utf8)
    }

    /// `work`: what deciding the URL has cost so far, for every app asked about.
    private func decide(
        _ url: ComparedURL, app: String, work: inout ReferenceWork
    ) throws(URLSplitError) -> (decision: AppDecision, trail: [RuleEvaluation]) {
        guard serves(url) else { return (AppDecision(app: app, kind: .noMatch), []) }
        var trail: [RuleEvaluation] = []
        for position in entriesByApp[ExactString(app)] ?? [] {
            let (entry, rules) = prepared[position]
            for rule in rules {
                let evaluation = try evaluate(rule, against: url, work: &work)
                trail.append(evaluation)
                if evaluation.matched {
                    let kind: DecisionKind = evaluation.rule.exclude ? .exclude : .match
                    return (AppDecision(app: app, kind: kind, entry: entry.index, rule: rule.ruleIndex), trail)
                }
            }
        }
        return (AppDecision(app: app, kind: .noMatch), trail)
    }

    /// Evaluates every component of one rule; the rule matches when all of them do. What that
    /// may cost is charged to `work` first (`PreparedRule.cells(against:)`), and the URL is
    /// refused once `work` passes the budget: the charges follow the rules in order, so the
    /// refusal depends only on the document and the URL.
    func evaluate(_ rule: PreparedRule, against url: ComparedURL, work: inout ReferenceWork) throws(URLSplitError) -> RuleEvaluation {
        let texts = try url.texts(rule.text, work: &work)
        try work.charge(rule.cells(against: texts))
        var components: [ComponentEvaluation] = []
        components.append(PathComparison.evaluate(rule.path, pattern: rule.rule.path, texts.path))
        components += QueryComparison.evaluate(rule.query, url.url.query, texts: texts)
        components.append(
            ComponentEvaluation(
                component: "#", comparedText: texts.fragment.string, pattern: rule.rule.fragment,
                matched: rule.fragment.matches(texts.fragment.scalars)))
        return RuleEvaluation(entry: rule.entryIndex, ruleIndex: rule.ruleIndex, rule: rule.rule, components: components)
    }
}

/// What the reference matcher did for one app and URL: the decision and every rule it tried.
public struct ReferenceExplanation: Sendable {
    public var url: SplitURL
    /// `false` when the URL's host is not the document's domain (every app is then `no_match`).
    public var hostMatches: Bool
    public var decision: AppDecision
    /// The rules evaluated, in order; the last one decided when `decision` is not `noMatch`.
    public var trail: [RuleEvaluation]
}

/// One rule, evaluated against one URL.
public struct RuleEvaluation: Sendable {
    public var entry: Int
    public var ruleIndex: Int
    /// The rule after the defaults chain was applied.
    public var rule: ReferenceRule
    public var components: [ComponentEvaluation]

    public var matched: Bool { components.allSatisfy(\.matched) }
}

/// One component comparison: what was compared with what, and the verdict.
public struct ComponentEvaluation: Sendable {
    /// `/`, `?`, `?name` for a query item, or `#`.
    public var component: String
    /// The URL text after the rule's normalisation (decoding, NFC, folding, slash rules).
    public var comparedText: String
    /// The pattern as the rule states it (before normalisation).
    public var pattern: String
    public var matched: Bool
}

/// ASCII-only lowercasing, for host comparison (SPEC 3: ASCII case-insensitive).
func asciiLowercased(_ text: String) -> String {
    String(
        decoding: text.utf8.map { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) ? $0 | 0x20 : $0 },
        as: UTF8.self)
}
