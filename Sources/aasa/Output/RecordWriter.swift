import AASAKit

/// Formats match records as JSON lines by appending bytes, without `JSONEncoder`: the record
/// shape is fixed (SPEC 13 and the `match` contract), so it is cheaper and clearer to write it
/// directly, keys in their documented order.
enum RecordWriter {
    /// `{"url": …, "apps": […], "decisions": [{"app": …, "decision": …, "entry": …, "rule": …}]}`
    static func appendMatch(url: String, domain: String?? = .none, decision: URLDecision, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"url": "#.utf8)
        JSONWriter.appendEscaped(url, to: &out)
        appendDomain(domain, to: &out)
        out.append(contentsOf: #", "apps": ["#.utf8)
        var first = true
        for app in decision.decisions where app.kind == .match {
            if !first { out.append(contentsOf: ", ".utf8) }
            first = false
            JSONWriter.appendEscaped(app.app, to: &out)
        }
        out.append(contentsOf: #"], "decisions": ["#.utf8)
        for (index, app) in decision.decisions.enumerated() {
            if index > 0 { out.append(contentsOf: ", ".utf8) }
            out.append(contentsOf: #"{"app": "#.utf8)
            JSONWriter.appendEscaped(app.app, to: &out)
            out.append(contentsOf: #", "decision": ""#.utf8)
            out.append(contentsOf: app.kind.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
            if let entry = app.entry, let rule = app.rule {
                out.append(contentsOf: #", "entry": "#.utf8)
                out.append(contentsOf: String(entry).utf8)
                out.append(contentsOf: #", "rule": "#.utf8)
                out.append(contentsOf: String(rule).utf8)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}\n".utf8)
    }

    /// `{"url": …, "error": …}`
    static func appendError(url: String, domain: String?? = .none, error: String, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"url": "#.utf8)
        JSONWriter.appendEscaped(url, to: &out)
        appendDomain(domain, to: &out)
        out.append(contentsOf: #", "error": "#.utf8)
        JSONWriter.appendEscaped(error, to: &out)
        out.append(contentsOf: "}\n".utf8)
    }

    /// `domain` is absent for `match` records (`.none`), `null` for a URL whose host has no
    /// document (`.some(nil)`), or the domain.
    private static func appendDomain(_ domain: String??, to out: inout [UInt8]) {
        guard case .some(let value) = domain else { return }
        out.append(contentsOf: #", "domain": "#.utf8)
        if let value {
            JSONWriter.appendEscaped(value, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }
}
