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
            switch error {
            case .rootNotObject:
                // Valid JSON, only not an object: the parser notes the line its root starts on.
                finding.line = (try? JSONParser.parseNotingLines(bytes, maxDepth: configuration.document.maxJSONDepth))?.lines[[]]
            case .overLimit:
                // Thrown after the whole document was parsed and decoded, so every byte its path
                // names is in `bytes` and this parse succeeds as that one did: it costs what linting
                // a document within the limits costs. (A document over `document-bytes` is
                // `too-large`, found from its size before it is read, and points at no path.)
                if let parsed = try? JSONParser.parseNotingLines(bytes, maxDepth: configuration.document.maxJSONDepth) {
                    finding.line = line(of: finding.path, in: JSONTree(parsed.value), lines: parsed.lines)
                }
            case .invalidJSON, .tooLarge:
                break
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
            var located = finding
            if located.line == nil { located.line = line(of: finding.path, in: tree, lines: lines) }
            return located
        }
    }

    /// The line of `path`'s deepest step the file has (a missing key: its object's), so that a
    /// finding about something absent still points into the file; `nil` only when `lines` has
    /// not even the root.
    static func line(of path: JSONPath, in tree: JSONTree, lines: [[Int]: Int]) -> Int? {
        var positions = tree.sourceOrder(of: path)
        while let last = positions.last, last == Int.max { positions.removeLast() }
        while true {
            if let line = lines[positions] { return line }
            if positions.isEmpty { return nil }
            positions.removeLast()
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
