import AASAKit

/// The compile suite: parse and compile time and automaton size, for the bundled scenarios,
/// Apple's `$(lang)_$(region)/$(food)` example, the real corpus and synthetic documents, next
/// to what a naive compiler that expands variables into pattern lists would store, and the size
/// of the eagerly determinised, minimised DFA.
enum CompileSuite {
    struct Row {
        var name: String
        var rules: Int
        var parse: Double
        var compile: Double
        var nfaStates: Int
        var automatonBytes: Int
        var naive: (patterns: Int, bytes: Int)
        var eager: EagerSize
    }

    /// States and bytes of the minimised eager DFAs of every automaton of a document.
    struct EagerSize {
        var states = 0
        var bytes = 0
        /// Automata whose determinisation passed the state limit.
        var overLimit = 0

        var text: String {
            overLimit > 0 ? "> limit in \(overLimit) automaton(s)" : "\(Format.count(states)) states, \(Format.bytes(bytes))"
        }
    }

    static func eagerSize(_ compiled: CompiledDocument, limit: Int) -> EagerSize {
        var size = EagerSize()
        for (_, dfa) in compiled.labelledAutomata {
            do {
                let dense = try DenseDFA(nfa: dfa.nfa, maxStates: limit).minimized()
                size.states += dense.stateCount
                size.bytes += dense.memoryUsage
            } catch {
                size.overLimit += 1
            }
        }
        return size
    }

    /// Median parse and compile times over a few rounds (one round for large documents).
    static func measure(_ bytes: [UInt8], domain: String, rounds: Int) throws -> (AASADocument, CompiledDocument, Double, Double) {
        var configuration = Configuration()
        configuration.document.maxPatterns = .max
        configuration.document.maxBytes = max(configuration.document.maxBytes, bytes.count)
        // The generated documents go past Apple's 128 KB (10 000 rules of variables call them
        // from about 1 000 distinct places): their limits grow with them, as documented.
        configuration.automata.maxVariablePositions = max(configuration.automata.maxVariablePositions, bytes.count * 4)
        configuration.automata.maxNFAStates = max(configuration.automata.maxNFAStates, bytes.count * 4)
        var parses: [Double] = []
        var compiles: [Double] = []
        var last: (AASADocument, CompiledDocument)?
        for _ in 0..<max(1, rounds) {
            let (document, parse) = try Clock.measure { try AASADocument(bytes: bytes, configuration: configuration) }
            let (compiled, compile) = try Clock.measure { try CompiledDocument(document: document, domain: domain, configuration: configuration) }
            parses.append(Double(parse))
            compiles.append(Double(compile))
            last = (document, compiled)
        }
        guard let (document, compiled) = last else { throw BenchmarkError.nothingMeasured }
        return (document, compiled, Statistics.quantile(parses, 0.5), Statistics.quantile(compiles, 0.5))
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "compile")
        let profile = context.profile
        let rounds = profile.quick ? 3 : 9

        // Apple's example and the bundled scenarios.
        var rows: [Row] = []
        var sources: [(String, [UInt8], String)] = [("Apple's example (`$(lang)_$(region)/$(food)`)", Array(AppleExample.json.utf8), AppleExample.domain)]
        for scenario in context.store.bundledScenarios() { sources.append(("corpus/\(scenario.domain)", scenario.document, scenario.domain)) }
        for (name, bytes, domain) in sources {
            let (document, compiled, parse, compile) = try measure(bytes, domain: domain, rounds: rounds)
            let row = Row(
                name: name, rules: document.entries.reduce(0) { $0 + $1.rules.count }, parse: parse, compile: compile,
                nfaStates: compiled.nfaStateCount, automatonBytes: compiled.memoryUsage, naive: NaiveExpansion.size(of: document),
                eager: eagerSize(compiled, limit: profile.eagerStateLimit))
            rows.append(row)
            let key = name.hasPrefix("Apple") ? "apple-example" : name
            report.counters["\(key).nfa_states"] = Double(row.nfaStates)
            report.counters["\(key).automaton_bytes"] = Double(row.automatonBytes)
            report.counters["\(key).eager_dfa_states"] = Double(row.eager.states)
            report.timings["\(key).compile_ns"] = row.compile
        }
        var table = Table(
            title: "parse + compile, Apple's example and the bundled scenarios (median of \(rounds)), against naive list expansion",
            columns: [
                "document", "naive expansion ÷ automaton (bytes)", "rules", "parse", "compile", "NFA states", "automaton",
                "naive expansion (patterns)", "naive expansion (bytes)", "eager minimised DFA",
            ])
        for row in rows { table.rows.append(cells(row)) }
        var note = "Automaton: heap bytes of the compiled NFAs and byte-class maps (`CompiledDocument.memoryUsage`); lazy DFA caches are per thread and come on top. "
        note += "Naive expansion: one pattern per combination of variable values (`$(lang)` has \(Format.count(PredefinedVariables.values(of: "lang")?.count ?? 0)) values, `$(region)` \(Format.count(PredefinedVariables.values(of: "region")?.count ?? 0))), bytes of pattern text. "
        note += "Eager: every automaton determinised (limit \(Format.count(profile.eagerStateLimit)) states) and minimised, `DenseDFA.memoryUsage`."
        table.notes.append(note)
        context.emit(table, into: &report)

        // The real corpus.
        if let missing = context.store.sharedCorpusMissing(["aasa/real"]) {
            context.say("_real corpus skipped: \(missing)_\n")
            report.partsSkipped = (report.partsSkipped ?? []) + ["real corpus: \(missing)"]
        } else {
            try realCorpus(context, &report, rounds: rounds)
        }

        // Synthetic documents.
        var synthetic = Table(
            title: "parse + compile by document size and rule kind (synthetic, seed \(context.options.seed), one round)",
            columns: ["document", "rules", "JSON", "parse", "compile", "compile per rule", "NFA states", "automaton", "naive expansion (patterns)"])
        for kind in [SyntheticDocument.Kind.paths, .variables, .queries] {
            for size in profile.compileSizes {
                let generated = SyntheticDocument(kind: kind, ruleCount: size, seed: context.options.seed)
                let bytes = Array(generated.text.utf8)
                let measured: (AASADocument, CompiledDocument, Double, Double)
                do {
                    measured = try measure(bytes, domain: generated.domain, rounds: size <= 1_000 ? rounds : 1)
                } catch {
                    synthetic.rows.append([kind.rawValue, Format.count(size), Format.bytes(bytes.count), "", "not compiled: \(error)", "", "", "", ""])
                    continue
                }
                let (document, compiled, parse, compile) = measured
                let naive = NaiveExpansion.size(of: document)
                synthetic.rows.append([
                    kind.rawValue, Format.count(size), Format.bytes(bytes.count), Format.milliseconds(parse), Format.milliseconds(compile),
                    Format.nanoseconds(compile / Double(size)), Format.count(compiled.nfaStateCount), Format.bytes(compiled.memoryUsage),
                    Format.count(naive.patterns),
                ])
                report.counters["\(kind.rawValue)-\(size).nfa_states"] = Double(compiled.nfaStateCount)
                report.counters["\(kind.rawValue)-\(size).automaton_bytes"] = Double(compiled.memoryUsage)
                report.timings["\(kind.rawValue)-\(size).compile_ns"] = compile
                report.timings["\(kind.rawValue)-\(size).parse_ns"] = parse
            }
        }
        context.emit(synthetic, into: &report)
        return report
    }

    static func cells(_ row: Row) -> [String] {
        [
            row.name,
            row.naive.patterns > row.rules
                ? "**" + Format.ratio(Double(row.naive.bytes) / Double(max(1, row.automatonBytes))) + "**" : "— (no variables)",
            Format.count(row.rules),
            Format.milliseconds(row.parse), Format.milliseconds(row.compile), Format.count(row.nfaStates), Format.bytes(row.automatonBytes),
            Format.count(row.naive.patterns), Format.bytes(row.naive.bytes), row.eager.text,
        ]
    }

    static func realCorpus(_ context: RunContext, _ report: inout SuiteReport, rounds: Int) throws {
        let documents = try context.store.realDocuments()
        var parses: [Double] = []
        var compiles: [Double] = []
        var nfaStates: [Double] = []
        var bytes: [Double] = []
        var eagerStates: [Double] = []
        var eagerOver = 0
        var naivePatterns = 0
        var naiveBytes = 0
        var failures: [String] = []
        for document in documents {
            do {
                let (parsed, compiled, parse, compile) = try measure(document.bytes, domain: RealSuite.domain, rounds: rounds)
                parses.append(parse)
                compiles.append(compile)
                nfaStates.append(Double(compiled.nfaStateCount))
                bytes.append(Double(compiled.memoryUsage))
                let eager = eagerSize(compiled, limit: context.profile.eagerStateLimit)
                eagerStates.append(Double(eager.states))
                eagerOver += eager.overLimit
                let naive = NaiveExpansion.size(of: parsed)
                naivePatterns += naive.patterns
                naiveBytes += naive.bytes
            } catch {
                failures.append("`\(document.name)`: \(error)")
            }
        }
        func row(_ name: String, _ values: [Double], _ show: (Double) -> String) -> [String] {
            [name, show(values.reduce(0, +)), show(Statistics.quantile(values, 0.5)), show(Statistics.quantile(values, 0.9)), show(values.max() ?? 0)]
        }
        var table = Table(
            title: "parse + compile, \(parses.count) real documents (corpus/aasa/real), median of \(rounds) rounds per document",
            columns: ["figure", "total", "median per document", "p90", "max"])
        table.rows.append(row("parse", parses) { Format.milliseconds($0) })
        table.rows.append(row("compile", compiles) { Format.milliseconds($0) })
        table.rows.append(row("NFA states", nfaStates) { Format.count(Int($0)) })
        table.rows.append(row("automaton", bytes) { Format.bytes(Int($0)) })
        table.rows.append(row("eager minimised DFA states", eagerStates) { Format.count(Int($0)) })
        table.notes.append("Naive list expansion of the whole corpus: \(Format.count(naivePatterns)) patterns, \(Format.bytes(naiveBytes)) (the real documents use few variables). \(eagerOver) automata passed the eager state limit.")
        table.notes += failures
        context.emit(table, into: &report)
        report.counters["real.documents"] = Double(parses.count)
        report.counters["real.nfa_states"] = nfaStates.reduce(0, +)
        report.counters["real.automaton_bytes"] = bytes.reduce(0, +)
        report.counters["real.eager_dfa_states"] = eagerStates.reduce(0, +)
        report.timings["real.compile_ns_total"] = compiles.reduce(0, +)
        report.timings["real.parse_ns_total"] = parses.reduce(0, +)
    }
}

enum BenchmarkError: Error, CustomStringConvertible {
    case nothingMeasured
    case probeFailed(String)
    case runFailed(String)

    var description: String {
        switch self {
        case .nothingMeasured: return "nothing was measured"
        case .probeFailed(let detail): return "memory probe failed: \(detail)"
        case .runFailed(let detail): return "run failed: \(detail)"
        }
    }
}
