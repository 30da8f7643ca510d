import AASAKit

/// `--format text`: `FILE: severity [code] path: message (hint)`, an indented witness line for
/// findings about URLs, then one summary line, so a person can read it and `grep` can filter it.
/// Each line is shown as `VisibleText.escapedLine` shows it: a file name, key or witness URL
/// holding a control character (a document's `"\u001b[2J"`) is printed escaped, not obeyed.
enum LintTextFormat {
    static func render(_ report: LintReport) -> String {
        var text = ""
        for (file, finding) in report.findings {
            text += VisibleText.escapedLine("\(file): \(finding.severity.rawValue) [\(finding.code)] \(finding.path): \(finding.messageWithHint)") + "\n"
            if let witness = finding.witness { text += "  witness: \(VisibleText.escapedLine(witness))\n" }
        }
        text += summary(report) + "\n"
        return text
    }

    /// `2 files: 1 error, 0 warnings, 3 notes` (and how many files could not be read).
    static func summary(_ report: LintReport) -> String {
        var line = "\(counted(report.files.count, "file")): \(counted(report.count(.error), "error")), "
            + "\(counted(report.count(.warning), "warning")), \(counted(report.count(.note), "note"))"
        if report.unreadableCount > 0 { line += "; \(report.unreadableCount) could not be read" }
        return line
    }
}
