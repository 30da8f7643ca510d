/// What a document decides for one app and one URL (SPEC 1, 13).
public enum DecisionKind: String, Sendable, Hashable {
    /// The first rule that matched is not an exclusion: the URL opens the app.
    case match
    /// The first rule that matched is an exclusion: the URL stays on the web.
    case exclude
    /// No rule of any entry naming the app matched.
    case noMatch = "no_match"
}

/// One app's decision for a URL, with the rule that decided it.
public struct AppDecision: Sendable, Hashable {
    public var app: String
    public var kind: DecisionKind
    /// The deciding entry's index in `applinks.details` (sorted-key order for the legacy
    /// dictionary); `nil` for `noMatch`.
    public var entry: Int?
    /// The deciding rule's index in the entry's `components` (or `paths`); `nil` for `noMatch`.
    public var rule: Int?

    public init(app: String, kind: DecisionKind, entry: Int? = nil, rule: Int? = nil) {
        self.app = app
        self.kind = kind
        self.entry = entry
        self.rule = rule
    }
}

/// The decisions for one URL, one per app of the document, in the document's app order.
public struct URLDecision: Sendable, Hashable {
    public var decisions: [AppDecision]

    public init(decisions: [AppDecision]) {
        self.decisions = decisions
    }

    /// The apps the URL opens: those whose decision is `match`, in app order.
    public var matchedApps: [String] {
        decisions.compactMap { $0.kind == .match ? $0.app : nil }
    }
}
