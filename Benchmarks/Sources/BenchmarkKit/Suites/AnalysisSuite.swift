import AASAKit
import Foundation

/// The analysis suite: `aasa lint`, `cover` and `diff`, which teams run on their own files in
/// CI, through the release binary. Their cost is the walk over the product of a document's
/// automata (`docs/analysis.md`), so the workloads are the shapes that make that walk work:
///
/// - `substrings-K`: K exclusions `NOT *word*` before `*` (the shape of the heaviest real
///   document, eleven exclusions, seven of them substring searches): the outcomes are every
///   combination of the K, so the walk doubles with each one;
/// - `campaign-N`: N rules `/word/*`, each naming two query items of its own (campaign
///   links), and for `diff` the same document with one rule turned into an exclusion;
/// - `international`: Apple's international example (the bundled `food.example`), rules in
///   text modes one written text cannot serve, checked by a walk per mode class;
/// - the real documents of the shared corpus, linted in process one by one (full runs).
///
/// What it reports: instructions of each command (callgrind, beyond a one-rule document's
/// run: deterministic, what the baseline tracks at 3%), wall time and peak RSS (median of the
/// profile's repetitions, reported only), and whether the report is whole (a coverage figure
/// of the baseline), since a command that claims less is fast for the wrong reason.
enum AnalysisSuite {
    struct Workload {
        var label: String
        var arguments: [String]
        var what: String
    }

    /// Whether a report of lint, cover or diff is whole: lint has no `analysis-incomplete`
    /// note, cover no rule left "not exhaustive" or "not searched", diff neither exits 4 (not
    /// proven) nor lists "at least" its classes.
    static func isWhole(_ output: String, status: Int32) -> Bool {
        status != 4 && !["[analysis-incomplete]", "not exhaustive", "not searched", "at least"].contains { output.contains($0) }
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "analysis")
        guard let aasa = MemorySuite.releaseAASA(skipping: &report) else { return report }
        let quick = context.options.quick
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-bench-analysis-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        func write(_ name: String, _ text: String) throws -> String {
            let path = folder + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let seed = context.options.seed
        let trivial = try write("one-rule.json", AnalysisDocuments.wrap([#"{"/": "/a/*"}"#]))
        var workloads: [Workload] = []
        for count in quick ? [5] : [5, 8, 10] {
            let file = try write("substrings-\(count).json", AnalysisDocuments.substrings(count, seed: seed))
            workloads.append(Workload(label: "substrings-\(count)", arguments: ["lint", file], what: "`lint`, \(count) exclusions `NOT *word*` before `*`"))
        }
        for count in quick ? [20] : [20, 40, 200] {
            let old = try write("campaign-\(count).json", AnalysisDocuments.campaign(count, seed: seed))
            let new = try write("campaign-\(count)-changed.json", AnalysisDocuments.campaign(count, seed: seed, excluding: count / 3))
            let shape = "\(count) rules `/word/*` of two query items each"
            workloads += [
                Workload(label: "campaign-\(count).lint", arguments: ["lint", old], what: "`lint`, \(shape)"),
                Workload(label: "campaign-\(count).cover", arguments: ["cover", old], what: "`cover`, \(shape)"),
                Workload(label: "campaign-\(count).diff", arguments: ["diff", old, new], what: "`diff`, \(shape), one turned into an exclusion"),
            ]
        }

        // Apple's international example (the bundled `food.example`): rules in text modes one
        // written text cannot serve, which lint and cover check with a walk per mode class.
        let international = context.options.corpusDirectory + "/food.example/apple-app-site-association"
        if FileManager.default.fileExists(atPath: international) {
            let shape = "Apple's international example (`corpus/food.example`), three modes"
            workloads += [
                Workload(label: "international.lint", arguments: ["lint", international], what: "`lint`, \(shape)"),
                Workload(label: "international.cover", arguments: ["cover", international], what: "`cover`, \(shape)"),
            ]
        } else {
            report.partsSkipped = (report.partsSkipped ?? []) + ["international: \(international) not found (--corpus)"]
        }

        let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if valgrind == nil { report.partsSkipped = (report.partsSkipped ?? []) + ["instructions: valgrind not found"] }
        func instructions(_ arguments: [String]) throws -> Double? {
            guard let valgrind else { return nil }
            let log = folder + "/callgrind.log"
            // A fixed hash seed: dictionary probes cost a different number of instructions
            // with each process's random seed.
            _ = try ChildProcess.run(
                "/usr/bin/env", ["SWIFT_DETERMINISTIC_HASHING=1", valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", aasa] + arguments,
                stderr: log)
            guard let value = CallgrindProfile.collected(log: log) else {
                throw BenchmarkError.runFailed("no instruction count in callgrind's log for aasa \(arguments.joined(separator: " "))")
            }
            return value
        }
        func timed(_ arguments: [String]) throws -> (wall: Double, peak: Double, whole: Bool) {
            let out = folder + "/out.txt"
            var walls: [Double] = []
            var peaks: [Double] = []
            var last = ChildProcess.Outcome(status: 0, nanoseconds: 0, cpuNanoseconds: 0, peakResidentBytes: 0)
            for _ in 0..<context.profile.repetitions {
                last = try ChildProcess.run(aasa, arguments, stdout: out, stderr: out)
                walls.append(Double(last.nanoseconds))
                peaks.append(Double(last.peakResidentBytes))
            }
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            guard last.status <= 1 || last.status == 4 else {
                throw BenchmarkError.runFailed("aasa \(arguments.joined(separator: " ")) exited \(last.status)")
            }
            return (Statistics.quantile(walls, 0.5), Statistics.quantile(peaks, 0.5), Self.isWhole(text, status: last.status))
        }

        let startInstructions = try instructions(["lint", trivial])
        let start = try timed(["lint", trivial])
        var table = Table(
            title: "`aasa lint`, `cover` and `diff` on generated documents: instructions beyond a one-rule `lint` (callgrind), wall time after start-up and peak RSS (median of \(context.profile.repetitions) runs)",
            columns: ["workload", "command", "**instructions**", "wall after start-up", "peak RSS", "report"])
        for workload in workloads {
            let count = try instructions(workload.arguments).map { $0 - (startInstructions ?? 0) }
            let run = try timed(workload.arguments)
            table.rows.append([
                workload.label, workload.what, count.map { "**\(Format.count(Int($0.rounded())))**" } ?? "n/a",
                Format.nanoseconds(max(0, run.wall - start.wall)), Format.bytes(Int(run.peak)), run.whole ? "whole" : "**incomplete**",
            ])
            if let count { report.counters["\(workload.label).instructions"] = count.rounded() }
            // A coverage figure: a report that stops being whole (or becomes whole) fails the
            // comparison either way, where its instructions alone would read as a speed-up.
            report.counters["\(workload.label).whole"] = run.whole ? 1 : 0
            report.timings["\(workload.label).wall_ns"] = run.wall - start.wall
        }
        table.notes.append(
            "Start-up (`aasa lint` of a one-rule document): \(startInstructions.map { Format.count(Int($0)) + " instructions, " } ?? "")\(Format.nanoseconds(start.wall)), subtracted from each row. Report: `whole` when lint has no `analysis-incomplete` note, cover proved or found a URL for every rule, and diff proved its answer; an incomplete report (a budget ran out, or modes the walks cannot settle) claims less, and may be fast for that reason.")
        context.emit(table, into: &report)

        if !quick { try realCorpus(context, &report) }
        return report
    }

    /// The real documents linted in process, one by one (parse, compile, walk): how long a
    /// team's own file takes, and how many are analysed whole under the default budgets.
    static func realCorpus(_ context: RunContext, _ report: inout SuiteReport) throws {
        if let missing = context.store.sharedCorpusMissing(["aasa/real"]) {
            context.say("_real documents skipped: \(missing)_")
            report.partsSkipped = (report.partsSkipped ?? []) + ["real documents: \(missing)"]
            return
        }
        var times: [(name: String, nanoseconds: Double)] = []
        var whole = 0
        let configuration = Configuration()
        for document in try context.store.realDocuments() {
            guard let parsed = try? AASADocument(bytes: document.bytes, configuration: configuration) else { continue }
            let (findings, elapsed) = Clock.measure { SemanticLint.findings(document: parsed, domain: "example.com", configuration: configuration) }
            times.append((document.name, Double(elapsed)))
            if !findings.contains(where: { $0.code == "analysis-incomplete" }) { whole += 1 }
        }
        let values = times.map(\.nanoseconds)
        let slowest = times.max { $0.nanoseconds < $1.nanoseconds }
        var table = Table(
            title: "the automaton checks of `lint` (`SemanticLint`) on each real document of `corpus/aasa/real`, in process, one pass",
            columns: ["documents", "analysed whole", "median", "p99", "slowest", "all"])
        table.rows.append([
            Format.count(times.count), Format.count(whole), Format.nanoseconds(Statistics.quantile(values, 0.5)),
            Format.nanoseconds(Statistics.quantile(values, 0.99)), slowest.map { "\(Format.nanoseconds($0.nanoseconds)) (`\($0.name)`)" } ?? "",
            Format.nanoseconds(values.reduce(0, +)),
        ])
        table.notes.append("Documents that are not JSON or not an object are left out (lint reports them before any walk).")
        context.emit(table, into: &report)
        report.timings["real.median_ns"] = Statistics.quantile(values, 0.5)
        report.timings["real.whole"] = Double(whole)
    }
}

/// The generated documents of the analysis suite, the same for a seed.
enum AnalysisDocuments {
    static let app = "ABCDE12345.com.example.app"

    static func wrap(_ components: [String]) -> String {
        #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": ["# + components.joined(separator: ", ") + "]}]}}"
    }

    /// `count` exclusions `NOT *word*` (eight random letters) before `*`.
    static func substrings(_ count: Int, seed: UInt64) -> String {
        var random = SeededRandom(seed: seed ^ 0x5B57)
        let exclusions = (0..<count).map { _ in #"{"/": "*\#(word(&random, 8))*", "exclude": true}"# }
        return wrap(exclusions + [#"{"/": "*"}"#])
    }

    /// `count` rules `/word/*`, each naming two items of its own (`?*` and `word*`); rule
    /// `excluding` turned into an exclusion when given.
    static func campaign(_ count: Int, seed: UInt64, excluding: Int? = nil) -> String {
        var random = SeededRandom(seed: seed ^ 0xCA4E)
        let rules = (0..<count).map { index in
            let path = word(&random, 5)
            let query = #"{"\#(word(&random, 3))": "?*", "\#(word(&random, 4))": "\#(word(&random, 4))*"}"#
            return #"{"/": "/\#(path)/*", "?": \#(query)\#(index == excluding ? #", "exclude": true"# : "")}"#
        }
        return wrap(rules)
    }

    private static func word(_ random: inout SeededRandom, _ length: Int) -> String {
        String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(random.next() % 26))) })
    }
}
