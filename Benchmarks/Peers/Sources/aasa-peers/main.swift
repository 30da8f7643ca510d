// aasa-peers: our DFA matcher against RE2::Set and Hyperscan on the same path rules and the same
// URL paths, in one process, one thread. For each document size it checks that all three give
// the same first matching rule for every path (exit 1 on any disagreement or engine failure),
// then reports ns/path (median of runs after a warm-up pass) and time ratios ours/peer.
//
//   aasa-peers [--quick] [--json FILE] [--sizes 10,100,1000,128k] [--runs 5] [--seed N]
//              [--corpus FILE] [--re2-max-mem-mib 1024] [--profile ENGINE]
import AASAKit
import CPeers
import Foundation

/// Prints and flushes, so progress shows up when the output is piped.
func say(_ text: String) {
    print(text)
    fflush(nil)
}

/// One document size of the run.
enum Size: Equatable, CustomStringConvertible {
    /// A document of this many rules.
    case rules(Int)
    /// The largest document Apple accepts: as many rules as fit in 128 KB (`128k`).
    case appleLimit

    init?(_ text: Substring) {
        if text.lowercased() == "128k" {
            self = .appleLimit
        } else if let count = Int(text), count >= 1, count <= 100_000 {
            self = .rules(count)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .rules(let count): return "\(count)"
        case .appleLimit: return "128k"
        }
    }
}

struct Options {
    var quick = false
    var jsonPath: String?
    /// Every default size fits Apple's limit, so the library parses it with its default limits.
    var sizes: [Size] = [.rules(10), .rules(100), .rules(1_000), .appleLimit]
    var runs = 5
    var seed: UInt64 = 20_240_601
    var corpus = "/work/shared/corpus/urls/combined_http_dedup.txt"
    var re2MaxMemory: Int64 = 1 << 30
    /// Run only this engine (no agreement check), for `perf record` / callgrind.
    var profile: String?
}

func usage() -> Never {
    print(
        """
        usage: aasa-peers [--quick] [--json FILE] [--sizes 10,100,1000,128k] [--runs N] [--seed N]
                          [--corpus FILE] [--re2-max-mem-mib N] [--profile ENGINE]
          --quick    20 000 real + 5 000 generated paths per document instead of all real paths + 50 000
          --sizes    document sizes: a rule count (1 to 100 000), or 128k for as many rules as fit in
                     131 072 bytes (the largest document Apple accepts). A count whose document is
                     larger (10000 is 252 863 bytes) is a stress size: only for it does our engine
                     get raised document limits
          --profile  run only ENGINE (ours, ours-cache-as-re2, ours-lazy-dfa-only, re2-set, hyperscan)
                     for --runs passes after a cold pass, no checks: for perf record / callgrind
        """)
    exit(2)
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    func value() -> String {
        guard let next = arguments.popFirst() else { usage() }
        return next
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--quick": options.quick = true
        case "--json": options.jsonPath = value()
        case "--sizes":
            let text = value()
            let sizes = text.split(separator: ",").map { Size($0) }
            guard !sizes.isEmpty, !sizes.contains(nil) else {
                say("aasa-peers: --sizes takes rule counts (1 to 100 000) and 128k, comma-separated, not \(text)")
                usage()
            }
            options.sizes = sizes.compactMap { $0 }
        case "--runs": options.runs = max(1, Int(value()) ?? 5)
        case "--seed": options.seed = UInt64(value()) ?? options.seed
        case "--corpus": options.corpus = value()
        case "--re2-max-mem-mib": options.re2MaxMemory = Int64(Int(value()) ?? 1024) << 20
        case "--profile": options.profile = value()
        case "-h", "--help": usage()
        default:
            say("aasa-peers: unknown argument \(argument)")
            usage()
        }
    }
    return options
}

/// The first rule of `app` according to the oracle, -1 for none.
func oracleFirstRule(_ reference: ReferenceMatcher, path: String) -> Int32 {
    guard let decision = try? reference.decide("https://\(Workload.domain)\(path)", app: Workload.appID),
        let app = decision.decisions.first, app.kind != .noMatch, let rule = app.rule
    else { return -1 }
    return Int32(rule)
}

/// Builds one engine, recording how long it took.
func built<T>(_ name: String, _ result: inout WorkloadResult, _ make: () throws -> T) rethrows -> T {
    let start = Harness.now(CLOCK_THREAD_CPUTIME_ID)
    let value = try make()
    result.buildMilliseconds[name] = Double(Harness.now(CLOCK_THREAD_CPUTIME_ID) - start) / 1e6
    return value
}

func runWorkload(size: Size, real: [String], options: Options) throws -> (WorkloadResult, Bool) {
    let ruleCount: Int
    switch size {
    case .rules(let count): ruleCount = count
    case .appleLimit:
        let found = Workload.ruleCount(fillingAtMost: Workload.appleLimitBytes, seed: options.seed)
        ruleCount = found.rules
        say(
            "\n128k: \(grouped(found.rules)) rules make a \(grouped(found.bytes))-byte document, the most that fit in "
                + "\(grouped(Workload.appleLimitBytes)) bytes (binary search: \(grouped(found.searched)); "
                + "then the 5% above it)")
    }
    let rules = Workload.rules(count: ruleCount, seed: options.seed)
    let generated = Workload.paths(hitting: rules, count: options.quick ? 5_000 : 50_000, seed: options.seed)
    let stream = PathStream(real: real, generated: generated, seed: options.seed)
    let json = Workload.json(rules)
    // Over Apple's limit the library would refuse the document: only such a size, asked for by
    // `--sizes`, gets raised limits, and its title says it is a stress size.
    let stress = json.count > Workload.appleLimitBytes
    var pathsWord = "\(grouped(stream.realCount)) real + \(grouped(stream.generatedCount)) generated URL paths"
    if stream.realCount == 0 { pathsWord = "\(grouped(stream.generatedCount)) generated URL paths" }
    let sizeWord: String
    if size == .appleLimit {
        sizeWord = "128 KB document (\(grouped(ruleCount)) path rules)"
    } else if stress {
        sizeWord = "\(grouped(ruleCount)) path rules (stress size: \(grouped(json.count)) bytes, over Apple's 128 KB)"
    } else {
        sizeWord = "\(grouped(ruleCount)) path rules"
    }
    var result = WorkloadResult(
        title: "first matching rule, \(sizeWord), \(pathsWord), 1 thread",
        label: size == .appleLimit
            ? "128 KB (\(grouped(ruleCount)))" : stress ? "\(grouped(ruleCount)) (stress)" : grouped(ruleCount),
        fillsAppleLimit: size == .appleLimit, stress: stress,
        rules: ruleCount, excludeRules: rules.filter(\.exclude).count,
        anyOnePatterns: rules.filter { GlobTranslation.needsUTF8($0.glob) }.count,
        documentBytes: json.count, realPaths: stream.realCount, generatedPaths: stream.generatedCount)
    say("\n## \(result.title)")

    let ours = try built(EngineName.ours, &result) { try OurEngine(json: json, raiseLimits: stress) }
    let oursBig = try built(EngineName.oursBigCache, &result) {
        try OurEngine(json: json, cacheCapacity: Int(options.re2MaxMemory), raiseLimits: stress)
    }
    let oursDFA = try built(EngineName.oursDFA, &result) {
        try OurLazyDFAEngine(rules: rules, cacheCapacity: Int(options.re2MaxMemory))
    }
    let re2 = try built(EngineName.re2, &result) { try RE2SetEngine(rules: rules, maxMemory: options.re2MaxMemory) }
    let hyperscan = try built(EngineName.hyperscan, &result) { try HyperscanEngine(rules: rules) }
    result.ourNFAStates = ours.compiled.nfaStateCount
    result.hyperscanDatabaseBytes = hyperscan.databaseBytes
    result.hyperscanScratchBytes = hyperscan.scratchBytes

    let engines: [(String, Engine)] = [
        (EngineName.ours, ours), (EngineName.oursBigCache, oursBig), (EngineName.oursDFA, oursDFA),
        (EngineName.re2, re2), (EngineName.hyperscan, hyperscan),
    ]
    if let profile = options.profile {
        guard let (name, engine) = engines.first(where: { $0.0 == profile }) else {
            say("aasa-peers: --profile takes one of \(engines.map(\.0).joined(separator: ", "))")
            exit(2)
        }
        var scratch = [Int32](repeating: 0, count: stream.count)
        engine.run(stream, into: &scratch)
        let elapsed = Harness.time { for _ in 0..<options.runs { engine.run(stream, into: &scratch) } }
        say("  \(name): \(format(elapsed / Double(options.runs * stream.count), 1)) ns/path (profile mode, no checks)")
        return (result, true)
    }
    // Cold pass: answers for the agreement check, and the time with empty lazy-DFA caches.
    var answers = [[Int32]](repeating: [Int32](repeating: -3, count: stream.count), count: engines.count)
    for (index, (name, engine)) in engines.enumerated() {
        result.coldPass[name] = Harness.time { engine.run(stream, into: &answers[index]) }
    }

    // Agreement: every engine's first rule against ours, path by path.
    var ok = true
    let oursAnswers = answers[0]
    result.matchedPaths = oursAnswers.filter { $0 >= 0 }.count
    for (index, (name, _)) in engines.enumerated() {
        let failures = answers[index].filter { $0 == -2 }.count
        result.errors[name] = failures
        if failures > 0 {
            ok = false
            say("ERROR: \(name) failed on \(failures) paths")
        }
        guard index > 0 else { continue }
        var count = 0
        for path in 0..<stream.count where answers[index][path] != oursAnswers[path] {
            count += 1
            if count <= 5 {
                let describe = { (rule: Int32) in rule >= 0 ? "\(rule) \(rules[Int(rule)].glob)" : "\(rule)" }
                say(
                    "DISAGREE \(name) on path \(stream.path(path).debugDescription): "
                        + "ours \(describe(oursAnswers[path])), \(name) \(describe(answers[index][path]))")
            }
        }
        result.disagreements[name] = count
        if count > 0 { ok = false }
    }

    // Oracle spot check: the SPEC-only reference on evenly spaced paths.
    let reference = ReferenceMatcher(document: ours.document, domain: Workload.domain)
    let sample = min(stream.count, max(100, min(1_000, 2_000_000 / ruleCount)))
    for step in 0..<sample {
        let path = step * stream.count / sample
        let expected = oracleFirstRule(reference, path: stream.path(path))
        if expected != oursAnswers[path] {
            result.oracleDisagreements += 1
            ok = false
            if result.oracleDisagreements <= 5 {
                say(
                    "DISAGREE oracle on path \(stream.path(path).debugDescription): "
                        + "ours \(oursAnswers[path]), oracle \(expected)")
            }
        }
    }
    result.oracleSample = sample

    // Timed rounds, engines interleaved so that drift hits all of them alike.
    var scratch = [Int32](repeating: 0, count: stream.count)
    for _ in 0..<options.runs {
        for (index, (name, engine)) in engines.enumerated() {
            let elapsed = Harness.measure { engine.run(stream, into: &scratch) }
            result.rounds[name, default: []].append(elapsed.cpu)
            result.wallRounds[name, default: []].append(elapsed.wall)
            if scratch != answers[index] {
                say("ERROR: \(name) gave different answers on a later pass")
                ok = false
            }
        }
    }
    let statistics = ours.matcher.cacheStatistics
    result.ourStatesBuilt = statistics.statesBuilt
    result.ourCacheClears = statistics.clears
    result.ourFallbacks = statistics.fallbacks
    result.ourCacheBytes = statistics.memory
    let big = oursBig.matcher.cacheStatistics
    result.bigStatesBuilt = big.statesBuilt
    result.bigCacheClears = big.clears
    result.bigCacheBytes = big.memory
    for (name, _) in engines {
        let cold = format((result.coldPass[name] ?? 0) / 1e6, 1)
        let build = format(result.buildMilliseconds[name] ?? 0, 1)
        say("  \(name): \(format(result.nsPerPath(name), 1)) ns/path (cold pass \(cold) ms, build \(build) ms)")
    }
    let verdict = ok ? "all \(grouped(stream.count)) paths agree" : "FAILED"
    say("  agreement: \(verdict); oracle sample \(sample), \(result.oracleDisagreements) disagreements")
    return (result, ok)
}

let options = parseOptions()
let machine = Machine.current()
let hyperscanVersion = String(cString: peers_hs_version())
say(
    "aasa-peers: ours (AASAKit DFAMatcher) vs RE2::Set (max_mem \(options.re2MaxMemory >> 20) MiB, anchored both "
        + "ends, UTF-8, dot_nl) vs Hyperscan \(hyperscanVersion) (block mode, ^…\\z, DOTALL, UTF8 on patterns with ?)")
say("machine: \(machine.logicalCPUs) logical CPUs, \(machine.cpu); 1 thread; median of \(options.runs) runs after a warm-up pass")
say("restriction: \(GlobTranslation.restrictionSummary)")

var real: [String] = []
var corpusUsed: String?
if let corpus = CorpusPaths.load(from: options.corpus) {
    corpusUsed = options.corpus
    real = corpus.paths
    say(
        "corpus: \(options.corpus): \(grouped(corpus.urls)) URLs, \(grouped(corpus.paths.count)) paths kept "
            + "(\(grouped(corpus.withTrailingSlash)) with a trailing /), \(grouped(corpus.skippedRootOrEmpty)) empty "
            + "or / paths left out, \(grouped(corpus.skippedInvalidUTF8)) invalid UTF-8")
    if options.quick {
        var rng = SplitMix64(seed: options.seed)
        real = Array(real.shuffled(using: &rng).prefix(20_000))
    }
} else {
    say("corpus: \(options.corpus) is absent: skipping real URL paths, using generated paths only")
}

var results: [WorkloadResult] = []
var allAgree = true
for size in options.sizes {
    do {
        let (result, ok) = try runWorkload(size: size, real: real, options: options)
        results.append(result)
        allAgree = allAgree && ok
    } catch {
        say("ERROR: size \(size): \(error)")
        allAgree = false
    }
}

if options.profile != nil { exit(0) }
say("\n" + Report.markdown(results, machine: machine, runs: options.runs, re2MaxMemory: options.re2MaxMemory))
if let jsonPath = options.jsonPath {
    let data = Report.json(
        results, machine: machine, runs: options.runs, re2MaxMemory: options.re2MaxMemory, quick: options.quick,
        corpus: corpusUsed, hyperscanVersion: hyperscanVersion)
    guard FileManager.default.createFile(atPath: jsonPath, contents: data) else {
        say("aasa-peers: cannot write \(jsonPath)")
        exit(1)
    }
    say("wrote \(jsonPath)")
}
if !allAgree {
    say("aasa-peers: FAILED (disagreement or engine error, see above)")
    exit(1)
}
