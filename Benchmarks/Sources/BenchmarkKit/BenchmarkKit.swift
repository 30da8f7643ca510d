import AASAKit
import Foundation

/// BenchmarkKit: the `aasa-bench` harness, shared by two executables that differ only in the
/// allocator (`aasa-bench` on jemalloc, `aasa-bench-sysalloc` on glibc malloc).
///
/// What comes in: the command line (`Options`), the allocator's counters (`AllocatorCounters`,
/// injected by the executable), the bundled scenarios (`corpus/`) and the shared corpus
/// (`../shared/corpus`, optional). What goes out: one Markdown table per workload on stdout,
/// a JSON report (`--json`), optionally a CI baseline (`--write-baseline`) or a comparison with
/// one (`--baseline`), and an exit status.
///
/// Habits (`../shared/STYLE.md`, habit 9): the fast path and the reference run in the same
/// process on the same URLs, interleaved, and the tables lead with their ratios; titles name
/// the workload; deterministic counters (states built, cache clears, NFA states, automaton
/// bytes, bytes allocated) are compared with a checked-in baseline; wall-clock time is reported
/// and never asserted, except through same-run ratios with a generous tolerance.
///
/// Suites: `match` (synthetic documents, DFA vs reference vs a regex baseline, scaling),
/// `real` (the real documents on real URLs, and the multi-domain routing scenario), `compile`
/// (parse and compile time, automaton size against naive list expansion, eager minimised DFA),
/// `memory` (peak RSS and allocation per workload, jemalloc vs glibc, one subprocess each),
/// `classify` (the `aasa classify` binary end to end on the real corpus, jobs 1 and 2), `fleet`
/// (one interleaved stream over thousands of small documents: the link shortener's workload),
/// `analysis` (`aasa lint`, `cover` and `diff` on the documents that make their walk work),
/// `hostile` (documents and URLs written to hurt: time, states and memory, bounded) and
/// `agreement` (every URL of every suite decided by both engines; any difference fails the run).
public enum BenchmarkMain {
    public static func run(allocator: AllocatorCounters, executableName: String) -> Never {
        let options: Options
        switch Options.parse(CommandLine.arguments) {
        case .success(let parsed):
            options = parsed
        case .failure(.help):
            print(Options.usage)
            exit(0)
        case .failure(let error):
            FileHandle.standardError.write(Data("\(executableName): \(error)\n\n\(Options.usage)\n".utf8))
            exit(2)
        }
        let context = RunContext(options: options, allocator: allocator, executableName: executableName)
        if let probe = options.probe {
            exit(MemoryProbe.run(probe, context: context))
        }
        exit(context.runSuites())
    }
}

/// State shared by the suites of one run.
public final class RunContext: @unchecked Sendable {
    public let options: Options
    public let profile: Profile
    public let allocator: AllocatorCounters
    public let executableName: String
    public let store: WorkloadStore
    public var harness: Harness
    /// Per workload label: how many of its URLs (a prefix) were already checked by both
    /// engines, so the agreement suite does not decide them twice.
    var checkedPrefix: [String: Int] = [:]

    init(options: Options, allocator: AllocatorCounters, executableName: String) {
        self.options = options
        self.profile = Profile(quick: options.quick)
        self.allocator = allocator
        self.executableName = executableName
        self.store = WorkloadStore(options: options, profile: profile)
        self.harness = Harness(repetitions: profile.repetitions, minimumRepetitionNanoseconds: profile.minimumRepetitionNanoseconds)
    }

    func say(_ text: String) {
        print(text)
        fflush(nil)
    }

    func emit(_ table: Table, into report: inout SuiteReport) {
        say(table.markdown)
        report.tables.append(table)
    }

    /// Checks `urls` with both engines (a fresh matcher, and `timed`, the one the suite timed)
    /// and records what was checked for the agreement suite.
    func checkAgreement(
        suite: String, label: String, document: String, dfa: DFAMatcher, timed: DFAMatcher, reference: ReferenceMatcher,
        urls: [String], into report: inout SuiteReport
    ) {
        let found = Agreement.check(suite: suite, document: document, dfa: dfa, timed: timed, reference: reference, urls: urls)
        report.disagreements += found
        checkedPrefix[label] = max(checkedPrefix[label] ?? 0, urls.count)
    }

    func runSuites() -> Int32 {
        let started = Clock.now()
        var report = BenchmarkReport(
            date: ISO8601DateFormatter().string(from: Date()), machine: Machine.current(), command: options.command,
            quick: options.quick, allocator: allocator.allocatorName)
        say("# aasa-bench\(options.quick ? " --quick" : "")")
        say("")
        say("\(report.date) · \(report.machine.processors) cores · \(report.machine.cpu) · \(report.machine.system) · \(report.allocator)")
        say("command: `\(options.command)`")
        say("")
        var failed = false
        for suite in options.selectedSuites {
            let suiteStart = Clock.now()
            say("## \(suite.rawValue)\n")
            var result: SuiteReport
            do {
                switch suite {
                case .match: result = try MatchSuite.run(self)
                case .real: result = try RealSuite.run(self)
                case .compile: result = try CompileSuite.run(self)
                case .memory: result = try MemorySuite.run(self)
                case .classify: result = try ClassifySuite.run(self)
                case .fleet: result = try FleetSuite.run(self)
                case .analysis: result = try AnalysisSuite.run(self)
                case .hostile: result = try HostileSuite.run(self)
                case .agreement: result = try AgreementSuite.run(self)
                }
            } catch {
                result = SuiteReport(name: suite.rawValue)
                result.skipped = "failed: \(error)"
                failed = true
            }
            result.seconds = Double(Clock.now() - suiteStart) / 1e9
            if let skipped = result.skipped { say("_\(suite.rawValue): \(skipped)_\n") }
            if !result.disagreements.isEmpty {
                failed = true
                say("**\(result.disagreements.count) disagreement(s) between the lazy DFA and the reference:**\n")
                for item in result.disagreements {
                    say("- document `\(item.document)`\n  URL `\(item.url)`\n  dfa:       \(item.dfa)\n  reference: \(item.reference)")
                }
                say("")
            }
            say(String(format: "_%@ suite: %.1f s_\n", suite.rawValue, result.seconds))
            report.suites.append(result)
        }
        report.claims = Claims.evaluate(report)
        if !report.claims.isEmpty {
            var table = Table(title: "Speed claims of issues 3 and 4, measured in this run (reported, not asserted)", columns: ["claim", "measured", "holds"])
            for claim in report.claims { table.rows.append([claim.claim, claim.measured, claim.holds ? "yes" : "**no**"]) }
            say(table.markdown)
        }
        say(String(format: "_total: %.1f s_\n", Double(Clock.now() - started) / 1e9))

        do {
            try write(report, to: options.jsonPath)
            say("results: \(options.jsonPath)")
            if let path = options.writeBaselinePath {
                try write(Baseline(report: report), to: path)
                say("baseline written: \(path)")
            }
        } catch {
            say("aasa-bench: cannot write results: \(error)")
            failed = true
        }
        if let path = options.baselinePath {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let baseline = try JSONDecoder().decode(Baseline.self, from: data)
                let comparison = baseline.compare(
                    with: report, tolerance: options.tolerance / 100, ratioTolerance: options.ratioTolerance / 100)
                say(comparison.markdown(baselinePath: path, tolerance: options.tolerance, ratioTolerance: options.ratioTolerance))
                if !comparison.failures.isEmpty { failed = true }
            } catch {
                say("aasa-bench: cannot read baseline \(path): \(error)")
                failed = true
            }
        }
        let disagreements = report.suites.reduce(0) { $0 + $1.disagreements.count }
        if disagreements > 0 { say("FAILED: \(disagreements) disagreement(s) between the engines (listed above)") }
        return failed ? 1 : 0
    }

    func write<T: Encodable>(_ value: T, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(value).write(to: url)
    }
}
