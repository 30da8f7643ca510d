import AASAKit
import Foundation

/// Everything measured for one document size.
struct WorkloadResult {
    var title: String
    /// The size column of the tables: "1 000", "128 KB (5 180)", "10 000 (stress)".
    var label: String
    /// The largest document Apple accepts (`--sizes 128k`).
    var fillsAppleLimit: Bool
    /// Over Apple's 128 KB: parsed with raised limits.
    var stress: Bool
    var rules: Int
    var excludeRules: Int
    var anyOnePatterns: Int
    var documentBytes: Int
    var realPaths: Int
    var generatedPaths: Int
    /// Engine name → per-round thread-CPU nanoseconds for the whole stream.
    var rounds: [String: [Double]] = [:]
    /// Engine name → per-round wall-clock nanoseconds for the whole stream.
    var wallRounds: [String: [Double]] = [:]
    /// Engine name → thread-CPU nanoseconds of the first, cold pass (lazy DFAs build their
    /// states here).
    var coldPass: [String: Double] = [:]
    /// Engine name → thread-CPU milliseconds to build from the rules.
    var buildMilliseconds: [String: Double] = [:]
    /// Engine name → paths whose first rule differs from ours.
    var disagreements: [String: Int] = [:]
    /// Engine name → paths on which the engine reported a failure.
    var errors: [String: Int] = [:]
    var matchedPaths = 0
    var oracleSample = 0
    var oracleDisagreements = 0
    var ourStatesBuilt = 0
    var ourCacheClears = 0
    var ourFallbacks = 0
    var ourCacheBytes = 0
    var ourNFAStates = 0
    var bigStatesBuilt = 0
    var bigCacheClears = 0
    var bigCacheBytes = 0
    var hyperscanDatabaseBytes = 0
    var hyperscanScratchBytes = 0

    var paths: Int { realPaths + generatedPaths }

    func nsPerPath(_ engine: String) -> Double { Harness.median(rounds[engine] ?? []) / Double(paths) }
    func wallNsPerPath(_ engine: String) -> Double { Harness.median(wallRounds[engine] ?? []) / Double(paths) }
}

enum EngineName {
    static let ours = "ours"
    static let oursDFA = "ours-lazy-dfa-only"
    static let oursBigCache = "ours-cache-as-re2"
    static let re2 = "re2-set"
    static let hyperscan = "hyperscan"
}

enum Report {
    /// One Markdown table row.
    private static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |\n" }

    /// A header row and its alignment row (first column left, the others right).
    private static func header(_ cells: [String]) -> String {
        row(cells) + "|---" + String(repeating: "|---:", count: cells.count - 1) + "|\n"
    }

    private static func milliseconds(_ nanoseconds: Double?) -> String { format((nanoseconds ?? .nan) / 1e6, 1) }

    static func markdown(_ results: [WorkloadResult], machine: Machine, runs: Int, re2MaxMemory: Int64) -> String {
        let budget = "\(re2MaxMemory >> 20) MiB"
        var out = "Peers: first matching rule, ours vs RE2::Set vs Hyperscan. "
        out += "Thread CPU time, median of \(runs) runs after a warm-up pass, engines interleaved; \(machine.date), "
        out += "\(machine.logicalCPUs) logical CPUs, \(machine.cpu), load average at start \(machine.loadAverage); "
        out += "RE2::Set max_mem \(budget) (RE2's default, 8 MiB, is too small for big sets).\n\n"
        out += header([
            "workload", "ours ns/path", "RE2::Set ns/path", "Hyperscan ns/path", "time ours/RE2", "time ours/Hyperscan",
            "ours, \(budget) cache ns/path", "time ours \(budget)/RE2", "time ours \(budget)/Hyperscan", "disagreements",
        ])
        for r in results {
            let ours = r.nsPerPath(EngineName.ours)
            let big = r.nsPerPath(EngineName.oursBigCache)
            let re2 = r.nsPerPath(EngineName.re2)
            let hs = r.nsPerPath(EngineName.hyperscan)
            let bad = r.disagreements.values.reduce(0, +) + r.oracleDisagreements
            out += row([
                r.title, format(ours, 1), format(re2, 1), format(hs, 1), format(ours / re2, 2), format(ours / hs, 2),
                format(big, 1), format(big / re2, 2), format(big / hs, 2), "\(bad)",
            ])
        }
        let defaultBudget = "\(Configuration().automata.cacheCapacity >> 20) MiB"
        out += "\nTime ratio ours/peer: below 1.00 means ours is faster. \"ours\" is `DFAMatcher` with the library's "
        out += "default configuration (lazy-DFA cache budget \(defaultBudget) per automaton); "
        out += "\"ours, \(budget) cache\" gives it the budget RE2 gets. "
        out += "Ours reads the whole URL (split, host check, trailing-slash trim, path DFA, first rule for the app); "
        out += "the peers read the trimmed path only.\n\n"

        let headline = [EngineName.ours, EngineName.oursBigCache, EngineName.re2, EngineName.hyperscan]
        out += header([
            "rules", "ours paths/s", "ours, \(budget) cache paths/s", "RE2::Set paths/s", "Hyperscan paths/s",
            "wall: ours ns/path", "wall: ours, \(budget) cache ns/path", "wall: RE2::Set ns/path", "wall: Hyperscan ns/path",
        ])
        for r in results {
            out += row(
                [r.label] + headline.map { rate(r.nsPerPath($0)) }
                    + headline.map { format(r.wallNsPerPath($0), 1) })
        }
        out += "\nWall-clock medians are for reference: on a shared machine they include time other processes held the core.\n\n"

        out += header([
            "rules", "document bytes", "paths matching a rule", "ours build ms", "ours cold pass ms",
            "ours \(budget) cold pass ms", "RE2 build ms", "RE2 cold pass ms", "Hyperscan build ms",
            "Hyperscan cold pass ms", "Hyperscan db + scratch bytes",
        ])
        for r in results {
            out += row([
                r.label, grouped(r.documentBytes), format(100 * Double(r.matchedPaths) / Double(r.paths), 1) + "%",
                format(r.buildMilliseconds[EngineName.ours] ?? .nan, 1), milliseconds(r.coldPass[EngineName.ours]),
                milliseconds(r.coldPass[EngineName.oursBigCache]),
                format(r.buildMilliseconds[EngineName.re2] ?? .nan, 1), milliseconds(r.coldPass[EngineName.re2]),
                format(r.buildMilliseconds[EngineName.hyperscan] ?? .nan, 1), milliseconds(r.coldPass[EngineName.hyperscan]),
                "\(grouped(r.hyperscanDatabaseBytes)) + \(grouped(r.hyperscanScratchBytes))",
            ])
        }
        out += "\nBuild: ours = JSON parse + `CompiledDocument` (NFA, and a compile-time table where the plan picks "
        out += "one; otherwise DFA states are built lazily, during the cold pass); RE2 = `Set::Add` + `Compile` (its DFA is lazy too); Hyperscan = `hs_compile_multi` + scratch "
        out += "(eager). Cold pass = the first pass over the stream, with empty caches. All thread CPU time.\n\n"

        out += header([
            "rules", "ours ns/path", "ours, \(budget) cache ns/path", "lazy DFA only, \(budget) cache ns/path",
            "NFA states", "DFA states built", "cache clears", "NFA fallbacks", "cache bytes at end",
            "\(budget): states built", "\(budget): clears", "\(budget): cache bytes at end",
            "oracle sample (disagreements)",
        ])
        for r in results {
            out += row([
                r.label, format(r.nsPerPath(EngineName.ours), 1), format(r.nsPerPath(EngineName.oursBigCache), 1),
                format(r.nsPerPath(EngineName.oursDFA), 1),
                grouped(r.ourNFAStates), grouped(r.ourStatesBuilt), "\(r.ourCacheClears)", "\(r.ourFallbacks)",
                grouped(r.ourCacheBytes), grouped(r.bigStatesBuilt), "\(r.bigCacheClears)", grouped(r.bigCacheBytes),
                "\(r.oracleSample) (\(r.oracleDisagreements))",
            ])
        }
        out += "\nDiagnostics: \"lazy DFA only\" is our path automaton alone, searched directly on the trimmed "
        out += "path with RE2's budget (no URL split, host check or decision step): the difference to the column "
        out += "before it is the cost of the matcher around the automaton. Counters are those of each `DFAMatcher`'s "
        out += "caches after all passes (deterministic for a given seed). The oracle is `ReferenceMatcher` "
        out += "(SPEC-only backtracking) on evenly spaced paths.\n"
        return out
    }

    private static func rate(_ nsPerPath: Double) -> String {
        let perSecond = 1e9 / nsPerPath
        return perSecond >= 1e6 ? format(perSecond / 1e6, 2) + " M" : format(perSecond / 1e3, 1) + " k"
    }

    static func json(
        _ results: [WorkloadResult], machine: Machine, runs: Int, re2MaxMemory: Int64, quick: Bool, corpus: String?,
        hyperscanVersion: String
    ) -> Data {
        let workloads: [[String: Any]] = results.map { r in
            var engines: [String: Any] = [:]
            for (name, rounds) in r.rounds {
                var entry: [String: Any] = [
                    "ns_per_path_median": Harness.median(rounds) / Double(r.paths),
                    "paths_per_second_median": 1e9 * Double(r.paths) / Harness.median(rounds),
                    "round_cpu_ns": rounds,
                    "wall_ns_per_path_median": Harness.median(r.wallRounds[name] ?? []) / Double(r.paths),
                    "round_wall_ns": r.wallRounds[name] ?? [],
                    "cold_pass_ns": r.coldPass[name] ?? 0,
                    "build_ms": r.buildMilliseconds[name] ?? 0,
                    "errors": r.errors[name] ?? 0,
                ]
                if name != EngineName.ours { entry["disagreements_with_ours"] = r.disagreements[name] ?? 0 }
                engines[name] = entry
            }
            return [
                "title": r.title,
                "rules": r.rules,
                "size_label": r.label,
                "fills_apple_limit": r.fillsAppleLimit,
                "stress_size": r.stress,
                "exclude_rules": r.excludeRules,
                "patterns_with_any_one": r.anyOnePatterns,
                "document_bytes": r.documentBytes,
                "real_paths": r.realPaths,
                "generated_paths": r.generatedPaths,
                "paths_matching_a_rule": r.matchedPaths,
                "engines": engines,
                "ratio_time_ours_over_re2": r.nsPerPath(EngineName.ours) / r.nsPerPath(EngineName.re2),
                "ratio_time_ours_over_hyperscan": r.nsPerPath(EngineName.ours) / r.nsPerPath(EngineName.hyperscan),
                "ours_counters": [
                    "nfa_states": r.ourNFAStates, "dfa_states_built": r.ourStatesBuilt,
                    "cache_clears": r.ourCacheClears, "nfa_fallbacks": r.ourFallbacks, "cache_bytes": r.ourCacheBytes,
                ],
                "ours_cache_as_re2_counters": [
                    "cache_capacity_bytes": re2MaxMemory, "dfa_states_built": r.bigStatesBuilt,
                    "cache_clears": r.bigCacheClears, "cache_bytes": r.bigCacheBytes,
                ],
                "ratio_time_ours_cache_as_re2_over_re2": r.nsPerPath(EngineName.oursBigCache) / r.nsPerPath(EngineName.re2),
                "ratio_time_ours_cache_as_re2_over_hyperscan":
                    r.nsPerPath(EngineName.oursBigCache) / r.nsPerPath(EngineName.hyperscan),
                "hyperscan_database_bytes": r.hyperscanDatabaseBytes,
                "hyperscan_scratch_bytes": r.hyperscanScratchBytes,
                "oracle_sample": r.oracleSample,
                "oracle_disagreements": r.oracleDisagreements,
            ]
        }
        let root: [String: Any] = [
            "suite": "peers",
            "question": "index of the first rule whose path glob matches the URL path",
            "date": machine.date,
            "machine": ["cpu": machine.cpu, "logical_cpus": machine.logicalCPUs, "load_average_at_start": machine.loadAverage],
            "threads": 1,
            "runs": runs,
            "statistic":
                "median of runs after one warm-up pass; ns_per_path and ratios from thread CPU time, wall time alongside",
            "quick": quick,
            "corpus": corpus ?? NSNull(),
            "re2_max_mem_bytes": re2MaxMemory,
            "hyperscan_version": hyperscanVersion,
            "restriction": GlobTranslation.restrictionSummary,
            "workloads": workloads,
        ]
        return (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}

extension GlobTranslation {
    static let restrictionSummary =
        "Path-only documents with default flags (case-sensitive, percent-encoded); every pattern starts with one '/', "
        + "has no trailing '/', no '$(' variable and no '**'; 'P/*' is translated to 'P(?:/.*)?' (SPEC 6); the peers see the "
        + "URL path with its trailing '/' run removed, as our engine compares it. Under these conditions 'first rule whose "
        + "glob matches the path' is exactly our engine's deciding rule."
}
