import AASAKit
import Foundation

/// `aasa diff OLD NEW [--domain D] [--app A] [--witnesses N] [--format text|json]`: the semantic
/// difference of two versions of a document, with example URLs.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Show which URLs two versions of an AASA file decide differently, with example URLs.",
        usage: "aasa diff <old> <new> [--domain <domain>] [--app <app-id>] [--witnesses <n>] [--format text|json]",
        options: [
            .init(name: "domain", valueName: "domain", help: "The domain of the example URLs (default example.com)."),
            .init(name: "app", valueName: "app-id", help: "Compare the decisions of this app only: only the entries naming it are analysed."),
            .init(name: "witnesses", valueName: "n", help: "Example URLs per class of changed URLs (default 3)."),
            .init(name: "format", valueName: "format", help: "text (default) or json (one object per example URL)."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            The comparison is semantic: it runs on the product of both documents' automata, so
            reordered keys, hoisted defaults or renumbered rules that decide every URL the same
            way are "equivalent". Otherwise each class of changed URLs (one app, its old decision
            and rule, its new decision and rule) is listed with up to N example URLs, shortest
            first; every example was re-checked by the matcher against both documents. When the
            search could not show that the classes listed are all (it hit its budget, or the
            rules mix text modes or query shapes), the last line says "at least" and standard
            error says why; the classes listed hold either way.
            json: one line per example URL:
              {"app": …, "url": …, "old": {"decision": …, "entry"?: i, "rule"?: j}, "new": {…}}

            EXIT STATUS: 0 equivalent; 1 some URLs are decided differently; 2 usage error;
            3 a document cannot be read or compiled; 4 no difference found but equivalence not
            proven (rules of several text modes or query shapes differ on texts no one URL was
            found to have, or the search hit its budget); 5 the output cannot be written.
            Documents whose rules are the same after defaults and normalisation are equivalent
            whatever their modes or size.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 2 else { return CommandSupport.usageError(spec, "expected <old> and <new>") }
        let format = parsed.value("format") ?? "text"
        guard ["text", "json"].contains(format) else { return CommandSupport.usageError(spec, "unknown format '\(format)'") }
        let witnesses = parsed.value("witnesses").map { Int($0) } ?? 3
        guard let witnesses, witnesses >= 1 else { return CommandSupport.usageError(spec, "--witnesses needs a whole number of at least 1") }
        var documents: [AASADocument] = []
        for file in parsed.positionals {
            switch CommandSupport.loadDocument(file, command: spec.name, configuration: configuration) {
            case .success(let document): documents.append(document)
            case .failure(let code): return code
            }
        }
        let domain: String
        switch CommandSupport.witnessDomain(parsed) {
        case .success(let value): domain = value
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        if let app = parsed.value("app"), !documents.contains(where: { $0.appIDs.contains { $0.utf8.elementsEqual(app.utf8) } }) {
            return CommandSupport.usageError(spec, "--app \(app) is named by neither document")
        }
        let diff: SemanticDiff
        do {
            diff = try SemanticDiff(
                old: documents[0], new: documents[1], domain: domain, app: parsed.value("app"), witnesses: witnesses,
                configuration: configuration)
        } catch {
            printError("aasa diff: cannot analyse the documents: \(error)")
            return .unreadableDocument
        }
        var text = ""
        if format == "json" {
            for change in diff.changes {
                for url in change.urls {
                    text += "{\"app\": \(JSONWriter.escape(change.app)), \"url\": \(JSONWriter.escape(url)), "
                    text += "\"old\": \(decisionJSON(change.old)), \"new\": \(decisionJSON(change.new))}\n"
                }
            }
        } else {
            // Escaped as a terminal shows it; `--format json` gives the exact text.
            for change in diff.changes {
                text += VisibleText.escapedLine("\(change.app): \(describe(change.old)) -> \(describe(change.new))") + "\n"
                for url in change.urls { text += "  \(VisibleText.escapedLine(url))\n" }
            }
        }
        switch diff.verdict {
        case .equivalent:
            if format == "text" {
                // With --app only that app was compared: "every app" claimed the others too.
                let apps = parsed.value("app").map { "for \(VisibleText.escapedLine($0))" } ?? "for every app"
                text += "equivalent: every URL gets the same decision \(apps)\n"
            }
        case .different:
            let classes = "\(diff.changes.count) class\(diff.changes.count == 1 ? "" : "es")"
            if let reason = diff.incompleteness {
                // Every class listed holds; the search could not show there are no others.
                if format == "text" { text += "at least \(classes) of URLs decided differently\n" }
                printError("aasa diff: the classes of changed URLs listed may not be all: \(reason)")
            } else if format == "text" {
                text += "\(classes) of URLs decided differently\n"
            }
        case .noDifferenceFound(let reason):
            printError("aasa diff: no difference found, but equivalence is not proven: \(reason)")
        }
        if let failure = writeStandardOutput(text, command: "diff") { return failure }
        switch diff.verdict {
        case .equivalent: return .success
        case .different: return .failure
        case .noDifferenceFound: return .inconclusive
        }
    }

    static func decisionJSON(_ decision: AppDecision) -> String {
        var text = "{\"decision\": \"\(decision.kind.rawValue)\""
        if let entry = decision.entry, let rule = decision.rule { text += ", \"entry\": \(entry), \"rule\": \(rule)" }
        return text + "}"
    }

    static func describe(_ decision: AppDecision) -> String {
        guard let entry = decision.entry, let rule = decision.rule else { return decision.kind.rawValue }
        return "\(decision.kind.rawValue) (entry \(entry) rule \(rule))"
    }
}
