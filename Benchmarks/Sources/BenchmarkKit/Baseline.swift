import Foundation

/// The CI baseline: deterministic counters and same-run ratios of one run, keyed
/// `suite.workload.figure` (like swift-nio's `Thresholds/`). Wall-clock times are not in it.
public struct Baseline: Codable, Sendable {
    public var date: String
    public var command: String
    public var machine: String
    public var allocator: String
    public var counters: [String: Double]
    public var ratios: [String: TrackedRatio]

    public init(report: BenchmarkReport) {
        date = report.date
        command = report.command
        machine = "\(report.machine.processors) × \(report.machine.cpu)"
        allocator = report.allocator
        counters = [:]
        ratios = [:]
        for suite in report.suites where suite.skipped == nil {
            for (key, value) in suite.counters { counters["\(suite.name).\(key)"] = value }
            for (key, value) in suite.ratios { ratios["\(suite.name).\(key)"] = value }
        }
    }

    public struct Comparison {
        /// One line per figure that moved past its tolerance the wrong way.
        public var failures: [String] = []
        /// Figures that improved past the tolerance (update the baseline), or that are new or
        /// missing.
        public var notes: [String] = []
        public var compared = 0

        public func markdown(baselinePath: String, tolerance: Double, ratioTolerance: Double) -> String {
            var out = "### Baseline comparison with `\(baselinePath)` (counters +\(Format.count(Int(tolerance)))%, instruction counts +\(Format.count(Int(min(tolerance, Baseline.instructionTolerance * 100))))%, coverage counts exactly, ratios may worsen by \(Format.count(Int(ratioTolerance)))%)\n\n"
            out += "\(compared) figures compared: \(failures.isEmpty ? "no regression" : "**\(failures.count) regression(s)**").\n"
            for failure in failures { out += "- REGRESSION \(failure)\n" }
            for note in notes { out += "- note: \(note)\n" }
            return out
        }
    }

    /// Compares `report` with this baseline, for the suites that ran and were not skipped.
    /// A counter fails when it grew by more than `tolerance` (a fraction), or by more than
    /// `instructionTolerance` for callgrind's instruction counts (deterministic: 10% would let
    /// the fleet's warm URL pass issue 19's target unnoticed); a coverage counter (documents,
    /// URLs, domains, records a run checks) fails when it changes at all, since fewer is not
    /// better there. A ratio fails when it worsened by more than `ratioTolerance`
    /// (higher-is-better: fell below `(1 - t) × baseline`; lower-is-better: rose above
    /// `baseline / (1 - t)`). A baseline figure this run did not measure fails, unless its
    /// suite says which part it skipped and why (`SuiteReport.partsSkipped`); a skipped suite
    /// is named in the notes with the count of its figures left uncompared.
    public func compare(with report: BenchmarkReport, tolerance: Double, ratioTolerance: Double) -> Comparison {
        var result = Comparison()
        let current = Baseline(report: report)
        let ran = Set(report.suites.filter { $0.skipped == nil }.map(\.name))
        func suite(of key: String) -> String { String(key.prefix { $0 != "." }) }
        if allocator.hasPrefix("jemalloc") != report.allocator.hasPrefix("jemalloc") {
            result.notes.append("baseline allocator \(allocator), this run \(report.allocator): allocation counters skipped")
        }
        var missing: [String] = []
        let partsSkipped = Dictionary(
            report.suites.filter { $0.skipped == nil }.map { ($0.name, $0.partsSkipped ?? []) }, uniquingKeysWith: { first, _ in first })
        for skippedSuite in report.suites {
            guard let reason = skippedSuite.skipped else { continue }
            let uncompared = Set(counters.keys).union(ratios.keys).filter { suite(of: $0) == skippedSuite.name }.count
            if uncompared > 0 { result.notes.append("suite \(skippedSuite.name) \(reason): \(uncompared) baseline figure(s) not compared") }
        }
        for key in counters.keys.sorted() where ran.contains(suite(of: key)) {
            guard let old = counters[key] else { continue }
            guard let new = current.counters[key] else {
                // Allocation counters need jemalloc.
                if key.contains("allocated"), !report.allocator.hasPrefix("jemalloc") { continue }
                missing.append(key)
                continue
            }
            result.compared += 1
            if Self.isCoverage(key) {
                if new != old { result.failures.append("\(key): \(Self.show(old)) → \(Self.show(new)) (coverage changed)") }
                continue
            }
            if old == 0 {
                if new > 0 { result.failures.append("\(key): \(Self.show(old)) → \(Self.show(new)) (was zero)") }
                continue
            }
            let change = (new - old) / old
            let tolerance = key.contains("instructions") ? min(tolerance, Self.instructionTolerance) : tolerance
            if change > tolerance {
                result.failures.append("\(key): \(Self.show(old)) → \(Self.show(new)) (+\(String(format: "%.1f", change * 100))%)")
            } else if change < -tolerance {
                result.notes.append("\(key) improved: \(Self.show(old)) → \(Self.show(new)) (\(String(format: "%.1f", change * 100))%); refresh the baseline with --write-baseline")
            }
        }
        for key in ratios.keys.sorted() where ran.contains(suite(of: key)) {
            guard let old = ratios[key] else { continue }
            guard let new = current.ratios[key] else {
                missing.append(key)
                continue
            }
            result.compared += 1
            let worse: Bool
            let change = (new.value - old.value) / old.value
            if old.higherIsBetter {
                worse = new.value < old.value * (1 - ratioTolerance)
            } else {
                worse = new.value > old.value / max(1e-9, 1 - ratioTolerance)
            }
            if worse {
                result.failures.append(
                    "\(key) (\(old.meaning)): \(Format.ratio(old.value)) → \(Format.ratio(new.value)) (\(change >= 0 ? "+" : "")\(String(format: "%.1f", change * 100))%)")
            }
        }
        // A figure of a suite that ran is missing: a part of it skipped for a reason it gives
        // (no shared corpus, no valgrind) is a note; otherwise something stopped measuring it.
        let explained = missing.filter { !(partsSkipped[suite(of: $0)] ?? []).isEmpty }
        let unexplained = missing.filter { (partsSkipped[suite(of: $0)] ?? []).isEmpty }
        for key in unexplained { result.failures.append("\(key): not measured in this run, and its suite skipped no part") }
        if !explained.isEmpty {
            let reasons = Set(explained.map(suite(of:))).sorted().flatMap { partsSkipped[$0] ?? [] }
            result.notes.append(
                "\(explained.count) baseline figure(s) not measured (skipped: \(reasons.joined(separator: "; "))), e.g. \(explained.prefix(3).joined(separator: ", "))")
        }
        let newKeys = Set(current.counters.keys).union(current.ratios.keys)
            .subtracting(counters.keys).subtracting(ratios.keys)
        if !newKeys.isEmpty { result.notes.append("\(newKeys.count) figure(s) not in the baseline, e.g. \(newKeys.sorted().prefix(3).joined(separator: ", "))") }
        return result
    }

    /// How far callgrind's instruction counts may grow: they are the same on every run of the
    /// same build, and move by well under this between the machines CI has run on.
    static let instructionTolerance = 0.03

    /// Counters that say how much a run checked (documents, URLs, domains, records, whether an
    /// analysis report is whole): any change is a change of what the run measures, not of how
    /// fast it measures it.
    static func isCoverage(_ key: String) -> Bool {
        let figure = key.split(separator: ".").last.map(String.init) ?? key
        return ["documents", "urls", "domains", "routed_urls", "records_per_run", "whole"].contains(figure)
    }

    static func show(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? Format.count(Int(value)) : String(format: "%.3g", value)
    }
}

/// The speed claims of issues 3 and 4 ("Speed"), evaluated from this run's match and classify
/// suites.
enum Claims {
    static func evaluate(_ report: BenchmarkReport) -> [Claim] {
        var claims = classify(report)
        guard let match = report.suites.first(where: { $0.name == "match" && $0.skipped == nil }) else { return claims }
        if let same = match.ratios["paths-1000.speedup_vs_reference"],
            let unseen = match.ratios["paths-1000.speedup_vs_reference_unseen"]
        {
            let worst = min(same.value, unseen.value)
            claims.append(
                Claim(
                    claim: "(a) 1 000-rule document: lazy DFA ≥ 100× faster than the reference, same run",
                    measured: "\(Format.ratio(worst)): the lower of \(Format.ratio(same.value)) (same URLs, repeated) and \(Format.ratio(unseen.value)) (DFA on unseen URLs)",
                    holds: worst >= 100))
        }
        if let unseen = match.ratios["scaling.dfa_time_128k_over_10"], let repeated = match.timings["scaling.dfa_repeated_time_128k_over_10"] {
            let spread = [match.timings["scaling.dfa_time_128k_over_10_pairs_q25"], match.timings["scaling.dfa_time_128k_over_10_pairs_q75"]]
                .compactMap { $0 }.map(Format.ratio).joined(separator: "–")
            let separate = match.timings["scaling.dfa_time_128k_over_10_separate"].map { "; the table's separate passes: \(Format.ratio($0))" } ?? ""
            let windows = [match.timings["scaling.dfa_time_128k_over_10_window_min"], match.timings["scaling.dfa_time_128k_over_10_window_max"]]
                .compactMap { $0 }.map(Format.ratio).joined(separator: "–")
            claims.append(
                Claim(
                    claim: "(b) lazy DFA per-URL time changes by < 2× from 10 rules to 128 KB of rules (the largest document Apple accepts)",
                    measured: "\(Format.ratio(unseen.value)) on unseen URLs, median of back-to-back pairs sampled over the run (quartiles \(spread), window medians \(windows)\(separate); \(Format.ratio(repeated)) on repeated URLs), path rules, ns/URL at 128 KB ÷ at 10",
                    holds: unseen.value < 2 && unseen.value > 0.5))
        }
        return claims
    }

    /// Issue 4: `classify` end to end with `--rules` on the real corpus.
    static func classify(_ report: BenchmarkReport) -> [Claim] {
        guard let suite = report.suites.first(where: { $0.name == "classify" && $0.skipped == nil }),
            let one = suite.timings["rules.jobs1.urls_per_second"], let two = suite.timings["rules.jobs2.urls_per_second"],
            let ratio = suite.timings["rules.jobs2_over_jobs1"]
        else { return [] }
        return [
            Claim(
                claim: "(#4) `aasa classify --jobs 1`, real URLs × real documents, NDJSON: ≥ 3 M URLs/s end to end",
                measured: "\(Format.rate(one)) (median wall time, start-up included)", holds: one >= 3_000_000),
            Claim(
                claim: "(#4) `--jobs 2` ≥ 1.7× `--jobs 1`",
                measured: "\(Format.ratio(ratio)) (median of per-round wall-time ratios; \(Format.rate(two)) at jobs 2)", holds: ratio >= 1.7),
        ]
    }
}
