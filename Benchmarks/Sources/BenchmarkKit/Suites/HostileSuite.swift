import AASAKit
import Foundation

/// The hostile suite: documents and URLs written to hurt, the cost of each bounded, measured
/// as users meet it. A fleet loads files written by anyone, so one attacker's file must cost a
/// bounded amount of time and memory however its URLs are chosen.
///
/// Three matching workloads, each a document generated at run time and random paths from a
/// seed:
/// - `new-subsets`: one rule `/*a` and twenty `?`, against paths of random `a`s and `b`s, where
///   nearly every byte puts the lazy DFA in a subset it has never met (the search is simulated
///   once its states keep being new);
/// - `star-chains`: `*a` and two hundred `?` in the four path modes, the query and the
///   fragment, against the same kind of path (six automata, each with subsets of hundreds of
///   positions);
/// - `star-runs`: one rule of a thousand `*a` and a `b`, against paths of `a`s (each `*`
///   multiplies the ways to match: the URL work budget refuses the URL).
///
/// Each is decided in-process by a fresh `DFAMatcher` a pass (each hostile URL is new to a
/// server) and by the reference matcher. The first two are checked for agreement; `star-runs`
/// must be refused by the engine, URL by URL (the suite fails otherwise), and is not compared:
/// the reference measures its work its own way and decides these URLs (docs/limits.md, *The
/// work budget of a URL*). The counters of one fresh pass (states built, cache clears,
/// simulated searches, refusals) are deterministic and go to the baseline. A fourth workload, `query-items`, is about memory, and runs as users run it:
/// `aasa classify` in a child process on documents of thousands of query item names, each met
/// by a URL naming all of them (a cache each), under a small `dfa-cache-bytes`; its peak RSS is
/// reported beside a run at the default. Times and RSS are reported, never compared.
enum HostileSuite {
    struct Workload {
        var name: String
        var meaning: String
        var json: String
        var urls: [String]
        /// Every URL must be refused by the engine's work budget, and is not compared with the
        /// reference.
        var refused = false
    }

    static let domain = "hostile.example"

    static func workloads(_ context: RunContext) -> [Workload] {
        let quick = context.options.quick
        var random = SeededRandom(seed: context.options.seed ^ 0x4057_11E5)
        func ab(_ count: Int) -> String {
            var bytes = [UInt8](repeating: 0, count: count)
            for index in bytes.indices { bytes[index] = random.next() & 1 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "b") }
            return String(decoding: bytes, as: UTF8.self)
        }
        func document(_ components: [String]) -> String {
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[\#(components.joined(separator: ","))]}]}}"#
        }
        let pathBytes = quick ? 16_000 : 60_000
        let chain = "*a" + String(repeating: "?", count: 200)
        var modes: [String] = []
        for caseSensitive in [true, false] {
            for percentEncoded in [true, false] {
                modes.append(#"{"/":"\#(chain)","caseSensitive":\#(caseSensitive),"percentEncoded":\#(percentEncoded)}"#)
            }
        }
        modes.append(#"{"/":"/z","?":"\#(chain)"}"#)
        modes.append(##"{"/":"/y","#":"\##(chain)"}"##)
        return [
            Workload(
                name: "new-subsets", meaning: "`/*a` + 20 `?`, random `a`/`b` paths of \(Format.count(pathBytes)) bytes",
                json: document([#"{"/":"/*a\#(String(repeating: "?", count: 20))"}"#]),
                urls: (0..<(quick ? 4 : 20)).map { _ in "https://\(domain)/\(ab(pathBytes))" }),
            Workload(
                name: "star-chains", meaning: "`*a` + 200 `?` in four path modes, query and fragment; random `a`/`b` paths of \(Format.count(pathBytes)) bytes",
                json: document(modes),
                urls: (0..<(quick ? 2 : 10)).map { _ in "https://\(domain)/\(ab(pathBytes))" }),
            Workload(
                name: "star-runs", meaning: "`/` + 1 000 × `*a` + `b`, paths of \(Format.count(pathBytes)) `a`s (refused by `url-work`)",
                json: document([#"{"/":"/\#(String(repeating: "*a", count: 1_000))b"}"#]),
                urls: (0..<(quick ? 4 : 20)).map { index in "https://\(domain)/" + String(repeating: "a", count: pathBytes - index) },
                refused: true),
        ]
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "hostile")
        let repetitions = context.profile.repetitions
        var table = Table(
            title: "hostile documents: each URL decided by a fresh matcher (median of \(repetitions) passes) and by the reference, same URLs",
            columns: [
                "workload", "URLs", "**DFA time a URL**", "reference time a URL", "reference ÷ DFA", "states built (one pass)", "cache clears",
                "simulated searches", "refused (`url-work`)", "peak RSS growth",
            ])
        for workload in workloads(context) {
            context.say("_hostile \(workload.name): \(workload.urls.count) URLs_")
            let parsed = try AASADocument(bytes: Array(workload.json.utf8))
            let compiled = try CompiledDocument(document: parsed, domain: domain)
            let reference = ReferenceMatcher(document: parsed, domain: domain)
            let batch = URLBatch(workload.urls)

            // Deterministic counters: one fresh pass, under a reset peak mark, counting refusals.
            let peakReset = ProcessMemory.resetPeakResident()
            let residentBefore = ProcessMemory.status("VmRSS")
            let counting = DFAMatcher(compiled)
            let refusals = workload.urls.count { url in
                do {
                    _ = try counting.decide(url, app: nil)
                    return false
                } catch {
                    guard case .workLimitExceeded = error as? URLSplitError else { return false }
                    return true
                }
            }
            let statistics = counting.cacheStatistics
            if workload.refused, refusals != workload.urls.count {
                throw BenchmarkError.runFailed("hostile \(workload.name): \(refusals) of \(workload.urls.count) URLs refused by url-work, where all should be")
            }

            // Each pass a fresh matcher, interleaved with the reference's passes.
            var dfaTimes: [Double] = []
            var referenceTimes: [Double] = []
            for _ in 0..<repetitions {
                let fresh = DFAMatcher(compiled)
                let dfa = Clock.measure { EngineLoops.dfaBytes(fresh, batch) }
                blackHole(dfa.value)
                dfaTimes.append(Double(dfa.nanoseconds) / Double(batch.count))
                let oracle = Clock.measure { EngineLoops.reference(reference, batch) }
                blackHole(oracle.value)
                referenceTimes.append(Double(oracle.nanoseconds) / Double(batch.count))
            }
            let peak = peakReset ? ProcessMemory.status("VmHWM") : nil
            let growth = peak.flatMap { peak in residentBefore.map { max(0, Int(peak) - Int($0)) } }
            if !workload.refused {
                context.checkAgreement(
                    suite: "hostile", label: "hostile-\(workload.name)", document: "hostile \(workload.name) (seed \(context.options.seed))",
                    dfa: DFAMatcher(compiled), timed: counting, reference: reference, urls: workload.urls, into: &report)
            }

            let dfa = Statistics.quantile(dfaTimes, 0.5), oracle = Statistics.quantile(referenceTimes, 0.5)
            table.rows.append([
                workload.meaning, Format.count(batch.count), "**" + Format.milliseconds(dfa) + "**", Format.milliseconds(oracle),
                Format.ratio(oracle / dfa), Format.count(statistics.statesBuilt), Format.count(statistics.clears),
                Format.count(statistics.fallbacks), Format.count(refusals), growth.map { Format.bytes($0) } ?? "n/a",
            ])
            report.counters["\(workload.name).dfa_states_built"] = Double(statistics.statesBuilt)
            report.counters["\(workload.name).dfa_cache_clears"] = Double(statistics.clears)
            report.counters["\(workload.name).dfa_fallbacks"] = Double(statistics.fallbacks)
            report.counters["\(workload.name).refused"] = Double(refusals)
            report.timings["\(workload.name).dfa_ns_per_url"] = dfa
            report.timings["\(workload.name).reference_ns_per_url"] = oracle
        }
        table.notes.append(
            "A fresh matcher a pass: each hostile URL is new to the server that meets it. Simulated searches: searches read by NFA simulation, after 8 cache clears or once their states keep being new (`dfa-cache-bytes` in docs/limits.md). Peak RSS growth: the high-water mark (`VmHWM`, reset through `/proc/self/clear_refs` when the workload starts) over the workload's passes, minus the RSS when it started.")
        context.emit(table, into: &report)
        try queryItems(context, into: &report)
        return report
    }

    /// `aasa classify` on documents of thousands of query item names, each met by one URL naming
    /// them all, at the default `dfa-cache-bytes` and at 4M: peak RSS and wall time of each, and
    /// the same records.
    static func queryItems(_ context: RunContext, into report: inout SuiteReport) throws {
        guard let aasa = MemorySuite.releaseAASA(skipping: &report) else { return }
        let quick = context.options.quick
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-bench-hostile-\(getpid())")
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Enough documents that their caches pass the thread's budget at 4M (16 MiB) several
        // times over: one thread (`--jobs 1`), so that every URL's caches add to the same account.
        let documents = quick ? 8 : 12, names = 3_000
        var input = ""
        for index in 0..<documents {
            // Names of its own: identical documents would share one compile, and its caches.
            let items = (0..<names).map { #""n\#(index)_\#($0)":"v*""# }.joined(separator: ",")
            let json = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/q","?":{\#(items)}}]}]}}"#
            try Data(json.utf8).write(to: rules.appendingPathComponent("q\(index).\(domain).json"))
            input += "https://q\(index).\(domain)/q?" + (0..<names).map { "n\(index)_\($0)=v" }.joined(separator: "&") + "\n"
        }
        let urls = folder.appendingPathComponent("urls.txt").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: urls))
        var table = Table(
            title: "`aasa classify` on \(documents) documents of \(Format.count(names)) query item names, each met by one URL naming them all (\(Format.count(documents * names)) lazy caches)",
            columns: ["`--limit dfa-cache-bytes`", "wall time", "**peak RSS**", "cache releases", "records"])
        var outputs: [Data] = []
        for (label, limit) in [("default (128M)", [String]()), ("4M", ["--limit", "dfa-cache-bytes=4M"])] {
            let output = folder.appendingPathComponent("out-\(outputs.count).ndjson").path
            let stats = folder.appendingPathComponent("stats.json").path
            let run = try ChildProcess.run(aasa, ["classify", "--rules", rules.path, "--input", urls, "--jobs", "1", "--stats", stats, "--quiet"] + limit, stdout: output)
            guard run.status == 0 else { throw BenchmarkError.runFailed("aasa classify (query items, \(label)) exited \(run.status)") }
            let records = try Data(contentsOf: URL(fileURLWithPath: output))
            outputs.append(records)
            let counts = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))) as? [String: Any]
            let releases = counts?["cache_releases"] as? Int
            if let releases { report.counters["query-items.cache_releases_\(limit.isEmpty ? "default" : "4m")"] = Double(releases) }
            table.rows.append([
                label, Format.milliseconds(Double(run.nanoseconds)), "**" + Format.bytes(run.peakResidentBytes) + "**", releases.map { Format.count($0) } ?? "n/a",
                Format.count(records.count { $0 == 0x0A }),
            ])
            report.timings["query-items.peak_rss_\(limit.isEmpty ? "default" : "4m")"] = Double(run.peakResidentBytes)
        }
        if outputs.count == 2, outputs[0] != outputs[1] {
            throw BenchmarkError.runFailed("aasa classify wrote different records at dfa-cache-bytes=4M than at the default (query items)")
        }
        table.notes.append("Each empty cache is about 3 KB, charged to its thread's account when made (docs/limits.md, `dfa-cache-bytes`). The records are the same at both limits (the suite fails otherwise). RSS is reported, not compared with the baseline.")
        context.emit(table, into: &report)
    }
}
