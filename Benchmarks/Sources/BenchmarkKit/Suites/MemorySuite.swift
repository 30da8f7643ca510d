import Foundation

/// The memory suite: each workload in a fresh process, once on jemalloc (`aasa-bench`) and once
/// on glibc malloc (`aasa-bench-sysalloc`), side by side: peak RSS, heap in use at the end, and,
/// from jemalloc's counters, the bytes the workload allocated and those one warm lazy DFA pass
/// allocated.
enum MemorySuite {
    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "memory")
        let directory = executableDirectory()
        let jemalloc = directory + "/aasa-bench"
        let system = directory + "/aasa-bench-sysalloc"
        guard FileManager.default.isExecutableFile(atPath: jemalloc), FileManager.default.isExecutableFile(atPath: system) else {
            report.skipped = "skipped: \(jemalloc) and \(system) must both be built (swift build -c release)"
            return report
        }
        let sharedPresent = context.store.sharedCorpusMissing(["aasa/real", "urls/combined_http_dedup.txt", "domains/MAPPING.tsv"]) == nil
        var table = Table(
            title: "memory per workload, one process each, jemalloc vs glibc malloc (\(context.options.quick ? "quick" : "full") sizes)",
            columns: [
                "workload", "peak RSS growth jemalloc", "peak RSS growth glibc", "peak RSS (jemalloc / glibc)", "RSS before", "heap in use at end (jemalloc / glibc)",
                "bytes allocated (jemalloc)", "warm DFA loop: bytes/decision", "time jemalloc", "time glibc",
            ])
        for (name, meaning) in MemoryProbe.workloads {
            if !sharedPresent, name == "real" || name == "multi-domain" {
                table.rows.append([meaning, "skipped: shared corpus absent", "", "", "", "", "", "", "", ""])
                report.partsSkipped = (report.partsSkipped ?? []) + ["\(name): shared corpus absent"]
                continue
            }
            context.say("_memory probe \(name)…_")
            let a = try probe(jemalloc, name, context)
            let b = try probe(system, name, context)
            table.rows.append([
                meaning, "**" + Format.bytes(Int(a.peakResidentBytes) - Int(a.residentBeforeBytes)) + "**",
                "**" + Format.bytes(Int(b.peakResidentBytes) - Int(b.residentBeforeBytes)) + "**",
                "\(Format.bytes(Int(a.peakResidentBytes))) / \(Format.bytes(Int(b.peakResidentBytes)))",
                Format.bytes(Int(a.residentBeforeBytes)),
                "\(a.heapInUseBytes.map { Format.bytes(Int($0)) } ?? "n/a") / \(b.heapInUseBytes.map { Format.bytes(Int($0)) } ?? "n/a")",
                a.allocatedBytes.map { Format.bytes(Int($0)) } ?? "n/a",
                a.loopAllocatedBytes.map { a.loopDecisions > 0 ? String(format: "%.1f", Double($0) / Double(a.loopDecisions)) : "—" } ?? "n/a",
                Format.milliseconds(Double(a.nanoseconds)), Format.milliseconds(Double(b.nanoseconds)),
            ])
            if let bytes = a.allocatedBytes { report.counters["\(name).allocated_bytes"] = Double(bytes) }
            if let bytes = a.loopAllocatedBytes { report.counters["\(name).loop_bytes_allocated"] = Double(bytes) }
            if !a.peakIsWorkloadOnly || !b.peakIsWorkloadOnly { table.notes.append("\(name): the peak mark could not be reset; its peak RSS includes loading the inputs.") }
            report.timings["\(name).peak_rss_jemalloc"] = Double(a.peakResidentBytes)
            report.timings["\(name).peak_rss_glibc"] = Double(b.peakResidentBytes)
        }
        var note = "Peak RSS: the kernel's high-water mark (`VmHWM`) over the workload alone (reset through `/proc/self/clear_refs` when it starts); growth: that peak minus the RSS when the workload started (Swift runtime, Foundation and the inputs read from disk, such as the real URL list). "
        note += "Heap in use: jemalloc `stats.allocated` after an `epoch` refresh, glibc `mallinfo2` (`uordblks + hblkhd`). "
        note += "Bytes allocated: jemalloc `thread.allocated` over the workload (frees not subtracted); glibc has no such counter. "
        note += "RSS is reported, not compared with the baseline."
        table.notes.append(note)
        context.emit(table, into: &report)
        return report
    }

    /// The release `aasa` beside this harness, or `nil` with `report` marked skipped: the
    /// suites that run the CLI as users do need it built.
    static func releaseAASA(skipping report: inout SuiteReport) -> String? {
        let aasa = executableDirectory() + "/aasa"
        guard FileManager.default.isExecutableFile(atPath: aasa) else {
            report.skipped = "skipped: \(aasa) must be built (swift build -c release)"
            return nil
        }
        return aasa
    }

    static func executableDirectory() -> String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    static func probe(_ executable: String, _ name: String, _ context: RunContext) throws -> MemoryProbe.Figures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = ["--probe", name, "--shared", context.options.sharedDirectory, "--corpus", context.options.corpusDirectory,
                         "--seed", String(context.options.seed), "--json", "/dev/null"]
        if context.options.quick { arguments.append("--quick") }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = output.split(separator: "\n").first(where: { $0.hasPrefix("PROBE ") })
        else {
            throw BenchmarkError.probeFailed("\(executable) --probe \(name) exited \(process.terminationStatus): \(output.suffix(300))")
        }
        return try JSONDecoder().decode(MemoryProbe.Figures.self, from: Data(line.dropFirst(6).utf8))
    }
}
