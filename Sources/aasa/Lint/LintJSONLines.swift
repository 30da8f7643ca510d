import AASAKit

/// `--format json`: one object per finding and line, keys in a fixed order:
/// `{"file", "code", "severity", "path", "line"?, "message", "hint"?, "witness"?}` (`line`: where
/// the path starts in the file, a number). Written byte by byte with the project's JSON
/// escaper, like the match records.
enum LintJSONLines {
    static func render(_ report: LintReport) -> String {
        var out: [UInt8] = []
        for (file, finding) in report.findings {
            var first = true
            func field(_ key: String, _ value: String) {
                out.append(contentsOf: (first ? "{" : ", ").utf8)
                first = false
                JSONWriter.appendEscaped(key, to: &out)
                out.append(contentsOf: ": ".utf8)
                JSONWriter.appendEscaped(value, to: &out)
            }
            field("file", file)
            field("code", finding.code)
            field("severity", finding.severity.rawValue)
            field("path", finding.path.description)
            if let line = finding.line { out.append(contentsOf: ", \"line\": \(line)".utf8) }
            field("message", finding.message)
            if let hint = finding.hint { field("hint", hint) }
            if let witness = finding.witness { field("witness", witness) }
            out.append(contentsOf: "}\n".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
