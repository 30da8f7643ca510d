/// One element of `applinks.details`: a set of apps and the ordered rules that apply to them.
public struct Entry: Sendable {
    /// The entry's number in the document's own numbering: its index in the `details` array, or
    /// its position in sorted key order for the legacy dictionary form. Match records report it.
    public var index: Int
    /// The union of `appID` and `appIDs`, `appID` first, without repeats.
    public var appIDs: [String]
    /// Entry-level defaults, between the domain defaults and the rule (SPEC 10).
    public var defaults: RuleKeys
    /// Where the rules came from: `components` when the entry has a valid `components` array
    /// (iOS 13 and later ignore `paths` then), otherwise the legacy `paths`.
    public var ruleSource: RuleSource
    /// The rules, in order. Skipped (wrong-typed) elements leave gaps: `Rule.index` is the
    /// element's position in the source array, which is what match records report.
    public var rules: [Rule]
    /// Where the entry is in the document (`applinks.details[1]`), so findings about its rules
    /// can point at them: `path / "components" / rule.index`.
    public var path: JSONPath

    public enum RuleSource: String, Sendable {
        case components
        case paths
        /// Neither key held an array: the entry has no rules and matches nothing.
        case none
    }

    public init(
        index: Int, appIDs: [String], defaults: RuleKeys = RuleKeys(), ruleSource: RuleSource, rules: [Rule],
        path: JSONPath = .root
    ) {
        self.path = path
        self.index = index
        self.appIDs = appIDs
        self.defaults = defaults
        self.ruleSource = ruleSource
        self.rules = rules
    }
}
