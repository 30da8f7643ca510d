import AASAKit
import Foundation

/// `aasa cover FILE [--domain D] [--format text|json|matrix]`: a URL for every rule.
enum CoverCommand {
    static let spec = CommandSpec(
        name: "cover",
        abstract: "Find, for every rule and app, a URL that this rule decides (or prove there is none).",
        usage: "aasa cover <file> [--domain <domain>] [--format text|json|matrix]",
        options: [
            .init(name: "domain", valueName: "domain", help: "The domain of the URLs (default example.com)."),
            .init(name: "format", valueName: "format", help: "text (default), json (one object per rule and app), or matrix."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            Each URL is the shortest found on which that rule is the deciding rule for that app,
            re-checked by the matcher. A rule without URL says why: it can never match, or
            earlier rules decide every URL it matches (a proof when the document compares text
            in one mode; otherwise the search covered only URLs all modes read alike).
            json: {"app": …, "entry": i, "rule": j, "decision": "match"|"exclude", "url": …} per rule
                  and app, or the same with "url": null, "proven": true|false, "reason": ….
            matrix: a test matrix for 'aasa test --matrix', keyed by app:
                  {"opens_app": {app: [urls of match rules]}, "opens_web": {app: [urls of exclude rules]}}.

            EXIT STATUS: 0 every rule has a URL; 1 some rule is proven to have none; 2 usage
            error; 3 the document cannot be read or compiled; 4 some rule has no URL, none
            proven (the search ran short: the reasons say how); 5 the output cannot be written.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 1 else { return CommandSupport.usageError(spec, "expected one <file>") }
        let format = parsed.value("format") ?? "text"
        guard ["text", "json", "matrix"].contains(format) else { return CommandSupport.usageError(spec, "unknown format '\(format)'") }
        let document: AASADocument
        switch CommandSupport.loadDocument(parsed.positionals[0], command: spec.name, configuration: configuration) {
        case .success(let value): document = value
        case .failure(let code): return code
        }
        let domain: String
        switch CommandSupport.witnessDomain(parsed) {
        case .success(let value): domain = value
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        let coverage: Coverage
        do {
            coverage = try Coverage(document: document, domain: domain, configuration: configuration)
        } catch {
            printError("aasa cover: cannot analyse the document: \(error)")
            return .unreadableDocument
        }
        // Written item by item: an entry of one 64 KB app ID and 4 700 rules prints 300 MB,
        // which was held whole (630 MB).
        let failure = writeStandardOutput(command: "cover") { output throws(OutputStream.WriteFailure) in
            switch format {
            case "json":
                for item in coverage.items {
                    var line = "{\"app\": \(JSONWriter.escape(item.app)), \"entry\": \(item.entry), \"rule\": \(item.rule), "
                    line += "\"decision\": \"\(item.decision.rawValue)\", "
                    if let url = item.url {
                        line += "\"url\": \(JSONWriter.escape(url))}\n"
                    } else {
                        line += "\"url\": null, \"proven\": \(item.provenAbsent), \"reason\": \(JSONWriter.escape(item.reason ?? ""))}\n"
                    }
                    try output.write(line)
                }
            case "matrix":
                try output.write(matrix(coverage))
            default:
                for item in coverage.items {
                    // Escaped as a terminal shows it; `--format json` and `matrix` give the exact text.
                    let target = item.url ?? "none: \(item.reason ?? "")"
                    try output.write(VisibleText.escapedLine("entry \(item.entry) rule \(item.rule) \(item.decision.rawValue) \(item.app): \(target)") + "\n")
                }
            }
        }
        if let failure { return failure }
        if coverage.items.isEmpty {
            // Said, since every format would otherwise print nothing (or a matrix of no URL) and
            // exit 0, as if the rules had been covered.
            let matrixNote = format == "matrix" ? "; the matrix lists no URL, and aasa test refuses one that checks nothing" : ""
            printError(VisibleText.escapedLine("aasa cover: \(parsed.positionals[0]) has no applinks rule: nothing to cover\(matrixNote)"))
        }
        // As diff's: a rule proven to have no URL is a finding (1); rules the search ran short
        // on, and none proven, are not (4), so that a CI gate can tell a dead rule from a
        // document too large to search whole.
        if coverage.items.allSatisfy({ $0.url != nil }) { return .success }
        return coverage.items.contains { $0.provenAbsent } ? .failure : .inconclusive
    }

    /// The covered URLs as an `aasa test` matrix: a URL decided by a match rule must open its
    /// app, one decided by an exclude rule must not.
    static func matrix(_ coverage: Coverage) -> String {
        // App IDs keyed byte for byte, as the matcher compares them: two IDs Swift's `==` finds
        // canonically equivalent (é precomposed or not) are two apps. One pass over the items:
        // a search of the app list per item took 32 s for an entry of 20 000 apps.
        var apps: [String] = []
        var rows: [ExactString: (opens: [String], excluded: [String])] = [:]
        for item in coverage.items {
            let key = ExactString(item.app)
            if rows[key] == nil {
                apps.append(item.app)
                rows[key] = ([], [])
            }
            guard let url = item.url else { continue }
            if item.decision == .exclude { rows[key]?.excluded.append(url) } else { rows[key]?.opens.append(url) }
        }
        func section(excluded: Bool) -> String {
            let lines = apps.map { app in
                let row = rows[ExactString(app)] ?? ([], [])
                return "    \(JSONWriter.escape(app)): [" + (excluded ? row.excluded : row.opens).map(JSONWriter.escape).joined(separator: ", ") + "]"
            }
            return lines.isEmpty ? "{}" : "{\n" + lines.joined(separator: ",\n") + "\n  }"
        }
        return "{\n  \"opens_app\": \(section(excluded: false)),\n  \"opens_web\": \(section(excluded: true))\n}\n"
    }
}
