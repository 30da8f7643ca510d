import AASAKit
import Foundation

/// `aasa debug nfa|dfa|plan FILE [--domain D]`: stable text dumps of a document's automata, and
/// the plan that chose how each runs (`DocumentPlan`).
enum DebugCommand {
    static let spec = CommandSpec(
        name: "debug",
        abstract: "Print a document's compiled automata (NFA, fully determinised DFA), or how each runs (plan).",
        usage: "aasa debug nfa|dfa|plan <file> [--domain <domain>] [--minimize]",
        options: [
            .init(name: "domain", valueName: "domain", help: "The domain (default example.com; it does not change the automata).")
        ] + CommandSupport.configurationOptions,
        flags: [.init(name: "minimize", help: "With dfa: print the minimal DFA.")],
        discussion: """
            One section per automaton: path, query and fragment patterns per text mode
            (raw|decoded / exact|folded), and one automaton per query item name. Tags rN are
            rule numbers in evaluation order; the legend maps them to entry and rule indices.
            Query-item automata tag predicates, pN, one per item of a rule's query dictionary;
            a second legend maps each to its rule. The dumps are stable:
            the same document always prints the same text.

            plan prints one line for the document's path (how a path's matches become
            decisions: solo-path-compiled-rows, solo-path-rows-on-first-sight or
            multi-mode-path), one per path mode for the suffix split (suffix-split or no split,
            with the literal*literal candidates and the minimum), and one per automaton: its
            strategy (lazy-dfa, compact-table, dense-table) and the measurements that chose it
            (NFA states, byte classes, DFA states and table bytes against their bounds).
            --limit eager-dfa-states=0 shows the plan with compile-time tables off.

            EXIT STATUS: 0 printed; 2 usage error; 3 the document cannot be read or compiled;
            5 the output cannot be written.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        if parsed.has("minimize"), parsed.positionals.first != "dfa" {
            return CommandSupport.usageError(spec, "--minimize goes with dfa only")
        }
        var domain = "example.com"
        if let given = parsed.value("domain") {
            switch CommandSupport.documentDomain(given, command: spec.name) {
            case .success(let host): domain = host
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
        }
        guard parsed.positionals.count == 2, ["nfa", "dfa", "plan"].contains(parsed.positionals[0]) else {
            return CommandSupport.usageError(spec, "expected 'nfa', 'dfa' or 'plan' and a <file>")
        }
        let document: AASADocument
        switch CommandSupport.loadDocument(parsed.positionals[1], command: spec.name, configuration: configuration) {
        case .success(let value): document = value
        case .failure(let code): return code
        }
        let compiled: CompiledDocument
        do {
            compiled = try CompiledDocument(document: document, domain: domain, configuration: configuration)
        } catch {
            printError("aasa debug: cannot compile \(parsed.positionals[1]): \(error)")
            return .unreadableDocument
        }
        if parsed.positionals[0] == "plan" {
            let plan = compiled.plan
            let header = "plan: rules \(compiled.rules.count), apps \(compiled.appIDs.count), automata \(plan.automata.count)\n"
            return writeStandardOutput(header + plan.lines.map { $0 + "\n" }.joined(), command: "debug") ?? .success
        }
        // Written piece by piece, never held whole.
        let failure = writeStandardOutput(command: "debug") { output throws(OutputStream.WriteFailure) in
            try output.write("rules:\n")
            for (id, rule) in compiled.rules.enumerated() {
                try output.write("  r\(id) = entry \(rule.entryIndex) rule \(rule.ruleIndex)\(rule.exclude ? " exclude" : "") \(rule.mode) [\(shownApps(rule.apps, of: compiled))]\n")
            }
            let predicates = compiled.rules.enumerated().flatMap { id, rule in rule.queryItemPredicates.map { ($0, id) } }
            if !predicates.isEmpty {
                try output.write("query item predicates:\n")
                for (predicate, rule) in predicates.sorted(by: { $0.0 < $1.0 }) { try output.write("  p\(predicate) = r\(rule)\n") }
            }
            for (label, dfa) in compiled.labelledAutomata {
                try output.write("\n== \(label) ==\n")
                let tag = label.hasPrefix("query-item ") ? "p" : "r"
                if parsed.positionals[0] == "nfa" {
                    try output.write(AutomatonDump.describe(dfa.nfa, tag: tag))
                } else {
                    // States alone do not bound the work: each can hold thousands of NFA
                    // positions (a variable of thousands of `*…*` values), so the positions
                    // stepped are bounded too, at about 64 MB of subsets.
                    let dump: String
                    do {
                        let dense = try DenseDFA(nfa: dfa.nfa, maxStates: 10_000, maxWork: 1 << 24)
                        dump = AutomatonDump.describe(parsed.has("minimize") ? dense.minimized() : dense, tag: tag)
                    } catch {
                        dump = "(\(error))\n"
                    }
                    try output.write(dump)
                }
            }
        }
        return failure ?? .success
    }

    /// The most apps a rule's line shows, each abbreviated: every rule of an entry lists its
    /// apps, and one 64 KB app ID over 4 700 rules made a 300 MB dump.
    static let maxShownApps = 10

    /// A rule's apps as its line shows them: each one line, its control characters shown.
    static func shownApps(_ apps: [Int32], of compiled: CompiledDocument) -> String {
        var shown = apps.prefix(maxShownApps).map { VisibleText.excerpt(compiled.appIDs[Int($0)], limit: 100) }
        if apps.count > maxShownApps { shown.append("and \(apps.count - maxShownApps) more") }
        return shown.joined(separator: ", ")
    }
}
