import AASAKit
import Foundation

/// TEMPORARY (issue 23 part 2): paired A/B of each piece of speed work, in one process.
///
/// `AASA_AB_HARNESS=1 aasa-bench [--shared DIR]`: per workload (1 000 path rules, 128 KB of
/// path rules, the 250 real documents on real URLs), the document is compiled twice, A with
/// every piece on and B with one piece off (`ABToggle`, read at compile time only), then
/// rounds of one timed pass each, A and B back to back in alternating order, after one untimed
/// warm-up pass of each; the figure is the median over rounds of B ÷ A (above 1: the piece
/// pays). When both compiles give the same plan and the same automaton bytes, the piece is not
/// in use on that workload and is not timed. `AASA_AB_PIECES` (comma list) picks pieces,
/// `AASA_AB_ROUNDS` the rounds (default 11), `AASA_AB_SCALING=1` adds 10 rules ÷ 128 KB.
enum ABHarness {
    static func run(_ context: RunContext) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let pieces = environment["AASA_AB_PIECES"].map { $0.split(separator: ",").map(String.init) } ?? ABToggle.names
        let rounds = environment["AASA_AB_ROUNDS"].flatMap(Int.init) ?? 11
        let seed = context.options.seed
        do {
            var workloads: [(name: String, documents: [(bytes: [UInt8], domain: String, lifted: Bool)], urls: [URLBatch], warmup: [URLBatch])] = []
            let sizes = environment["AASA_AB_ONLY_128K"] == "1" ? [Profile.appleLimit] : environment["AASA_AB_SYNTHETIC"] == "1" ? [1_000, Profile.appleLimit] : [1_000, Profile.appleLimit]
            for rules in sizes {
                let workload = try SyntheticWorkload(kind: .paths, rules: rules, urlCount: 20_000, seed: seed)
                let bytes = Array(workload.document.text.utf8)
                say("\(workload.label): \(workload.document.ruleCount) rules, \(bytes.count) bytes, plan: \(workload.compiled.plan.lines.joined(separator: " | "))")
                workloads.append((workload.label, [(bytes, workload.document.domain, true)], [workload.urls], [workload.warmupURLs]))
            }
            if environment["AASA_AB_ONLY_128K"] != "1", environment["AASA_AB_SYNTHETIC"] != "1", context.store.sharedCorpusMissing(["aasa/real", "urls/combined_http_dedup.txt"]) == nil {
                let documents = try context.store.realDocuments()
                let urls = URLBatch(try context.store.realURLs(rewrittenTo: RealSuite.domain, count: 1_000))
                // Unseen passes warm on a sample of other lines of the same file.
                let warmup = URLBatch(try context.store.realURLs(rewrittenTo: RealSuite.domain, count: 1_013))
                workloads.append(
                    ("real", documents.map { ($0.bytes, RealSuite.domain, false) }, Array(repeating: urls, count: documents.count),
                     Array(repeating: warmup, count: documents.count)))
                // The fleet suite's documents: the real ones above under other names, and one in
                // five generated (`Fleet.generated`, 60 of them at --quick's 300 domains).
                var random = SeededRandom(seed: seed)
                let generated = stride(from: 4, to: 300, by: 5).map { Fleet.generated($0, &random) }
                workloads.append(
                    ("fleet-generated", generated.map { ($0, RealSuite.domain, false) }, Array(repeating: urls, count: generated.count),
                     Array(repeating: warmup, count: generated.count)))
            }
            if environment["AASA_AB_SCALING"] == "1" { try scaling(seed: seed, rounds: rounds) }
            for (name, documents, urls, warmup) in workloads {
                for piece in pieces {
                    let a = try compile(documents)
                    ABToggle.set(piece, true)
                    let b = try compile(documents)
                    ABToggle.set(piece, false)
                    // A piece is in use when a document's plan has the strategy it belongs to.
                    let owner: Strategy = ["compact", "opening", "segments", "wide-headers"].contains(piece) ? .compactTable : .suffixSplit
                    let same = !a.contains { $0.plan.strategies.contains(owner) }
                    let aStrategies = Set(a.flatMap { $0.plan.strategies }).map(\.rawValue).sorted().joined(separator: ",")
                    let bStrategies = Set(b.flatMap { $0.plan.strategies }).map(\.rawValue).sorted().joined(separator: ",")
                    if same {
                        say("AB \(name) \(piece): not in use (no document's plan has \(owner)) [\(aStrategies)]")
                        continue
                    }
                    let changed = a.filter { $0.plan.strategies.contains(owner) }.count
                    var ratios: [Double] = [], aTimes: [Double] = [], bTimes: [Double] = []
                    var unseenRatios: [Double] = [], aUnseen: [Double] = [], bUnseen: [Double] = []
                    let aMatchers = a.map { DFAMatcher($0) }
                    let bMatchers = b.map { DFAMatcher($0) }
                    /// An unseen pass: fresh matchers, warmed on the warm-up stream, then one timed pass.
                    func unseenPass(_ compiled: [CompiledDocument]) -> Double {
                        let fresh = compiled.map { DFAMatcher($0) }
                        for (index, matcher) in fresh.enumerated() { blackHole(EngineLoops.dfaBytes(matcher, warmup[index])) }
                        return pass(fresh)
                    }
                    func pass(_ matchers: [DFAMatcher]) -> Double {
                        var decisions = 0
                        let (checksum, elapsed) = Clock.measure { () -> Int in
                            var sum = 0
                            for (index, matcher) in matchers.enumerated() {
                                sum &+= EngineLoops.dfaBytes(matcher, urls[index])
                                decisions += urls[index].count
                            }
                            return sum
                        }
                        blackHole(checksum)
                        return Double(elapsed) / Double(max(1, decisions))
                    }
                    let checkA = zip(aMatchers, urls).map { EngineLoops.dfaBytes($0, $1) }
                    let checkB = zip(bMatchers, urls).map { EngineLoops.dfaBytes($0, $1) }
                    guard checkA == checkB else {
                        say("AB \(name) \(piece): DISAGREEMENT between A and B")
                        return 1
                    }
                    for round in 0..<rounds {
                        let (ta, tb): (Double, Double)
                        if round % 2 == 0 {
                            ta = pass(aMatchers)
                            tb = pass(bMatchers)
                        } else {
                            tb = pass(bMatchers)
                            ta = pass(aMatchers)
                        }
                        aTimes.append(ta)
                        bTimes.append(tb)
                        ratios.append(tb / ta)
                        let (ua, ub): (Double, Double)
                        if round % 2 == 0 {
                            ua = unseenPass(a)
                            ub = unseenPass(b)
                        } else {
                            ub = unseenPass(b)
                            ua = unseenPass(a)
                        }
                        aUnseen.append(ua)
                        bUnseen.append(ub)
                        unseenRatios.append(ub / ua)
                    }
                    let aBytes = a.reduce(0) { $0 + $1.memoryUsage }, bBytes = b.reduce(0) { $0 + $1.memoryUsage }
                    say(
                        "AB \(name) \(piece): repeated off ÷ on = \(String(format: "%.3f", Statistics.quantile(ratios, 0.5))) "
                            + "[q25 \(String(format: "%.3f", Statistics.quantile(ratios, 0.25))), q75 \(String(format: "%.3f", Statistics.quantile(ratios, 0.75)))], "
                            + "on \(String(format: "%.1f", Statistics.quantile(aTimes, 0.5))) ns, off \(String(format: "%.1f", Statistics.quantile(bTimes, 0.5))) ns a decision; unseen off ÷ on = \(String(format: "%.3f", Statistics.quantile(unseenRatios, 0.5))) [q25 \(String(format: "%.3f", Statistics.quantile(unseenRatios, 0.25))), q75 \(String(format: "%.3f", Statistics.quantile(unseenRatios, 0.75)))], on \(String(format: "%.1f", Statistics.quantile(aUnseen, 0.5))) ns, off \(String(format: "%.1f", Statistics.quantile(bUnseen, 0.5))) ns; "
                            + "min-of-rounds off ÷ on: repeated \(String(format: "%.3f", (bTimes.min() ?? 0) / (aTimes.min() ?? 1))), unseen \(String(format: "%.3f", (bUnseen.min() ?? 0) / (aUnseen.min() ?? 1))) (on \(String(format: "%.1f", aTimes.min() ?? 0))/\(String(format: "%.1f", aUnseen.min() ?? 0)) ns); "
                            + "\(rounds) rounds, \(changed) of \(a.count) documents use \(owner), bytes \(aBytes) → \(bBytes) "
                            + "[on: \(aStrategies)] [off: \(bStrategies)]")
                }
            }
            return 0
        } catch {
            say("AB error: \(error)")
            return 1
        }
    }

    static func compile(_ documents: [(bytes: [UInt8], domain: String, lifted: Bool)]) throws -> [CompiledDocument] {
        try documents.map { document in
            var configuration = Configuration()
            if document.lifted {
                configuration.document.maxPatterns = .max
                configuration.document.maxBytes = max(configuration.document.maxBytes, document.bytes.count)
            }
            let parsed = try AASADocument(bytes: document.bytes, configuration: configuration)
            return try CompiledDocument(document: parsed, domain: document.domain)
        }
    }

    /// Per-URL time at 128 KB of path rules ÷ at 10, unseen passes back to back (as the match
    /// suite's pairs), with 20 000 URLs each.
    static func scaling(seed: UInt64, rounds: Int) throws {
        let small = try SyntheticWorkload(kind: .paths, rules: 10, urlCount: 20_000, seed: seed)
        let large = try SyntheticWorkload(kind: .paths, rules: Profile.appleLimit, urlCount: 20_000, seed: seed)
        var smallTimes: [Double] = [], largeTimes: [Double] = [], ratios: [Double] = []
        for round in 0..<(2 * rounds) {
            let (s, l): (Double, Double)
            if round % 2 == 0 {
                s = MatchSuite.unseenPass(small)
                l = MatchSuite.unseenPass(large)
            } else {
                l = MatchSuite.unseenPass(large)
                s = MatchSuite.unseenPass(small)
            }
            smallTimes.append(s)
            largeTimes.append(l)
            ratios.append(l / s)
        }
        say(
            "SCALING paths-10 \(String(format: "%.1f", Statistics.quantile(smallTimes, 0.5))) ns/URL, \(large.label) (\(large.document.ruleCount) rules, \(large.document.text.utf8.count) bytes) \(String(format: "%.1f", Statistics.quantile(largeTimes, 0.5))) ns/URL, "
                + "ratio median \(String(format: "%.2f", Statistics.quantile(ratios, 0.5))) [q25 \(String(format: "%.2f", Statistics.quantile(ratios, 0.25))), q75 \(String(format: "%.2f", Statistics.quantile(ratios, 0.75)))] over \(ratios.count) pairs; "
                + "plans: \(small.compiled.plan.strategies.map(\.rawValue).sorted()) / \(large.compiled.plan.strategies.map(\.rawValue).sorted())")
    }

    static func say(_ text: String) {
        print(text)
        fflush(nil)
    }
}
