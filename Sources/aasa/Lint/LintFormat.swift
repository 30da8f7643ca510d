import AASAKit

/// The output formats of `aasa lint`: one for people, three for tools.
enum LintFormat: String, CaseIterable {
    /// One line per finding, a witness line where there is one, then a summary.
    case text
    /// One JSON object per finding and line, for scripts.
    case json
    /// One SARIF 2.1.0 log, for code-scanning dashboards.
    case sarif
    /// GitHub Actions workflow commands, which annotate the file in a pull request.
    case github

    /// The whole output for `report`, newline-terminated (empty when there is nothing to say in
    /// a format that has no summary).
    func render(_ report: LintReport) -> String {
        switch self {
        case .text: return LintTextFormat.render(report)
        case .json: return LintJSONLines.render(report)
        case .sarif: return SARIFLog.render(report)
        case .github: return GitHubAnnotations.render(report)
        }
    }

    /// `%` and a byte's two upper-case hex digits: how the SARIF URIs and the GitHub properties
    /// write a byte they may not show.
    static func percentEscaped(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "%" + (digits.count == 1 ? "0" + digits : digits)
    }
}

extension LintFinding {
    /// The message with its hint, as the one-line formats print it.
    var messageWithHint: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}
