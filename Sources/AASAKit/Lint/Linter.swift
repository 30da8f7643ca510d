/// The Lint folder: `aasa lint`, every claim the linter makes about one document, in the order
/// a reader meets them. `Linter` runs the layers below; `LintCatalog` lists every code with its
/// severity; the other files are one family of document checks each (app IDs, variables,
/// pattern text, percent escapes, query items, duplicate keys, defaults).
///
/// Bytes come in; `LintFinding` values come out, each with a stable code, a severity, the JSON
/// path of the piece it is about, a message and, where there is something to do, a fix hint.
/// Two layers produce them:
///
/// - `DocumentLint` (this folder) looks at the document as written: a file that cannot be used
///   at all (invalid JSON, a non-object root, over the size limit), everything the lenient
///   decoder skipped (`Diagnostic`s: wrong types, unknown keys, …), and the checks that need no
///   automaton: app ID shape, substitution variables, duplicate keys.
/// - `SemanticLint` (`Analysis/`) reasons on the compiled automata: unreachable rules, useless
///   excludes, catch-alls, overlapping apps. Its findings carry witness URLs on `domain`.
///
/// Findings are sorted by where their path is in the source (so a person reads the file and its
/// findings top to bottom), then by code, message and witness, so the output is the same on
/// every run and every machine.
///
/// Not done here: formatting (the CLI writes text, JSON lines, SARIF and GitHub annotations),
/// and reading files (a missing file is the caller's business; bytes that are not a usable
/// document are a finding, not an error).
public enum Linter {
    /// Every finding about the document in `bytes`, in source order.
    ///
    /// ```swift
    /// let findings = Linter.lint(bytes: Array(text.utf8), domain: "example.com", configuration: .default)
    /// let failed = findings.contains { $0.severity == .error }
    /// ```
    ///
    /// - Complexity: O(n) in the document's size for the document-level checks, plus whatever
    ///   the automaton analysis costs.
    public static func lint(bytes: [UInt8], domain: String, configuration: Configuration) -> [LintFinding] {
        let document: AASADocument
        do {
            document = try AASADocument(bytes: bytes, configuration: configuration)
        } catch {
            var finding = DocumentLint.finding(for: error)
            if case .invalidJSON = error, DocumentLint.startsWithFrontMatter(bytes) {
                finding.hint = DocumentLint.frontMatterHint
            }
            if case .rootNotObject = error {
                // Valid JSON, only not an object: the parser notes the line its root starts on.
                finding.line = (try? JSONParser.parseNotingLines(bytes, maxDepth: configuration.document.maxJSONDepth))?.lines[[]]
            }
            return [finding]
        }
        // The model keeps no JSON; a second parse (it succeeded once, so it cannot fail now) gives
        // lint the source positions the model drops. Parsing is linear and small next to the
        // automaton analysis, and it keeps `AASADocument` free of lint-only baggage.
        let parsed = try? JSONParser.parseNotingLines(bytes, maxDepth: configuration.document.maxJSONDepth)
        let tree = JSONTree(parsed?.value ?? .object(JSONObject()))
        let lines = parsed?.lines ?? [:]
        let findings =
            DocumentLint.findings(document: document, tree: tree)
            + SemanticLint.findings(document: document, domain: domain, configuration: configuration)
        return sorted(findings, in: tree).map { finding in
            // The line of the path's deepest step the file has (a missing key: its object's).
            var located = finding
            var positions = tree.sourceOrder(of: finding.path)
            while let last = positions.last, last == Int.max { positions.removeLast() }
            while located.line == nil {
                located.line = lines[positions]
                if positions.isEmpty { break }
                positions.removeLast()
            }
            return located
        }
    }

    /// `findings` in source order of their paths, then code, message and witness.
    static func sorted(_ findings: [LintFinding], in tree: JSONTree) -> [LintFinding] {
        findings.map { (order: tree.sourceOrder(of: $0.path), finding: $0) }
            .sorted { lhs, rhs in
                if lhs.order != rhs.order { return lhs.order.lexicographicallyPrecedes(rhs.order) }
                let (a, b) = (lhs.finding, rhs.finding)
                if a.code != b.code { return a.code.utf8.lexicographicallyPrecedes(b.code.utf8) }
                if a.message != b.message { return a.message.utf8.lexicographicallyPrecedes(b.message.utf8) }
                return (a.witness ?? "").utf8.lexicographicallyPrecedes((b.witness ?? "").utf8)
            }
            .map(\.finding)
    }
}
