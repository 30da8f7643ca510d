import AASAKit

/// `--format github`: GitHub Actions workflow commands (`::error file=F,line=N,title=code::message`),
/// which the runner turns into annotations on the file in a pull request.
///
/// GitHub's escaping rules (actions/toolkit `command.ts`): in the message, `%`, CR and LF become
/// `%25`, `%0D`, `%0A`; in property values also `:` and `,` become `%3A` and `%2C`, since they
/// delimit the properties. A note is a `notice`, GitHub's name for the lowest level. Before that,
/// the message's other control characters are shown as `VisibleText` shows them (`\u{1B}`): the
/// Actions log obeys escape sequences, so a document's strings could otherwise recolour or hide
/// its lines. Properties are escaped otherwise (`escapeProperty`), since `file=` must name a file.
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

    static func escapeData(_ text: String) -> String {
        var escaped = ""
        for scalar in VisibleText.escaped(text).unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A property value, percent-escaped only, never `\u{…}`-escaped: the runner turns `%0D`,
    /// `%0A`, `%3A`, `%2C` and `%25` back into CR, LF, `:`, `,` and `%` (actions/runner
    /// `ActionCommand.UnescapeProperty`), so a file whose name holds them is still the file
    /// annotated, where `cr\u{D}x.json` named one that does not exist. The other characters
    /// `VisibleText` hides (ESC, C1 controls, bidirectional overrides) the runner does not
    /// decode; written raw they would be obeyed by the terminal showing the command, so they
    /// are written as their UTF-8 bytes, percent-escaped (`%1B`): the line stays safe and still
    /// says exactly which bytes the name holds (a real `%` is `%25`), though GitHub then finds no
    /// such file.
    static func escapeProperty(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if "%\r\n:,".unicodeScalars.contains(scalar) || VisibleText.isHidden(scalar) {
                escaped += percentEscaped(scalar)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func percentEscaped(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf8.map(LintFormat.percentEscaped).joined()
    }
}
