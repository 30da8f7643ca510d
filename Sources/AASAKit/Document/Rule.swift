/// One rule of an entry: a `components` dictionary, or one string of the legacy `paths` array.
public struct Rule: Sendable {
    /// The rule's position in its source array (`components` or `paths`).
    public var index: Int
    /// The keys the rule sets itself; unset keys come from the defaults chain (SPEC 10).
    public var keys: RuleKeys
    /// `true` for a legacy `paths` string. Such a rule takes only `caseSensitive` and
    /// `percentEncoded` from the defaults chain; its query and fragment are unconstrained and its
    /// exclusion comes only from the `NOT ` prefix (SPEC 10).
    public var isLegacyPath: Bool
    /// The rule's `comment`, kept for lint messages.
    public var comment: String?

    public init(index: Int, keys: RuleKeys, isLegacyPath: Bool = false, comment: String? = nil) {
        self.index = index
        self.keys = keys
        self.isLegacyPath = isLegacyPath
        self.comment = comment
    }
}

/// The six keys a rule or a `defaults` object may set. `nil` means "not set here": the value
/// then comes from the next, less specific level (rule → entry defaults → domain defaults →
/// built-in). A wrong-typed value is decoded as `nil` (SPEC 2).
public struct RuleKeys: Sendable, Equatable {
    /// The `/` pattern.
    public var path: String?
    /// The `?` pattern: a string or a dictionary of item predicates.
    public var query: QueryPattern?
    /// The `#` pattern.
    public var fragment: String?
    public var exclude: Bool?
    public var caseSensitive: Bool?
    public var percentEncoded: Bool?

    public init(
        path: String? = nil, query: QueryPattern? = nil, fragment: String? = nil,
        exclude: Bool? = nil, caseSensitive: Bool? = nil, percentEncoded: Bool? = nil
    ) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.exclude = exclude
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
    }

    /// The built-in level of SPEC 10: every pattern `*`, `exclude: false`,
    /// `caseSensitive: true`, `percentEncoded: true`.
    public static let builtIn = RuleKeys(
        path: "*", query: .text("*"), fragment: "*", exclude: false, caseSensitive: true,
        percentEncoded: true)
}

/// The `?` key's value (SPEC 7).
public enum QueryPattern: Sendable, Equatable {
    /// A pattern over the whole query text.
    case text(String)
    /// Item predicates: every named item must match its pattern. Sorted by name, so the model
    /// does not depend on JSON key order.
    case items([QueryItemPredicate])
    /// A dictionary with a non-string predicate value: Apple ignores the whole dictionary, so it
    /// matches every query; it is still a value at its level and does not fall back to defaults.
    case voided
}

/// One `name: pattern` pair of a query dictionary. The name is plain text, not a pattern.
public struct QueryItemPredicate: Sendable, Equatable {
    public var name: String
    public var pattern: String

    public init(name: String, pattern: String) {
        self.name = name
        self.pattern = pattern
    }
}
