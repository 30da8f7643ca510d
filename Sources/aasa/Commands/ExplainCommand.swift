import AASAKit
import Foundation

/// `aasa explain FILE --domain D [--app A] URL`: the reasoning behind one decision, for a person.
enum ExplainCommand {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Show which rule decided a URL for one app, and why.",
        usage: "aasa explain <file> --domain <domain> [--app <app-id>] <url>",
        options: [
            .init(name: "domain", valueName: "domain", help: "The host that serves the file (required)."),
            .init(name: "app", valueName: "app-id", help: "The app to explain (required when the document names more than one)."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            Prints the decision, the deciding entry and rule, and for every rule tried (in the
            order the system scans them) each component: the URL text compared (after the rule's
            decoding, NFC, folding and slash rules), the pattern, and the verdict, with the rule's
            effective flags. A compared text or pattern over 100 characters is shown by its
            first 100 and its length in bytes.

            EXIT STATUS: 0 explained; 1 the URL cannot be split or is over the work limit
            (url-work); 2 usage error; 3 the document cannot be read; 5 the output cannot be
            written.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 2 else {
            return CommandSupport.usageError(spec, "expected <file> and one <url>")
        }
        guard let given = parsed.value("domain") else { return CommandSupport.usageError(spec, "missing --domain") }
        let domain: String
        switch CommandSupport.documentDomain(given, command: spec.name) {
        case .success(let host): domain = host
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        let document: AASADocument
        switch CommandSupport.loadDocument(parsed.positionals[0], command: spec.name, configuration: configuration) {
        case .success(let value): document = value
        case .failure(let code): return code
        }
        let app: String
        switch chosenApp(parsed.value("app"), named: document.appIDs) {
        case .success(let value): app = value
        case .failure(let message): return CommandSupport.usageError(spec, message.message)
        }
        let url = CommandSupport.urlArgument(parsed.positionals[1])
        // The argument as the process got it: a URL that is not UTF-8 cannot be split (what
        // `match` says of it), not a URL with U+FFFD in its place.
        if CommandSupport.notUTF8Arguments.contains(parsed.positionals[1]) {
            printError("aasa explain: cannot split \(VisibleText.escaped(url)): \(URLSplitError.invalidUTF8)")
            return .failure
        }
        if url.utf8.count > configuration.input.maxURLBytes {
            printError("aasa explain: \(URLSplitError.tooLong(length: url.utf8.count, limit: configuration.input.maxURLBytes))")
            return .failure
        }
        let explanation: ReferenceExplanation
        do {
            explanation = try ReferenceMatcher(document: document, domain: domain, workLimit: configuration.automata.maxURLWork)
                .explain(url, app: app)
        } catch {
            let shown = VisibleText.excerpt(url, limit: 200)
            if case .workLimitExceeded = error {
                printError("aasa explain: cannot explain \(shown): \(error) (\(Configuration.Limit.urlWork.hint))")
            } else {
                printError("aasa explain: cannot split \(shown): \(error)")
            }
            return .failure
        }
        return writeStandardOutput(render(explanation, url: url, app: app, domain: domain, document: document), command: "explain") ?? .success
    }

    static func render(_ explanation: ReferenceExplanation, url: String, app: String, domain: String, document: AASADocument) -> String {
        var text = "URL       \(VisibleText.escapedLine(url))\n"
        text += "app       \(VisibleText.escapedLine(app))\n"
        let decision = explanation.decision
        var verdict = decision.kind.rawValue
        if let entry = decision.entry, let rule = decision.rule {
            verdict += " (entry \(entry), rule \(rule))"
        }
        text += "decision  \(verdict)\n"
        if !explanation.url.isHTTPS {
            text += "note      the scheme is \"\(VisibleText.escapedLine(explanation.url.scheme))\", not https: it is matched the same way (http and https links open apps)\n"
        }
        if !explanation.hostMatches {
            text += "host      \"\(VisibleText.escapedLine(explanation.url.host))\" is not \(domain): no rule applies\n"
            return text
        }
        if !document.appIDs.contains(app) {
            text += "note      no entry of applinks.details names \(VisibleText.escapedLine(app))\n"
        }
        if explanation.trail.isEmpty, document.appIDs.contains(app) {
            text += "note      the entries naming this app have no rules\n"
        }
        for evaluation in explanation.trail {
            let rule = evaluation.rule
            let outcome = evaluation.matched ? (rule.exclude ? "matches, excludes" : "matches") : "no match"
            text += "\nentry \(evaluation.entry), rule \(evaluation.ruleIndex): \(outcome)\n"
            text += "  flags: exclude \(rule.exclude), caseSensitive \(rule.caseSensitive), percentEncoded \(rule.percentEncoded)\n"
            let rows = evaluation.components.map { component -> (String, String, String, String) in
                // A query item's name comes from the document: cut and escaped as the cells are.
                (VisibleText.excerpt(component.component, limit: shownCharacters), shown(component.comparedText), shown(component.pattern), component.matched ? "yes" : "no")
            }
            let nameWidth = max(rows.map(\.0.count).max() ?? 0, 9)
            let textWidth = max(rows.map(\.1.count).max() ?? 0, 8)
            let patternWidth = max(rows.map(\.2.count).max() ?? 0, 7)
            func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
            text += "  \(pad("component", nameWidth))  \(pad("compared", textWidth))  \(pad("pattern", patternWidth))  matches\n"
            for row in rows {
                text += "  \(pad(row.0, nameWidth))  \(pad(row.1, textWidth))  \(pad(row.2, patternWidth))  \(row.3)\n"
            }
        }
        return text
    }

    /// The app to explain: `--app`, or the document's only app. Most real documents name one
    /// app, and their authors would otherwise copy its ID from the file to ask about it.
    static func chosenApp(_ given: String?, named apps: [String]) -> Result<String, UsageError> {
        if let given { return .success(given) }
        if apps.count == 1 { return .success(apps[0]) }
        guard !apps.isEmpty else { return .failure(UsageError(message: "missing --app (the document names no app)")) }
        let listed = apps.prefix(5).map { VisibleText.excerpt($0) }.joined(separator: ", ")
        let more = apps.count > 5 ? ", and \(apps.count - 5) more" : ""
        return .failure(UsageError(message: "missing --app: the document names \(apps.count) apps (\(listed)\(more))"))
    }

    /// The most characters of a compared text or pattern a table shows.
    static let shownCharacters = 100

    /// `text` as a JSON string, its first `shownCharacters` and its length when longer (as
    /// `VisibleText.excerpt`, but quoted as JSON): every rule tried shows the URL text it
    /// compared, and 7 000 rules against a 30 KB query printed 841 MB (1.7 GB held) for one URL.
    /// JSON's escaping covers the C0 controls; what else a terminal obeys (DEL, C1, the
    /// bidirectional controls) is escaped the JSON way too (`VisibleText.escapedJSONString`).
    static func shown(_ text: String) -> String {
        let head = text.prefix(shownCharacters)
        guard head.endIndex < text.endIndex else { return VisibleText.escapedJSONString(JSONWriter.escape(text)) }
        return VisibleText.escapedJSONString(JSONWriter.escape(String(head))) + "… (\(text.utf8.count) bytes)"
    }
}
