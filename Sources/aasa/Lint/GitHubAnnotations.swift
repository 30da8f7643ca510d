import AASAKit

/// `--format github`: GitHub Actions workflow commands (`::error file=F,line=N,title=code::message`),
/// which the runner turns into annotations on the file in a pull request.
///
/// GitHub's escaping rules (actions/toolkit `command.ts`): in the message, `%`, CR and LF become
/// `%25`, `%0D`, `%0A`; in property values also `:` and `,` become `%3A` and `%2C`, since they
/// delimit the properties. A note is a `notice`, GitHub's name for the lowest level. Before that,
/// other control characters are shown as `VisibleText` shows them (`\u{1B}`): the Actions log
/// obeys escape sequences, so a document's strings could otherwise recolour or hide its lines.
enum GitHubAnnotations {
    static func render(_ report: LintReport) -> String {
        var text = ""
        for (file, finding) in report.findings {
            let command: String
            switch finding.severity {
            case .error: command = "error"
            case .warning: command = "warning"
            case .note: command = "notice"
            }
            var message = "\(finding.path): \(finding.messageWithHint)"
            if let witness = finding.witness { message += "\nwitness: \(witness)" }
            let line = finding.line.map { ",line=\($0)" } ?? ""
            text += "::\(command) file=\(escapeProperty(file))\(line),title=\(escapeProperty(finding.code))::\(escapeData(message))\n"
        }
        return text
    }

    static func escapeData(_ text: String) -> String { escape(text, property: false) }

    static func escapeProperty(_ text: String) -> String { escape(text, property: true) }

    private static func escape(_ text: String, property: Bool) -> String {
        var escaped = ""
        for scalar in VisibleText.escaped(text).unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case ":" where property: escaped += "%3A"
            case "," where property: escaped += "%2C"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
