/// One `apple-app-site-association` file, decoded leniently into typed values.
///
/// This is the first stage of the pipeline (document → pattern → automaton → plan → matcher): JSON
/// bytes come in, and what goes out is a model in which every piece has its SPEC meaning and
/// nothing downstream ever sees JSON again. Decoding never throws for a wrong-typed piece: it
/// skips the piece and records a `Diagnostic` (SPEC 2). Only invalid JSON, a non-object root,
/// a document over the size limit and one over a count limit (`overLimit`: patterns, variables,
/// their bytes) throw `DocumentError`. The JSON reader and writer live in `Document/JSON/`
/// (`JSONParser`, `JSONValue`, `JSONWriter`): strict RFC 8259, no recursion, a depth limit; they
/// know nothing of AASA.
///
/// The model keeps pattern *text*; turning patterns into something executable is the job of
/// the `Pattern` layer (for the fast engine) and of `ReferenceMatcher` (for the oracle), which
/// deliberately share no matching code: this model, the URL splitter and the Unicode helpers only.
///
/// What the Document folder will not do: resolve the defaults chain or parse patterns (the
/// `Pattern` layer does, and the oracle on its own), fetch anything over the network (bytes or a
/// local file come in; `AASADocument+File.swift` reads at most the size limit plus one byte),
/// or repair a document (a skipped piece stays skipped; `aasa lint` reports it).
///
/// ```swift
/// let document = try AASADocument(bytes: Array(text.utf8))
/// for diagnostic in document.diagnostics { print(diagnostic) }
/// ```
public struct AASADocument: Sendable {
    /// The `applinks` service; `nil` when the file has none (then no URL matches any app).
    public var applinks: AppLinks?
    /// App lists of the services that take no part in URL matching (`webcredentials`,
    /// `appclips`, `activitycontinuation`), keyed by service name.
    public var otherServices: [String: [String]]
    /// Everything the lenient decoder skipped or noticed, in document order.
    public var diagnostics: [Diagnostic]

    public init(applinks: AppLinks?, otherServices: [String: [String]] = [:], diagnostics: [Diagnostic] = []) {
        self.applinks = applinks
        self.otherServices = otherServices
        self.diagnostics = diagnostics
    }

    /// The entries in evaluation order (empty without `applinks`).
    public var entries: [Entry] { applinks?.details ?? [] }

    /// Every app ID named in `applinks.details`, in first-appearance order (SPEC 3): entries in
    /// evaluation order, and within an entry the order of `Entry.appIDs`.
    public var appIDs: [String] {
        var seen = Set<ExactString>()
        var ordered: [String] = []
        for entry in entries {
            for app in entry.appIDs where seen.insert(ExactString(app)).inserted {
                ordered.append(app)
            }
        }
        return ordered
    }
}

/// The `applinks` service of a document.
public struct AppLinks: Sendable {
    /// The entries, in evaluation order. For the legacy dictionary form of `details` the order
    /// is the sorted order of its keys (SPEC 2), and `Entry.index` numbers them in that order.
    public var details: [Entry]
    /// Domain-level defaults (`applinks.defaults`), the least specific level of SPEC 10.
    public var defaults: RuleKeys
    /// Custom substitution variables (`applinks.substitutionVariables`).
    public var substitutionVariables: SubstitutionVariables
    /// Whether `details` was the legacy dictionary (app ID → entry), whose evaluation order
    /// depends on the app IDs themselves.
    var detailsAreKeyedByApp = false

    public init(details: [Entry] = [], defaults: RuleKeys = RuleKeys(), substitutionVariables: SubstitutionVariables = SubstitutionVariables()) {
        self.details = details
        self.defaults = defaults
        self.substitutionVariables = substitutionVariables
    }
}
