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
            rule numbers in evaluation order; the legend maps them to entry and rule indices
            (query-item automata tag predicates, listed the same way). The dumps are stable:
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
            switch CommandSupport.documentDomain(given) {
            case .success(let host): domain = host
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
        }
        guard parsed.positionals.count == 2, ["nfa", "dfa", "plan"].contains(parsed.positionals[0]) else {
            return CommandSupport.usageError(spec, "expected 'nfa', 'dfa' or 'plan' and a <file>")
        }
        let document: AASADocument
        switch CommandSupport.loadDocument(parsed.positionals[1], configuration: configuration) {
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
        var text = "rules:\n"
        for (id, rule) in compiled.rules.enumerated() {
            // An app ID is the document's text: one line each, its control characters shown.
            let apps = rule.apps.map { VisibleText.escapedLine(compiled.appIDs[Int($0)]) }.joined(separator: ", ")
            text += "  r\(id) = entry \(rule.entryIndex) rule \(rule.ruleIndex)\(rule.exclude ? " exclude" : "") \(rule.mode) [\(apps)]\n"
        }
        for (label, dfa) in compiled.labelledAutomata {
            text += "\n== \(label) ==\n"
            if parsed.positionals[0] == "nfa" {
                text += AutomatonDump.describe(dfa.nfa)
            } else {
                do {
                    // States alone do not bound the work: each can hold thousands of NFA
                    // positions (a variable of thousands of `*…*` values), so the positions
                    // stepped are bounded too, at about 64 MB of subsets.
                    let dense = try DenseDFA(nfa: dfa.nfa, maxStates: 10_000, maxWork: 1 << 24)
                    text += AutomatonDump.describe(parsed.has("minimize") ? dense.minimized() : dense)
                } catch {
                    text += "(\(error))\n"
                }
            }
        }
        return writeStandardOutput(text, command: "debug") ?? .success
    }
}
