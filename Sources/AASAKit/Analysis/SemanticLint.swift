/// Lint findings computed on the compiled automata: unreachable rules, useless excludes,
/// catch-alls, overlapping apps, duplicate rules and patterns that can never match.
public enum SemanticLint {
    /// The automaton-level findings of `document`, witnesses on `https://domain/...`.
    public static func findings(document: AASADocument, domain: String, configuration: Configuration) -> [LintFinding] {
        // Filled in by the analysis layer (issue #6); document-level findings come from DocumentLint.
        []
    }
}
