import Foundation

/// The classify suite: `aasa classify` end to end, the way users run it. The release `aasa`
/// binary beside `aasa-bench` is spawned as a process on the real documents of
/// `corpus/domains/` (each on its host, `MAPPING.tsv`) and the real URLs of
/// `corpus/urls/combined_http_dedup.txt` (repeated, so that a run lasts long enough to time),
/// NDJSON records to `/dev/null`, timed from spawn to exit: loading the rules, reading,
/// classifying, formatting and writing are all in the figure.
///
/// `--jobs 1` and `--jobs 2` run interleaved, round after round, so a burst of noise from
/// the rest of the machine hits both; the jobs-2 ÷ jobs-1 wall-time ratio is taken per round.
/// Wall-clock figures (URLs/s and that ratio) are reported and checked against the targets of
/// issue 4 in the claims table, never asserted: on a shared two-core box another build takes a
/// core away from `--jobs 2` at will. What the baseline tracks is robust to that: the CPU time
/// a jobs-2 run spends ÷ a jobs-1 run's (the pipeline's overhead; it grows if the threads spin,
/// contend or repeat work). Every run's record count (from `--stats`) must equal its input line
/// count, or the suite fails.
enum ClassifySuite {
    struct Setup {
        var label: String
        var rulesArguments: [String]
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "classify")
        if let missing = context.store.sharedCorpusMissing(["domains/MAPPING.tsv", "urls/combined_http_dedup.txt"]) {
            report.skipped = "skipped: \(missing)"
            return report
        }
        guard let aasa = MemorySuite.releaseAASA(skipping: &report) else { return report }
        let quick = context.options.quick
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-bench-classify-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let domains = context.store.sharedCorpus + "/domains"
        let source = context.store.sharedCorpus + "/urls/combined_http_dedup.txt"
        let copies = quick ? 2 : 8
        let (input, lines) = try repeatedInput(source, copies: copies, in: folder)
        let empty = folder.appendingPathComponent("empty.txt").path
        try Data().write(to: URL(fileURLWithPath: empty))
        let artifact = folder.appendingPathComponent("rules.aasac").path
        let compiled = try ChildProcess.run(aasa, ["compile", domains, "-o", artifact])
        guard compiled.status == 0 else { throw BenchmarkError.runFailed("aasa compile \(domains) exited \(compiled.status)") }

        var setups = [Setup(label: "rules", rulesArguments: ["--rules", domains])]
        if !quick { setups.append(Setup(label: "compiled", rulesArguments: ["--compiled", artifact])) }
        let stats = folder.appendingPathComponent("stats.json").path
        context.say("_\(Format.count(lines)) URLs per run (\(copies) × combined_http_dedup.txt), \(context.profile.repetitions) rounds_")

        var table = Table(
            title: "`aasa classify` end to end: the 250 real documents on their hosts × \(Format.count(lines)) real URLs (\(copies) × `combined_http_dedup.txt`), NDJSON to /dev/null, median of \(context.profile.repetitions) interleaved rounds",
            columns: [
                "rules from", "--jobs", "wall time (median / p90)", "**URLs/s end to end**", "start-up (empty input)", "URLs/s after start-up",
                "**jobs 2 ÷ jobs 1** (median per round)", "CPU time (median)", "URLs per CPU-second", "CPU jobs 2 ÷ jobs 1",
            ])
        for setup in setups {
            func command(jobs: Int, input: String) -> [String] {
                ["classify"] + setup.rulesArguments + ["--input", input, "--jobs", String(jobs), "--stats", stats]
            }
            // Warm-up: the input into the page cache, the binary into memory.
            _ = try measured(aasa, command(jobs: 1, input: input), expecting: lines, stats: stats)
            var wall: [Int: [Double]] = [1: [], 2: []]
            var cpu: [Int: [Double]] = [1: [], 2: []]
            var startup: [Double] = []
            var ratios: [Double] = []
            var cpuRatios: [Double] = []
            for _ in 0..<context.profile.repetitions {
                let one = try measured(aasa, command(jobs: 1, input: input), expecting: lines, stats: stats)
                let two = try measured(aasa, command(jobs: 2, input: input), expecting: lines, stats: stats)
                startup.append(try measured(aasa, command(jobs: 1, input: empty), expecting: 0, stats: stats).wall)
                wall[1]?.append(one.wall)
                wall[2]?.append(two.wall)
                cpu[1]?.append(one.cpu)
                cpu[2]?.append(two.cpu)
                ratios.append(one.wall / two.wall)
                cpuRatios.append(two.cpu / max(one.cpu, 1))
            }
            let start = Statistics.quantile(startup, 0.5)
            let ratio = Statistics.quantile(ratios, 0.5)
            let cpuRatio = Statistics.quantile(cpuRatios, 0.5)
            for jobs in [1, 2] {
                let samples = wall[jobs] ?? []
                let median = Statistics.quantile(samples, 0.5)
                let rate = Double(lines) / (median / 1e9)
                let afterStartup = Double(lines) / (max(median - start, 1) / 1e9)
                table.rows.append([
                    setup.label == "rules" ? "`--rules` (JSON)" : "`--compiled` (artifact)", "\(jobs)",
                    "\(Format.milliseconds(median)) / \(Format.milliseconds(Statistics.quantile(samples, 0.9)))",
                    "**\(Format.rate(rate))**", Format.milliseconds(start), Format.rate(afterStartup),
                    jobs == 2 ? "**\(Format.ratio(ratio))**" : "",
                    Format.milliseconds(Statistics.quantile(cpu[jobs] ?? [], 0.5)),
                    Format.rate(Double(lines) / (max(Statistics.quantile(cpu[jobs] ?? [], 0.5), 1) / 1e9)),
                    jobs == 2 ? Format.ratio(cpuRatio) : "",
                ])
                report.timings["\(setup.label).jobs\(jobs).urls_per_second"] = rate
                report.timings["\(setup.label).jobs\(jobs).wall_ns"] = median
            }
            report.timings["\(setup.label).startup_ns"] = start
            report.timings["\(setup.label).jobs2_over_jobs1"] = ratio
            report.ratios["\(setup.label).cpu_jobs2_over_jobs1"] = TrackedRatio(
                value: cpuRatio, higherIsBetter: false,
                meaning: "classify CPU time with --jobs 2 ÷ with --jobs 1 (pipeline overhead), median per round")
        }
        report.counters["records_per_run"] = Double(lines)
        table.notes.append(
            "Command: `aasa classify --rules \(domains) --input INPUT --jobs N --stats FILE > /dev/null` (and `--compiled` on the artifact of `aasa compile \(domains)`), INPUT = `combined_http_dedup.txt` × \(copies). "
                + "Wall time from `posix_spawn` to `wait4`, so loading the rules counts; *start-up* is the same command on an empty input, *after start-up* divides by wall time minus start-up. "
                + "Each round runs jobs 1, jobs 2 and the empty input back to back; every run's record count (`--stats`) equals its line count. "
                + "CPU time: user + system time of the process (`wait4`), all threads; the CPU ratio is what the baseline tracks (lower is better), the wall figures are reported only. "
                + "Targets (issue 4): ≥ 3 M URLs/s with `--jobs 1`, ≥ 1.7× that with `--jobs 2` (claims table below; reported, not asserted).")
        context.emit(table, into: &report)
        try peakMemory(aasa, domains: domains, realInput: input, lines: lines, folder: folder, stats: stats, context, &report)
        return report
    }

    /// Peak RSS of whole runs: the real stream, and a stream of one-byte lines, where a batch
    /// capped by bytes alone would hold a million lines (and their records) per worker.
    static func peakMemory(
        _ aasa: String, domains: String, realInput: String, lines: Int, folder: URL, stats: String, _ context: RunContext,
        _ report: inout SuiteReport
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { return }
        let tiny = folder.appendingPathComponent("tiny.txt").path
        let tinyLines = 4 << 20
        try Data([UInt8](repeating: 0, count: tinyLines * 2).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "\n") })
            .write(to: URL(fileURLWithPath: tiny))
        var table = Table(
            title: "peak RSS of `aasa classify --rules` (GNU time), NDJSON to /dev/null",
            columns: ["input", "--jobs", "**peak RSS**", "records"])
        let record = folder.appendingPathComponent("rss.txt").path
        for (label, input, count) in [
            ("the real stream above (\(Format.count(lines)) lines)", realInput, lines),
            ("\(Format.count(tinyLines)) one-byte lines (`a`, each an error record)", tiny, tinyLines),
        ] {
            for jobs in [1, 2, 16] {
                let outcome = try ChildProcess.run(
                    "/usr/bin/time",
                    ["-f", "%M", "-o", record, aasa, "classify", "--rules", domains, "--input", input, "--jobs", String(jobs), "--stats", stats])
                guard outcome.status == 0 || outcome.status == 1 else {
                    throw BenchmarkError.runFailed("aasa classify --input \(input) --jobs \(jobs) exited \(outcome.status)")
                }
                let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any]
                let records = (object?["records"] as? NSNumber)?.intValue ?? -1
                guard records == count else { throw BenchmarkError.runFailed("aasa classify --input \(input): \(records) records for \(count) lines") }
                let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
                let peak = (Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? 0) * 1024
                table.rows.append([label, String(jobs), "**\(Format.bytes(peak))**", Format.count(records)])
                report.timings["peak_rss.\(input == tiny ? "tiny" : "real").jobs\(jobs)"] = Double(peak)
            }
        }
        table.notes.append(
            "A batch is at most 1 MiB and about 16 384 lines (counted in its first 64 KiB), a batch's records past 4 MiB are written as they come once its turn comes, and a worker reads no further while 2 × `--jobs` batches' records wait to be written, so memory is bounded by `--jobs`, not by the input; without the line cap, the one-byte lines needed 743 MB at `--jobs 16`. Reported, not compared with the baseline.")
        context.emit(table, into: &report)
    }

    /// One run's wall and CPU time in nanoseconds, after checking that it wrote a record per line.
    static func measured(_ aasa: String, _ arguments: [String], expecting lines: Int, stats: String) throws -> (wall: Double, cpu: Double) {
        let outcome = try ChildProcess.run(aasa, arguments)
        // Status 1 means some records are errors (the corpus has a few unreadable URLs).
        guard outcome.status == 0 || outcome.status == 1 else {
            throw BenchmarkError.runFailed("aasa \(arguments.joined(separator: " ")) exited \(outcome.status)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: stats))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let records = (object?["records"] as? NSNumber)?.intValue, records == lines else {
            throw BenchmarkError.runFailed("aasa \(arguments.joined(separator: " ")): \(String(describing: object?["records"])) records for \(lines) lines")
        }
        return (Double(outcome.nanoseconds), Double(outcome.cpuNanoseconds))
    }

    /// `source` written `copies` times into one file; returns its path and line count.
    static func repeatedInput(_ source: String, copies: Int, in folder: URL) throws -> (path: String, lines: Int) {
        var text = try Data(contentsOf: URL(fileURLWithPath: source))
        if text.last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
        let lines = text.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let path = folder.appendingPathComponent("urls.txt").path
        var all = Data(capacity: text.count * copies)
        for _ in 0..<copies { all.append(text) }
        try all.write(to: URL(fileURLWithPath: path))
        return (path, lines * copies)
    }
}
