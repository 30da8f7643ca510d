/// Lint findings about the document as written, without compiling it.
///
/// Three sources: a `DocumentError` (the file cannot be used at all), the decoder's
/// `Diagnostic`s (what SPEC 2's lenient parsing skipped), and checks of pieces the decoder
/// accepts but that cannot do what their author meant: app IDs of the wrong shape, entries with
/// no app or no rules, substitution variables used but not defined (or defined but never used),
/// keys written twice, and patterns that match only URLs no browser writes (a whole URL as a
/// path, escapes the rule's `percentEncoded` does not read), and query items whose `*` also
/// admits URLs without them. Each check lives in its own file with its messages; this file only
/// gathers them.
public enum DocumentLint {
    /// Whether the file opens with a static site generator's front matter (`---` on a line of its
    /// own, after an optional byte order mark): a site that publishes the file as written serves
    /// that too, and the parser can only say that `-` needs a digit.
    static func startsWithFrontMatter(_ bytes: [UInt8]) -> Bool {
        var body = bytes[...]
        if body.starts(with: URLLineReader.byteOrderMark) { body = body.dropFirst(URLLineReader.byteOrderMark.count) }
        guard body.starts(with: Array("---".utf8)) else { return false }
        let rest = body.dropFirst(3).prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        let after = body.dropFirst(3 + rest.count).first
        return after == nil || after == UInt8(ascii: "\n")
    }

    static let frontMatterHint =
        "the file starts with front matter (---), which the site generator served as written: publish the JSON alone (remove the front matter, or copy the file without processing it)"

    /// The single finding for a file that cannot be used at all, at the root path `$`.
    public static func finding(for error: DocumentError) -> LintFinding {
        let hint: String
        switch error {
        case .invalidJSON(let parseError):
            hint = "fix the JSON at that position; AASA files allow no comments, trailing commas, single or smart quotes"
            var finding = LintFinding(code: error.code, severity: .error, path: .root, message: error.description, hint: hint)
            finding.line = parseError.line
            return finding
        case .rootNotObject:
            hint = #"the file must be one object: {"applinks": {"details": [...]}}"#
        case .tooLarge:
            hint = "Apple does not read files over 128 KiB; merge rules with wildcards or substitution variables"
        case .overLimit(let limit):
            hint = "merge rules with wildcards or substitution variables, or \(limit.limit.hint) if the file is meant to be this big"
            return LintFinding(code: error.code, severity: .error, path: limit.path, message: error.description, hint: hint)
        }
        return LintFinding(code: error.code, severity: .error, path: .root, message: error.description, hint: hint)
    }

    /// Every document-level finding of a decoded document, in no particular order (`Linter`
    /// sorts).
    ///
    /// - Parameter json: The parsed JSON the document was decoded from; it supplies the source
    ///   positions the model drops.
    /// - Complexity: O(n) in the document's size, plus O(p·v) for p patterns referring to
    ///   variables with v values in total.
    public static func findings(document: AASADocument, json: JSONValue) -> [LintFinding] {
        findings(document: document, tree: JSONTree(json))
    }

    static func findings(document: AASADocument, tree: JSONTree) -> [LintFinding] {
        document.diagnostics.map { DiagnosticFindings.finding(for: $0, tree: tree) }
            + DuplicateKeyLint.findings(tree)
            + AppIDLint.findings(document: document, tree: tree)
            + EntryLint.findings(document: document)
            + VariableLint.findings(document: document, tree: tree)
            + PatternTextLint.findings(document: document)
            + PercentEncodingLint.findings(document: document, tree: tree)
            + QueryItemLint.findings(document: document)
    }
}
