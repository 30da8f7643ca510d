/// One claim `aasa lint` makes about a document.
///
/// Findings are values with a stable `code` (tools filter on it), the JSON path of the piece
/// they are about, and, when the claim is about URLs (an unreachable rule, overlapping apps), a
/// `witness` URL that the matcher has re-checked, so a reader can verify every claim.
public struct LintFinding: Sendable, Hashable {
    /// Stable kebab-case identifier; codes never change meaning.
    public var code: String
    public var severity: Diagnostic.Severity
    /// Where the finding is, as a JSON path from the document root (`$` for the whole file).
    public var path: JSONPath
    /// One lower-case sentence for a person.
    public var message: String
    /// How to fix it, when there is something to do.
    public var hint: String?
    /// A URL showing the claim (re-checked by the matcher before it is reported).
    public var witness: String?
    /// The line of the file where `path` starts (of the nearest piece of it the file has), or
    /// where the JSON could not be read; for reports that point at lines (SARIF, GitHub).
    public var line: Int?

    public init(
        code: String, severity: Diagnostic.Severity, path: JSONPath, message: String, hint: String? = nil,
        witness: String? = nil
    ) {
        self.code = code
        self.severity = severity
        self.path = path
        self.message = message
        self.hint = hint
        self.witness = witness
    }
}
